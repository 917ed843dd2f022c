"""Adapters to peer libraries: llguidance, outlines-core, xgrammar — each optional.

Every adapter drives the peer on the *same vocabulary bytes* as refimpl (no tokenizer
files: the token byte strings, the EOS id, the special ids), asks for its full mask at
every step, and declares its known differences (docs/conformance.md lists them with
their evidence). A peer that is not installed reports why in `unavailable_reason()`.
"""
from __future__ import annotations

import copy
import json
from typing import Any, Dict, List, Optional

from refimpl import Grammar, Vocabulary

from .backends import AFTER_EOS, Backend, Divergence, KnownDifference, Session
from .vectors import GrammarSpec, NotSupported, bitmask_from_ids, bitmask_len, vocab_hash

JSON_WHITESPACE = b" \n\r\t"


_COMPILED: Dict[str, Grammar] = {}


def _compiled(spec: GrammarSpec) -> Grammar:
    """refimpl's grammar for a spec, cached (the predicates run once per differing token)."""
    key = spec.key()
    g = _COMPILED.get(key)
    if g is None:
        if len(_COMPILED) > 32:
            _COMPILED.clear()
        g = _COMPILED[key] = spec.compile()
    return g


def _all_differing(d: Divergence, pred) -> bool:
    ids = d.differing()
    return bool(ids) and d.error is None and d.refused is None and all(pred(d.vocab.tokens[t]) for t in ids)


# ============================================================================ llguidance


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


_UNPRODUCTIVE: Dict[str, bool] = {}


def _empty_token_only(d: Divergence) -> bool:
    return _all_differing(d, lambda data: data == b"")


def _dead_end(d: Divergence) -> bool:
    eos = set(d.vocab.eos_token_ids)
    return d.note == "NoExtensionBias" and not d.only_refimpl and set(d.only_backend) <= eos and not d.accepting


LLGUIDANCE_DEAD_END = KnownDifference(
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

    greedy = _compiled(GrammarSpec("lark", d.grammar.source.replace("[lazy]", "")))
    prefix = d.text()
    for t in d.only_backend:
        r = Recognizer(greedy.compiled, greedy.limits)
        if t in d.vocab.eos_token_ids or not r.consume_bytes(prefix + d.vocab.tokens[t]):
            return False
    return True


LLGUIDANCE_LAZY = KnownDifference(
    "lazy-after-greedy", "peer-bug",
    "a lazy lexeme that matches on the very byte that ended a greedy lexeme is not ended "
    "there: start: A lz / A: /a+/ / lz[lazy]: /[0-9]+/ accepts 'a12' in llguidance 1.9.1 "
    "(docs/findings.md)",
    _lazy_read_greedily,
)

LLGUIDANCE_UNPRODUCTIVE = KnownDifference(
    "unproductive-rules", "semantic",
    "refimpl removes rules that derive nothing before parsing; llguidance keeps them, so "
    "their lexemes (and %ignore text) can enter its masks (docs/semantics.md, difference 1)",
    _has_unproductive_rules,
)


class LlguidanceSession(Session):
    def __init__(self, matcher, n_tokens: int) -> None:
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
    and a tokenizer built from the vocabulary's bytes (llguidance_peer.py)."""

    name = "llguidance"
    description = "llguidance LLMatcher, no_forcing, tokenizer from the same token bytes"
    known_differences = (AFTER_EOS, LLGUIDANCE_DEAD_END, LLGUIDANCE_UNPRODUCTIVE, LLGUIDANCE_LAZY)

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

    def tokenizer(self, vocab: Vocabulary):
        from . import llguidance_peer

        key = vocab_hash(vocab)
        tok = self._tokenizers.get(key)
        if tok is None:
            if len(vocab.eos_token_ids) != 1:
                raise NotSupported("llguidance needs exactly one EOS token")
            if len(self._tokenizers) > 64:  # fuzzing makes many small vocabularies
                self._tokenizers.clear()
            tok = self._tokenizers[key] = llguidance_peer.tokenizer(vocab)
        return tok

    @staticmethod
    def grammar_text(spec: GrammarSpec) -> str:
        import llguidance

        head = '%llguidance {"no_forcing": true}\n'
        if spec.kind == "regex":
            return head + "start: /%s/\n" % llguidance.regex_to_lark(spec.source)
        if spec.kind == "lark":
            return head + spec.source
        schema = spec.schema
        if spec.options:
            if not isinstance(schema, dict):
                raise NotSupported("options on a non-object schema")
            schema = copy.deepcopy(schema)
            schema["x-guidance"] = dict(spec.options, **schema.get("x-guidance", {}))
        return head + "start: %%json %s\n" % json.dumps(schema, ensure_ascii=False)

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        import llguidance

        text = self.grammar_text(spec)
        m = llguidance.LLMatcher(self.tokenizer(vocab), text, log_level=0)
        if m.is_error():
            raise NotSupported("llguidance rejects the grammar: %s" % m.get_error().splitlines()[0][:200])
        return LlguidanceSession(m, len(vocab))


# ============================================================================ outlines-core


OUTLINES_EMPTY = KnownDifference(
    "empty-token", "semantic",
    "outlines-core allows an empty token in every state (it consumes nothing); maskref "
    "never allows empty tokens (docs/semantics.md)",
    _empty_token_only,
)


def _effective_regex(spec: GrammarSpec) -> Optional[str]:
    """The regex outlines-core runs for a spec (its schema compiler's, for JSON schema)."""
    try:
        return OutlinesBackend.regex(spec)
    except Exception:  # noqa: BLE001
        return None


def _allowed_by(grammar: Grammar, prefix: bytes, token: bytes) -> bool:
    from refimpl.recognizer import Recognizer

    return bool(token) and Recognizer(grammar.compiled, grammar.limits).consume_bytes(prefix + token)


def _json_schema_regex(d: Divergence) -> bool:
    """The peer answers for every differing token as refimpl does on outlines-core's own
    regex for the schema."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None:
        return False
    regex = _effective_regex(d.grammar)
    if regex is None or d.after_eos:
        return False
    g = _compiled(GrammarSpec("regex", regex))
    prefix = d.text()
    eos = d.vocab.eos_token_ids

    def allowed(t: int) -> bool:
        if t in eos:  # EOS: may the text end here, on that regex?
            from refimpl.recognizer import Recognizer

            r = Recognizer(g.compiled, g.limits)
            return r.consume_bytes(prefix) and r.is_accepting()
        return _allowed_by(g, prefix, d.vocab.tokens[t])

    return all(allowed(t) for t in d.only_backend) and not any(allowed(t) for t in d.only_refimpl)


OUTLINES_JSON_SCHEMA = KnownDifference(
    "json-schema-regex", "semantic",
    "outlines-core compiles a JSON schema to its own regex (build_regex_from_schema): at most "
    "one space between tokens ([ ]?), minimum/maximum ignored, objects closed when "
    "additionalProperties is absent, no \\uXXXX escapes, U+007F-U+009F excluded from "
    "strings, an exponent needs a sign; the differing tokens are exactly those refimpl "
    "answers differently on that regex",
    _json_schema_regex,
)


def _pruned_after_match(d: Divergence) -> bool:
    """Every token only refimpl allows passes through a match of the regex before its last
    byte: the text so far plus a proper prefix of the token (the text itself included)
    matches the whole regex. outlines-core 0.2.14 drops such tokens in two ways: its
    regex-automata DFA follows leftmost-first priorities, so once an earlier alternative
    has matched, later ones are cut ((a*|b) does not allow 'b'); and a token whose DFA
    state is a (one-byte-delayed) match state is kept only if that state accepts
    ([0-9]+(\\.[0-9]+)? after '1' does not allow '.')."""
    if d.only_backend or not d.only_refimpl or d.error or d.refused is not None:
        return False
    regex = _effective_regex(d.grammar)
    if regex is None:
        return False
    from refimpl.recognizer import Recognizer

    g = _compiled(GrammarSpec("regex", regex))
    prefix = d.text()
    for t in d.only_refimpl:
        data = d.vocab.tokens[t]
        if t in d.vocab.eos_token_ids or not _allowed_by(g, prefix, data):
            return False
        r = Recognizer(g.compiled, g.limits)
        r.consume_bytes(prefix)
        matched = r.is_accepting()
        for b in data[:-1]:
            if matched:
                break
            r.consume_bytes(bytes([b]))
            matched = r.is_accepting()
        if not matched:
            return False
    return True


OUTLINES_PRUNED = KnownDifference(
    "pruned-after-match", "peer-bug",
    "outlines-core 0.2.14 leaves out tokens that pass through a match of the regex before "
    "their last byte: (a*|b) does not allow 'b' (leftmost-first priorities of its "
    "regex-automata DFA) and [0-9]+(\\.[0-9]+)? after '1' does not allow '.' (a delayed "
    "match state is kept only if it accepts); docs/findings.md",
    _pruned_after_match,
)


class OutlinesSession(Session):
    """outlines-core's Index walked by hand: a state id, its allowed tokens, next_state.
    EOS ends the generation here (outlines-core lists EOS in final states but its
    next_state refuses it, outlines-core#227; outlines stops at EOS), so after EOS the mask
    is empty, as maskref's."""

    def __init__(self, index, n_tokens: int, eos: int) -> None:
        self.index = index
        self.state = index.get_initial_state()
        self.n = n_tokens
        self.eos = eos
        self.stopped = False

    def mask(self) -> bytes:
        if self.stopped:
            return bytes(bitmask_len(self.n))
        return bitmask_from_ids(self.index.get_allowed_tokens(self.state) or (), self.n)

    def consume(self, token: int) -> bool:
        if self.stopped:
            return False
        if token == self.eos:
            self.stopped = self.index.is_final_state(self.state)
            return self.stopped
        nxt = self.index.get_next_state(self.state, token)
        if nxt is None:
            return False
        self.state = nxt
        return True


class OutlinesBackend(Backend):
    """outlines-core's Index (a DFA over tokens, built ahead of time) for regexes and
    JSON schemas (through its schema-to-regex compiler); Lark grammars are unsupported."""

    name = "outlines-core"
    description = "outlines-core Index over the same token bytes (regex, JSON schema)"
    kinds = ("regex", "json_schema")
    known_differences = (OUTLINES_EMPTY, OUTLINES_JSON_SCHEMA, OUTLINES_PRUNED)

    def __init__(self) -> None:
        self._vocabs: Dict[str, Any] = {}
        self._indexes: Dict[Any, Any] = {}

    def unavailable_reason(self) -> Optional[str]:
        try:
            import outlines_core  # noqa: F401
        except ImportError:
            return "outlines-core is not installed (pip install outlines-core)"
        return None

    def version(self) -> str:
        try:
            from importlib.metadata import version

            return "outlines-core %s" % version("outlines-core")
        except Exception:
            return "outlines-core"

    def vocabulary(self, vocab: Vocabulary):
        import outlines_core

        key = vocab_hash(vocab)
        v = self._vocabs.get(key)
        if v is None:
            if len(vocab.eos_token_ids) != 1:
                raise NotSupported("outlines-core needs exactly one EOS token")
            by_bytes: Dict[bytes, List[int]] = {}
            for t, data in enumerate(vocab.tokens):
                if t not in vocab.special_token_ids:
                    by_bytes.setdefault(data, []).append(t)
            if len(self._vocabs) > 64:
                self._vocabs.clear()
            v = self._vocabs[key] = outlines_core.Vocabulary(vocab.eos_token_id, by_bytes)
        return v

    @staticmethod
    def regex(spec: GrammarSpec) -> str:
        if spec.kind == "regex":
            return spec.source
        if spec.kind == "json_schema":
            from outlines_core.json_schema import build_regex_from_schema

            options = dict(spec.options)
            ws = options.pop("whitespace_pattern", None)
            if options.pop("whitespace_flexible", True) is False and ws is None:
                ws = ""  # no whitespace between JSON tokens
            if options:
                raise NotSupported("outlines-core has no options %s" % sorted(options))
            try:
                return build_regex_from_schema(json.dumps(spec.schema), ws)
            except Exception as e:
                raise NotSupported("outlines-core cannot compile the schema: %s" % str(e).splitlines()[0][:200])
        raise NotSupported("outlines-core has no Lark grammars")

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        import outlines_core

        regex = self.regex(spec)
        key = (regex, vocab_hash(vocab))
        index = self._indexes.get(key)
        if index is None:
            try:
                index = outlines_core.Index(regex, self.vocabulary(vocab))
            except Exception as e:
                # e.g. a state no token can leave ("the vocabulary is incompatible")
                raise NotSupported("outlines-core cannot build the index: %s" % str(e).splitlines()[0][:160])
            if len(self._indexes) > 64:
                self._indexes.clear()
            self._indexes[key] = index
        return OutlinesSession(index, len(vocab), vocab.eos_token_id)


# ============================================================================ xgrammar


def _json_layout(d: Divergence) -> bool:
    return d.grammar.kind == "json_schema" and _all_differing(d, lambda t: any(b in JSON_WHITESPACE for b in t))


XGRAMMAR_JSON_WHITESPACE = KnownDifference(
    "json-whitespace", "semantic",
    "xgrammar's JSON whitespace (any_whitespace, its own separators) differs from "
    "llguidance's flexible whitespace",
    _json_layout,
)


class XgrammarSession(Session):
    def __init__(self, matcher, n_tokens: int) -> None:
        import numpy

        self.m = matcher
        self.n = n_tokens
        self.np = numpy
        self.stopped = False

    def mask(self) -> bytes:
        np = self.np
        if self.m.is_terminated():
            return bytes(bitmask_len(self.n))
        buf = np.zeros((1, (self.n + 31) // 32), dtype=np.int32)
        self.m.fill_next_token_bitmask(buf)
        return buf.tobytes()[: bitmask_len(self.n)]

    def consume(self, token: int) -> bool:
        return bool(self.m.accept_token(token))


class XgrammarBackend(Backend):
    """xgrammar's GrammarMatcher on a raw-bytes TokenizerInfo (regex, JSON schema, Lark
    via its own Lark converter). xgrammar imports torch, so it is usually unavailable
    where torch is not installed; this adapter fills numpy bitmasks (DLPack)."""

    name = "xgrammar"
    description = "xgrammar GrammarMatcher, raw token bytes, numpy bitmasks"
    kinds = ("regex", "json_schema")
    known_differences = (AFTER_EOS, XGRAMMAR_JSON_WHITESPACE)

    def __init__(self) -> None:
        self._compilers: Dict[str, Any] = {}

    def unavailable_reason(self) -> Optional[str]:
        try:
            import numpy  # noqa: F401
            import xgrammar  # noqa: F401
        except ImportError as e:
            return "xgrammar is not importable (%s); it needs torch: pip install xgrammar" % e
        except Exception as e:  # xgrammar fails in odd ways without its native pieces
            return "xgrammar is not usable: %s" % e
        return None

    def version(self) -> str:
        import xgrammar

        return "xgrammar %s" % getattr(xgrammar, "__version__", "?")

    def compiler(self, vocab: Vocabulary):
        import xgrammar as xgr

        key = vocab_hash(vocab)
        c = self._compilers.get(key)
        if c is None:
            # xgrammar counts empty tokens as special: specials other than EOS are
            # given as empty, so their display text is never matched
            tokens = [b"" if t in vocab.special_token_ids else data for t, data in enumerate(vocab.tokens)]
            info = xgr.TokenizerInfo(tokens, vocab_type=xgr.VocabType.RAW, vocab_size=len(tokens),
                                     stop_token_ids=list(vocab.eos_token_ids))
            c = self._compilers[key] = xgr.GrammarCompiler(info)
        return c

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        import xgrammar as xgr

        c = self.compiler(vocab)
        try:
            if spec.kind == "regex":
                compiled = c.compile_regex(spec.source)
            elif spec.kind == "json_schema":
                compiled = c.compile_json_schema(json.dumps(spec.schema), any_whitespace=True)
            else:
                raise NotSupported("xgrammar: Lark grammars are not compared (a different dialect)")
        except NotSupported:
            raise
        except Exception as e:
            raise NotSupported("xgrammar cannot compile the grammar: %s" % str(e).splitlines()[0][:160])
        return XgrammarSession(xgr.GrammarMatcher(compiled, terminate_without_stop_token=False), len(vocab))


PEER_BACKENDS = {"llguidance": LlguidanceBackend, "outlines-core": OutlinesBackend, "xgrammar": XgrammarBackend}
