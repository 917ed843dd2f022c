"""`python -m hostile`: the fuzz targets, their campaigns, the report and the replay
(docs/hostile.md).

    python -m hostile list
    python -m hostile run [TARGET ...] [--seconds N | --runs N] [--seed S] [--seeds N]
                          [--results FILE] [--profile ci|campaign] [--findings DIR] [--keep-corpus DIR] [--again]
    python -m hostile report RESULTS ... [--markdown docs/hostile.md]
    python -m hostile replay [TARGET ...] [--corpus DIR] [--no-regressions] [--json]
    python -m hostile minimise TARGET FILE [--seconds N] [--out DIR]

A TARGET is a name from `list`, or `module:name` for a target another module's TARGETS
lists. `run` needs atheris (the `fuzz` extra, CPython); `replay` runs anywhere.
A mistake in the arguments is one `error:` line and exit status 2.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from typing import Any, Dict, List, Optional

from refimpl.showing.commandline import ArgumentParser, CommandLineError, command_line

from . import campaign, report, results
from .findings import name_of, record
from .log import Say
from .lookup import select
from .minimise import minimise, signature_on
from .replay import files, read_inputs, regression_files, replay


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError("%r is not a positive whole number" % text)
    return value


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a whole number" % text) from None


def parser() -> ArgumentParser:
    p = ArgumentParser(prog="python -m hostile", description=__doc__.split("\n\n")[0] if __doc__ else None)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the targets and their entry points")
    r = sub.add_parser("run", help="fuzz targets under atheris, one child process each")
    r.add_argument("targets", nargs="*", metavar="TARGET")
    budget = r.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=_positive, help="seconds of fuzzing per target")
    budget.add_argument("--runs", type=_positive, help="inputs per target (deterministic with --seed)")
    r.add_argument("--seeds", type=_positive, help="start from this many of each target's seeds (a deterministic "
                                                  "sample; default: the profile's)")
    r.add_argument("--seed", type=_seed, default=None, help="libFuzzer's -seed (default 1)")
    r.add_argument("--profile", choices=sorted(campaign.PROFILES), default="ci",
                   help="ci: %s per target; campaign: %s" % (campaign.PROFILES["ci"], campaign.PROFILES["campaign"]))
    r.add_argument("--results", help="append one JSON line per target to this file (resumes: a target done "
                                     "with the same code, budget and seed is skipped)")
    r.add_argument("--again", action="store_true", help="fuzz targets the results file holds already")
    r.add_argument("--findings", help="where findings and the children's logs go (default: %s)"
                   % campaign.findings_root())
    r.add_argument("--keep-corpus", metavar="DIR", help="keep each target's final corpus in DIR/<target>/")
    r.add_argument("--quiet", action="store_true", help="no progress on stderr")
    rep = sub.add_parser("report", help="the figures table of docs/hostile.md from results files")
    rep.add_argument("results", nargs="+", metavar="RESULTS", help="results files or directories")
    rep.add_argument("--markdown", metavar="PAGE", help="rewrite the figures block of this page (else print it)")
    rp = sub.add_parser("replay", help="the regression inputs (and a corpus) through targets, without atheris")
    rp.add_argument("targets", nargs="*", metavar="TARGET")
    rp.add_argument("--corpus", metavar="DIR", action="append", default=[], help="also every file of DIR (repeatable)")
    rp.add_argument("--no-regressions", action="store_true", help="leave out hostile/regressions/")
    rp.add_argument("--json", action="store_true", help="one JSON object per target on stdout")
    m = sub.add_parser("minimise", help="the smallest input that breaks the property as FILE does")
    m.add_argument("target", metavar="TARGET")
    m.add_argument("file", metavar="FILE")
    m.add_argument("--seconds", type=_positive, default=30, help="at most this long (default 30)")
    m.add_argument("--out", metavar="DIR", help="write the minimised input to DIR/<sha1, 12 hex> (default: FILE's directory)")
    return p


def do_list() -> int:
    targets = select([])
    width = max((len(t.name) for t in targets), default=0)
    for t in targets:
        print("%-*s  %s  (seeds: %d; coverage of %s)" % (width, t.name, t.entry, len(list(t.seeds())),
                                                          ", ".join(t.packages)))
    return 0


def do_run(a: argparse.Namespace) -> int:
    targets = select(a.targets)
    if a.results and os.path.isdir(a.results):
        raise CommandLineError("--results %s is a directory (give a file)" % a.results)
    if importlib.util.find_spec("atheris") is None:
        raise CommandLineError("atheris is not installed (CPython only): pip install maskref[fuzz]")
    base = campaign.PROFILES[a.profile]
    seconds, runs = a.seconds, a.runs
    if runs or seconds:  # the budget given: every seed, unless --seeds says
        budget = campaign.Budget(runs=runs, seconds=seconds, seeds=a.seeds)
    else:
        budget = campaign.Budget(runs=base.runs, seconds=base.seconds, seeds=a.seeds or base.seeds)
    seed = 1 if a.seed is None else a.seed
    path = a.results
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)  # before an hour of fuzzing, not after
        results.repair(path)
    done = results.done(path) if path and not a.again else set()
    root = os.path.abspath(a.findings or campaign.findings_root())
    say = Say(a.quiet)
    say("findings and logs in %s" % root, now=True)
    status = 0
    for target in targets:
        if results.key(results.keyed(target.name, results.run_digest(target, str(budget), seed))) in done:
            say("%s: skipped, %s has its run already (--again to fuzz it again)" % (target.name, path), now=True)
            continue
        record = campaign.run_target(target, budget, seed, a.profile, root, say, a.keep_corpus)
        if path:
            results.append(path, record)
        print(summary(record))
        sys.stdout.flush()
        if record["findings"]:
            status = 1
    return status


def summary(record: Dict[str, Any]) -> str:
    replayed = record.get("replay") or {}
    slowest = replayed.get("slowest") or {}
    line = "%s: %s inputs in %.0f s, cov %d ft %d, corpus %d, %d finding(s)" % (
        record["target"], "{:,}".format(record["executed"]), record["fuzz_seconds"], record["cov"], record["ft"],
        record["corpus"], len(record["findings"]))
    if slowest:
        line += "; slowest input %.3f s (%s)" % (slowest["seconds"], slowest["head"])
    if replayed.get("peak_rss_mb") is not None:
        line += "; peak RSS %.0f MB" % replayed["peak_rss_mb"]
    for f in record["findings"]:
        line += "\n  finding: %s%s%s" % (f["signature"], " (%d bytes)" % f["size"] if "size" in f else "",
                                       ", minimised to %d: %s" % (f["minimised"]["size"], f["minimised"]["input"])
                                       if "minimised" in f else "")
    return line


def do_report(args: argparse.Namespace) -> int:
    latest = report.load(args.results)
    page = args.markdown
    if not page:
        print(report.block(latest))
        return 0
    with open(page, encoding="utf-8") as f:
        text = f.read()
    try:
        new = report.regenerate(text, latest)
    except report.MarkersMissing as e:
        raise CommandLineError("--markdown %s: %s" % (page, e)) from None
    with open(page, "w", encoding="utf-8") as f:
        f.write(new)
    print("%s: the figures of %d target(s)" % (page, len(latest)), file=sys.stderr)
    return 0


def do_replay(args: argparse.Namespace) -> int:
    targets = select(args.targets)
    for corpus in args.corpus:
        if not os.path.isdir(corpus):
            raise CommandLineError("--corpus %s: no such directory" % corpus)
    broken = 0
    for target in targets:
        paths = ([] if args.no_regressions else regression_files(target)) + [p for c in args.corpus for p in files(c)]
        out = replay(target, read_inputs(paths), Say())
        broken += len(out.violations)
        if args.json:
            print(json.dumps(out.to_json()))
        else:
            print(out.summary())
            for v in out.violations:
                print("  %s: %s" % (v["name"], v["message"]))
        sys.stdout.flush()
    return 1 if broken else 0


def do_minimise(args: argparse.Namespace) -> int:
    [target] = select([args.target])
    with open(args.file, "rb") as f:
        data = f.read()
    sig = signature_on(target, data)
    if sig is None:
        raise CommandLineError("%s: %s keeps the property on this input: nothing to minimise" % (args.file, target.name))
    small = minimise(target, data, args.seconds)
    out = args.out or os.path.dirname(os.path.abspath(args.file))
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, name_of(small))
    with open(path, "wb") as f:
        f.write(small)
    print(json.dumps(dict(record(sig, small), path=path, was=len(data))))
    return 0


@command_line
def main(argv: Optional[List[str]] = None) -> int:
    args = parser().parse_args(argv)
    command = args.command
    if command == "list":
        return do_list()
    if command == "run":
        return do_run(args)
    if command == "report":
        return do_report(args)
    if command == "minimise":
        return do_minimise(args)
    return do_replay(args)


if __name__ == "__main__":
    sys.exit(main())
