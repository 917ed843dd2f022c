"""Disjointness of subschemas within one container type: a sound, cheap proof that no
array (object) satisfies both of two subschemas.

Why: an exact `oneOf` alternative is `kid_i` and the negation of every other kid, and a
negated object schema is a disjunction (a required property missing, or one property
failing its schema, ...). Distributing those disjunctions multiplies them: a `oneOf` of
six object types with six properties each makes ~6^5 leaf conjunctions (SchemaStore's
avro-avsc: 7,716 objects, minutes). But real `oneOf`s are mostly *discriminated*: the
alternatives differ in a required property's `const`/`enum` (`"type": "record"` vs
`"type": "array"`), or in which properties exist. When kid_i and kid_j are disjoint,
kid_i implies not-kid_j, so the negation is left out of alternative i — the language
does not change (A ∧ ¬B = A when A ∧ B = ∅), and no product is built. The same holds
for any negated atom beside a plain one (`not`, `if`/`else`).

The proof (`disjoint(a, b, "object")`) looks only at what holds for every value of a
and of b: the `required`, `properties` and `additionalProperties: false` of the nodes
they reach through `allOf`/`$ref` (disjunctions are not entered). a and b are disjoint
when some property p, required by either, has no value satisfying the schemas both give
it — decided by the scalar algebra (one regex per scalar type, emptiness checked with
fuel) and the container profiles — or is required by one and excluded by the other. An
unknown answer (fuel out, a cycle) is "not proven": the negation is kept, which is
exact, only slower.

>>> from refimpl import Grammar
>>> from refimpl.recognizer import Recognizer
>>> kinds = [{"type": "object", "properties": {"kind": {"const": k}, "x": {"type": "integer"}},
...           "required": ["kind"]} for k in ("a", "b", "c")]
>>> g = Grammar.from_json_schema({"oneOf": kinds})
>>> [Recognizer(g.compiled).consume_bytes(s) for s in (b'{"kind": "b", "x": 1}', b'{"kind": "d"}')]
[True, False]
"""
from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, List, NamedTuple, Set, Tuple

from ...errors import SchemaError
from .base import NONE, Atom, is_empty_language
from .index import FALSE
from .negation import Negations

#: nodes reached through allOf/$ref when gathering one subschema's facts (beyond: unknown)
_CLOSURE = 200


class ObjectFacts(NamedTuple):
    """What every object satisfying a subschema has: its required names, the schemas each
    named property must satisfy, the names each closed node (additionalProperties false
    without patternProperties) lets through, and the alternatives of the anyOf/oneOf
    it must satisfy (one of each list)."""

    required: Set[str]
    properties: Dict[str, List[int]]
    closed: List[Set[str]]
    choices: List[List[int]]


def merge(facts: Iterable[ObjectFacts]) -> ObjectFacts:
    """The facts of a conjunction: what each part has."""
    out = ObjectFacts(set(), {}, [], [])
    for f in facts:
        out.required.update(f.required)
        for name, nodes in f.properties.items():
            out.properties.setdefault(name, []).extend(nodes)
        out.closed.extend(f.closed)
        out.choices.extend(f.choices)
    return out


class Disjointness(Negations):
    """Proofs that subschemas share no object (memoised)."""

    def disjoint(self, a: int, b: int, T: str) -> bool:
        """True only if no T-value satisfies both node a and node b (False: not proven)."""
        return a != b and self.excluded(frozenset((a,)), b, T)

    def excluded(self, context: FrozenSet[int], n: int, T: str) -> bool:
        """True only if no T-value satisfies node n and every node of `context` (False:
        not proven). Besides the facts of n, the alternatives of an anyOf/oneOf that n
        applies in place are tried (one level: each alternative's own facts)."""
        if T != "object" or n in context:
            return False
        key = (context, n)
        got = self._excluded.get(key)
        if got is None:
            try:
                ctx = self.context_facts(context)
                mine = self.object_facts(n)
                both = merge((ctx, mine))
                got = self._objects_disjoint(both) or any(
                    all(self._objects_disjoint(merge((both, self.object_facts(a)))) for a in alts)
                    for alts in mine.choices)
            except SchemaError:  # reported where the schema is compiled, if it is
                got = False
            self._excluded[key] = got
        return got

    def context_facts(self, context: FrozenSet[int]) -> ObjectFacts:
        got = self._context_facts.get(context)
        if got is None:
            got = self._context_facts[context] = merge(self.object_facts(m) for m in sorted(context))
        return got

    def object_facts(self, n: int) -> ObjectFacts:
        """The facts of node n and of what it reaches through allOf/$ref."""
        got = self._object_facts.get(n)
        if got is not None:
            return got
        facts = ObjectFacts(set(), {}, [], [])
        seen: Set[int] = set()
        stack = [n]
        while stack and len(seen) < _CLOSURE:
            m = stack.pop()
            if m in seen:
                continue
            seen.add(m)
            v = self.value(m)
            if not isinstance(v, dict):
                continue
            req = v.get("required")
            if isinstance(req, list):
                facts.required.update(x for x in req if isinstance(x, str))
            props = v.get("properties")
            if isinstance(props, dict):
                for name, s in props.items():
                    facts.properties.setdefault(name, []).append(self.child(m, s))
            if v.get("additionalProperties") is False and not v.get("patternProperties"):
                facts.closed.append(set(props) if isinstance(props, dict) else set())
            for kw, kids in self.inplace(m):
                if kw in ("allOf", "$ref"):
                    stack.extend(reversed(kids))
                elif kw in ("anyOf", "oneOf"):
                    facts.choices.append(kids)
        self._object_facts[n] = facts
        return facts

    def _objects_disjoint(self, x: ObjectFacts) -> bool:
        """Do the facts of a conjunction contradict? A required name is in every object,
        with a value satisfying all its property schemas, and let through by every
        closed node."""
        for name in sorted(x.required):
            if any(name not in names for names in x.closed):
                return True
            schemas = x.properties.get(name)
            if schemas and self.values_empty(schemas):
                return True
        return False

    def values_empty(self, nodes: List[int]) -> bool:
        """True only if no JSON value satisfies every node (scalars by regex algebra;
        arrays and objects by their profiles)."""
        key = tuple(sorted(set(nodes)))
        got = self._values_empty.get(key)
        if got is not None:
            return got
        out = True
        if FALSE not in key:
            s = self.universe
            for n in key:
                s = self.s_and(s, self.scalars(n))
            es = self.es
            atoms: Tuple[Atom, ...] = tuple(Atom(n, False, ()) for n in key)
            out = (not s.null and not s.booleans and is_empty_language(es, s.number)
                   and is_empty_language(es, s.string)
                   and self.atoms_profile(atoms, "array") == NONE and self.atoms_profile(atoms, "object") == NONE)
        self._values_empty[key] = out
        return out
