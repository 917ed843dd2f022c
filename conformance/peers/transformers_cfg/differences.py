"""transformers-cfg 0.2.7's known differences from maskref, each declared over its
predicate (docs/conformance.md lists them; docs/findings.md, T1-T9), tried in the order
declared. A predicate re-derives the peer's answer for every differing token with refimpl
under exactly one reading (reading.py: the grammar as the peer reads one construct, or
the token's bytes as its mask reads them), and recognises the divergence only if that
reading gives the peer's answer for every token.
"""
from __future__ import annotations

from typing import Callable

from ...differences import AFTER_EOS, KnownDifferences
from ...divergence import Divergence, compiled, utf8_prefix
from ...isolation import timed_out
from .reading import byte_mode, latin1_or_plain, matcher_after, peer_answers, peer_decode, read_grammar, tcfg_left_recursive
from .session import start

KNOWN_DIFFERENCES = KnownDifferences(AFTER_EOS)


def _plain(d: Divergence) -> bool:
    return d.error is None and d.refused is None and bool(d.differing()) and not d.after_eos


def grammar_reading(reading: str) -> Callable[[Divergence], bool]:
    def applies(d: Divergence) -> bool:
        """refimpl with the construct read as transformers-cfg reads it (and the tokens'
        bytes as its mask reads them) gives the peer's answer for every differing token."""
        if not _plain(d):
            return False
        g = read_grammar(d.grammar, reading)
        if g is None or not all(peer_answers(d, g)):
            return False
        # in byte mode, no token the grammar as written already explains (bytes-as-characters)
        return not byte_mode(d.grammar) or not any(peer_answers(d, compiled(d.grammar)))
    applies.__doc__ = "transformers-cfg reads %s" % reading
    return applies


def _refused_by_its_classes(d: Divergence) -> bool:
    """In byte mode the peer's mask allowed a token with a byte above 0x7F (each byte read as
    a character, as refimpl reading it so confirms), and its consume, which decodes UTF-8,
    refused it: refimpl refuses it too with `.` and `[^...]` read as the peer reads them
    (stopping at U+00FF)."""
    if d.error is not None or d.refused is None or not byte_mode(d.grammar):
        return False
    t = d.refused
    data = d.vocab.tokens[t]
    if t in d.vocab.eos_token_ids or all(b < 0x80 for b in data):
        return False
    probe = Divergence(d.grammar, d.vocab, d.prefix, d.step, [t], [])
    if not all(peer_answers(probe, compiled(d.grammar))):
        return False  # its mask would not have allowed it
    g = read_grammar(d.grammar, "latin1")
    m = None if g is None else matcher_after(g, d.vocab, d.text())
    return m is not None and not m.consume_bytes(data)


@KNOWN_DIFFERENCES.declare(
    "bytes-as-characters", "peer-bug",
    "when the grammar's text is ASCII, transformers-cfg's mask matches each byte of a token as one character "
    "(U+0000-U+00FF), while consuming decodes UTF-8: e.g. `[^\\n]` allows the lone bytes 0x80-0xFF, and "
    "`[^a]` allows `€` (three characters to the mask), which its consume then refuses (U+20AC is above its "
    "negated class's U+00FF)",
    ends_path=True)
def bytes_as_characters(d: Divergence) -> bool:
    """A refused token: see _refused_by_its_classes. Else: in byte mode, the peer's mask
    reads each byte of a token as one character: refimpl on the grammar, reading the
    tokens so, gives the peer's answer for every differing token, each of which has a
    byte above 0x7F."""
    if d.refused is not None:
        return _refused_by_its_classes(d)
    if not _plain(d) or not byte_mode(d.grammar):
        return False
    if any(t in d.vocab.eos_token_ids or all(b < 0x80 for b in d.vocab.tokens[t]) for t in d.differing()):
        return False
    return all(peer_answers(d, compiled(d.grammar)))


@KNOWN_DIFFERENCES.declare(
    "partial-character-at-end", "peer-bug",
    "where the grammar may end, transformers-cfg allows any token ending in an unfinished UTF-8 character "
    "(even C0 or F5-FF, or `a\\xF0\\x9Fa`: its decoder does not check the continuation bytes of a character "
    "begun in the same token), and EOS while a character is unfinished: a finished stack accepts every "
    "pending partial character",
    ends_path=True)
def partial_at_end(d: Divergence) -> bool:
    """Where the complete characters leave the grammar at a possible end, the peer allows a
    token after which a character is unfinished (as its decoder reads the bytes), and EOS
    while one is: a finished stack accepts any pending partial character."""
    if not _plain(d) or d.only_refimpl:
        return False
    chunks = [d.vocab.tokens[t] for t in d.prefix if t not in d.vocab.eos_token_ids]
    for t in d.only_engine:
        eos = t in d.vocab.eos_token_ids
        if (not eos and byte_mode(d.grammar)) or (eos and t != d.vocab.eos_token_ids[0]):
            return False
        read = peer_decode(chunks if eos else chunks + [d.vocab.tokens[t]])
        if read is None or not read[1]:
            return False
        m = matcher_after(compiled(d.grammar), d.vocab, read[0])
        if m is None or not m.is_accepting():
            return False
    return True


@KNOWN_DIFFERENCES.declare(
    "lax-continuation", "peer-bug",
    "transformers-cfg's UTF-8 decoder does not check the continuation bytes of a character begun in the same "
    "token: it allows the token `\\xC3a` where `[^a]` is expected, reading it as U+00E1",
    ends_path=True)
def lax_continuation(d: Divergence) -> bool:
    """The peer allows a token whose bytes are not UTF-8 after the text, because its decoder
    takes any byte as the continuation of a character begun in the same token (`\\xC3a`
    is U+00E1): refimpl allows the text as the peer decodes it."""
    if not _plain(d) or d.only_refimpl or byte_mode(d.grammar):
        return False
    chunks = [d.vocab.tokens[t] for t in d.prefix if t not in d.vocab.eos_token_ids]
    for t in d.only_engine:
        if t in d.vocab.eos_token_ids or utf8_prefix(d.text() + d.vocab.tokens[t]):
            return False
        read = peer_decode(chunks + [d.vocab.tokens[t]])
        if read is None or read[1] or matcher_after(latin1_or_plain(d.grammar), d.vocab, read[0]) is None:
            return False
    return True


KNOWN_DIFFERENCES.declare(
    "dot-no-newline", "semantic",
    "transformers-cfg's `.` is any character but a newline; GBNF's is any character",
    ends_path=True,
)(grammar_reading("dot-no-newline"))


KNOWN_DIFFERENCES.declare(
    "dot-latin1", "peer-bug",
    "transformers-cfg's `.` stops at U+00FF (its range is written 0-0xFF)",
    ends_path=True,
)(grammar_reading("dot-latin1"))


KNOWN_DIFFERENCES.declare(
    "negated-latin1", "peer-bug",
    "transformers-cfg's negated class `[^...]` is the complement within U+0000-U+00FF, so it "
    "never allows a character above U+00FF",
    ends_path=True,
)(grammar_reading("negated-latin1"))


KNOWN_DIFFERENCES.declare(
    "negated-range-end", "peer-bug",
    "transformers-cfg's negated class leaves out only the first to the next-to-last "
    "character of each range: `[^a-z]` allows `z`, `[^\\x00-\\x1F]` allows U+001F",
    ends_path=True,
)(grammar_reading("negated-range-end"))


KNOWN_DIFFERENCES.declare(
    "repetition-bounds", "peer-bug",
    "transformers-cfg expands `x{0}` as x, `x{0,m}` as x{1,m}, `x{0,}` and `x{1,}` as x, `x{2,}` "
    "as x+ and `x{n,}` as x(x{n-1})*",
    ends_path=True,
)(grammar_reading("repetition"))


@KNOWN_DIFFERENCES.declare(
    "no-nul", "peer-bug",
    "transformers-cfg never consumes U+0000 (its UTF-8 decoder's error value); in byte mode its mask still "
    "allows it",
    ends_path=True)
def nul(d: Divergence) -> bool:
    """The peer never consumes U+0000 (its decoder's error marker): refimpl allows tokens
    with a NUL byte that its mask leaves out, or (in byte mode, where the mask reads bytes)
    its consume refuses one its mask allowed."""
    if d.error is not None:
        return False
    if d.refused is not None:
        return b"\0" in d.vocab.tokens[d.refused] and d.refused not in d.vocab.eos_token_ids
    return (not d.only_engine and bool(d.only_refimpl) and not byte_mode(d.grammar)
            and all(b"\0" in d.vocab.tokens[t] for t in d.only_refimpl))


@KNOWN_DIFFERENCES.declare(
    "empty-token", "semantic",
    "transformers-cfg allows an empty token wherever its state is alive; maskref never allows one")
def empty_token(d: Divergence) -> bool:
    """The peer allows an empty token wherever its state is alive; refimpl never allows one."""
    return (d.error is None and d.refused is None and bool(d.only_engine) and not d.only_refimpl
            and all(t not in d.vocab.eos_token_ids and d.vocab.tokens[t] == b"" for t in d.only_engine))


@KNOWN_DIFFERENCES.declare(
    "one-eos", "semantic",
    "transformers-cfg has one EOS id (the tokenizer's); the vocabulary's other EOS ids are special "
    "tokens to it, never allowed")
def other_eos(d: Divergence) -> bool:
    """refimpl allows an EOS id that is not the peer's one EOS (the vocabulary's first),
    where the text may end; the peer sees it as a special token and never allows it."""
    if d.error is not None or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    if not all(t in d.vocab.eos_token_ids[1:] for t in d.only_refimpl):
        return False
    m = d.replay()
    return m is not None and m.is_accepting()


@KNOWN_DIFFERENCES.declare(
    "left-recursion", "peer-bug",
    "transformers-cfg raises RecursionError on a left-recursive grammar (also one it makes "
    "left-recursive: a repetition of something nullable, `\"\"*`); llama.cpp refuses one with "
    "an error, maskref parses it",
    ends_path=True)
def left_recursion(d: Divergence) -> bool:
    """The peer raised RecursionError on a grammar that, as it expands it, is left-recursive."""
    return d.error is not None and "RecursionError" in d.error and tcfg_left_recursive(d.grammar.source or "")


KNOWN_DIFFERENCES.declare(
    "dot-and-negated-latin1", "peer-bug",
    "both at once in one grammar: transformers-cfg's `.` and `[^...]` stop at U+00FF",
    ends_path=True,
)(grammar_reading("latin1"))


@KNOWN_DIFFERENCES.declare(
    "unproductive-prefixes", "peer-bug",
    "transformers-cfg allows the prefixes of a rule that derives no string (`r1 ::= \"a\" r1`): "
    "with `root ::= r1 | \"a\"` it allows `aaa`, though no output can ever end",
    ends_path=True)
def unproductive(d: Divergence) -> bool:
    """Every differing token is not EOS, and refimpl answers as the peer with each rule that
    derives no string given a way to stop (the peer keeps stacks that can never finish)."""
    return not any(t in d.vocab.eos_token_ids for t in d.differing()) and grammar_reading("unproductive")(d)


@KNOWN_DIFFERENCES.declare(
    "no-answer", "peer-bug",
    "transformers-cfg did not answer a mask within the time allowed (30 s): its stacks grow "
    "with the grammar's ambiguity (`root ::= (r1+) (\"ab\"+ | root | \"a\"+){1,2} | ...` on a "
    "7-token vocabulary after `a{a{a{`); refimpl answers at once",
    ends_path=True)
def no_answer(d: Divergence) -> bool:
    """The peer did not answer in time (the Isolated wrapper's PeerTimeout)."""
    return timed_out(d)


@KNOWN_DIFFERENCES.declare(
    "eos-refused", "peer-bug",
    "transformers-cfg's mask allows EOS where one of its stacks is finished, but consuming EOS asks "
    "`can_stop`, which looks only at the first stack of the set (in its iteration order) and so may "
    "refuse it")
def eos_refused(d: Divergence) -> bool:
    """The peer refused its EOS after the prefix, and its state there (replayed here, in a
    fresh session) has a finished stack that is not the first of its set."""
    if d.refused is None or not d.vocab.eos_token_ids or d.refused != d.vocab.eos_token_ids[0]:
        return False
    session = start(d.grammar, d.vocab)
    if not all(session.consume(t) for t in d.prefix):
        return False
    stacks = session.state.stacks
    return any(len(s) == 0 for s in stacks) and len(next(iter(stacks))) > 0
