"""kbnf 0.4.2's known differences from maskref, each declared over its predicate
(docs/conformance.md lists them; docs/findings.md, K1-K11): the two ways kbnf ends
differently from maskref, its complement over bytes, and its bugs."""
from __future__ import annotations

from refimpl import GrammarError, Matcher

from ...differences import AFTER_EOS, KnownDifferences
from ...divergence import Divergence, compiled, utf8_prefix
from ...isolation import crashed, timed_out
from .reading import nullable_unit_cycle, repeats_only_empty
from .session import start

KNOWN_DIFFERENCES = KnownDifferences(AFTER_EOS)


@KNOWN_DIFFERENCES.declare(
    "eager-end", "semantic",
    "kbnf ends eagerly: once the text completes `start` it is finished and allows nothing but "
    "the end; maskref's language is the whole context-free language, so it also allows the "
    "continuations",
    ends_path=True)
def continuations_when_accepting(d: Divergence) -> bool:
    """refimpl's state accepts and kbnf, finished, allows EOS only: the differing tokens
    are exactly refimpl's non-EOS tokens."""
    if d.error is not None or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    if any(t in d.vocab.eos_token_ids for t in d.only_refimpl):
        return False
    m = d.replay()
    return m is not None and m.is_accepting()


@KNOWN_DIFFERENCES.declare(
    "no-empty-output", "semantic",
    "kbnf never finishes on the empty text; maskref allows EOS at the start of a grammar that "
    "accepts it")
def eos_at_the_start(d: Divergence) -> bool:
    """At the start of a grammar that accepts the empty text, refimpl allows EOS and kbnf
    does not: the differing tokens are the EOS ids, before any token."""
    return (d.error is None and d.refused is None and not d.prefix and not d.only_engine
            and bool(d.only_refimpl) and all(t in d.vocab.eos_token_ids for t in d.only_refimpl))


@KNOWN_DIFFERENCES.declare(
    "complement-over-bytes", "peer-bug",
    "kbnf's `#ex` complement is taken over bytes, so it allows text that is not UTF-8; "
    "maskref's is over characters",
    cites=("kbnf's grammar format (https://github.com/Dan-wanna-M/kbnf); RFC 3629 (UTF-8) §3: no encodings of "
           'the surrogates U+D800-U+DFFF (https://www.rfc-editor.org/rfc/rfc3629#section-3)'))
def complement_over_bytes(d: Divergence) -> bool:
    """In a grammar with a complement (`#ex`), kbnf allows tokens that make the text
    invalid UTF-8, which refimpl never allows: its complement is over bytes."""
    if d.error is not None or d.refused is not None or d.only_refimpl or not d.only_engine:
        return False
    if "#ex" not in d.grammar.source:
        return False
    text = d.text()
    return all(not utf8_prefix(text + d.vocab.tokens[t]) for t in d.only_engine)


@KNOWN_DIFFERENCES.declare(
    "no-answer", "peer-bug",
    "kbnf does not terminate (computing a mask) on some grammars where a rule derives itself "
    "alone through nullable parts, e.g. `start ::= (start)?;`",
    ends_path=True,
    cites=("kbnf's grammar format (https://github.com/Dan-wanna-M/kbnf); a grammar the format accepts must be "
           'compiled and answered, not crash or hang'))
def no_answer(d: Divergence) -> bool:
    """kbnf did not answer in time (the Isolated wrapper's PeerTimeout) on a grammar with a
    nullable unit cycle."""
    return timed_out(d) and nullable_unit_cycle(d.grammar.source)


@KNOWN_DIFFERENCES.declare(
    "no-answer-on-unterminated-comment", "peer-bug",
    "kbnf does not return (building the engine) on a grammar whose `(*` comment between rules "
    "never ends (`start ::= \"a\";` then a line `(* unterminated`), where it should refuse the grammar; maskref "
    "refuses it (\"unterminated comment: expected *)\"); docs/findings.md, K12",
    ends_path=True,
    cites=("kbnf's grammar format (https://github.com/Dan-wanna-M/kbnf), as maskref reads it (docs/ebnf.md, "
           "kbnf's EBNF): a comment between rules is `(* ... *)`; a grammar the format does not accept must be "
           "refused, not hang"))
def no_answer_on_unterminated_comment(d: Divergence) -> bool:
    """kbnf did not answer in time (PeerTimeout) on a grammar that refimpl's reader of kbnf
    refuses for a comment that never ends."""
    if not timed_out(d) or d.grammar.kind != "ebnf":
        return False
    try:
        compiled(d.grammar)
    except GrammarError as e:
        return "unterminated comment" in str(e)
    return False


@KNOWN_DIFFERENCES.declare(
    "panic-on-empty-repetition", "peer-bug",
    "kbnf panics (capacity overflow) on a repetition of something that derives only the empty "
    "string, e.g. `start ::= \"\"*;`",
    cites=("kbnf's grammar format (https://github.com/Dan-wanna-M/kbnf); a grammar the format accepts must be "
           'compiled and answered, not crash or hang'))
def panics_on_empty_repetition(d: Divergence) -> bool:
    """kbnf panics ("capacity overflow", or an index out of bounds on GPT-2) on a grammar
    that repeats something that derives only the empty string (`start ::= ""*;`) — or,
    now and then, its process aborts at start instead ("memory allocation of
    140737488355312 bytes failed": the same overflowed capacity, allocated)."""
    if d.error is None or ("capacity overflow" not in d.error and "PanicException" not in d.error
                           and not crashed(d, "start")):
        return False
    return repeats_only_empty(d.grammar.source)


@KNOWN_DIFFERENCES.declare(
    "special-tokens-as-text", "semantic",
    "kbnf has no special tokens: it matches their text like any other token's; maskref never does")
def special_tokens_as_text(d: Divergence) -> bool:
    """kbnf reads every token as text; maskref never matches a special token's text
    (docs/semantics.md, "Special tokens"). The differing tokens are all special."""
    return (d.error is None and d.refused is None and bool(d.differing())
            and all(t in d.vocab.special_token_ids and t not in d.vocab.eos_token_ids for t in d.differing()))


@KNOWN_DIFFERENCES.declare(
    "finished-inside-token", "peer-bug",
    "kbnf is finished after a token inside which the text was complete, though the text at the "
    "token's end is not a sentence (its output then ends where the grammar does not)",
    ends_path=True,
    cites="kbnf's grammar format (https://github.com/Dan-wanna-M/kbnf)")
def finished_inside_the_token(d: Divergence) -> bool:
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
        if m.consume_tokens(d.prefix[:-1]) and m.consume_bytes(last[:k]) and m.is_accepting():
            return True
    return False


@KNOWN_DIFFERENCES.declare(
    "crash-on-unit-cycle", "peer-bug",
    "kbnf's process dies (segmentation fault or abort) building some grammars where a rule "
    "derives itself alone through nullable parts: `start ::= {start | r1}; r1 ::= #\"(?s:.)\"* | start? | \"\"*;`",
    ends_path=True,
    cites=("kbnf's grammar format (https://github.com/Dan-wanna-M/kbnf); a grammar the format accepts must be "
           'compiled and answered, not crash or hang'))
def crashes_on_unit_cycle(d: Divergence) -> bool:
    """kbnf's process died (a segmentation fault, an abort) building a grammar with a
    nullable unit cycle."""
    return crashed(d) and nullable_unit_cycle(d.grammar.source)


@KNOWN_DIFFERENCES.declare(
    "unfinished-sentence", "peer-bug",
    "kbnf is not finished after a text that completes `start` (it allows no end): "
    "`start ::= ... | ('\"' | start?)?, \"ab\"+, start [start], (\"a\" | #\"[é-ê]\"*), #\"[^a]\"?, #\"[a]\", \"b\"?;` "
    "after `\"ab\\x0ba`",
    ends_path=True,
    cites="kbnf's grammar format (https://github.com/Dan-wanna-M/kbnf)")
def unfinished_sentence(d: Divergence) -> bool:
    """The text so far is a sentence (refimpl accepts it, and it is not empty), yet kbnf is
    not finished: the differing tokens are EOS ids only refimpl allows."""
    eos = d.vocab.eos_token_ids
    if d.error is not None or d.refused is not None or d.only_engine or not d.only_refimpl or not d.text():
        return False
    if any(t not in eos for t in d.only_refimpl):
        return False
    m = d.replay()
    return m is not None and m.is_accepting()


@KNOWN_DIFFERENCES.declare(
    "mask-omits-accepted-token", "peer-bug",
    "kbnf's mask leaves out a token that its own try_accept_new_token accepts in the same state "
    "(seen on GPT-2 where a token leaves a `#ex` terminal: ' ?' after `#ex\"\\\\?\"`)",
    cites=("kbnf's grammar format (https://github.com/Dan-wanna-M/kbnf): the allowed token ids are those "
           'try_accept_new_token accepts'))
def accepts_omitted(d: Divergence) -> bool:
    """refimpl allows tokens kbnf's mask lacks, and a fresh kbnf engine after the same
    prefix accepts each of them (run here, in the comparing process)."""
    if d.error is not None or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    for t in d.only_refimpl:
        session = start(d.grammar, d.vocab)
        if not all(session.consume(p) for p in d.prefix) or session.engine.is_finished():
            return False
        if not session.consume(t):
            return False
    return True
