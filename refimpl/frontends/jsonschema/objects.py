"""Containers, step two for objects: the layout of a leaf conjunction, `{` members `}`:
the named properties in schema order (optional ones optional), then the other members,
whose keys are split by the patternProperties they match, each value the conjunction
of the subschemas that apply to it; min/maxProperties as states counting members.

>>> from refimpl.frontends.jsonschema.compiler import compiler_for
>>> c = compiler_for({"properties": {"a": {"type": "integer"}}, "additionalProperties": False})
>>> nt = c.comp.ir.add_nonterminal("json{}")
>>> c.objects.layout([Atom(c.comp.subschemas.root, False, ())], ["a"], [], nt)
>>> print(c.comp.ir.to_text(), end="")
json{}: "{" json{}@0 "}"
json{}@0: "\\"a\\"" ":" json/properties/a json{}@1+
 | json{}@1
json{}@1+: ""
json{}@1: ""
"""
from __future__ import annotations

import json
from typing import Dict, FrozenSet, List, NamedTuple, Optional, Tuple

from ...errors import LimitError, SchemaError
from ...grammar.repetition import repeat
from ...regex import is_empty
from .compilation import Atom, Compilation, Reason, RequiredMember
from .keywords import ScalarKeywords
from .languages import intersect, literal_union, matches
from .lexemes import Lexemes
from .nonterminals import Nonterminals
from .scalars import ScalarAlgebra
from .subschemas import FALSE, trivial

#: derivative states a region's emptiness may explore before the region is kept anyway
#: (pruning an empty region is an optimisation: a kept empty region's key never matches);
#: intersections of unanchored patterns' complements made each full search 0.5 s
REGION_FUEL = 16


class _Part(NamedTuple):
    """What one atom says of the members: named properties, patternProperties (pattern
    id, schema), additionalProperties, and propertyNames (decoded key strings)."""

    atom: Atom
    properties: Dict[str, int]
    patterns: List[Tuple[int, int]]
    additional: Optional[int]
    names: Optional[int]


class _Late(NamedTuple):
    """unevaluatedProperties: the members no part of `scope` evaluated satisfy `schema`."""

    schema: int
    scope: List[_Part]


class _Members(NamedTuple):
    """The subschemas of the members of a leaf object conjunction."""

    parts: List[_Part]
    late: List[_Late]
    patterns: List[int]  # pattern id -> the strings it matches somewhere


class _Member(NamedTuple):
    """A named member: its name, key lexeme, value nonterminal, and whether required."""

    name: str
    key: int
    value_nt: int
    required: bool


class _LayoutState(NamedTuple):
    """Named members 0..i-1 done, `members` members so far (capped), `after` a member."""

    i: int
    members: int
    after: bool


def nt_where(members: _Members) -> int:
    """A node to name in messages about these members."""
    return members.parts[0].atom.node if members.parts else 0


class Objects:
    """Leaf object conjunctions as rules."""

    def __init__(self, comp: Compilation, nonterminals: Nonterminals, lexemes: Lexemes, keywords: ScalarKeywords,
                 scalars: ScalarAlgebra) -> None:
        self.comp = comp
        self.ir = comp.ir
        self.es = comp.es
        self.subschemas = comp.subschemas
        self.strings = comp.strings
        self.nonterminals = nonterminals
        self.lexemes = lexemes
        self.keywords = keywords
        self.scalars = scalars
        self._key_exprs: Dict[Tuple[int, Tuple[str, ...], bool], int] = {}

    def layout(self, atoms: List[Atom], props: List[str], reqs: List[str], nt: int) -> None:
        """The rules of `nt`, the objects satisfying the leaf conjunction `atoms`, whose
        flattening named the properties `props` and the required `reqs`, in order."""
        lo, hi = 0, None
        parts: List[_Part] = []
        pattern_ids: Dict[str, int] = {}
        pattern_exprs: List[int] = []
        for atom in atoms:
            parts.append(self._part(atom, pattern_ids, pattern_exprs))
            a = self.subschemas.count(atom.node, "minProperties")
            b = self.subschemas.count(atom.node, "maxProperties")
            if a is not None:
                lo = max(lo, a)
            if b is not None:
                hi = b if hi is None else min(hi, b)
        where = atoms[0].node if atoms else self.subschemas.root  # a node: its pointer only on error
        required = list(dict.fromkeys(reqs))
        named = list(dict.fromkeys(props + required))
        if hi is not None and lo > hi:
            self.comp.nonterminal_reasons.setdefault(nt, Reason(
                "minProperties (%d) is greater than maxProperties (%d)" % (lo, hi), self.subschemas.pointer(where)))
            return
        if hi is not None and len(required) > hi:
            self.comp.nonterminal_reasons.setdefault(nt, Reason(
                "required > maxProperties (%d required, maxProperties %d)" % (len(required), hi), self.subschemas.pointer(where)))
            return
        members = _Members(parts, self._late_properties(parts), pattern_exprs)
        colon = self.lexemes.separator("key_separator")
        sep = self.lexemes.separator("item_separator")
        entries = []
        for name in named:
            value = self._member_schemas(members, name, frozenset())
            key = self.lexemes.literal(json.dumps(name, ensure_ascii=False))
            vnt = self.nonterminals.value([Atom(s, False, ()) for s in value])
            entries.append(_Member(name, key, vnt, name in required))
        self.comp.required_of[nt] = [RequiredMember(m.name, m.value_nt, where) for m in entries if m.required]
        pair = self._other_members(nt, members, named, colon)
        self._member_rules(nt, entries, pair, lo, hi, sep, colon)

    def _part(self, atom: Atom, pattern_ids: Dict[str, int], pattern_exprs: List[int]) -> _Part:
        """What atom says of the members (patterns get ids in `pattern_ids`, in order)."""
        n = atom.node
        v = self.subschemas.value(n)
        properties = v.get("properties", {})
        if not isinstance(properties, dict):
            raise SchemaError("properties must be an object", self.subschemas.pointer(n, "properties"))
        patterns: List[Tuple[int, int]] = []  # (pattern id, schema node)
        pp = v.get("patternProperties", {})
        if not isinstance(pp, dict):
            raise SchemaError("patternProperties must be an object", self.subschemas.pointer(n, "patternProperties"))
        for pat, s in pp.items():
            if pat not in pattern_ids:
                e = self.keywords.pattern(pat, n, "patternProperties")
                if e is None:
                    continue
                pattern_ids[pat] = len(pattern_exprs)
                pattern_exprs.append(e)
            patterns.append((pattern_ids[pat], self.subschemas.child(n, s)))
        additional = self.subschemas.child(n, v["additionalProperties"]) if "additionalProperties" in v else None
        names = self.scalars.of(self.subschemas.child(n, v["propertyNames"])).string if "propertyNames" in v else None
        return _Part(atom, {k: self.subschemas.child(n, s) for k, s in properties.items()}, patterns, additional, names)

    def _late_properties(self, parts: List[_Part]) -> List[_Late]:
        """unevaluatedProperties: which subschemas' annotations each one sees."""
        late = []
        for part in parts:
            n = part.atom.node
            v = self.subschemas.value(n)
            if "unevaluatedProperties" not in v or trivial(v["unevaluatedProperties"]):
                continue
            scope = [e for e in parts if e.atom.node == n or n in e.atom.scope]
            if any(e.additional is not None
                   or (e.atom.node != n and "unevaluatedProperties" in self.subschemas.value(e.atom.node))
                   for e in scope):
                continue  # additionalProperties (or a nested unevaluated*) evaluates every key
            late.append(_Late(self.subschemas.child(n, v["unevaluatedProperties"]), scope))
        return late

    def _member_schemas(self, members: _Members, name: Optional[str], matched: FrozenSet[int]) -> List[int]:
        """The schemas a member must satisfy: named `name`, or (name None) a key matching
        exactly the patterns `matched` and no named property."""
        def hit(pid: int) -> bool:
            return pid in matched if name is None else matches(self.es, members.patterns[pid], name)

        out: List[int] = []
        for part in members.parts:
            hits = [s for pid, s in part.patterns if hit(pid)]
            if name is not None and name in part.properties:
                out.append(part.properties[name])
                out.extend(hits)
            elif hits:
                out.extend(hits)
            elif part.additional is not None:
                out.append(part.additional)
            if name is not None and part.names is not None and not matches(self.es, part.names, name):
                out.append(FALSE)
        for late in members.late:
            seen = any((name is not None and name in p.properties) or any(hit(pid) for pid, _ in p.patterns)
                       for p in late.scope)
            if not seen:
                out.append(late.schema)
        return out

    def _other_members(self, nt: int, members: _Members, named: List[str], colon: int) -> Optional[int]:
        """The nonterminal of one member that is not a named property (None: there is
        none): the keys are split into regions by the patterns they match."""
        es = self.es
        names_rx = [p.names for p in members.parts if p.names is not None]
        base = self.strings.any_string
        if named:
            base = intersect(self.es, base, es.complement(literal_union(es, [s.encode("utf-8") for s in named])), None)
        for x in names_rx:
            base = intersect(self.es, base, x, self.strings.any_string)
        regions: List[Tuple[int, FrozenSet[int]]] = []
        stack: List[Tuple[int, int, FrozenSet[int]]] = [(0, base, frozenset())]
        limit, visited = self.comp.limits.property_regions, 0
        while stack:
            i, expr, matched = stack.pop()
            if expr == es.NOTHING or is_empty(es, expr, REGION_FUEL) is True:
                continue
            visited += 1  # the regions and the splits on the way: 2^patterns in theory
            if visited > limit:  # docs/jsonschema.md, "Bounds"
                raise LimitError("property_regions", limit, "key regions of the patternProperties of %s"
                                 % (self.subschemas.pointer(nt_where(members)) or "/"))
            if i == len(members.patterns):
                regions.append((expr, matched))
                continue
            p = members.patterns[i]
            stack.append((i + 1, intersect(self.es, expr, es.complement(p), None), matched))
            stack.append((i + 1, intersect(self.es, expr, p, self.strings.any_string), matched | {i}))
        pair: Optional[int] = None
        simple = not members.patterns and not names_rx
        for expr, matched in regions:
            value = self._member_schemas(members, None, matched)
            if FALSE in value:
                continue
            if pair is None:
                pair = self.ir.add_nonterminal(self.ir.names[nt] + ":*")
            key = self.lexemes.add("string" if expr == self.strings.any_string else "key'", self._key_expr(expr, named, simple))
            self.ir.add_rule(pair, (key, colon, self.nonterminals.value([Atom(s, False, ()) for s in value])))
        return pair

    def _member_rules(self, nt: int, entries: List[_Member], pair: Optional[int], lo: int, hi: Optional[int],
                       sep: int, colon: int) -> None:
        """Named members in order (optional ones optional), then the others; states count
        the members when min/maxProperties ask."""
        cap = hi if hi is not None else lo
        states: Dict[_LayoutState, int] = {}
        todo: List[_LayoutState] = []

        def state(key: _LayoutState) -> int:
            got = states.get(key)
            if got is None:
                got = states[key] = self.ir.add_nonterminal("%s@%d%s" % (self.ir.names[nt], key.i, "+" if key.after else ""))
                todo.append(key)
            return got

        sep_pair: List[int] = []
        self.ir.add_rule(nt, (self.lexemes.literal("{"), state(_LayoutState(0, 0, False)), self.lexemes.literal("}")))
        while todo:
            key = todo.pop()
            i, count, after = key
            s = states[key]
            if i == len(entries):
                if pair is not None and not sep_pair:
                    more = self._more_members(nt, pair, count, lo, hi, sep)
                    if more is not None:
                        sep_pair.append(more)
                self._rest_members(s, pair, sep_pair[0] if sep_pair else None, count, after, lo, hi)
                continue
            member = entries[i]
            if hi is None or count < hi:
                nxt = state(_LayoutState(i + 1, min(count + 1, cap) if hi is None else count + 1, True))
                self.ir.add_rule(s, ((sep,) if after else ()) + (member.key, colon, member.value_nt, nxt))
            if not member.required:
                self.ir.add_rule(s, (state(_LayoutState(i + 1, count, after)),))

    def _more_members(self, nt: int, pair: int, count: int, lo: int, hi: Optional[int], sep: int) -> Optional[int]:
        """`, member` (made when a state first needs it)."""
        a = max(0, lo - count)
        b = None if hi is None else hi - count
        if (b is not None and b < a) or b == 0:
            return None
        more = self.ir.add_nonterminal(self.ir.names[nt] + ",*")
        self.ir.add_rule(more, (sep, pair))
        return more

    def _rest_members(self, s: int, pair: Optional[int], more: Optional[int], count: int, after: bool,
                      lo: int, hi: Optional[int]) -> None:
        """The rules of state s after the named members: the other members, counted."""
        a = max(0, lo - count)
        b = None if hi is None else hi - count
        if b is not None and b < a:
            return
        if pair is None or b == 0:
            if a == 0:
                self.ir.add_rule(s, ())
            return
        assert more is not None
        if after:
            self.ir.add_rule(s, (repeat(self.ir, more, a, b),))
        else:
            if a == 0:
                self.ir.add_rule(s, ())
            self.ir.add_rule(s, (pair, repeat(self.ir, more, max(a - 1, 0), None if b is None else b - 1)))

    def _key_expr(self, decoded: int, named: List[str], simple: bool) -> int:
        """The lexeme of the keys of additional members. As in llguidance, when the
        object has named properties the keys may use general \\uXXXX escapes (then every
        encoding of a named property is excluded, which keeps it exact)."""
        key = (decoded, tuple(named), simple)
        got = self._key_exprs.get(key)
        if got is None:
            got = self._key_exprs[key] = self._make_key_expr(decoded, named, simple)
        return got

    def _make_key_expr(self, decoded: int, named: List[str], simple: bool) -> int:
        es = self.es
        options = self.comp.options
        if simple and (named or options["json_allow_general_unicode_escapes"]) and "u" in options["json_allowed_escapes"]:
            q = es.literal(b'"')
            general = es.concat(q, es.star(self.strings.general_unit()), q)
            if not named:
                return general
            taken = es.union(*[es.concat(q, self.strings.general_literal(s), q) for s in named])
            return es.intersection(general, es.complement(taken))
        return self.scalars.string_lexeme(decoded)

