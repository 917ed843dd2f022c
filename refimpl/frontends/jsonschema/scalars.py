"""The scalar algebra: the null / boolean / number / string values a schema allows,
exactly. For a conjunction they are computed as ONE regular expression per type by
regex algebra (`allOf` is `&`, `anyOf` is `|`, `not` is complement within canonical
texts, `enum` a union of literals), and become one lexeme.

>>> from refimpl.frontends.jsonschema.compiler import compiler_for
>>> c = compiler_for({"anyOf": [{"type": "integer"}, {"enum": ["a", None]}], "not": {"const": 0}})
>>> s = c.scalars.of(c.comp.subschemas.root)
>>> s.null, sorted(s.booleans), c.scalars.name(s)
(True, [], "null|number'|string'")
"""
from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet, List, NamedTuple, Set

from ...errors import SchemaError
from .applicators import Applicators
from .compilation import Compilation
from .keywords import ScalarKeywords
from .languages import intersect, literal_union
from .values import is_number, number_text


class Scalars(NamedTuple):
    """The scalar values a schema allows: null?, which booleans, number texts, decoded
    strings (the last two as expressions)."""

    null: bool
    booleans: FrozenSet[bool]
    number: int
    string: int


class ScalarAlgebra:
    """Scalars of subschemas, combined through their applicators."""

    def __init__(self, comp: Compilation, applicators: Applicators, keywords: ScalarKeywords) -> None:
        self.comp = comp
        self.es = es = comp.es
        self.subschemas = comp.subschemas
        self.strings = comp.strings
        self.numbers = comp.numbers
        self.applicators = applicators
        self.keywords = keywords
        #: every scalar, and none
        self.universe = Scalars(True, frozenset((True, False)), self.numbers.number, self.strings.any_string)
        self.nothing = Scalars(False, frozenset(), es.NOTHING, es.NOTHING)
        self._scalars: Dict[int, Scalars] = {}

    def intersect(self, a: Scalars, b: Scalars) -> Scalars:
        """The scalars both allow."""
        es = self.es
        return Scalars(a.null and b.null, a.booleans & b.booleans,
                       intersect(es, a.number, b.number, self.numbers.number),
                       intersect(es, a.string, b.string, self.strings.any_string))

    def union(self, a: Scalars, b: Scalars) -> Scalars:
        """The scalars either allows."""
        es = self.es
        number, string = self.numbers.number, self.strings.any_string
        return Scalars(a.null or b.null, a.booleans | b.booleans,
                       number if number in (a.number, b.number) else es.union(a.number, b.number),
                       string if string in (a.string, b.string) else es.union(a.string, b.string))

    def complement(self, a: Scalars) -> Scalars:
        """The scalars `a` does not allow (numbers within canonical texts, so that no value
        of `a` comes back in another form)."""
        es = self.es
        if a.number == es.NOTHING:
            number = self.numbers.number
        elif a.number == self.numbers.number:
            number = es.NOTHING
        else:
            number = intersect(es, self.numbers.canonical, es.complement(a.number), None)
        if a.string == es.NOTHING:
            string = self.strings.any_string
        elif a.string == self.strings.any_string:
            string = es.NOTHING
        else:
            string = intersect(es, self.strings.any_string, es.complement(a.string), None)
        return Scalars(not a.null, frozenset((True, False)) - a.booleans, number, string)

    def of(self, n: int) -> Scalars:
        """The scalars node n allows, its in-place applicators included."""
        got = self._scalars.get(n)
        if got is not None:
            return got
        subschemas = self.subschemas

        def on_cycle(m: int) -> Scalars:
            raise SchemaError("circular in-place references (a subschema that applies to the same "
                              "value as itself through $ref/allOf/anyOf...) have no meaning", subschemas.pointer(m))

        def combine(m: int, get: Callable[[int], Scalars]) -> Scalars:
            v = subschemas.value(m)
            if v is True:
                return self.universe
            if v is False:
                return self.nothing
            s = self._own(m)
            for kw, kids in self.applicators.of(m):
                vals = [get(c) for c in kids]
                if kw in ("allOf", "$ref"):
                    for x in vals:
                        s = self.intersect(s, x)
                elif kw == "anyOf":
                    acc = vals[0]
                    for x in vals[1:]:
                        acc = self.union(acc, x)
                    s = self.intersect(s, acc)
                elif kw == "oneOf":
                    s = self.intersect(s, self._exactly_one(vals))
                elif kw == "not":
                    s = self.intersect(s, self.complement(vals[0]))
                else:
                    i, t, e = vals
                    s = self.intersect(s, self.union(self.intersect(i, t), self.intersect(self.complement(i), e)))
            return s

        return self.applicators.fold(n, self._scalars, lambda m: m, combine, on_cycle)

    def _exactly_one(self, vals: List[Scalars]) -> Scalars:
        out = self.nothing
        for i, x in enumerate(vals):
            others = self.nothing
            for j, y in enumerate(vals):
                if j != i:
                    others = self.union(others, y)
            out = self.union(out, self.intersect(x, self.complement(others)))
        return out

    def _own(self, n: int) -> Scalars:
        """The scalars node n allows by its own keywords (not its applicators)."""
        subschemas = self.subschemas
        v = subschemas.value(n)
        es = self.es
        types = subschemas.types(n)
        integer_only = types is not None and "integer" in types and "number" not in types
        null = types is None or "null" in types
        booleans = frozenset((True, False)) if types is None or "boolean" in types else frozenset()
        if types is None or "number" in types:
            number = self.numbers.number
        elif "integer" in types:
            number = self.numbers.integer
        else:
            number = es.NOTHING
        string = self.strings.any_string if types is None or "string" in types else es.NOTHING
        if number != es.NOTHING:
            number = intersect(es, number, self.keywords.number(n, integer_only), self.numbers.number)
        if string != es.NOTHING:
            string = intersect(es, string, self.keywords.string(n), self.strings.any_string)
        s = Scalars(null, booleans, number, string)
        if "const" in v:
            s = self.intersect(s, self._literals([v["const"]]))
        if "enum" in v:
            values = v["enum"]
            if not isinstance(values, list):
                raise SchemaError("enum must be an array", subschemas.pointer(n, "enum"))
            s = self.intersect(s, self._literals(values))
        return s

    def _literals(self, values: List[Any]) -> Scalars:
        """The scalars among enum/const values (arrays and objects are rules)."""
        es = self.es
        null = False
        booleans: Set[bool] = set()
        numbers: Set[str] = set()
        strings: Set[bytes] = set()
        for x in values:
            if x is None:
                null = True
            elif isinstance(x, bool):
                booleans.add(x)
            elif is_number(x):
                numbers.add(number_text(x))
            elif isinstance(x, str):
                strings.add(x.encode("utf-8"))
        return Scalars(null, frozenset(booleans), literal_union(es, [t.encode() for t in numbers]),
                       literal_union(es, list(strings)))

    def name(self, s: Scalars) -> str:
        """A name for the lexeme of `s`: the types it allows, primed when restricted."""
        es = self.es
        parts = []
        if s.null:
            parts.append("null")
        if s.booleans:
            parts.append("boolean" if len(s.booleans) == 2 else "true" if True in s.booleans else "false")
        if s.number != es.NOTHING:
            numbers = self.numbers
            parts.append("number" if s.number == numbers.number else "integer" if s.number == numbers.integer else "number'")
        if s.string != es.NOTHING:
            parts.append("string" if s.string == self.strings.any_string else "string'")
        return "|".join(parts)

    def string_lexeme(self, decoded: int) -> int:
        """The JSON texts of the decoded strings `decoded`: quoted, or with general
        \\uXXXX escapes when the option asks for them and only length is constrained."""
        es = self.es
        if self.comp.options["json_allow_general_unicode_escapes"]:
            bounds = self.strings.length_only(decoded)
            if bounds is not None:
                q = es.literal(b'"')
                return es.concat(q, es.repeat(self.strings.general_unit(), bounds[0], bounds[1]), q)
        return self.strings.quote(decoded)
