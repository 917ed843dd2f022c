"""The JSON schema compiler put together, and its entry points `json_schema_to_ir` and
`json_whitespace`.

A `Compiler` makes the components of one compilation, each given the shared
`Compilation` (compilation.py) and the components it calls — the wiring below is the
map of who calls whom — and runs the worklist: a schema compiles to nonterminals made
lazily (nonterminals.py); a value nonterminal gets one lexeme for the scalars it allows
(scalars.py) and one alternative per container type it allows; a container nonterminal
is flattened (containers.py) and gets one alternative per option of its first undecided
disjunction, or the layout of its leaf conjunction (arrays.py, objects.py).

Why the components are handed their collaborators rather than finding them on the
Compilation: the modules of a package import each other without cycles (import-linter
checks it, type annotations included), so the Compilation, which every component
imports, cannot name the components' types; and the wiring in one place shows who calls
whom.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from ...errors import GrammarError
from ...grammar.ir import GrammarIR
from ...limits import DEFAULT_LIMITS, Limits
from ...regex import ExprSet
from .applicators import Applicators
from .arrays import Arrays
from .compilation import Atom, Compilation, Reason
from .containers import Containers, Resume
from .disjoint import Disjointness
from .disjunctions import Disjunctions
from .keywords import ScalarKeywords
from .languages import is_empty_language
from .lexemes import Lexemes
from .negation import Negations
from .nonterminals import ContainerKey, Nonterminals
from .objects import Objects
from .options import IgnoredKeyword, prepare, whitespace
from .profiles import NONE, Profiles
from .scalars import ScalarAlgebra
from .subschemas import Subschemas
from .switch import Switches
from .unsatisfiable import Unsatisfiable


class JsonSchemaIR(NamedTuple):
    """What `json_schema_to_ir` returns: the IR, the schema's start nonterminal (a rule
    body in the IR), the keywords skipped under `lenient`, and the options used."""

    ir: GrammarIR
    start: int
    ignored: List[IgnoredKeyword]
    options: Dict[str, Any]


class Compiler:
    """One compilation of a schema into a GrammarIR: its components, and the worklist
    that gives each nonterminal its rules."""

    def __init__(self, ir: GrammarIR, subschemas: Subschemas, options: Dict[str, Any], lexeme_class: int) -> None:
        self.comp = comp = Compilation(ir, subschemas, options, lexeme_class)
        self.applicators = applicators = Applicators(comp)
        self.profiles = profiles = Profiles(comp, applicators)
        self.keywords = keywords = ScalarKeywords(comp)
        self.scalars = scalars = ScalarAlgebra(comp, applicators, keywords)
        self.negation = negation = Negations(comp, applicators)
        self.disjoint = disjoint = Disjointness(comp, applicators, profiles, scalars)
        self.switch = switch = Switches(comp, disjoint)
        self.disjunctions = disjunctions = Disjunctions(comp, profiles, negation, disjoint)
        self.containers = Containers(comp, applicators, profiles, negation, disjoint, switch, disjunctions)
        self.nonterminals = nonterminals = Nonterminals(comp)
        self.lexemes = lexemes = Lexemes(comp)
        self.arrays = Arrays(comp, nonterminals, lexemes)
        self.objects = Objects(comp, nonterminals, lexemes, keywords, scalars)
        self.unsatisfiable = Unsatisfiable(comp, applicators, nonterminals)
        #: container conjunctions made and not yet flattened -> where their parent's walk
        #: met the disjunction they decide, and their alternative of it
        self._resumes: Dict[ContainerKey, Tuple[Resume, int]] = {}

    def run(self, root: int) -> int:
        """The start nonterminal of the schema at node `root`, after making the rules of
        every nonterminal it needs (a worklist: no recursion on the schema's depth)."""
        nonterminals = self.nonterminals
        start = nonterminals.value((Atom(root, False, ()),))
        while nonterminals.todo:
            job = nonterminals.todo.pop()
            if job.container is None:
                self._value_rules(job.atoms, job.nt)
            else:
                self._container_rules(job.container, job.nt)
        return start

    def _value_rules(self, atoms: Tuple[Atom, ...], nt: int) -> None:
        """The rules of a value nonterminal: a lexeme for its scalars, and a container
        nonterminal for each container type it allows."""
        es = self.comp.es
        scalars = self.scalars
        s = scalars.universe
        for n, neg, _ in atoms:
            x = scalars.of(n)
            s = scalars.intersect(s, scalars.complement(x) if neg else x)
        alts = []
        if s.null:
            alts.append(es.literal(b"null"))
        for b in sorted(s.booleans, reverse=True):
            alts.append(es.literal(b"true" if b else b"false"))
        if s.number != es.NOTHING and (self.disjoint.has_number(s.number, atoms) or not is_empty_language(es, s.number)):
            alts.append(s.number)
        if s.string != es.NOTHING and (self.disjoint.has_word(s.string, atoms) or not is_empty_language(es, s.string)):
            alts.append(scalars.string_lexeme(s.string))
        ir = self.comp.ir
        if alts:
            expr = es.union(*alts)
            ir.add_rule(nt, (self.lexemes.add(scalars.name(s), expr),))
        for T in ("array", "object"):
            if self.profiles.of_atoms(atoms, T) != NONE:
                ir.add_rule(nt, (self.nonterminals.container(ContainerKey(T, atoms, frozenset())),))

    def _container_rules(self, key: ContainerKey, nt: int) -> None:
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
                if flat.resume is not None and not self.nonterminals.made(child):
                    self._resumes[child] = (flat.resume, i)  # its flattening goes on from there
                self.comp.ir.add_rule(nt, (self.nonterminals.container(child),))
            return
        if T == "array":
            self.arrays.layout(flat.atoms, nt)
        else:
            self.objects.layout(flat.atoms, flat.props, flat.reqs, nt)

    def entry(self, start: int, entry_class: int) -> int:
        """A copy of `start` whose first lexemes are in `entry_class` (one without
        %ignore): llguidance skips a nested grammar's whitespace only after a token of
        that grammar, never before its first token, and maskref's lexer allows a class's
        %ignore wherever a lexeme of the class may come — so the first token of an
        embedded JSON value gets a class that skips nothing. Every JSON value starts with
        a lexeme (a scalar, `{` or `[`): only first symbols are rewritten."""
        ir = self.comp.ir
        by_lhs: Dict[int, List[Tuple[int, ...]]] = {}
        for lhs, rhs in ir.rules[self.comp.first_rule:]:
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


def compiler_for(schema: Any, *, limits: Limits = DEFAULT_LIMITS, **options: Any) -> Compiler:
    """The compiler of `schema` (a dict or JSON text) into a new GrammarIR, its components
    made and nothing compiled yet: to try one component on a schema (the examples of
    the components' modules do)."""
    schema, opts = prepare(schema, limits, None, None, options)
    return Compiler(GrammarIR(ExprSet(limits), limits), Subschemas(schema), opts, 0)


def json_whitespace(es: ExprSet, schema: Any, **options: Any) -> Optional[int]:
    """The %ignore expression the schema's options give JSON whitespace (None: none)."""
    _, opts = prepare(schema, es.limits, None, None, options)
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
    schema, opts = prepare(schema, ir.limits if ir is not None else limits, defaults, overrides, options)
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
    compiler.unsatisfiable.check(start)
    if entry_class is not None and ws is not None:
        if entry_class in ir.ignores:
            raise GrammarError("the entry class %d of a JSON value must have no %%ignore" % entry_class)
        start = compiler.entry(start, entry_class)
    if own:
        ir.start = start
    return JsonSchemaIR(ir, start, compiler.comp.ignored, opts)
