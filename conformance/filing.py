"""Which peer bugs can be filed upstream, and whether they still show: the survey's record
and the table docs/findings.md shows of it.

`python -m conformance bugreport --survey PEER` finds every peer bug of PEER that shows on
a vector of the findings suite (bugreport.peer_bug_cases), writes each one's standalone
script (bugreport.script), runs it with this interpreter and records what it printed:
`present` (exit 1, BUG PRESENT), `fixed` (exit 0, FIXED UPSTREAM) or `failed` (anything
else: the script itself is broken). The record (conformance/data/bugreports.json) keeps,
per peer, the version surveyed, the date and those three lists; the peer bugs without a
case are the declared ones the record does not name, so a peer bug declared after the
survey shows as one without a case until the peer is surveyed again.

The table is generated from the record and the peers' declared differences (never typed),
into docs/findings.md's block `<!-- BEGIN bugreports -->` ... `<!-- END bugreports -->`;
tests/conformance/test_filing.py fails when the page's block is not what the record gives.
Why a bug has no case is the lead's prose, kept beside the record (`no_case_why`).
"""
from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Optional

from .bugreport import DRIVERS, FINDINGS_DOC, PEERS, peer_bug_cases, peer_differences, script
from .engine import Engine
from .vectors import FormatError

RECORD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "bugreports.json")
MARKS = ("<!-- BEGIN bugreports -->", "<!-- END bugreports -->")
OUTCOMES = ("present", "fixed", "failed")


def run_script(text: str, timeout: float = 300) -> str:
    """The outcome of a bug report's script, run with this interpreter (see the module
    docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "report.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            proc = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return "failed"
    if proc.returncode == 1 and "BUG PRESENT" in proc.stdout:
        return "present"
    if proc.returncode == 0 and "FIXED UPSTREAM" in proc.stdout:
        return "fixed"
    return "failed"


def survey(engine: Engine) -> Dict[str, Any]:
    """The record of one installed peer: its version, today's date, and each
    peer bug with a case by its script's outcome."""
    cases, _ = peer_bug_cases(engine)
    outcomes: Dict[str, List[str]] = {o: [] for o in OUTCOMES}
    for name in sorted(cases):
        outcomes[run_script(script(cases[name], timeout=10))].append(name)
    return dict({"version": engine.version(), "date": datetime.date.today().isoformat()}, **outcomes)


def read_record(path: str = RECORD) -> Dict[str, Any]:
    """The record (FormatError: not a record)."""
    with open(path, encoding="utf-8") as f:
        try:
            record = json.load(f)
        except ValueError as e:
            raise FormatError("--record %s: not JSON: %s" % (path, e)) from None
    if not isinstance(record, dict) or not isinstance(record.get("peers"), dict):
        raise FormatError("--record %s: not a survey record (an object with \"peers\")" % path)
    return record


def write_record(record: Dict[str, Any], path: str = RECORD) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")


def table(record: Dict[str, Any]) -> str:
    """The markdown table of the record: a row per peer with peer bugs declared."""
    rows = ["| peer | version surveyed | on | peer bugs | with a case | still present | fixed upstream "
            "| script failed | no case (why) |", "|---|---|---|---|---|---|---|---|---|"]
    why = record.get("no_case_why", {})
    for peer in PEERS:
        bugs = [k.name for k in peer_differences(peer) if k.kind == "peer-bug"]
        if not bugs:
            continue
        seen: Optional[Dict[str, Any]] = record["peers"].get(peer)
        if seen is None:
            rows.append("| %s | — | never | %d | — | — | — | — | %s |" % (peer, len(bugs), (
                "not surveyed (not installed where the record was made)" if peer in DRIVERS else
                "no script driver yet")))
            continue
        with_case = [n for o in OUTCOMES for n in seen[o]]
        missing = [n for n in bugs if n not in with_case]
        shown = ", ".join("`%s`%s" % (n, " (%s)" % why[peer + "/" + n] if peer + "/" + n in why else "")
                          for n in missing)
        rows.append("| %s | %s | %s | %d | %d | %d | %d | %d | %s |" % (
            peer, seen["version"], seen["date"], len(bugs), len(with_case), len(seen["present"]), len(seen["fixed"]),
            len(seen["failed"]), shown or "—"))
    return "\n".join(rows)


def stale(record: Dict[str, Any]) -> List[str]:
    """What the record names that no peer declares any more (a renamed or dropped peer
    bug): the survey must be run again."""
    out = []
    for peer, seen in record["peers"].items():
        bugs = {k.name for k in peer_differences(peer) if k.kind == "peer-bug"}
        out += ["%s/%s" % (peer, n) for o in OUTCOMES for n in seen[o] if n not in bugs]
    out += [key for key in record.get("no_case_why", {}) if key.split("/", 1)[1] not in
            {k.name for k in peer_differences(key.split("/", 1)[0]) if k.kind == "peer-bug"}]
    return out


def block(doc: str) -> Optional[str]:
    """The text of the page's generated block (None if it has none)."""
    begin, end = MARKS
    if begin not in doc or end not in doc:
        return None
    return doc.split(begin, 1)[1].split(end, 1)[0].strip("\n")


def write_table(record: Dict[str, Any], page: str = FINDINGS_DOC) -> None:
    """Rewrite the page's block with the record's table (ValueError: the page has none)."""
    with open(page, encoding="utf-8") as f:
        doc = f.read()
    if block(doc) is None:
        raise ValueError("%s has no block %s ... %s" % (page, MARKS[0], MARKS[1]))
    head, rest = doc.split(MARKS[0], 1)
    with open(page, "w", encoding="utf-8") as f:
        f.write(head + MARKS[0] + "\n" + table(record) + "\n" + MARKS[1] + rest.split(MARKS[1], 1)[1])
