"""The compiler's shared state and vocabulary: atoms (a subschema applying to a value),
profiles (does a schema allow all, some or no arrays/objects), the records the parts
pass around, and `CompilerBase`, on which the compiler's parts build."""
from __future__ import annotations

import json
from typing import Any, Callable, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Set, Tuple, TypeVar

from ...errors import LimitError, RegexError, SchemaError
from ...regex import ExprSet, compile_pattern, is_empty
from ...grammar.ir import GrammarIR
from .subschemas import FALSE, TRUE, TYPES, Subschemas, trivial
from .numbers import Numbers
from .options import IgnoredKeyword
from .strings import Strings
from .values import escape_pointer, short

K = TypeVar("K")
V = TypeVar("V")

NONE, PARTIAL, ALL = 0, 1, 2  # how much of a container type a subschema allows

CONTAINER_KEYWORDS = {
    "array": ("items", "prefixItems", "additionalItems", "minItems", "maxItems", "contains",
              "uniqueItems", "unevaluatedItems"),
    "object": ("properties", "required", "additionalProperties", "patternProperties", "propertyNames",
               "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
               "dependencies", "unevaluatedProperties"),
}
UNEVALUATED = {"array": "unevaluatedItems", "object": "unevaluatedProperties"}

class Atom(NamedTuple):
    """One subschema that applies to a value: its node, whether it is negated (`not`),
    and the unevaluated-scope (the nodes whose unevaluatedItems/Properties see it)."""

    node: int
    negated: bool
    scope: Tuple[int, ...]


class Reason(NamedTuple):
    """Why part of a schema allows nothing, and where (a JSON pointer)."""

    message: str
    pointer: str


class Job(NamedTuple):
    """A nonterminal waiting for its rules: the values of a conjunction of `atoms`
    (`container` None) or its arrays/objects (`container` a ContainerKey)."""

    atoms: Tuple[Atom, ...]
    nt: int
    container: Optional["ContainerKey"] = None


class ContainerKey(NamedTuple):
    """The arrays or objects (`T`) satisfying `atoms`, with the disjunctions already
    decided in `choices` (pairs of a disjunction's id and the alternative taken)."""

    T: str
    atoms: Tuple[Atom, ...]
    choices: FrozenSet[Any]


NEGATION = "its negation (needed by not, if/else or oneOf) is not expressible"


class Unsupported(Exception):
    """A keyword that cannot be enforced exactly (raised inside; reported by the caller)."""

    def __init__(self, keyword: str, pointer: str, reason: str) -> None:
        super().__init__(reason)
        self.keyword, self.pointer, self.reason = keyword, pointer, reason


def all_of(values: Sequence[int]) -> int:
    out = ALL
    for v in values:
        if v == NONE:
            return NONE
        if v == PARTIAL:
            out = PARTIAL
    return out


def any_of(values: Sequence[int]) -> int:
    out = NONE
    for v in values:
        if v == ALL:
            return ALL
        if v == PARTIAL:
            out = PARTIAL
    return out


class RequiredMember(NamedTuple):
    """A required property of an object nonterminal: its name, the nonterminal of its
    value, and the node to blame if that value is unsatisfiable."""

    name: str
    value_nt: int
    where: int


class Scalars(NamedTuple):
    """The scalar values a schema allows: null?, which booleans, number texts, decoded
    strings (the last two as expressions)."""

    null: bool
    booleans: FrozenSet[bool]
    number: int
    string: int


class CompilerBase:
    """The state of one compilation and what every part of it uses: error reporting,
    lexemes, the in-place structure of subschemas, and the nonterminals made on demand
    (a worklist of Jobs). The parts build on it: profiles.py, scalars.py, negation.py,
    containers.py, arrays.py, objects.py; compiler.py puts them together."""

    def __init__(self, ir: GrammarIR, subschemas: Subschemas, options: Dict[str, Any], lexeme_class: int) -> None:
        self.ir = ir
        self.es = es = ir.es
        self.limits = ir.limits
        self.subschemas = subschemas
        self.nodes = subschemas.nodes
        self.opts = options
        self.lenient = bool(options["lenient"])
        self.cls = lexeme_class
        self.strings = Strings(es, options["json_allowed_escapes"])
        self.numbers = Numbers(es)
        self.universe = Scalars(True, frozenset((True, False)), self.numbers.number, self.strings.any_string)
        self.nothing = Scalars(False, frozenset(), es.NOTHING, es.NOTHING)
        self.ignored: List[IgnoredKeyword] = []
        self._ignored_keys: Set[Tuple[str, str]] = set()
        self._profiles: Dict[Tuple[int, str], int] = {}
        self._scalars: Dict[int, Scalars] = {}
        self._negations: Dict[Tuple[int, str], int] = {}
        self._consts: Dict[int, int] = {}
        self._dependencies: Dict[Tuple[int, str, str, str], int] = {}
        self._patterns: Dict[str, int] = {}
        self._disjoint: Dict[Tuple[int, int], bool] = {}
        self._object_facts: Dict[int, Any] = {}
        self._values_empty: Dict[Tuple[int, Tuple[int, ...]], bool] = {}
        self._node_words: Dict[int, Optional[List[bytes]]] = {}
        self._word_matches: Dict[Tuple[int, bytes], bool] = {}
        self._lexemes: Dict[Tuple[str, int], int] = {}
        self._key_exprs: Dict[Tuple[int, Tuple[str, ...], bool], int] = {}
        self._sep_items: Dict[int, int] = {}
        self.node_reasons: Dict[int, Reason] = {}
        self.value_nts: Dict[Tuple[Atom, ...], int] = {}
        self.container_nts: Dict[ContainerKey, int] = {}
        self.alternatives = 0  # container nonterminals made for a choice of alternatives
        self.reasons: Dict[int, Reason] = {}
        self.required_of: Dict[int, List[RequiredMember]] = {}
        self.value_atoms: Dict[int, Tuple[Atom, ...]] = {}
        self.todo: List[Job] = []
        self._formats: Dict[str, Optional[int]] = {}
        self.first_rule = len(ir.rules)
        self.first_name = len(ir.names)

    # -- reporting ------------------------------------------------------------------------

    def unsupported(self, keyword: str, pointer: str, reason: str) -> None:
        """A keyword that cannot be enforced exactly: SchemaError, or (lenient) noted."""
        if not self.lenient:
            raise SchemaError("%s cannot be enforced exactly: %s (pass lenient=True to ignore it)"
                              % (keyword, reason), pointer)
        if (keyword, pointer) not in self._ignored_keys:
            self._ignored_keys.add((keyword, pointer))
            self.ignored.append(IgnoredKeyword(keyword, pointer, reason))

    def ptr(self, n: int, keyword: str = "") -> str:
        p = self.subschemas.pointer(n)
        return p + "/" + escape_pointer(keyword) if keyword else p

    # -- lexemes ----------------------------------------------------------------------------

    def lexeme(self, name: str, expr: int) -> int:
        return self.ir.add_lexeme(name, expr, lexeme_class=self.cls)

    def literal(self, text: str) -> int:
        return self.lexeme(json.dumps(text, ensure_ascii=False), self.es.literal(text.encode("utf-8")))

    def separator(self, which: str) -> int:
        pattern = self.opts[which]
        key = (which, 0)
        sym = self._lexemes.get(key)
        if sym is None:
            try:
                expr = compile_pattern(self.es, pattern)
            except RegexError as e:
                raise SchemaError("invalid %s regex %r: %s" % (which, pattern, e.message), "/x-guidance/" + which) from None
            name = json.dumps(pattern) if self.es.literal(pattern.encode()) == expr else "/%s/" % pattern
            sym = self._lexemes[key] = self.lexeme(name, expr)
        return sym

    # -- in-place structure ---------------------------------------------------------------

    def value(self, n: int) -> Any:
        return self.nodes[n].value

    def child(self, n: int, value: Any) -> int:
        """The node of a subschema value found inside node n."""
        if value is True:
            return TRUE
        if value is False:
            return FALSE
        got = self.subschemas.node_of.get(id(value))
        if got is None:
            raise SchemaError("schema must be an object or boolean, got %s" % short(value), self.ptr(n))
        return got

    def ref_target(self, n: int, keyword: str) -> int:
        v = self.value(n)
        ref = v[keyword]
        if not isinstance(ref, str):
            raise SchemaError("%s must be a string, got %s" % (keyword, short(ref)), self.ptr(n, keyword))
        target = self.subschemas.resolve(ref, n, keyword)
        if keyword == "$dynamicRef":
            # dynamic only if the fragment names the $dynamicAnchor of the target; then
            # the outermost resource of the dynamic scope defining it wins, which is
            # static when one resource defines it
            tv = self.value(target)
            fragment = ref.partition("#")[2]
            anchor = tv.get("$dynamicAnchor") if isinstance(tv, dict) else None
            if anchor is not None and anchor == fragment and len(self.subschemas.dynamic_anchors(anchor)) > 1:
                raise Unsupported("$dynamicRef", self.ptr(n, keyword),
                                   "the dynamic anchor '%s' is defined in several schema resources, so the "
                                   "target depends on the dynamic scope" % anchor)
        return target

    def list_of(self, n: int, keyword: str) -> List[int]:
        items = self.value(n)[keyword]
        if not isinstance(items, list):
            raise SchemaError("%s must be an array" % keyword, self.ptr(n, keyword))
        if not items and keyword in ("allOf", "anyOf", "oneOf"):
            raise SchemaError("%s must be a non-empty array" % keyword, self.ptr(n, keyword))
        return [self.child(n, x) for x in items]

    def inplace(self, n: int) -> List[Tuple[str, List[int]]]:
        """The in-place applicators of node n: (keyword, subschema nodes), in key order."""
        v = self.value(n)
        if not isinstance(v, dict):
            return []
        out = []
        for key in v:
            if key in ("allOf", "anyOf", "oneOf"):
                out.append((key, self.list_of(n, key)))
            elif key == "not":
                out.append((key, [self.child(n, v[key])]))
            elif key in ("$ref", "$dynamicRef"):
                try:
                    out.append(("$ref", [self.ref_target(n, key)]))
                except Unsupported as e:
                    self.unsupported(e.keyword, e.pointer, e.reason)
            elif key == "$recursiveRef":
                self.unsupported(key, self.ptr(n, key), "draft 2019-09 recursive references are not supported")
            elif key == "if":
                kids = [self.child(n, v["if"])]
                kids.append(self.child(n, v["then"]) if "then" in v else TRUE)
                kids.append(self.child(n, v["else"]) if "else" in v else TRUE)
                out.append(("if", kids))
        return out

    def types(self, n: int) -> Optional[Set[str]]:
        v = self.value(n)
        t = v.get("type") if isinstance(v, dict) else None
        if t is None:
            return None
        names = [t] if isinstance(t, str) else t
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
            raise SchemaError("type must be a string or an array of strings", self.ptr(n, "type"))
        for x in names:
            if x not in TYPES and x != "integer":
                raise SchemaError("unknown type '%s'" % x, self.ptr(n, "type"))
        return set(names)

    def _fold(self, root: int, memo: Dict[K, V], key: Callable[[int], K],
              combine: Callable[[int, Callable[[int], V]], V], on_cycle: Callable[[int], V]) -> V:
        """Evaluate `combine(n, kids_value)` bottom-up over the in-place applicators of
        `root` (post-order, explicit stack). `key(n)` is the memo key; a node met again
        while in progress gets `on_cycle(n)`."""
        stack = [(root, False)]
        in_progress: Set[int] = set()
        while stack:
            n, ready = stack.pop()
            k = key(n)
            if k in memo:
                continue
            if not ready:
                if n in in_progress:
                    continue
                in_progress.add(n)
                stack.append((n, True))
                for _, kids in self.inplace(n):
                    for c in kids:
                        if key(c) not in memo and c not in in_progress:
                            stack.append((c, False))
                continue
            in_progress.discard(n)

            def get(c: int) -> V:
                kc = key(c)
                if kc in memo:
                    return memo[kc]
                return on_cycle(c)

            memo[k] = combine(n, get)
        return memo[key(root)]

    def synth(self, value: Any, n: int, what: str) -> int:
        return self.subschemas.synth(value, n, what)

    def _x_and(self, a: int, b: int, universe: Optional[int]) -> int:
        es = self.es
        if a == b or b == universe:
            return a
        if a == universe:
            return b
        if es.NOTHING in (a, b):
            return es.NOTHING
        return es.intersection(a, b)

    # -- conjunctions of subschemas -> nonterminals -----------------------------------------

    def value_nt(self, atoms: Sequence[Atom]) -> int:
        """The nonterminal of the JSON values satisfying every atom (made on first use).
        Atoms that constrain nothing (`true`, `{}`, annotations only) are left out, so
        that every "any value" is one nonterminal."""
        key = tuple(a for a in dict.fromkeys(atoms) if a.negated or not trivial(self.value(a.node)))
        nt = self.value_nts.get(key)
        if nt is None:
            nt = self.value_nts[key] = self.ir.add_nonterminal(self._name("json", key))
            self.value_atoms[nt] = key
            self.todo.append(Job(key, nt))
        return nt

    def container_nt(self, T: str, atoms: Tuple[Atom, ...], choices: FrozenSet[Any]) -> int:
        key = ContainerKey(T, atoms, choices)
        nt = self.container_nts.get(key)
        if nt is None:
            label = "json[]" if T == "array" else "json{}"
            if choices:
                label += "#%d" % len(self.container_nts)
                self.alternatives += 1
                if self.alternatives > self.limits.schema_alternatives:
                    raise LimitError("schema_alternatives", self.limits.schema_alternatives,
                                     "array/object alternatives distributed from the disjunctions of %s"
                                     % (self.ptr(choices_node(choices)) or "/"))
            nt = self.container_nts[key] = self.ir.add_nonterminal(self._name(label, atoms))
            self.todo.append(Job(atoms, nt, key))
        return nt

    def _name(self, prefix: str, atoms: Sequence[Atom]) -> str:
        if not atoms:
            return prefix + "(any)"
        ptrs = [("!" if neg else "") + self.subschemas.label(n) for n, neg, _ in atoms[:3] if n > FALSE]
        label = prefix + "&".join(p for p in ptrs if p)
        return label if len(label) <= 60 else label[:58] + "…" + label[-1]

def choices_node(choices: FrozenSet[Any]) -> int:
    """The node of the last-made choice's disjunction (for messages)."""
    return max(gid[0] for gid, _ in choices)


def is_empty_language(es: ExprSet, e: int) -> bool:
    """Is L(e) known to be empty? (Unknown, when fuel runs out, counts as non-empty.)"""
    return e == es.NOTHING or is_empty(es, e) is True


def literal_union(es: ExprSet, words: Sequence[bytes]) -> int:
    """The finite language `words`, as a trie-shaped expression (`ExprSet.words`), so that
    a 100,000-word enum is cheap to build and to lex."""
    if not words:
        return es.NOTHING
    return es.words([1 << b for b in w] for w in words)
