"""A scratch directory for the targets whose entry point reads files: the input's bytes
become a file's content there (`write`), one directory per process, emptied between
inputs by overwriting, and removed at exit."""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import Optional

_DIR: Optional[str] = None


def directory() -> str:
    """This process's scratch directory (created on first use, removed at exit)."""
    global _DIR
    if _DIR is None or not os.path.isdir(_DIR):
        _DIR = tempfile.mkdtemp(prefix="maskref-hostile-")
        atexit.register(shutil.rmtree, _DIR, True)
    return _DIR


def write(name: str, data: bytes) -> str:
    """The path of the scratch file `name` (a relative path) holding `data`."""
    path = os.path.join(directory(), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return path


def clear(name: str) -> str:
    """The path of the scratch directory `name`, emptied."""
    path = os.path.join(directory(), name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path
