"""Shared workloads and measurements for the asv benchmarks (benchmarks/asv_*.py) and for
`python -m benchmarks.compare`.

Importing this module reads one small data file (json.gbnf, from tests/data) and nothing
else: vocabularies are loaded, backends checked (which for "pypy" means starting pypy3),
and the clock calibrated only when a function here is called.

Metrics (docs/benchmarks.md):
  fresh_ms       best first mask of a fresh matcher of a grammar already used (one
                 Matcher per request; llguidance's mask_ms is this already)
  mask_ms        best wall-clock time of one mask in the calling process (for "pypy":
                 including the round trip to the worker; for llguidance: the best first
                 mask of fresh matchers, since it caches masks per state)
  nodes          refimpl's stats["trie_nodes_walked"] for that mask (the same for every
                 maskref backend; llguidance's own count is not exposed, so its ns/node
                 divides its time by refimpl's count on the same workload)
  ns_per_node    in-process mask time / nodes (for "pypy", the worker's own mask_ns, so
                 the pipe is not counted)
  compile_ms     building the grammar and the matcher (the vocabulary's trie is built
                 beforehand and not counted)
  cycles_per_node  ns_per_node x the clock measured by `calibrate_ghz()` — an estimate
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import platform
import subprocess
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

BACKENDS = ["python", "native", "pypy", "llguidance"]
VOCABS = ["gpt2", "tekken"]

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name", "age", "tags"],
    "additionalProperties": False,
}

# A mid-size Lark grammar: a small C-like language of statements and expressions.
C_LIKE = r"""
start: stmt+
stmt: IDENT "=" expr ";"
    | "if" "(" expr ")" block ("else" block)?
    | "while" "(" expr ")" block
    | "return" expr ";"
    | expr ";"
block: "{" stmt* "}"
expr: expr "||" and_ | and_
and_: and_ "&&" cmp | cmp
cmp: sum (("==" | "!=" | "<" | ">" | "<=" | ">=") sum)?
sum: sum ("+" | "-") term | term
term: term ("*" | "/" | "%") unary | unary
unary: ("-" | "!") unary | call
call: atom ("(" (expr ("," expr)*)? ")")*
atom: IDENT | NUMBER | STRING | "(" expr ")"
IDENT: /[a-zA-Z_][a-zA-Z0-9_]*/
NUMBER: /[0-9]+(\.[0-9]+)?/
STRING: /"[^"\\\n]*"/
%ignore /[ \t\n]+/
"""

# llama.cpp's grammars/json.gbnf (MIT license, ggml-org/llama.cpp; tests/data/grammar_cases.json
# holds it with its commit), and the same JSON in maskref's Lark dialect: the GBNF frontend
# should find lexemes as good as these terminals
_CASES = os.path.join(os.path.dirname(__file__), os.pardir, "tests", "data", "grammar_cases.json")
with open(_CASES, encoding="utf-8") as _f:
    JSON_GBNF = next(c["grammar"] for c in json.load(_f)["compile_cases"] if c["source"] == "grammars/json.gbnf")
JSON_LARK = r"""
start: object
value: object | array | STRING | NUMBER | "true" | "false" | "null"
object: "{" (pair ("," pair)*)? "}"
pair: STRING ":" value
array: "[" (value ("," value)*)? "]"
STRING: /"([^"\\\x00-\x1F\x7F]|\\(["\\bfnrt]|u[0-9a-fA-F]{4}))*"/
NUMBER: /-?(0|[1-9][0-9]{0,15})(\.[0-9]+)?([eE][-+]?[0-9][1-9]{0,15})?/
%ignore /[ \t\n]+/
"""

# name -> (kind, source, prefix consumed before the mask, slices on?)
WORKLOADS: Dict[str, Tuple[str, Any, bytes, bool]] = {
    "full-walk": ("regex", '[^"]*', b"", False),
    "digits": ("regex", "[0-9]+", b"", False),
    "json-in-string": ("json", SCHEMA, b'{"name": "ab', False),
    "json-in-string-sliced": ("json", SCHEMA, b'{"name": "ab', True),
    "json-between-keys": ("json", SCHEMA, b'{"name": "ab", ', False),
    "json-between-keys-sliced": ("json", SCHEMA, b'{"name": "ab", ', True),
    "json-in-number": ("json", SCHEMA, b'{"name": "ab", "age": 12', False),
    "json-in-number-sliced": ("json", SCHEMA, b'{"name": "ab", "age": 12', True),
    "lark-c-like": ("lark", C_LIKE, b"x = foo(a + 1, b", False),
    "lark-json-in-string": ("lark", JSON_LARK, b'{"name": "ab', False),
    "gbnf-json-in-string": ("gbnf", JSON_GBNF, b'{"name": "ab', False),
    "lark-json-between-keys": ("lark", JSON_LARK, b'{"name": "ab", ', False),
    "gbnf-json-between-keys": ("gbnf", JSON_GBNF, b'{"name": "ab", ', False),
}

RECURSION = "start: s\ns: \"a\" s | \"\"\n"
RECURSION_N = [1000, 10000]

_VOCABS: Dict[str, Any] = {}


class Skip(Exception):
    """This combination cannot be measured here (the message says why)."""


def vocab(name: str):
    if name not in _VOCABS:
        from refimpl import Vocabulary

        from .vocabs import tekken

        v = Vocabulary.load("gpt2") if name == "gpt2" else tekken()
        if v is None:
            raise Skip("Tekken skipped: install the bench extra (mistral-common)")
        _ = v.trie  # build it now, so that compile times do not include it
        _VOCABS[name] = v
    return _VOCABS[name]


_REASONS: Optional[Dict[str, Optional[str]]] = None


def backend_reasons() -> Dict[str, Optional[str]]:
    """Each of BACKENDS -> None if usable here, else why not (starts pypy3 once)."""
    global _REASONS
    if _REASONS is None:
        try:
            import accel

            r = dict(accel.available_backends())
        except ImportError as e:
            r = {"python": None, "native": "accel not importable: %s" % e, "pypy": "accel not importable"}
        try:
            import llguidance  # noqa: F401

            r["llguidance"] = None
        except ImportError:
            r["llguidance"] = "llguidance not installed (the peers extra)"
        _REASONS = {b: r.get(b, "unknown backend") for b in BACKENDS}
    return _REASONS


def grammar(kind: str, source: Any):
    from refimpl import Grammar

    if kind == "regex":
        return Grammar.from_regex(source)
    if kind == "lark":
        return Grammar.from_lark(source)
    if kind == "gbnf":
        return Grammar.from_gbnf(source)
    return Grammar.from_json_schema(source)


def best_of(fn: Callable[[], Any], n: int, budget: float = 2.0, minimum: int = 3) -> float:
    """The best of up to n timings of fn(), stopping after `budget` seconds (>= minimum runs)."""
    best = float("inf")
    start = time.perf_counter()
    for i in range(n):
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        best = min(best, t1 - t0)
        if i + 1 >= minimum and t1 - start > budget:
            break
    return best


# -- llguidance ---------------------------------------------------------------------------

_LLG_TOK: Dict[Tuple[str, bool], Any] = {}


def _llg_tokenizer(vname: str, sliced: bool):
    from conformance.peers import llguidance as llg

    key = (vname, sliced)
    if key not in _LLG_TOK:
        _LLG_TOK[key] = llg.tokenizer(vocab(vname), slices=None if sliced else [])
    return _LLG_TOK[key]


def _llg_source(kind: str, source: Any) -> Tuple[str, str]:
    if kind == "json":
        return "lark", "start: %%json %s" % json.dumps(source)
    if kind == "gbnf":  # through llguidance's own converter
        from llguidance.gbnf_to_lark import gbnf_to_lark

        return "lark", gbnf_to_lark(source)
    return kind, source


def _byte_tokens(vname: str, data: bytes) -> List[int]:
    """`data` as single-byte tokens (llguidance is byte-level: any tokenisation will do)."""
    v = vocab(vname)
    index = {t: i for i, t in enumerate(v.tokens) if len(t) == 1 and i not in v.special_token_ids}
    return [index[bytes([b])] for b in data]


def measure_llguidance(vname: str, workload: str, repeat: int = 20) -> Dict[str, float]:
    from conformance.peers import llguidance as llg

    kind, source, prefix, sliced = WORKLOADS[workload]
    tok = _llg_tokenizer(vname, sliced)
    lkind, lsource = _llg_source(kind, source)
    after = _byte_tokens(vname, prefix)
    t0 = time.perf_counter()
    llg.matcher(tok, lkind, lsource)
    compile_s = time.perf_counter() - t0
    mask_s = llg.first_mask_seconds(tok, lkind, lsource, repeat=repeat, after=after)
    return {"mask_ms": mask_s * 1e3, "compile_ms": compile_s * 1e3, "inproc_s": mask_s}


# -- maskref backends ---------------------------------------------------------------------

REPEATS = {"python": 7, "native": 100, "pypy": 30}


def measure(vname: str, workload: str, backend: str) -> Dict[str, float]:
    """mask_ms, nodes, ns_per_node, compile_ms for one backend on one workload."""
    reason = backend_reasons().get(backend, "unknown backend")
    if reason is not None:
        raise Skip("%s: %s" % (backend, reason))
    v = vocab(vname)
    if backend == "llguidance":
        out = measure_llguidance(vname, workload)
        # llguidance does not report its nodes: divide by refimpl's count on the same mask
        out["nodes"] = nodes_walked(vname, workload)
        out["ns_per_node"] = out.pop("inproc_s") * 1e9 / out["nodes"]
        return out
    from refimpl import open_matcher

    kind, source, prefix, sliced = WORKLOADS[workload]
    t0 = time.perf_counter()
    g = grammar(kind, source)
    m = open_matcher(g, v, backend=backend, slices=None if sliced else [])
    compile_s = time.perf_counter() - t0
    try:
        if prefix and not m.consume_bytes(prefix):
            raise AssertionError("%s: prefix %r rejected" % (workload, prefix))
        m.mask()  # warm the lexer's transition table (and PyPy's JIT)
        m.mask()
        inproc = []

        def one():
            m.mask()
            ns = getattr(m, "last_mask_ns", None)
            if ns is not None:
                inproc.append(ns / 1e9)

        mask_s = best_of(one, REPEATS[backend])
        nodes = m.stats["trie_nodes_walked"]
    finally:
        m.close()
    inproc_s = min(inproc) if inproc else mask_s
    return {
        "fresh_ms": fresh_mask_seconds(g, v, backend, prefix, sliced) * 1e3,
        "mask_ms": mask_s * 1e3,
        "nodes": nodes,
        "ns_per_node": inproc_s * 1e9 / max(nodes, 1),
        "compile_ms": compile_s * 1e3,
    }


def fresh_mask_seconds(g: Any, v: Any, backend: str, prefix: bytes, sliced: bool, repeat: int = 10) -> float:
    """The best first mask of a fresh matcher of the (already used) grammar `g`, after the
    prefix: serving's case, one Matcher per request (as llguidance's figure)."""
    from refimpl import open_matcher

    best = float("inf")
    for _ in range(repeat):
        m = open_matcher(g, v, backend=backend, slices=None if sliced else [])
        try:
            if prefix:
                m.consume_bytes(prefix)
            t0 = time.perf_counter()
            m.mask()
            best = min(best, time.perf_counter() - t0)
        finally:
            m.close()
    return best


_NODES: Dict[Tuple[str, str], int] = {}


def nodes_walked(vname: str, workload: str) -> int:
    key = (vname, workload)
    if key not in _NODES:
        from refimpl import Matcher

        kind, source, prefix, sliced = WORKLOADS[workload]
        m = Matcher(grammar(kind, source), vocab(vname), slices=None if sliced else [])
        m.consume_bytes(prefix)
        m.mask()
        _NODES[key] = m.stats["trie_nodes_walked"]
    return _NODES[key]


def measure_recursion(backend: str, n: int) -> Dict[str, float]:
    """Consume n bytes of `s: "a" s | ""` (right recursion: Leo items keep it linear);
    the time, and the parser's rows/items afterwards."""
    reason = backend_reasons().get(backend, "unknown backend")
    if reason is not None:
        raise Skip("%s: %s" % (backend, reason))
    data = b"a" * n
    if backend == "llguidance":
        from conformance.peers import llguidance as llg

        tok = _llg_tokenizer("gpt2", False)
        ids = _byte_tokens("gpt2", b"a")
        best = float("inf")
        for _ in range(3):
            m = llg.matcher(tok, "lark", RECURSION)
            t0 = time.perf_counter()
            for _ in range(n):
                m.consume_token(ids[0])
            best = min(best, time.perf_counter() - t0)
            assert not m.is_error(), m.get_error()
        return {"consume_ms": best * 1e3, "rows": float("nan"), "items": float("nan")}
    from refimpl import Grammar, open_matcher

    g = Grammar.from_lark(RECURSION)
    v = vocab("gpt2")
    best = float("inf")
    stats: Dict[str, int] = {}
    for _ in range(3):
        m = open_matcher(g, v, backend=backend, slices=[])
        try:
            t0 = time.perf_counter()
            ok = m.consume_bytes(data)  # the recognizer consumes it byte by byte
            best = min(best, time.perf_counter() - t0)
            assert ok
            m.is_accepting()
            stats = dict(m.stats)
        finally:
            m.close()
    return {"consume_ms": best * 1e3, "rows": stats.get("rows", float("nan")), "items": stats.get("items", float("nan"))}


# -- the clock ----------------------------------------------------------------------------

_CALIB_C = r"""
#include <time.h>
/* ns taken by iters x 1000 dependent 1-cycle adds (latency 1 on every x86-64 core): a
   register added to itself, since recent cores' renamers fold a chain of immediate adds
   (addq $1 ran at "23 GHz" on a Golden Cove Xeon) */
long long dep_adds(long long iters) {
    struct timespec a, b;
    unsigned long long x = 1;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long long i = 0; i < iters; i++) {
        __asm__ volatile(".rept 1000\n\taddq %0, %0\n\t.endr" : "+r"(x));
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) + (x & 0);
}
"""

_GHZ: Optional[Tuple[float, str]] = None


def _calibration_lib():
    if platform.machine() not in ("x86_64", "AMD64"):
        raise OSError("the calibration loop is x86-64 assembly")
    digest = hashlib.sha1(_CALIB_C.encode()).hexdigest()[:12]
    path = os.path.join(tempfile.gettempdir(), "maskref-calib-%s-%d.so" % (digest, os.getuid()))
    if not os.path.exists(path):
        src = path[:-3] + ".c"
        with open(src, "w") as f:
            f.write(_CALIB_C)
        tmp = path + ".%d" % os.getpid()
        subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", tmp, src], check=True, capture_output=True)
        os.replace(tmp, path)
    lib = ctypes.CDLL(path)
    lib.dep_adds.restype = ctypes.c_longlong
    lib.dep_adds.argtypes = [ctypes.c_longlong]
    return lib


def calibrate_ghz() -> Tuple[float, str]:
    """(cycles per ns, how it was measured). A chain of dependent adds, each one cycle,
    timed with CLOCK_MONOTONIC: the best of several 20M-cycle runs after a warm-up, so
    the core's actual (turbo) clock, not the nominal one. Fallback: /proc/cpuinfo's MHz,
    which is *not* the real clock."""
    global _GHZ
    if _GHZ is None:
        try:
            lib = _calibration_lib()
            lib.dep_adds(100_000)  # warm-up: let the clock ramp
            iters = 20_000
            best_ns = min(lib.dep_adds(iters) for _ in range(7))
            _GHZ = (iters * 1000 / best_ns, "measured: dependent-add loop")
        except (OSError, subprocess.CalledProcessError, FileNotFoundError) as e:
            mhz = None
            try:
                with open("/proc/cpuinfo") as f:
                    for line in f:
                        if line.startswith("cpu MHz"):
                            mhz = float(line.split(":")[1])
                            break
            except OSError:
                pass
            _GHZ = ((mhz or float("nan")) / 1e3, "nominal /proc/cpuinfo MHz, NOT measured (%s)" % e)
    return _GHZ


def machine() -> Dict[str, str]:
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    pypy = ""
    try:
        from accel import pypy as _p

        exe = _p.pypy_executable()
        if exe:
            pypy = subprocess.run([exe, "-c", "import sys; print(sys.version.split()[0], sys.pypy_version_info[:3])"],
                                  capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception:
        pass
    llg = ""
    try:
        import importlib.metadata as md

        llg = md.version("llguidance")
    except Exception:
        pass
    return {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "cpu": model or platform.processor() or platform.machine(),
        "cores": str(os.cpu_count()),
        "python": "%s %s" % (platform.python_implementation(), platform.python_version()),
        "pypy": pypy,
        "llguidance": llg,
    }
