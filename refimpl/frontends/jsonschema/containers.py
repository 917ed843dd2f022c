"""Containers, step one: flatten a conjunction of subschemas for one container type
(`allOf`/`$ref` inline, `not` as a synthesized negation), and find the disjunctions
(`anyOf`, exact `oneOf`, `if`/`then`/`else`, `enum` of arrays or objects,
`dependentRequired`/`dependentSchemas`) that matter for it: each is distributed into
alternatives, one nonterminal each, until a leaf conjunction is left (arrays.py and
objects.py lay it out)."""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional, Set, Tuple, Union

from ...errors import SchemaError
from .applicators import RECURSIVE_REF, Applicators
from .compilation import Atom, Compilation, Reason, Unsupported
from .disjoint import Context, Disjointness
from .disjunctions import Disjunction, Disjunctions
from .negation import Negations
from .profiles import ALL, NONE, PARTIAL, Profiles
from .subschemas import trivial
from .switch import Switches

_DEPENDENCIES = ("dependentRequired", "dependentSchemas", "dependencies")
#: the unevaluated* keyword of each container type
UNEVALUATED = {"array": "unevaluatedItems", "object": "unevaluatedProperties"}


class Group(NamedTuple):
    """A disjunction still to distribute: its id and the live alternatives (position, atoms)."""

    gid: Disjunction
    options: List[Tuple[int, List[Atom]]]


class Flat(NamedTuple):
    """A flattened conjunction: its plain atoms, property and required order, the
    disjunctions not decided yet, and where the walk met the first of them."""

    atoms: List[Atom]
    props: List[str]
    reqs: List[str]
    groups: List[Group]
    resume: Optional["Resume"] = None


class _Keyword(NamedTuple):
    """A keyword of a flattened atom, still to expand (under the unevaluated-scope)."""

    node: int
    key: str
    scope: Tuple[int, ...]


class _Kids(NamedTuple):
    """The kids of an allOf still to expand, from kid `start` on: one task, so that a
    switch passes over the kids its context makes vacuous (switch.py)."""

    node: int
    start: int
    scope: Tuple[int, ...]


class _Rest(NamedTuple):
    """The dependencies of one keyword still to read after the one being read (they are
    read one after the other before the walk goes on)."""

    node: int
    keyword: str
    inner: Tuple[int, ...]
    subs: List[Optional[str]]


class Resume(NamedTuple):
    """A flattening as it stood where it met its first undecided disjunction `group`:
    each conjunction distributed from that disjunction (the same choices plus one
    alternative of it) is flattened exactly as its parent up to that point, so it goes
    on from here with its alternative's atoms pushed — instead of walking the whole
    conjunction again (a chain of k disjunctions cost k walks of all k before)."""

    group: Group
    walk: "_Walk"
    rest: Optional[_Rest]


class _Walk:
    """The state of one flattening: what is found so far (`flat`), the atoms already
    expanded, the tasks left, the context of plain subschemas, the disjunctions met
    (until the first group), and the Resume taken at the first group."""

    __slots__ = ("flat", "seen", "stack", "context", "met", "resume")

    def __init__(self, flat: Flat, seen: Set[Atom], stack: List[Union[Atom, _Keyword, _Kids]], context: Context,
                 met: Set[Disjunction]) -> None:
        self.flat, self.seen, self.stack, self.context, self.met = flat, seen, stack, context, met
        self.resume: Optional[Resume] = None

    def copy(self) -> "_Walk":
        f = self.flat
        return _Walk(Flat(list(f.atoms), list(f.props), list(f.reqs), list(f.groups)), set(self.seen),
                     list(self.stack), self.context.copy(), set(self.met))


class Containers:
    """Flattening conjunctions and distributing disjunctions."""

    def __init__(self, comp: Compilation, applicators: Applicators, profiles: Profiles, negation: Negations,
                 disjoint: Disjointness, switch: Switches, disjunctions: Disjunctions) -> None:
        self.comp = comp
        self.subschemas = comp.subschemas
        self.applicators = applicators
        self.profiles = profiles
        self.negation = negation
        self.disjoint = disjoint
        self.switch = switch
        self.disjunctions = disjunctions

    def _scope_with(self, n: int, T: str, scope: Tuple[int, ...]) -> Tuple[int, ...]:
        """The unevaluated-scope for the in-place subschemas of node n."""
        v = self.subschemas.value(n)
        kw = UNEVALUATED[T]
        if isinstance(v, dict) and kw in v and not trivial(v[kw]):
            return tuple(sorted(set(scope) | {n}))
        return scope

    def flatten(self, T: str, atoms: Tuple[Atom, ...], choices: FrozenSet[Any],
                start: Optional[Tuple[Resume, int]] = None) -> Union[Flat, Reason]:
        """Expand allOf / $ref / not / chosen alternatives depth-first in key order (the
        order properties are laid out in, as llguidance does); the plain atoms, property
        order, required order and undecided disjunctions, or why no T-value satisfies them.
        With `start` (the parent conjunction's Resume and the alternative of its first
        group that `choices` adds), the walk goes on from there: the same result."""
        chosen = dict(choices)
        if start is None:
            # the plain subschemas known to hold so far: a negation they exclude is implied
            # (and an alternative they exclude is dead), disjoint.py
            context = self.disjoint.context(T, (a.node for a in atoms if not a.negated))
            w = _Walk(Flat([], [], [], []), set(), list(reversed(atoms)), context, set())
        else:
            resume, i = start
            w = resume.walk.copy()
            gid, options = resume.group
            assert chosen.get(gid) == i
            w.stack.extend(reversed(dict(options)[i]))
            w.met.add(gid)
            if resume.rest is not None:
                n, k, inner, subs = resume.rest
                unsat = self._flatten_subs(T, n, k, inner, subs, chosen, w)
                if unsat is not None:
                    return unsat
        stack, seen = w.stack, w.seen
        while stack:
            task = stack.pop()
            if isinstance(task, _Keyword):
                unsat = self._flatten_keyword(T, task, chosen, w)
            elif isinstance(task, _Kids):
                self._flatten_kids(T, task, w)
                continue
            elif task in seen:
                continue
            else:
                seen.add(task)
                unsat = self._flatten_atom(T, task, w)
            if unsat is not None:
                return unsat
        return w.flat._replace(resume=w.resume)

    def _flatten_atom(self, T: str, atom: Atom, w: _Walk) -> Optional[Reason]:
        """One atom: a negation becomes the node of its negation (nothing, when the plain
        atoms so far exclude what it negates); a plain atom is kept and its keywords are
        queued, in key order."""
        n, neg, scope = atom
        if neg:
            if self.disjoint.excluded(w.context, n, T):
                return None
            p = self.profiles.of(n, T)
            if p == ALL:
                return Reason("'not' excludes every %s" % T, self.subschemas.pointer(n))
            if p == PARTIAL:
                try:
                    w.stack.append(Atom(self.negation.of(n, T), False, ()))
                except Unsupported as e:
                    self.comp.unsupported(e.keyword, e.pointer, e.reason)
            return None
        v = self.subschemas.value(n)
        if v is True:
            return None
        if v is False:
            return Reason("the schema is false", self.subschemas.pointer(n))
        types = self.subschemas.types(n)
        if types is not None and T not in types:
            return Reason("type %s excludes %s" % ("/".join(sorted(types)), T), self.subschemas.pointer(n, "type"))
        w.flat.atoms.append(atom)
        self.disjoint.add_to_context(w.context, n)
        inner = self._scope_with(n, T, scope)
        w.stack.extend(_Keyword(n, k, inner) for k in reversed(list(v)))
        return None

    def _flatten_keyword(self, T: str, task: _Keyword, chosen: Dict[Any, int], w: _Walk) -> Optional[Reason]:
        n, k, inner = task
        x = self.subschemas.value(n)[k]
        flat, stack = w.flat, w.stack
        if k == "properties" and T == "object":
            if not isinstance(x, dict):
                raise SchemaError("properties must be an object", self.subschemas.pointer(n, k))
            flat.props.extend(x)
        elif k == "required" and T == "object":
            if not isinstance(x, list) or not all(isinstance(s, str) for s in x):
                raise SchemaError("required must be an array of strings", self.subschemas.pointer(n, k))
            flat.reqs.extend(x)
        elif k == "allOf":
            stack.append(_Kids(n, 0, inner))
        elif k in ("$ref", "$dynamicRef"):
            try:
                stack.append(Atom(self.applicators.ref_target(n, k), False, inner))
            except Unsupported as e:
                self.comp.unsupported(e.keyword, e.pointer, e.reason)
        elif k == "$recursiveRef":
            self.comp.unsupported(k, self.subschemas.pointer(n, k), RECURSIVE_REF)
        elif k == "not":
            stack.append(Atom(self.subschemas.child(n, x), True, ()))
        elif k in ("anyOf", "oneOf", "if", "enum", "const") or (T == "object" and k in _DEPENDENCIES):
            if k in _DEPENDENCIES and not isinstance(x, dict):
                raise SchemaError("%s must be an object" % k, self.subschemas.pointer(n, k))
            return self._flatten_subs(T, n, k, inner, list(x) if k in _DEPENDENCIES else [None], chosen, w)
        return None

    def _flatten_kids(self, T: str, task: _Kids, w: _Walk) -> None:
        """The next kid of an allOf that may matter, the task for the rest on the stack
        below it. For objects outside an unevaluated-scope, the switch passes over the
        cases the context makes vacuous — and over every case once the walk has met a
        group: the conjunction is then distributed, not laid out, and a case adds to it
        at most a later group or the negation of its `if` (when its `then` is excluded),
        which its alternatives meet again (switch.py)."""
        n, i, inner = task
        s = self.switch.of(n)
        if T == "object" and not inner:
            if w.flat.groups:
                i = s.next_other(i)
            else:
                i = s.next_live(i, lambda p: self.disjoint.live_words(w.context, p))
        if i < len(s.kids):
            if i + 1 < len(s.kids):
                w.stack.append(_Kids(n, i + 1, inner))
            w.stack.append(Atom(s.kids[i], False, inner))

    def _flatten_subs(self, T: str, n: int, k: str, inner: Tuple[int, ...], subs: List[Optional[str]],
                      chosen: Dict[Any, int], w: _Walk) -> Optional[Reason]:
        """The disjunctions of keyword k of node n, one per property of a dependencies
        keyword (`subs`; [None] for the others), read one after the other."""
        for j, sub in enumerate(subs):
            unsat = self._flatten_disjunction(T, Disjunction(n, k, sub), inner, chosen, w, subs, j + 1)
            if unsat is not None:
                return unsat
        return None

    def _flatten_disjunction(self, T: str, gid: Disjunction, inner: Tuple[int, ...], chosen: Dict[Any, int],
                             w: _Walk, subs: List[Optional[str]], after: int) -> Optional[Reason]:
        """A disjunction: the alternative already chosen, the only one left, nothing (one
        alternative allows every T-value), or a Group to distribute. An alternative the
        context excludes is dead (disjoint.py). At the first Group the walk is kept
        (Resume), unless this disjunction was met before: there the walk was not yet
        what its distributed conjunctions see."""
        n, k, _ = gid
        first = not w.flat.groups and gid not in w.met
        if not w.flat.groups:
            w.met.add(gid)
        options, profs = self.disjunctions.options(gid, T, inner)
        if gid in chosen:
            w.stack.extend(reversed(options[chosen[gid]]))
            return None
        context = w.context
        live = []
        for i, p in enumerate(profs):
            if p != NONE:
                for a in options[i]:
                    if not a.negated and self.disjoint.excluded(context, a.node, T):
                        break
                else:
                    live.append(i)
        if not live:
            what = "no value of %s" % k if k in ("enum", "const") else "no alternative of %s" % k
            return Reason("%s is an %s" % (what, T), self.subschemas.pointer(n, k))
        if len(live) == 1:
            w.stack.extend(reversed(options[live[0]]))
        elif inner or not any(profs[i] == ALL for i in live):
            group = Group(gid, [(i, options[i]) for i in live])
            if first:
                rest = _Rest(n, k, inner, subs[after:]) if after < len(subs) else None
                w.resume = Resume(group, w.copy(), rest)
            w.flat.groups.append(group)
        return None
