"""llguidance, driven on the same vocabulary bytes as refimpl (optional).

The one place that turns a vocabulary into an llguidance tokenizer and a grammar spec
into llguidance's grammar text: the conformance backend (`LlguidanceBackend`, with its
known differences) and the side-by-side figures of benchmarks/ and tests/ (`tokenizer`,
`matcher`, `first_mask_seconds`) all go through it. Forcing is off (`no_forcing`), so
masks are the full set, as maskref's.
"""
from __future__ import annotations

import copy
import json
import re
import time
from typing import Any, Dict, List, Optional, Sequence

from refimpl import Grammar, Vocabulary

from ..core import AFTER_EOS, Backend, Divergence, KnownDifference, Session, compiled
from ..vectors import GrammarSpec, NotSupported, bitmask_len, vocab_hash

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
    """An llguidance LLTokenizer for `vocab` (slices=[] turns its slicer off), or None."""
    try:
        import llguidance
    except ImportError:
        return None
    return llguidance.LLTokenizer(llguidance.TokenizerWrapper(_Tokenizer(vocab)), slices=slices)


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


# ----------------------------------------------------------------------------- known differences


_UNPRODUCTIVE: Dict[str, bool] = {}


def _has_unproductive_rules(d: Divergence) -> bool:
    """Does the Lark grammar have rules that derive no terminal string (removed by
    refimpl's simplifier, kept by llguidance: docs/semantics.md, difference 1)?"""
    if d.grammar.kind != "lark":
        return False
    answer = _UNPRODUCTIVE.get(d.grammar.source)
    if answer is None:
        from refimpl.grammar.lark import parse_lark
        from refimpl.grammar.simplify import remove_unproductive

        ir = parse_lark(d.grammar.source)
        if len(_UNPRODUCTIVE) > 256:
            _UNPRODUCTIVE.clear()
        answer = _UNPRODUCTIVE[d.grammar.source] = len(remove_unproductive(ir).rules) != len(ir.rules)
    return answer


def _dead_end(d: Divergence) -> bool:
    eos = set(d.vocab.eos_token_ids)
    return d.note == "NoExtensionBias" and not d.only_refimpl and set(d.only_backend) <= eos and not d.accepting


DEAD_END = KnownDifference(
    "dead-end", "semantic",
    "where no token can continue and the input may not end, llguidance stops with the "
    "error NoExtensionBias and a mask of EOS only (so generation can end); maskref's mask "
    "is empty",
    _dead_end,
)


def _lazy_read_greedily(d: Divergence) -> bool:
    """Every token only llguidance allows fits the grammar once its lazy lexemes are made
    greedy (the lazy lexeme did not end where it first matched)."""
    if d.grammar.kind != "lark" or "[lazy]" not in d.grammar.source or d.only_refimpl or not d.only_backend:
        return False
    from refimpl.recognizer import Recognizer

    greedy = compiled(GrammarSpec("lark", d.grammar.source.replace("[lazy]", "")))
    prefix = d.text()
    for t in d.only_backend:
        r = Recognizer(greedy.compiled, greedy.limits)
        if t in d.vocab.eos_token_ids or not r.consume_bytes(prefix + d.vocab.tokens[t]):
            return False
    return True


LAZY = KnownDifference(
    "lazy-after-greedy", "peer-bug",
    "a lazy lexeme that matches on the very byte that ended a greedy lexeme is not ended "
    "there: start: A lz / A: /a+/ / lz[lazy]: /[0-9]+/ accepts 'a12' in llguidance 1.9.1 "
    "(docs/findings.md)",
    _lazy_read_greedily,
)

UNPRODUCTIVE = KnownDifference(
    "unproductive-rules", "semantic",
    "refimpl removes rules that derive nothing before parsing; llguidance keeps them, so "
    "their lexemes (and %ignore text) can enter its masks (docs/semantics.md, difference 1)",
    _has_unproductive_rules,
)


_GUARDED_EMPTY = re.compile(r'""\s*%if\b')


def _guarded_empty_lost(d: Divergence) -> bool:
    """A parametric rule with a `"" %if c` alternative, and llguidance allows less than
    refimpl (or refuses a token such as EOS its own mask allowed): its nullable instances,
    when they are a whole alternative of another rule, are not taken as empty."""
    if d.grammar.kind != "lark" or "::" not in d.grammar.source or not _GUARDED_EMPTY.search(d.grammar.source):
        return False
    return not d.only_backend and (bool(d.only_refimpl) or d.refused is not None)


GUARDED_EMPTY = KnownDifference(
    "guarded-empty-alternative", "peer-bug",
    "a parametric instance that derives the empty string only through a `\"\" %if c` "
    "alternative is not nullable in llguidance 1.9.1 when it is a whole alternative of another "
    "rule: start: \"a\" | p::0x1 / p::_: \"\" %if is_ones([0:1]) | \"a\" p::set_bit(0) %if "
    "bit_clear(0) rejects the empty output (docs/findings.md)",
    _guarded_empty_lost,
)


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
        return bool(self.m.consume_token(token)) and not self.m.is_error()


class LlguidanceBackend(Backend):
    """llguidance's LLMatcher, with `no_forcing` (masks are the full set, as maskref's)
    and a tokenizer built from the vocabulary's bytes."""

    name = "llguidance"
    description = "llguidance LLMatcher, no_forcing, tokenizer from the same token bytes"
    known_differences = (AFTER_EOS, DEAD_END, UNPRODUCTIVE, LAZY, GUARDED_EMPTY)

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
            if len(vocab.eos_token_ids) != 1:
                raise NotSupported("llguidance needs exactly one EOS token")
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
