"""kbnf's Engine on the same vocabulary bytes as refimpl (optional: `pip install kbnf`, in
the `peers` extra), for grammars in kbnf's dialect (`ebnf` vectors with dialect "kbnf").

kbnf has no end-of-sequence token of its own: it is *finished* once the text so far
completes `start`, and then allows nothing more. The adapter shows that as a mask of the
vocabulary's EOS ids, and consuming EOS succeeds exactly when kbnf is finished. The two
ways kbnf ends differently from maskref, and its complement over bytes, are declared
below (docs/ebnf.md, "kbnf's EBNF").
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.frontends.ebnf.ast import Repeat, children
from refimpl.frontends.ebnf.kbnf import parse_rules
from refimpl.regex import ExprSet

from ..readings.grammar_shapes import derives_only_empty, has_cycle, rule_edges
from ..differences import AFTER_EOS, KnownDifference
from ..divergence import Divergence, compiled, utf8_prefix
from ..engine import Engine, Session
from ..isolation import crashed, timed_out
from ..vectors import GrammarSpec, NotSupported, bitmask_from_ids, bitmask_len, vocab_hash


def _continuations_when_accepting(d: Divergence) -> bool:
    """refimpl's state accepts and kbnf, finished, allows EOS only: the differing tokens
    are exactly refimpl's non-EOS tokens."""
    if d.error is not None or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    if any(t in d.vocab.eos_token_ids for t in d.only_refimpl):
        return False
    m = d.replay()
    return m is not None and m.is_accepting()


def _finished_inside_the_token(d: Divergence) -> bool:
    """kbnf allows only the end although refimpl's text is not a sentence, and the text
    was one at a point inside the last token."""
    eos = d.vocab.eos_token_ids
    if d.error is not None or d.refused is not None or not d.prefix or d.prefix[-1] in eos:
        return False
    if not d.only_engine or any(t not in eos for t in d.only_engine) or any(t in eos for t in d.only_refimpl):
        return False
    m = d.replay()
    if m is None or m.is_accepting():
        return False
    last = d.vocab.tokens[d.prefix[-1]]
    for k in range(1, len(last)):
        m = Matcher(compiled(d.grammar), d.vocab)
        if m.consume_tokens(d.prefix[:-1]) == len(d.prefix) - 1 and m.consume_bytes(last[:k]) and m.is_accepting():
            return True
    return False


def _eos_at_the_start(d: Divergence) -> bool:
    """At the start of a grammar that accepts the empty text, refimpl allows EOS and kbnf
    does not: the differing tokens are the EOS ids, before any token."""
    return (d.error is None and d.refused is None and not d.prefix and not d.only_engine
            and bool(d.only_refimpl) and all(t in d.vocab.eos_token_ids for t in d.only_refimpl))


def _nullable_unit_cycle(d: Divergence) -> bool:
    """Does some rule derive itself alone (A ⇒+ A), as kbnf's rules are written? kbnf does
    not answer on some such grammars (`start ::= (start)?;`). maskref's own compiled
    grammar is no guide: it drops rules that derive only ε."""
    return has_cycle(rule_edges(parse_rules(d.grammar.source), ExprSet()))


def _no_answer(d: Divergence) -> bool:
    """kbnf did not answer in time (the Isolated wrapper's PeerTimeout) on a grammar with a
    nullable unit cycle."""
    return timed_out(d) and _nullable_unit_cycle(d)


def _panics_on_empty_repetition(d: Divergence) -> bool:
    """kbnf panics ("capacity overflow", or an index out of bounds on GPT-2) on a grammar
    that repeats something that derives only the empty string (`start ::= ""*;`)."""
    if d.error is None or ("capacity overflow" not in d.error and "PanicException" not in d.error):
        return False
    rules = parse_rules(d.grammar.source)
    todo = list(rules.values())
    while todo:
        n = todo.pop()
        if isinstance(n, Repeat) and (n.hi is None or n.hi > 1) and derives_only_empty(n.node, rules):
            return True
        todo.extend(children(n))
    return False


def _crashes_on_unit_cycle(d: Divergence) -> bool:
    """kbnf's process died (a segmentation fault, an abort) building a grammar with a
    nullable unit cycle."""
    return crashed(d) and _nullable_unit_cycle(d)


def _unfinished_sentence(d: Divergence) -> bool:
    """The text so far is a sentence (refimpl accepts it, and it is not empty), yet kbnf is
    not finished: the differing tokens are EOS ids only refimpl allows."""
    eos = d.vocab.eos_token_ids
    if d.error is not None or d.refused is not None or d.only_engine or not d.only_refimpl or not d.text():
        return False
    if any(t not in eos for t in d.only_refimpl):
        return False
    m = d.replay()
    return m is not None and m.is_accepting()


def _special_tokens_as_text(d: Divergence) -> bool:
    """kbnf reads every token as text; maskref never matches a special token's text
    (docs/semantics.md, "Special tokens"). The differing tokens are all special."""
    return (d.error is None and d.refused is None and bool(d.differing())
            and all(t in d.vocab.special_token_ids and t not in d.vocab.eos_token_ids for t in d.differing()))


def _complement_over_bytes(d: Divergence) -> bool:
    """In a grammar with a complement (`#ex`), kbnf allows tokens that make the text
    invalid UTF-8, which refimpl never allows: its complement is over bytes."""
    if d.error is not None or d.refused is not None or d.only_refimpl or not d.only_engine:
        return False
    if "#ex" not in d.grammar.source:
        return False
    text = d.text()
    return all(not utf8_prefix(text + d.vocab.tokens[t]) for t in d.only_engine)


EAGER_END = KnownDifference(
    "eager-end", "semantic",
    "kbnf ends eagerly: once the text completes `start` it is finished and allows nothing but "
    "the end; maskref's language is the whole context-free language, so it also allows the "
    "continuations",
    _continuations_when_accepting, ends_path=True,
)
FINISHED_INSIDE_TOKEN = KnownDifference(
    "finished-inside-token", "peer-bug",
    "kbnf is finished after a token inside which the text was complete, though the text at the "
    "token's end is not a sentence (its output then ends where the grammar does not)",
    _finished_inside_the_token, ends_path=True,
)
NO_EMPTY_OUTPUT = KnownDifference(
    "no-empty-output", "semantic",
    "kbnf never finishes on the empty text; maskref allows EOS at the start of a grammar that "
    "accepts it",
    _eos_at_the_start,
)

NO_ANSWER = KnownDifference(
    "no-answer", "peer-bug",
    "kbnf does not terminate (computing a mask) on some grammars where a rule derives itself "
    "alone through nullable parts, e.g. `start ::= (start)?;`",
    _no_answer, ends_path=True,
)
PANIC_ON_EMPTY_REPETITION = KnownDifference(
    "panic-on-empty-repetition", "peer-bug",
    "kbnf panics (capacity overflow) on a repetition of something that derives only the empty "
    "string, e.g. `start ::= \"\"*;`",
    _panics_on_empty_repetition,
)
CRASH_ON_UNIT_CYCLE = KnownDifference(
    "crash-on-unit-cycle", "peer-bug",
    "kbnf's process dies (segmentation fault or abort) building some grammars where a rule "
    "derives itself alone through nullable parts: `start ::= {start | r1}; r1 ::= #\"(?s:.)\"* | start? | \"\"*;`",
    _crashes_on_unit_cycle, ends_path=True,
)
UNFINISHED_SENTENCE = KnownDifference(
    "unfinished-sentence", "peer-bug",
    "kbnf is not finished after a text that completes `start` (it allows no end): "
    "`start ::= ... | ('\"' | start?)?, \"ab\"+, start [start], (\"a\" | #\"[é-ê]\"*), #\"[^a]\"?, #\"[a]\", \"b\"?;` "
    "after `\"ab\\x0ba`",
    _unfinished_sentence, ends_path=True,
)
SPECIAL_TOKENS_AS_TEXT = KnownDifference(
    "special-tokens-as-text", "semantic",
    "kbnf has no special tokens: it matches their text like any other token's; maskref never does",
    _special_tokens_as_text,
)
COMPLEMENT_OVER_BYTES = KnownDifference(
    "complement-over-bytes", "peer-bug",
    "kbnf's `#ex` complement is taken over bytes, so it allows text that is not UTF-8; "
    "maskref's is over characters",
    _complement_over_bytes,
)


class KbnfSession(Session):
    def __init__(self, engine: Any, vocab: Vocabulary) -> None:
        self.engine = engine
        self.vocab = vocab
        self.ended = False

    def mask(self) -> bytes:
        n = len(self.vocab)
        if self.ended:
            return bytes(bitmask_len(n))
        if self.engine.is_finished():
            return bitmask_from_ids(self.vocab.eos_token_ids, n)
        self.engine.compute_allowed_token_ids()
        return bitmask_from_ids(self.engine.get_allowed_token_ids_from_last_computation(), n)

    def consume(self, token: int) -> bool:
        if self.ended:
            return False
        if token in self.vocab.eos_token_ids:
            self.ended = self.engine.is_finished()
            return self.ended
        if self.engine.is_finished():
            return False
        try:
            self.engine.try_accept_new_token(token)
        except ValueError:  # kbnf's AcceptTokenError: the token does not fit
            return False
        return True


class KbnfEngine(Engine):
    """kbnf's Engine for grammars in its own dialect."""

    name = "kbnf"
    description = "kbnf Engine (its EBNF dialect), tokens from the same bytes"
    kinds = ("ebnf",)

    def __init__(self) -> None:
        self._vocabularies: Dict[str, Any] = {}
        self.known_differences = (AFTER_EOS, EAGER_END, NO_EMPTY_OUTPUT, COMPLEMENT_OVER_BYTES, NO_ANSWER,
                                  PANIC_ON_EMPTY_REPETITION, SPECIAL_TOKENS_AS_TEXT, FINISHED_INSIDE_TOKEN,
                                  CRASH_ON_UNIT_CYCLE, UNFINISHED_SENTENCE, KnownDifference(
            "mask-omits-accepted-token", "peer-bug",
            "kbnf's mask leaves out a token that its own try_accept_new_token accepts in the same state "
            "(seen on GPT-2 where a token leaves a `#ex` terminal: ' ?' after `#ex\"\\\\?\"`)",
            self._accepts_omitted))

    def _accepts_omitted(self, d: Divergence) -> bool:
        """refimpl allows tokens kbnf's mask lacks, and a fresh kbnf engine after the same
        prefix accepts each of them."""
        if d.error is not None or d.refused is not None or d.only_engine or not d.only_refimpl:
            return False
        for t in d.only_refimpl:
            session = self.start(d.grammar, d.vocab)
            assert isinstance(session, KbnfSession)
            if not all(session.consume(p) for p in d.prefix) or session.engine.is_finished():
                return False
            if not session.consume(t):
                return False
        return True

    def unavailable_reason(self) -> Optional[str]:
        try:
            import kbnf  # noqa: F401
        except ImportError as e:
            return "kbnf is not importable (%s): pip install kbnf" % e
        return None

    def version(self) -> str:
        from importlib.metadata import version

        return "kbnf %s" % version("kbnf")

    def prepare(self, vocab: Vocabulary) -> None:
        """Build kbnf's vocabulary before a session's process is forked (it inherits it)."""
        self.vocabulary(vocab)

    def vocabulary(self, vocab: Vocabulary) -> Any:
        """kbnf's Vocabulary of every token but EOS (kbnf has no end token; empty tokens,
        which kbnf cannot hold, are left out and so never allowed)."""
        import kbnf

        key = vocab_hash(vocab)
        v = self._vocabularies.get(key)
        if v is None:
            ids: List[int] = [t for t, data in enumerate(vocab.tokens) if data and t not in vocab.eos_token_ids]
            v = self._vocabularies[key] = kbnf.Vocabulary(
                {t: kbnf.Token(vocab.tokens[t]) for t in ids},
                {t: vocab.tokens[t].decode("utf-8", "replace") for t in ids})
        return v

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        if spec.kind != "ebnf" or spec.options.get("dialect") != "kbnf":
            raise NotSupported("kbnf reads only its own dialect (ebnf vectors with dialect kbnf)")
        if spec.options.get("root", "start") != "start":
            raise NotSupported("kbnf starts at the rule `start` only")
        import kbnf

        try:
            engine = kbnf.Engine(spec.source, self.vocabulary(vocab))
        except Exception as e:  # kbnf raises plain exceptions for grammars it refuses
            raise NotSupported("kbnf cannot compile the grammar: %s" % str(e).splitlines()[0][:160]) from e
        return KbnfSession(engine, vocab)
