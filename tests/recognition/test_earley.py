"""The Earley parser with Leo items, on lexeme sequences (no lexer involved).

Oracles: a naive fixpoint recogniser (the set of lexeme strings up to a length that each
nonterminal derives), and the parser itself with Leo items switched off.
"""
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.errors import LimitError
from refimpl.grammar.ir import GrammarIR
from refimpl.limits import Limits
from refimpl.recognition.earley import Parser
from tests.support.budget import examples

LEXEMES = "abc"


def grammar(rules, start="S", lexemes=LEXEMES):
    """A GrammarIR from {"S": ["a S", ""], ...}: lowercase letters are lexemes."""
    ir = GrammarIR()
    syms = {ch: ir.add_lexeme(ch, ir.es.literal(ch.encode())) for ch in lexemes}
    for name in rules:
        syms[name] = ir.add_nonterminal(name)
    for name, alternatives in rules.items():
        for alt in alternatives:
            ir.add_rule(syms[name], [syms[s] for s in alt.split()])
    ir.start = syms[start]
    return ir


DEFAULT_LIMITS = Limits()


def recognize(ir, text, leo=True, limits=DEFAULT_LIMITS):
    """Accept `text` (one lexeme per character)? Also returns the parser and its top."""
    p, top = Parser(ir.compile(), limits, leo=leo), 1
    for ch in text:
        pushed = p.push(top, 1 << LEXEMES.index(ch))
        if not pushed:
            return False, p, top
        top = pushed
    return p.rows[top - 1].accepting, p, top


def derivable(rules, start, max_len):
    """Every lexeme string of length <= max_len that `start` derives (naive fixpoint)."""
    lang = {name: set() for name in rules}
    changed = True
    while changed:
        changed = False
        for name, alternatives in rules.items():
            for alt in alternatives:
                partial = {""}
                for sym in alt.split():
                    options = lang[sym] if sym in lang else {sym}
                    partial = {p + o for p in partial for o in options if len(p + o) <= max_len}
                new = partial - lang[name]
                if new:
                    lang[name] |= new
                    changed = True
    return lang[start]


# Grammars that break wrong variants of Leo's optimisation (docs/earley.md, "Leo items").
REGRESSIONS = [
    ({"S": ["", "S b b"]}, "bbbb", True),  # uniqueness must count every item with S after the dot
    ({"S": ["A"], "A": ["B a"], "B": ["", "S"]}, "a", True),  # needs the augmented start rule
    ({"S": ["A"], "A": ["B"], "B": ["", "S a"]}, "aa", True),  # transitive items of finished rows only
    ({"S": ["A"], "A": ["B"], "B": ["", "S a"]}, "aaa", True),
    ({"S": ["", "S b b"]}, "bbb", False),
]


@pytest.mark.parametrize("rules,text,expected", REGRESSIONS)
@pytest.mark.parametrize("leo", [True, False])
def test_leo_regressions(rules, text, expected, leo):
    for n in range(len(text) + 1):
        prefix = text[:n]
        assert recognize(grammar(rules), prefix, leo)[0] == (prefix in derivable(rules, "S", len(text)))
    assert recognize(grammar(rules), text, leo)[0] == expected


def test_right_recursion_is_linear_with_leo_items():
    rules = {"S": ["a S", ""]}
    n = 10_000
    ok, p, top = recognize(grammar(rules), "a" * n)
    assert ok
    sizes = [len(p.rows[j].items) for j in range(top)]
    assert max(sizes) <= 5, max(sizes)  # O(1) items per row
    ok, p, top = recognize(grammar(rules), "a" * 500, leo=False)
    assert ok
    assert len(p.rows[500].items) > 500  # without Leo: one completed item per level


rule_bodies = st.lists(st.sampled_from(["a", "b", "S", "T", "U"]), max_size=3).map(" ".join)
random_rules = st.fixed_dictionaries(
    {name: st.lists(rule_bodies, min_size=1, max_size=3) for name in ["S", "T", "U"]}
)


@settings(max_examples=examples(300))
@given(random_rules)
def test_random_grammars_agree_with_the_naive_recogniser(rules):
    max_len = 5
    language = derivable(rules, "S", max_len)
    ir = grammar(rules, lexemes="ab")
    for n in range(max_len + 1):
        for word in itertools.product("ab", repeat=n):
            text = "".join(word)
            with_leo = recognize(ir, text, True)[0]
            without = recognize(ir, text, False)[0]
            assert with_leo == without == (text in language), (rules, text)


def test_rows_push_and_reuse():
    ir = grammar({"S": ["a S", "b"]})
    p = Parser(ir.compile())
    a, b = 1 << 0, 1 << 1
    assert p.push(1, a) == 2
    r1 = p.rows[1]
    assert p.push(2, a) == 3 and p.rows_reused == 0
    assert p.push(1, a) == 2 and p.rows[1] is r1  # back to top 1: the same lexeme from the same parent row, reused
    assert p.rows_reused == 1
    assert p.push(2, b) == 3 and p.rows[2].accepting and p.rows[1] is r1
    assert p.push(2, 1 << 2) == 0 and p.rows[2].accepting  # "c" is not expected: nothing placed


def test_parsers_of_a_grammar_share_their_rows():
    g = grammar({"S": ["a S", "b"]}).compile()
    first, second = Parser(g), Parser(g)
    a, b = 1 << 0, 1 << 1
    first.push(first.push(1, a), a)
    assert second.rows[0] is first.rows[0] and (second.rows_built, second.rows_reused) == (0, 1)
    assert second.push(second.push(1, a), a) == 3 and second.rows[2] is first.rows[2]
    assert (second.rows_built, second.rows_reused) == (0, 3)
    assert second.push(3, b) == 4 and second.rows[3].accepting and second.rows_built == 1
    assert Parser(g, leo=False).rows[0] is not first.rows[0]  # another Leo setting: another tree
    assert Parser(g, Limits(rows=10)).rows[0] is not first.rows[0]  # other row limits too
    first.forget_children(0, 2)  # the tree is shared: committed rows keep their children
    assert first.rows[0].children


def test_a_full_tree_is_no_longer_shared(monkeypatch):
    from refimpl.recognition import earley

    monkeypatch.setattr(earley, "SHARED_ITEMS", 5)
    g = grammar({"S": ["a S", "b"]}).compile()
    first = Parser(g)
    top = 1
    while not first.tree.full:
        top = first.push(top, 1 << 0)
    second = Parser(g)
    assert second.rows[0] is not first.rows[0] and second.rows_built == 1  # a new tree
    first.forget_children(0, top - 1)  # the full tree's parsers forget as before
    assert not first.rows[0].children
    assert Parser(g).rows[0] is second.rows[0]


def test_trace_shows_items():
    ir = grammar({"S": ["a S", ""]})
    ok, p, top = recognize(ir, "aa")
    text = "\n".join(p.row_to_string(j) for j in range(top))
    assert "[S' → S •, 0]" in text and "[S → a • S, 1]" in text


def test_ambiguous_grammar_is_bounded():
    # E → E E | a is exponentially ambiguous; Earley stays cubic, and the item limit bounds it
    ir = grammar({"S": ["S S", "a"]})
    ok, p, top = recognize(ir, "a" * 200)
    assert ok
    with pytest.raises(LimitError) as info:
        recognize(ir, "a" * 2000, limits=Limits(items_per_row=1000))
    assert info.value.limit == "items_per_row"


def test_deep_grammars_need_no_recursion():
    depth = 10_000
    rules = {"N%d" % i: ["N%d a" % (i + 1), "b"] for i in range(depth)}
    rules["N%d" % depth] = ["b"]
    ok, _, _ = recognize(grammar(rules, start="N0"), "baa")
    assert ok
    chain = {"N%d" % i: ["N%d" % (i + 1)] for i in range(depth)}
    chain["N%d" % depth] = ["a N0", "b"]  # a unit chain closed into right recursion
    assert recognize(grammar(chain, start="N0"), "aaab")[0]


def test_rows_limit():
    ir = grammar({"S": ["a S", ""]})
    with pytest.raises(LimitError) as info:
        recognize(ir, "a" * 100, limits=Limits(rows=50))
    assert info.value.limit == "rows"
