"""The conformance suite: vectors, backend adapters and the differential fuzzer.

Filled in by the conformance work; refimpl is the oracle every backend is checked against.
"""
