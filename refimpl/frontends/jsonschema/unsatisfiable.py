"""Why a schema allows no value: when the start nonterminal derives no text, the reasons
the components recorded on the way (the compilation's `node_reasons`,
`nonterminal_reasons` and `required_of`) are read from the start, breadth-first through
what derives nothing, and the likeliest one is raised — llguidance's messages where it
has them ("Unsatisfiable schema: minimum (10) is greater than maximum (5)").

>>> from refimpl import SchemaError
>>> from refimpl.frontends.jsonschema.compiler import compiler_for
>>> c = compiler_for({"allOf": [{"type": "integer", "minimum": 10}, {"maximum": 5}]})
>>> try:
...     c.unsatisfiable.check(c.run(c.comp.subschemas.root))
... except SchemaError as e:
...     print(e.message)
Unsatisfiable schema: minimum (10) is greater than maximum (5)
"""
from __future__ import annotations

from decimal import Decimal
from typing import Dict, List, Optional, Set, Tuple

from ...errors import SchemaError
from ...grammar.simplify import productive_nonterminals
from .applicators import Applicators
from .compilation import Atom, Compilation, Reason
from .nonterminals import Nonterminals
from .subschemas import trivial
from .values import is_number, number_text, to_decimal


class Unsatisfiable:
    """The check that a compiled schema allows some value, and its message."""

    def __init__(self, comp: Compilation, applicators: Applicators, nonterminals: Nonterminals) -> None:
        self.comp = comp
        self.subschemas = comp.subschemas
        self.applicators = applicators
        self.nonterminals = nonterminals

    def check(self, start: int) -> None:
        """SchemaError if the schema allows no value at all (`start` derives no text),
        with the likeliest reason: a required property whose value allows nothing, a
        container's reason, a scalar's; met breadth-first from `start` through the
        nonterminals that derive nothing."""
        rules = self.comp.ir.rules[self.comp.first_rule:]
        productive = productive_nonterminals(rules, [i < self.comp.first_name for i in range(len(self.comp.ir.names))])
        if productive[start]:
            return
        by_lhs: Dict[int, List[Tuple[int, ...]]] = {}
        for lhs, rhs in rules:
            by_lhs.setdefault(lhs, []).append(rhs)
        seen = {start}
        queue = [start]
        for nt in queue:
            for member in self.comp.required_of.get(nt, ()):
                if not productive[member.value_nt]:
                    raise SchemaError("Unsatisfiable schema: required property '%s' is unsatisfiable" % member.name,
                                      self.subschemas.pointer(member.where))
            why = self.comp.nonterminal_reasons.get(nt)
            if why is not None:
                raise SchemaError("Unsatisfiable schema: " + why.message, why.pointer)
            if nt in self.nonterminals.value_atoms:
                reason = self._value_reason(self.nonterminals.value_atoms[nt])
                if reason is not None and not any(not productive[s] for rhs in by_lhs.get(nt, ()) for s in rhs if s >= 0):
                    raise SchemaError("Unsatisfiable schema: " + reason.message, reason.pointer)
            for rhs in by_lhs.get(nt, ()):
                for s in rhs:
                    if s >= 0 and not productive[s] and s not in seen:
                        seen.add(s)
                        queue.append(s)
        for nt in queue:
            if nt in self.nonterminals.value_atoms:
                reason = self._value_reason(self.nonterminals.value_atoms[nt])
                if reason is not None:
                    raise SchemaError("Unsatisfiable schema: " + reason.message, reason.pointer)
        raise SchemaError("Unsatisfiable schema: no JSON value satisfies it", self.subschemas.pointer(self.subschemas.root))

    def _value_reason(self, atoms: Tuple[Atom, ...]) -> Optional[Reason]:
        """Why no scalar satisfies these atoms: a recorded reason of a subschema applying
        in place, or bounds that contradict across allOf."""
        closure = self._in_place_closure(atoms)
        for n in closure:
            reason = self._node_reason(n)
            if reason is not None:
                return reason
        return self._bounds_reason(closure)

    def _in_place_closure(self, atoms: Tuple[Atom, ...]) -> List[int]:
        """The plain atoms' nodes and what they reach through allOf/$ref (at most 1,000)."""
        closure: List[int] = []
        seen: Set[int] = set()
        stack = [n for n, neg, _ in reversed(atoms) if not neg]
        while stack and len(closure) < 1000:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            closure.append(n)
            for kw, kids in self.applicators.of(n):
                if kw in ("allOf", "$ref"):
                    stack.extend(reversed(kids))
        return closure

    def _node_reason(self, n: int) -> Optional[Reason]:
        """Why node n allows nothing by itself, if it is plain to see."""
        if n in self.comp.node_reasons:
            return self.comp.node_reasons[n]
        v = self.subschemas.value(n)
        if v is False:
            return Reason("the schema is false", self.subschemas.pointer(n))
        if not isinstance(v, dict):
            return None
        if v.get("enum") == []:
            return Reason("enum is empty", self.subschemas.pointer(n, "enum"))
        if "not" in v and trivial(v["not"]):
            return Reason("'not' excludes every value", self.subschemas.pointer(n, "not"))
        for kw in ("anyOf", "oneOf"):
            if isinstance(v.get(kw), list) and all(x is False for x in v[kw]):
                return Reason("all options in %s are unsatisfiable" % kw, self.subschemas.pointer(n, kw))
        return None

    def _bounds_reason(self, closure: List[int]) -> Optional[Reason]:
        """The numeric bounds of the nodes of `closure`, if they contradict."""
        lo: Optional[Tuple[Decimal, str]] = None
        hi: Optional[Tuple[Decimal, str]] = None
        for n in closure:
            v = self.subschemas.value(n)
            if not isinstance(v, dict):
                continue
            for key in ("minimum", "exclusiveMinimum"):
                if is_number(v.get(key)) and (lo is None or to_decimal(v[key]) > lo[0]):
                    lo = (to_decimal(v[key]), key)
            for key in ("maximum", "exclusiveMaximum"):
                if is_number(v.get(key)) and (hi is None or to_decimal(v[key]) < hi[0]):
                    hi = (to_decimal(v[key]), key)
        if lo is not None and hi is not None and lo[0] > hi[0]:
            return Reason("%s (%s) is greater than %s (%s)" % (lo[1], number_text(lo[0]), hi[1], number_text(hi[0])),
                          self.subschemas.pointer(closure[0]))
        return None
