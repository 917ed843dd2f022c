"""Engine names: every name `run --engine` and `fuzz --engine` accept, and the engine it
builds.

    refimpl, python         refimpl's Matcher (the reference itself)
    index                   refimpl's Matcher, masks from the token index (regular grammars)
    token-index             refimpl's token index by its own API, built by two processes
    token-index-bare,       the same API, the index built with every step off, and by
    token-index-naive       its definition (naive_index): each step only saves work
    native, pypy, cmd:...   refimpl's Matcher with that backend (accel registers them)
    oracle                  refimpl's naive definition of the mask (small vocabularies)
    llguidance, outlines-core, xgrammar, kbnf, llama.cpp,
    transformers-cfg, lm-format-enforcer            the peers (conformance/peers/), when installed
    xgrammar-default, xgrammar.cpp,
    outlines-core-spec, llama.cpp-spec              another configuration of a peer: its defaults
                                                    where the adapter's differ, or its closest to
                                                    the spec where the adapter runs its defaults
    fault:<name>            injected faults, to test the suite

>>> get_engine("python").name, get_engine("outlines").name, get_engine("cmd:pypy3 -m refimpl.serving.worker").name
('refimpl', 'outlines-core', 'cmd:pypy3 -m refimpl.serving.worker')
"""
from __future__ import annotations

from typing import Callable, Dict, List, Tuple

from refimpl.masks.index import build_index, naive_index

from .engine import Engine
from .faults import FAULTS, PROCESS_FAULTS, FaultEngine
from .isolation import Isolated
from .peers.kbnf import KbnfEngine
from .peers.llama_cpp import LlamaCppEngine
from .peers.llama_cpp.spec import LlamaCppSpecEngine
from .peers.llguidance import LlguidanceEngine
from .peers.outlines_core import OutlinesCoreEngine
from .peers.outlines_core.spec import OutlinesCoreSpecEngine
from .peers.xgrammar import XgrammarEngine
from .peers.xgrammar.converted import XgrammarCppEngine
from .peers.xgrammar.defaults import XgrammarDefaultEngine
from .refimpl_engines import BARE, MatcherEngine, OracleEngine, TokenIndexEngine

ALIASES = {"python": "refimpl", "outlines": "outlines-core", "outlines_core": "outlines-core",
           "llama-cpp": "llama.cpp", "llama_cpp": "llama.cpp",
           "transformers_cfg": "transformers-cfg", "lmfe": "lm-format-enforcer",
           "lm_format_enforcer": "lm-format-enforcer"}


class UnknownEngine(ValueError):
    pass


def _command(name: str) -> Engine:
    if name == "cmd:":
        raise UnknownEngine("cmd: needs a command, e.g. cmd:'pypy3 -m refimpl.serving.worker'")
    return MatcherEngine(name)


def _imported_when_asked(package: str, cls: str, timeout: float) -> Engine:
    """The engine class `cls` of the peer package conformance.peers.`package`, imported only
    when asked for (these peers pull in torch and transformers), isolated in a child process."""
    import importlib

    engine = getattr(importlib.import_module("conformance.peers." + package), cls)()
    return Isolated(engine, timeout=timeout)


def _fault(name: str) -> Engine:
    if name[6:] not in FAULTS and name[6:] not in PROCESS_FAULTS:
        raise UnknownEngine("unknown fault %r (known: %s)" % (name[6:], ", ".join(sorted(FAULTS) + sorted(PROCESS_FAULTS))))
    return FaultEngine(name[6:])


#: (name, or a prefix ending in ':' for a family of names; one-line description; factory
#: called with the full name), in the order `engines` and --help list them
REGISTRY: List[Tuple[str, str, Callable[[str], Engine]]] = [
    ("refimpl", "refimpl's Matcher (python walker); alias: python", lambda name: MatcherEngine("python")),
    ("index", "refimpl's Matcher with the token index (regular grammars only; docs/token-index.md)", MatcherEngine),
    ("token-index", "refimpl's TokenIndex by its own API (mask, next_state), built by two processes "
     "(regular grammars only; step 4 of docs/token-index.md)", lambda name: TokenIndexEngine()),
    ("token-index-bare", "refimpl's TokenIndex by its own API, built with every step of docs/token-index.md off "
     "(regular grammars only)", lambda name: TokenIndexEngine(
         name, lambda g, v: build_index(g, v, BARE), "refimpl's TokenIndex by its own API, every step off")),
    ("token-index-naive", "refimpl's TokenIndex by its own API, the index by definition (naive_index: every token "
     "from every state; regular grammars only)", lambda name: TokenIndexEngine(
         name, naive_index, "refimpl's TokenIndex by its own API, the index by definition")),
    ("native", "refimpl's Matcher with accel's C walker", MatcherEngine),
    ("pypy", "refimpl under PyPy in a worker process (docs/protocol.md)", MatcherEngine),
    ("cmd:", "any program speaking the worker protocol", _command),
    ("oracle", "refimpl's naive mask (small vocabularies only)", lambda name: OracleEngine()),
    ("llguidance", "llguidance, no_forcing, tokenizer from the same token bytes", lambda name: LlguidanceEngine()),
    ("outlines-core", "outlines-core's Index (regex and JSON schema; its default JSON whitespace [ ]?)",
     lambda name: OutlinesCoreEngine()),
    ("outlines-core-spec", "outlines-core's Index, JSON schemas with JSON's whitespace [ \\t\\n\\r]*",
     lambda name: OutlinesCoreSpecEngine()),
    ("xgrammar", "xgrammar's GrammarMatcher (regex, JSON schema, EBNF, GBNF), in a child process",
     lambda name: Isolated(XgrammarEngine(), timeout=30)),
    ("xgrammar-default", "xgrammar with compile_json_schema's defaults (strict mode: objects and arrays closed), "
     "in a child process", lambda name: Isolated(XgrammarDefaultEngine(), timeout=30)),
    ("xgrammar.cpp", "xgrammar on llama.cpp's converted GBNF of a JSON schema, JSON whitespace (MaskBench's "
     "XGrammar.cpp), in a child process", lambda name: Isolated(XgrammarCppEngine(), timeout=30)),
    ("kbnf", "kbnf's Engine (its own EBNF dialect), in a child process", lambda name: Isolated(KbnfEngine(), timeout=10)),
    ("llama.cpp", "llama.cpp's grammar sampler (GBNF, JSON schema: the converter's default whitespace \" \"?), "
     "in a child process", lambda name: Isolated(LlamaCppEngine(), timeout=30)),
    ("llama.cpp-spec", "llama.cpp, JSON schemas converted with JSON's whitespace [ \\t\\n\\r]* (MaskBench's), "
     "in a child process", lambda name: Isolated(LlamaCppSpecEngine(), timeout=30)),
    ("transformers-cfg", "transformers-cfg's grammar constraint (its EBNF), in a child process",
     lambda name: _imported_when_asked("transformers_cfg", "TransformersCfgEngine", 30)),
    ("lm-format-enforcer", "lm-format-enforcer's TokenEnforcer (regex, JSON schema), in a child process",
     lambda name: _imported_when_asked("lm_format_enforcer", "LmFormatEnforcerEngine", 30)),
    ("fault:", "an injected fault: ", _fault),
]


def get_engine(name: str) -> Engine:
    """The engine called `name` (it may still be unavailable: see unavailable_reason)."""
    name = ALIASES.get(name, name)
    for key, _, build in REGISTRY:
        if name == key or (key.endswith(":") and name.startswith(key)):
            return build(name)
    raise UnknownEngine("unknown engine %r" % name)


def engine_names() -> Dict[str, str]:
    """Every engine name -> a one-line description (for --help and `engines`)."""
    out = {}
    for key, text, _ in REGISTRY:
        if key == "fault:":
            for f, fault in sorted(FAULTS.items()) + sorted(PROCESS_FAULTS.items()):
                out[key + f] = text + fault.description
        else:
            out[key + "<command>" if key == "cmd:" else key] = text
    return out
