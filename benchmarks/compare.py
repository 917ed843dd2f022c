"""Every available backend against llguidance, in one run:

    python -m benchmarks.compare            # GPT-2, and Tekken when mistral-common is installed
    python -m benchmarks.compare --vocab gpt2

ns/node, mask time, and the ratio (our mask time / llguidance's), with the date, machine
and the clock measured in this run (cycles/node is ns/node x that clock: an estimate).
The same measurements as the asv benchmarks (benchmarks/common.py; docs/benchmarks.md).
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from typing import List, Optional

from refimpl.showing.commandline import ArgumentParser, command_line, directory

from . import common


def _f(x, fmt):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt % x


def _main(argv: Optional[List[str]] = None) -> int:
    ap = ArgumentParser(prog="python -m benchmarks.compare", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vocab", action="append", choices=common.VOCABS, help="default: all")
    ap.add_argument("--workload", action="append", choices=list(common.WORKLOADS), help="default: all")
    ap.add_argument("--no-recursion", action="store_true", help="skip the right-recursion table")
    ap.add_argument("--no-cache", action="store_true", help="skip the mask cache's table (benchmarks.mask_cache)")
    ap.add_argument("--index", action="store_true",
                    help="then the token index's tables (python -m benchmarks.index, same run; minutes)")
    ap.add_argument("--schemastore", metavar="CORPUS", type=directory,
                    help="then the slow tail of real JSON schemas (python -m benchmarks.schemastore CORPUS; minutes)")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    ghz, how = common.calibrate_ghz()
    info = common.machine()
    reasons = common.backend_reasons()
    print("maskref vs llguidance — %s" % info["date"])
    print("machine: %s, %s cores; clock %.2f GHz (%s)" % (info["cpu"], info["cores"], ghz, how))
    print("%s; pypy3 %s; llguidance %s" % (info["python"], info["pypy"] or "-", info["llguidance"] or "-"))
    for b, r in reasons.items():
        if r is not None:
            print("(%s skipped: %s)" % (b, r))
    backends = [b for b in common.BACKENDS if reasons[b] is None]
    ours = [b for b in backends if b != "llguidance"]
    print()
    print("| vocab | workload | nodes | backend | ns/node | cycles/node (est.) | mask ms | compile ms | x llguidance "
          "| fresh matcher's mask ms | x llguidance |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for v in args.vocab or common.VOCABS:
        try:
            common.vocab(v)
        except common.Skip as e:
            print("| %s | (skipped: %s) | | | | | | | |" % (v, e))
            continue
        for w in args.workload or common.WORKLOADS:
            res = {b: common.measure(v, w, b) for b in backends}
            llg = res.get("llguidance")
            for b in ours + (["llguidance"] if llg else []):
                r = res[b]
                ratio = "%.2fx" % (r["mask_ms"] / llg["mask_ms"]) if llg and b != "llguidance" else ""
                fresh = r.get("fresh_ms", r["mask_ms"])  # llguidance's mask_ms is a fresh matcher's
                fresh_ratio = "%.2fx" % (fresh / llg["mask_ms"]) if llg and b != "llguidance" else ""
                print("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    v, w, r["nodes"], b, _f(r["ns_per_node"], "%.1f"), _f(r["ns_per_node"] * ghz, "%.0f"),
                    _f(r["mask_ms"], "%.3f"), _f(r["compile_ms"], "%.1f"), ratio, _f(fresh, "%.3f"), fresh_ratio))
    if not args.no_recursion:
        _recursion(backends)
    if not args.no_cache:
        from . import mask_cache

        print()
        mask_cache.main()
    if args.index:
        from . import index

        print()
        index.main(["--vocab=%s" % v for v in args.vocab or common.VOCABS])
    if args.schemastore:
        from . import schemastore

        print()
        schemastore.main([args.schemastore, "--profile", "0"])
    print()
    print("(ran in %.0f s; llguidance: best first mask of fresh matchers; its ns/node divides by refimpl's node count)"
          % (time.perf_counter() - started))
    return 0


#: the command (a mistake in the arguments: one error line, exit status 2)
main = command_line(_main, mistakes=(OSError,))


def _recursion(backends) -> None:
    print()
    print("right recursion `s: \"a\" s | \"\"`, n bytes consumed (GPT-2)")
    print("| n | backend | consume ms | rows | items | x llguidance |")
    print("|---:|---|---:|---:|---:|---:|")
    for n in common.RECURSION_N:
        res = {}
        for b in backends:
            try:
                res[b] = common.measure_recursion(b, n)
            except Exception as e:
                res[b] = str(e).splitlines()[0]
        llg = res.get("llguidance")
        for b in backends:
            r = res[b]
            if isinstance(r, str):
                print("| %d | %s | fails: %s | | | |" % (n, b, r[:90]))
                continue
            ratio = "%.3fx" % (r["consume_ms"] / llg["consume_ms"]) if isinstance(llg, dict) and b != "llguidance" else ""
            print("| %d | %s | %.2f | %s | %s | %s |" % (n, b, r["consume_ms"], _f(r["rows"], "%d"), _f(r["items"], "%d"), ratio))


if __name__ == "__main__":
    sys.exit(main())
