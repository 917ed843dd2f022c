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

The proof (`disjoint(a, b, "object")`, `excluded(context, n, "object")`) looks only at
what holds for every value of each side: the `required`, `properties` and
`additionalProperties: false` of the nodes reached through `allOf`/`$ref` (and, for n,
one level of its `anyOf`/`oneOf` alternatives). The sides are disjoint when some property
p, required by either, has no value satisfying the schemas both give it, or is required
by one and excluded by the other. "No value" is decided cheaply, per scalar type, from
each schema's scalars (scalars.py) without building their intersection: null and the
booleans as sets; numbers only when one schema allows none; strings when one schema
allows none, or when the words of a `const`/`enum` (the discriminators) each fail some
schema's string regex; arrays and objects by the container profiles. Anything else is
"not proven" (two patterns' intersection is never searched: that took seconds per pair
on SchemaStore's cloudify): the negation is kept, which is exact, only slower.

>>> from refimpl import Grammar
>>> from refimpl.recognizer import Recognizer
>>> kinds = [{"type": "object", "properties": {"kind": {"const": k}, "x": {"type": "integer"}},
...           "required": ["kind"]} for k in ("a", "b", "c")]
>>> g = Grammar.from_json_schema({"oneOf": kinds})
>>> [Recognizer(g.compiled).consume_bytes(s) for s in (b'{"kind": "b", "x": 1}', b'{"kind": "d"}')]
[True, False]
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, List, NamedTuple, Optional, Set, Tuple

from ...errors import SchemaError
from ...regex.derivative import derivative
from .base import NONE, Atom
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


class Context:
    """The plain subschemas known to hold while a conjunction is flattened, and their
    object facts, merged as they come (`facts` is None for arrays: no proofs there)."""

    def __init__(self, facts: Optional[ObjectFacts]) -> None:
        self.nodes: Set[int] = set()
        self.facts = facts

    def add(self, n: int, facts: Optional[ObjectFacts]) -> None:
        if n in self.nodes:
            return
        self.nodes.add(n)
        if self.facts is not None and facts is not None:
            mine = self.facts
            mine.required.update(facts.required)
            for name, nodes in facts.properties.items():
                have = mine.properties.setdefault(name, [])
                have.extend(m for m in nodes if m not in have)
            mine.closed.extend(facts.closed)


class Disjointness(Negations):
    """Proofs that subschemas share no object."""

    def context(self, T: str, nodes: Iterable[int]) -> Context:
        """A context holding `nodes` (for T-values)."""
        ctx = Context(ObjectFacts(set(), {}, [], []) if T == "object" else None)
        for n in nodes:
            self.add_to_context(ctx, n)
        return ctx

    def add_to_context(self, ctx: Context, n: int) -> None:
        try:
            ctx.add(n, self.object_facts(n) if ctx.facts is not None else None)
        except SchemaError:  # reported where the schema is compiled, if it is
            ctx.add(n, None)

    def disjoint(self, a: int, b: int, T: str) -> bool:
        """True only if no T-value satisfies both node a and node b (False: not proven)."""
        if T != "object" or a == b:
            return False
        key = (a, b)
        got = self._disjoint.get(key)
        if got is None:
            got = self._disjoint[key] = self.excluded(self.context(T, (a,)), b, T)
        return got

    def excluded(self, context: Context, n: int, T: str) -> bool:
        """True only if no T-value satisfies node n and every node of `context` (False:
        not proven). Besides the facts of n, the alternatives of an anyOf/oneOf that n
        applies in place are tried (one level: each alternative's own facts)."""
        ctx = context.facts
        if T != "object" or ctx is None or n in context.nodes:
            return False
        try:
            mine = self.object_facts(n)
            return self._contradicts((ctx,), mine) or any(
                all(self._contradicts((ctx, mine), self.object_facts(a)) for a in alts) for alts in mine.choices)
        except SchemaError:  # reported where the schema is compiled, if it is
            return False

    def object_facts(self, n: int) -> ObjectFacts:
        """The facts of node n and of what it reaches through allOf/$ref."""
        got = self._object_facts.get(n)
        if got is not None:
            return got
        facts = ObjectFacts(set(), {}, [], [])
        for m, v in self._conjuncts(n):
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
                if kw in ("anyOf", "oneOf"):
                    facts.choices.append(kids)
        self._object_facts[n] = facts
        return facts

    def _conjuncts(self, n: int) -> Iterator[Tuple[int, Dict[str, Any]]]:
        """Node n and the nodes it reaches through allOf/$ref — all of which hold of one
        value —, each once and at most _CLOSURE of them, with their schema objects."""
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
            yield m, v
            for kw, kids in self.inplace(m):
                if kw in ("allOf", "$ref"):
                    stack.extend(reversed(kids))

    def _contradicts(self, bases: Tuple[ObjectFacts, ...], extra: ObjectFacts) -> bool:
        """Do the facts of `extra` contradict those of `bases`? A name any of them
        requires is in every common object, let through by every closed node, with a
        value satisfying every property schema given to it. Only what `extra` adds is
        checked (a contradiction among the bases alone is not this proof's business):
        the work is proportional to `extra`, not to a context that grows."""
        for name in extra.required:
            if any(name not in names for b in bases for names in b.closed):
                return True
        if extra.closed:
            required = set(extra.required).union(*(b.required for b in bases))
            if any(name not in names for name in required for names in extra.closed):
                return True
        for name, mine in extra.properties.items():
            if name in extra.required or any(name in b.required for b in bases):
                schemas = [m for b in bases for m in b.properties.get(name, ())] + mine
                if self.values_empty(schemas):
                    return True
        return False

    def values_empty(self, nodes: List[int]) -> bool:
        """True only if no JSON value satisfies every node (scalars by regex algebra;
        arrays and objects by their profiles). Strings are searched only through the
        words of a node's `const`/`enum` (the discriminators), each read through the
        conjunction's string regex: two long patterns' intersection is "not proven",
        as searching it took seconds per pair (SchemaStore's cloudify)."""
        key = tuple(sorted(set(nodes)))
        got = self._values_empty.get(key)
        if got is not None:
            return got
        out = True
        if FALSE not in key:
            es = self.es
            each = [self.scalars(n) for n in key]  # no intersection is built: each is read
            atoms: Tuple[Atom, ...] = tuple(Atom(n, False, ()) for n in key)
            out = (not all(x.null for x in each) and not frozenset.intersection(*(x.booleans for x in each))
                   and any(x.number == es.NOTHING for x in each)
                   and self._no_string(key, [x.string for x in each])
                   and self.atoms_profile(atoms, "array") == NONE and self.atoms_profile(atoms, "object") == NONE)
        self._values_empty[key] = out
        return out

    def _no_string(self, key: Tuple[int, ...], strings: List[int]) -> bool:
        """Is no string in every node's string regex? Yes if one of them is ∅, or if
        some node's words (const/enum, through allOf/$ref) each fail one of them."""
        es = self.es
        if es.NOTHING in strings:
            return True
        for n in key:
            words = self._words(n)
            if words is not None:
                return not any(all(self._matches(e, w) for e in strings) for w in words)
        return False

    def _matches(self, e: int, word: bytes) -> bool:
        got = self._word_matches.get((e, word))
        if got is None:
            es = self.es
            x = e
            for b in word:
                x = derivative(es, x, b)
                if x == es.NOTHING:
                    break
            got = self._word_matches[(e, word)] = es.nullable(x)
        return got

    def _words(self, n: int) -> Optional[List[bytes]]:
        """The strings a `const`/`enum` of node n (or of what it reaches through
        allOf/$ref) restricts it to, at most _WORDS of them; None if there is none."""
        if n in self._node_words:
            return self._node_words[n]
        found: Optional[List[bytes]] = None
        for _, v in self._conjuncts(n):
            values = [v["const"]] if "const" in v else v.get("enum")
            if isinstance(values, list) and len(values) <= _WORDS:
                found = [x.encode("utf-8") for x in values if isinstance(x, str)]
                break
        self._node_words[n] = found
        return found


#: words of one const/enum read through a proof's regexes (more: not proven)
_WORDS = 1000
