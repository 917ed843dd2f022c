"""The JSON schema compiler put together, and its entry points `json_schema_to_ir` and
`json_whitespace`. A schema compiles to nonterminals made lazily from a worklist: a
value nonterminal has one lexeme for the scalars it allows (scalars.py) and one
alternative per container type it allows (containers.py, arrays.py, objects.py)."""
from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any, Dict, List, NamedTuple, Optional, Set, Tuple

from ...errors import GrammarError, SchemaError
from ...limits import DEFAULT_LIMITS, Limits
from ...regex import ExprSet
from ...grammar.ir import GrammarIR
from ...grammar.simplify import productive_nonterminals
from .base import ContainerKey
from .profiles import NONE
from .compilation import Atom, Reason
from .languages import is_empty_language
from .subschemas import Subschemas, trivial
from .objects import Objects
from .options import IgnoredKeyword, prepare, whitespace
from .values import is_number, number_text, to_decimal


class JsonSchemaIR(NamedTuple):
    """What `json_schema_to_ir` returns: the IR, the schema's start nonterminal (a rule
    body in the IR), the keywords skipped under `lenient`, and the options used."""

    ir: GrammarIR
    start: int
    ignored: List[IgnoredKeyword]
    options: Dict[str, Any]


class Compiler(Objects):
    """One compilation of a schema into a GrammarIR."""

    def run(self, root: int) -> int:
        """The start nonterminal of the schema at node `root`, after making the rules of
        every nonterminal it needs (a worklist: no recursion on the schema's depth)."""
        start = self.value_nt((Atom(root, False, ()),))
        while self.todo:
            job = self.todo.pop()
            if job.container is None:
                self._compile_value(job.atoms, job.nt)
            else:
                self._compile_container(job.container, job.nt)
        return start

    def _compile_value(self, atoms: Tuple[Atom, ...], nt: int) -> None:
        es = self.es
        s = self.scalars.universe
        for n, neg, _ in atoms:
            x = self.scalars.of(n)
            s = self.scalars.intersect(s, self.scalars.complement(x) if neg else x)
        alts = []
        if s.null:
            alts.append(es.literal(b"null"))
        for b in sorted(s.booleans, reverse=True):
            alts.append(es.literal(b"true" if b else b"false"))
        if s.number != es.NOTHING and (self.disjoint.has_number(s.number, atoms) or not is_empty_language(es, s.number)):
            alts.append(s.number)
        if s.string != es.NOTHING and (self.disjoint.has_word(s.string, atoms) or not is_empty_language(es, s.string)):
            alts.append(self.scalars.string_lexeme(s.string))
        if alts:
            expr = es.union(*alts)
            self.ir.add_rule(nt, (self.lexeme(self.scalars.name(s), expr),))
        for T in ("array", "object"):
            if self.profiles.of_atoms(atoms, T) != NONE:
                self.ir.add_rule(nt, (self.container_nt(T, atoms, frozenset()),))

    def _compile_container(self, key: ContainerKey, nt: int) -> None:
        """The rules of a container nonterminal: one alternative per option of the first
        undecided disjunction, or the layout of a leaf conjunction."""
        T, atoms, choices = key
        flat = self.containers.flatten(T, atoms, choices, self._resumes.pop(key, None))
        if isinstance(flat, Reason):
            self.comp.nonterminal_reasons.setdefault(nt, flat)
            return
        if flat.groups:
            gid, options = flat.groups[0]
            for i, _ in options:
                child = ContainerKey(T, atoms, choices | {(gid, i)})
                if flat.resume is not None and child not in self.container_nts:
                    self._resumes[child] = (flat.resume, i)  # its flattening goes on from there
                self.ir.add_rule(nt, (self.container_nt(*child),))
            return
        if T == "array":
            self._array(flat.atoms, nt)
        else:
            self._object(flat.atoms, flat.props, flat.reqs, nt)

    def entry(self, start: int, entry_class: int) -> int:
        """A copy of `start` whose first lexemes are in `entry_class` (one without
        %ignore): llguidance skips a nested grammar's whitespace only after a token of
        that grammar, never before its first token, and maskref's lexer allows a class's
        %ignore wherever a lexeme of the class may come — so the first token of an
        embedded JSON value gets a class that skips nothing. Every JSON value starts with
        a lexeme (a scalar, `{` or `[`): only first symbols are rewritten."""
        ir = self.ir
        by_lhs: Dict[int, List[Tuple[int, ...]]] = {}
        for lhs, rhs in ir.rules[self.first_rule:]:
            by_lhs.setdefault(lhs, []).append(rhs)
        copies: Dict[int, int] = {}
        todo = [start]
        copies[start] = ir.add_nonterminal(ir.names[start] + "^")
        while todo:
            nt = todo.pop()
            for rhs in by_lhs.get(nt, ()):
                if not rhs:
                    ir.add_rule(copies[nt], rhs)
                    continue
                first = rhs[0]
                if first < 0:
                    lexeme = ir.lexemes[~first]
                    new = ir.add(replace(lexeme, lexeme_class=entry_class))
                elif first in copies:
                    new = copies[first]
                else:
                    new = copies[first] = ir.add_nonterminal(ir.names[first] + "^")
                    todo.append(first)
                ir.add_rule(copies[nt], (new,) + rhs[1:])
        return copies[start]

    def check(self, start: int) -> None:
        """SchemaError if the schema allows no value at all, with the likeliest reason."""
        rules = self.ir.rules[self.first_rule:]
        productive = productive_nonterminals(rules, [i < self.first_name for i in range(len(self.ir.names))])
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
            if nt in self.value_atoms:
                reason = self._value_reason(self.value_atoms[nt])
                if reason is not None and not any(not productive[s] for rhs in by_lhs.get(nt, ()) for s in rhs if s >= 0):
                    raise SchemaError("Unsatisfiable schema: " + reason[0], reason[1])
            for rhs in by_lhs.get(nt, ()):
                for s in rhs:
                    if s >= 0 and not productive[s] and s not in seen:
                        seen.add(s)
                        queue.append(s)
        for nt in queue:
            if nt in self.value_atoms:
                reason = self._value_reason(self.value_atoms[nt])
                if reason is not None:
                    raise SchemaError("Unsatisfiable schema: " + reason[0], reason[1])
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


def compiler_for(schema: Any, *, limits: Limits = DEFAULT_LIMITS, **options: Any) -> Compiler:
    """The compiler of `schema` (a dict or JSON text) into a new GrammarIR, its components
    made and nothing compiled yet: to try one component on a schema (the examples of
    the components' modules do)."""
    schema, opts = prepare(schema, None, None, options)
    return Compiler(GrammarIR(ExprSet(limits), limits), Subschemas(schema), opts, 0)


def json_whitespace(es: ExprSet, schema: Any, **options: Any) -> Optional[int]:
    """The %ignore expression the schema's options give JSON whitespace (None: none)."""
    _, opts = prepare(schema, None, None, options)
    return whitespace(es, opts)


def json_schema_to_ir(schema: Any, *, ir: Optional[GrammarIR] = None, lexeme_class: int = 0,
                      entry_class: Optional[int] = None, limits: Limits = DEFAULT_LIMITS,
                      defaults: Optional[Dict[str, Any]] = None, overrides: Optional[Dict[str, Any]] = None,
                      **options: Any) -> JsonSchemaIR:
    """Compile a JSON schema (a dict, or JSON text) into `ir` (a new GrammarIR if None,
    whose start symbol is then set); the JSON's lexemes get `lexeme_class`, whose %ignore
    becomes the JSON whitespace. With `entry_class` (a class without %ignore), the first
    token of the value gets that class, so no JSON whitespace may come before it (for a
    JSON value embedded in a larger grammar, as llguidance's nested grammars).

    Options (llguidance's `x-guidance`): item_separator, key_separator,
    whitespace_flexible, whitespace_pattern, coerce_one_of, lenient,
    json_allowed_escapes, json_allow_general_unicode_escapes — applied in the order
    `defaults`, keyword arguments, the schema's top-level "x-guidance", `overrides`.

    Raises SchemaError (malformed, unsatisfiable, or a keyword that cannot be enforced
    exactly unless lenient) and LimitError.

    >>> r = json_schema_to_ir({"enum": ["red", "green", 7]})
    >>> print(r.ir.to_text(), end="")
    json: number'|string'
    """
    schema, opts = prepare(schema, defaults, overrides, options)
    own = ir is None
    if ir is None:
        ir = GrammarIR(ExprSet(limits), limits)
    ws = whitespace(ir.es, opts)
    if ws is not None:
        if ir.ignores.get(lexeme_class, ws) != ws:
            raise GrammarError("lexeme class %d already has another %%ignore" % lexeme_class)
        ir.ignores[lexeme_class] = ws
        ir.ignore_once.add(lexeme_class)
    subschemas = Subschemas(schema)
    compiler = Compiler(ir, subschemas, opts, lexeme_class)
    start = compiler.run(subschemas.root)
    compiler.check(start)
    if entry_class is not None and ws is not None:
        if entry_class in ir.ignores:
            raise GrammarError("the entry class %d of a JSON value must have no %%ignore" % entry_class)
        start = compiler.entry(start, entry_class)
    if own:
        ir.start = start
    return JsonSchemaIR(ir, start, compiler.ignored, opts)
