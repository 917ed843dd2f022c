"""The results file: what a run found, one JSON line per vector checked by an engine,
appended as each vector completes, so that a long run which stops (killed, crashed, a
machine lost) resumes where it stopped, with nothing lost and nothing counted twice.

A record is runner.Result's to_json() plus

    engine   the engine's name (a configuration is a name of its own: "xgrammar-default")
    version  the engine's version string
    digest   sha256 of the vector's JSON line as read (surrounding whitespace aside), its
             first 16 hex digits: a vector changed since is checked again
    tags     the vector's tags
    seconds  the vector's wall time

Its key is (engine, id, digest). Files are only ever appended to (`append`: one line, then
flush and fsync), so the same key can occur more than once (a vector checked again):
readers keep the last record of a key. A run killed while writing leaves a torn last line,
one without its newline: readers ignore it (and say so), and `repair` cuts it off before a
run appends after it. A malformed line anywhere else is an error (FormatError, naming the
file and line). Files may be gzip-compressed (`.jsonl.gz`): read only.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "results.jsonl")
>>> for status in ("disagree", "agree"):
...     append(path, {"engine": "e", "id": "v", "digest": digest('{"id": "v"}'), "status": status})
>>> [r["status"] for r in read_results([path])], done_keys([path])
(['agree'], {('e', 'v', 'c011c8400074dbf6')})
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import sys
import zlib
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Tuple, Union

from .vectors import FormatError, utf8_line

Key = Tuple[str, str, str]
KEY_FIELDS = ("engine", "id", "digest")


def digest(line: str) -> str:
    """A vector's digest: sha256 of its JSON line (stripped), 16 hex digits."""
    return hashlib.sha256(line.strip().encode("utf-8")).hexdigest()[:16]


def key(record: Dict[str, Any]) -> Key:
    return (record["engine"], record["id"], record["digest"])


def append(path: str, record: Dict[str, Any]) -> None:
    """Append one record as one line, on disk when this returns (flushed and fsync'd)."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    with open(path, "a", encoding="utf-8") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def repair(path: str) -> str:
    """Cut a torn last line off the file (before appending after it); returns the text cut
    ("" if none, or no file)."""
    if not os.path.exists(path):
        return ""
    with open(path, "rb+") as f:
        data = f.read()
        if not data or data.endswith(b"\n"):
            return ""
        keep = data.rfind(b"\n") + 1
        f.truncate(keep)
    return data[keep:].decode("utf-8", "replace")


def _say_torn(path: str, text: str) -> None:
    sys.stderr.write("%s: a torn last line ignored (%d characters: a run killed while writing it)\n"
                     % (path, len(text)))


def read_results(paths: Union[str, Iterable[str]],
                 on_torn: Optional[Callable[[str, str], None]] = _say_torn) -> List[Dict[str, Any]]:
    """The records of the files (plain or .gz), the last one of each key, in the order they
    were written. A torn last line is passed to on_torn(path, text) and ignored."""
    found: Dict[Key, Dict[str, Any]] = {}
    for path in [paths] if isinstance(paths, str) else paths:
        lines = _read(path).split(b"\n")
        torn = lines.pop()  # after the last newline: "" in a whole file
        if torn and on_torn is not None:
            on_torn(path, torn.decode("utf-8", "replace"))
        for lineno, raw in enumerate(lines, 1):
            line = utf8_line(path, lineno, raw)
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                k = key(record)
                hash(k)
            except (ValueError, KeyError, TypeError, RecursionError) as e:
                raise FormatError("%s:%d: not a results record (%s: %s)" % (path, lineno, type(e).__name__, e)) from None
            found.pop(k, None)  # the last record of a key wins, in its place
            found[k] = record
    return list(found.values())


def _read(path: str) -> bytes:
    """The bytes of a results file (plain, or gzip-compressed when it ends in .gz)."""
    if not path.endswith(".gz"):
        with open(path, "rb") as f:
            return f.read()
    try:
        with gzip.open(path, "rb") as f:
            return f.read()
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        raise FormatError("%s: not a whole gzip file (%s)" % (path, e)) from None


def supported(paths: Union[str, Iterable[str]]) -> Set[Tuple[str, str]]:
    """(id, digest) of every vector the files record as supported (any status but
    unsupported), by any engine they hold: the expectation of `run --supported`."""
    return {(r["id"], r["digest"]) for r in read_results(paths) if r["status"] != "unsupported"}


def done_keys(paths: Union[str, Iterable[str]]) -> Set[Key]:
    """The keys the files hold a record of."""
    return {key(r) for r in read_results(paths, on_torn=None)}
