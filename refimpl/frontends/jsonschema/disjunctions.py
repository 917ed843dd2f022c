"""The disjunctions of a schema and their alternatives, for one container type: `anyOf`
(each kid), `oneOf` (each kid and the negations of the others it may overlap: exactly
one), `if` (`if` and `then`, or not `if` and `else`), `enum`/`const` of arrays or
objects (each value as a schema), and per property of `dependentRequired`,
`dependentSchemas` and `dependencies` (the property absent, or present with what it
requires). The flattening (containers.py) distributes those that matter.

>>> from refimpl.frontends.jsonschema.compiler import compiler_for
>>> c = compiler_for({"dependentRequired": {"b": ["a"]}})
>>> s = c.comp.subschemas
>>> options, profiles = c.disjunctions.options(Disjunction(s.root, "dependentRequired", "b"), "object", ())
>>> [[s.value(a.node) for a in option] for option in options]
[[{'properties': {'b': False}}], [{'required': ['a', 'b']}]]
"""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from ...errors import SchemaError
from .compilation import Atom, Compilation, Unsupported
from .disjoint import Disjointness
from .negation import Negations
from .profiles import NONE, PARTIAL, Profiles
from .values import escape_pointer, json_type


class Disjunction(NamedTuple):
    """A disjunction's id: the node, its keyword, and for dependencies the property."""

    node: int
    keyword: str
    property: Optional[str]


class Disjunctions:
    """The alternatives of each disjunction, made once per container type and
    unevaluated-scope."""

    def __init__(self, comp: Compilation, profiles: Profiles, negation: Negations, disjoint: Disjointness) -> None:
        self.comp = comp
        self.subschemas = comp.subschemas
        self.profiles = profiles
        self.negation = negation
        self.disjoint = disjoint
        self._options: Dict[Tuple[Disjunction, str, Tuple[int, ...]], Tuple[List[List[Atom]], List[int]]] = {}
        self._dependencies: Dict[Tuple[int, str, str, str], int] = {}

    def options(self, gid: Disjunction, T: str, inner: Tuple[int, ...]) -> Tuple[List[List[Atom]], List[int]]:
        """The alternatives of disjunction `gid` for T-values under the unevaluated-scope
        `inner`, each a list of atoms that must all hold, and the T-profile of each."""
        key = (gid, T, inner)
        got = self._options.get(key)
        if got is None:
            options = self._alternatives(gid, T, inner)
            got = self._options[key] = (options, [self.profiles.of_atoms(o, T) for o in options])
        return got

    def _alternatives(self, gid: Disjunction, T: str, inner: Tuple[int, ...]) -> List[List[Atom]]:
        """The alternatives of a disjunction, each a list of atoms that must all hold."""
        n, k, sub = gid
        subschemas = self.subschemas
        v = subschemas.value(n)
        if k == "anyOf":
            return [[Atom(c, False, inner)] for c in subschemas.list_of(n, k)]
        if k == "oneOf":
            return self._exactly_one(n, T, inner)
        if k == "if":
            i = subschemas.child(n, v["if"])
            yes: List[Atom] = [Atom(i, False, inner)]
            no: List[Atom] = [Atom(i, True, ())]
            if "then" in v:
                yes.append(Atom(subschemas.child(n, v["then"]), False, inner))
            if "else" in v:
                no.append(Atom(subschemas.child(n, v["else"]), False, inner))
            return [yes, no]
        if k in ("enum", "const"):
            values = [v[k]] if k == "const" else v[k]
            if not isinstance(values, list):
                raise SchemaError("enum must be an array", subschemas.pointer(n, k))
            return [[Atom(subschemas.const_node(x, n), False, ())] for x in values if json_type(x) == T]
        # dependentRequired / dependentSchemas / dependencies, for property `sub`
        assert sub is not None
        dep = v[k][sub]
        absent = self._dependency_node(n, k, sub, {"properties": {sub: False}}, "absent")
        if isinstance(dep, list):
            if not all(isinstance(s, str) for s in dep):
                raise SchemaError("%s values must be arrays of strings" % k, subschemas.pointer(n, k))
            # the dependents first: a fixed order must pick one, and an object tends to
            # have its base members before the ones that require them
            present = self._dependency_node(n, k, sub, {"required": [d for d in dep if d != sub] + [sub]}, "present")
            return [[Atom(absent, False, inner)], [Atom(present, False, inner)]]
        present = self._dependency_node(n, k, sub, {"required": [sub]}, "present")
        return [[Atom(absent, False, inner)], [Atom(present, False, inner), Atom(subschemas.child(n, dep), False, inner)]]

    def _exactly_one(self, n: int, T: str, inner: Tuple[int, ...]) -> List[List[Atom]]:
        """The alternatives of node n's oneOf: option i is kids[i] and the negation of
        every other kid that is not disjoint from it (a disjoint one is implied false by
        kid i: no negation is built, disjoint.py; nor for a kid i that allows no T-value:
        its option is empty anyway, as for the array kid of `oneOf: [an object with
        additionalProperties, an array]` among objects). Only when a needed negation is not
        expressible does coerce_one_of (or lenient) fall back to anyOf, as llguidance
        always does with that option."""
        k = "oneOf"
        kids = self.subschemas.list_of(n, k)
        try:
            options = []
            for i, c in enumerate(kids):
                if self.profiles.of(c, T) == NONE:
                    options.append([Atom(c, False, inner)])
                    continue
                others = [d for j, d in enumerate(kids) if j != i and not self.disjoint.disjoint(c, d, T)]
                for d in others:
                    if self.profiles.of(d, T) == PARTIAL:
                        self.negation.of(d, T)
                options.append([Atom(c, False, inner)] + [Atom(d, True, ()) for d in others])
            return options
        except Unsupported as e:
            if not (self.comp.options["coerce_one_of"] or self.comp.lenient):
                raise SchemaError(
                    "oneOf cannot be enforced exactly: its alternatives may overlap and %s "
                    "(set coerce_one_of to treat it as anyOf, or lenient=True)" % e.reason,
                    e.pointer) from None
            self.comp.ignore(k, self.subschemas.pointer(n, k), "treated as anyOf (coerce_one_of): %s" % e.reason)
        return [[Atom(c, False, inner)] for c in kids]

    def _dependency_node(self, n: int, k: str, sub: str, value: Dict[str, Any], what: str) -> int:
        """The node of an alternative of dependency keyword k of node n for property
        `sub` (`what`: "absent" or "present"), made once."""
        key = (n, k, sub, what)
        got = self._dependencies.get(key)
        if got is None:
            got = self._dependencies[key] = self.subschemas.synth(value, n, k + "/" + escape_pointer(sub))
        return got
