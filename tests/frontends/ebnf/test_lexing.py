"""The check behind the character-grammar compiler (refimpl/frontends/ebnf/lexing.py): its
walk against the definition on small strings, the shortcuts taken before walking, and
FOLLOW solved as inclusions against the textbook fixpoint."""
import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.strategies import gbnf_grammars as fuzz_gbnf
from refimpl import Grammar
from refimpl.errors import MaskrefError
from refimpl.frontends.ebnf import gbnf_to_ir
from refimpl.frontends.ebnf.lexing import CLEAN, END, GOES_ON, TOO_BIG, _first_bytes, _meet, _overrun, follow_lexemes
from refimpl.regex.exprs import ExprSet
from refimpl.regex.relevance import check_empty
from tests.support.budget import examples
from tests.support.paths import DATA
from tests.support.regex_strategies import EXPR_ALPHABET as ALPHABET
from tests.support.regex_strategies import build, member
from tests.support.regex_strategies import expr_trees as trees

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


def textbook_follow(ir):
    """FIRST and FOLLOW by passes over the rules until nothing changes (the definition
    follow_lexemes computes by solving the inclusions once)."""
    n_nt = len(ir.names)

    def key(sym):
        return sym if sym >= 0 else n_nt + ~sym

    nullable = [False] * n_nt + [lx.tokens is None and ir.es.nullable(lx.expr) for lx in ir.lexemes]
    first = [set() for _ in range(n_nt)] + [{i} for i in range(len(ir.lexemes))]
    follow = [set() for _ in nullable]
    follow[ir.start].add(END)
    rules = [(lhs, [key(s) for s in rhs]) for lhs, rhs in ir.rules]
    changed = True
    while changed:
        changed = False
        for lhs, keys in rules:
            if not nullable[lhs] and all(nullable[k] for k in keys):
                nullable[lhs] = changed = True
            for k in keys:
                if not first[k] <= first[lhs]:
                    first[lhs] |= first[k]
                    changed = True
                if not nullable[k]:
                    break
            trailer = set(follow[lhs])
            for k in reversed(keys):
                if not trailer <= follow[k]:
                    follow[k] |= trailer
                    changed = True
                trailer = (trailer | first[k]) if nullable[k] else set(first[k])
    return {i: follow[n_nt + i] for i in range(len(ir.lexemes))}, first[ir.start]


@settings(max_examples=examples(150), deadline=None)
@given(fuzz_gbnf())
def test_follow_sets_are_the_textbook_ones(text):
    try:
        ir = gbnf_to_ir(text)
    except MaskrefError:
        return
    assert follow_lexemes(ir) == textbook_follow(ir)


def test_follow_sets_of_the_grammar_cases():
    cases = json.loads((DATA / "grammar_cases.json").read_text(encoding="utf-8"))
    checked = 0
    for case in cases["cases"] + cases["compile_cases"]:
        try:
            g = (Grammar.from_gbnf if case["format"] == "gbnf" else Grammar.from_ebnf)(case["grammar"],
                                                                                      root=case.get("root", "root"))
        except MaskrefError:
            continue
        assert follow_lexemes(g.ir) == textbook_follow(g.ir), case["source"]
        checked += 1
    assert checked > 250, checked
