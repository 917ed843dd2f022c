"""A Python type as a graph of *shapes*: what its JSON looks like, and how to build the
value back. json_schema_of renders the graph as a JSON schema (schema.py); parse reads a
text along it (parse.py); to_json writes a value (dump.py). One analysis serves the three,
so they cannot disagree on what a type means.

The types and their JSON (docs/types.md):

    None, bool, int, float, str     null, true/false, integer, number, string
    Literal[...], Enum subclass     one of the values (an Enum member by its value)
    list[T], tuple[T, ...]          an array of T
    tuple[A, B], NamedTuple         an array of exactly those items, in order
    dict[str, T]                    an object with any keys, values T
    dataclass, TypedDict            an object of the fields, in declared order; a field
                                    with a default (NotRequired / total=False key) optional
    Union[...], Optional[T], A | B  any of the alternatives
    Annotated[T, marker, ...]       T with the markers' keywords (markers.py)

Classes are shared nodes (a recursive dataclass is a cycle in the graph), so are
forward references that name a type alias; every other type expression gets a node of its
own. The graph is built from a worklist, so a deep type does not recurse.

>>> from typing import List, Optional
>>> g = shapes_of(Optional[List[int]])
>>> [(s.kind, s.items) for s in g.nodes]
[('union', [1, 2]), ('list', [3]), ('null', []), ('int', [])]
"""
from __future__ import annotations

import collections.abc
import dataclasses
import enum
import re
import sys
import types
import typing
from typing import Any, Dict, ForwardRef, List, NamedTuple, Optional, Set, Tuple

from ...errors import shown
from .errors import UnsupportedTypeError, _type_name
from .markers import MARKERS

_UNION_TYPE = getattr(types, "UnionType", None)  # `A | B` objects, Python 3.10+
_TD_WRAPPERS = tuple(w for w in (getattr(typing, "Required", None), getattr(typing, "NotRequired", None)) if w is not None)
_SCALARS = {type(None): "null", bool: "bool", int: "int", float: "float", str: "str"}
#: the JSON kind a marker may constrain, by shape kind
MARKER_KIND = {"int": "number", "float": "number", "str": "string", "list": "array"}
LEAF_KINDS = frozenset(("null", "bool", "int", "float", "str", "enum", "literal"))


class Field(NamedTuple):
    """A member of a record: its key, its shape, whether the text must have it."""

    name: str
    node: int
    required: bool


class Shape:
    """One node. `kind` is null, bool, int, float, str, enum, literal (`choices`: pairs of
    JSON value and Python value), list (`items[0]`, built with `py`: list or tuple),
    tuple (`items`, built with `py`: tuple or a NamedTuple class), dict (`items[0]`: the
    values), record (`fields`, built by `py`, a dataclass or TypedDict), union
    (`items`: the alternatives, in order). `keywords` are the markers' JSON keywords, one
    dict per marker; `name` is set for the nodes that go to the schema's `$defs`."""

    __slots__ = ("kind", "type", "py", "items", "fields", "choices", "keywords", "name")

    def __init__(self, kind: str, type_: Any) -> None:
        self.kind = kind
        self.type = type_  # the Python type, for messages
        self.py: Any = None
        self.items: List[int] = []
        self.fields: List[Field] = []
        self.choices: List[Tuple[Any, Any]] = []
        self.keywords: List[Dict[str, Any]] = []
        self.name: Optional[str] = None

    @property
    def label(self) -> str:
        """The type's name for messages (made on demand: a deep type's repr is long)."""
        return "None" if self.kind == "null" else _type_name(self.type)


class Shapes(NamedTuple):
    nodes: List[Shape]
    root: int


class _Marker(NamedTuple):
    marker: Any
    token: int  # which Annotated marker this is (a union hands it to its alternatives)
    distributed: bool  # given by a union: an alternative of another kind leaves it alone


class _Job(NamedTuple):
    node: int
    type: Any
    path: str
    markers: Tuple[_Marker, ...]
    globalns: Dict[str, Any]


def shapes_of(t: Any, localns: Optional[Dict[str, Any]] = None) -> Shapes:
    """The shape graph of type `t`; UnsupportedTypeError for what has no JSON grammar.
    `localns` resolves forward references to names that are not module globals (classes
    defined inside a function)."""
    return _Analysis(localns).run(t)


class _Analysis:
    def __init__(self, localns: Optional[Dict[str, Any]]) -> None:
        self.localns = localns
        self.nodes: List[Shape] = []
        self.jobs: List[_Job] = []
        self.classes: Dict[Any, int] = {}
        self.refs: Dict[Tuple[int, str], int] = {}
        self.names: Set[str] = set()
        self.tokens = 0
        self.distributed: Dict[int, Tuple[Any, Any, str]] = {}  # token -> marker, type, path
        self.taken: Set[int] = set()

    def run(self, t: Any) -> Shapes:
        root = self.node_for(t, "$", (), {})
        while self.jobs:
            self.fill(self.jobs.pop())
        for token, (marker, where, path) in self.distributed.items():
            if token not in self.taken:
                raise UnsupportedTypeError("%r constrains %s, and no alternative is one" % (
                    marker, " or ".join(marker.kinds)), where, path)
        return Shapes(self.nodes, root)

    def new(self, kind: str, type_: Any) -> int:
        self.nodes.append(Shape(kind, type_))
        return len(self.nodes) - 1

    def def_name(self, name: str) -> str:
        """A unique `$defs` name (a class's qualified name without `<locals>`)."""
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", name.replace("<locals>.", "")) or "T"
        name, k = base, 1
        while name in self.names:
            k += 1
            name = "%s_%d" % (base, k)
        self.names.add(name)
        return name

    # -- a type expression -> a node (made here, filled by a job) -----------------------

    def node_for(self, t: Any, path: str, markers: Tuple[_Marker, ...], globalns: Dict[str, Any]) -> int:
        while typing.get_origin(t) is typing.Annotated:
            for m in t.__metadata__:
                if not isinstance(m, MARKERS):
                    raise UnsupportedTypeError("Annotated metadata %s is not a maskref marker" % shown(m), t, path)
                self.tokens += 1
                markers += (_Marker(m, self.tokens, False),)
            t = t.__origin__
        if isinstance(t, str):
            try:
                t = ForwardRef(t)
            except Exception as e:  # typing compiles the text at once: "List[" (SyntaxError), "" (IndexError)
                raise UnsupportedTypeError("a forward reference that is not an expression (%s: %s)" % (
                    type(e).__name__, e), t, path) from None
        if isinstance(t, ForwardRef):
            return self._forward(t, path, markers, globalns)
        if _is_class_shape(t):
            node = self.classes.get(t)
            if node is None:
                node = self.classes[t] = self.new("?", t)
                self.nodes[node].name = self.def_name(t.__qualname__)
                self.jobs.append(_Job(node, t, t.__qualname__, (), _module_globals(t)))
            self._shared(markers, t, path)
            return node
        node = self.new("?", t)
        self.jobs.append(_Job(node, t, path, markers, globalns))
        return node

    def _forward(self, ref: ForwardRef, path: str, markers: Tuple[_Marker, ...], globalns: Dict[str, Any]) -> int:
        """A forward reference left by get_type_hints: a name for a recursive alias."""
        name = ref.__forward_arg__
        key = (id(globalns), name)
        node = self.refs.get(key)
        if node is None:
            scope = dict(globalns)
            scope.update(self.localns or {})
            try:
                target = eval(name, scope)  # noqa: S307 -- what typing.get_type_hints does with the same text
            except Exception as e:
                raise UnsupportedTypeError("cannot resolve the forward reference %r (%s: %s; pass localns= for a name "
                                           "that is not a module global)" % (name, type(e).__name__, e), ref, path) from None
            if _is_class_shape(target) or isinstance(target, (str, ForwardRef)) or target in _SCALARS:
                return self.node_for(target, path, markers, globalns)
            node = self.refs[key] = self.new("?", ref)
            self.nodes[node].name = self.def_name(name)
            self.jobs.append(_Job(node, target, name, (), globalns))
        self._shared(markers, ref, path)
        return node

    def _shared(self, markers: Tuple[_Marker, ...], t: Any, path: str) -> None:
        for m in markers:
            if not m.distributed:
                raise UnsupportedTypeError("%r does not apply to a class or type alias" % (m.marker,), t, path)

    # -- filling a node -----------------------------------------------------------------

    def fill(self, job: _Job) -> None:
        t, path = job.type, job.path
        shape = self.nodes[job.node]
        kind = _SCALARS.get(t) if isinstance(t, type) else ("null" if t is None else None)
        if kind is not None:
            shape.kind = kind
        elif isinstance(t, type) and issubclass(t, enum.Enum):
            self._enum(shape, t, path)
        elif isinstance(t, type) and dataclasses.is_dataclass(t):
            self._dataclass(shape, t, path)
        elif _is_typeddict(t):
            self._typeddict(shape, t, path)
        elif _is_namedtuple(t):
            self._namedtuple(shape, t, path)
        else:
            self._generic(shape, job)
        self._attach(shape, job)

    def _attach(self, shape: Shape, job: _Job) -> None:
        """Give the node the markers that constrain its kind (a union passes them on)."""
        if shape.kind == "union":
            return
        kind = MARKER_KIND.get(shape.kind)
        for m in job.markers:
            if kind is not None and kind in m.marker.kinds:
                shape.keywords.append(m.marker.keywords(kind))
                self.taken.add(m.token)
            elif not m.distributed:
                raise UnsupportedTypeError("%r does not apply to %s" % (m.marker, shape.label), job.type, job.path)

    def _generic(self, shape: Shape, job: _Job) -> None:
        t, path, g = job.type, job.path, job.globalns
        origin, args = typing.get_origin(t), typing.get_args(t)
        if origin is typing.Literal:
            shape.kind = "literal"
            for a in args:
                shape.choices.append((_json_of_literal(a, t, path), a))
        elif origin is typing.Union or (_UNION_TYPE is not None and origin is _UNION_TYPE):
            shape.kind = "union"
            passed = tuple(_Marker(m.marker, m.token, True) for m in job.markers)
            for m in passed:
                self.distributed.setdefault(m.token, (m.marker, t, path))
            shape.items = [self.node_for(a, path, passed, g) for a in args]
        elif origin is list:
            if len(args) != 1:
                raise UnsupportedTypeError("a list needs its item type (list[int])", t, path)
            shape.kind, shape.py = "list", list
            shape.items = [self.node_for(args[0], path + "[]", (), g)]
        elif origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                shape.kind, shape.py = "list", tuple
                shape.items = [self.node_for(args[0], path + "[]", (), g)]
            else:
                if args == ((),):  # Tuple[()] before Python 3.11
                    args = ()
                shape.kind, shape.py = "tuple", tuple
                shape.items = [self.node_for(a, "%s[%d]" % (path, i), (), g) for i, a in enumerate(args)]
        elif origin is dict:
            if len(args) != 2 or args[0] is not str:
                raise UnsupportedTypeError("a dict needs str keys and its value type (dict[str, int])", t, path)
            shape.kind, shape.py = "dict", dict
            shape.items = [self.node_for(args[1], path + "[*]", (), g)]
        elif origin in _TD_WRAPPERS:
            raise UnsupportedTypeError("Required/NotRequired outside a TypedDict", t, path)
        elif t in (list, tuple, dict):
            raise UnsupportedTypeError("a bare %s needs its item types (%s[int])" % (t.__name__, t.__name__), t, path)
        else:
            raise UnsupportedTypeError("unsupported type (%s)" % _why_unsupported(t, origin), t, path)

    def _enum(self, shape: Shape, t: Any, path: str) -> None:
        shape.kind, shape.py = "enum", t
        for member in t:
            shape.choices.append((_json_of_literal(member.value, t, "%s.%s" % (path, member.name)), member))
        if not shape.choices:
            raise UnsupportedTypeError("an Enum without members", t, path)

    def _dataclass(self, shape: Shape, t: Any, path: str) -> None:
        if typing.get_origin(t) is not None:
            raise UnsupportedTypeError("unsupported type (a generic class)", t, path)
        hints = self._hints(t, path)
        shape.kind, shape.py = "record", t
        for f in dataclasses.fields(t):
            if not f.init:
                continue  # set by __init__/__post_init__, not by the text
            hint = hints[f.name]
            if isinstance(hint, dataclasses.InitVar):
                raise UnsupportedTypeError("an InitVar field", t, path + "." + f.name)
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            shape.fields.append(Field(f.name, self.node_for(hint, path + "." + f.name, (), _module_globals(t)), required))
        for name, hint in hints.items():  # InitVars are not dataclass fields
            if isinstance(hint, dataclasses.InitVar):
                raise UnsupportedTypeError("an InitVar field", t, path + "." + name)

    def _typeddict(self, shape: Shape, t: Any, path: str) -> None:
        hints = self._hints(t, path)
        shape.kind, shape.py = "record", dict
        required = getattr(t, "__required_keys__", frozenset(hints))
        for name, hint in hints.items():
            while typing.get_origin(hint) in _TD_WRAPPERS:
                hint = typing.get_args(hint)[0]
            shape.fields.append(Field(name, self.node_for(hint, path + "." + name, (), _module_globals(t)), name in required))

    def _namedtuple(self, shape: Shape, t: Any, path: str) -> None:
        hints = self._hints(t, path)
        shape.kind, shape.py = "tuple", t
        for name in t._fields:
            if name not in hints:
                raise UnsupportedTypeError("a namedtuple field without a type (use typing.NamedTuple)", t, path + "." + name)
            shape.items.append(self.node_for(hints[name], path + "." + name, (), _module_globals(t)))

    def _hints(self, t: Any, path: str) -> Dict[str, Any]:
        try:
            return typing.get_type_hints(t, localns=self.localns, include_extras=True)
        except NameError as e:
            raise UnsupportedTypeError("cannot resolve a forward reference (%s; pass localns= for names that are not "
                                       "module globals)" % e, t, path) from None
        except SyntaxError as e:  # an annotation "List[" (typing compiles the text)
            raise UnsupportedTypeError("a type annotation that is not an expression (%s)" % e, t, path) from None


def _why_unsupported(t: Any, origin: Any) -> str:
    """Why a type has no JSON grammar, for the message."""
    if t in (set, frozenset) or origin in (set, frozenset, collections.abc.Set, collections.abc.MutableSet):
        return "a set: a grammar cannot keep items distinct; use list[T]"
    if t in (bytes, bytearray):
        return "bytes have no JSON form; use str"
    if origin is collections.abc.Callable or t is collections.abc.Callable:
        return "a callable has no JSON form"
    if t is typing.Any:
        return "Any: name the type; maskref reads no value as 'any JSON'"
    if origin in (collections.abc.Sequence, collections.abc.Mapping, collections.abc.MutableSequence,
                  collections.abc.MutableMapping, collections.abc.Iterable):
        return "an abstract collection; use list[T] or dict[str, T]"
    if origin is not None:
        return "a generic class"
    return "no JSON form for this type"


def _module_globals(t: Any) -> Dict[str, Any]:
    module = sys.modules.get(getattr(t, "__module__", ""), None)
    return dict(vars(module)) if module is not None else {}


def _is_typeddict(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, dict) and hasattr(t, "__total__") and hasattr(t, "__annotations__")


def _is_namedtuple(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, tuple) and hasattr(t, "_fields")


def _is_class_shape(t: Any) -> bool:
    """Classes get one shared node each (so recursion through them is a cycle)."""
    return isinstance(t, type) and (
        (issubclass(t, enum.Enum) or dataclasses.is_dataclass(t) or _is_typeddict(t) or _is_namedtuple(t)))


def _json_of_literal(v: Any, t: Any, path: str) -> Any:
    """The JSON value of a Literal argument or an Enum member's value."""
    if isinstance(v, enum.Enum):
        return _json_of_literal(v.value, t, path)
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float) and v == v and v not in (float("inf"), float("-inf")):
        return v
    raise UnsupportedTypeError("a literal value %s is not a JSON scalar (str, int, float, bool or None)" % shown(v), t,
                               path)
