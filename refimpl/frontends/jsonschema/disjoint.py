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
>>> from refimpl.recognition.recognizer import Recognizer
>>> kinds = [{"type": "object", "properties": {"kind": {"const": k}, "x": {"type": "integer"}},
...           "required": ["kind"]} for k in ("a", "b", "c")]
>>> g = Grammar.from_json_schema({"oneOf": kinds})
>>> [Recognizer(g.compiled).consume_bytes(s) for s in (b'{"kind": "b", "x": 1}', b'{"kind": "d"}')]
[True, False]
"""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, Iterable, Iterator, List, NamedTuple, Optional, Set, Tuple

from ...errors import SchemaError
from ...regex.derivative import derivative
from .applicators import Applicators
from .compilation import Atom, Compilation
from .profiles import ALL, NONE, Profiles
from .scalars import ScalarAlgebra
from .subschemas import FALSE
from .values import is_number, number_text

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


class Chain:
    """A conjunction of nodes built one node at a time: `tail` (the chain without the
    last node; EMPTY_CHAIN, the empty one) and `node`, with what the proofs read of its
    nodes folded in as they come — so that a context one node longer costs one node,
    not a pass over all of them. Chains are interned per (tail, node): a context that
    another flattening builds again in the same order is the same chain, and what was
    read of it is kept.

    What is read of the nodes is read when a proof first needs it (`ready`): `false`: the
    false schema is one of the nodes; `error`: reading a node's scalars raised (a proof
    reading them all fails the same way); `null`, `booleans`: what every node allows of
    those; `number_nothing`, `string_nothing`: some node allows no number (string);
    `string`: the last node's string regex; `words_node`: the lowest node having
    const/enum words (-1: none); `profiles`: the array/object profile of the conjunction
    (the least of its nodes'), filled when asked."""

    __slots__ = ("tail", "node", "ready", "false", "error", "null", "booleans", "number_nothing",
                 "string_nothing", "string", "words_node", "profiles")

    def __init__(self, tail: int, node: int) -> None:
        self.tail, self.node, self.ready = tail, node, False
        self.false = self.null = self.number_nothing = self.string_nothing = False
        self.error: Optional[SchemaError] = None
        self.booleans: FrozenSet[bool] = frozenset((True, False))
        self.string = self.words_node = -1
        self.profiles: Dict[str, int] = {}


#: the chain of no node
EMPTY_CHAIN = 0


class Context:
    """The plain subschemas known to hold while a conjunction is flattened, and their
    object facts, merged as they come (`facts` is None for arrays: no proofs there);
    `chains` has, per property name, the chain of the schemas given to it (the same
    nodes as `facts.properties`, in the same order)."""

    def __init__(self, facts: Optional[ObjectFacts]) -> None:
        self.nodes: Set[int] = set()
        self.facts = facts
        self.chains: Dict[str, int] = {}

    def copy(self) -> "Context":
        f = self.facts
        c = Context(None if f is None else ObjectFacts(set(f.required), {k: list(v) for k, v in f.properties.items()},
                                                       list(f.closed), list(f.choices)))
        c.nodes = set(self.nodes)
        c.chains = dict(self.chains)
        return c


class Disjointness:
    """Proofs that subschemas share no object."""

    def __init__(self, comp: Compilation, applicators: Applicators, profiles: Profiles, scalars: ScalarAlgebra) -> None:
        self.es = comp.es
        self.subschemas = comp.subschemas
        self.strings = comp.strings
        self.applicators = applicators
        self.profiles = profiles
        self.scalars = scalars
        empty = Chain(EMPTY_CHAIN, -1)
        empty.ready, empty.null, empty.string = True, True, self.es.NOTHING
        self._chains: List[Chain] = [empty]
        self._chain_ids: Dict[Tuple[int, int], int] = {}
        self._chain_words: Dict[Tuple[int, bytes], bool] = {}
        self._word_sets: Dict[int, FrozenSet[bytes]] = {}
        self._disjoint: Dict[Tuple[int, int], bool] = {}
        self._object_facts: Dict[int, ObjectFacts] = {}
        self._values_empty: Dict[Tuple[int, Tuple[int, ...]], bool] = {}
        self._node_words: Dict[int, Optional[List[bytes]]] = {}
        self._word_matches: Dict[Tuple[int, bytes], bool] = {}

    def context(self, T: str, nodes: Iterable[int]) -> Context:
        """A context holding `nodes` (for T-values)."""
        ctx = Context(ObjectFacts(set(), {}, [], []) if T == "object" else None)
        for n in nodes:
            self.add_to_context(ctx, n)
        return ctx

    def add_to_context(self, ctx: Context, n: int) -> None:
        if n in ctx.nodes:
            return
        ctx.nodes.add(n)
        mine = ctx.facts
        if mine is None:
            return
        try:
            facts = self.object_facts(n)
        except SchemaError:  # reported where the schema is compiled, if it is
            return
        mine.required.update(facts.required)
        for name, nodes in facts.properties.items():
            have = mine.properties.setdefault(name, [])
            chain = ctx.chains.get(name, EMPTY_CHAIN)
            for m in nodes:
                if m not in have:
                    have.append(m)
                    chain = self.chain(chain, m)
            ctx.chains[name] = chain
        mine.closed.extend(facts.closed)

    def chain(self, tail: int, node: int) -> int:
        """The chain of `tail`'s nodes and `node` (interned; read when a proof needs it)."""
        key = (tail, node)
        got = self._chain_ids.get(key)
        if got is None:
            got = self._chain_ids[key] = len(self._chains)
            self._chains.append(Chain(tail, node))
        return got

    def _read(self, chain: int) -> Chain:
        """The chain, its nodes read: folded on from its longest prefix already read."""
        chains = self._chains
        c = chains[chain]
        if c.ready:
            return c
        todo = []
        while not c.ready:
            todo.append(c)
            c = chains[c.tail]
        es = self.es
        for c2 in reversed(todo):
            node = c2.node
            c2.false, c2.error = c.false or node == FALSE, c.error
            c2.null, c2.booleans, c2.number_nothing, c2.string_nothing = c.null, c.booleans, c.number_nothing, c.string_nothing
            c2.string, c2.words_node = es.NOTHING, c.words_node
            if not c2.false and c2.error is None:
                try:
                    x = self.scalars.of(node)
                    if self._words(node) is not None and (c2.words_node < 0 or node < c2.words_node):
                        c2.words_node = node
                except SchemaError as e:
                    c2.error = e
                else:
                    c2.null, c2.booleans, c2.string = c2.null and x.null, c2.booleans & x.booleans, x.string
                    c2.number_nothing = c2.number_nothing or x.number == es.NOTHING
                    c2.string_nothing = c2.string_nothing or x.string == es.NOTHING
            c2.ready = True
            c = c2
        return c

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
        if T != "object" or context.facts is None or n in context.nodes:
            return False
        try:
            mine = self.object_facts(n)
            if not (mine.required or mine.closed or mine.choices):
                # the usual candidate (an `if` naming a discriminator): _contradicts, shortened
                required, chains = context.facts.required, context.chains
                for name, nodes in mine.properties.items():
                    if name in required and self.values_empty(chains.get(name, EMPTY_CHAIN), nodes):
                        return True
                return False
            return self._contradicts(context, (), mine) or any(
                all(self._contradicts(context, (mine,), self.object_facts(a)) for a in alts) for alts in mine.choices)
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
                    facts.properties.setdefault(name, []).append(self.subschemas.child(m, s))
            if v.get("additionalProperties") is False and not v.get("patternProperties"):
                facts.closed.append(set(props) if isinstance(props, dict) else set())
            for kw, kids in self.applicators.of(m):
                if kw in ("anyOf", "oneOf"):
                    facts.choices.append(kids)
        self._object_facts[n] = facts
        return facts

    def _conjuncts(self, n: int) -> Iterator[Tuple[int, Dict[str, Any]]]:
        """Node n and the nodes it reaches through allOf/$ref — all of which hold of one
        value —, each once and at most _CLOSURE of them, with their schema objects."""
        return self._reach([n], ("allOf", "$ref"))

    def _reach(self, starts: List[int], through: Optional[Tuple[str, ...]]) -> Iterator[Tuple[int, Dict[str, Any]]]:
        """The nodes reached from `starts` through the in-place applicators `through`
        (None: any), each once and at most _CLOSURE of them, with their schema objects."""
        seen: Set[int] = set()
        stack = list(starts)
        while stack and len(seen) < _CLOSURE:
            m = stack.pop()
            if m in seen:
                continue
            seen.add(m)
            v = self.subschemas.value(m)
            if not isinstance(v, dict):
                continue
            yield m, v
            for kw, kids in self.applicators.of(m):
                if through is None or kw in through:
                    stack.extend(reversed(kids))

    def _contradicts(self, context: Context, more: Tuple[ObjectFacts, ...], extra: ObjectFacts) -> bool:
        """Do the facts of `extra` contradict those of the context and `more`? A name any
        of them requires is in every common object, let through by every closed node,
        with a value satisfying every property schema given to it. Only what `extra` adds
        is checked (a contradiction among the others alone is not this proof's
        business), and the context's schemas of a name are read as its chain: the work
        is proportional to `extra`, not to a context that grows."""
        assert context.facts is not None
        bases = (context.facts,) + more
        if extra.required and any(b.closed for b in bases):
            for name in extra.required:
                if any(name not in names for b in bases for names in b.closed):
                    return True
        if extra.closed:
            required = set(extra.required).union(*(b.required for b in bases))
            if any(name not in names for name in required for names in extra.closed):
                return True
        chains = context.chains
        for name, mine in extra.properties.items():
            if name in extra.required or any(name in b.required for b in bases):
                nodes = [m for b in more for m in b.properties.get(name, ())] + mine if more else mine
                if self.values_empty(chains.get(name, EMPTY_CHAIN), nodes):
                    return True
        return False

    def values_empty(self, chain: int, nodes: List[int]) -> bool:
        """True only if no JSON value satisfies every node of `chain` and of `nodes`
        (scalars by regex algebra; arrays and objects by their profiles). Strings are
        searched only through the words of a node's `const`/`enum` (the discriminators),
        each read through every node's string regex: two long patterns' intersection is
        "not proven", as searching it took seconds per pair (SchemaStore's cloudify)."""
        key = (chain, tuple(nodes))
        got = self._values_empty.get(key)
        if got is not None:
            return got
        extra = tuple(sorted(set(nodes)))
        c = self._read(chain)
        out = True
        if not c.false and FALSE not in extra:
            if c.error is not None:
                raise c.error
            nothing = self.es.NOTHING
            null, booleans, number_nothing = c.null, c.booleans, c.number_nothing
            strings = []
            for n in extra:  # no intersection is built: each is read
                x = self.scalars.of(n)
                null = null and x.null
                booleans = booleans & x.booleans
                number_nothing = number_nothing or x.number == nothing
                strings.append(x.string)
            out = (not null and not booleans and number_nothing and self._no_string(chain, extra, strings)
                   and self._profile(chain, extra, "array") == NONE and self._profile(chain, extra, "object") == NONE)
        self._values_empty[key] = out
        return out

    def _no_string(self, chain: int, extra: Tuple[int, ...], strings: List[int]) -> bool:
        """Is no string in every node's string regex? Yes if one of them is ∅, or if the
        words (const/enum, through allOf/$ref) of the lowest node having some each fail
        one of them."""
        c = self._read(chain)
        if c.string_nothing or self.es.NOTHING in strings:
            return True
        first = c.words_node
        for n in extra:
            if (first < 0 or n < first) and self._words(n) is not None:
                first = n
        words = self._words(first) if first >= 0 else None
        if words is None:
            return False
        for w in words:
            if self._chain_matches(chain, w):
                for e in strings:
                    if not self._matches(e, w):
                        break
                else:
                    return False
        return True

    def _chain_matches(self, chain: int, word: bytes) -> bool:
        """Does `word` match the string regex of every node of `chain`? Kept per chain and
        word, read on from the longest prefix of the chain known (a chain one node longer
        than one already asked about costs one match)."""
        memo, chains = self._chain_words, self._chains
        got = memo.get((chain, word))
        if got is not None:
            return got
        self._read(chain)  # the strings of its nodes
        todo = []
        c = chain
        while c != EMPTY_CHAIN and (c, word) not in memo:
            todo.append(c)
            c = chains[c].tail
        ok = True if c == EMPTY_CHAIN else memo[(c, word)]
        for c in reversed(todo):
            ok = ok and self._matches(chains[c].string, word)
            memo[(c, word)] = ok
        return ok

    def _profile(self, chain: int, extra: Tuple[int, ...], T: str) -> int:
        """The T-profile of the conjunction of `chain` and `extra` (all_of: the least of
        its nodes'), the chain's kept with it."""
        chains = self._chains
        todo = []
        c = chain
        while c != EMPTY_CHAIN and T not in chains[c].profiles:
            todo.append(c)
            c = chains[c].tail
        p = ALL if c == EMPTY_CHAIN else chains[c].profiles[T]
        for c in reversed(todo):
            p = min(p, self.profiles.of(chains[c].node, T))
            chains[c].profiles[T] = p
        return min([p] + [self.profiles.of(n, T) for n in extra])

    def has_word(self, e: int, atoms: Iterable[Atom]) -> bool:
        """Is one of the strings the atoms name (const/enum/default/examples, in place) in
        L(e)? A witness that L(e) is not empty, found without an emptiness search —
        which, for the string of a discriminated kind (its `const` and the negations of
        a hundred others'), walks a hundred-term intersection byte class by byte class
        (cloudify: 1.2 s)."""
        return any(self._matches(e, w.encode("utf-8", "surrogatepass"))
                   for w in self._candidates(atoms, str))

    def has_number(self, e: int, atoms: Iterable[Atom]) -> bool:
        """Is the text of one of the numbers the atoms name (const/enum/default/examples/
        minimum/maximum, in place) in L(e)? A witness that L(e) is not empty, found
        without a search — which derives a `multipleOf` automaton's regex byte class by
        byte class (streamlit-config's font weights: 3 s)."""
        for x in self._candidates(atoms, float):
            try:
                text = number_text(x).encode()
            except SchemaError:  # not finite: reported where it is compiled
                continue
            if self._matches(e, text):
                return True
        return False

    def _candidates(self, atoms: Iterable[Atom], kind: type) -> Iterator[Any]:
        """Strings (kind str) or numbers (float) named by the atoms' nodes and what they
        apply in place (any applicator: these are candidates, tried, not facts), at most
        _WITNESSES of them from at most _CLOSURE nodes."""
        found = 0
        try:
            for _, v in self._reach([n for n, _, _ in atoms], None):
                for key in _WITNESS_KEYS:
                    x = v.get(key)
                    for y in (x if isinstance(x, list) and key != "const" else [x]):
                        if isinstance(y, str) if kind is str else is_number(y):
                            yield y
                            found += 1
                            if found >= _WITNESSES:
                                return
        except SchemaError:  # reported where the schema is compiled
            return

    def _matches(self, e: int, word: bytes) -> bool:
        got = self._word_matches.get((e, word))
        if got is None:
            es = self.es
            cache, nothing, anything = es.caches[derivative], es.NOTHING, self.strings.any_string
            x = e
            for i, b in enumerate(word):
                if x == anything:  # the rest must be valid UTF-8 (any_string is exactly that)
                    got = self._word_matches[(e, word)] = _utf8(word[i:])
                    return got
                y = cache.get(x << 8 | b)  # derivative()'s own cache, read without a call
                x = derivative(es, x, b) if y is None else y
                if x == nothing:
                    break
            got = self._word_matches[(e, word)] = es.nullable(x)
        return got

    def live_words(self, context: Context, name: str) -> Optional[FrozenSet[bytes]]:
        """The strings property `name` can take in the context, if it is required there
        and one of its schemas restricts it to finitely many (a `const`/`enum`): every
        string value satisfying its chain is one of them. None: not known."""
        if context.facts is None or name not in context.facts.required:
            return None
        c = self._read(context.chains.get(name, EMPTY_CHAIN))
        if c.false or c.error is not None or c.words_node < 0:
            return None
        got = self._word_sets.get(c.words_node)
        if got is None:
            got = self._word_sets[c.words_node] = frozenset(self._words(c.words_node) or ())
        return got

    def string_words(self, n: int) -> Optional[FrozenSet[bytes]]:
        """The strings W if node n's own `const`/`enum` allows strings only, and those
        (every value satisfying n is one of W); else None."""
        v = self.subschemas.value(n)
        if not isinstance(v, dict):
            return None
        values = [v["const"]] if "const" in v else v.get("enum")
        if not isinstance(values, list) or len(values) > _WORDS or not all(isinstance(x, str) for x in values):
            return None
        return frozenset(x.encode("utf-8") for x in values)  # no lone surrogate: subschemas.py refuses them

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
#: strings (numbers) tried as witnesses of a non-empty string (number) language before
#: searching it, and the keywords they are read from
_WITNESSES = 32
_WITNESS_KEYS = ("const", "enum", "default", "examples", "minimum", "maximum")


def _utf8(b: bytes) -> bool:
    """Is `b` valid UTF-8 (Unicode scalar values: no surrogates, no overlong forms)?

    >>> _utf8("é".encode()), _utf8(b"\\xed\\xa0\\x80"), _utf8(b"\\xa9")
    (True, False, False)
    """
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False
