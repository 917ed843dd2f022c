"""Compacted Earley sets (refimpl/recognition/compaction.py): equal keys, the same continuations.

Random context-free grammars (left, right and middle recursion, ε-rules, ambiguity) over
three one-byte lexemes; every lexeme sequence up to a length is parsed, and parser states
whose keys are equal must allow the same lexemes and accept alike after every
continuation up to a depth. Each of compaction's three observations is checked on its
own (added to the plain key) and all together; and compaction must merge something
(else the cache built on it would never hit).
"""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.errors import GrammarError
from refimpl.grammar.ir import GrammarIR
from refimpl.recognition import compaction
from refimpl.recognition.compaction import Compaction, Returns
from refimpl.recognition.earley import Parser
from tests.support.budget import examples

SYMBOLS = ["N0", "N1", "N2", "a", "b", "c"]
bodies = st.lists(st.sampled_from(SYMBOLS), max_size=3)
VARIANTS = {
    "drop": dict(drop=True, renumber=False, leo=False),
    "renumber": dict(drop=False, renumber=True, leo=False),
    "leo": dict(drop=False, renumber=False, leo=True),
    "all": dict(drop=True, renumber=True, leo=True),
}


@st.composite
def grammars(draw):
    ir = GrammarIR()
    syms = {c: ir.add_lexeme('"%s"' % c, ir.es.literal(c.encode())) for c in "abc"}
    syms.update({n: ir.add_nonterminal(n) for n in ("N0", "N1", "N2")})
    for n in ("N0", "N1", "N2"):
        for body in draw(st.lists(bodies, min_size=1, max_size=3)):
            ir.add_rule(syms[n], [syms[s] for s in body])
    ir.start = syms["N0"]
    try:
        return ir.compile()
    except GrammarError:
        return None


def configurations(g, length):
    """Every lexeme sequence up to `length` the parser takes, depth first."""
    p = Parser(g)
    out = []

    def visit(path, top):
        out.append(tuple(path))
        if len(path) == length:
            return
        for lexeme in range(len(g.lexemes)):
            after = p.push(top, 1 << lexeme)
            if after:
                visit(path + [lexeme], after)

    visit([], 1)
    return out


def parsed(g, path):
    """The parser after the lexemes of `path`, and its top."""
    p, top = Parser(g), 1
    for lexeme in path:
        top = p.push(top, 1 << lexeme)
        assert top
    return p, top


def future(p, top, depth):
    """What the parser does next: allowed lexemes, acceptance, and so on after each."""
    row = p.rows[top - 1]
    if depth == 0:
        return (row.allowed, row.accepting)
    after = []
    for lexeme in range(p.g.n_nonterminals and 3):
        pushed = p.push(top, 1 << lexeme)
        if pushed:
            after.append((lexeme, future(p, pushed, depth - 1)))
    return (row.allowed, row.accepting, tuple(after))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@settings(max_examples=examples(150))
@given(grammars())
def test_equal_keys_have_the_same_future(variant, g):
    if g is None:
        return
    groups = {}
    for path in configurations(g, 6):
        p, top = parsed(g, path)
        groups.setdefault(Compaction(p).key(top, **VARIANTS[variant]), []).append(path)
    for paths in groups.values():
        expected = future(*parsed(g, paths[0]), 3)
        for path in paths[1:]:
            assert future(*parsed(g, path), 3) == expected, (paths[0], path)


@pytest.mark.parametrize("recursion", ["left", "right"])
def test_compaction_merges_repetitions(recursion):
    """A list of items: after each comma the rows differ, the compacted key not. Left
    recursion keeps every origin at 0, so dropping items is enough; right recursion opens
    a row per item, so it takes renumbering and Leo's short cut."""
    ir = GrammarIR()
    x, comma = ir.add_lexeme('"x"', ir.es.literal(b"x")), ir.add_lexeme('","', ir.es.literal(b","))
    lst = ir.add_nonterminal("list")
    ir.add_rule(lst, [x])
    ir.add_rule(lst, [lst, comma, x] if recursion == "left" else [x, comma, lst])
    ir.start = lst
    g = ir.compile()
    keys = {v: set() for v in VARIANTS}
    plain = set()
    for n in range(2, 8):
        p, top = parsed(g, [0, 1] * n)
        plain.add(tuple(tuple(r.items) for r in p.rows[:top]))
        for v in VARIANTS:
            keys[v].add(Compaction(p).key(top, **VARIANTS[v]))
    assert len(plain) == 6 and len(keys["all"]) == 1
    assert len(keys["drop"]) == (1 if recursion == "left" else 6)


def nested_grammar():
    ir = GrammarIR()
    lb, rb, a = (ir.add_lexeme('"%s"' % c, ir.es.literal(c.encode())) for c in "[]a")
    x = ir.add_nonterminal("x")
    ir.add_rule(x, [lb, x, rb])
    ir.add_rule(x, [a])
    ir.start = x
    return ir.compile()


def test_a_key_costs_the_top_row_not_the_nesting():
    """The parts each row returns are kept beside it (Compaction's memo column): 3,000
    nested brackets, one key per bracket, number a bounded few parts per step (the walk
    down the stack is never repeated) and recurse on nothing."""
    g = nested_grammar()
    p, top = Parser(g), 1
    compaction = Compaction(p)
    returns = Returns.of(g)
    made, keys = [], set()
    for _ in range(3000):
        before = returns._next
        keys.add(compaction.key(top))
        made.append(returns._next - before)
        top = p.push(top, 1)  # "["
        assert top
    assert max(made[1:]) <= 2 and len(keys) == 3000  # each depth needs its own "]"s


def test_parts_numbered_again_after_a_reset_only_miss(monkeypatch):
    """Beyond MAX_PARTS the numbering starts afresh: a key made after it may differ from an
    equal one made before (a cache miss), but keys stay sound."""
    monkeypatch.setattr(compaction, "MAX_PARTS", 2)
    g = nested_grammar()
    futures = {}
    for depth in (1, 2, 3, 1, 2, 3, 2):
        p, top = parsed(g, [0] * depth)
        futures.setdefault(Compaction(p).key(top), set()).add(future(p, top, 3))
    assert all(len(f) == 1 for f in futures.values())
    assert len(futures) > 3  # three depths, and an equal state keyed again after a reset
