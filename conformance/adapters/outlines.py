"""outlines-core's Index (a DFA over tokens, built ahead of time), driven on the same
vocabulary bytes as refimpl, and its known differences (optional).
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from refimpl import Grammar, Vocabulary

from ..differences import KnownDifference, all_differing, answers_as
from ..divergence import Divergence, compiled
from ..engine import Engine, Session
from ..vectors import GrammarSpec, NotSupported, bitmask_from_ids, bitmask_len, vocab_hash


def regex_of(spec: GrammarSpec) -> str:
    """The regex outlines-core runs for a spec: a regex itself, a JSON schema through
    outlines-core's schema-to-regex compiler (raises NotSupported for Lark)."""
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
            raise NotSupported("outlines-core cannot compile the schema: %s" % str(e).splitlines()[0][:200]) from e
    raise NotSupported("outlines-core has no Lark grammars")


# ----------------------------------------------------------------------------- known differences


EMPTY = KnownDifference(
    "empty-token", "semantic",
    "outlines-core allows an empty token in every state (it consumes nothing); maskref "
    "never allows empty tokens (docs/semantics.md)",
    lambda d: all_differing(d, lambda data: data == b""),
)


def _effective_regex(spec: GrammarSpec) -> Optional[str]:
    """regex_of(spec), or None when outlines-core cannot run the spec."""
    try:
        return regex_of(spec)
    except Exception:  # noqa: BLE001
        return None


def _allowed_by(grammar: Grammar, prefix: bytes, token: bytes) -> bool:
    from refimpl.recognition.recognizer import Recognizer

    return bool(token) and Recognizer(grammar.compiled, grammar.limits).consume_bytes(prefix + token)


def _json_schema_regex(d: Divergence) -> bool:
    """The peer answers for every differing token as refimpl does on outlines-core's own
    regex for the schema."""
    if d.grammar.kind != "json_schema":
        return False
    regex = _effective_regex(d.grammar)
    return regex is not None and answers_as(d, compiled(GrammarSpec("regex", regex)))


JSON_SCHEMA = KnownDifference(
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
    if d.only_engine or not d.only_refimpl or d.error or d.refused is not None:
        return False
    regex = _effective_regex(d.grammar)
    if regex is None:
        return False
    from refimpl.recognition.recognizer import Recognizer

    g = compiled(GrammarSpec("regex", regex))
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


PRUNED = KnownDifference(
    "pruned-after-match", "peer-bug",
    "outlines-core 0.2.14 leaves out tokens that pass through a match of the regex before "
    "their last byte: (a*|b) does not allow 'b' (leftmost-first priorities of its "
    "regex-automata DFA) and [0-9]+(\\.[0-9]+)? after '1' does not allow '.' (a delayed "
    "match state is kept only if it accepts); docs/findings.md",
    _pruned_after_match,
)


# ----------------------------------------------------------------------------- the backend


class OutlinesSession(Session):
    """outlines-core's Index walked by hand: a state id, its allowed tokens, next_state.
    EOS ends the generation here (outlines-core lists EOS in final states but its
    next_state refuses it, outlines-core#227; outlines stops at EOS), so after EOS the mask
    is empty, as maskref's."""

    def __init__(self, index: Any, n_tokens: int, eos: int) -> None:
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


class OutlinesCoreEngine(Engine):
    """outlines-core's Index for regexes and JSON schemas (through its schema-to-regex
    compiler); Lark grammars are unsupported."""

    name = "outlines-core"
    description = "outlines-core Index over the same token bytes (regex, JSON schema)"
    kinds = ("regex", "json_schema")
    known_differences = (EMPTY, JSON_SCHEMA, PRUNED)

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

    def vocabulary(self, vocab: Vocabulary) -> Any:
        import outlines_core

        key = vocab_hash(vocab)
        v = self._vocabs.get(key)
        if v is None:
            by_bytes: Dict[bytes, List[int]] = {}
            for t, data in enumerate(vocab.tokens):
                if t not in vocab.special_token_ids:
                    by_bytes.setdefault(data, []).append(t)
            if len(self._vocabs) > 64:
                self._vocabs.clear()
            v = self._vocabs[key] = outlines_core.Vocabulary(vocab.eos_token_ids[0], by_bytes)
        return v

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        """Raises NotSupported for Lark grammars (special tokens and rule options among
        them) and for vocabularies with other than one EOS, before touching outlines-core."""
        if spec.kind not in self.kinds:
            raise NotSupported("outlines-core has no Lark grammars")
        if len(vocab.eos_token_ids) != 1:
            raise NotSupported("outlines-core needs exactly one EOS token")
        import outlines_core

        regex = regex_of(spec)
        key = (regex, vocab_hash(vocab))
        index = self._indexes.get(key)
        if index is None:
            try:
                index = outlines_core.Index(regex, self.vocabulary(vocab))
            except Exception as e:
                # e.g. a state no token can leave ("the vocabulary is incompatible")
                raise NotSupported("outlines-core cannot build the index: %s" % str(e).splitlines()[0][:160]) from e
            if len(self._indexes) > 64:
                self._indexes.clear()
            self._indexes[key] = index
        return OutlinesSession(index, len(vocab), vocab.eos_token_ids[0])
