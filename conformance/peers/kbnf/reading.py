"""kbnf's reading of refimpl's grammar kinds: it reads only its own EBNF dialect (`ebnf`
vectors with dialect "kbnf", from the rule `start`), and the shapes of its rules that it
mishandles, for the predicates of its known differences (maskref's compiled grammar is no
guide there: it drops rules that derive only ε)."""
from __future__ import annotations

from refimpl.frontends.ebnf.ast import Repeat, children
from refimpl.frontends.ebnf.kbnf import read_rules
from refimpl.regex import ExprSet

from ...readings.grammar_shapes import derives_only_empty, has_cycle, rule_edges
from ...vectors import GrammarSpec, NotSupported


def check_dialect(spec: GrammarSpec) -> None:
    """NotSupported unless the spec is kbnf's EBNF starting at `start`."""
    if spec.kind != "ebnf" or spec.options.get("dialect") != "kbnf":
        raise NotSupported("kbnf reads only its own dialect (ebnf vectors with dialect kbnf)")
    if spec.options.get("root", "start") != "start":
        raise NotSupported("kbnf starts at the rule `start` only")


def nullable_unit_cycle(source: str) -> bool:
    """Does some rule derive itself alone (A ⇒+ A), as kbnf's rules are written? kbnf does
    not answer on some such grammars (`start ::= (start)?;`)."""
    return has_cycle(rule_edges(read_rules(source), ExprSet()))


def repeats_only_empty(source: str) -> bool:
    """Does the grammar repeat something that derives only the empty string (`""*`)?"""
    rules = read_rules(source)
    todo = list(rules.values())
    while todo:
        n = todo.pop()
        if isinstance(n, Repeat) and (n.hi is None or n.hi > 1) and derives_only_empty(n.node, rules):
            return True
        todo.extend(children(n))
    return False
