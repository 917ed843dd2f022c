"""The build's one imperative part: the optional C extension of the "native" backend.

Everything else (metadata, packages, data) is in pyproject.toml; setuptools reads
`ext_modules` from here. The extension is optional: where no C compiler (or no Python
headers) is found, `pip install` warns and installs the package without it, and
`accel.available_backends()` then says why "native" is unusable. It is a CPython C
extension, so it is built on CPython only (PyPy runs refimpl itself: backend "pypy").
Both `pip install .` and `pip install -e .` build it.
"""
import platform

from setuptools import Extension, setup

ext_modules = []
if platform.python_implementation() == "CPython":
    ext_modules.append(Extension("accel._native", ["accel/_native.c"], optional=True))

setup(ext_modules=ext_modules)
