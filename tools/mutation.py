"""Mutation testing of the conformance oracle: how many injected bugs in refimpl does it find?

    python tools/mutation.py [--sample 200] [--seed 0] [--fuzz-seconds 60] [--out mutation-report]

A *mutant* is refimpl with one small change made by cosmic-ray's operators (a `+` made
`-`, a `<` made `<=`, a `True` made `False`, a loop that never runs, ...) in one of the
modules the issue names: refimpl/regex, lexer.py, earley.py, tokens/, matcher.py and
recognizer.py. It is *killed* when the conformance suite, run with the mutated refimpl as
a `cmd:` worker (refimpl/serving/worker.py speaks docs/protocol.md) against the unmutated refimpl
in the reference process, finds a disagreement:

1. `python -m conformance run --first` on the default suite (a disagreement, or the worker
   failing during a vector, exits 1; a worker that cannot even start — a mutant that
   breaks an import — exits 2 with "its worker cannot start": killed by the suite);
2. if the suite finds nothing, `python -m conformance fuzz --first --seconds F --seed S`
   (killed by the fuzzer); the fuzzer's shrinking is cut short, since only the verdict
   matters here.

A mutant of code that no worker runs but an engine of conformance does in-process (the
token index's own API and its parallel build: `IN_COPY_ENGINES`) is also judged, when the
worker's run finds nothing, by `python -m conformance run --engine token-index` started in
the copy, so that the engine runs the mutated refimpl (the reference there runs none of
that code).

A mutant that makes either command run past its time limit (a hang, or a slowdown of
several times the unmutated run) is counted as killed, `timeout-run` / `timeout-fuzz`.
The rest *survive*; each is read by a person and recorded in tools/mutation_review.json
as `equivalent` (no input can tell it from refimpl: say why) or `missed` (a real blind
spot). Unreviewed survivors count as missed.

Everything happens in a clone (`--clone`, default /tmp/mutation-clone), never in the
checkout: the clone holds the pristine refimpl (the reference) and conformance at the
source's HEAD, and a copy of refimpl under `.mutant/` that is mutated one mutant at a time
(the worker starts in `.mutant/`, so `python -m refimpl.serving.worker` imports the copy).
`--refimpl-rev` pins refimpl to an older commit, so that a later campaign mutates the
same code and draws the same sample (the mutants are numbered per file and operator).

The sample is deterministic: all mutants are enumerated, sorted, and `--sample` of them
drawn with `random.Random(seed)`, stratified by module group (a group gets a share
proportional to the square root of its number of mutants, so the big regex package does
not crowd out earley.py). Results go to `OUT/results.jsonl` as they come (a rerun with
the same options resumes), and the reports to `OUT/report.json` and `OUT/report.md`.
Not run in CI: a campaign of 200 mutants takes about an hour on one core.

Two shortcuts keep a campaign within that hour, and the reports say where they were
taken: `--carry RESULTS` takes the mutants an earlier campaign's `run` killed as killed
(sound when refimpl is the same and the suite only grew: the vector that disagreed is
still there, and `run` only compares more) and its survivors that tools/mutation_review.json
calls equivalent as survivors (by reading, no test can kill them); the fuzz phase skips
those too (`--test-equivalent` runs them all).
"""
from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

#: the module groups of each campaign family -> paths (relative to the repository) of the
#: files mutated. `engine` is issue 20's (the engine core), `frontends` issue 35's (where the
#: grammars' meaning is made, and the token index and caches); a file belongs to one group
#: of a family (slicer.py and special.py are in `tokens` of one, their own group of the other).
FAMILIES: Dict[str, Dict[str, Tuple[str, ...]]] = {
    "engine": {
        "regex": ("refimpl/regex",),
        "lexer": ("refimpl/recognition/lexer.py",),
        "earley": ("refimpl/recognition/earley.py",),
        "tokens": ("refimpl/tokens", "refimpl/masks/walk.py", "refimpl/masks/slicer.py"),
        "matcher": ("refimpl/masks/matcher.py",),
        "recognizer": ("refimpl/recognition/recognizer.py",),
    },
    "frontends": {
        "jsonschema": ("refimpl/frontends/jsonschema", "refimpl/frontends/jsontext.py", "refimpl/frontends/digits.py"),
        "lark": ("refimpl/frontends/lark",),
        "ebnf": ("refimpl/frontends/ebnf",),
        "typed": ("refimpl/frontends/typed",),
        "simplify": ("refimpl/grammar",),
        "index": ("refimpl/masks/index",),
        "caches": ("refimpl/recognition/compaction.py", "refimpl/masks/maskcache.py"),
        "special": ("refimpl/tokens/special.py",),
        "slicer": ("refimpl/masks/slicer.py",),
    },
}
#: the default family's groups
GROUPS = FAMILIES["engine"]
#: the worker's options for a group whose code only a non-default Matcher runs
#: (refimpl/serving/worker.py): the token index, and the mask cache with its compaction
WORKER_OPTIONS: Dict[str, str] = {"index": "--backend index", "caches": "--mask-cache"}
#: the groups whose worker may answer "unsupported" (the index backend declines a grammar
#: that is not regular), each with the results file of the unmutated backend on the
#: default suite: the worker's run is given it (`conformance run --supported`), so a mutant
#: that declines a vector the backend supports fails the run (support lost) instead of
#: being skipped there
SUPPORT_JUDGED: Dict[str, str] = {"index": "results/default/index.jsonl.gz"}
#: the groups whose code no worker runs (no grammar kind of the protocol comes from a Python
#: type), each with the suite group that pins it: a mutant of one is judged by regenerating
#: that group with the mutated refimpl (`conformance generate --only GROUP`) and comparing
#: it with the checked-in file — killed (`killed-run`, the reason in its run's tail) when
#: they differ or generation fails, `timeout-run` when it runs past its time
REGENERATED: Dict[str, str] = {"typed": "types"}
#: the groups whose code serves a REGENERATED group's frontend too (digits.py and
#: jsontext.py read the numbers and strings of refimpl.typed's `parse`): a mutant the suite
#: does not find is also judged by regenerating that suite group
ALSO_REGENERATED: Dict[str, str] = {"jsonschema": "types"}
#: the groups whose code engines of conformance run in-process and no worker does (the
#: token index's own API, its parallel build, its construction with every step off and
#: by definition: conformance/refimpl_engines.py's TokenIndexEngine), each with those
#: engines: a mutant the worker's run does not find is also judged by `conformance run
#: --engine ENGINE` started in the copy (`python -m` there imports the mutated refimpl),
#: engine after engine while none finds it. Honest only because the reference in that
#: process, refimpl's Matcher with its python walker, runs no code of the group.
IN_COPY_ENGINES: Dict[str, Tuple[str, ...]] = {"index": ("token-index", "token-index-bare", "token-index-naive")}
#: the groups whose entry points take what no vector and no worker can carry — a JSON
#: schema as a Python value (a key that is not a string, a tuple, NaN: JSON text holds
#: none, and a worker is sent JSON) —, each with hostile/'s fuzz targets of those entry
#: points: a mutant the worker's run does not find is also judged by replaying the
#: targets' regression inputs in the copy (`python -m hostile replay TARGET...`, exit 1
#: when an input breaks the property: a traceback for a user's mistake, masks unlike
#: the definition, an accepted instance the `jsonschema` library calls invalid)
HOSTILE_REPLAYED: Dict[str, Tuple[str, ...]] = {
    "jsonschema": ("json-schema-value", "json-schema-text", "json-schema-options")}
#: generated data, not code: mutating a table entry tests the table, not the oracle
EXCLUDED = ("refimpl/regex/unicode_data.py",)
REVIEW_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mutation_review.json")

# outcomes of one mutant
KILLED_RUN, TIMEOUT_RUN = "killed-run", "timeout-run"
KILLED_FUZZ, TIMEOUT_FUZZ = "killed-fuzz", "timeout-fuzz"
SURVIVED, NO_MUTATION, HARNESS_ERROR = "survived", "no-mutation", "harness-error"
KILLED_BY_RUN = (KILLED_RUN, TIMEOUT_RUN)
#: what `conformance run` says (exit status 2) of a cmd: worker that cannot start
WORKER_CANNOT_START = "its worker cannot start"
KILLED = KILLED_BY_RUN + (KILLED_FUZZ, TIMEOUT_FUZZ)


@dataclasses.dataclass(frozen=True, order=True)
class Mutant:
    """One mutation: the `occurrence`-th place in `path` where `operator` applies."""

    path: str
    operator: str
    occurrence: int
    line: int = 0
    group: str = ""

    @property
    def key(self) -> str:
        return "%s:%s:%d" % (self.path, self.operator.split("/")[-1], self.occurrence)


def group_of(path: str, groups: Dict[str, Tuple[str, ...]] = GROUPS) -> str:
    """The group of `groups` that holds the file.

    >>> group_of("refimpl/masks/slicer.py"), group_of("refimpl/masks/slicer.py", FAMILIES["frontends"])
    ('tokens', 'slicer')
    """
    for name, prefixes in groups.items():
        if any(path == p or path.startswith(p + "/") for p in prefixes):
            return name
    raise ValueError("%s is in no module group" % path)


def chosen_groups(spec: str) -> Dict[str, Tuple[str, ...]]:
    """`--groups`: a family's name (all its groups) or group names of one family, comma-separated.

    >>> list(chosen_groups("lark,ebnf")), len(chosen_groups("frontends"))
    (['lark', 'ebnf'], 9)
    """
    if spec in FAMILIES:
        return dict(FAMILIES[spec])
    names = spec.split(",")
    for family in FAMILIES.values():
        if all(n in family for n in names):
            return {n: family[n] for n in names}
    raise SystemExit("--groups %r: expected a family (%s) or groups of one family (%s)" % (
        spec, ", ".join(FAMILIES), "; ".join(", ".join(f) for f in FAMILIES.values())))


# ----------------------------------------------------------------------------- mutants


def module_files(root: Path, groups: Dict[str, Tuple[str, ...]]) -> List[str]:
    """The files mutated, relative to `root`, sorted."""
    out = []
    for g in groups:
        for prefix in groups[g]:
            p = root / prefix
            files = sorted(p.rglob("*.py")) if p.is_dir() else [p]
            out += [f.relative_to(root).as_posix() for f in files if "__pycache__" not in f.parts]
    return sorted(f for f in out if f not in EXCLUDED)


def operators() -> List[Tuple[str, Any]]:
    """cosmic-ray's operators that take no arguments, by name (its default set)."""
    import cosmic_ray.plugins as plugins  # type: ignore[import-untyped]

    return [(n, plugins.get_operator(n)()) for n in sorted(plugins.operator_names())
            if not plugins.get_operator(n).arguments()]


def enumerate_mutants(root: Path, files: Sequence[str], groups: Dict[str, Tuple[str, ...]] = GROUPS) -> List[Mutant]:
    """Every mutant of the files: (path, operator, occurrence), numbered as cosmic-ray's
    MutationVisitor counts them (so `mutate` finds the same place), in its group of `groups`."""
    from cosmic_ray.ast import ast_nodes, get_ast_from_path  # type: ignore[import-untyped]

    out = []
    ops = operators()
    for path in files:
        tree = get_ast_from_path(root / path)
        nodes = list(ast_nodes(tree))
        group = group_of(path, groups)
        for name, op in ops:
            occurrence = 0
            for node in nodes:
                for start, _end in op.mutation_positions(node):
                    out.append(Mutant(path, name, occurrence, start[0], group))
                    occurrence += 1
    return sorted(out)


def allocate(counts: Dict[str, int], size: int) -> Dict[str, int]:
    """`size` split over groups in proportion to the square root of their counts (largest
    remainders first), never more than a group has.

    >>> allocate({"a": 100, "b": 25, "c": 0}, 30)
    {'a': 20, 'b': 10, 'c': 0}
    """
    weights = {g: math.sqrt(n) for g, n in counts.items()}
    total = sum(weights.values()) or 1.0
    share = {g: min(counts[g], int(size * w / total)) for g, w in weights.items()}
    order = sorted(counts, key=lambda g: -(size * weights[g] / total - int(size * weights[g] / total)))
    while sum(share.values()) < min(size, sum(counts.values())):
        grew = False
        for g in order:
            if share[g] < counts[g] and sum(share.values()) < size:
                share[g] += 1
                grew = True
        if not grew:
            break
    return share


def sample(mutants: Sequence[Mutant], size: int, seed: int, per_group: Optional[int] = None) -> List[Mutant]:
    """A deterministic, stratified sample: per group, random.Random(seed, group) draws its
    share of the group's (sorted) mutants — `allocate`'s square-root share of `size`, or
    `per_group` each (so that every group's score has the same confidence)."""
    by_group: Dict[str, List[Mutant]] = {}
    for m in sorted(mutants):
        by_group.setdefault(m.group, []).append(m)
    if per_group is not None:
        share = {g: min(per_group, len(ms)) for g, ms in by_group.items()}
    else:
        share = allocate({g: len(ms) for g, ms in sorted(by_group.items())}, size)
    out = []
    for g, ms in sorted(by_group.items()):
        out += random.Random("%d/%s" % (seed, g)).sample(ms, share[g])
    return sorted(out)


def mutate(source: str, mutant: Mutant) -> Optional[str]:
    """The source with the mutation applied (cosmic-ray), or None if it does not apply."""
    import cosmic_ray.plugins as plugins
    from cosmic_ray.mutating import mutate_code  # type: ignore[import-untyped]

    return mutate_code(source, plugins.get_operator(mutant.operator)(), mutant.occurrence)


def changed_lines(original: str, mutated: str) -> Tuple[str, str]:
    """The lines the mutation changed: (before, after), stripped and joined (blank lines
    left out)."""
    before, after = [], []
    for line in difflib.unified_diff(original.splitlines(), mutated.splitlines(), lineterm="", n=0):
        if line.startswith("-") and not line.startswith("---") and line[1:].strip():
            before.append(line[1:].strip())
        elif line.startswith("+") and not line.startswith("+++") and line[1:].strip():
            after.append(line[1:].strip())
    return " / ".join(before), " / ".join(after)


# ----------------------------------------------------------------------------- running


@dataclasses.dataclass
class Check:
    """One command's verdict: its exit status (None when it ran out of time) and time."""

    rc: Optional[int]
    seconds: float
    tail: str = ""


def run_check(argv: Sequence[str], cwd: Path, timeout: float, nice: int = 15) -> Check:
    """Run a conformance command in its own process group; kill the group on time-out."""
    t0 = time.monotonic()
    cmd = (["nice", "-n", str(nice)] if nice else []) + list(argv)
    proc = subprocess.Popen(cmd, cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        return Check(None, time.monotonic() - t0)
    return Check(proc.returncode, time.monotonic() - t0, "\n".join(out.strip().splitlines()[-6:]))


def worker_backend(mutant_dir: Path, python: str = sys.executable, options: str = "") -> str:
    """The `cmd:` backend running refimpl from `mutant_dir`: `python -m` puts its working
    directory first on sys.path, so the worker started there (env -C) imports the
    mutated copy, whatever the reference process imports. `options`: the worker's."""
    return ("cmd:env -C %s PYTHONDONTWRITEBYTECODE=1 %s -m refimpl.serving.worker %s"
            % (mutant_dir, python, options)).rstrip()


def run_argv(backend: str, out: Path, python: str = sys.executable, suite: Optional[str] = None,
             supported: Optional[str] = None) -> List[str]:
    """`conformance run --first` on the default suite (or `suite`); `supported`: a results
    file whose supported vectors the engine must support (`--supported`)."""
    return ([python, "-m", "conformance", "run", "--engine", backend, "--first", "--quiet", "--out", str(out)]
            + (["--suite", suite] if suite else []) + (["--supported", supported] if supported else []))


def fuzz_argv(backend: str, seconds: float, seed: int, out: Path, python: str = sys.executable) -> List[str]:
    """`conformance fuzz --first`, with the shrinker cut to a second: a mutant needs a
    verdict, not a minimal case."""
    code = ("import sys, conformance.fuzz as f; f.SHRINK_SECONDS = 1; from conformance.__main__ import main; "
            "sys.exit(main(sys.argv[1:]))")
    return [python, "-c", code, "fuzz", "--engine", backend, "--seconds", str(seconds), "--seed", str(seed),
            "--first", "--quiet", "--out", str(out)]


def generate_argv(group: str, out: Path, python: str = sys.executable) -> List[str]:
    """`conformance generate --only GROUP --out OUT`, writing no bytecode (run in the
    mutant's directory: a cached .pyc must not outlive its mutant)."""
    return ["env", "PYTHONDONTWRITEBYTECODE=1", python, "-m", "conformance", "generate", "--only", group,
            "--out", str(out)]


def first_difference(fresh: Path, stored: Path) -> Optional[str]:
    """None if the two suite files are equal, else where they first differ (line and id).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); a, b = d / "a.jsonl", d / "b.jsonl"
    >>> _ = a.write_text('{"id": "x/0"}\\n{"id": "x/1", "note": "1"}\\n'); _ = b.write_text('{"id": "x/0"}\\n')
    >>> first_difference(a, a), first_difference(a, b), first_difference(b, a)
    (None, 'line 2 (x/1) is not in the checked-in file', 'line 2 (x/1) is missing')
    """
    new, old = fresh.read_text(encoding="utf-8").splitlines(), stored.read_text(encoding="utf-8").splitlines()
    for i in range(max(len(new), len(old))):
        a, b = (new[i] if i < len(new) else None), (old[i] if i < len(old) else None)
        if a != b:
            shown = json.loads(a if a is not None else b).get("id", "?")  # type: ignore[arg-type]
            what = "differs" if a is not None and b is not None else "is missing" if a is None else \
                "is not in the checked-in file"
            return "line %d (%s) %s" % (i + 1, shown, what)
    return None


def _then(run: Check, again: Check) -> Check:
    """One check made of `run`, which found nothing, followed by `again`: its status, both
    times, and the tail of the one that found something (of both when neither did)."""
    return Check(again.rc, run.seconds + again.seconds, again.tail if again.rc != 0 else run.tail + "\n" + again.tail)


def verdict(run: Optional[Check], fuzz: Optional[Check]) -> str:
    """A mutant's outcome from its checks: run exit 1 (a disagreement, or a worker that
    fails during a vector) kills it, so does a time-out, and so does exit 2 for a worker
    that cannot start (conformance's setup error naming it); exit 0 passes it on to the
    fuzzer, whose exit 1 or time-out kills it; exit 0 of both is a survivor. Any other
    status (2: a setup error of the harness itself) is a harness error, not a verdict.

    >>> verdict(Check(1, 2.0), None), verdict(Check(None, 99.0), None)
    ('killed-run', 'timeout-run')
    >>> verdict(Check(2, 1.0, "error: engine cmd:x is unavailable: its worker cannot start: ..."), None)
    'killed-run'
    >>> verdict(Check(0, 9.0), Check(1, 5.0)), verdict(Check(0, 9.0), Check(0, 60.0)), verdict(Check(2, 1.0), None)
    ('killed-fuzz', 'survived', 'harness-error')
    """
    if run is None:
        return NO_MUTATION
    if run.rc is None:
        return TIMEOUT_RUN
    if run.rc == 1 or (run.rc == 2 and WORKER_CANNOT_START in run.tail):
        return KILLED_RUN
    if run.rc != 0:
        return HARNESS_ERROR
    if fuzz is None:
        return SURVIVED
    if fuzz.rc is None:
        return TIMEOUT_FUZZ
    if fuzz.rc == 1:
        return KILLED_FUZZ
    if fuzz.rc != 0:
        return HARNESS_ERROR
    return SURVIVED


class Campaign:
    """A clone with the reference refimpl and a mutable copy; mutants applied one at a time.
    A mutant's check depends on its group (`suite_check`): the suite through the worker, or
    for a group of REGENERATED its suite group regenerated. `groups`: the groups whose
    checks `baseline` makes ready (default: the suite's only)."""

    def __init__(self, clone: Path, out: Path, fuzz_seconds: float, seed: int, python: str = sys.executable,
                 run_timeout: Optional[float] = None, nice: int = 15, suite: Optional[str] = None,
                 worker_options: str = "", groups: Iterable[str] = (), supported: Optional[str] = None) -> None:
        self.clone, self.out, self.fuzz_seconds, self.seed = clone, out, fuzz_seconds, seed
        self.python, self.nice, self.suite = python, nice, suite
        self.mutant_dir = clone / ".mutant"
        self.backend = worker_backend(self.mutant_dir, python, worker_options)
        self.run_timeout = run_timeout
        self.repros = out / "repros"
        self.groups = list(groups)
        #: the results file the worker's run must keep the support of: `supported`, else
        #: SUPPORT_JUDGED's for the default suite (a results file names vectors by digest)
        judged = sorted({SUPPORT_JUDGED[g] for g in self.groups if g in SUPPORT_JUDGED})
        self.supported = supported or (judged[0] if len(judged) == 1 and suite is None else None)
        #: the time limit of each regenerated suite group's check (set by `baseline`)
        self.generate_timeouts: Dict[str, float] = {}
        #: the time limit of each IN_COPY_ENGINES engine's run, and of each HOSTILE_REPLAYED
        #: group's replay (set by `baseline`)
        self.in_copy_timeouts: Dict[str, float] = {}
        self.replay_timeouts: Dict[str, float] = {}

    def reset_copy(self) -> None:
        """`.mutant/refimpl` = the clone's refimpl; `.mutant/conformance` a link to the
        clone's (so that `python -m conformance` started in `.mutant` runs the clone's
        conformance on the copy's refimpl)."""
        shutil.rmtree(self.mutant_dir, ignore_errors=True)
        shutil.copytree(self.clone / "refimpl", self.mutant_dir / "refimpl",
                        ignore=shutil.ignore_patterns("__pycache__"))
        os.symlink(str((self.clone / "conformance").absolute()), str(self.mutant_dir / "conformance"))
        if (self.clone / "hostile").is_dir():  # HOSTILE_REPLAYED's targets, run on the copy's refimpl
            os.symlink(str((self.clone / "hostile").absolute()), str(self.mutant_dir / "hostile"))

    def baseline(self) -> float:
        """The unmutated copy must agree with the whole suite, and regenerate each suite
        group of REGENERATED among `groups` as checked in; returns the checks' seconds
        (the time limits are multiples of each)."""
        self.reset_copy()
        regenerated = sorted({table[g] for table in (REGENERATED, ALSO_REGENERATED) for g in self.groups
                              if g in table})
        seconds = 0.0
        if not self.groups or any(g not in REGENERATED for g in self.groups):
            c = run_check(run_argv(self.backend, self.repros, self.python, self.suite, self.supported), self.clone,
                          900, self.nice)
            if c.rc != 0:
                raise SystemExit("the unmutated worker does not agree with the suite (exit %s):\n%s" % (c.rc, c.tail))
            if self.run_timeout is None:
                self.run_timeout = max(90.0, 6 * c.seconds)
            seconds += c.seconds
        for group in regenerated:
            c = self.regenerate(group, 900)
            if c.rc != 0:
                raise SystemExit("the unmutated refimpl does not regenerate %s as checked in:\n%s" % (group, c.tail))
            self.generate_timeouts[group] = max(60.0, 6 * c.seconds)
            seconds += c.seconds
        for engine in sorted({e for g in self.groups if g in IN_COPY_ENGINES for e in IN_COPY_ENGINES[g]}):
            c = self.in_copy_run(engine, 900)
            if c.rc != 0:
                raise SystemExit("the unmutated refimpl does not agree with the suite as %s (exit %s):\n%s"
                                 % (engine, c.rc, c.tail))
            self.in_copy_timeouts[engine] = max(60.0, 6 * c.seconds)
            seconds += c.seconds
        for group in sorted(g for g in self.groups if g in HOSTILE_REPLAYED):
            c = self.replay(group, 900)
            if c.rc != 0:
                raise SystemExit("the unmutated refimpl breaks a hostile regression input (exit %s):\n%s"
                                 % (c.rc, c.tail))
            self.replay_timeouts[group] = max(60.0, 6 * c.seconds)
            seconds += c.seconds
        return seconds

    def replay(self, group: str, timeout: float) -> Check:
        """`python -m hostile replay` of HOSTILE_REPLAYED[group]'s regression inputs, in the
        copy (the targets call the copy's refimpl), writing no bytecode."""
        argv = ["env", "PYTHONDONTWRITEBYTECODE=1", self.python, "-m", "hostile", "replay"] + list(
            HOSTILE_REPLAYED[group])
        return run_check(argv, self.mutant_dir, timeout, self.nice)

    def in_copy_run(self, engine: str, timeout: float) -> Check:
        """`conformance run --engine ENGINE` on the suite, started in the copy: the engine
        (one of IN_COPY_ENGINES) runs the copy's refimpl in-process, writing no bytecode."""
        argv = ["env", "PYTHONDONTWRITEBYTECODE=1"] + run_argv(engine, self.repros, self.python, self.suite)
        return run_check(argv, self.mutant_dir, timeout, self.nice)

    def regenerate(self, group: str, timeout: float) -> Check:
        """`conformance generate --only GROUP` with the copy's refimpl, compared with the
        clone's checked-in file: exit 0 when equal; 1 when it differs or generation
        fails (the tail says which, and where); None past `timeout`."""
        out = self.clone / ".regenerated"
        shutil.rmtree(out, ignore_errors=True)
        c = run_check(generate_argv(group, out, self.python), self.mutant_dir, timeout, self.nice)
        if c.rc is None:
            return c
        if c.rc != 0:
            return Check(1, c.seconds, "generate --only %s failed (exit %d):\n%s" % (group, c.rc, c.tail))
        where = first_difference(out / (group + ".jsonl"), self.clone / "conformance" / "suite" / (group + ".jsonl"))
        if where is not None:
            return Check(1, c.seconds, "%s.jsonl regenerated differs: %s" % (group, where))
        return Check(0, c.seconds, "%s.jsonl regenerated as checked in" % group)

    def suite_check(self, group: str) -> Check:
        """The check of a mutant of `group` with the copy as it is now: `conformance run`
        through the worker, or for a group of REGENERATED its suite group regenerated; for
        a group of IN_COPY_ENGINES, HOSTILE_REPLAYED or ALSO_REGENERATED, a run that finds
        nothing is followed by that engine's run in the copy, that replay, and that
        regeneration, in this order, each only while the ones before found nothing."""
        if group in REGENERATED:
            return self.regenerate(REGENERATED[group], self.generate_timeouts.get(REGENERATED[group], 600.0))
        assert self.run_timeout is not None
        run = run_check(run_argv(self.backend, self.repros, self.python, self.suite, self.supported), self.clone,
                        self.run_timeout, self.nice)
        for engine in IN_COPY_ENGINES.get(group, ()):
            if run.rc != 0:
                break
            run = _then(run, self.in_copy_run(engine, self.in_copy_timeouts.get(engine, 600.0)))
        if run.rc == 0 and group in HOSTILE_REPLAYED:
            again = self.replay(group, self.replay_timeouts.get(group, 600.0))
            run = _then(run, again)
        if run.rc != 0 or group not in ALSO_REGENERATED:
            return run
        again = self.regenerate(ALSO_REGENERATED[group], self.generate_timeouts.get(ALSO_REGENERATED[group], 600.0))
        return _then(run, again)

    def check(self, mutant: Mutant, fuzz: bool = True, run: Optional[Check] = None) -> Dict[str, Any]:
        """Apply `mutant` to the copy (cosmic-ray), run the checks, restore the copy's file."""
        original = (self.clone / mutant.path).read_text(encoding="utf-8")
        return self.check_source(mutant, mutate(original, mutant), fuzz, run)

    def check_source(self, mutant: Mutant, mutated: Optional[str], fuzz: bool = True,
                     run: Optional[Check] = None) -> Dict[str, Any]:
        """Put `mutated` (None: the mutation did not apply) in place of the mutant's file in
        the copy, run the checks (`run` given: the suite's verdict is known, only fuzz),
        restore the file; the result as results.jsonl has it."""
        target = self.mutant_dir / mutant.path
        original = (self.clone / mutant.path).read_text(encoding="utf-8")
        result: Dict[str, Any] = {"key": mutant.key, "path": mutant.path, "operator": mutant.operator,
                                  "occurrence": mutant.occurrence, "line": mutant.line, "group": mutant.group}
        if mutated is None:
            result["outcome"] = NO_MUTATION
            return result
        result["before"], result["after"] = changed_lines(original, mutated)
        target.write_text(mutated, encoding="utf-8")
        if mutant.group in REGENERATED:
            result["check"] = "generate --only %s" % REGENERATED[mutant.group]
        elif mutant.group in ALSO_REGENERATED:
            result["check"] = "run, %sthen generate --only %s" % (
                "then hostile replay, " if mutant.group in HOSTILE_REPLAYED else "", ALSO_REGENERATED[mutant.group])
        elif mutant.group in IN_COPY_ENGINES:
            result["check"] = "run, then run --engine %s in the copy" % ", ".join(IN_COPY_ENGINES[mutant.group])
        try:
            if run is None:
                run = self.suite_check(mutant.group)
            result["run"] = dataclasses.asdict(run)
            f = None
            if run.rc == 0 and fuzz and self.fuzz_seconds > 0 and mutant.group not in REGENERATED:
                argv = fuzz_argv(self.backend, self.fuzz_seconds, self.seed, self.repros, self.python)
                f = run_check(argv, self.clone, self.fuzz_seconds + 120, self.nice)
                result["fuzz"] = dataclasses.asdict(f)
            result["outcome"] = verdict(run, f)
        finally:
            target.write_text(original, encoding="utf-8")
        return result


# ----------------------------------------------------------------------------- review, scores


def load_review(path: str = REVIEW_FILE) -> List[Dict[str, str]]:
    """The reviewed survivors: [{path, operator, before, after, verdict, reason}]."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return list(json.load(f)["mutants"])


def review_of(result: Dict[str, Any], review: Iterable[Dict[str, str]]) -> Optional[Dict[str, str]]:
    """The review entry for a result: the same file, operator and changed text (so a
    review survives line shifts elsewhere in the file)."""
    for r in review:
        if (r["path"], r["operator"], r["before"], r["after"]) == (
                result["path"], result["operator"], result.get("before"), result.get("after")):
            return r
    return None


def is_display(entry: Optional[Dict[str, str]]) -> bool:
    """A review entry of an equivalent mutant that changes only text meant for people
    (names, error messages, debugging dumps, diagnostic counters): equivalent for the
    masks the oracle compares, not for every reader. The reports count these apart."""
    return entry is not None and entry.get("reason", "").startswith("display only")


def classify(result: Dict[str, Any], review: Iterable[Dict[str, str]]) -> str:
    """`killed`, `equivalent` (a reviewed survivor no input can tell apart), `missed` (any
    other survivor, reviewed or not) or `void` (no mutation, harness error: not scored).

    >>> r = {"path": "refimpl/x.py", "operator": "core/AddNot", "before": "if a:", "after": "if not a:"}
    >>> [classify(dict(r, outcome=o), []) for o in ("killed-run", "timeout-fuzz", "survived", "no-mutation")]
    ['killed', 'killed', 'missed', 'void']
    >>> classify(dict(r, outcome="survived"), [dict(r, verdict="equivalent", reason="a is always true")])
    'equivalent'
    """
    outcome = result["outcome"]
    if outcome in KILLED:
        return "killed"
    if outcome != SURVIVED:
        return "void"
    r = review_of(result, review)
    return "equivalent" if r is not None and r["verdict"] == "equivalent" else "missed"


def scores(results: Iterable[Dict[str, Any]], review: Sequence[Dict[str, str]]) -> Dict[str, Dict[str, Any]]:
    """Per group and in total: mutants, killed by the suite alone, killed by suite + fuzz,
    equivalent (of which display-only), missed; the two scores over the non-equivalent
    mutants, and the strict score that counts display-only mutants as missed.

    >>> rs = [{"group": "lexer", "outcome": o, "path": "p", "operator": "o", "before": b, "after": "x"}
    ...       for o, b in [("killed-run", "1"), ("killed-fuzz", "2"), ("survived", "3"), ("survived", "4")]]
    >>> s = scores(rs, [{"path": "p", "operator": "o", "before": "4", "after": "x", "verdict": "equivalent"}])["lexer"]
    >>> s["non_equivalent"], s["killed_run"], s["killed"], s["run_score"], s["score"]
    (3, 1, 2, 33.3, 66.7)
    """
    out: Dict[str, Dict[str, Any]] = {}
    for r in results:
        for g in (r["group"], "total"):
            s = out.setdefault(g, {"mutants": 0, "void": 0, "killed_run": 0, "killed": 0, "equivalent": 0, "display": 0,
                                   "missed": 0})
            c = classify(r, review)
            s["mutants"] += 1
            if c == "void":
                s["void"] += 1
            elif c == "killed":
                s["killed"] += 1
                s["killed_run"] += r["outcome"] in KILLED_BY_RUN
            else:
                s[c] += 1
                s["display"] += c == "equivalent" and is_display(review_of(r, review))
    for s in out.values():
        s["non_equivalent"] = s["killed"] + s["missed"]
        n = s["non_equivalent"] or 1
        s["run_score"] = round(100.0 * s["killed_run"] / n, 1)
        s["score"] = round(100.0 * s["killed"] / n, 1)
        s["run_interval"] = interval(s["killed_run"], s["non_equivalent"])
        s["interval"] = interval(s["killed"], s["non_equivalent"])
        s["strict_score"] = round(100.0 * s["killed"] / ((s["non_equivalent"] + s["display"]) or 1), 1)
    return dict(sorted(out.items(), key=lambda kv: (kv[0] == "total", kv[0])))


def interval(k: int, n: int, z: float = 1.96) -> Tuple[float, float]:
    """The Wilson score interval (95% for z = 1.96) of a proportion k/n, in percent: the
    confidence a group's score has with n mutants scored.

    >>> interval(12, 12), interval(9, 10)
    ((75.7, 100.0), (59.6, 98.2))
    """
    if n == 0:
        return (0.0, 100.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (round(100 * max(0.0, centre - half), 1), round(100 * min(1.0, centre + half), 1))


def markdown(meta: Dict[str, Any], results: Sequence[Dict[str, Any]], review: Sequence[Dict[str, str]]) -> str:
    """The report: the scores per group, then every survivor with its verdict."""
    s = scores(results, review)
    lines = ["# Mutation report", "",
             "refimpl at `%s`, conformance at `%s`; %d mutants sampled (seed %d) of %d; fuzz %g s (seed %d)."
             % (meta["refimpl_rev"], meta["conformance_rev"], len(results), meta["seed"], meta["population"],
                meta["fuzz_seconds"], meta["seed"]), "",
             "| group | mutants | killed by run | killed by run + fuzz | equivalent (display only) | missed "
             "| run score | run + fuzz score | strict |",
             "|---|---|---|---|---|---|---|---|---|"]
    for g, x in s.items():
        lines.append("| %s | %d | %d | %d | %d (%d) | %d | %.1f%% | %.1f%% | %.1f%% |" % (
            g, x["mutants"] - x["void"], x["killed_run"], x["killed"], x["equivalent"], x["display"], x["missed"],
            x["run_score"], x["score"], x["strict_score"]))
    outcomes: Dict[str, int] = {}
    for r in results:
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
    lines += ["", "Outcomes: " + ", ".join("%s %d" % kv for kv in sorted(outcomes.items())), ""]
    for title, want in (("Missed (survivors that are not equivalent)", "missed"), ("Equivalent", "equivalent")):
        rows = [r for r in results if classify(r, review) == want]
        lines += ["## %s: %d" % (title, len(rows)), ""]
        for r in rows:
            rv = review_of(r, review)
            lines.append("- `%s` line %d, %s: `%s` -> `%s`%s" % (
                r["path"], r["line"], r["operator"].split("/")[-1], r.get("before", ""), r.get("after", ""),
                " — " + rv["reason"] if rv else " — not reviewed"))
        lines.append("")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- the campaign


def git(*args: str, cwd: Optional[Path] = None) -> str:
    return subprocess.run(["git", *args], cwd=str(cwd) if cwd else None, check=True, capture_output=True,
                          text=True).stdout.strip()


def prepare_clone(source: str, clone: Path, rev: str, refimpl_rev: Optional[str]) -> Tuple[str, str]:
    """A fresh clone of `source` at `rev`, refimpl/ taken from `refimpl_rev` if given;
    returns the two commits."""
    if clone.exists():
        shutil.rmtree(clone)
    git("clone", "--quiet", source, str(clone))
    git("checkout", "--quiet", "--detach", rev, cwd=clone)
    conformance_rev = git("rev-parse", "HEAD", cwd=clone)
    if refimpl_rev:
        git("checkout", refimpl_rev, "--", "refimpl", cwd=clone)
        return git("rev-parse", refimpl_rev, cwd=clone), conformance_rev
    return conformance_rev, conformance_rev


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python tools/mutation.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sample", type=int, default=200, help="mutants drawn (default 200)")
    p.add_argument("--seed", type=int, default=0, help="sample and fuzz seed (default 0)")
    p.add_argument("--fuzz-seconds", type=float, default=60.0, help="fuzz budget per run survivor (default 60; 0: none)")
    p.add_argument("--groups", default="engine",
                   help="a family of module groups (%s; default engine) or groups of one family, comma-separated: %s"
                        % (", ".join(FAMILIES), "; ".join("%s: %s" % (f, ",".join(g)) for f, g in FAMILIES.items())))
    p.add_argument("--per-group", type=int, metavar="N",
                   help="draw N mutants of each group (instead of --sample's square-root shares)")
    p.add_argument("--table", metavar="CAMPAIGN",
                   help="print the per-group table of a campaign folder (one results folder per group, as "
                        "--out made them) and, with --docs, write it into the page's block; nothing is run")
    p.add_argument("--docs", metavar="PAGE", help="with --table: the Markdown page whose block to rewrite")
    p.add_argument("--source", default=str(Path(__file__).resolve().parent.parent), help="repository to clone")
    p.add_argument("--rev", default="HEAD", help="commit of the source for conformance (default HEAD)")
    p.add_argument("--refimpl-rev", help="commit whose refimpl/ is mutated (default: --rev)")
    p.add_argument("--clone", default="/tmp/mutation-clone", help="the clone (made afresh unless --resume)")
    p.add_argument("--out", default="mutation-report", help="results and reports (default mutation-report/)")
    p.add_argument("--resume", action="store_true", help="keep the clone and the results so far")
    p.add_argument("--phase", choices=("all", "run", "fuzz"), default="all",
                   help="run: the suite only; fuzz: fuzz the run survivors of earlier results; all: both")
    p.add_argument("--nice", type=int, default=15, help="niceness of the checks (default 15)")
    p.add_argument("--report-only", action="store_true", help="rewrite the reports from results.jsonl")
    p.add_argument("--carry", metavar="RESULTS",
                   help="results.jsonl of an earlier campaign on the same refimpl whose suite this one extends: the "
                        "mutants its `run` killed are taken as killed (the same vectors still disagree), and its "
                        "survivors the review calls equivalent as survivors; neither is run again")
    p.add_argument("--only", metavar="KEYS",
                   help="mutant keys, comma-separated: check these; take every other result from --carry as it is "
                        "(a lower bound: a new vector can only kill more)")
    p.add_argument("--exclude", metavar="CAMPAIGN", action="append", default=[],
                   help="a campaign folder (results.jsonl files below it) whose mutants are left out of the "
                        "population: a held-out sample draws none that an earlier, working sample drew "
                        "(repeatable; matched by key, file:operator:occurrence)")
    p.add_argument("--test-equivalent", action="store_true",
                   help="run and fuzz also the mutants tools/mutation_review.json calls equivalent (default: skip)")
    args = p.parse_args(argv)
    for folder in args.exclude:
        if not Path(folder).is_dir():
            print("error: --exclude %s: not a folder" % folder, file=sys.stderr)
            return 2
    if args.table:
        return write_table(Path(args.table), Path(args.docs) if args.docs else None)

    out, clone = Path(args.out), Path(args.clone)
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / "results.jsonl"
    meta_path = out / "meta.json"
    if not args.report_only:
        if not args.resume or not clone.exists():
            refimpl_rev, conformance_rev = prepare_clone(args.source, clone, args.rev, args.refimpl_rev)
            meta = {"refimpl_rev": refimpl_rev[:12], "conformance_rev": conformance_rev[:12], "seed": args.seed,
                    "fuzz_seconds": args.fuzz_seconds, "sample": args.sample}
        else:
            meta = json.loads(meta_path.read_text())
        groups = chosen_groups(args.groups)
        population = enumerate_mutants(clone, module_files(clone, groups), groups)
        seen = drawn_before(args.exclude)
        population = [m for m in population if m.key not in seen]
        chosen = sample(population, args.sample, args.seed, args.per_group)
        meta["groups"], meta["per_group"] = args.groups, args.per_group
        meta["population"] = len(population)
        if args.exclude:
            meta["excluded"] = sorted(args.exclude)
        meta["population_by_group"] = {g: sum(1 for m in population if m.group == g) for g in groups}
        options = " ".join(sorted({WORKER_OPTIONS[g] for g in groups if g in WORKER_OPTIONS}))
        campaign = Campaign(clone, out, args.fuzz_seconds, args.seed, nice=args.nice, worker_options=options,
                            groups=groups)
        meta["worker_options"] = options
        meta["baseline_seconds"] = round(campaign.baseline(), 1)
        meta_path.write_text(json.dumps(meta, indent=1))
        done = _read_results(results_path) if args.resume or args.phase == "fuzz" else {}
        if not args.resume and args.phase != "fuzz":
            results_path.write_text("")
        carried = _read_results(Path(args.carry)) if args.carry else {}
        review = load_review()
        for i, m in enumerate(chosen):
            prev = done.get(m.key)
            old = carried.get(m.key)
            if prev is None and old is not None and (old["outcome"] in KILLED_BY_RUN or (
                    not args.test_equivalent and classify(old, review) == "equivalent") or (
                    args.only and m.key not in args.only.split(","))):
                done[m.key] = dict(old, carried=args.carry)
                done[m.key].pop("fuzz", None)
                _write_results(results_path, done)
                continue
            if prev is not None and not (args.phase == "fuzz" and prev["outcome"] == SURVIVED and "fuzz" not in prev):
                continue
            if prev is not None and not args.test_equivalent and classify(prev, review) == "equivalent":
                continue  # read as equivalent: no test can kill it
            known_run = Check(**prev["run"]) if prev is not None and "run" in prev else None
            r = campaign.check(m, fuzz=args.phase != "run", run=known_run)
            done[m.key] = r
            _write_results(results_path, done)
            print("%3d/%d %-60s %s" % (i + 1, len(chosen), m.key, r["outcome"]), flush=True)
        meta_path.write_text(json.dumps(meta, indent=1))
    meta = json.loads(meta_path.read_text())
    results = list(_read_results(results_path).values())
    review = load_review()
    (out / "report.json").write_text(json.dumps({"meta": meta, "scores": scores(results, review),
                                                  "results": results}, indent=1))
    (out / "report.md").write_text(markdown(meta, results, review))
    print(markdown(meta, results, review).split("\n## ")[0])
    return 0


# ----------------------------------------------------------------------------- the docs' table

TABLE_HEAD = ("| group | mutants (of) | equivalent (display only) | killed by the suite | killed by suite + fuzz "
              "| suite score [95%] | suite + fuzz score [95%] | time |\n|---|---|---|---|---|---|---|---|")


def table(campaign: Path, review: Optional[Sequence[Dict[str, str]]] = None) -> str:
    """The per-group table of a campaign: one row per results folder under `campaign`
    (one per group, each made by one command), the Wilson intervals of the scores, and the
    time its checks took on the machine that ran them (the baseline run included)."""
    review = load_review() if review is None else review
    rows, everything = [TABLE_HEAD], []
    total_seconds = 0.0
    for folder in sorted(p for p in campaign.iterdir() if (p / "results.jsonl").exists()):
        meta = json.loads((folder / "meta.json").read_text())
        results = list(_read_results(folder / "results.jsonl").values())
        everything += results
        seconds = meta.get("baseline_seconds", 0.0) + sum(
            r.get(k, {}).get("seconds", 0.0) for r in results for k in ("run", "fuzz") if not r.get("carried"))
        total_seconds += seconds
        fuzzed = _fuzzed(results, review)
        for g, x in scores(results, review).items():
            if g != "total":
                rows.append(_row(g, x, meta.get("population_by_group", {}).get(g), seconds, fuzzed))
    if everything:
        rows.append(_row("**total**", scores(everything, review)["total"], None, total_seconds,
                         _fuzzed(everything, review)))
    return "\n".join(rows)


def _fuzzed(results: Sequence[Dict[str, Any]], review: Sequence[Dict[str, str]]) -> bool:
    """Whether every missed survivor was also fuzzed (else the suite + fuzz score is not
    measured). A survivor of a REGENERATED group needs no fuzzing: the fuzzer's grammars
    go through a worker, which never runs that code, so its suite score is its score."""
    return all("fuzz" in r for r in results if classify(r, review) == "missed" and r.get("group") not in REGENERATED)


def _row(name: str, x: Dict[str, Any], population: Optional[int], seconds: float, fuzzed: bool = True) -> str:
    ne = x["non_equivalent"]
    both = ("%d/%d" % (x["killed"], ne), "%.1f%% [%.0f–%.0f]" % (x["score"], x["interval"][0], x["interval"][1])
            ) if fuzzed else ("fuzz not run", "")
    return "| %s | %d%s | %d (%d) | %d/%d | %s | %.1f%% [%.0f–%.0f] | %s | %d min |" % (
        name, x["mutants"] - x["void"], " (%d)" % population if population else "", x["equivalent"], x["display"],
        x["killed_run"], ne, both[0], x["run_score"], x["run_interval"][0], x["run_interval"][1], both[1],
        round(seconds / 60))


def markers(name: str, kind: str = "mutation") -> Tuple[str, str]:
    """The comments that open and close a page's generated block `kind` for `name` (a
    mutation campaign; tools/suite_coverage.py's blocks are of kind `coverage`)."""
    return "<!-- BEGIN %s %s -->" % (kind, name), "<!-- END %s %s -->" % (kind, name)


def write_table(campaign: Path, page: Optional[Path]) -> int:
    """Print the table; with `page`, rewrite its block `<!-- BEGIN mutation NAME -->` ...
    `<!-- END mutation NAME -->` (NAME: the campaign folder's name)."""
    if not campaign.is_dir():
        print("error: --table %s: not a folder" % campaign, file=sys.stderr)
        return 2
    text = table(campaign)
    print(text)
    return 0 if page is None else write_block(page, markers(campaign.name), text)


def write_block(page: Path, marks: Tuple[str, str], text: str) -> int:
    """Rewrite the page's block between the comments `marks` with `text`; 2 (with the
    error on standard error) when the page cannot be read or has no such block."""
    begin, end = marks
    try:
        doc = page.read_text(encoding="utf-8")
    except OSError as e:
        print("error: --docs %s: %s" % (page, e.strerror), file=sys.stderr)
        return 2
    if begin not in doc or end not in doc:
        print("error: --docs %s: no block %s ... %s" % (page, begin, end), file=sys.stderr)
        return 2
    head, rest = doc.split(begin, 1)
    page.write_text(head + begin + "\n" + text + "\n" + end + rest.split(end, 1)[1], encoding="utf-8")
    return 0


def block(page: Path, name: str, kind: str = "mutation") -> Optional[str]:
    """The text of a page's generated block `kind` for `name` (None if it has none)."""
    doc = page.read_text(encoding="utf-8")
    begin, end = markers(name, kind)
    begin, end = begin + "\n", "\n" + end
    if begin not in doc:
        return None
    return doc.split(begin, 1)[1].split(end, 1)[0]


def drawn_before(campaigns: Iterable[str]) -> Set[str]:
    """The keys of the mutants of earlier campaigns (every results.jsonl below each folder),
    which `--exclude` leaves out of a new sample."""
    return {key for folder in campaigns for f in sorted(Path(folder).glob("**/results.jsonl"))
            for key in _read_results(f)}


def _read_results(path: Path) -> Dict[str, Dict[str, Any]]:
    if not path.exists():
        return {}
    rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return {r["key"]: r for r in rows}


def _write_results(path: Path, results: Dict[str, Dict[str, Any]]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r) + "\n" for r in sorted(results.values(), key=lambda r: r["key"])))
    tmp.replace(path)


if __name__ == "__main__":
    sys.exit(main())
