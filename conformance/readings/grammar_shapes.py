"""Shapes of a character grammar (refimpl.frontends.ebnf.ast) that peers mishandle, for
the predicates of their known differences: which rules derive ε, which rules a rule can
begin with, or stand for alone, and whether those relations have a cycle (kbnf does not
answer on some unit cycles, llama.cpp on left recursion through a nullable prefix)."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Set, TypeVar

from refimpl.frontends.ebnf.ast import Alt, Budget, Literal, Node, Pattern, Ref, Repeat, Seq, Shortest, Substring, children
from refimpl.regex import ExprSet
from refimpl.regex.compiler import compile_ast


def _bottom_up(node: Node, value: Callable[[Node, List[bool]], bool]) -> bool:
    """value(node, its children's values), computed bottom-up with an explicit stack."""
    order: List[Node] = []
    todo = [node]
    while todo:
        n = todo.pop()
        order.append(n)
        todo.extend(children(n))
    values: Dict[int, bool] = {}
    for n in reversed(order):
        values[id(n)] = value(n, [values[id(k)] for k in children(n)])
    return values[id(node)]


def nullable(node: Node, nullable_rules: Set[str], es: ExprSet) -> bool:
    """Does the expression derive ε (the rules in `nullable_rules` do)?"""
    def value(n: Node, kids: List[bool]) -> bool:
        if isinstance(n, Literal):
            return not n.text
        if isinstance(n, Ref):
            return n.name in nullable_rules
        if isinstance(n, Pattern):
            return es.nullable(compile_ast(es, n.tree))
        if isinstance(n, Alt):
            return any(kids)
        if isinstance(n, Repeat):
            return n.lo == 0 or all(kids)
        # Seq, Shortest, Budget: their parts; Substring: ε is one; Chars, Token, Excluding: never ε
        return isinstance(n, Substring) or (isinstance(n, (Seq, Shortest, Budget)) and all(kids))
    return _bottom_up(node, value)


def nullable_rules(rules: Dict[str, Node], es: ExprSet) -> Set[str]:
    out: Set[str] = set()
    while True:
        more = {name for name, body in rules.items() if name not in out and nullable(body, out, es)}
        if not more:
            return out
        out |= more


def rule_edges(rules: Dict[str, Node], es: ExprSet, left: bool = False) -> Dict[str, Set[str]]:
    """A -> B where A's body can begin with B (`left`: what comes before B nullable) or be
    B alone (the rest of the body nullable on both sides)."""
    empty = nullable_rules(rules, es)
    edges: Dict[str, Set[str]] = {name: set() for name in rules}
    for name, body in rules.items():
        todo = [body]
        while todo:
            n = todo.pop()
            if isinstance(n, Ref):
                edges[name].add(n.name)
            elif isinstance(n, Seq):
                for i, x in enumerate(n.items):
                    rest = n.items[:i] if left else n.items[:i] + n.items[i + 1:]
                    if all(nullable(y, empty, es) for y in rest):
                        todo.append(x)
            elif isinstance(n, (Alt, Repeat, Shortest, Budget)):
                todo.extend(children(n))
    return edges


K = TypeVar("K")


def has_cycle(edges: Dict[K, Set[K]]) -> bool:
    """Does some rule reach itself?"""
    for first in edges:
        seen: Set[K] = set()
        todo = list(edges[first])
        while todo:
            n = todo.pop()
            if n == first:
                return True
            if n not in seen and n in edges:
                seen.add(n)
                todo.extend(edges[n])
    return False


def derives_only_empty(node: Node, rules: Dict[str, Node]) -> bool:
    """Is ε the only string the node derives (empty strings, and structure of them)?"""
    seen: Set[str] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, Ref):
            if n.name not in seen:
                seen.add(n.name)
                todo.append(rules[n.name])
        elif isinstance(n, Literal):
            if n.text:
                return False
        elif not isinstance(n, (Seq, Alt, Repeat)):
            return False
        else:
            todo.extend(children(n))
    return True


def productive_rules(rules: Dict[str, Node]) -> Set[str]:
    """The rules that derive some string (a rule like `r ::= r` derives none)."""
    out: Set[str] = set()
    while True:
        more = {name for name, body in rules.items() if name not in out and _productive(body, out)}
        if not more:
            return out
        out |= more


def _productive(node: Node, productive: Set[str]) -> bool:
    """Does the expression derive some string (the rules in `productive` do)? Every
    terminal derives one."""
    def value(n: Node, kids: List[bool]) -> bool:
        if isinstance(n, Ref):
            return n.name in productive
        if isinstance(n, Alt):
            return any(kids)
        if isinstance(n, Repeat):
            return n.lo == 0 or all(kids)
        return all(kids)
    return _bottom_up(node, value)


def let_unproductive_rules_stop(rules: Dict[str, Node]) -> bool:
    """Give every rule that derives no string an empty alternative, in place: the reading
    of engines that keep a stack which can never finish, so they allow the prefixes of an
    endless derivation (`r1 ::= "a" r1`). True if there was such a rule."""
    dead = set(rules) - productive_rules(rules)
    for name in dead:
        rules[name] = Alt(-1, [rules[name], Literal(-1, "")])
    return bool(dead)


#: a grammar reading: rewrites one construct (given the grammar text), None to keep it
Rewrite = Callable[[Node, str], Optional[Node]]


def rewrite(rules: Dict[str, Node], source: str, fn: Rewrite) -> bool:
    """Replace, in place, every node fn rewrites (nodes it builds have offset -1 and are
    not rewritten again, their parts are); True if anything changed. Explicit stack."""
    changed = False
    for name in list(rules):
        new = fn(rules[name], source)
        if new is not None:
            rules[name], changed = new, True
    todo = list(rules.values())
    while todo:
        n = todo.pop()
        if isinstance(n, Repeat):
            new = fn(n.node, source)
            if new is not None:
                n.node, changed = new, True
            todo.append(n.node)
            continue
        items = n.items if isinstance(n, Seq) else n.options if isinstance(n, Alt) else []
        for i, c in enumerate(items):
            new = fn(c, source)
            if new is not None:
                items[i], changed = new, True
            todo.append(items[i])
    return changed
