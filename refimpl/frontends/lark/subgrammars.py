"""Several grammars in one: nested `%lark { ... }`, `@name` references, and llguidance's
top-level grammar object `{"grammars": [...]}`.

As in llguidance, all the grammars share one context-free grammar, and each has a
lexeme class of its own: its lexemes are matched with its own `%ignore` (and
`ignore_once`), never with the enclosing grammar's. Two rules of llguidance's decide
where which `%ignore` applies (tests/frontends/lark/test_subgrammars.py checks them):

* a sub-grammar's `%ignore` may not come before its first lexeme: the first lexemes of a
  referenced grammar are put in a class with no `%ignore` (the *entry* copy below);
* the enclosing grammar's `%ignore` may not come there either, but it may again after the
  sub-grammar's last lexeme, before the next lexeme of the enclosing grammar.

`allow_initial_skip` and `allow_invalid_utf8` hold for the whole grammar once any of its
grammars sets them (llguidance merges them).

Each grammar is compiled once, from a worklist (`Subgrammars.run`), so a chain of 10,000
grammars each referring to the next costs no Python stack; references may be cyclic
(`@a` inside grammar `a`), as in llguidance. Nested `%lark` is at most MAX_NESTING deep
(reader.py).

>>> from refimpl.frontends.lark import lark_to_ir
>>> ir = lark_to_ir('start: "(" inner ")"\\ninner: %lark {\\nstart: "a"+\\n%ignore " "\\n}')
>>> sorted(ir.ignores) != [0]
True
"""
from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ...errors import GrammarError, SchemaError, scalar_text
from ...grammar.ir import GrammarIR
from ...grammar.simplify import productive_nonterminals
from ...limits import DEFAULT_LIMITS, Limits
from ...regex import ExprSet
from ..jsontext import JsonTextError, read_whole_json
from .ast import GrammarRef, Item, NestedLark, Node
from .compiler import Compiler
from .parametric import expand
from .reader import Reader
from .scanner import scan


class LarkSource:
    """A Lark grammar to compile: its text and, when already parsed, its items (a nested
    `%lark { }` is parsed with the text that holds it)."""

    def __init__(self, text: str, items: Optional[List[Item]] = None, label: str = "") -> None:
        self.text, self.items, self.label = text, items, label


class JsonSource:
    """A JSON schema grammar (`{"json_schema": ...}` of a top-level grammar object)."""

    def __init__(self, schema: Any, label: str = "") -> None:
        self.schema, self.label = schema, label


Source = Union[LarkSource, JsonSource]


class Subgrammars:
    """The grammars of one top-level grammar, compiled into one GrammarIR.

    `named` maps names to grammars for `@name`. Every reference is a nonterminal (made
    at once); the grammar it refers to is compiled later, from the worklist, and `run`
    finally links each reference to the entry copy of that grammar's start.
    """

    def __init__(self, es: ExprSet, limits: Limits, named: Optional[Dict[str, Source]] = None) -> None:
        self.ir = GrammarIR(es, limits)
        self.limits = limits
        self.named: Dict[str, Source] = dict(named or {})
        #: grammars not compiled yet, each with what it is for: its name, the nonterminal
        #: of a nested %lark { }, or None (an unnamed grammar of the list: only checked)
        self.queue: "deque[Tuple[Union[str, int, None], Source]]" = deque()
        self.start_of: Dict[str, int] = {}  # name -> start nonterminal, once compiled
        self.by_name: Dict[str, int] = {}  # name -> the nonterminal of `@name`
        self.links: List[Tuple[int, int]] = []  # (reference nonterminal, start nonterminal)

    def reference(self, node: Node, text: str) -> int:
        """The nonterminal standing for `@name` or a nested `%lark { }`."""
        ir = self.ir
        if isinstance(node, GrammarRef):
            if node.name not in self.named:
                raise GrammarError("unknown grammar @%s" % node.name, text, node.offset)
            nt = self.by_name.get(node.name)
            if nt is None:
                nt = self.by_name[node.name] = ir.add_nonterminal("@" + node.name)
            return nt
        assert isinstance(node, NestedLark)
        nt = ir.add_nonterminal("%lark")
        self.queue.append((nt, LarkSource(text, node.items)))
        return nt

    def run(self, root: Source, root_name: Optional[str] = None,
            others: Sequence[Tuple[Optional[str], Source]] = ()) -> GrammarIR:
        """Compile `root` (lexeme class 0), then `others` and every nested grammar (each
        once, in worklist order), and link the references; return the IR."""
        ir = self.ir
        ir.start = self._compile(root, True)
        if root_name is not None:
            self.start_of[root_name] = ir.start
        self.queue.extendleft(reversed(others))
        while self.queue:
            key, source = self.queue.popleft()
            start = self._compile(source, False)
            if isinstance(key, str):
                self.start_of[key] = start
            elif key is not None:
                self.links.append((key, start))
        self.links += [(nt, self.start_of[name]) for name, nt in self.by_name.items()]
        link_entries(ir, self.links)
        return ir

    def _compile(self, source: Source, root: bool) -> int:
        """The start nonterminal of one grammar, compiled into the shared IR."""
        if isinstance(source, JsonSource):
            return self._json(source, root)
        text = source.text
        try:
            if source.items is None:
                items = Reader(text, scan(text), self.limits).read_grammar()
            else:
                items = source.items
            items = expand(text, items, self.limits)
            compiler = Compiler(text, items, self.ir.es, self.limits, ir=self.ir, subgrammars=self)
            return compiler.compile_into(root)
        except GrammarError as e:
            if not source.label:
                raise
            raise GrammarError("%s: %s" % (source.label, e.message), e.text, e.offset) from None

    def _json(self, source: JsonSource, root: bool) -> int:
        """A JSON schema grammar: its whitespace is its class's %ignore, matched once."""
        from ..jsonschema import json_schema_to_ir, json_whitespace

        ir = self.ir
        try:
            cls = 0 if root else ir.lexeme_class_for(json_whitespace(ir.es, source.schema), once=True)
            return json_schema_to_ir(source.schema, ir=ir, lexeme_class=cls).start
        except SchemaError as e:
            raise GrammarError("%s: failed to compile JSON schema: %s" % (source.label, e)) from None


def link_entries(ir: GrammarIR, links: Sequence[Tuple[int, int]]) -> None:
    """For each (reference, start): reference → the entry copy of start (and ε if start
    derives ε). In the entry copy, the first lexeme of every derivation is in a lexeme
    class without %ignore, so nothing is skipped before a sub-grammar's first lexeme."""
    if not links:
        return
    by_lhs: Dict[int, List[Tuple[int, ...]]] = {}
    for lhs, rhs in ir.rules:
        by_lhs.setdefault(lhs, []).append(rhs)
    for ref, start in links:  # as seen by the copy: the reference stands for its start
        by_lhs.setdefault(ref, []).append((start,))
    nullable = nullable_symbols(ir, by_lhs)
    copier = EntryCopier(ir, by_lhs, nullable)
    for ref, start in links:
        ir.add_rule(ref, (copier.copy(start),))
        if nullable.get(start, False):
            ir.add_rule(ref, ())


def nullable_symbols(ir: GrammarIR, by_lhs: Dict[int, List[Tuple[int, ...]]]) -> Dict[int, bool]:
    """Which symbols derive ε (lexemes: their regex matches ε; nonterminals: true only).

    Deriving ε is being productive when every lexeme that cannot match ε counts as dead,
    so this is `simplify.productive_nonterminals` on those terms (a worklist, linear).
    """
    nullable: Dict[int, bool] = {~i: ir.es.nullable(lx.expr) for i, lx in enumerate(ir.lexemes)}
    rules = [(lhs, rhs) for lhs, alternatives in by_lhs.items() for rhs in alternatives]
    never_empty = {i for i, lx in enumerate(ir.lexemes) if not ir.es.nullable(lx.expr)}
    derives_empty = productive_nonterminals(rules, [False] * len(ir.names), never_empty)
    nullable.update((nt, True) for nt, empty in enumerate(derives_empty) if empty)
    return nullable


class EntryCopier:
    """`copy(A)`: a nonterminal deriving the non-empty strings of A, its first lexeme in
    the class without %ignore. For A → X1 … Xn it has A^ → Xi^ Xi+1 … Xn for each i
    whose X1 … Xi-1 all derive ε (a worklist, each nonterminal copied once)."""

    def __init__(self, ir: GrammarIR, by_lhs: Dict[int, List[Tuple[int, ...]]], nullable: Dict[int, bool]) -> None:
        self.ir, self.by_lhs, self.nullable = ir, by_lhs, nullable
        self.entry_class = ir.lexeme_class_for(None)
        self.copies: Dict[int, int] = {}
        self.todo: List[int] = []
        self.non_empty = ir.es.complement(ir.es.EPSILON)

    def copy(self, nt: int) -> int:
        """The entry copy of nonterminal `nt` (made with all it reaches, once)."""
        result = self._head(nt)
        while self.todo:
            a = self.todo.pop()
            for rhs in self.by_lhs.get(a, ()):
                for i, sym in enumerate(rhs):
                    self.ir.add_rule(self.copies[a], (self._head(sym),) + rhs[i + 1:])
                    if not self.nullable.get(sym, False):
                        break
        return result

    def _head(self, sym: int) -> int:
        """The entry form of one symbol: a lexeme in the entry class (its non-empty
        matches), or the copy of a nonterminal (queued the first time)."""
        ir = self.ir
        if sym < 0:
            lexeme = ir.lexemes[~sym]
            expr = lexeme.expr
            if ir.es.nullable(expr):
                expr = ir.es.intersection(expr, self.non_empty)
            entry = ir.add(replace(lexeme, expr=expr, lexeme_class=self.entry_class))
            if ~sym in ir.stops:
                ir.stops[~entry] = ir.stops[~sym]
            return entry
        copy = self.copies.get(sym)
        if copy is None:
            copy = self.copies[sym] = ir.add_nonterminal(ir.names[sym] + "^")
            if sym in ir.captures:
                ir.captures[copy] = ir.captures[sym]
            self.todo.append(sym)
        return copy


#: the fields of llguidance's TopLevelGrammar and GrammarWithLexer (api.rs)
TOP_LEVEL_FIELDS = ("grammars", "max_tokens")
GRAMMAR_FIELDS = ("name", "json_schema", "lark_grammar")


def top_level_to_ir(obj: Any, limits: Limits = DEFAULT_LIMITS) -> GrammarIR:
    """llguidance's top-level grammar object (a dict or JSON text) -> one GrammarIR.

    `{"grammars": [g0, g1, ...], "max_tokens": null}`: g0 is the start; each grammar has
    exactly one of "lark_grammar" (text) and "json_schema", and an optional "name" that
    `@name` refers to. Fields other than llguidance's are errors naming them (llguidance
    ignores them), and so is a "max_tokens" that is not null (not supported here).
    """
    if isinstance(obj, bytes):
        obj = obj.decode("utf-8", "surrogateescape")  # a byte that is not UTF-8: an error at its place
    if isinstance(obj, str):
        try:
            obj = read_whole_json(scalar_text(obj))
        except JsonTextError as e:
            raise GrammarError("the top-level grammar is not valid JSON: %s" % e.message, obj, e.offset) from None
    if not isinstance(obj, dict):
        raise GrammarError("the top-level grammar must be a JSON object with a \"grammars\" list")
    unknown = sorted(set(obj) - set(TOP_LEVEL_FIELDS))
    if unknown:
        raise GrammarError("unknown field(s) in the top-level grammar: %s (known: %s)"
                           % (", ".join(unknown), ", ".join(TOP_LEVEL_FIELDS)))
    if obj.get("max_tokens") is not None:
        raise GrammarError("the top-level grammar field max_tokens is not supported")
    grammars = obj.get("grammars")
    if not isinstance(grammars, list):
        raise GrammarError("the top-level grammar needs a \"grammars\" list")
    if not grammars:
        raise GrammarError("empty grammars array")
    named: Dict[str, Source] = {}
    sources = [_grammar_source(i, g, named) for i, g in enumerate(grammars)]
    names = [g.get("name") for g in grammars]
    subgrammars = Subgrammars(ExprSet(limits), limits, named)
    # every grammar of the list is compiled (so its errors are reported), as in llguidance
    return subgrammars.run(sources[0], names[0], list(zip(names[1:], sources[1:])))


def _grammar_source(i: int, g: Any, named: Dict[str, Source]) -> Source:
    """The source of grammar number `i` of the list (registered in `named`)."""
    if not isinstance(g, dict):
        raise GrammarError("grammar #%d must be a JSON object" % i)
    unknown = sorted(set(g) - set(GRAMMAR_FIELDS))
    if unknown:
        raise GrammarError("unknown field(s) in grammar #%d: %s (known: %s)"
                           % (i, ", ".join(unknown), ", ".join(GRAMMAR_FIELDS)))
    name = g.get("name")
    if name is not None and not isinstance(name, str):
        raise GrammarError("grammar #%d: \"name\" must be a string" % i)
    label = "grammar #%d%s" % (i, "" if name is None else " (@%s)" % name)
    lark, schema = g.get("lark_grammar"), g.get("json_schema")
    if lark is not None and schema is not None:
        raise GrammarError("%s: cannot have both lark_grammar and json_schema" % label)
    if lark is None and schema is None:
        raise GrammarError("%s: grammar must have either lark_grammar or json_schema" % label)
    if lark is not None and not isinstance(lark, str):
        raise GrammarError("%s: lark_grammar must be a string" % label)
    source: Source = LarkSource(lark, None, label) if lark is not None else JsonSource(schema, label)
    if name is not None:
        if name in named:
            raise GrammarError("duplicate grammar name: @%s" % name)
        named[name] = source
    return source
