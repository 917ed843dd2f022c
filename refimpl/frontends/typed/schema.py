"""The JSON schema of a Python type (`json_schema_of`), which `Grammar.from_type` compiles.

Each class (dataclass, TypedDict, NamedTuple, Enum) and each recursive alias is one entry
of `$defs`, referred to by `$ref`; the root type is written in place, unless it refers to
itself (then the schema is a `$ref` to its entry). Objects list their properties in
declared order, name the required ones and allow nothing else (`additionalProperties:
false`); a fixed tuple is `prefixItems` with `items: false` and `minItems`; a union is
`anyOf` in declared order; Literal and Enum are `const`/`enum` of their JSON values; a
marker's keywords sit beside `type` (a keyword given twice goes into `allOf`).

>>> from dataclasses import field, make_dataclass
>>> from typing import Annotated, Optional
>>> from refimpl.frontends.typed.markers import Range
>>> Point = make_dataclass("Point", [("x", Annotated[int, Range(ge=0)]),
...                                  ("y", Optional[int], field(default=None))])
>>> json_schema_of(Point)  # doctest: +NORMALIZE_WHITESPACE
{'type': 'object', 'properties': {'x': {'type': 'integer', 'minimum': 0},
 'y': {'anyOf': [{'type': 'integer'}, {'type': 'null'}]}},
 'required': ['x'], 'additionalProperties': False}
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from .models import is_model, model_schema
from .shapes import Shape, Shapes, shapes_of

_JSON_TYPES = {"null": "null", "bool": "boolean", "int": "integer", "float": "number", "str": "string"}


def json_schema_of(t: Any, localns: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The JSON schema (draft 2020-12, a dict) of the JSON texts of type `t`'s values.
    Raises UnsupportedTypeError naming a type with no JSON form and where it sits. A
    pydantic model's is its own `model_json_schema()` (models.py)."""
    if is_model(t):
        return model_schema(t)
    return render(shapes_of(t, localns))


def render(g: Shapes) -> Dict[str, Any]:
    """The schema of a shape graph: every node's body made first, then linked (no
    recursion: a node's children are dicts already made, or `$ref`s)."""
    nodes = g.nodes
    referenced = {c for s in nodes for c in _children(s)}
    bodies: List[Dict[str, Any]] = [{} for _ in nodes]

    def use(i: int) -> Dict[str, Any]:
        name = nodes[i].name
        return {"$ref": "#/$defs/" + name} if name is not None else bodies[i]

    for i, shape in enumerate(nodes):
        _body(shape, bodies[i], use)
    defs = {nodes[i].name: bodies[i] for i in range(len(nodes))
            if nodes[i].name is not None and (i != g.root or g.root in referenced)}
    root = use(g.root) if g.root in referenced else bodies[g.root]
    if defs:
        root = dict(root)
        root["$defs"] = defs
    return root


def node_schema(shape: Shape) -> Dict[str, Any]:
    """The schema of one leaf node (scalars, Literal, Enum: no children)."""
    out: Dict[str, Any] = {}
    _body(shape, out, lambda i: {})
    return out


def _children(s: Shape) -> List[int]:
    return [f.node for f in s.fields] if s.kind == "record" else list(s.items)


def _body(shape: Shape, out: Dict[str, Any], use: Any) -> None:
    kind = shape.kind
    if kind in _JSON_TYPES:
        out["type"] = _JSON_TYPES[kind]
    elif kind in ("enum", "literal"):
        values = [v for v, _ in shape.choices]
        if len(values) == 1:
            out["const"] = values[0]
        else:
            out["enum"] = values
    elif kind == "list":
        out["type"] = "array"
        out["items"] = use(shape.items[0])
    elif kind == "tuple":
        out["type"] = "array"
        if shape.items:
            out["prefixItems"] = [use(i) for i in shape.items]
            out["items"] = False
            out["minItems"] = len(shape.items)
        else:
            out["maxItems"] = 0
    elif kind == "dict":
        out["type"] = "object"
        out["additionalProperties"] = use(shape.items[0])
    elif kind == "record":
        out["type"] = "object"
        out["properties"] = {f.name: use(f.node) for f in shape.fields}
        required = [f.name for f in shape.fields if f.required]
        if required:
            out["required"] = required
        out["additionalProperties"] = False
    elif kind == "union":
        out["anyOf"] = [use(i) for i in shape.items]
    else:  # pragma: no cover - shapes_of fills every node
        raise AssertionError(kind)
    for keywords in shape.keywords:
        if any(k in out for k in keywords):
            out.setdefault("allOf", []).append(dict(keywords))
        else:
            out.update(keywords)
