"""Fuzz targets for JSON schemas and Python types: `Grammar.from_json_schema` on JSON
text, on decoded values and with its options, and `Grammar.from_type` on odd types.

    json-schema-text      the bytes as the schema's text (what `maskref ... --schema FILE`
                          reads; bytes are the API's UTF-8 text), then NUL-separated
                          instances
    json-schema-value     a Python value (hostile/values.py: NaN, huge ints, tuples,
                          non-string keys, shared containers, deep nesting), then instances
    json-schema-options   one of a few schemas with options drawn from the bytes: keyword
                          arguments, `defaults`, `overrides`, the schema's `x-guidance`
    from-type             a type built from the bytes: typing's constructs, Literal of odd
                          values, recursive dataclasses and TypedDicts, Annotated markers
                          with odd arguments, NewType, forward references

A compiled grammar is checked (hostile/masks.py): its masks on the byte vocabulary equal
the definition's along an instance or a few allowed bytes. Where an instance is at hand
and maskref claims exactness — nothing skipped by `lenient`, the default separators, no
`pattern` (ECMA-262 and Python's `re` differ) — a compact instance the grammar accepts
must be valid for the `jsonschema` library (no false positive: docs/jsonschema.md,
"Representations"). The reverse is not checked: maskref rejects some texts of valid
values on purpose (`1.0` for an integer).
"""
from __future__ import annotations

import ast
import dataclasses
import enum
import json
import typing
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from refimpl import Grammar, LimitError, MaskrefError, SchemaError
from refimpl.frontends.jsontext import dumps
from refimpl.frontends.typed import EcmaPattern, Format, Length, MultipleOf, Range, UnsupportedTypeError
from refimpl.recognition.recognizer import Recognizer

from .. import values
from ..masks import check_masks
from ..property import Overtime, Violation, check, deadline
from . import Target

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "data" / "json-schema-test-suite" / "tests" / "draft2020-12"
#: instances checked per input (each costs a parse, and a validation by jsonschema)
INSTANCES = 4


# -- what a compiled grammar is checked for ------------------------------------------------


def _typed_error_named(e: BaseException, schema: Any) -> bool:
    if isinstance(e, SchemaError):
        return e.pointer == "" or e.pointer.startswith("/") and _resolves(schema, e.pointer)
    if isinstance(e, LimitError):
        return bool(e.limit)
    if isinstance(e, UnsupportedTypeError):
        return bool(e.path)
    return True


def _resolves(schema: Any, pointer: str) -> bool:
    """Whether a JSON pointer leads into the schema (its last token may name a keyword
    the schema lacks); True when the schema is not at hand (None)."""
    if schema is None:
        return True
    tokens = pointer[1:].split("/")
    for i, token in enumerate(tokens):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(schema, dict) and token in schema:
            schema = schema[token]
        elif isinstance(schema, list) and token.isdigit() and int(token) < len(schema):
            schema = schema[int(token)]
        else:
            return i == len(tokens) - 1
    return True


def build(call: Any, schema: Any = None) -> Optional[Grammar]:
    """`check(call)`, with what each typed error must name: a SchemaError's pointer is a
    JSON pointer into `schema` (when given), a LimitError names its limit, an
    UnsupportedTypeError its place."""
    def named() -> Any:
        try:
            return call()
        except MaskrefError as e:
            if not _typed_error_named(e, schema):
                raise Violation("%s without its place: %s" % (type(e).__name__, e)) from e
            raise

    return check(named)


def verify(grammar: Grammar, schema: Any, instances: List[Any], choices: bytes, exact: bool) -> None:
    """The checks of a compiled grammar: masks along the first instance's text, and no
    false positive among the instances when `exact`."""
    pairs = [(i, t) for i, t in ((i, _compact(i)) for i in instances) if t is not None]
    along = pairs[0][1].encode("utf-8") if pairs else b""
    check_masks(grammar, along, list(choices[:4]) or [0])
    if not exact or not _plain(schema):
        return
    for instance, text in pairs:
        accepted = check(partial(_accepts, grammar, text.encode("utf-8")))
        if accepted and _valid(schema, instance) is False:
            raise Violation("the grammar accepts %s, which the schema does not allow" % text[:200])


def _accepts(grammar: Grammar, text: bytes) -> bool:
    r = Recognizer(grammar.compiled)
    return r.consume_bytes(text) and r.is_accepting()


def _compact(instance: Any) -> Optional[str]:
    """The compact JSON text of a plain JSON value (UTF-8), else None."""
    if not _plain(instance):
        return None
    text = dumps(instance)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return text


def _plain(value: Any, depth: int = 60) -> bool:
    """A JSON value as json.loads makes it (finite numbers, ints Python can write; str
    keys; no pattern keyword: ECMA-262's and Python's regexes differ), at most `depth`
    deep, no cycle."""
    stack = [(value, 0)]
    seen = 0
    while stack:
        x, d = stack.pop()
        seen += 1
        if d > depth or seen > 100_000:
            return False
        if isinstance(x, dict):
            if any(not isinstance(k, str) or k in ("pattern", "patternProperties") for k in x):
                return False
            stack.extend((v, d + 1) for v in x.values())
        elif isinstance(x, list):
            stack.extend((v, d + 1) for v in x)
        elif isinstance(x, float):
            if x != x or x in (float("inf"), float("-inf")):
                return False
        elif isinstance(x, Decimal):
            if not x.is_finite():
                return False
        elif isinstance(x, int) and x.bit_length() > 10_000:  # past what Python writes as text (4,300 digits)
            return False
        elif not (x is None or isinstance(x, (bool, int, str))):
            return False
    return True


def _valid(schema: Any, instance: Any) -> Optional[bool]:
    """Whether jsonschema (draft 2020-12, formats as annotations) finds `instance`
    valid; None when it cannot tell (an error of its own, or more than 2 s)."""
    try:
        import jsonschema  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - the test and fuzz extras install it
        raise ImportError("the json-schema targets check instances with jsonschema: pip install jsonschema") from None
    try:
        with deadline(2.0):
            return bool(jsonschema.Draft202012Validator(schema).is_valid(instance))
    except Overtime:
        return None
    except Exception:
        return None


def _exact(grammar: Grammar, options: Dict[str, Any]) -> bool:
    """Whether maskref claims the grammar's texts are exactly the valid values' (with the
    default separators, whose texts are JSON)."""
    if grammar.ignored_keywords:
        return False
    return all(options.get(k) is None for k in ("item_separator", "key_separator", "whitespace_pattern"))


# -- json-schema-text ---------------------------------------------------------------------


def run_text(data: bytes) -> None:
    """The schema's text (bytes before the first NUL), then instances' texts."""
    head, _, rest = data.partition(b"\0")
    schema = _read(head)
    grammar = build(lambda: Grammar.from_json_schema(head), schema)
    if grammar is None:
        return
    instances = []
    for part in rest.split(b"\0")[:INSTANCES] if rest else []:
        try:
            instances.append(json.loads(part.decode("utf-8"), parse_float=Decimal))
        except (ValueError, RecursionError):
            continue
    guidance = schema.get("x-guidance") if isinstance(schema, dict) else None
    verify(grammar, schema, instances, data[-4:], _exact(grammar, guidance if isinstance(guidance, dict) else {}))


def _read(text: bytes) -> Any:
    """The schema's value as maskref reads it, or None if it is not JSON text."""
    from refimpl.frontends.jsonschema.values import read_json_text

    try:
        return read_json_text(text.decode("utf-8"))
    except (UnicodeDecodeError, SchemaError):
        return None


def seeds_text() -> Iterator[bytes]:
    for schema, instances in _seed_schemas():
        yield b"\0".join(_utf8(x) for x in [schema] + instances[:INSTANCES])


def _utf8(value: Any) -> bytes:
    """A JSON value's text in UTF-8 (escapes where a string holds a lone surrogate)."""
    try:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value).encode("ascii")


# -- json-schema-value --------------------------------------------------------------------


def run_value(data: bytes) -> None:
    """A value in hostile/values.py's format, then up to INSTANCES instances."""
    r = values.Reader(data)
    schema = values.decode_from(r)
    instances = [values.decode_from(r) for _ in range(INSTANCES) if not r.exhausted]
    grammar = build(lambda: Grammar.from_json_schema(schema), schema)
    if grammar is None:
        return
    guidance = schema.get("x-guidance") if isinstance(schema, dict) else None
    verify(grammar, schema, instances, data[-4:], _exact(grammar, guidance if isinstance(guidance, dict) else {}))


def seeds_value() -> Iterator[bytes]:
    for schema, instances in _seed_schemas():
        try:
            yield b"".join(values.encode(v) for v in [schema] + instances[:INSTANCES])
        except (AssertionError, TypeError):
            continue


# -- json-schema-options ------------------------------------------------------------------

#: the schemas the options apply to: separators and whitespace matter in containers
OPTION_SCHEMAS = (
    {"type": "array", "items": {"type": "integer"}, "maxItems": 3},
    {"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}, "b": {"type": "boolean"}},
     "required": ["a"]},
    {"type": "string", "maxLength": 4},
    {"oneOf": [{"type": "array", "prefixItems": [{"const": 1}]}, {"type": "object", "minProperties": 1}]},
    {"type": "object", "additionalProperties": {"type": "array", "items": {"enum": ["x", 2, None]}}},
    {"anyOf": [{"type": "array", "uniqueItems": True}, {"not": {"type": "object"}}]},
)
_LAYERS = ("keywords", "defaults", "overrides", "x-guidance")


def run_options(data: bytes) -> None:
    """A schema of OPTION_SCHEMAS by the first byte, then four values: the keyword
    arguments, `defaults`, `overrides` and the schema's `x-guidance` (a dict keeps only
    its str keys where Python needs them)."""
    r = values.Reader(data)
    schema: Any = dict(OPTION_SCHEMAS[r.byte() % len(OPTION_SCHEMAS)])
    layers = {name: values.decode_from(r) for name in _LAYERS}
    keywords = layers["keywords"]
    keywords = {k: v for k, v in keywords.items() if isinstance(k, str)} if isinstance(keywords, dict) else {}
    for k in ("limits", "ir", "lexeme_class", "entry_class"):  # not options: the API's own arguments
        keywords.pop(k, None)
    if layers["x-guidance"] is not None:
        schema["x-guidance"] = layers["x-guidance"]
    grammar = build(lambda: _from_json_schema(schema, layers["defaults"], layers["overrides"], keywords), schema)
    if grammar is None:
        return
    verify(grammar, schema, [], data[-4:], False)


def _from_json_schema(schema: Any, defaults: Any, overrides: Any, keywords: Dict[str, Any]) -> Grammar:
    if defaults is not None:
        keywords["defaults"] = defaults
    if overrides is not None:
        keywords["overrides"] = overrides
    return Grammar.from_json_schema(schema, **keywords)


def seeds_options() -> Iterator[bytes]:
    layers = [
        ({}, None, None, None),
        ({"whitespace_flexible": False}, None, None, {"item_separator": ", "}),
        ({"item_separator": ";", "key_separator": "="}, None, None, None),
        ({}, {"whitespace_pattern": "[ ]{0,2}"}, None, {"lenient": True}),
        ({"coerce_one_of": True}, None, {"json_allowed_escapes": "n"}, None),
        ({"json_allow_general_unicode_escapes": True}, None, None, {"whitespace_pattern": "\\s*"}),
        ({"lenient": True}, {"key_separator": " *: *"}, {"item_separator": ",|;"}, {"whitespace_flexible": False}),
    ]
    for i in range(len(OPTION_SCHEMAS)):
        for layer in layers:
            yield bytes([i]) + b"".join(values.encode(v) for v in layer)


# -- from-type ----------------------------------------------------------------------------

#: the kinds of type a byte names (TypeReader.read)
TYPE_KINDS = ("int", "float", "str", "bool", "None", "odd", "List", "Tuple...", "Tuple", "Dict", "Optional",
              "Union", "Literal", "Annotated", "NewType", "class", "forward", "pipe", "list", "dict")
_ODD = (bytes, typing.Any, set, object, complex, list, dict, tuple, typing.List, typing.Tuple[()], frozenset,
        typing.Set[int], typing.Callable[[int], int], type(None), typing.Sequence[int], typing.ClassVar[int],
        typing.Optional, typing.Union, Ellipsis, 3, "int")
_FIELD_NAMES = ("a", "b", "next", "children", "value", "", "x y", "é", "__class__", "items", "$ref", "a\"b", "0")
#: the markers a byte names, each built from a decoded value (odd arguments included)
_MARKERS = (
    lambda v: Range(ge=v), lambda v: Range(lt=v), lambda v: Range(gt=v, le=v), lambda v: MultipleOf(v),
    lambda v: Length(v), lambda v: Length(max=v), lambda v: EcmaPattern(v), lambda v: Format(v),
    lambda v: v,  # not a marker at all
)
_LEAVES = {"int": int, "float": float, "str": str, "bool": bool, "None": None}
_CLASS_KINDS = ("dataclass", "TypedDict", "TypedDict(total=False)", "NamedTuple", "Enum", "dataclass(defaults)")
MAX_TYPE_NODES = 60
MAX_TYPE_DEPTH = 24


class TypeReader:
    """A type from bytes: each node one kind byte (TYPE_KINDS) and what it needs. Classes
    are made with names C0, C1, ... and their fields may name any class by a forward
    reference, so classes recurse; `localns` resolves the names."""

    def __init__(self, data: bytes) -> None:
        self.r = values.Reader(data)
        self.localns: Dict[str, Any] = {}
        self.nodes = 0

    def read(self, depth: int = 0) -> Any:
        self.nodes += 1
        r = self.r
        kind = r.choice(TYPE_KINDS)
        if depth >= MAX_TYPE_DEPTH or self.nodes >= MAX_TYPE_NODES or r.exhausted:
            kind = ("int", "str", "None", "forward")[r.byte() % 4]
        leaf = _LEAVES.get(kind, self)
        if leaf is not self:
            return leaf
        if kind == "odd":
            return r.choice(_ODD)
        if kind == "forward":
            return r.choice(list(self.localns) + ["Missing", "int", "List[int]", "Optional['C0']", "1", "", "List[",
                                                  "None"])
        if kind == "Literal":
            return typing.Literal[tuple(values.decode_from(r) for _ in range(1 + r.byte() % 4))]
        if kind == "Annotated":
            return self.annotated(depth)
        if kind == "class":
            return self.make_class(depth)
        return self.generic(kind, depth)

    def generic(self, kind: str, depth: int) -> Any:
        """A generic alias or a union of types read next."""
        r = self.r
        if kind in ("List", "list"):
            item = self.read(depth + 1)
            return typing.List[item] if kind == "List" else list[item]  # type: ignore[valid-type]
        if kind == "Tuple...":
            return typing.Tuple[self.read(depth + 1), ...]
        if kind == "Tuple":
            typing_form = r.byte() % 2
            items = tuple(self.read(depth + 1) for _ in range(r.byte() % 4))
            return typing.Tuple[items] if typing_form else tuple[items]  # type: ignore[valid-type]
        if kind in ("Dict", "dict"):
            key = str if r.byte() % 4 else self.read(depth + 1)
            value = self.read(depth + 1)
            return typing.Dict[key, value] if kind == "Dict" else dict[key, value]  # type: ignore[valid-type]
        if kind == "Optional":
            return typing.Optional[self.read(depth + 1)]
        if kind == "NewType":
            return typing.NewType("N%d" % self.nodes, self.read(depth + 1))
        args = tuple(self.read(depth + 1) for _ in range(1 + r.byte() % 4))
        if kind == "Union":
            return typing.Union[args]
        out = args[0]  # "pipe": A | B
        for a in args[1:]:
            try:
                out = out | a
            except TypeError:  # `|` needs classes or typing's forms (not a str, not None first)
                out = typing.Union[out, a]
        return out

    def annotated(self, depth: int) -> Any:
        """Annotated[T, markers...], each marker built from a decoded value."""
        r = self.r
        inner = self.read(depth + 1)
        markers = []
        for _ in range(1 + r.byte() % 3):
            make = r.choice(_MARKERS)
            arg = values.decode_from(r)
            try:
                markers.append(make(arg))
            except (ValueError, TypeError):  # the marker refuses its argument: the user's own mistake
                markers.append(arg)
        return typing.Annotated[(inner,) + tuple(markers)]

    def make_class(self, depth: int) -> Any:
        r = self.r
        name = "C%d" % len(self.localns)
        how = r.choice(_CLASS_KINDS)
        self.localns[name] = None  # named (so fields may refer to it) before it is made
        fields = []
        for _ in range(r.byte() % 4):
            fields.append((r.choice(_FIELD_NAMES), self.read(depth + 1)))
        cls = _make_class(name, how, fields, self.r)
        self.localns[name] = cls
        return cls


def _make_class(name: str, how: str, fields: List[Tuple[str, Any]], r: values.Reader) -> Any:
    """A class of kind `how` with the fields; a simpler stand-in when Python refuses the
    fields (duplicate or invalid names are the user's own mistake, not maskref's input)."""
    try:
        if how.startswith("dataclass"):
            seen: Dict[str, Any] = {}
            for f, t in fields:
                seen.setdefault(f, t)
            spec = [(f, t, dataclasses.field(default=None)) if how.endswith("(defaults)") else (f, t)
                    for f, t in seen.items()]
            return dataclasses.make_dataclass(name, spec)
        if how.startswith("TypedDict"):
            return typing.TypedDict(name, dict(fields), total=not how.endswith("(total=False)"))  # type: ignore
        if how == "NamedTuple":
            return typing.NamedTuple(name, fields)
        members = {f or "_": values.decode_from(r) for f, _ in fields} or {"a": values.decode_from(r)}
        return enum.Enum(name, members)
    except (ValueError, TypeError, AttributeError, SyntaxError):
        return dataclasses.make_dataclass(name, [])


def run_type(data: bytes) -> None:
    """A type from TypeReader, compiled with the classes it made as `localns`."""
    reader = TypeReader(data)
    try:
        t = reader.read()
    except Exception:  # typing refuses the construct (TypeError, SyntaxError, IndexError, ...): not maskref's input
        return
    grammar = build(lambda: Grammar.from_type(t, localns=reader.localns))
    if grammar is not None:
        verify(grammar, {}, [], data[-4:], False)


def seeds_type() -> Iterator[bytes]:
    """Types of docs/types.md and tests/frontends/typed, written in TypeReader's bytes."""
    k = {name: i for i, name in enumerate(TYPE_KINDS)}
    c = {name: i for i, name in enumerate(_CLASS_KINDS)}
    f = {name: i for i, name in enumerate(_FIELD_NAMES)}
    yield bytes([k["int"]])
    yield bytes([k["List"], k["Literal"], 1]) + values.encode("yes") + values.encode("no")
    yield bytes([k["Optional"], k["List"], k["int"]])
    yield bytes([k["Dict"], 1, k["Union"], 1, k["int"], k["str"]])
    yield bytes([k["Annotated"], k["int"], 0, 0]) + values.encode(0)  # Annotated[int, Range(ge=0)]
    yield bytes([k["Annotated"], k["str"], 0, 6]) + values.encode("^[A-Z][a-z]+$")
    # a recursive dataclass: C0(value: int, children: List[C0])
    yield bytes([k["class"], c["dataclass"], 2, f["value"], k["int"], f["children"], k["List"], k["forward"], 0])
    # a recursive TypedDict with an optional link to itself
    yield bytes([k["class"], c["TypedDict(total=False)"], 1, f["next"], k["Optional"], k["forward"], 0])
    yield bytes([k["class"], c["NamedTuple"], 2, f["a"], k["float"], f["b"], k["Tuple..."], k["bool"]])
    yield bytes([k["class"], c["Enum"], 2, f["a"], k["int"], f["b"], k["int"]]) + values.encode(1) + values.encode("x")
    yield bytes([k["pipe"], 2, k["int"], k["None"]])
    yield bytes([k["NewType"], k["str"]])
    yield bytes([k["Tuple"], 1, 2, k["int"], k["str"]])


# -- the seed schemas: the JSON-Schema-Test-Suite, the tests' and the docs' literals ----------


def _seed_schemas() -> Iterator[Tuple[Any, List[Any]]]:
    """(schema, instances) pairs: every group of the test suite with its instances, then
    every schema literal of tests/frontends/jsonschema and of docs/*.md."""
    if SUITE.is_dir():
        for path in sorted(SUITE.rglob("*.json")):
            for group in json.loads(path.read_text(encoding="utf-8")):
                yield group["schema"], [t["data"] for t in group["tests"]]
    sources = sorted((ROOT / "tests" / "frontends" / "jsonschema").glob("*.py")) + sorted((ROOT / "docs").glob("*.md"))
    seen = set()
    for path in sources:
        for schema in _schema_literals(path):
            key = repr(schema)
            if key not in seen:
                seen.add(key)
                yield schema, []


def _schema_literals(path: Path) -> Iterator[Any]:
    """The dict literals in a Python file (or in the doctest examples of a page) that
    look like schemas: every key a string, at least one a keyword."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        import doctest

        text = "\n".join(e.source for e in doctest.DocTestParser().get_examples(text))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    keywords = set(values.WORDS[:values.WORDS.index("x-guidance")])
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            try:
                value = ast.literal_eval(node)
            except (ValueError, SyntaxError, TypeError, RecursionError):
                continue
            if all(isinstance(k, str) for k in value) and keywords & set(value) and _is_json(value):
                yield value


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


TARGETS = [
    Target("json-schema-text", "Grammar.from_json_schema (JSON text)", run_text, seeds_text),
    Target("json-schema-value", "Grammar.from_json_schema (a decoded value)", run_value, seeds_value),
    Target("json-schema-options", "Grammar.from_json_schema (options)", run_options, seeds_options),
    Target("from-type", "Grammar.from_type", run_type, seeds_type),
]
