"""`parse(T, text)`: the value of type T whose JSON the text is — nested dataclasses
built, Enum members resolved — or a ParseError saying where and what was expected.

Parsing is validation: parse accepts exactly the texts `Grammar.from_type(T)` accepts
(with the frontend's default options), so a text the constrained model wrote always
parses, and a text parse accepts is one the grammar would have let through. Scalars are
checked with the schema's own lexemes (leaves.py); the structure here, as the grammar
lays it out: object members in declared order, each at most once, the required ones
present, no others; arrays of the right length; no whitespace before or after the value.

Two passes over the token tree (reader.py), neither recursive: top-down, which shapes
each JSON value may have (a union's alternatives all); bottom-up, for each value and each
of its shapes, the Python value or the first error. A union takes its first alternative
that fits, in declared order (except that an `int` alternative wins on a number written
without fraction or exponent); when none fits, the error that got furthest is reported.

>>> from dataclasses import dataclass
>>> from typing import List
>>> @dataclass
... class Pet:
...     name: str
...     tags: List[str]
>>> parse(Pet, '{"name": "Rex", "tags": ["dog"]}')
Pet(name='Rex', tags=['dog'])
>>> try:
...     parse(Pet, '{"name": "Rex", "tags": ["dog", 7]}')
... except ParseError as e:
...     print(e)
expected str at byte 32 ($.tags[1])
{"name": "Rex", "tags": ["dog", 7]}
                                ^
"""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, Dict, List, Optional, Tuple, Union

from ..digits import decimal_of_text, int_of_text
from .errors import ParseError
from .leaves import Leaves
from .reader import Node, read_tree
from .schema import node_schema
from .shapes import LEAF_KINDS, Shape, Shapes, shapes_of

#: an error found while reading a value: (character offset, message, the value's node)
_Err = Tuple[int, str, Node]
#: one (value, shape) outcome: (True, the Python value) or (False, an _Err)
_Result = Tuple[bool, Any]

_PLANS: Dict[int, Tuple[Any, "Plan"]] = {}  # id(type) -> (type, plan): types are not hashed (deep ones recurse)
_PLAN_CACHE_SIZE = 64


class Plan:
    """What parse needs for one type: its shapes, the leaves' DFAs, the keys of records."""

    def __init__(self, t: Any, localns: Optional[Dict[str, Any]] = None) -> None:
        self.shapes: Shapes = shapes_of(t, localns)
        self.leaves = Leaves()
        self.string = Shape("str", str)  # the lexeme of a dict key
        self.keys: Dict[int, Dict[str, int]] = {
            i: {json.dumps(f.name, ensure_ascii=False): k for k, f in enumerate(s.fields)}
            for i, s in enumerate(self.shapes.nodes) if s.kind == "record"}


def plan_of(t: Any, localns: Optional[Dict[str, Any]] = None) -> Plan:
    """The Plan of `t`, cached by identity (for types parsed without localns)."""
    if localns is not None:
        return Plan(t, localns)
    got = _PLANS.get(id(t))
    if got is not None and got[0] is t:
        return got[1]
    plan = Plan(t)
    if len(_PLANS) >= _PLAN_CACHE_SIZE:
        _PLANS.pop(next(iter(_PLANS)))
    _PLANS[id(t)] = (t, plan)
    return plan


def parse(t: Any, text: Union[str, bytes], *, localns: Optional[Dict[str, Any]] = None) -> Any:
    """The value of type `t` that `text` (str, or UTF-8 bytes) is the JSON of.

    Raises ParseError (with the byte offset and the JSON path) when the text is not in
    the language of Grammar.from_type(t), UnsupportedTypeError when `t` has no JSON form.
    """
    plan = plan_of(t, localns)
    text = _as_text(text)
    tree = read_tree(text)
    ok, value = _Reading(plan).run(tree)
    if not ok:
        offset, message, node = value
        raise ParseError(message, text, offset, node.path())
    return value


def _as_text(text: Union[str, bytes]) -> str:
    if isinstance(text, (bytes, bytearray)):
        data = bytes(text)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            head = data[:e.start].decode("utf-8")
            raise ParseError("invalid UTF-8", head + "\ufffd", len(head), "$") from None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ParseError("a lone surrogate (not UTF-8 text)", text, e.start, "$") from None
    return text


class _Reading:
    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.nodes = plan.shapes.nodes
        self.expected: Dict[int, List[int]] = {}
        self.results: Dict[int, Dict[int, _Result]] = {}

    def run(self, tree: Node) -> _Result:
        order = self._expect(tree)
        for j in reversed(order):  # children before their parents
            res: Dict[int, _Result] = {}
            for s in self.expected[id(j)]:
                res[s] = self._read(j, s, res)
            self.results[id(j)] = res
        return self.results[id(tree)][self.plan.shapes.root]

    # -- top-down: the shapes each value may have ------------------------------------------

    def _expand(self, shapes: List[int]) -> List[int]:
        """The shapes and, through unions, their alternatives: alternatives before the
        union that holds them, each once."""
        out: List[int] = []
        seen = set()
        stack: List[Tuple[int, bool]] = [(s, False) for s in reversed(shapes)]
        while stack:
            s, done = stack.pop()
            if done:
                out.append(s)
                continue
            if s in seen:
                continue
            seen.add(s)
            stack.append((s, True))
            if self.nodes[s].kind == "union":
                stack.extend((a, False) for a in reversed(self.nodes[s].items))
        return out

    def _expect(self, tree: Node) -> List[Node]:
        """Pre-order list of the values; `expected` filled for each."""
        nodes, keys = self.nodes, self.plan.keys
        self.expected[id(tree)] = self._expand([self.plan.shapes.root])
        order: List[Node] = []
        stack = [tree]
        while stack:
            j = stack.pop()
            order.append(j)
            exp = self.expected[id(j)]
            if j.kind == "array":
                for index, child in enumerate(j.members):
                    want = []
                    for s in exp:
                        shape = nodes[s]
                        if shape.kind == "list":
                            want.append(shape.items[0])
                        elif shape.kind == "tuple" and index < len(shape.items):
                            want.append(shape.items[index])
                    self.expected[id(child)] = self._expand(want)
                    stack.append(child)
            elif j.kind == "object":
                for m in j.members:
                    want = []
                    for s in exp:
                        shape = nodes[s]
                        if shape.kind == "dict":
                            want.append(shape.items[0])
                        elif shape.kind == "record":
                            k = keys[s].get(m.key)
                            if k is not None:
                                want.append(shape.fields[k].node)
                    self.expected[id(m.value)] = self._expand(want)
                    stack.append(m.value)
        return order

    # -- bottom-up: the value of one JSON value as one shape -----------------------------

    def _child(self, j: Node, s: int) -> _Result:
        return self.results[id(j)][s]

    def _read(self, j: Node, s: int, here: Dict[int, _Result]) -> _Result:
        shape = self.nodes[s]
        kind = shape.kind
        if kind in LEAF_KINDS:
            return self._leaf(j, s, shape)
        if kind == "union":
            return self._union(j, shape, here)
        if kind in ("list", "tuple"):
            if j.kind != "array":
                return False, (j.start, "expected an array (%s)" % shape.label, j)
            return self._array(j, shape)
        if j.kind != "object":
            return False, (j.start, "expected an object (%s)" % shape.label, j)
        if kind == "dict":
            return self._dict(j, shape)
        return self._record(j, s, shape)

    def _leaf(self, j: Node, s: int, shape: Shape) -> _Result:
        if j.kind in ("object", "array") or not self.plan.leaves.dfa(s, shape).matches(j.raw.encode("utf-8")):
            return False, (j.start, "expected " + describe(shape), j)
        raw, kind = j.raw, shape.kind
        if kind == "int":
            return True, int_of_text(raw)  # not int(raw): that stops at 4,300 digits
        if kind == "float":
            return True, float(raw)
        if kind == "str":
            return True, _string(raw)
        if kind in ("null", "bool"):
            return True, (raw == "true") if kind == "bool" else None
        value = _scalar(j)
        for json_value, py in shape.choices:
            if _same_json(json_value, value):
                return True, py
        raise AssertionError("the lexeme accepted %r, which is none of the choices" % raw)  # pragma: no cover

    def _union(self, j: Node, shape: Shape, here: Dict[int, _Result]) -> _Result:
        results = [(a, here[a]) for a in shape.items]
        if j.kind == "number" and not any(c in j.raw for c in ".eE"):
            for a, (ok, value) in results:
                if ok and self.nodes[a].kind == "int":
                    return True, value
        for _, (ok, value) in results:
            if ok:
                return True, value
        best = max((r[1] for _, r in results), key=lambda e: e[0])
        if best[0] == j.start and best[2] is j:
            return False, (j.start, "expected %s" % " or ".join(self.nodes[a].label for a in shape.items), j)
        return False, best

    def _array(self, j: Node, shape: Shape) -> _Result:
        n = len(j.members)
        if shape.kind == "tuple":
            lo = hi = len(shape.items)
        else:
            lo = max([k.get("minItems", 0) for k in shape.keywords] + [0])
            his = [k["maxItems"] for k in shape.keywords if "maxItems" in k]
            hi = min(his) if his else n
        if n < lo:
            return False, (j.end - 1, "expected %s%d items (%s)" % ("" if lo == hi else "at least ", lo, shape.label), j)
        if n > hi:
            return False, (j.members[hi].start, "expected %s%d items (%s)" % ("" if lo == hi else "at most ", hi, shape.label),
                           j)
        values = []
        for index, child in enumerate(j.members):
            ok, value = self._child(child, shape.items[index] if shape.kind == "tuple" else shape.items[0])
            if not ok:
                return False, value
            values.append(value)
        if shape.py is list:
            return True, values
        if shape.py is tuple:
            return True, tuple(values)
        return _construct(j, shape, lambda: shape.py(*values))

    def _dict(self, j: Node, shape: Shape) -> _Result:
        key_dfa = self.plan.leaves.dfa(-1, self.plan.string)
        out: Dict[str, Any] = {}
        for m in j.members:
            if not key_dfa.matches(m.key.encode("utf-8")):
                return False, (m.key_start, "expected a key (a JSON string as the grammar writes it)", j)
            ok, value = self._child(m.value, shape.items[0])
            if not ok:
                return False, value
            out[_string(m.key)] = value  # as json.loads: a repeated key keeps its last value
        return True, out

    def _record(self, j: Node, s: int, shape: Shape) -> _Result:
        keys = self.plan.keys[s]
        fields = shape.fields
        last = -1
        kwargs: Dict[str, Any] = {}
        for m in j.members:
            k = keys.get(m.key)
            if k is None:
                return False, (m.key_start, "unexpected key %s (%s has %s)" % (
                    m.key, shape.label, ", ".join(json.dumps(f.name, ensure_ascii=False) for f in fields) or "no keys"), j)
            if k <= last:
                why = "repeated" if k == last or fields[k].name in kwargs else "out of order"
                return False, (m.key_start, "key %s %s (%s's keys come in declared order, each once)" % (m.key, why, shape.label),
                               j)
            for f in fields[last + 1:k]:
                if f.required:
                    return False, (m.key_start, "missing key %s before %s (%s)" % (
                        json.dumps(f.name, ensure_ascii=False), m.key, shape.label), j)
            ok, value = self._child(m.value, fields[k].node)
            if not ok:
                return False, value
            kwargs[fields[k].name] = value
            last = k
        for f in fields[last + 1:]:
            if f.required:
                return False, (j.end - 1, "missing key %s (%s)" % (json.dumps(f.name, ensure_ascii=False), shape.label), j)
        return _construct(j, shape, lambda: shape.py(**kwargs))


def _construct(j: Node, shape: Shape, make: Any) -> _Result:
    """Build a class instance; an exception in its __init__/__post_init__ is an error."""
    try:
        return True, make()
    except Exception as e:
        return False, (j.start, "%s(...) raised %s: %s" % (shape.label, type(e).__name__, e), j)


def describe(shape: Shape) -> str:
    """What a leaf shape expects, for messages: `int`, `str {"maxLength": 8}`, `one of
    "red", "green" (Color)`."""
    if shape.kind in ("enum", "literal"):
        values = ", ".join(json.dumps(v, ensure_ascii=False) for v, _ in shape.choices)
        return "one of %s (%s)" % (values, shape.label) if len(shape.choices) > 1 else "%s (%s)" % (values, shape.label)
    schema = node_schema(shape)
    schema.pop("type", None)
    label = "None" if shape.kind == "null" else shape.label
    return label + (" " + json.dumps(schema, ensure_ascii=False) if schema else "")


def _string(raw: str) -> str:
    return json.decoder.scanstring(raw, 1)[0]  # type: ignore[attr-defined]


def _scalar(j: Node) -> Any:
    if j.kind == "string":
        return _string(j.raw)
    if j.kind == "number":
        return decimal_of_text(j.raw)
    return {"true": True, "false": False, "null": None}[j.raw]


def _same_json(choice: Any, value: Any) -> bool:
    """Is the JSON value read (numbers as Decimal) the choice's JSON value?"""
    if choice is None or isinstance(choice, bool) or value is None or isinstance(value, bool):
        return choice is value
    if isinstance(choice, str) or isinstance(value, str):
        return isinstance(choice, str) and isinstance(value, str) and choice == value
    return Decimal(repr(choice)) == value if isinstance(choice, float) else Decimal(choice) == value
