"""python -m conformance {generate, run, fuzz, engines, show, report, maskbench, bugreport}: see docs/conformance.md.

An engine under test is named with --engine (--backend is its older name, still read).

Exit status: 0 every vector agrees (known differences aside), 1 some disagreement or a
fault of the engine's process during a vector (a crash, a time-out, a malformed reply),
2 a usage or setup error (unknown or unavailable engine, a cmd: worker that cannot start —
that exits, answers garbage, or does not answer its hello within 60 s,
$MASKREF_WORKER_STARTUP_TIMEOUT —, missing or malformed suite), said before any vector runs.

Repros (run, fuzz) go to --repros DIR, else to a new directory in the system's temporary
directory, named in the output; run writes at most --max-repros (default 1) per kind of
failure.
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from typing import Any, List, Optional

from refimpl.showing.commandline import (
    ArgumentParser,
    CommandLineError,
    command_line,
    count,
    culprit,
    positive_float,
    positive_int,
)

from .containment import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT
from .engine import Engine
from .fuzz import SHRINK_MARGIN
from .generate import CORPORA, GROUPS, SUITE_DIR
from .registry import ALIASES, UnknownEngine, engine_names, get_engine
from .vectors import FormatError


def _engine(name: str) -> Engine:
    try:
        e = get_engine(name)
    except UnknownEngine as error:
        raise SetupError(str(error)) from None
    if name.startswith("cmd:"):
        try:
            program = (shlex.split(name[4:]) or [""])[0]
        except ValueError as error:  # an unclosed quote
            raise SetupError("engine %s: %s" % (name, str(error).lower())) from None
        if not program or shutil.which(program) is None:
            raise SetupError("engine %s: no program %r here (the command after cmd: starts a worker of the "
                             "protocol: docs/protocol.md)" % (name, program))
    reason = e.unavailable_reason()
    if reason:
        raise SetupError("engine %s is unavailable: %s" % (name, reason))
    return e


class SetupError(CommandLineError):
    """An engine that cannot run here, an option the engine or the suite cannot take."""


def cmd_generate(args: argparse.Namespace) -> int:
    from .generate import main_generate

    kinds = args.only.split(",") if args.only else None
    unknown = sorted(set(kinds or ()) - set(GROUPS + CORPORA))
    if unknown:
        raise SetupError("--only: unknown group %s (known: %s)" % (", ".join(unknown), ", ".join(GROUPS + CORPORA)))
    corpora = sorted(set(kinds or ()) & set(CORPORA))
    if corpora and os.path.abspath(args.out) == os.path.abspath(SUITE_DIR):
        raise SetupError("--only %s: a corpus beside the default suite, not a group of it: give --out DIR"
                         % ", ".join(corpora))
    with culprit("--out", args.out):  # (only this: refimpl's errors while generating are bugs)
        os.makedirs(args.out, exist_ok=True)
    return main_generate(args.out, kinds)


def cmd_run(args: argparse.Namespace) -> int:
    from .containment import Limits
    from .runner import Repros, matrix_header, matrix_row, run_suite

    contain = args.contain
    if contain is None:  # long runs are contained; a plain one checks in its own process(es)
        contain = bool(args.results) or args.ray is not None or args.timeout is not None or args.memory is not None
    limits = Limits(args.timeout or DEFAULT_TIMEOUT, args.memory or DEFAULT_MEMORY_MB) if contain else None
    engines = [_engine(name) for name in args.engine]  # every setup error before any vector runs, nothing written
    if args.results:
        if args.results.endswith(".gz"):
            raise SetupError("--results %s: runs append to a plain file (.jsonl); compressed ones are only read"
                             % args.results)
        with culprit("--results", args.results):
            open(args.results, "a", encoding="utf-8").close()
    if args.repros:
        with culprit("--repros", args.repros):
            os.makedirs(args.repros, exist_ok=True)
    supported = None
    if args.supported:
        from .results import supported as supported_in

        with culprit("--supported", args.supported):
            supported = supported_in(args.supported)
    repros = Repros(args.repros, args.max_repros)
    status = 0
    rows = []
    for engine in engines:
        report = run_suite(engine, args.suite, repros, jobs=1 if args.first else args.jobs, quiet=args.quiet,
                           first=args.first, results=args.results, limits=limits, ray=args.ray, supported=supported)
        if args.results:
            print("resumed %d of %d vectors from %s" % (report.resumed, report.total()["vectors"], args.results))
        print(report.table())
        rows.append(matrix_row(report))
        if report.failures():
            status = 1
            print(report.repro_summary(repros))
    if args.matrix:
        print("\n" + "\n".join([matrix_header()] + rows))
    return status


def cmd_fuzz(args: argparse.Namespace) -> int:
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        raise SetupError("fuzz needs hypothesis (pip install hypothesis, or the 'test' extra)") from None
    from .fuzz import fuzz
    from .strategies import VOCAB_MODES

    engine = _engine(args.engine)
    if args.vocab not in VOCAB_MODES:
        raise SetupError("--vocab must be one of %s" % ", ".join(VOCAB_MODES))
    kinds = args.kinds.split(",") if args.kinds else None
    from .fuzz import kinds_for
    from .vectors import GRAMMAR_KINDS

    if kinds and set(kinds) - set(GRAMMAR_KINDS):
        raise SetupError("--kinds: unknown %s (known: %s)" % (", ".join(sorted(set(kinds) - set(GRAMMAR_KINDS))),
                                                            ", ".join(GRAMMAR_KINDS)))
    if not kinds_for(engine, kinds):
        raise SetupError("%s can run none of the grammar kinds %s here" % (engine.name, ", ".join(kinds or GRAMMAR_KINDS)))
    del engine  # fuzz() builds its own, in each worker process
    seconds = 60.0 if args.seconds is None and args.batches is None else args.seconds
    if args.repros:
        with culprit("--repros", args.repros):
            os.makedirs(args.repros, exist_ok=True)
    out = args.repros or tempfile.mkdtemp(prefix="maskref-repros-")
    report = fuzz(args.engine, seconds, seed=args.seed, jobs=args.jobs, out_dir=out, kinds=kinds,
                  vocab_mode=args.vocab, max_steps=args.steps, first_only=args.first, quiet=args.quiet,
                  batches=args.batches, ray=args.ray)
    print(report.table())
    if not args.repros and not report.failures:
        os.rmdir(out)  # the temporary directory made for repros, unused
    elif report.failures:
        print("  repros and the minimal cases as vectors (fuzz-vectors.jsonl) in %s" % out)
    return 1 if report.failures else 0


def cmd_engines(args: argparse.Namespace) -> int:
    for name, text in engine_names().items():
        reason = None
        if not name.startswith("cmd:"):
            try:
                reason = get_engine(name).unavailable_reason()
            except UnknownEngine as e:
                reason = str(e)
        print("%-22s %-11s %s" % (name, "unavailable" if reason else "available", reason or text))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from .vectors import read_vectors, token_text

    for file, lineno, v in read_vectors(args.suite):
        if args.id and args.id not in v.id:
            continue
        print("%s  (%s:%d)" % (v.id, file, lineno))
        print("  grammar  %s" % v.grammar.describe().replace("\n", "\n  "))
        print("  vocab    %s, %d tokens" % (v.vocab.name, len(v.vocab)))
        if v.error is not None:  # an error vector: its step is only for older readers
            print("  refused  %s" % ", ".join("%s %s" % (k, v.error[k]) for k in v.error))
            continue
        from .vectors import ids_of

        for i, s in enumerate(v.steps):
            ids = ids_of(s.mask)
            tok = "" if s.token is None else "-> %d %r" % (s.token, token_text(v.vocab, s.token))
            print("  step %2d  %6d allowed%s  %s" % (i, len(ids), " (accepting)" if s.accepting else "", tok))
    return 0


# ---- report (the scoreboard: conformance/report.py)
def cmd_report(args: argparse.Namespace) -> int:
    from .report import write

    for path in args.results:
        if not os.path.exists(path):
            raise SetupError("no results file or directory %s" % path)
    with culprit("--out", args.out):
        os.makedirs(args.out, exist_ok=True)
    try:
        html_path, md_path = write(args.results, args.out, args.markdown)
    except ValueError as e:  # a file that is not results
        raise SetupError(str(e)) from None
    print("wrote %s and %s%s" % (html_path, md_path, " (and %s)" % args.markdown if args.markdown else ""))
    return 0


def _report_parser(sub: "argparse._SubParsersAction[ArgumentParser]") -> None:
    p = sub.add_parser("report", help="the scoreboard: an HTML page and docs/compliance.md from results files")
    p.add_argument("results", nargs="+", help="results files (.jsonl, .jsonl.gz) or directories of them")
    p.add_argument("--out", required=True, help="directory for index.html and compliance.md")
    p.add_argument("--markdown", help="also write the Markdown here (docs/compliance.md)")
    p.set_defaults(run=cmd_report)
# ---- end report


# -- maskbench: JSONSchemaBench's schemas and instances as vectors (conformance/maskbench.py)


def cmd_maskbench(args: argparse.Namespace) -> int:
    from .bpe import PATTERNS, UnknownTokenizer
    from .corpus import Corpus
    from .maskbench import DATA, Options, main_maskbench, native_backend, schema_files, subset_of
    from .vectors import TEKKEN_ENV

    if args.vocab not in PATTERNS:
        raise SetupError("--vocab must be one of %s (a vocabulary whose tokenizer spells the instances)"
                         % ", ".join(sorted(PATTERNS)))
    if args.vocab_file:
        if args.vocab != "tekken":
            raise SetupError("--vocab-file names the tekken vocabulary's file (with --vocab tekken)")
        os.environ[TEKKEN_ENV] = args.vocab_file
    try:
        stems = schema_files(Corpus(args.corpus, DATA))
    except (OSError, subprocess.CalledProcessError):
        stems = {}
    if not stems:
        raise SetupError("%s has no %s/*.json (a JSONSchemaBench checkout or bare git directory)" % (args.corpus, DATA))
    subsets = sorted({subset_of(s) for s in stems})
    if args.subset and args.subset not in subsets:
        raise SetupError("--subset: no subset %r (known: %s)" % (args.subset, ", ".join(subsets)))
    if args.summary and not os.path.isdir(os.path.dirname(os.path.abspath(args.summary))):
        raise SetupError("--summary %s: no such directory" % args.summary)
    opts = Options(args.vocab, args.walks, args.seed, args.max_tokens, args.compile_seconds, args.schema_seconds,
                   args.backend or native_backend())
    try:
        return main_maskbench(args.corpus, args.out, opts, args.sample, args.subset, summary=args.summary)
    except UnknownTokenizer as e:
        raise SetupError(str(e)) from None


def add_maskbench(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("maskbench", help="write MaskBench's schemas and instances as vectors (docs/maskbench.md)")
    p.add_argument("corpus", help="a JSONSchemaBench checkout, or its bare git directory")
    p.add_argument("--out", required=True, help="the .jsonl file to write")
    p.add_argument("--vocab", default="gpt2", help="gpt2 (default) or tekken")
    p.add_argument("--vocab-file", help="the tekken vocabulary's file (else $MASKREF_TEKKEN, the shared data, "
                   "mistral-common's)")
    p.add_argument("--sample", type=positive_int, default=0, help="this many schemas, spread over the subsets "
                   "in proportion (default: all)")
    p.add_argument("--subset", help="only this subset (e.g. Github_easy, BFCL)")
    p.add_argument("--walks", type=int, default=1, help="seeded random walks per schema (default 1)")
    p.add_argument("--seed", type=int, default=0, help="the sample's and the walks' seed (default 0)")
    p.add_argument("--max-tokens", type=positive_int, default=256, help="masks recorded per vector (default 256)")
    p.add_argument("--compile-seconds", type=positive_int, default=10, help="refimpl's compile budget per schema")
    p.add_argument("--schema-seconds", type=positive_int, default=120, help="recording budget per schema")
    p.add_argument("--backend", help="refimpl's backend for recording (default: native if built, else python)")
    p.add_argument("--summary", help="also write what was made as the sample's record (JSON), e.g. "
                   "results/maskbench/gpt2.sample.json: report tables it")
    p.set_defaults(run=cmd_maskbench)


# -- bugreport (issue 33): a peer bug's minimal case as a standalone script to file upstream


def cmd_bugreport(args: argparse.Namespace) -> int:
    from .bugreport import BugReportError, find_case, resolve, script

    if args.survey:
        return _survey(args)
    if not args.finding:
        raise SetupError("bugreport: name a finding, or --survey PEER")
    try:
        name, differences, vectors = resolve(args.finding, args.engine)
        text = script(find_case(_engine(name), differences, vectors))
    except BugReportError as e:
        raise SetupError(str(e)) from None
    if not args.out:
        sys.stdout.write(text)
        return 0
    with culprit("--out", args.out):
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    print("wrote %s: python %s (exit 1 while the bug shows, 0 once fixed upstream)" % (args.out, args.out))
    return 0


def _survey(args: argparse.Namespace) -> int:
    """bugreport --survey PEER: every bug report of the peer run, the record updated, and
    with --markdown the page's table regenerated (conformance/filing.py)."""
    from .bugreport import DRIVERS, PEERS
    from .filing import MARKS, block, read_record, survey, table, write_record, write_table

    peer = ALIASES.get(args.survey, args.survey)
    if peer not in PEERS or peer not in DRIVERS:
        raise SetupError("bugreport --survey: %r is not a peer with bug-report scripts (%s)"
                         % (args.survey, ", ".join(p for p in PEERS if p in DRIVERS)))
    with culprit("--record", args.record):
        record = read_record(args.record)
    if args.markdown:
        with culprit("--markdown", args.markdown):
            with open(args.markdown, encoding="utf-8") as f:
                if block(f.read()) is None:
                    raise SetupError("--markdown %s: no block %s ... %s to write the table into"
                                     % ((args.markdown,) + MARKS))
    record["peers"][peer] = survey(_engine(peer))
    write_record(record, args.record)
    seen = record["peers"][peer]
    print("%s: %d bug reports, %d present, %d fixed upstream, %d failed%s" % (
        seen["version"], sum(len(seen[o]) for o in ("present", "fixed", "failed")), len(seen["present"]),
        len(seen["fixed"]), len(seen["failed"]), "".join("\n  failed: " + n for n in seen["failed"])))
    if args.markdown:
        with culprit("--markdown", args.markdown):
            write_table(record, args.markdown)
    else:
        print(table(record))
    return 1 if seen["failed"] else 0


def add_bugreport(sub: Any) -> None:
    """The bugreport subcommand, added to the subparsers `sub`."""
    from .filing import RECORD

    p = sub.add_parser("bugreport", help="a peer bug's minimal case as a standalone script (the peer's public API "
                       "only) to file upstream; --survey: all of a peer's, run, recorded")
    p.add_argument("finding", nargs="?", help="a known difference (six-fraction-digits), a docs/findings.md id (X2) "
                   "or a findings vector (findings/xgrammar-six-fraction-digits/bytes/0, or xgrammar-six-fraction-digits)")
    p.add_argument("--engine", "--backend", dest="engine", help="the peer (default: the one the finding names)")
    p.add_argument("--out", help="write the script here (default: standard output)")
    p.add_argument("--survey", metavar="PEER", help="write and run every bug report of an installed peer, record "
                   "what each printed (--record) and print the table of the record")
    p.add_argument("--record", default=RECORD, help="the survey's record (default: %(default)s)")
    p.add_argument("--markdown", metavar="PAGE", help="with --survey: regenerate the table in this page's block "
                   "(docs/findings.md) instead of printing it")
    p.set_defaults(run=cmd_bugreport)


def _main(argv: Optional[List[str]] = None) -> int:
    parser = ArgumentParser(prog="python -m conformance", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    engines_help = "the engine under test: " + ", ".join(engine_names())
    older = " (--backend: its older name, still read)"

    p = sub.add_parser("generate", help="write the default suite from refimpl")
    p.add_argument("--out", default=SUITE_DIR, help="directory (default: conformance/suite)")
    p.add_argument("--only", help="groups, comma-separated (%s), or a corpus with --out (%s)"
                   % (",".join(GROUPS), ",".join(CORPORA)))
    p.set_defaults(run=cmd_generate)

    p = sub.add_parser("run", help="check an engine against the vectors")
    p.add_argument("--engine", "--backend", dest="engine", action="append", required=True,
                   help=engines_help + "; repeatable" + older)
    p.add_argument("--suite", default=SUITE_DIR, help="a .jsonl file or a directory of them (default: the default suite)")
    p.add_argument("--repros", "--out", dest="repros", metavar="DIR", help="where repros go, DIR/<engine>/<vector>.txt "
                   "and .jsonl (default: a new directory in the system's temporary directory, named in the output; "
                   "--out: its older name)")
    p.add_argument("--max-repros", type=count, default=1, metavar="N", help="repros written per kind of failure (a "
                   "divergence's signature, or the fault: crash, timeout, ...), default 1; 0: none")
    p.add_argument("--jobs", type=positive_int, help="worker processes (default 1); with --ray, the local cluster's CPUs "
                   "(default: all)")
    p.add_argument("--first", action="store_true", help="stop at the first disagreement or fault")
    p.add_argument("--quiet", "--no-progress", dest="quiet", action="store_true", help="no progress line (on "
                   "standard error: vectors done of all, disagreements so far, time left; on a terminal after 2 s, "
                   "in a log a line every 10 s)")
    p.add_argument("--matrix", action="store_true", help="then the compliance matrix's rows, in Markdown")
    p.add_argument("--results", metavar="FILE", help="append each vector's result to FILE (JSON lines) as it completes; "
                   "the vectors FILE already holds for the engine are not checked again (a stopped run resumes)")
    p.add_argument("--supported", metavar="FILE", help="a results file of an earlier run (plain or .gz): a vector it "
                   "records as supported that the engine refuses now (unsupported) is a failure, support lost")
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS", help="spread the vectors over a Ray cluster: a local "
                   "one (no ADDRESS), or a running one's (needs the 'cluster' extra)")
    p.add_argument("--timeout", type=positive_float, metavar="SECONDS", help="each vector's time limit, in a child process "
                   "(default %g s when contained)" % DEFAULT_TIMEOUT)
    p.add_argument("--memory", type=positive_int, metavar="MB", help="each vector's memory limit, in a child process "
                   "(default %d MB when contained)" % DEFAULT_MEMORY_MB)
    p.add_argument("--contain", action=argparse.BooleanOptionalAction, default=None,
                   help="check each vector in a child process within the limits (default: with --results, --ray, "
                   "--timeout or --memory), so an engine that crashes, hangs or eats memory costs that vector only")
    p.set_defaults(run=cmd_run)

    p = sub.add_parser("fuzz", help="differential fuzzing against refimpl")
    p.add_argument("--engine", "--backend", dest="engine", required=True, help=engines_help + older)
    p.add_argument("--seconds", type=positive_float, help="time budget, shrinking included: the campaign ends within "
                   "N + %d s (the example running at the deadline; a shrink the budget cuts short keeps the smallest "
                   "case so far and says so) (default 60, unless --batches is given)" % SHRINK_MARGIN)
    p.add_argument("--batches", type=positive_int, help="work budget: batches of examples per job, the same campaign on any "
                   "machine (with --seconds, whichever comes first)")
    p.add_argument("--seed", type=int, default=0, help="campaign seed (default 0): same seed, same examples")
    p.add_argument("--jobs", type=positive_int, help="workers (default 1; with --ray, one per CPU of the cluster): "
                   "seeds seed/0 .. seed/N-1, the same examples in processes or on Ray")
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS", help="the workers as tasks on a Ray cluster: a local "
                   "one (no ADDRESS), or a running one's (needs the 'cluster' extra)")
    p.add_argument("--repros", "--out", dest="repros", metavar="DIR", help="where repros and found vectors go "
                   "(default: a new directory in the system's temporary directory, named in the output; "
                   "--out: its older name)")
    p.add_argument("--kinds", help="grammar kinds, comma-separated (default: all the engine supports)")
    p.add_argument("--vocab", default="mixed",
                   help="mixed (default), small, slices, gpt2, bytes, special, multi-eos, escapes, unicode")
    p.add_argument("--steps", type=positive_int, default=8, help="masks compared per example (default 8)")
    p.add_argument("--first", action="store_true", help="stop at the first disagreement")
    p.add_argument("--quiet", "--no-progress", dest="quiet", action="store_true",
                   help="no progress line (shown on standard error when it is a terminal, after 2 s)")
    p.set_defaults(run=cmd_fuzz)

    p = sub.add_parser("engines", aliases=["backends"], help="list engines and whether they are usable here "
                       "(backends: its older name)")
    p.set_defaults(run=cmd_engines)

    p = sub.add_parser("show", help="print vectors readably")
    p.add_argument("suite", nargs="?", default=SUITE_DIR)
    p.add_argument("--id", help="only vectors whose id contains this")
    p.set_defaults(run=cmd_show)

    _report_parser(sub)
    add_maskbench(sub)
    add_bugreport(sub)

    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except FormatError as e:  # a suite file: command_line prints it as an error line
        raise CommandLineError(str(e)) from None


#: the command: a mistake in its arguments, the suite's files or the engine's setup is one
#: error line, exit status 2 (refimpl's own errors are judged per vector by the runner:
#: one that escapes is a bug, with its traceback)
main = command_line(_main, mistakes=(OSError,))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
