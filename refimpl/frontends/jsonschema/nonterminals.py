"""The nonterminals of a compilation, made on first use: one per conjunction of atoms
(the JSON values satisfying them all) and one per container conjunction with the
disjunctions decided so far (its arrays or objects). Each is queued as a Job; the
worklist (compiler.py) gives it its rules. So no function recurses on the depth of the
schema, and recursion through `$ref` is recursion through nonterminals.

>>> from refimpl.frontends.jsonschema.compiler import compiler_for
>>> c = compiler_for({"items": {"type": "integer"}})
>>> root = Atom(c.comp.subschemas.root, False, ())
>>> nt = c.nonterminals.value((root,))
>>> c.nonterminals.value((root, Atom(0, False, ()))) == nt  # `true` constrains nothing
True
>>> c.comp.ir.names[nt], [job.nt for job in c.nonterminals.todo] == [nt]
('json', True)
"""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Tuple

from ...errors import LimitError
from .compilation import Atom, Compilation
from .subschemas import FALSE, trivial


class ContainerKey(NamedTuple):
    """The arrays or objects (`T`) satisfying `atoms`, with the disjunctions already
    decided in `choices` (pairs of a disjunction's id and the alternative taken)."""

    T: str
    atoms: Tuple[Atom, ...]
    choices: FrozenSet[Any]


class Job(NamedTuple):
    """A nonterminal waiting for its rules: the values of a conjunction of `atoms`
    (`container` None) or its arrays/objects (`container` a ContainerKey)."""

    atoms: Tuple[Atom, ...]
    nt: int
    container: Optional[ContainerKey] = None


class Nonterminals:
    """The value and container nonterminals made so far, and the Jobs not done yet."""

    def __init__(self, comp: Compilation) -> None:
        self.ir = comp.ir
        self.limits = comp.limits
        self.subschemas = comp.subschemas
        self.todo: List[Job] = []
        #: the atoms of each value nonterminal
        self.value_atoms: Dict[int, Tuple[Atom, ...]] = {}
        #: container nonterminals made for a choice of alternatives (schema_alternatives)
        self.alternatives = 0
        self._values: Dict[Tuple[Atom, ...], int] = {}
        self._containers: Dict[ContainerKey, int] = {}

    def value(self, atoms: Sequence[Atom]) -> int:
        """The nonterminal of the JSON values satisfying every atom (made on first use).
        Atoms that constrain nothing (`true`, `{}`, annotations only) are left out, so
        that every "any value" is one nonterminal."""
        key = tuple(a for a in dict.fromkeys(atoms) if a.negated or not trivial(self.subschemas.value(a.node)))
        nt = self._values.get(key)
        if nt is None:
            nt = self._values[key] = self.ir.add_nonterminal(self._name("json", key))
            self.value_atoms[nt] = key
            self.todo.append(Job(key, nt))
        return nt

    def container(self, key: ContainerKey) -> int:
        """The nonterminal of the arrays or objects of `key` (made on first use). One
        made for a choice of alternatives counts against `Limits.schema_alternatives`."""
        nt = self._containers.get(key)
        if nt is None:
            T, atoms, choices = key
            label = "json[]" if T == "array" else "json{}"
            if choices:
                label += "#%d" % len(self._containers)
                self.alternatives += 1
                if self.alternatives > self.limits.schema_alternatives:
                    raise LimitError("schema_alternatives", self.limits.schema_alternatives,
                                     "array/object alternatives distributed from the disjunctions of %s"
                                     % (self.subschemas.pointer(_choices_node(choices)) or "/"))
            nt = self._containers[key] = self.ir.add_nonterminal(self._name(label, atoms))
            self.todo.append(Job(atoms, nt, key))
        return nt

    def made(self, key: ContainerKey) -> bool:
        """Has the nonterminal of `key` been made?"""
        return key in self._containers

    def _name(self, prefix: str, atoms: Sequence[Atom]) -> str:
        """A name for a nonterminal of `atoms`: the ends of the first pointers."""
        if not atoms:
            return prefix + "(any)"
        ptrs = [("!" if neg else "") + self.subschemas.label(n) for n, neg, _ in atoms[:3] if n > FALSE]
        label = prefix + "&".join(p for p in ptrs if p)
        return label if len(label) <= 60 else label[:58] + "…" + label[-1]


def _choices_node(choices: FrozenSet[Any]) -> int:
    """The node of the last-made choice's disjunction (for messages)."""
    return max(gid[0] for gid, _ in choices)
