"""Repetition as BNF: `x?`, `x*`, `x+` and `x{m,n}` as plain rules over fresh nonterminals,
the one way every frontend writes them.

`optional`, `star`, `plus` and `repeat` name their nonterminal after what it stands for
(`item*`, `item{3,5}`); asking twice for the same thing gives the same nonterminal
(`GrammarIR.derived_nonterminal`), so `a* b a*` makes one `a*`. `x{m,n}` is built from
powers of two, so a bound of 10,000 makes a few dozen rules, not 10,000.

>>> from refimpl.regex import ExprSet
>>> es = ExprSet()
>>> g = GrammarIR(es)
>>> a = g.add_lexeme('"a"', es.literal(b"a"))
>>> g.start = g.add_nonterminal("s")
>>> g.add_rule(g.start, (repeat(g, a, 1, 3),))
>>> print(g.to_text())
s: "a"{1,3}
"a"{1,3}: "a" "a"{0,2}
"a"{0,2}: "a"?
 | "a"{2}
"a"?: "a"
 | ""
"a"{2}: "a" "a"
<BLANKLINE>
"""
from __future__ import annotations

from typing import List, Optional

from .ir import GrammarIR

# Recursion direction. The helpers make LEFT-recursive rules: `X*: X* item | ε`.
# Plain Earley keeps O(1) items per row on left recursion (the item [X* → X* • item, k]
# is re-created from one completed [X*, k] per row), whereas right recursion
# `X*: item X* | ε` leaves one incomplete item per repetition already read, so a row
# holds O(n) items unless the parser uses Leo's transitive items. maskref's parser does
# use Leo items, so both are linear there; we still pick left recursion so that the cost
# does not hinge on the Leo optimisation (and on the accelerated backends implementing it
# exactly), and because it is what llguidance's documentation recommends to its users.


def _display(ir: GrammarIR, sym: int) -> str:
    """A symbol's name (the frontends already parenthesise groups: `(a b)`)."""
    return ir.symbol_name(sym)


def optional(ir: GrammarIR, sym: int) -> int:
    """`sym?`: a nonterminal X with X → sym | ε."""
    nt, created = ir.derived_nonterminal(("?", sym), _display(ir, sym) + "?")
    if created:
        ir.add_rule(nt, (sym,))
        ir.add_rule(nt, ())
    return nt


def star(ir: GrammarIR, sym: int) -> int:
    """`sym*`: X → X sym | ε (left recursive; see the note above on the direction)."""
    nt, created = ir.derived_nonterminal(("*", sym), _display(ir, sym) + "*")
    if created:
        ir.add_rule(nt, (nt, sym))
        ir.add_rule(nt, ())
    return nt


def plus(ir: GrammarIR, sym: int) -> int:
    """`sym+`: X → X sym | sym (left recursive)."""
    nt, created = ir.derived_nonterminal(("+", sym), _display(ir, sym) + "+")
    if created:
        ir.add_rule(nt, (nt, sym))
        ir.add_rule(nt, (sym,))
    return nt


def _exactly(ir: GrammarIR, sym: int, k: int) -> int:
    """`sym{k}` (k >= 1) by doubling: E(2j) → E(j) E(j), E(2j+1) → E(2j) sym.

    O(log k) nonterminals of one short rule each. Built bottom-up along the chain
    k, k/2 or k-1, ..., 1, so no recursion.
    """
    chain = []
    while k > 1:
        chain.append(k)
        k = k // 2 if k % 2 == 0 else k - 1
    result = sym
    for k in reversed(chain):
        nt, created = ir.derived_nonterminal(("{}", sym, k, k), "%s{%d}" % (_display(ir, sym), k))
        if created:
            ir.add_rule(nt, (result, result) if k % 2 == 0 else (result, sym))
        result = nt
    return result


def _below_power(ir: GrammarIR, sym: int, k: int) -> Optional[int]:
    """`sym{0,2^k-1}` as O_{k-1} ... O_1 O_0 with O_i = (sym{2^i})?; None (ε) for k = 0.

    Each count 0..2^k-1 has exactly one binary representation, so the rule is
    unambiguous when sym is, and a row of the parser holds O(k^2) items, not O(2^k).
    """
    if k == 0:
        return None
    if k == 1:
        return optional(ir, sym)
    nt, created = ir.derived_nonterminal(
        ("<2^", sym, k), "%s{0,%d}" % (_display(ir, sym), (1 << k) - 1)
    )
    if created:
        ir.add_rule(nt, tuple(optional(ir, _exactly(ir, sym, 1 << i)) for i in reversed(range(k))))
    return nt


def _at_most(ir: GrammarIR, sym: int, n: int) -> int:
    """`sym{0,n}` (n >= 1) in O(log n) rules, unambiguously.

    With 2^k the largest power of two <= n: a count c <= n is either below 2^k (any bit
    pattern of k bits) or 2^k plus a count <= n - 2^k, so
    U(n) → sym{0,2^k-1} | sym{2^k} U(n - 2^k), and U(0) = ε.
    """
    chain = []
    while n > 0:
        k = n.bit_length() - 1
        chain.append((n, k))
        n -= 1 << k
    rest: Optional[int] = None
    for n, k in reversed(chain):
        if n == 1:  # U(1) = sym | ε is just sym?
            rest = optional(ir, sym)
            continue
        nt, created = ir.derived_nonterminal(("{}", sym, 0, n), "%s{0,%d}" % (_display(ir, sym), n))
        if created:
            low = _below_power(ir, sym, k)
            ir.add_rule(nt, () if low is None else (low,))
            high = _exactly(ir, sym, 1 << k)
            ir.add_rule(nt, (high,) if rest is None else (high, rest))
        rest = nt
    assert rest is not None
    return rest


def repeat(ir: GrammarIR, sym: int, lo: int, hi: Optional[int]) -> int:
    """`sym{lo,hi}` (hi None: unbounded) as a symbol, in O(log hi) rules.

    `sym{lo,}` is sym{lo} sym*; `sym{lo,hi}` is sym{lo} sym{0,hi-lo}, both halves built
    by `_exactly` and `_at_most`. So `x{100000}` is a couple of dozen rules, not 100,000.
    `sym{0,0}` is a nonterminal whose only rule is ε; `sym{1,1}` is sym itself.
    """
    if lo < 0 or (hi is not None and hi < lo):
        raise ValueError("bad repetition bounds {%r,%r}" % (lo, hi))
    if (lo, hi) == (1, 1):
        return sym
    if (lo, hi) == (0, 1):
        return optional(ir, sym)
    if (lo, hi) == (0, None):
        return star(ir, sym)
    if (lo, hi) == (1, None):
        return plus(ir, sym)
    if lo == hi and lo > 0:
        return _exactly(ir, sym, lo)
    if hi is not None and hi > lo and lo == 0:
        return _at_most(ir, sym, hi)
    label = "%s{%d,%s}" % (_display(ir, sym), lo, "" if hi is None else hi)
    if hi == 0:
        label = "%s{0}" % _display(ir, sym)
    nt, created = ir.derived_nonterminal(("{}", sym, lo, hi), label)
    if created:
        parts: List[int] = []
        if lo > 0:
            parts.append(_exactly(ir, sym, lo))
        if hi is None:
            parts.append(star(ir, sym))
        elif hi > lo:
            parts.append(_at_most(ir, sym, hi - lo))
        ir.add_rule(nt, tuple(parts))
    return nt
