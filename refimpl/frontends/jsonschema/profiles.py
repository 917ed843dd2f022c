"""Profiles: does a schema allow all, some or no arrays (objects)? The compiler uses
them to leave out container alternatives a conjunction excludes, and to know which
negations it must build.

>>> from refimpl.frontends.jsonschema.compiler import compiler_for
>>> c = compiler_for({"anyOf": [{"type": "array"}, {"type": "object", "required": ["a"]}]})
>>> root = c.comp.subschemas.root
>>> c.profiles.of(root, "array") == ALL, c.profiles.of(root, "object") == PARTIAL
(True, True)
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Sequence, Tuple

from ...errors import SchemaError
from .applicators import Applicators
from .compilation import Atom, Compilation
from .subschemas import trivial
from .values import json_type

NONE, PARTIAL, ALL = 0, 1, 2  # how much of a container type a subschema allows

#: the keywords that constrain arrays, objects
CONTAINER_KEYWORDS = {
    "array": ("items", "prefixItems", "additionalItems", "minItems", "maxItems", "contains",
              "uniqueItems", "unevaluatedItems"),
    "object": ("properties", "required", "additionalProperties", "patternProperties", "propertyNames",
               "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
               "dependencies", "unevaluatedProperties"),
}


def all_of(values: Sequence[int]) -> int:
    """The profile of a conjunction: the least of its parts'."""
    out = ALL
    for v in values:
        if v == NONE:
            return NONE
        if v == PARTIAL:
            out = PARTIAL
    return out


def any_of(values: Sequence[int]) -> int:
    """The profile of a disjunction: the greatest of its parts'."""
    out = NONE
    for v in values:
        if v == ALL:
            return ALL
        if v == PARTIAL:
            out = PARTIAL
    return out


class Profiles:
    """Profiles of subschemas (NONE, PARTIAL or ALL of the arrays or objects)."""

    def __init__(self, comp: Compilation, applicators: Applicators) -> None:
        self.subschemas = comp.subschemas
        self.applicators = applicators
        self._profiles: Dict[Tuple[int, str], int] = {}

    def of(self, n: int, T: str) -> int:
        """How much of type T (array or object) node n allows, applicators included."""
        got = self._profiles.get((n, T))
        if got is not None:
            return got
        value = self.subschemas.value

        def combine(m: int, get: Callable[[int], int]) -> int:
            v = value(m)
            if v is True:
                return ALL
            if v is False:
                return NONE
            parts = [self._own(m, T)]
            for kw, kids in self.applicators.of(m):
                vals = [get(c) for c in kids]
                if kw in ("allOf", "$ref"):
                    parts.append(all_of(vals))
                elif kw == "anyOf":
                    parts.append(any_of(vals))
                elif kw == "oneOf":
                    if PARTIAL in vals:
                        parts.append(PARTIAL)
                    else:
                        parts.append(ALL if vals.count(ALL) == 1 else NONE)
                elif kw == "not":
                    parts.append(ALL - vals[0])
                else:  # if / then / else
                    i, t, e = vals
                    parts.append(t if i == ALL else e if i == NONE else (t if t == e and t != PARTIAL else PARTIAL))
            return all_of(parts)

        return self.applicators.fold(n, self._profiles, lambda m: (m, T), combine, lambda m: PARTIAL)

    def of_atoms(self, atoms: Sequence[Atom], T: str) -> int:
        """How much of type T the conjunction of `atoms` allows."""
        return all_of([(ALL - self.of(n, T)) if neg else self.of(n, T) for n, neg, _ in atoms])

    def _own(self, n: int, T: str) -> int:
        """How much of type T node n allows by its own keywords."""
        subschemas = self.subschemas
        v = subschemas.value(n)
        types = subschemas.types(n)
        if types is not None and T not in types:
            return NONE
        if "const" in v and json_type(v["const"]) != T:
            return NONE
        if "enum" in v:
            values = v["enum"]
            if not isinstance(values, list):
                raise SchemaError("enum must be an array", subschemas.pointer(n, "enum"))
            if not any(json_type(x) == T for x in values):
                return NONE
            return PARTIAL
        if "const" in v:
            return PARTIAL
        if any(key in v and _constrains(key, v) for key in CONTAINER_KEYWORDS[T]):
            return PARTIAL
        return ALL


def _constrains(key: str, v: Dict[str, Any]) -> bool:
    """Does the container keyword `key` of schema `v` exclude some arrays (objects)?"""
    x = v[key]
    if key in ("properties", "patternProperties", "dependentSchemas"):
        return not (isinstance(x, dict) and all(trivial(s) for s in x.values()))
    if key == "prefixItems" or (key == "items" and isinstance(x, list)):
        return not (isinstance(x, list) and all(trivial(s) for s in x))
    if key in ("required", "dependentRequired", "dependencies"):
        return bool(x)
    if key in ("minItems", "minProperties"):
        return not x == 0
    if key == "uniqueItems":
        return x is not False
    if key == "contains":
        return not (v.get("minContains", 1) == 0 and "maxContains" not in v and "unevaluatedItems" not in v)
    if key in ("maxItems", "maxProperties"):
        return True
    if key == "additionalItems":
        return isinstance(v.get("items"), list) and not trivial(x)
    return not trivial(x)
