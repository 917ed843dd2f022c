"""The compiler's shared state and vocabulary: atoms (a subschema applying to a value),
profiles (does a schema allow all, some or no arrays/objects), the records the parts
pass around, and `CompilerBase`, on which the compiler's parts build."""
from __future__ import annotations

import json
from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Tuple

from ...errors import LimitError, RegexError, SchemaError
from ...regex import compile_pattern
from ...grammar.ir import GrammarIR
from .applicators import Applicators
from .compilation import Atom, Compilation
from .containers import Containers, Resume
from .disjoint import Disjointness
from .disjunctions import Disjunctions
from .switch import Switches
from .keywords import ScalarKeywords
from .negation import Negations
from .profiles import Profiles
from .scalars import ScalarAlgebra
from .subschemas import FALSE, Subschemas, trivial

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


class CompilerBase:
    """The state of one compilation and what every part of it uses: error reporting,
    lexemes, the in-place structure of subschemas, and the nonterminals made on demand
    (a worklist of Jobs). The parts build on it: profiles.py, scalars.py, negation.py,
    containers.py, arrays.py, objects.py; compiler.py puts them together."""

    def __init__(self, ir: GrammarIR, subschemas: Subschemas, options: Dict[str, Any], lexeme_class: int) -> None:
        self.comp = comp = Compilation(ir, subschemas, options, lexeme_class)
        self.applicators = applicators = Applicators(comp)
        self.profiles = Profiles(comp, applicators)
        self.keywords = keywords = ScalarKeywords(comp)
        self.scalars = ScalarAlgebra(comp, applicators, keywords)
        self.negation = negation = Negations(comp, applicators)
        self.disjoint = disjoint = Disjointness(comp, applicators, self.profiles, self.scalars)
        self.switch = switch = Switches(comp, disjoint)
        self.disjunctions = disjunctions = Disjunctions(comp, self.profiles, negation, disjoint)
        self.containers = Containers(comp, applicators, self.profiles, negation, disjoint, switch, disjunctions)
        #: container conjunctions made and not yet flattened -> where their parent's walk
        #: met the disjunction they decide, and their alternative of it
        self._resumes: Dict[Any, Tuple[Resume, int]] = {}
        self.ir = ir
        self.es = ir.es
        self.limits = ir.limits
        self.subschemas = subschemas
        self.cls = lexeme_class
        self.strings = comp.strings
        self.numbers = comp.numbers
        self.ignored = comp.ignored
        self._lexemes: Dict[Tuple[str, int], int] = {}
        self._key_exprs: Dict[Tuple[int, Tuple[str, ...], bool], int] = {}
        self._sep_items: Dict[int, int] = {}
        self.value_nts: Dict[Tuple[Atom, ...], int] = {}
        self.container_nts: Dict[ContainerKey, int] = {}
        self.alternatives = 0  # container nonterminals made for a choice of alternatives
        self.value_atoms: Dict[int, Tuple[Atom, ...]] = {}
        self.todo: List[Job] = []
        self.first_rule = comp.first_rule
        self.first_name = comp.first_name

    # -- lexemes ----------------------------------------------------------------------------

    def lexeme(self, name: str, expr: int) -> int:
        return self.ir.add_lexeme(name, expr, lexeme_class=self.cls)

    def literal(self, text: str) -> int:
        return self.lexeme(json.dumps(text, ensure_ascii=False), self.es.literal(text.encode("utf-8")))

    def separator(self, which: str) -> int:
        pattern = self.comp.options[which]
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

    # -- conjunctions of subschemas -> nonterminals -----------------------------------------

    def value_nt(self, atoms: Sequence[Atom]) -> int:
        """The nonterminal of the JSON values satisfying every atom (made on first use).
        Atoms that constrain nothing (`true`, `{}`, annotations only) are left out, so
        that every "any value" is one nonterminal."""
        key = tuple(a for a in dict.fromkeys(atoms) if a.negated or not trivial(self.subschemas.value(a.node)))
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
                                     % (self.subschemas.pointer(choices_node(choices)) or "/"))
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
