"""Serving: backends by name, and refimpl as a worker process (docs/backends.md, docs/protocol.md).

    backends.py   the registry of walkers and process backends; `open_matcher`
    protocol.py   the worker protocol's messages and error encoding, for both sides
    worker.py     the JSON-lines worker (python -m refimpl.serving.worker)
"""
