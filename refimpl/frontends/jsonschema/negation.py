"""The negation of a subschema within one container type, by De Morgan over its keywords
(for `not`, `if`/`else` and exact `oneOf`), as a new subschema.

>>> from refimpl.frontends.jsonschema.compiler import compiler_for
>>> c = compiler_for({"type": "array", "minItems": 2, "items": {"type": "integer"}})
>>> s = c.comp.subschemas
>>> s.value(c.negation.of(s.root, "array"))
{'type': 'array', 'anyOf': [{'maxItems': 1}, {'contains': {'not': {'type': 'integer'}}}]}
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from ...errors import SchemaError
from .applicators import RECURSIVE_REF, Applicators
from .compilation import Compilation, Unsupported
from .subschemas import trivial
from .values import json_type

NEGATION = "its negation (needed by not, if/else or oneOf) is not expressible"


class Negations:
    """Negations of subschemas, as new subschemas."""

    def __init__(self, comp: Compilation, applicators: Applicators) -> None:
        self.subschemas = comp.subschemas
        self.applicators = applicators
        self._negations: Dict[Tuple[int, str], int] = {}

    def of(self, n: int, T: str) -> int:
        """A schema for the T-values (arrays or objects) that do NOT satisfy node n, by De
        Morgan over n's keywords; Unsupported for a keyword whose negation is not
        expressible (additionalProperties, patternProperties, propertyNames,
        uniqueItems, unevaluated*, items after prefixItems)."""
        got = self._negations.get((n, T))
        if got is not None:
            return got
        v = self.subschemas.value(n)
        parts: List[Any] = []
        if isinstance(v, dict):
            for key, x in v.items():
                if not self._neg_keyword(n, T, key, x, parts):
                    return self._neg_done(n, T, True)
        if v is False:
            return self._neg_done(n, T, True)
        types = self.subschemas.types(n) if isinstance(v, dict) else None
        if types is not None and T not in types:
            return self._neg_done(n, T, True)
        if not parts:
            return self._neg_done(n, T, False)
        m = self.subschemas.synth({"type": T, "anyOf": parts}, n, "not")
        self._negations[(n, T)] = m
        return m

    def _neg_keyword(self, n: int, T: str, key: str, x: Any, parts: List[Any]) -> bool:
        """Add to `parts` the schemas of the T-values that fail keyword `key` (value x) of
        node n; False if every T-value fails it (an enum/const without a T-value)."""
        v = self.subschemas.value(n)
        node_value = self.subschemas.value
        if key == "allOf":
            parts.extend({"not": node_value(c)} for c in self.subschemas.list_of(n, key))
        elif key == "anyOf":
            parts.append({"allOf": [{"not": node_value(c)} for c in self.subschemas.list_of(n, key)]})
        elif key == "oneOf":
            kids = [node_value(c) for c in self.subschemas.list_of(n, key)]
            parts.append({"allOf": [{"not": k} for k in kids]})
            parts.extend({"allOf": [a, b]} for i, a in enumerate(kids) for b in kids[i + 1:])
        elif key == "not":
            parts.append(x)
        elif key in ("$ref", "$dynamicRef"):
            parts.append({"not": node_value(self.applicators.ref_target(n, key))})
        elif key == "if":
            i, t, e = x, v.get("then", True), v.get("else", True)
            parts.append({"allOf": [i, {"not": t}]})
            parts.append({"allOf": [{"not": i}, {"not": e}]})
        elif key in ("enum", "const"):
            mine = [y for y in ([x] if key == "const" else x) if json_type(y) == T]
            if not mine:
                return False
            parts.append({"allOf": [{"not": node_value(self.subschemas.const_node(y, n))} for y in mine]})
        elif key == "$recursiveRef":
            raise Unsupported(key, self.subschemas.pointer(n, key), RECURSIVE_REF)
        elif T == "array":
            self._neg_array(n, v, key, x, parts)
        elif T == "object":
            self._neg_object(n, v, key, x, parts)
        return True

    def _neg_count(self, n: int, key: str, parts: List[Any]) -> None:
        """minItems/maxItems/minProperties/maxProperties: the counts on the other side."""
        k = self.subschemas.count(n, key)
        assert k is not None
        if key.startswith("min"):
            if k:
                parts.append({"max" + key[3:]: k - 1})
        else:
            parts.append({"min" + key[3:]: k + 1})

    def _neg_done(self, n: int, T: str, everything: bool) -> int:
        m = self.subschemas.synth({"type": T} if everything else False, n, "not")
        self._negations[(n, T)] = m
        return m

    def _neg_array(self, n: int, v: Dict[str, Any], key: str, x: Any, parts: List[Any]) -> None:
        p = self.subschemas.pointer(n, key)
        if key in ("minItems", "maxItems"):
            self._neg_count(n, key, parts)
        elif key == "prefixItems" or (key == "items" and isinstance(x, list)):
            for i, s in enumerate(x):
                if not trivial(s):
                    parts.append({"minItems": i + 1, "prefixItems": [True] * i + [{"not": s}]})
        elif key == "items":
            if trivial(x):
                return
            if v.get("prefixItems", []):
                raise Unsupported(key, p, "its negation (needed by not, if/else or oneOf) after prefixItems is not expressible")
            parts.append({"contains": {"not": x}})
        elif key == "contains":
            lo = self.subschemas.count(n, "minContains")
            hi = self.subschemas.count(n, "maxContains")
            lo = 1 if lo is None else lo
            if lo > 0:
                parts.append({"contains": x, "minContains": 0, "maxContains": lo - 1})
            if hi is not None:
                parts.append({"contains": x, "minContains": hi + 1})
        elif ((key == "additionalItems" and isinstance(v.get("items"), list) and not trivial(x))
              or (key == "uniqueItems" and self.subschemas.flag(n, key)) or (key == "unevaluatedItems" and not trivial(x))):
            raise Unsupported(key, p, NEGATION)

    def _neg_object(self, n: int, v: Dict[str, Any], key: str, x: Any, parts: List[Any]) -> None:
        p = self.subschemas.pointer(n, key)
        if key in ("minProperties", "maxProperties"):
            self._neg_count(n, key, parts)
        elif key == "required":
            parts.extend({"properties": {name: False}} for name in _names(x, "required must be an array of strings", p))
        elif key == "properties":
            if not isinstance(x, dict):
                raise SchemaError("properties must be an object", p)
            for name, s in x.items():
                if not trivial(s):
                    parts.append({"required": [name], "properties": {name: {"not": s}}})
        elif key in ("dependentRequired", "dependentSchemas", "dependencies"):
            if not isinstance(x, dict):
                raise SchemaError("%s must be an object" % key, p)
            for name, dep in x.items():
                if isinstance(dep, list):
                    names = _names(dep, "%s values must be arrays of strings" % key, p)
                    parts.append({"required": [name], "anyOf": [{"properties": {b: False}} for b in names]})
                else:
                    parts.append({"required": [name], "not": dep})
        elif key in ("additionalProperties", "patternProperties", "propertyNames", "unevaluatedProperties"):
            if key == "patternProperties" and isinstance(x, dict) and all(trivial(s) for s in x.values()):
                return
            if key != "patternProperties" and trivial(x):
                return
            raise Unsupported(key, p, NEGATION)


def _names(x: Any, message: str, pointer: str) -> List[str]:
    """A list of property names (`required`, a dependency's), or SchemaError: the negation
    writes them into schemas of its own."""
    if not isinstance(x, list) or not all(isinstance(name, str) for name in x):
        raise SchemaError(message, pointer)
    return x
