"""The lexer (refimpl/recognition/lexer.py) against its definition.

A lexer state after reading w from the start state of a set of lexemes is, by
definition, the lexemes that are still alive after w (some continuation completes them)
and, among them, those that match w exactly — greedy and lazy apart. Lexemes here are
small patterns whose meaning Python's `re` gives independently, and whose live prefixes
all complete within two more bytes, so "alive" is checked by a bounded search. A state's
loop (the bytes, and the multi-byte characters, that lead back to it: computed from
derivatives and byte classes) is checked against the table itself, on the states random
regexes and grammars reach.
"""
import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.grammar.ir import GrammarIR
from refimpl.recognition.lexer import DEAD, GREEDY_ENDS, LAZY_ENDS, MULTIBYTE, Lexer
from refimpl.regex import compile_pattern
from refimpl.regex.exprs import ALL_BYTES
from tests.support.budget import examples
from tests.support.grammars import cfg_grammar, cfg_grammars, cfg_tokens, regex_grammar, regexes, token_lists, vocabulary

#: patterns read alike by refimpl and Python's re on these bytes; every live prefix of
#: each completes within two more bytes of ALPHABET
PATTERNS = ["a", "ab", "[ab]+", "b+", "[0-9]+", "a[bc]*c", "c?d", "(ab)+", "[^a]b", "a|bc"]
ALPHABET = b"abcd0 "


def lexer_of(patterns, lazy):
    ir = GrammarIR()
    lexemes = [ir.add_lexeme("L%d" % i, compile_pattern(ir.es, p), i in lazy) for i, p in enumerate(patterns)]
    start = ir.add_nonterminal("start")
    for lx in lexemes:
        ir.add_rule(start, [lx])
    ir.start = start
    return Lexer(ir.compile())


def matches(pattern, data):
    return re.fullmatch(pattern.encode(), data) is not None


def alive(pattern, data):
    return any(matches(pattern, data + bytes(rest)) for n in range(3) for rest in itertools.product(ALPHABET, repeat=n))


@settings(max_examples=examples(100))
@given(st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=4, unique=True), st.data())
def test_a_state_is_its_lexemes_alive_and_matching(patterns, data):
    lazy = set(data.draw(st.sets(st.integers(0, len(patterns) - 1))))
    allowed = data.draw(st.integers(1, (1 << len(patterns)) - 1))
    lexer = lexer_of(patterns, lazy)
    start = lexer.start_state(allowed)
    assert lexer.is_fresh(start) and not lexer.greedy_accepting[start] | lexer.lazy_accepting[start]
    word = data.draw(st.binary(max_size=4).map(lambda b: bytes(ALPHABET[x % len(ALPHABET)] for x in b)))
    s = start
    for i, b in enumerate(word):
        s = lexer.step(s, b)
        read = word[:i + 1]
        live = {k for k, p in enumerate(patterns) if allowed >> k & 1 and alive(p, read)}
        if not live:
            assert s == DEAD, (patterns, read)
            break
        assert s != DEAD and not lexer.is_fresh(s)
        assert {k for k in range(len(patterns)) if lexer.possible[s] >> k & 1} == live, (patterns, read)
        matching = {k for k in live if matches(patterns[k], read)}
        greedy = {k for k in range(len(patterns)) if lexer.greedy_accepting[s] >> k & 1}
        lazy_now = {k for k in range(len(patterns)) if lexer.lazy_accepting[s] >> k & 1}
        assert greedy == matching - lazy and lazy_now == matching & lazy, (patterns, read)
        assert lexer.ends[s] == (GREEDY_ENDS if greedy else 0) | (LAZY_ENDS if lazy_now else 0)


SAMPLE_CHARACTERS = [chr(c).encode() for c in (0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF,
                                                0x10000, 0x1F600, 0x10FFFF)]


def check_loops(grammar, vocab, choices):
    """Every lexer state a path reaches: its loop (Lexer.loop, from byte classes) is the
    set of bytes whose transition is the state itself."""
    m = Matcher(grammar, vocab)
    for choice in choices:
        allowed = [t for t in m.mask().allowed() if t not in vocab.eos_token_ids]
        if not allowed or not m.consume(allowed[choice % len(allowed)]):
            break
    lexer = m.recognizer.lexer
    for s in range(1, len(lexer.states)):
        loops = sum(1 << b for b in range(256) if lexer.step(s, b) == s)
        escapes = lexer.escapes[lexer.loop(s)]
        assert escapes & ALL_BYTES == ALL_BYTES & ~loops, lexer.describe(s)
        if not escapes & MULTIBYTE:  # every multi-byte character loops: these do
            for c in SAMPLE_CHARACTERS:
                t = s
                for b in c[:-1]:  # on the way: live, and no lazy lexeme ends
                    t = lexer.step(t, b)
                    assert t != DEAD and not lexer.ends[t] & LAZY_ENDS, (lexer.describe(s), c)
                assert lexer.step(t, c[-1]) == s, (lexer.describe(s), c)


@settings(max_examples=examples(100))
@given(regexes, token_lists, st.lists(st.integers(0, 1000), max_size=6))
def test_regex_loops(pattern, tokens, choices):
    check_loops(regex_grammar(pattern), vocabulary(tokens), choices)


@settings(max_examples=examples(100))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), max_size=6))
def test_cfg_loops(ir, tokens, choices):
    check_loops(cfg_grammar(ir), vocabulary(tokens), choices)


def test_a_string_state_loops_on_every_character():
    m = Matcher(Grammar.from_regex('"[^"\\\\]*"'), Vocabulary.from_bytes([b'"', "é".encode()]))
    assert m.consume(0) and m.consume(1)
    lexer = m.recognizer.lexer
    escapes = lexer.escapes[lexer.loop(m.recognizer.state)]
    assert not escapes & MULTIBYTE and escapes >> ord('"') & 1 and escapes >> 0xC3 & 1


def test_a_lazy_lexeme_that_matches_inside_a_character_does_not_loop_by_characters():
    """`.*\\xe2?` leads back to itself after every character, but matches after the lead
    byte \\xe2 of "€": lazy, it would end there, so characters must not loop for it."""
    from refimpl.recognition.lexer import Lexer, _loops

    for pattern, lazy_loops in ((r"(?s:.)*(?-u:\xe2)?", False), (r"(?s:.)*", True)):
        g = Grammar.from_regex(pattern)
        es, e = Lexer.of(g.compiled).es, g.compiled.lexemes[0].expr
        assert bool(_loops(es, e, False) & MULTIBYTE) and bool(_loops(es, e, True) & MULTIBYTE) == lazy_loops


def test_a_row_start_adds_the_skip_of_each_class_allowed():
    ir = GrammarIR()
    a = ir.add_lexeme('"a"', ir.es.literal(b"a"))
    start = ir.add_nonterminal("start")
    ir.add_rule(start, [a, a])
    ir.start, ir.ignore = start, ir.es.literal(b" ")
    lexer = Lexer(ir.compile())
    skip = lexer.skip_mask
    assert skip and lexer.possible[lexer.start_after(1 << 0)] == 1 | skip  # "a" and %ignore
    assert lexer.start_after(1 << 0) == lexer.row_start(1 << 0, False, False)
    assert lexer.possible[lexer.row_start(1 << 0, True, False)] == 1  # not before the first lexeme
    assert lexer.possible[lexer.without(lexer.start_after(1), skip)] == 1


@pytest.mark.parametrize("dead_first", [b"x", b"ax"])
def test_dead_is_state_zero_and_stays(dead_first):
    lexer = lexer_of(["a+"], set())
    s = lexer.start_state(1)
    for b in dead_first:
        s = lexer.step(s, b)
    assert s == DEAD and all(lexer.step(DEAD, b) == DEAD for b in range(256))
