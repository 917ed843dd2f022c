"""llguidance, driven on the same vocabulary bytes as refimpl (optional).

The one place that turns a vocabulary into an llguidance tokenizer and a grammar spec
into llguidance's grammar text: the conformance backend (`LlguidanceEngine`, with its
known differences, in llguidance_differences.py) and the side-by-side figures of benchmarks/ and tests/ (`tokenizer`,
`matcher`, `first_mask_seconds`) all go through it. Forcing is off (`no_forcing`), so
masks are the full set, as maskref's.
"""
from __future__ import annotations

import copy
import json
import time
from typing import Any, Dict, List, Optional, Sequence

from refimpl import Grammar, Vocabulary

from ..engine import Engine, Session
from ..vectors import GrammarSpec, NotSupported, bitmask_len, vocab_hash
from .llguidance_differences import KNOWN_DIFFERENCES

HEAD = '%llguidance {"no_forcing": true}\n'


class _Tokenizer:
    """What llguidance's TokenizerWrapper reads: tokens as bytes, EOS, specials."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.tokens = vocab.tokens
        self.eos_token_id = vocab.eos_token_id
        self.bos_token_id = None
        self.special_token_ids = sorted(vocab.special_token_ids)

    def __call__(self, text: str) -> List[int]:  # tokenising prompts is not needed for masks
        return []


def tokenizer(vocab: Vocabulary, slices: Optional[List[str]] = None) -> Any:
    """An llguidance LLTokenizer for `vocab` (slices=[] turns its slicer off), or None.
    Every EOS id of the vocabulary is an EOS token of llguidance's, the first one its
    primary `tok_eos`."""
    try:
        import llguidance
    except ImportError:
        return None
    eos = list(vocab.eos_token_ids) if len(vocab.eos_token_ids) > 1 else None
    return llguidance.LLTokenizer(llguidance.TokenizerWrapper(_Tokenizer(vocab)), eos_token=eos, slices=slices)


def grammar_text(spec: GrammarSpec) -> str:
    """llguidance's grammar for a spec: a regex as a one-rule Lark grammar, Lark as is,
    a JSON schema through %json (its options as x-guidance); forcing off."""
    import llguidance

    if spec.kind == "regex":
        return HEAD + "start: /%s/\n" % llguidance.regex_to_lark(spec.source)
    if spec.kind == "lark":
        return HEAD + spec.source
    schema = spec.schema
    if spec.options:
        if not isinstance(schema, dict):
            raise NotSupported("options on a non-object schema")
        schema = copy.deepcopy(schema)
        schema["x-guidance"] = dict(spec.options, **schema.get("x-guidance", {}))
    return HEAD + "start: %%json %s\n" % json.dumps(schema, ensure_ascii=False)


def matcher(tok: Any, kind: str, source: str) -> Any:
    """An llguidance matcher for a regex or Lark grammar (raises ValueError if llguidance
    rejects it)."""
    import llguidance

    m = llguidance.LLMatcher(tok, grammar_text(GrammarSpec(kind, source)))
    if m.is_error():
        raise ValueError(m.get_error())
    return m


def first_mask_seconds(tok: Any, kind: str, source: str, repeat: int = 20, after: Sequence[int] = ()) -> float:
    """The best time of a fresh matcher's first mask, after consuming the tokens `after`
    (llguidance caches later masks of the same state)."""
    best = float("inf")
    for _ in range(repeat):
        m = matcher(tok, kind, source)
        for t in after:
            m.consume_token(t)
        t0 = time.perf_counter()
        m.compute_bitmask()
        best = min(best, time.perf_counter() - t0)
    return best


# ----------------------------------------------------------------------------- the backend


class LlguidanceSession(Session):
    def __init__(self, matcher: Any, n_tokens: int) -> None:
        self.m = matcher
        self.n = n_tokens

    def mask(self) -> bytes:
        bits = self.m.compute_bitmask()
        self.note = None
        if self.m.is_error():
            error = self.m.get_error()
            first = error.split("\n<state>")[0]
            if "limit" in first.lower():  # e.g. "Too many items (limit 50000; mask)"
                raise NotSupported("llguidance hit a limit: %s" % first[:120])
            if not error.startswith("NoExtensionBias"):
                raise RuntimeError("llguidance: %s" % first)
            self.note = "NoExtensionBias"  # no token can continue: llguidance stops (DEAD_END)
        return bytes(bits[: bitmask_len(self.n)])

    def consume(self, token: int) -> bool:
        if self.m.consume_token(token) and not self.m.is_error():
            return True
        if self.m.is_error():  # why it refused (a refusal is a disagreement, unless a known one)
            self.note = self.m.get_error().split("\n<state>")[0][:200]
        return False


class LlguidanceEngine(Engine):
    """llguidance's LLMatcher, with `no_forcing` (masks are the full set, as maskref's)
    and a tokenizer built from the vocabulary's bytes."""

    name = "llguidance"
    description = "llguidance LLMatcher, no_forcing, tokenizer from the same token bytes"
    known_differences = KNOWN_DIFFERENCES  # llguidance_differences.py
    #: no GBNF yet: llguidance reads it only through its gbnf_to_lark converter, whose
    #: lexing is a subject of its own (issue 15)
    kinds = ("regex", "lark", "json_schema")

    def __init__(self) -> None:
        self._tokenizers: Dict[str, Any] = {}

    def unavailable_reason(self) -> Optional[str]:
        try:
            import llguidance  # noqa: F401
        except ImportError:
            return "llguidance is not installed (pip install llguidance, or the 'peers' extra)"
        return None

    def version(self) -> str:
        import llguidance

        return "llguidance %s" % llguidance.get_version() if hasattr(llguidance, "get_version") else "llguidance"

    def tokenizer(self, vocab: Vocabulary) -> Any:
        key = vocab_hash(vocab)
        tok = self._tokenizers.get(key)
        if tok is None:
            if not vocab.eos_token_ids:
                raise NotSupported("llguidance needs an EOS token")
            if len(self._tokenizers) > 64:  # fuzzing makes many small vocabularies
                self._tokenizers.clear()
            tok = self._tokenizers[key] = tokenizer(vocab)
        return tok

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        import llguidance

        m = llguidance.LLMatcher(self.tokenizer(vocab), grammar_text(spec), log_level=0)
        if m.is_error():
            raise NotSupported("llguidance rejects the grammar: %s" % m.get_error().splitlines()[0][:200])
        return LlguidanceSession(m, len(vocab))
