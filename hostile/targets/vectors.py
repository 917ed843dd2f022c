"""Conformance files as outside input: the vector reader (conformance/vectors.py:
`read_vectors`, `Vector.from_json` on each line) and the results reader
(conformance/results.py: `read_results`) on a file whose content is the fuzzer's bytes.

The first byte chooses the reader (a suite file, a results file, a gzip-compressed
results file), the rest is the file. The property: the vectors (or records), or a
`FormatError` naming the file and line — the runner turns it into one error line, exit
status 2. A vector read is checked against its own line: every token of its path and
every id of its masks is a token id of its vocabulary (an id the reader let through
would be fed to the engine under test).
"""
from __future__ import annotations

import gzip
import json
import os
from typing import Any, Iterator, List, Tuple

from conformance.results import read_results
from conformance.vectors import FormatError, bitmask_len, read_vectors

from ..property import Violation, check
from . import Target, scratch

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = os.path.join(_REPO, "conformance", "suite")
RESULTS = os.path.join(_REPO, "results", "default")
#: lines of each suite file (the shortest ones) and of a results file in the seeds
SEED_LINES = 3

READERS = ("suite", "results", "results-gz")


def _named(call: Any, name: str, label: str) -> Any:
    """call(), whose FormatError must name the file `name`."""
    def named() -> Any:
        try:
            return call()
        except FormatError as e:
            if name not in str(e):
                raise Violation("%s: a FormatError that does not name the file %s: %s" % (label, name, e)) from None
            raise
    return named


def run(data: bytes) -> None:
    if not data:
        return
    reader = READERS[data[0] % len(READERS)]
    body = data[1:]
    if reader == "suite":
        path = scratch.write("suite.jsonl", body)
        found = check(_named(lambda: list(read_vectors(path)), "suite.jsonl", reader), typed=(FormatError,))
        if found is not None:
            _check_vectors(found, body)
    else:
        path = scratch.write("results.jsonl" + (".gz" if reader == "results-gz" else ""), body)
        records = check(_named(lambda: read_results([path], on_torn=None), os.path.basename(path), reader),
                        typed=(FormatError,))
        if records is not None and not all(isinstance(r, dict) for r in records):
            raise Violation("%s: a record that is not an object" % reader)


def _check_vectors(found: List[Tuple[str, int, Any]], body: bytes) -> None:
    """Each vector read keeps its line's token ids within its vocabulary."""
    lines = body.split(b"\n")
    for _, lineno, v in found:
        n = len(v.vocab)
        data = json.loads(lines[lineno - 1])
        for i, (step, raw) in enumerate(zip(v.steps, data["steps"])):
            if len(step.mask) != bitmask_len(n):
                raise Violation("line %d step %d: a mask of %d bytes for %d tokens" % (lineno, i, len(step.mask), n))
            ids = raw["mask"].get("ids", [])
            for t in ids + ([] if raw.get("token") is None else [raw["token"]]):
                if not (isinstance(t, int) and not isinstance(t, bool) and 0 <= t < n):
                    raise Violation("line %d step %d: token id %r read from a vocabulary of %d" % (lineno, i, t, n))


def seeds() -> Iterator[bytes]:
    for name in sorted(os.listdir(SUITE)):
        with open(os.path.join(SUITE, name), "rb") as f:
            lines = sorted(f.read().splitlines(), key=len)[:SEED_LINES]
        yield bytes([READERS.index("suite")]) + b"\n".join(lines) + b"\n"
    with gzip.open(os.path.join(RESULTS, "llguidance.jsonl.gz"), "rb") as f:
        records = b"".join(f.readline() for _ in range(SEED_LINES))
    yield bytes([READERS.index("results")]) + records
    yield bytes([READERS.index("results-gz")]) + gzip.compress(records, mtime=0)


TARGETS = [
    Target("vectors", "conformance.vectors.read_vectors (Vector.from_json), conformance.results.read_results",
           run, seeds, ("conformance", "refimpl")),
]
