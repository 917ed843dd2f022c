"""The slow tail of real JSON schemas: SchemaStore's schemas and their test instances as a
benchmark corpus (issue 17, part 6; docs/benchmarks.md, "Real schemas: SchemaStore").

    python -m benchmarks.schemastore /work/.mirror/SchemaStore+schemastore/repo --json /tmp/ss.json

For every schema under src/schemas/json: the time `Grammar.from_json_schema` takes and its
outcome (ok, SchemaError, LimitError with the limit's name, other errors, or a timeout);
for every positive and negative test instance (src/test/<name>, src/negative_test/<name>)
of a schema that compiled, the time a fresh Recognizer takes per byte to read the
instance as `json.dumps` spells it (", " and ": "; time only, no masks; a negative
instance counts the bytes read until it is refused). The report: the distributions
(p50/p90/p99/max) of both, the outcome counts, and the slowest schemas of each with the
reason — the keywords of the schema that cost (oneOf, uniqueItems, not, ...) and the top
functions of a cProfile run of the same work.

Each schema runs in a worker process (`--worker`) under a per-schema alarm; the parent
also kills a worker that does not answer in time, so no schema can stop the run. The
corpus is read with tools/schemastore_vectors.py's `Corpus` (a checkout or a bare git
directory, HEAD); SchemaStore is Apache-2.0 and is not copied into the repository.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import queue
import subprocess
import sys
import threading
import time
from typing import Any, Dict, Iterator, List, Optional, Tuple

from conformance.corpus import Slow, deadline
from refimpl.showing.commandline import (
    ArgumentParser,
    CommandLineError,
    command_line,
    count,
    culprit,
    directory,
    positive_float,
    read_text,
)

_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

#: keywords whose exact compilation is combinatorial (the usual suspects of the slow tail)
COSTLY = ("oneOf", "anyOf", "allOf", "not", "if", "uniqueItems", "contains", "patternProperties",
          "dependentSchemas", "dependentRequired", "propertyNames", "enum", "pattern", "minItems",
          "maxItems", "minProperties", "maxProperties", "$ref")


def _corpus(root: str) -> Any:
    sys.path.insert(0, os.path.join(_ROOT, "tools"))
    from schemastore_vectors import Corpus  # type: ignore[import-not-found]  # tools/: the corpus reader

    return Corpus(root)


def keyword_counts(schema: Any) -> Dict[str, int]:
    """How often each COSTLY keyword appears in the schema (explicit stack: no recursion).

    >>> keyword_counts({"oneOf": [{"type": "array", "uniqueItems": True}, {"not": {}}]})
    {'oneOf': 1, 'not': 1, 'uniqueItems': 1}
    """
    counts: Dict[str, int] = {}
    stack: List[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k in COSTLY:
                if k in node and not (k == "uniqueItems" and node[k] is not True):
                    counts[k] = counts.get(k, 0) + 1
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return {k: counts[k] for k in COSTLY if k in counts}


def percentile(values: List[float], p: float) -> float:
    """The nearest-rank p-th percentile (p in 0..100) of `values` (nan when empty).

    >>> percentile([5.0, 1.0, 4.0, 2.0, 3.0], 50), percentile([1.0, 2.0], 99)
    (3.0, 2.0)
    """
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, -(-len(s) * p // 100) - 1))
    return s[int(k)]


# -- the worker: one schema at a time, under an alarm -----------------------------------


def _top_functions(profile: cProfile.Profile, n: int = 3) -> List[str]:
    """The n functions of refimpl with the most own time, as "module.function (share%)"."""
    stats = pstats.Stats(profile, stream=io.StringIO())
    raw = getattr(stats, "stats", {})
    total = sum(v[2] for v in raw.values()) or 1.0
    rows = []
    for (path, _line, func), v in raw.items():
        if "refimpl" not in path:
            continue
        mod = os.path.relpath(path, _ROOT)[: -len(".py")].replace(os.sep, ".") if path.endswith(".py") else path
        rows.append((v[2], "%s.%s" % (mod, func)))
    rows.sort(reverse=True)
    return ["%s (%.0f%%)" % (name, 100 * t / total) for t, name in rows[:n]]


def _compile(schema: Any, seconds: float) -> Tuple[Any, str, float]:
    """(grammar or None, outcome, seconds) of compiling `schema` within `seconds`."""
    from refimpl import Grammar
    from refimpl.errors import LimitError, SchemaError

    t0 = time.perf_counter()
    try:
        with deadline(seconds):
            g = Grammar.from_json_schema(schema)
        outcome = "ok"
    except Slow:
        g, outcome = None, "timeout"
    except LimitError as e:
        g, outcome = None, "LimitError:" + e.limit
    except SchemaError as e:
        g, outcome = None, "SchemaError:" + _schema_error_kind(e)
    except Exception as e:  # an engine bug: reported as such, not hidden
        g, outcome = None, "crash:" + type(e).__name__
    return g, outcome, time.perf_counter() - t0


def _schema_error_kind(e: Any) -> str:
    """A short kind for a SchemaError: its message up to the first quote or colon."""
    msg = e.message
    for stop in ("'", '"', ":", "("):
        i = msg.find(stop)
        if i > 0:
            msg = msg[:i]
    return msg.strip()[:60]


def _consume(grammar: Any, data: bytes, seconds: float) -> Tuple[int, float, bool, str]:
    """(bytes read, seconds, accepted, note) of a fresh Recognizer reading `data`."""
    from refimpl.errors import MaskrefError
    from refimpl.recognition.recognizer import Recognizer

    read, note, accepted = 0, "", False
    t0 = time.perf_counter()
    try:
        with deadline(seconds):
            r = Recognizer(grammar.compiled)
            step = r.consume_byte
            for b in data:
                if not step(b):
                    break
                read += 1
            else:
                accepted = r.is_accepting()
    except Slow:
        note = "timeout"
    except MaskrefError as e:
        note = type(e).__name__ + ":" + getattr(e, "limit", "")
    return read, time.perf_counter() - t0, accepted, note


def run_schema(job: Dict[str, Any], corpus: Any) -> Iterator[Dict[str, Any]]:
    """The records of one schema: its compile, then each instance (see the module doc)."""
    text = corpus.read(job["path"])
    if text is None:
        yield {"kind": "compile", "outcome": "missing", "seconds": 0.0}
        return
    try:
        schema = json.loads(text)
    except ValueError:
        yield {"kind": "compile", "outcome": "not JSON", "seconds": 0.0}
        return
    profile = cProfile.Profile() if job.get("profile") == "compile" else None
    if profile:
        profile.enable()
    grammar, outcome, seconds = _compile(schema, job["timeout"])
    rec = {"kind": "compile", "outcome": outcome, "seconds": seconds, "keywords": keyword_counts(schema)}
    if profile:
        profile.disable()
        rec["top"] = _top_functions(profile)
    yield rec
    if grammar is None:
        return
    only = job.get("instance")
    for sign, path in job["instances"]:
        if only and path != only:
            continue
        try:
            data = json.dumps(json.loads(corpus.read(path) or ""), ensure_ascii=False).encode("utf-8")
        except ValueError:
            continue
        profile = cProfile.Profile() if job.get("profile") == "consume" else None
        if profile:
            profile.enable()
        read, seconds, accepted, note = _consume(grammar, data, job["timeout_instance"])
        # again, by another fresh Recognizer of the grammar: serving's steady state (one
        # grammar, many requests), its lexer's states built by the first read
        warm = _consume(grammar, data, job["timeout_instance"])[1] if not note else None
        rec = {"kind": "instance", "path": path, "sign": sign, "bytes": len(data), "read": read,
               "seconds": seconds, "warm_seconds": warm, "accepted": accepted, "note": note}
        if profile:
            profile.disable()
            rec["top"] = _top_functions(profile)
        yield rec


def worker(corpus_root: str, memory_gb: float) -> int:
    """Read jobs (JSON lines) on stdin, answer records (JSON lines, one "done" per job)."""
    try:
        import resource

        limit = int(memory_gb * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass
    sys.setrecursionlimit(10000)
    corpus = _corpus(corpus_root)
    out = sys.stdout
    for line in sys.stdin:
        job = json.loads(line)
        try:
            for rec in run_schema(job, corpus):
                out.write(json.dumps(rec) + "\n")
                out.flush()
        except MemoryError:
            out.write(json.dumps({"kind": "compile", "outcome": "crash:MemoryError", "seconds": -1.0}) + "\n")
        out.write(json.dumps({"kind": "done"}) + "\n")
        out.flush()
    return 0


# -- the parent: jobs, hard timeouts, the report ----------------------------------------


class Pool:
    """One worker process; restarted when it does not answer in time."""

    def __init__(self, corpus_root: str, memory_gb: float) -> None:
        self.argv = [sys.executable, "-m", "benchmarks.schemastore", corpus_root, "--worker",
                     "--memory-gb", str(memory_gb)]
        self.proc: Optional[subprocess.Popen] = None
        self.lines: "queue.Queue[str]" = queue.Queue()

    def _start(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
            self.proc = subprocess.Popen(self.argv, cwd=_ROOT, env=env, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, bufsize=1)
            self.lines = queue.Queue()
            threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        return self.proc

    @staticmethod
    def _read(proc: subprocess.Popen, lines: "queue.Queue[str]") -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put("")  # the worker ended

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def run(self, job: Dict[str, Any], patience: float) -> List[Dict[str, Any]]:
        """The job's records; a "hang" record when a record takes longer than `patience`."""
        proc = self._start()
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(job) + "\n")
        proc.stdin.flush()
        records: List[Dict[str, Any]] = []
        while True:
            try:
                line = self.lines.get(timeout=patience)
            except queue.Empty:
                line = ""
            if not line:
                self.stop()
                kind = "instance" if records else "compile"
                records.append({"kind": kind, "outcome": "hang", "seconds": patience, "note": "hang",
                                "path": "?", "sign": "?", "bytes": 0, "read": 0, "accepted": False})
                return records
            rec = json.loads(line)
            if rec["kind"] == "done":
                return records
            records.append(rec)


def schemas(corpus: Any, limit: int, only: Optional[List[str]]) -> List[Dict[str, Any]]:
    """The jobs: one per schema file (sorted), with its test instances."""
    from schemastore_vectors import instance_paths

    jobs = []
    for path, size in sorted(corpus.files("src/schemas/json").items()):
        stem = os.path.basename(path)[: -len(".json")]
        if not path.endswith(".json") or (only and stem not in only):
            continue
        jobs.append({"path": path, "stem": stem, "size": size, "instances": list(instance_paths(corpus, stem))})
        if limit and len(jobs) >= limit:
            break
    return jobs


def measure(corpus_root: str, limit: int = 0, only: Optional[List[str]] = None, timeout: float = 10.0,
            timeout_instance: float = 30.0, memory_gb: float = 6.0, profile: int = 15,
            progress: bool = True) -> Dict[str, Any]:
    """Run the corpus; return the raw records and the profiles of the slowest."""
    corpus = _corpus(corpus_root)
    jobs = schemas(corpus, limit, only)
    pool = Pool(corpus_root, memory_gb)
    results = []
    started = time.perf_counter()
    try:
        for i, job in enumerate(jobs):
            job.update(timeout=timeout, timeout_instance=timeout_instance)
            recs = pool.run(job, patience=max(timeout, timeout_instance) + 20)
            compiled: Dict[str, Any] = recs[0] if recs else {"outcome": "hang", "seconds": timeout}
            results.append({"stem": job["stem"], "size": job["size"], "compile": compiled,
                            "instances": [r for r in recs[1:]]})
            if progress:
                print("[%4d/%d] %-40s %-30s %7.3f s  %d instances" % (
                    i + 1, len(jobs), job["stem"][:40], compiled["outcome"][:30], compiled["seconds"],
                    len(recs) - 1), file=sys.stderr, flush=True)
        by_stem = {j["stem"]: j for j in jobs}
        for r in slowest_compiles(results, profile):
            job = dict(by_stem[r["stem"]], profile="compile", instances=[])
            recs = pool.run(job, patience=timeout + 20)
            r["compile"]["top"] = recs[0].get("top", ["(hang)"]) if recs else ["(hang)"]
        for r, inst in slowest_consumes(results, profile):
            job = dict(by_stem[r["stem"]], profile="consume", instance=inst["path"])
            recs = pool.run(job, patience=timeout + timeout_instance + 20)
            inst["top"] = recs[-1].get("top", ["(hang)"]) if len(recs) > 1 else ["(hang)"]
    finally:
        pool.stop()
    return {"corpus": corpus_root, "commit": corpus.commit(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "python": sys.version.split()[0], "timeout": timeout, "seconds": time.perf_counter() - started,
            "schemas": results}


def slowest_compiles(results: List[Dict[str, Any]], n: int) -> List[Dict[str, Any]]:
    return sorted(results, key=lambda r: -r["compile"]["seconds"])[:n]


def _per_byte(inst: Dict[str, Any], key: str = "seconds") -> Optional[float]:
    """Seconds per byte read (None when no byte was read), the first read's or, with
    key="warm_seconds", the second's."""
    seconds = inst.get(key)
    return seconds / inst["read"] if inst.get("read") and seconds is not None else None


def slowest_consumes(results: List[Dict[str, Any]], n: int) -> List[Tuple[Dict[str, Any], Dict[str, Any]]]:
    pairs = [(r, i) for r in results for i in r["instances"] if _per_byte(i) is not None]
    return sorted(pairs, key=lambda p: -(_per_byte(p[1]) or 0.0))[:n]


def _keywords(counts: Dict[str, int]) -> str:
    return " ".join("%s×%d" % (k, v) for k, v in counts.items() if k not in ("$ref", "enum", "pattern")) or "-"


def summary(run: Dict[str, Any]) -> Dict[str, float]:
    """The run's figures for asv (asv_schemastore.py): compile seconds and consume µs per
    byte at p50/p90/p99/max, and the schemas over 2 s, timed out, over a limit, ok."""
    results = run["schemas"]
    compiles = [r["compile"]["seconds"] for r in results if r["compile"]["outcome"] not in ("missing", "not JSON")]
    per_byte = [p * 1e6 for p in (_per_byte(i) for r in results for i in r["instances"]) if p is not None]
    warm = [p * 1e6 for p in (_per_byte(i, "warm_seconds") for r in results for i in r["instances"]) if p is not None]
    out: Dict[str, float] = {}
    for name, values in (("compile", compiles), ("consume", per_byte), ("consume_warm", warm)):
        for p in (50, 90, 99):
            out["%s_p%d" % (name, p)] = percentile(values, p)
        out[name + "_max"] = max(values) if values else float("nan")
    outcomes = [r["compile"]["outcome"] for r in results]
    out["over_2s"] = sum(1 for c in compiles if c > 2.0)
    out["timeout"] = sum(1 for o in outcomes if o in ("timeout", "hang"))
    out["limit_error"] = sum(1 for o in outcomes if o.startswith("LimitError"))
    out["ok"] = outcomes.count("ok")
    return out


def report(run: Dict[str, Any], n: int = 15) -> str:
    """The Markdown report of a run (distributions, outcomes, the n slowest of each)."""
    results = run["schemas"]
    out: List[str] = []
    w = out.append
    compiles = [r["compile"]["seconds"] for r in results if r["compile"]["outcome"] not in ("missing", "not JSON")]
    insts = [i for r in results for i in r["instances"]]
    per_byte = [p * 1e6 for p in (_per_byte(i) for i in insts) if p is not None]
    warm = [p * 1e6 for p in (_per_byte(i, "warm_seconds") for i in insts) if p is not None]
    w("SchemaStore @ %s, %s, CPython %s, per-schema compile timeout %g s; run took %.0f s"
      % (run["commit"][:12], run["date"], run["python"], run["timeout"], run["seconds"]))
    w("")
    w("| distribution | n | p50 | p90 | p99 | max |")
    w("|---|---:|---:|---:|---:|---:|")
    w("| compile s (every schema, any outcome) | %d | %.3f | %.3f | %.3f | %.3f |" % (
        len(compiles), percentile(compiles, 50), percentile(compiles, 90), percentile(compiles, 99),
        max(compiles) if compiles else float("nan")))
    w("| consume µs/byte (every instance read) | %d | %.1f | %.1f | %.1f | %.1f |" % (
        len(per_byte), percentile(per_byte, 50), percentile(per_byte, 90), percentile(per_byte, 99),
        max(per_byte) if per_byte else float("nan")))
    if warm:
        w("| consume µs/byte, read again (another fresh Recognizer of the grammar) | %d | %.1f | %.1f | %.1f "
          "| %.1f |" % (len(warm), percentile(warm, 50), percentile(warm, 90), percentile(warm, 99), max(warm)))
    w("")
    over = [r for r in results if r["compile"]["seconds"] > 2.0]
    w("Schemas over 2 s (compiled or failed): %d of %d. Instances: %d read (%d bytes), %d over 200 µs/byte."
      % (len(over), len(results), len(per_byte), sum(i.get("read", 0) for i in insts),
         sum(1 for p in per_byte if p > 200)))
    w("")
    counts: Dict[str, int] = {}
    for r in results:
        o = r["compile"]["outcome"]
        counts[o] = counts.get(o, 0) + 1
    w("| outcome | schemas |")
    w("|---|---:|")
    for o, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        w("| %s | %d |" % (o, c))
    w("")
    w("Slowest compiles (why: the costly keywords in the schema; the top refimpl functions by own time)")
    w("")
    w("| schema | KB | outcome | s | keywords | profile top |")
    w("|---|---:|---|---:|---|---|")
    for r in slowest_compiles(results, n):
        c = r["compile"]
        w("| %s | %.0f | %s | %.2f | %s | %s |" % (r["stem"], r["size"] / 1000, c["outcome"], c["seconds"],
                                                  _keywords(c.get("keywords", {})), "; ".join(c.get("top", []))))
    w("")
    w("Slowest consumes per byte (a fresh Recognizer over the instance)")
    w("")
    w("| schema | instance | bytes read | µs/byte | accepted | profile top |")
    w("|---|---|---:|---:|---|---|")
    for r, i in slowest_consumes(results, n):
        w("| %s | %s %s | %d/%d | %.0f | %s | %s |" % (
            r["stem"], i["sign"], os.path.basename(i["path"]), i["read"], i["bytes"], (_per_byte(i) or 0) * 1e6,
            "yes" if i["accepted"] else ("no" + (" (%s)" % i["note"] if i.get("note") else "")),
            "; ".join(i.get("top", []))))
    return "\n".join(out)


def _main(argv: Optional[List[str]] = None) -> int:
    ap = ArgumentParser(prog="python -m benchmarks.schemastore", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", type=directory, help="a SchemaStore checkout or bare git directory")
    ap.add_argument("--limit", type=count, default=0, help="at most this many schemas (default 0: all)")
    ap.add_argument("--only", action="append", help="just this schema (file stem); repeatable")
    ap.add_argument("--timeout", type=positive_float, default=10.0, help="compile seconds per schema (default 10)")
    ap.add_argument("--timeout-instance", type=positive_float, default=30.0,
                    help="consume seconds per instance (default 30)")
    ap.add_argument("--memory-gb", type=positive_float, default=6.0, help="address-space limit of the worker (default 6)")
    ap.add_argument("--profile", type=count, default=15, help="profile the n slowest of each (default 15)")
    ap.add_argument("--json", help="write the raw run here")
    ap.add_argument("--report", help="just print the report of a run written by --json")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.corpus, args.memory_gb)
    if args.report:
        with culprit("--report", args.report):
            text = read_text(args.report)
        try:
            run = json.loads(text)
        except ValueError as e:
            raise CommandLineError("--report %s: not a run written by --json: %s" % (args.report, e)) from None
        print(report(run, args.profile))
        return 0
    if args.json and not os.path.isdir(os.path.dirname(os.path.abspath(args.json))):
        raise CommandLineError("--json %s: no such directory to write it in" % args.json)  # before minutes of work
    run = measure(args.corpus, args.limit, args.only, args.timeout, args.timeout_instance, args.memory_gb, args.profile)
    if args.json:
        with culprit("--json", args.json), open(args.json, "w", encoding="utf-8") as f:
            json.dump(run, f)
    print(report(run, args.profile))
    return 0


#: the command (a mistake in the arguments: one error line, exit status 2)
main = command_line(_main, mistakes=(OSError,))


if __name__ == "__main__":
    sys.exit(main())
