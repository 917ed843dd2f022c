"""The pypy backend against CPython's python backend: mask time, a measurement, not a test.

    python -m benchmarks.pypy_speed [--repeat N] [--warmup N] [--items N] [--generations-only | --no-generations]

For each vocabulary (GPT-2; Tekken 131k from tests/data/vocab) and workload, warm masks
only (the lexer table filled, PyPy's JIT warmed by `--warmup` masks first):

  cpython ms   refimpl's Matcher (Python walker) in this (CPython) process
  pypy ms      the same mask inside the PyPy worker (its own clock: `mask_ns`)
  rt ms        the pypy backend's round trip as the caller sees it: request, mask,
               bitmask encoding, base64, pipe, decoding into a Mask
  speed-up     cpython / pypy, and cpython / rt: of the medians, and [of the bests]

Times are the median of `--repeat` masks [best in brackets]. On a loaded machine the
medians of sub-millisecond masks are mostly scheduling noise; the bests are closer to what
an idle machine gives.

Then long generations (GPT-2, the default slices): a JSON array of `--items` objects of a
five-property schema, and a C-like program of `--items` statement groups (the Lark
grammar of benchmarks.compare), token by token (the greedy longest tokens): a mask and a
consume per token, as a server does, on a fresh matcher of a grammar compiled just before
("1st": the grammar's lexer and Earley rows built on the way) and on a second matcher of
the same grammar ("2nd"). Backends: python and native in this process, pypy (the worker,
shared by the whole run: its JIT warm from the first table), refimpl itself run under
PyPy in a process of its own ("pypy in process": `pypy3 -m benchmarks.pypy_speed
--generation-child`), and llguidance. The number of tokens each mask allows is compared
between refimpl's backends (a digest of the counts): the same masks, or an error.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from accel import pypy
from refimpl import Grammar, Matcher, Vocabulary, open_matcher
from refimpl.showing.commandline import ArgumentParser, CommandLineError, command_line, count, positive_int

from . import common

HERE = os.path.dirname(os.path.abspath(__file__))
TEKKEN = os.path.join(HERE, os.pardir, "tests", "data", "vocab", "mistral_nemo_tekken.json.gz")

JSONISH = r"""
start: "{" pair ("," pair)* "}"
pair: KEY ":" value
value: STRING | NUMBER | "true" | "false" | "null" | "[" (value ("," value)*)? "]" | start
KEY: /"[a-z_]+"/
STRING: /"([^"\\\x00-\x1F\x7F]|\\["\\\/bfnrt])*"/
NUMBER: /-?(0|[1-9][0-9]*)(\.[0-9]+)?/
%ignore /[ \t\n\r]+/
"""

#: (label, grammar, slices (None: the default JSON slices), prefix bytes consumed first)
WORKLOADS: List[Tuple[str, Callable[[], Grammar], Optional[Sequence[str]], bytes]] = [
    ("full walk [^\"]*", lambda: Grammar.from_regex('[^"]*'), [], b""),
    ("[0-9]+", lambda: Grammar.from_regex("[0-9]+"), None, b""),
    ("in-string, sliced", lambda: Grammar.from_regex(r'"[^"\\\x00-\x1F\x7F]*"'), None, b'"'),
    ("lark JSON, number", lambda: Grammar.from_lark(JSONISH), None, b'{"key": [1, 23'),
    ("lark JSON, string", lambda: Grammar.from_lark(JSONISH), None, b'{"key": "va'),
]


def vocabularies() -> List[Tuple[str, Vocabulary]]:
    out = [("gpt2", Vocabulary.load("gpt2"))]
    if os.path.exists(TEKKEN):
        out.append(("tekken", Vocabulary.load(TEKKEN)))
    return out


def timed(fn: Callable[[], object], n: int) -> List[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn()
        out.append((time.perf_counter_ns() - t0) / 1e6)
    return out


def fmt(times: List[float]) -> str:
    return "%8.3f [%7.3f]" % (statistics.median(times), min(times))


def _main(argv: Optional[List[str]] = None) -> int:
    parser = ArgumentParser(prog="python -m benchmarks.pypy_speed", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=positive_int, default=20, help="masks timed per workload (default 20)")
    parser.add_argument("--warmup", type=count, default=15, help="masks before timing (default 15)")
    parser.add_argument("--items", type=positive_int, default=40,
                        help="objects of the JSON array, statement groups of the program (default 40)")
    parser.add_argument("--generations-only", action="store_true", help="only the long generations' table")
    parser.add_argument("--no-generations", action="store_true", help="only the warm masks' table")
    parser.add_argument("--generation-child", metavar="WORKLOAD", choices=list(GENERATIONS),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generation_child:  # under PyPy, for the parent's "pypy in process" row
        print(json.dumps(generations("python", args.generation_child, args.items, Vocabulary.load("gpt2"))))
        return 0
    reason = pypy.unavailable_reason()
    if reason is not None:
        raise CommandLineError("cannot measure: %s" % reason)
    if not args.generations_only:
        _masks(args)
    if not args.no_generations:
        print()
        _generations(args.items)
    return 0


def _masks(args: argparse.Namespace) -> None:
    """The first table: warm masks, CPython against the worker."""
    version = subprocess.run([pypy.pypy_executable(), "--version"], capture_output=True, text=True).stdout.split("\n")
    print("%s %s vs %s; %s" % (platform.python_implementation(), platform.python_version(),
                               " ".join(v.strip() for v in version if v.strip()), time.strftime("%Y-%m-%d")))
    print("%-7s %-18s %7s %18s %18s %18s %14s %14s" % (
        "vocab", "workload", "nodes", "cpython ms", "pypy ms", "pypy rt ms", "speed-up", "rt speed-up"))
    ratios = []
    for vname, vocab in vocabularies():
        for label, make, slices, prefix in WORKLOADS:
            grammar = make()
            local = Matcher(grammar, vocab, slices=slices)
            remote = open_matcher(grammar, vocab, backend="pypy", slices=slices)
            assert local.consume_bytes(prefix) and remote.consume_bytes(prefix)
            assert local.mask() == remote.mask()  # the same answer, and both warm
            local_ms = timed(local.mask, max(3, args.repeat // 2))
            nodes = local.stats["trie_nodes_walked"]
            for _ in range(args.warmup):
                remote.mask()
            inside: List[float] = []
            roundtrip: List[float] = []
            for _ in range(args.repeat):
                remote.mask()
                inside.append(remote.last_mask_ns / 1e6)
                roundtrip.append(remote.last_roundtrip_ns / 1e6)
            remote.close()
            r = (
                statistics.median(local_ms) / statistics.median(inside), min(local_ms) / min(inside),
                statistics.median(local_ms) / statistics.median(roundtrip), min(local_ms) / min(roundtrip),
            )
            ratios.append(r)
            print("%-7s %-18s %7d %18s %18s %18s %5.1fx [%5.1fx] %5.1fx [%5.1fx]" % (
                (vname, label, nodes, fmt(local_ms), fmt(inside), fmt(roundtrip)) + r))
    means = [statistics.geometric_mean([r[i] for r in ratios]) for i in range(4)]
    print("geometric mean speed-up: %.1fx [%.1fx] on mask computation, %.1fx [%.1fx] round trip" % tuple(means))


# -- long generations -------------------------------------------------------------------------

ITEM = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"},
                                         "tags": {"type": "array", "items": {"type": "string"}},
                                         "score": {"type": "number"}, "active": {"type": "boolean"}},
        "required": ["id", "name", "tags", "score", "active"], "additionalProperties": False}


def json_document(n: int) -> bytes:
    return json.dumps([{"id": i, "name": "item %d" % i, "tags": ["t%d" % (i % 7), "x"], "score": i * 1.5,
                        "active": i % 2 == 0} for i in range(n)]).encode()


def c_program(n: int) -> bytes:
    return "".join("x%d = foo(a%d + %d, b) * 3;\nif (x%d > 10) { y = x%d - 1; } else { y = 0; }\n"
                   "while (y < 5) { y = y + 1; }\n" % (i, i, i, i, i) for i in range(n)).encode()


#: name -> (grammar kind, source, the document of n items)
GENERATIONS: Dict[str, Tuple[str, str, Callable[[int], bytes]]] = {
    "json-array": ("json_schema", json.dumps({"type": "array", "items": ITEM}), json_document),
    "c-program": ("lark", common.C_LIKE, c_program),
}


def generations(backend: str, name: str, items: int, vocab: Vocabulary) -> Dict[str, Any]:
    """Two generations of the document of `name`, a mask and a consume per token: seconds
    to compile, of each generation, and a digest of the masks' sizes."""
    from .mask_cache import greedy_tokens

    kind, source, document = GENERATIONS[name]
    tokens = greedy_tokens(vocab, document(items))
    t0 = time.perf_counter()
    grammar = Grammar.from_json_schema(source) if kind == "json_schema" else Grammar.from_lark(source)
    compile_s = time.perf_counter() - t0
    out: Dict[str, Any] = {"tokens": len(tokens), "compile_s": compile_s, "seconds": []}
    for _ in range(2):
        sizes = []
        t0 = time.perf_counter()
        with open_matcher(grammar, vocab, backend=backend) as m:
            for t in tokens:
                sizes.append(len(m.mask()))
                if not m.consume(t):
                    raise AssertionError("%s: token %d refused" % (name, t))
        out["seconds"].append(time.perf_counter() - t0)
    out["digest"] = hashlib.sha1(",".join(map(str, sizes)).encode()).hexdigest()[:12]
    return out


def llguidance_generations(name: str, items: int, vocab: Vocabulary) -> Optional[Dict[str, Any]]:
    """The same with llguidance (None if it is not installed)."""
    try:
        import llguidance
    except ImportError:
        return None
    from conformance.peers import llguidance as llg
    from conformance.vectors import GrammarSpec

    from .mask_cache import greedy_tokens

    kind, source, document = GENERATIONS[name]
    tokens = greedy_tokens(vocab, document(items))
    spec = GrammarSpec("json_schema", schema=json.loads(source)) if kind == "json_schema" else GrammarSpec(kind, source)
    tok = llg.tokenizer(vocab)
    out: Dict[str, Any] = {"tokens": len(tokens), "compile_s": float("nan"), "seconds": [], "digest": ""}
    for _ in range(2):
        t0 = time.perf_counter()
        m = llguidance.LLMatcher(tok, llg.grammar_text(spec))
        for t in tokens:
            m.compute_bitmask()
            if not m.consume_token(t):
                raise AssertionError("llguidance refused token %d of %s" % (t, name))
        out["seconds"].append(time.perf_counter() - t0)
    return out


def _in_pypy(name: str, items: int) -> Dict[str, Any]:
    """`generations("python", ...)` run under PyPy, in a process of its own."""
    done = subprocess.run([pypy.pypy_executable() or "pypy3", "-m", "benchmarks.pypy_speed", "--generation-child", name,
                           "--items", str(items)], env=pypy.worker_env(), cwd=pypy.SOURCE_ROOT, capture_output=True,
                          text=True, timeout=3600)
    if done.returncode != 0:
        raise CommandLineError("pypy3 -m benchmarks.pypy_speed --generation-child failed: %s"
                               % (done.stderr.strip().splitlines() or ["exit code %d" % done.returncode])[-1])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _generations(items: int) -> None:
    vocab = Vocabulary.load("gpt2")
    _ = vocab.trie
    import accel

    usable = accel.available_backends()
    print("long generations, GPT-2, %d items: a mask and a consume per token; ms per token" % items)
    print("| workload | tokens | backend | compile s | 1st ms/token | 2nd ms/token | x python (2nd) | x llguidance (2nd) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for name in GENERATIONS:
        rows: Dict[str, Dict[str, Any]] = {}
        for backend in ("python", "native", "pypy"):
            if usable.get(backend) is None:
                rows[backend] = generations(backend, name, items, vocab)
        rows["pypy in process"] = _in_pypy(name, items)
        llg = llguidance_generations(name, items, vocab)
        if llg is not None:
            rows["llguidance"] = llg
        digests = {r["digest"] for b, r in rows.items() if b != "llguidance"}
        if len(digests) != 1:
            raise AssertionError("the backends' masks differ on %s: %s" % (name, {b: r["digest"] for b, r in rows.items()}))
        base = rows["python"]["seconds"][1]
        for backend, r in rows.items():
            n = r["tokens"]
            ratio = "%.2fx" % (r["seconds"][1] / base) if backend != "python" else ""
            to_llg = "%.1fx" % (r["seconds"][1] / llg["seconds"][1]) if llg and backend != "llguidance" else ""
            print("| %s | %d | %s | %.2f | %.3f | %.3f | %s | %s |" % (
                name, n, backend, r["compile_s"], 1e3 * r["seconds"][0] / n, 1e3 * r["seconds"][1] / n, ratio, to_llg))


#: the command (a mistake in the arguments, or no PyPy: one error line, exit status 2)
main = command_line(_main, mistakes=(OSError,))


if __name__ == "__main__":
    raise SystemExit(main())
