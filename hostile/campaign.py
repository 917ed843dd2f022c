"""A fuzzing campaign: each target under atheris and libFuzzer in a child process of its
own (hostile/fuzzer.py), then its final corpus replayed in another (hostile/replay.py) to
find the slowest input and the peak memory; one results record per target
(hostile/results.py).

For one target:

1. its seeds (or a deterministic sample of them) are written to a fresh corpus directory
   (a temporary one);
2. the fuzzing child runs libFuzzer on it with `-timeout` (`FUZZ_TIMEOUT`: there
   libFuzzer bounds each input, not the property's own alarm, hostile/property.py's ALARM;
   instrumented code is slower, so the bound is 3 x SECONDS), `-rss_limit_mb`, `-seed`, and
   `-runs` or `-max_total_time` — the *budget*. A finding (an input breaking the property) is
   recorded and fuzzing goes on; a child that libFuzzer itself stops (its timeout, its
   memory limit, a signal) is a finding too, and a new child goes on with the budget left
   (at most `RESTARTS` times);
3. the replay child runs every input of the final corpus once, timed, with the property's
   own time bound — and the inputs libFuzzer timed out, which are findings only if they
   take more than SECONDS there too: the slowest input, any input breaking the property,
   and the process's peak RSS (the target's alone: one target per process).

The figures: inputs executed and coverage (libFuzzer's `cov`, the edges of the
instrumented packages' bytecode reached, and `ft`, its finer *features*: edges with hit
counts) come from libFuzzer's output, with when each last grew (`cov_grew_at`,
`ft_grew_at`: seconds since the start; a plateau shows as a time well before the end) and
when the seeds were all run (`seeds_done_at`). Progress goes to stderr every few seconds.
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

from .findings import FINDING_PREFIX, record
from .log import Say
from .lookup import reference
from .property import SECONDS
from .replay import seed_inputs
from .results import commit, keyed, run_digest
from .targets import Target

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: libFuzzer's -timeout (s): the property's bound times the slowdown of atheris's
#: instrumentation (2-4x measured here); the replay, uninstrumented, checks the bound itself
FUZZ_TIMEOUT = int(SECONDS * 3)
#: libFuzzer's -rss_limit_mb: a child above it is stopped (an out-of-memory finding)
RSS_LIMIT_MB = 2048
#: new children after libFuzzer stopped one (the budget left), at most
RESTARTS = 3
#: the seconds spent minimising one finding, at most
MINIMISE_SECONDS = 20


@dataclass(frozen=True)
class Budget:
    """How long each target is fuzzed: a number of inputs (`runs`: deterministic with a
    seed, for CI) or of seconds (`seconds`: campaigns); and from how many of its seeds
    (`seeds`: a deterministic sample; None: all — libFuzzer runs every seed first, whatever
    the budget, and a target's seeds can take minutes)."""
    runs: Optional[int] = None
    seconds: Optional[int] = None
    seeds: Optional[int] = None

    def __str__(self) -> str:
        text = "runs=%d" % self.runs if self.runs is not None else "seconds=%d" % (self.seconds or 0)
        return text + (",seeds=%d" % self.seeds if self.seeds is not None else "")

    def flags(self, executed: int, elapsed: float) -> List[str]:
        """libFuzzer's flags for what is left of the budget."""
        if self.runs is not None:
            return ["-runs=%d" % max(1, self.runs - executed)]
        return ["-max_total_time=%d" % max(1, int((self.seconds or 0) - elapsed))]

    def left(self, executed: int, elapsed: float) -> bool:
        if self.runs is not None:
            return executed < self.runs
        return (self.seconds or 0) - elapsed >= 2


#: the profiles: ci a short deterministic run (docs/hostile.md), campaign the figures' run
PROFILES: Dict[str, Budget] = {"ci": Budget(runs=100, seeds=16), "campaign": Budget(seconds=60, seeds=64)}


STATUS = re.compile(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/")
STAT = re.compile(r"^stat::(\w+):\s+(\d+)")
STOPPED = re.compile(r"==\d+== ERROR: libFuzzer: (.*)")
ARTIFACT = re.compile(r"Test unit written to (.+)$")


class Child:
    """What one fuzzing child said on stderr: its latest status, final stats, findings,
    and why libFuzzer stopped it if it did."""

    def __init__(self) -> None:
        self.executed = self.cov = self.ft = self.corpus = 0
        self.stats: Dict[str, int] = {}
        self.findings: List[Dict[str, Any]] = []
        self.stopped = ""
        self.artifact = ""

    def read(self, line: str) -> None:
        m = STATUS.match(line)
        if m:
            self.executed, self.cov, self.ft, self.corpus = (int(g) for g in m.groups())
        elif line.startswith(FINDING_PREFIX):
            self.findings.append(json.loads(line[len(FINDING_PREFIX):]))
        elif STAT.match(line):
            m = STAT.match(line)
            assert m is not None
            self.stats[m.group(1)] = int(m.group(2))
        elif STOPPED.search(line) and not self.stopped:
            m = STOPPED.search(line)
            assert m is not None
            self.stopped = re.sub(r" after \d+ seconds|\s*\(.*", "", m.group(1).strip())
        elif ARTIFACT.search(line):
            m = ARTIFACT.search(line)
            assert m is not None
            self.artifact = m.group(1).strip()


def environment() -> Dict[str, str]:
    """The children's environment: the checkout first on the path, a fixed hash seed (the
    same run for the same -seed)."""
    path = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=ROOT + (os.pathsep + path if path else ""), PYTHONHASHSEED="0")


def _child(command: List[str], cwd: str, log: Any, on_line: Callable[[str], None], wall: Optional[float],
           stdout: Any = None) -> int:
    """Run a child, each line of its stderr to the log and to on_line (with `stdout=True`:
    each line of its stdout, its stderr to the log only; with a file as `stdout`: its stdout
    there); killed after `wall` seconds."""
    proc = subprocess.Popen(command, cwd=cwd, env=environment(), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE if stdout is True else stdout or subprocess.DEVNULL,
                            stderr=log if stdout is True else subprocess.PIPE, text=True, errors="replace",
                            start_new_session=True)
    timer = threading.Timer(wall, proc.kill) if wall else None
    if timer:
        timer.start()
    try:
        stream = proc.stdout if stdout is True else proc.stderr
        assert stream is not None
        for line in stream:
            log.write(line)
            on_line(line.rstrip("\n"))
        return proc.wait()
    finally:
        if timer:
            timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def fuzz(target: Target, budget: Budget, seed: int, corpus: str, findings_dir: str, log: Any,
         say: Say, seeds: int = 0, scratch: str = ".") -> Dict[str, Any]:
    """Fuzz one target (step 2 of the module's docstring) from a corpus of `seeds` inputs;
    the libFuzzer figures. The children run in `scratch` (whatever the entry point writes
    into its current directory goes there, not into the corpus)."""
    start = time.monotonic()
    executed = 0
    children: List[Child] = []
    stopped: List[Child] = []
    #: the most edges (cov) and features (ft) seen, and when they last grew (s since start)
    growth = {"cov": 0, "ft": 0, "cov_at": 0.0, "ft_at": 0.0, "seeds_done_at": None}
    while budget.left(executed, time.monotonic() - start) and len(children) <= RESTARTS:
        child = Child()
        children.append(child)
        flags = budget.flags(executed, time.monotonic() - start) + [
            "-seed=%d" % (seed + len(children) - 1), "-timeout=%d" % FUZZ_TIMEOUT,
            "-rss_limit_mb=%d" % RSS_LIMIT_MB, "-print_final_stats=1", "-artifact_prefix=%s%s" % (findings_dir, os.sep),
            corpus]
        command = [sys.executable, "-m", "hostile.fuzzer", reference(target), ",".join(target.packages),
                   findings_dir, "--"] + flags

        def on_line(line: str, child: Child = child, before: int = executed) -> None:
            child.read(line)
            now = round(time.monotonic() - start, 1)
            for k in ("cov", "ft"):
                if getattr(child, k) > growth[k]:
                    growth[k], growth[k + "_at"] = getattr(child, k), now
            if growth["seeds_done_at"] is None and "INITED" in line:
                growth["seeds_done_at"] = now
            found = sum(len(c.findings) for c in children)
            say("%s: %.0f s, %s inputs, cov %d ft %d, corpus %d, %d finding(s)"
                % (target.name, time.monotonic() - start, "{:,}".format(before + child.executed),
                   child.cov, child.ft, child.corpus, found))

        # a child libFuzzer's watchdog could not stop: killed after the budget, its seeds (run
        # first, each within SECONDS) and a margin
        wall = None if budget.seconds is None else budget.seconds + SECONDS * (seeds + 3) + 60
        code = _child(command, scratch, log, on_line, wall)
        executed += child.stats.get("number_of_executed_units", child.executed)
        if code == 0:
            break
        child.stopped = child.stopped or "exit status %d" % code
        stopped.append(child)
        say("%s: libFuzzer stopped the child (%s)%s" % (target.name, child.stopped,
                                                      "; going on" if budget.left(executed, time.monotonic() - start)
                                                      and len(children) <= RESTARTS else ""), now=True)
    last = children[-1]
    findings: Dict[str, Dict[str, Any]] = {}
    for c in children:
        for f in c.findings:  # the shortest input of each signature
            if f["signature"] not in findings or f["size"] < findings[f["signature"]]["size"]:
                findings[f["signature"]] = f
    for c in stopped:  # the input libFuzzer kept (its artifact), if it did
        sig = "libFuzzer: " + c.stopped
        if c.artifact and os.path.isfile(c.artifact):
            with open(c.artifact, "rb") as artifact:
                data = artifact.read()
            if sig not in findings or len(data) < findings[sig].get("size", len(data) + 1):
                findings[sig] = dict(record(sig, data), artifact=c.artifact)
        findings.setdefault(sig, {"signature": sig})
    return {"executed": executed, "cov": last.cov, "ft": last.ft, "corpus": last.corpus,
            "fuzz_rss_mb": max((c.stats.get("peak_rss_mb", 0) for c in children), default=0),
            "restarts": len(children) - 1, "findings": [findings[s] for s in sorted(findings)],
            "fuzz_seconds": round(time.monotonic() - start, 1), "cov_grew_at": growth["cov_at"],
            "ft_grew_at": growth["ft_at"], "seeds_done_at": growth["seeds_done_at"]}


def minimise_findings(target: Target, findings: List[Dict[str, Any]], directory: str, log: Any, say: Say,
                      scratch: str = ".") -> None:
    """Minimise each finding kept by the fuzzing child (a child process each, at most
    MINIMISE_SECONDS): its entry gains `minimised` (the input's name, size and bytes).
    Inputs over the time bound are left as they are (each try would take SECONDS)."""
    for f in findings:
        path = os.path.join(directory, f.get("input", ""))
        if "input" not in f or f["signature"].startswith(("took more than", "libFuzzer:")) or not os.path.isfile(path):
            continue
        say("%s: minimising %s (%d bytes)" % (target.name, f["signature"], f["size"]), now=True)
        command = [sys.executable, "-m", "hostile", "minimise", reference(target), path, "--seconds",
                   str(MINIMISE_SECONDS)]
        lines: List[str] = []
        _child(command, scratch, log, lines.append, MINIMISE_SECONDS + 2 * SECONDS + 30, stdout=True)
        try:
            small = json.loads(lines[-1])
        except (ValueError, IndexError):
            continue
        if small.get("signature") == f["signature"] and small["size"] < f["size"]:
            f["minimised"] = {k: small[k] for k in ("input", "size", "hex")}


def measure(target: Target, corpora: List[str], log: Any, say: Say, scratch: str = ".") -> Dict[str, Any]:
    """Replay the corpora in a child of its own (step 3), in `scratch`: its JSON, or
    {"error": ...}. Its progress lines are said again."""
    command = [sys.executable, "-m", "hostile", "replay", reference(target), "--no-regressions", "--json"]
    for c in corpora:
        command += ["--corpus", c]
    out = os.path.join(scratch, "..", "replay.json")
    with open(out, "w", encoding="utf-8") as stdout:
        code = _child(command, scratch, log, lambda line: say(line[len("hostile: "):]) if line.startswith("hostile: ")
                      else None, None, stdout=stdout)
    with open(out, encoding="utf-8") as f:
        text = f.read()
    try:
        return dict(json.loads(text.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        return {"error": "the replay child ended with status %d" % code}


TIMEOUT = "libFuzzer: timeout"


def confirmed(findings: List[Dict[str, Any]], replayed: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The findings after the replay: an input libFuzzer timed out is a finding only if it
    broke the property in the replay too (`took more than 10 s` there; else it was slow only
    under instrumentation: counted in the replay's `slow_when_instrumented`); the replay's
    violations join, the shortest input of each signature."""
    violations = replayed.get("violations") or []
    broke = {v["input"] for v in violations}
    by_sig: Dict[str, Dict[str, Any]] = {}
    for f in findings:
        if f["signature"] == TIMEOUT and "error" not in replayed:  # the replay decides
            if f.get("input") not in broke:
                replayed["slow_when_instrumented"] = replayed.get("slow_when_instrumented", 0) + 1
            continue
        by_sig[f["signature"]] = {k: v for k, v in f.items() if k != "artifact"}
    for v in violations:
        old = by_sig.get(v["signature"])
        if old is None or v["size"] < old.get("size", v["size"] + 1):
            by_sig[v["signature"]] = {k: v[k] for k in ("signature", "input", "size", "hex", "message")}
    return [by_sig[s] for s in sorted(by_sig)]


def write_seeds(target: Target, corpus: str, at_most: Optional[int] = None) -> int:
    """The target's seeds (`at_most` of them: replay.seed_inputs) as files of the corpus
    directory; how many."""
    os.makedirs(corpus, exist_ok=True)
    seeds = seed_inputs(target, at_most)
    for name, data in seeds:
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(data)
    return len(seeds)


def run_target(target: Target, budget: Budget, seed: int, profile: str, findings_root: str,
               say: Say, keep_corpus: Optional[str] = None) -> Dict[str, Any]:
    """Fuzz one target and measure its corpus; its results record."""
    started = time.time()
    work = tempfile.mkdtemp(prefix="hostile-%s-" % target.name)
    corpus = os.path.join(work, "corpus")
    scratch = os.path.join(work, "cwd")
    os.makedirs(scratch)
    findings_dir = os.path.join(findings_root, target.name)
    os.makedirs(findings_dir, exist_ok=True)
    try:
        seeds = write_seeds(target, corpus, budget.seeds)
        say("%s: %d seeds; fuzzing (%s, seed %d); the child's output in %s"
            % (target.name, seeds, budget, seed, os.path.join(findings_dir, "libfuzzer.log")), now=True)
        with open(os.path.join(findings_dir, "libfuzzer.log"), "w", encoding="utf-8") as log:
            figures = fuzz(target, budget, seed, corpus, findings_dir, log, say, seeds, scratch)
            log.flush()
            minimise_findings(target, figures["findings"], findings_dir, log, say, scratch)
            say("%s: replaying the corpus (%d inputs)" % (target.name, len(os.listdir(corpus))), now=True)
            slow = os.path.join(work, "slow")  # the inputs libFuzzer timed out
            os.makedirs(slow)
            for f in figures["findings"]:
                if f["signature"] == TIMEOUT and os.path.isfile(f.get("artifact", "")):
                    shutil.copy(f["artifact"], os.path.join(slow, f["input"]))
            replayed = measure(target, [corpus, slow], log, say, scratch)
            figures["findings"] = confirmed(figures["findings"], replayed)
        if keep_corpus:
            shutil.copytree(corpus, os.path.join(keep_corpus, target.name), dirs_exist_ok=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    record: Dict[str, Any] = keyed(target.name, run_digest(target, str(budget), seed))
    record.update({
        "entry": target.entry, "profile": profile, "budget": str(budget), "seed": seed, "commit": commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "python": "%s %s" % (platform.python_implementation(), platform.python_version()),
        "atheris": _version("atheris"), "cpus": os.cpu_count(), "load": [round(x, 1) for x in load],
        "seeds": seeds, "packages": list(target.packages)})
    record.update(figures)
    record["replay"] = replayed
    record["wall_seconds"] = round(time.time() - started, 1)
    return record


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def findings_root() -> str:
    """Where findings and the children's logs go unless `--findings` says: the temporary
    directory's maskref-hostile/ (never the current directory)."""
    return os.path.join(tempfile.gettempdir(), "maskref-hostile")
