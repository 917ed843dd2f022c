"""Containers, step one: flatten a conjunction of subschemas for one container type
(`allOf`/`$ref` inline, `not` as a synthesized negation), and find the disjunctions
(`anyOf`, exact `oneOf`, `if`/`then`/`else`, `enum` of arrays or objects,
`dependentRequired`/`dependentSchemas`) that matter for it: each is distributed into
alternatives, one nonterminal each, until a leaf conjunction is left (arrays.py and
objects.py lay it out)."""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional, Set, Tuple, Union

from ...errors import SchemaError
from .base import ALL, NONE, PARTIAL, UNEVALUATED, Atom, Reason, Unsupported
from .options import IgnoredKeyword
from .index import trivial
from .disjoint import Context, Disjointness
from .values import escape_pointer, json_type

_DEPENDENCIES = ("dependentRequired", "dependentSchemas", "dependencies")


class Disjunction(NamedTuple):
    """A disjunction's id: the node, its keyword, and for dependencies the property."""

    node: int
    keyword: str
    property: Optional[str]


class Group(NamedTuple):
    """A disjunction still to distribute: its id and the live alternatives (index, atoms)."""

    gid: Disjunction
    options: List[Tuple[int, List[Atom]]]


class Flat(NamedTuple):
    """A flattened conjunction: its plain atoms, property and required order, and the
    disjunctions not decided yet."""

    atoms: List[Atom]
    props: List[str]
    reqs: List[str]
    groups: List[Group]


class _Keyword(NamedTuple):
    """A keyword of a flattened atom, still to expand (under the unevaluated-scope)."""

    node: int
    key: str
    scope: Tuple[int, ...]


class Containers(Disjointness):
    """Flattening conjunctions and distributing disjunctions."""

    def _scope_with(self, n: int, T: str, scope: Tuple[int, ...]) -> Tuple[int, ...]:
        """The unevaluated-scope for the in-place subschemas of node n."""
        v = self.value(n)
        kw = UNEVALUATED[T]
        if isinstance(v, dict) and kw in v and not trivial(v[kw]):
            return tuple(sorted(set(scope) | {n}))
        return scope

    def _flatten(self, T: str, atoms: Tuple[Atom, ...], choices: FrozenSet[Any]) -> Union[Flat, Reason]:
        """Expand allOf / $ref / not / chosen alternatives depth-first in key order (the
        order properties are laid out in, as llguidance does); the plain atoms, property
        order, required order and undecided disjunctions, or why no T-value satisfies them."""
        flat = Flat([], [], [], [])
        chosen = dict(choices)
        seen: Set[Atom] = set()
        stack: List[Union[Atom, _Keyword]] = list(reversed(atoms))
        # the plain subschemas known to hold so far: a negation they exclude is implied
        # (and an alternative they exclude is dead), disjoint.py
        context = self.context(T, (a.node for a in atoms if not a.negated))
        while stack:
            task = stack.pop()
            if isinstance(task, _Keyword):
                unsat = self._flatten_keyword(T, task, chosen, flat, stack, context)
            elif task in seen:
                continue
            else:
                seen.add(task)
                unsat = self._flatten_atom(T, task, flat, stack, context)
            if unsat is not None:
                return unsat
        return flat

    def _flatten_atom(self, T: str, atom: Atom, flat: Flat, stack: List[Union[Atom, _Keyword]],
                      context: Context) -> Optional[Reason]:
        """One atom: a negation becomes the node of its negation (nothing, when the plain
        atoms so far exclude what it negates); a plain atom is kept and its keywords are
        queued, in key order."""
        n, neg, scope = atom
        if neg:
            if self.excluded(context, n, T):
                return None
            p = self.profile(n, T)
            if p == ALL:
                return Reason("'not' excludes every %s" % T, self.ptr(n))
            if p == PARTIAL:
                try:
                    stack.append(Atom(self.neg_node(n, T), False, ()))
                except Unsupported as e:
                    self.unsupported(e.keyword, e.pointer, e.reason)
            return None
        v = self.value(n)
        if v is True:
            return None
        if v is False:
            return Reason("the schema is false", self.ptr(n))
        types = self.types(n)
        if types is not None and T not in types:
            return Reason("type %s excludes %s" % ("/".join(sorted(types)), T), self.ptr(n, "type"))
        flat.atoms.append(atom)
        self.add_to_context(context, n)
        inner = self._scope_with(n, T, scope)
        stack.extend(_Keyword(n, k, inner) for k in reversed(list(v)))
        return None

    def _flatten_keyword(self, T: str, task: _Keyword, chosen: Dict[Any, int], flat: Flat,
                         stack: List[Union[Atom, _Keyword]], context: Context) -> Optional[Reason]:
        n, k, inner = task
        x = self.value(n)[k]
        if k == "properties" and T == "object":
            if not isinstance(x, dict):
                raise SchemaError("properties must be an object", self.ptr(n, k))
            flat.props.extend(x)
        elif k == "required" and T == "object":
            if not isinstance(x, list) or not all(isinstance(s, str) for s in x):
                raise SchemaError("required must be an array of strings", self.ptr(n, k))
            flat.reqs.extend(x)
        elif k == "allOf":
            stack.extend(Atom(c, False, inner) for c in reversed(self.list_of(n, k)))
        elif k in ("$ref", "$dynamicRef"):
            try:
                stack.append(Atom(self.ref_target(n, k), False, inner))
            except Unsupported as e:
                self.unsupported(e.keyword, e.pointer, e.reason)
        elif k == "$recursiveRef":
            self.unsupported(k, self.ptr(n, k), "draft 2019-09 recursive references are not supported")
        elif k == "not":
            stack.append(Atom(self.child(n, x), True, ()))
        elif k in ("anyOf", "oneOf", "if", "enum", "const") or (T == "object" and k in _DEPENDENCIES):
            if k in _DEPENDENCIES and not isinstance(x, dict):
                raise SchemaError("%s must be an object" % k, self.ptr(n, k))
            for sub in (list(x) if k in _DEPENDENCIES else [None]):
                unsat = self._flatten_disjunction(T, Disjunction(n, k, sub), inner, chosen, flat, stack, context)
                if unsat is not None:
                    return unsat
        return None

    def _flatten_disjunction(self, T: str, gid: Disjunction, inner: Tuple[int, ...], chosen: Dict[Any, int],
                             flat: Flat, stack: List[Union[Atom, _Keyword]], context: Context) -> Optional[Reason]:
        """A disjunction: the alternative already chosen, the only one left, nothing (one
        alternative allows every T-value), or a Group to distribute. An alternative the
        context excludes is dead (disjoint.py)."""
        n, k, sub = gid
        options = self._group_options(n, k, sub, T, inner)
        if gid in chosen:
            stack.extend(reversed(options[chosen[gid]]))
            return None
        profs = [self.atoms_profile(o, T) for o in options]
        live = [i for i, p in enumerate(profs)
                if p != NONE and not any(not a.negated and self.excluded(context, a.node, T) for a in options[i])]
        if not live:
            what = "no value of %s" % k if k in ("enum", "const") else "no alternative of %s" % k
            return Reason("%s is an %s" % (what, T), self.ptr(n, k))
        if len(live) == 1:
            stack.extend(reversed(options[live[0]]))
        elif inner or not any(profs[i] == ALL for i in live):
            flat.groups.append(Group(gid, [(i, options[i]) for i in live]))
        return None

    def _group_options(self, n: int, k: str, sub: Optional[str], T: str, inner: Tuple[int, ...]) -> List[List[Atom]]:
        """The alternatives of a disjunction, each a list of atoms that must all hold."""
        v = self.value(n)
        if k == "anyOf":
            return [[Atom(c, False, inner)] for c in self.list_of(n, k)]
        if k == "oneOf":
            return self._one_of_options(n, T, inner)
        if k == "if":
            i = self.child(n, v["if"])
            yes: List[Atom] = [Atom(i, False, inner)]
            no: List[Atom] = [Atom(i, True, ())]
            if "then" in v:
                yes.append(Atom(self.child(n, v["then"]), False, inner))
            if "else" in v:
                no.append(Atom(self.child(n, v["else"]), False, inner))
            return [yes, no]
        if k in ("enum", "const"):
            values = [v[k]] if k == "const" else v[k]
            if not isinstance(values, list):
                raise SchemaError("enum must be an array", self.ptr(n, k))
            return [[Atom(self.const_node(x, n), False, ())] for x in values if json_type(x) == T]
        # dependentRequired / dependentSchemas / dependencies, for property `sub`
        assert sub is not None
        dep = v[k][sub]
        absent = self._dep_node(n, k, sub, {"properties": {sub: False}}, "absent")
        if isinstance(dep, list):
            if not all(isinstance(s, str) for s in dep):
                raise SchemaError("%s values must be arrays of strings" % k, self.ptr(n, k))
            # the dependents first: a fixed order must pick one, and an object tends to
            # have its base members before the ones that require them
            present = self._dep_node(n, k, sub, {"required": [d for d in dep if d != sub] + [sub]}, "present")
            return [[Atom(absent, False, inner)], [Atom(present, False, inner)]]
        present = self._dep_node(n, k, sub, {"required": [sub]}, "present")
        return [[Atom(absent, False, inner)], [Atom(present, False, inner), Atom(self.child(n, dep), False, inner)]]

    def _one_of_options(self, n: int, T: str, inner: Tuple[int, ...]) -> List[List[Atom]]:
        """Exactly one: option i is kids[i] and the negation of every other kid that is
        not disjoint from it (a disjoint one is implied false by kid i: no negation is
        built, disjoint.py). Only when a needed negation is not expressible does
        coerce_one_of (or lenient) fall back to anyOf, as llguidance always does with
        that option."""
        k = "oneOf"
        kids = self.list_of(n, k)
        try:
            options = []
            for i, c in enumerate(kids):
                others = [d for j, d in enumerate(kids) if j != i and not self.disjoint(c, d, T)]
                for d in others:
                    if self.profile(d, T) == PARTIAL:
                        self.neg_node(d, T)
                options.append([Atom(c, False, inner)] + [Atom(d, True, ()) for d in others])
            return options
        except Unsupported as e:
            if not (self.opts["coerce_one_of"] or self.lenient):
                raise SchemaError(
                    "oneOf cannot be enforced exactly: its alternatives may overlap and %s "
                    "(set coerce_one_of to treat it as anyOf, or lenient=True)" % e.reason,
                    e.pointer) from None
            where = self.ptr(n, k)
            if (k, where) not in self._ignored_keys:
                self._ignored_keys.add((k, where))
                self.ignored.append(IgnoredKeyword(k, where, "treated as anyOf (coerce_one_of): %s" % e.reason))
        return [[Atom(c, False, inner)] for c in kids]

    def _dep_node(self, n: int, k: str, sub: str, value: Dict[str, Any], what: str) -> int:
        key = (n, k, sub, what)
        got = self._dependencies.get(key)
        if got is None:
            got = self._dependencies[key] = self.synth(value, n, k + "/" + escape_pointer(sub))
        return got
