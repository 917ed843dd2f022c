"""Which lines of refimpl the default suite executes, per mutation group: where the suite
cannot kill a mutant, whatever it is.

    python tools/suite_coverage.py [--groups frontends] [--out FILE.json] [--docs PAGE]

A mutation sample (tools/mutation.py) finds the suite's blind spots one mutant at a time;
ten mutants of a group of 5,000 find three or four. Line coverage finds them all at once,
from the other side: a line the suite never runs is a line where every mutant survives
it. So before a sample is drawn, this tool lists, for each group of a family
(tools/mutation.py's FAMILIES), the statements of its files, how many the suite executes,
and the lines it does not, as ranges — a to-do list for vectors.

It runs, under coverage.py (the `dev` extra) and into one data file:

- `python -m conformance run --engine refimpl` on the suite: every grammar through the
  reference engine, in process (the engine a `cmd:` worker of a mutant is compared with);
- the same with `--engine index`: the token index's build and masks (the `index` group);
- `python -m conformance generate --only types`: the typed frontend, which no engine runs
  (its mutants are judged by regenerating that group: tools/mutation.py, REGENERATED).

The mask cache is off in these runs, as in every engine but a worker started with
`--mask-cache`, so the `caches` group's figure counts only what runs without it. A line
executed is no kill: a vector may run a line and still not tell a mutant of it apart.

With `--out`, the figures go to a JSON file, with the suite's digest (tests/tools check
that the checked-in figures are of today's suite); with `--docs PAGE`, the per-group table is
written into the page's block `<!-- BEGIN coverage FAMILY -->` ... `<!-- END coverage
FAMILY -->` (FAMILY: the --groups value).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tools"), str(ROOT)]
import mutation  # noqa: E402

from conformance.vectors import suite_files  # noqa: E402


def ranges(lines: Sequence[int]) -> List[str]:
    """Line numbers as sorted inclusive ranges.

    >>> ranges([3, 4, 5, 9, 11, 12])
    ['3-5', '9', '11-12']
    """
    out: List[List[int]] = []
    for n in sorted(lines):
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ["%d" % a if a == b else "%d-%d" % (a, b) for a, b in out]


def suite_digest(suite: str = "conformance/suite") -> str:
    """sha256 (16 hex digits) of the suite's files, in order: the figures are of this suite."""
    h = hashlib.sha256()
    for name in suite_files(str(ROOT / suite)):
        h.update(Path(name).read_bytes())
    return h.hexdigest()[:16]


def measure(groups: Dict[str, Tuple[str, ...]], suite: str = "conformance/suite") -> Dict[str, Any]:
    """Run the suite under coverage (module docstring) and return, per group, its
    statements, those executed and, per file, the lines not executed (as ranges)."""
    files = mutation.module_files(ROOT, groups)
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "coverage.data")
        cov = [sys.executable, "-m", "coverage", "run", "--append", "--data-file=" + data,
               "--include=" + ",".join(files)]
        commands = [
            ["-m", "conformance", "run", "--engine", "refimpl", "--suite", suite, "--quiet", "--no-contain"],
            ["-m", "conformance", "run", "--engine", "index", "--suite", suite, "--quiet", "--no-contain"],
            ["-m", "conformance", "generate", "--only", "types", "--out", tmp],
        ]
        for command in commands:
            done = subprocess.run(cov + command, cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True)
            if done.returncode != 0:
                raise SystemExit("error: %s exited with %d:\n%s" % (" ".join(command), done.returncode,
                                                                    done.stdout[-2000:]))
        report = os.path.join(tmp, "coverage.json")
        subprocess.run([sys.executable, "-m", "coverage", "json", "--data-file=" + data, "-o", report, "-q"],
                       cwd=str(ROOT), check=True)
        measured = json.loads(Path(report).read_text())["files"]
    out: Dict[str, Any] = {}
    for path in files:
        group = mutation.group_of(path, groups)
        summary = measured.get(path, {}).get("summary")
        missing = measured[path]["missing_lines"] if path in measured else None
        g = out.setdefault(group, {"statements": 0, "executed": 0, "files": {}})
        if summary is None:  # never imported: every statement is missed
            statements = _statements(path)
            g["statements"] += statements
            g["files"][path] = {"statements": statements, "executed": 0, "missing": "all"}
            continue
        g["statements"] += summary["num_statements"]
        g["executed"] += summary["covered_lines"]
        g["files"][path] = {"statements": summary["num_statements"], "executed": summary["covered_lines"],
                            "missing": ranges(missing or [])}
    return out


def _statements(path: str) -> int:
    """The statements coverage.py counts in a file no run imported."""
    from coverage.python import PythonParser

    parser = PythonParser(filename=str(ROOT / path))
    parser.parse_source()
    return len(parser.statements)


def table(figures: Dict[str, Any]) -> str:
    """The per-group Markdown table, with the three files of each group the suite leaves
    the most lines of."""
    rows = ["| group | statements | executed by the suite | share | most lines not executed |",
            "|---|---:|---:|---:|---|"]
    total_s = total_e = 0
    for group, g in figures.items():
        total_s, total_e = total_s + g["statements"], total_e + g["executed"]
        worst = sorted(g["files"].items(), key=lambda kv: kv[1]["executed"] - kv[1]["statements"])[:3]
        shown = ", ".join("%s (%d)" % (Path(p).name, f["statements"] - f["executed"]) for p, f in worst
                          if f["statements"] > f["executed"])
        rows.append("| %s | %d | %d | %s | %s |" % (group, g["statements"], g["executed"],
                                                    _share(g["executed"], g["statements"]), shown))
    rows.append("| **total** | %d | %d | %s | |" % (total_s, total_e, _share(total_e, total_s)))
    return "\n".join(rows)


def _share(part: int, whole: int) -> str:
    return "%.1f%%" % (100.0 * part / whole) if whole else "—"


def main(argv: Sequence[str] = ()) -> int:
    p = argparse.ArgumentParser(prog="python tools/suite_coverage.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--groups", default="frontends", help="a family or groups of one family (tools/mutation.py)")
    p.add_argument("--suite", default="conformance/suite", help="the suite (default: the default suite)")
    p.add_argument("--out", help="write the figures (JSON) here")
    p.add_argument("--docs", metavar="PAGE", help="write the table into the page's block `coverage GROUPS`")
    args = p.parse_args(list(argv) or None)
    figures = measure(mutation.chosen_groups(args.groups), args.suite)
    if args.out:
        Path(args.out).write_text(json.dumps({"suite": suite_digest(args.suite), "groups": figures}, indent=1) + "\n")
    text = table(figures)
    print(text)
    if args.docs:
        return mutation.write_block(Path(args.docs), mutation.markers(args.groups, "coverage"), text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
