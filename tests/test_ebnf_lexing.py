"""The check behind the character-grammar compiler (refimpl/grammar/ebnf/lexing.py): its
walk against the definition on small strings, and the shortcuts taken before walking."""
import itertools

from budget import examples
from hypothesis import given, settings, strategies as st
from test_exprs import ALPHABET, build, member, trees

from refimpl.grammar.ebnf.lexing import CLEAN, GOES_ON, TOO_BIG, _first_bytes, _meet, _overrun
from refimpl.regex.exprs import ExprSet
from refimpl.regex.relevance import check_empty

WORDS = [bytes(w) for n in range(5) for w in itertools.product(ALPHABET, repeat=n)]  # WORDS[:40]: at most 3 bytes


def goes_on(lexeme, other, following):
    """A non-empty match w of `lexeme` (at most 4 bytes) and a following byte b such that
    `other` goes on with w·b (some word of `other`, at most 3 bytes longer, starts so)."""
    return any(member(lexeme, w) and any(member(other, w + bytes([b]) + v) for v in WORDS[:40])
               for w in WORDS[1:] for b in following)


@settings(max_examples=examples(300), deadline=None)
@given(trees, trees, st.sets(st.sampled_from(list(ALPHABET)), min_size=1))
def test_the_walk_and_its_shortcuts_keep_the_definition(lexeme, other, following):
    es = ExprSet()
    a, u = build(es, lexeme), build(es, other)
    mask = sum(1 << b for b in following)
    first = {}
    answer = _overrun(es, a, u, mask, first)
    if goes_on(lexeme, other, following):
        assert answer in (GOES_ON, TOO_BIG)
    if answer == CLEAN:
        assert not goes_on(lexeme, other, following)
    # the overlap classes' test: a walk of the pairs, not the emptiness of an intersection
    assert _meet(es, a, u, first) == (not check_empty(es, es.intersection(a, u)))
    fa, fu = _first_bytes(es, a, first), _first_bytes(es, u, first)
    starts = sum(1 << b for b in ALPHABET if any(member(lexeme, bytes([b]) + v) for v in WORDS[:40]))
    assert starts & ~fa == 0  # every byte a match starts with (the skip needs no more)
    if not fa & fu:
        # the check skips such a pair as CLEAN, and calls their languages disjoint unless
        # both match the empty string
        assert answer == CLEAN
        assert check_empty(es, es.intersection(a, u)) == (not (es.nullable(a) and es.nullable(u)))
