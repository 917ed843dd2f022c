"""The results of fuzzing runs: one JSON line per target and run, appended as each target
ends — conformance/results.py's file, read and written by its functions: `append` flushes
and fsyncs one line, `repair` cuts a torn last line, readers keep the last record of a key.

Its key is conformance's (engine, id, digest): `engine` is the fuzzer ("atheris"), `id`
the target's name (also in `target`), and `digest` says which run it is — the sha256 of
the code fuzzed (the Python files of the target's packages and of hostile/), the budget
and the seed. So a `run` that stopped resumes (a target with a record of the same key is
skipped: nothing counted twice), a run after a change of the code fuzzes again, and the
report shows the last record of each target (`latest`).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "hostile.jsonl")
>>> for executed in (10, 20):
...     append(path, dict(keyed("t", "d"), executed=executed))
>>> [r["executed"] for r in read(path)], ("atheris", "t", "d") in done(path)
([20], True)
"""
from __future__ import annotations

import hashlib
import os
import subprocess
from typing import Any, Dict, Iterable, List, Set, Tuple

from conformance.results import append, done_keys, key, read_results, repair

from .targets import Target

__all__ = ["append", "repair", "read", "done", "key", "keyed", "run_digest", "latest", "commit"]

Record = Dict[str, Any]
Key = Tuple[str, str, str]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


#: the fuzzer, the records' `engine`
ENGINE = "atheris"


def keyed(target: str, digest: str) -> Record:
    """A record's key fields: a run of `target` whose `run_digest` is digest."""
    return {"engine": ENGINE, "id": target, "target": target, "digest": digest}


def read(path: str) -> List[Record]:
    """The records of a results file, the last one of each key, in the order written."""
    return read_results(path)


def done(path: str) -> Set[Key]:
    """The keys the file holds a record of (none if there is no file)."""
    return done_keys(path) if os.path.exists(path) else set()


def latest(records: Iterable[Record]) -> Dict[str, Record]:
    """The last record of each target, by target name (sorted)."""
    out: Dict[str, Record] = {}
    for r in records:
        out[r["target"]] = r
    return dict(sorted(out.items()))


def _sources(package: str) -> List[str]:
    path = os.path.join(ROOT, *package.split("."))
    if os.path.isfile(path + ".py"):
        return [path + ".py"]
    out: List[str] = []
    for folder, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        out.extend(os.path.join(folder, n) for n in sorted(names) if n.endswith(".py"))
    return out


def run_digest(target: Target, budget: str, seed: int) -> str:
    """Which run of a target this is: sha256 (16 hex digits) of the code fuzzed (the
    target's packages and hostile/), the budget and the seed."""
    h = hashlib.sha256(("%s\0%d\0" % (budget, seed)).encode("utf-8"))
    for package in sorted(set(target.packages) | {"hostile"}):
        for path in _sources(package):
            h.update(os.path.relpath(path, ROOT).encode("utf-8") + b"\0")
            with open(path, "rb") as f:
                h.update(f.read())
    return h.hexdigest()[:16]


def commit() -> str:
    """The checkout's commit (short hash, `+` when tracked files other than results/ differ
    from it: a campaign appends to its results file as it goes), or ""."""
    def git(*args: str) -> str:
        return subprocess.run(("git",) + args, cwd=ROOT, capture_output=True, text=True, timeout=30,
                              check=True).stdout.strip()
    try:
        head = git("rev-parse", "--short", "HEAD")
        return head + ("+" if git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!results") else "")
    except (OSError, subprocess.SubprocessError):
        return ""
