"""Optional accelerated backends (a C walker, refimpl under PyPy), checked against refimpl.

Filled in by the accelerated-backends work; today no backend beyond refimpl's own exists.
"""
