"""Grammars from Python types (refimpl/frontends/typed/, docs/types.md).

Property tests build random types (scalars with markers, Literal, Enum, lists, tuples,
dicts, unions, dataclasses, TypedDicts, NamedTuples, nested) and random values of them:

* every value's JSON (to_json, and json.dumps of its plain form) is accepted by
  Grammar.from_type(T) and parse(T, text) gives the value back, with the same types;
* mutated texts: parse accepts exactly the texts the grammar accepts, and what it accepts
  is a value of T;
* random walks of the grammar over the byte vocabulary (the Matcher's masks): every text
  the grammar accepts parses to a value of T, every unfinished prefix is refused.

Unit tests: the schemas of hand-written types, unsupported types named with their path,
errors with byte offsets, recursion, forward references, deep values.
"""
from __future__ import annotations

import dataclasses
import enum
import json
import random
import re
import sys
import typing
from dataclasses import dataclass, field, make_dataclass
from typing import Annotated, Any, Callable, Dict, FrozenSet, List, Literal, NamedTuple, Optional, Tuple, TypedDict, Union

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.recognition.recognizer import Recognizer
from refimpl.typed import (
    EcmaPattern,
    Format,
    Length,
    MultipleOf,
    ParseError,
    Range,
    UnsupportedTypeError,
    json_schema_of,
    parse,
    to_json,
)
from tests.support.budget import examples


def accepts(grammar: Grammar, text: str) -> bool:
    r = Recognizer(grammar.compiled)
    return r.consume_bytes(text.encode("utf-8")) and r.is_accepting()


def parses(t: Any, text: str) -> bool:
    try:
        parse(t, text)
    except ParseError:
        return False
    return True


# -- random types, with a strategy for their values and a predicate for them ------------

class Case(NamedTuple):
    type: Any
    kinds: FrozenSet[str]  # the JSON types of its values (a union's alternatives: disjoint)
    values: Any  # a strategy
    check: Callable[[Any], bool]  # is x a value of the type (as parse builds it)?


_counter = [0]


def _name(prefix: str) -> str:
    _counter[0] += 1
    return "%s%d" % (prefix, _counter[0])


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _plain_float(x: float) -> float:
    """A float json.dumps writes without exponent (the grammar of a bounded number has
    none) and not as -0.0."""
    return x + 0.0


_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x7f")  # json.dumps writes DEL raw
_TEXT = st.text(_CHARS, max_size=6)
# (ECMA pattern, a Python regex for values, a Python regex that decides membership)
_PATTERNS = [("^[a-c]{1,4}$", r"[a-c]{1,4}", r"\A[a-c]{1,4}\Z"), ("^[0-9]+-[0-9]+$", r"[0-9]+-[0-9]+", r"\A[0-9]+-[0-9]+\Z"),
             ("^x", r"x[a-z ]{0,3}", r"\Ax"), ("b", r"[ab]{0,2}b", "b")]


@st.composite
def scalar_cases(draw: Any) -> Case:
    k = draw(st.integers(0, 11))
    if k == 0:
        return Case(int, frozenset(["number"]), st.integers(-10**20, 10**20), _is_int)
    if k == 1:
        return Case(float, frozenset(["number"]), st.floats(allow_nan=False, allow_infinity=False),
                    lambda x: isinstance(x, float))
    if k == 2:
        return Case(str, frozenset(["string"]), _TEXT, lambda x: isinstance(x, str))
    if k == 3:
        return Case(bool, frozenset(["boolean"]), st.booleans(), lambda x: isinstance(x, bool))
    if k == 4:
        return Case(type(None), frozenset(["null"]), st.none(), lambda x: x is None)
    if k == 5:
        lo = draw(st.integers(-50, 50))
        hi = lo + draw(st.integers(0, 100))
        return Case(Annotated[int, Range(ge=lo, le=hi)], frozenset(["number"]), st.integers(lo, hi),
                    lambda x: _is_int(x) and lo <= x <= hi)
    if k == 6:
        m = draw(st.integers(1, 7))
        return Case(Annotated[int, MultipleOf(m)], frozenset(["number"]), st.integers(-100, 100).map(lambda i: i * m),
                    lambda x: _is_int(x) and x % m == 0)
    if k == 7:
        lo = draw(st.integers(-40, 40)) / 4
        hi = lo + draw(st.integers(1, 40)) / 4
        values = st.floats(lo, hi, exclude_max=True).map(_plain_float).filter(lambda x: "e" not in repr(x))
        return Case(Annotated[float, Range(ge=lo, lt=hi)], frozenset(["number"]), values,
                    lambda x: isinstance(x, float) and lo <= x < hi)
    if k == 8:
        lo = draw(st.integers(0, 3))
        hi = lo + draw(st.integers(0, 3))
        return Case(Annotated[str, Length(lo, hi)], frozenset(["string"]),
                    st.text(_CHARS, min_size=lo, max_size=hi),
                    lambda x: isinstance(x, str) and lo <= len(x) <= hi)
    if k == 9:
        ecma, python, member = draw(st.sampled_from(_PATTERNS))
        return Case(Annotated[str, EcmaPattern(ecma)], frozenset(["string"]), st.from_regex(python, fullmatch=True),
                    lambda x: isinstance(x, str) and re.search(member, x) is not None)
    if k == 10:
        values = draw(st.lists(st.one_of(st.text(_CHARS, max_size=3), st.integers(-5, 5), st.booleans(), st.none()),
                               min_size=1, max_size=4, unique_by=lambda v: (type(v), v)))
        kinds = frozenset("null" if v is None else "boolean" if isinstance(v, bool) else
                          "number" if isinstance(v, int) else "string" for v in values)
        lit = Literal[tuple(values)]  # type: ignore[valid-type]
        return Case(lit, kinds, st.sampled_from(values),
                    lambda x: any(type(x) is type(v) and x == v for v in values))
    values = draw(st.lists(st.one_of(st.text(_CHARS, max_size=3), st.integers(-5, 5)), min_size=1, max_size=4,
                           unique_by=lambda v: (type(v), v)))
    members = [("M%d" % i, v) for i, v in enumerate(values)]
    cls = enum.Enum(_name("Color"), members)  # type: ignore[misc]
    kinds = frozenset("number" if isinstance(v, int) else "string" for v in values)
    return Case(cls, kinds, st.sampled_from(list(cls)), lambda x: isinstance(x, cls))


def _list_case(item: Case, draw: Any) -> Case:
    k = draw(st.integers(0, 2))
    if k == 0:
        return Case(List[item.type], frozenset(["array"]), st.lists(item.values, max_size=3),
                    lambda x: isinstance(x, list) and all(item.check(i) for i in x))
    if k == 1:
        return Case(Tuple[item.type, ...], frozenset(["array"]), st.lists(item.values, max_size=3).map(tuple),
                    lambda x: type(x) is tuple and all(item.check(i) for i in x))
    lo = draw(st.integers(0, 2))
    hi = lo + draw(st.integers(0, 2))
    return Case(Annotated[List[item.type], Length(lo, hi)], frozenset(["array"]),
                st.lists(item.values, min_size=lo, max_size=hi),
                lambda x: isinstance(x, list) and lo <= len(x) <= hi and all(item.check(i) for i in x))


def _record_case(fields: List[Case], draw: Any) -> Case:
    names = ["f%d" % i for i in range(len(fields))]
    k = draw(st.integers(0, 2))
    if k == 0:  # a dataclass; an Optional field may have the default None
        specs = []
        for n, c in zip(names, fields):
            if "null" in c.kinds and draw(st.booleans()):
                specs.append((n, c.type, field(default=None)))
            else:
                specs.append((n, c.type))
        specs.sort(key=lambda s: len(s) == 3)  # fields with defaults last
        order = [s[0] for s in specs]
        by = dict(zip(names, fields))
        cls = dataclasses.make_dataclass(_name("Data"), specs)
        values = st.fixed_dictionaries({n: by[n].values for n in order}).map(lambda kw: cls(**kw))
        return Case(cls, frozenset(["object"]), values,
                    lambda x: type(x) is cls and all(by[n].check(getattr(x, n)) for n in order))
    if k == 1:  # a TypedDict, total or not
        total = draw(st.booleans())
        cls = TypedDict(_name("TD"), {n: c.type for n, c in zip(names, fields)}, total=total)  # type: ignore[misc]

        @st.composite
        def td_values(d: Any) -> Dict[str, Any]:
            return {n: d(c.values) for n, c in zip(names, fields) if total or d(st.booleans())}

        def check(x: Any) -> bool:
            return (type(x) is dict and list(x) == [n for n in names if n in x] and (not total or len(x) == len(names))
                    and all(c.check(x[n]) for n, c in zip(names, fields) if n in x))
        return Case(cls, frozenset(["object"]), td_values(), check)
    cls = NamedTuple(_name("NT"), [(n, c.type) for n, c in zip(names, fields)])  # type: ignore[misc]
    return Case(cls, frozenset(["array"]), st.tuples(*[c.values for c in fields]).map(lambda v: cls(*v)),
                lambda x: type(x) is cls and all(c.check(i) for c, i in zip(fields, x)))


@st.composite
def cases(draw: Any, depth: int = 2) -> Case:
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(scalar_cases())
    k = draw(st.integers(0, 5))
    if k == 0:
        return _list_case(draw(cases(depth - 1)), draw)
    if k == 1:
        items = draw(st.lists(cases(depth - 1), max_size=3))
        return Case(Tuple[tuple(c.type for c in items)] if items else Tuple[()], frozenset(["array"]),
                    st.tuples(*[c.values for c in items]),
                    lambda x: type(x) is tuple and len(x) == len(items) and all(c.check(i) for c, i in zip(items, x)))
    if k == 2:
        value = draw(cases(depth - 1))
        return Case(Dict[str, value.type], frozenset(["object"]), st.dictionaries(_TEXT, value.values, max_size=3),
                    lambda x: type(x) is dict and all(isinstance(a, str) and value.check(b) for a, b in x.items()))
    if k == 3:  # a union of alternatives whose values are of different JSON types
        alts: List[Case] = []
        for c in draw(st.lists(cases(depth - 1), min_size=2, max_size=3)):
            if all(not (c.kinds & a.kinds) for a in alts):
                alts.append(c)
        if len(alts) == 1:
            if "null" in alts[0].kinds:
                return alts[0]
            alts.append(Case(type(None), frozenset(["null"]), st.none(), lambda x: x is None))
        return Case(Union[tuple(a.type for a in alts)], frozenset().union(*[a.kinds for a in alts]),
                    st.one_of(*[a.values for a in alts]), lambda x: any(a.check(x) for a in alts))
    return _record_case(draw(st.lists(cases(depth - 1), max_size=3)), draw)


@st.composite
def typed_values(draw: Any) -> Tuple[Case, Any]:
    case = draw(cases())
    return case, draw(case.values)


def plain(x: Any) -> Any:
    """The value as json.dumps writes it (dataclasses as dicts, Enum members as values)."""
    if isinstance(x, enum.Enum):
        return x.value
    if dataclasses.is_dataclass(x):
        return {f.name: plain(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    return x


def same(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down."""
    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


# -- properties ---------------------------------------------------------------------------

@settings(max_examples=examples(60))
@given(typed_values())
def test_every_value_round_trips(cv: Tuple[Case, Any]) -> None:
    case, value = cv
    assert case.check(value)
    g = Grammar.from_type(case.type)
    for text in (to_json(value), to_json(value, separators=(",", ":")),
                 json.dumps(plain(value), ensure_ascii=False, separators=(", ", ": "))):
        assert accepts(g, text), (text, json_schema_of(case.type))
        got = parse(case.type, text)
        assert same(got, value), (text, got, value)
        assert parse(case.type, text.encode("utf-8")) == got


_MUTATION_ALPHABET = ' \t\n{}[]":,0123456789-.eEtfnrul\\ax\x7fé'


@st.composite
def mutated(draw: Any) -> Tuple[Case, str]:
    case, value = draw(typed_values())
    text = draw(st.sampled_from([to_json(value), json.dumps(plain(value), ensure_ascii=False, indent=1)]))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.integers(0, 3))
        if op == 0:
            text = text[:i] + text[i + 1:]
        elif op == 1:
            text = text[:i] + draw(st.sampled_from(_MUTATION_ALPHABET)) + text[i:]
        elif op == 2:
            j = draw(st.integers(i, len(text)))
            text = text[:i] + text[j:]
        else:
            text = text[:i] + draw(st.sampled_from(["null", "1.0", '"x"', "[]", "{}", "-0", "1e2", '"a": 1', ", "])) + text[i:]
    return case, text


@settings(max_examples=examples(100))
@given(mutated())
def test_parse_refuses_exactly_what_the_grammar_refuses(ct: Tuple[Case, str]) -> None:
    case, text = ct
    g = Grammar.from_type(case.type)
    ok = accepts(g, text)
    event("the grammar accepts" if ok else "the grammar refuses")
    try:
        value = parse(case.type, text)
    except ParseError as e:
        assert not ok, ("parse refused a text the grammar accepts", text, str(e))
        assert 0 <= e.offset <= len(text.encode("utf-8"))
        return
    assert ok, ("parse accepted a text the grammar refuses", text, value)
    assert case.check(value), (text, value)


BYTES = Vocabulary.from_bytes([bytes([b]) for b in range(256)] + [b"<eos>"], eos_token_id=256, name="bytes")
_CLOSERS = frozenset(b'"]}0123456789el')


@settings(max_examples=examples(40))
@given(cases(), st.integers(0, 2**32 - 1))
def test_texts_the_grammar_accepts_parse_to_a_value(case: Case, seed: int) -> None:
    """A random walk of the grammar's masks over the byte vocabulary: as it goes on it
    prefers bytes that close things, and stops at EOS; the text it spells parses to a
    value of the type, every prefix that cannot end is refused by parse."""
    rng = random.Random(seed)
    g = Grammar.from_type(case.type)
    m = Matcher(g, BYTES)
    data = bytearray()
    for step in range(120):
        allowed = m.mask().allowed()
        assert allowed, bytes(data)
        if 256 in allowed and (len(allowed) == 1 or rng.random() < step / 40):
            break
        bytes_allowed = [b for b in allowed if b < 256]
        closers = [b for b in bytes_allowed if b in _CLOSERS]
        if closers and rng.random() < step / 60:
            b = rng.choice(closers)
        else:
            b = rng.choice(bytes_allowed)
        assert m.consume(b)
        data.append(b)
    else:
        if not m.is_accepting():
            with pytest.raises(ParseError):
                parse(case.type, bytes(data))
            return
    event("the walk ended" if m.is_accepting() else "the walk stopped unfinished")
    if m.is_accepting():
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError:  # pragma: no cover - the grammar keeps UTF-8 valid
            raise AssertionError(bytes(data)) from None
        value = parse(case.type, text)
        assert case.check(value), (text, value)
        try:
            again = to_json(value)
        except ValueError:  # a float field reads 1e999 as inf (as float() and json.loads do)
            assert "inf" in repr(value), (text, value)
        else:
            assert accepts(g, again) and same(parse(case.type, again), value)
    cut = rng.randrange(len(data) + 1)  # a prefix: parse refuses it unless the grammar accepts it
    r = Recognizer(g.compiled)
    assert r.consume_bytes(bytes(data[:cut]))
    if not r.is_accepting():
        with pytest.raises(ParseError):
            parse(case.type, bytes(data[:cut]))


# -- the schema of hand-written types ---------------------------------------------------

class Class(enum.Enum):
    WARRIOR = "warrior"
    MAGE = "mage"


@dataclass
class Metadata:
    level: Annotated[int, Range(ge=1, le=99)]
    role: Class
    tags: List[str] = field(default_factory=list)


@dataclass
class Character:
    name: Annotated[str, Length(1, 20)]
    age: Annotated[int, Range(ge=0, le=255)]
    description: str
    metadata: Metadata


@dataclass
class Tree:
    value: int
    children: List["Tree"]


@dataclass
class Link:
    value: int
    next: Optional["Link"] = None


JsonLike = Union[int, str, List["JsonLike"], Dict[str, "JsonLike"]]


@dataclass
class Doc:
    title: str
    body: "JsonLike"


class Point(NamedTuple):
    x: int
    y: float


class Movie(TypedDict, total=False):
    title: str
    year: int


class Shelf(TypedDict):
    books: List[Movie]


def test_schema_of_a_dataclass_with_markers_and_a_shared_class() -> None:
    assert json_schema_of(Character) == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 20},
            "age": {"type": "integer", "minimum": 0, "maximum": 255},
            "description": {"type": "string"},
            "metadata": {"$ref": "#/$defs/Metadata"},
        },
        "required": ["name", "age", "description", "metadata"],
        "additionalProperties": False,
        "$defs": {
            "Metadata": {
                "type": "object",
                "properties": {"level": {"type": "integer", "minimum": 1, "maximum": 99},
                               "role": {"$ref": "#/$defs/Class"},
                               "tags": {"type": "array", "items": {"type": "string"}}},
                "required": ["level", "role"],
                "additionalProperties": False,
            },
            "Class": {"enum": ["warrior", "mage"]},
        },
    }


def test_schema_of_scalars_containers_and_unions() -> None:
    assert json_schema_of(int) == {"type": "integer"}
    assert json_schema_of(type(None)) == {"type": "null"}
    assert json_schema_of(None) == {"type": "null"}
    assert json_schema_of(Optional[float]) == {"anyOf": [{"type": "number"}, {"type": "null"}]}
    assert json_schema_of(Tuple[int, str]) == {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
                                               "items": False, "minItems": 2}
    assert json_schema_of(Tuple[()]) == {"type": "array", "maxItems": 0}
    assert json_schema_of(Tuple[bool, ...]) == {"type": "array", "items": {"type": "boolean"}}
    assert json_schema_of(Dict[str, bool]) == {"type": "object", "additionalProperties": {"type": "boolean"}}
    assert json_schema_of(Literal["a"]) == {"const": "a"}
    assert json_schema_of(Literal["a", 1, None, Class.MAGE]) == {"enum": ["a", 1, None, "mage"]}
    assert json_schema_of(Point) == {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "number"}],
                                     "items": False, "minItems": 2}
    assert json_schema_of(Shelf) == {
        "type": "object", "properties": {"books": {"type": "array", "items": {"$ref": "#/$defs/Movie"}}},
        "required": ["books"], "additionalProperties": False,
        "$defs": {"Movie": {"type": "object", "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
                            "additionalProperties": False}}}


def test_schema_of_markers() -> None:
    assert json_schema_of(Annotated[float, Range(gt=0, lt=1), MultipleOf(0.25)]) == {
        "type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "multipleOf": 0.25}
    assert json_schema_of(Annotated[List[int], Length(max=3)]) == {"type": "array", "items": {"type": "integer"}, "maxItems": 3}
    assert json_schema_of(Annotated[str, EcmaPattern("^a"), Format("date")]) == (
        {"type": "string", "pattern": "^a", "format": "date"})
    # a keyword given twice: the second in allOf
    assert json_schema_of(Annotated[int, Range(ge=0), Range(ge=5)]) == {
        "type": "integer", "minimum": 0, "allOf": [{"minimum": 5}]}
    # on a union: the alternatives of the marker's kind
    assert json_schema_of(Annotated[Optional[int], Range(ge=0)]) == {
        "anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}
    assert json_schema_of(Annotated[Union[str, List[int]], Length(max=2)]) == {
        "anyOf": [{"type": "string", "maxLength": 2}, {"type": "array", "items": {"type": "integer"}, "maxItems": 2}]}


def test_schema_of_recursive_and_forward_referenced_types() -> None:
    assert json_schema_of(Tree) == {
        "$ref": "#/$defs/Tree",
        "$defs": {"Tree": {"type": "object", "properties": {"value": {"type": "integer"},
                                                             "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
                           "required": ["value", "children"], "additionalProperties": False}}}
    # a recursive alias: its union is written where it is used, and once in $defs, where
    # its own uses point to
    json_like = {"anyOf": [{"type": "integer"}, {"type": "string"},
                           {"type": "array", "items": {"$ref": "#/$defs/JsonLike"}},
                           {"type": "object", "additionalProperties": {"$ref": "#/$defs/JsonLike"}}]}
    assert json_schema_of(Doc) == {
        "type": "object", "properties": {"title": {"type": "string"}, "body": json_like},
        "required": ["title", "body"], "additionalProperties": False, "$defs": {"JsonLike": json_like}}


def test_from_type_is_from_json_schema_of_its_schema() -> None:
    a, b = Grammar.from_type(Character), Grammar.from_json_schema(json_schema_of(Character))
    assert a.to_text() == b.to_text() and a.kind == "json_schema"
    compact = Grammar.from_type(Point, whitespace_flexible=False)
    assert accepts(compact, "[1,2.5]") and not accepts(compact, "[1, 2.5]")


# -- parsing: values back, errors with positions ----------------------------------------

CHARACTER = ('{"name": "Aria", "age": 27, "description": "a wandering mage", '
             '"metadata": {"level": 12, "role": "mage", "tags": ["fire", "ice"]}}')


def test_parse_builds_nested_dataclasses_and_enums() -> None:
    c = parse(Character, CHARACTER)
    assert c == Character("Aria", 27, "a wandering mage", Metadata(12, Class.MAGE, ["fire", "ice"]))
    assert type(c.metadata) is Metadata and c.metadata.role is Class.MAGE
    assert parse(Metadata, '{"level": 1, "role": "warrior"}') == Metadata(1, Class.WARRIOR, [])  # the default
    assert parse(Point, "[1, 2]") == Point(1, 2.0) and type(parse(Point, "[1, 2]").y) is float
    assert parse(Shelf, '{"books": [{"year": 1999}, {}]}') == {"books": [{"year": 1999}, {}]}
    assert parse(Dict[str, int], '{"a": 1, "a": 2}') == {"a": 2}  # the grammar allows a repeated key (json.loads: last)
    assert parse(Union[float, int], "3") == 3 and type(parse(Union[float, int], "3")) is int  # int wins on "3"
    assert type(parse(Union[float, int], "3.0")) is float
    assert parse(Literal["a", 1, True, None], "true") is True


@pytest.mark.parametrize("text, offset, path, message", [
    ('{"name": "", "age": 1, "description": "", "metadata": {"level": 1, "role": "mage"}}', 9, "$.name",
     'expected str {"minLength": 1, "maxLength": 20}'),
    ('{"name": "A", "age": 256, "description": "", "metadata": {"level": 1, "role": "mage"}}', 21, "$.age",
     'expected int {"minimum": 0, "maximum": 255}'),
    ('{"name": "A", "age": 1.0, "description": "", "metadata": {"level": 1, "role": "mage"}}', 21, "$.age", "expected int"),
    ('{"name": "Zoë", "age": 1, "description": "", "metadata": {"level": 1, "role": "bard"}}', 79, "$.metadata.role",
     'expected one of "warrior", "mage" (Class)'),
    ('{"name": "A", "description": "", "metadata": {"level": 1, "role": "mage"}}', 14, "$",
     'missing key "age" before "description"'),
    ('{"name": "A", "age": 1, "description": ""}', 41, "$", 'missing key "metadata"'),
    ('{"age": 1, "name": "A"}', 1, "$", 'missing key "name" before "age"'),
    ('{"name": "A", "name": "B"}', 14, "$", 'key "name" repeated'),
    ('{"name": "A", "age": 1, "extra": 1}', 24, "$", 'unexpected key "extra"'),
    (' {"name": "A"}', 0, "$", "expected a JSON value"),
    ('{"name": "A"} ', 13, "$", "expected the end of the text"),
    ('{"name": "A", ', 14, "$", "unexpected end of text: expected a key"),
    ('{"name": "A\\/"}', 9, "$.name", "expected str"),
])
def test_parse_errors_name_the_place(text: str, offset: int, path: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse(Character, text)
    e = info.value
    assert (e.offset, e.path) == (offset, path), str(e)
    assert e.message.startswith(message), e.message
    assert not accepts(Grammar.from_type(Character), text)


def test_parse_error_offsets_are_bytes() -> None:
    with pytest.raises(ParseError) as info:
        parse(List[int], '["é"]')
    assert info.value.offset == 1 and info.value.path == "$[0]"
    with pytest.raises(ParseError) as info:
        parse(List[str], '["é", 1]')
    assert info.value.offset == 7 and info.value.char_offset == 6
    with pytest.raises(ParseError) as info:
        parse(str, b'"\xc3"')
    assert info.value.offset == 1 and "UTF-8" in info.value.message
    with pytest.raises(ParseError) as info:
        parse(str, '"\ud800"')
    assert info.value.offset == 1


def test_union_errors_report_the_alternative_that_got_furthest() -> None:
    with pytest.raises(ParseError) as info:
        parse(Optional[Metadata], '{"level": 0, "role": "mage"}')
    assert info.value.path == "$.level" and info.value.offset == 10
    with pytest.raises(ParseError) as info:
        parse(Optional[int], '"x"')
    assert info.value.message == "expected int or None" and info.value.offset == 0


def test_post_init_errors_are_parse_errors() -> None:
    @dataclass
    class Positive:
        n: int

        def __post_init__(self) -> None:
            if self.n <= 0:
                raise ValueError("n must be positive")

    assert parse(Positive, '{"n": 2}') == Positive(2)
    with pytest.raises(ParseError, match="raised ValueError: n must be positive"):
        parse(Positive, '{"n": 0}')


# -- recursion, forward references, depth --------------------------------------------------

def test_recursive_and_forward_referenced_types_parse() -> None:
    t = Tree(1, [Tree(2, []), Tree(3, [Tree(4, [])])])
    text = to_json(t)
    assert accepts(Grammar.from_type(Tree), text) and parse(Tree, text) == t
    d = Doc("x", {"a": [1, "b", {"c": []}]})
    assert accepts(Grammar.from_type(Doc), to_json(d)) and parse(Doc, to_json(d)) == d
    assert parse(Link, '{"value": 1, "next": {"value": 2}}') == Link(1, Link(2))


def test_a_recursive_alias_as_the_root_type() -> None:
    with pytest.raises(UnsupportedTypeError, match="cannot resolve the forward reference 'JsonLike'"):
        json_schema_of(JsonLike)
    text = '{"a": [1, "b", {"c": []}]}'
    assert parse(JsonLike, text, localns=globals()) == json.loads(text)
    assert accepts(Grammar.from_type(JsonLike, localns=globals()), text)


def test_integers_of_any_length() -> None:
    big = 0
    for _ in range(5):
        big = big * 10 ** 1000 + int("7" * 1000)  # 5,000 digits: more than int(str) allows by default
    text = "[" + "7" * 5000 + "]"
    assert to_json([big]) == text and parse(List[int], text) == [big]


@pytest.mark.skipif(sys.version_info < (3, 10), reason="`A | B` unions are Python 3.10+")
def test_pipe_unions() -> None:
    t = eval("int | None")
    assert json_schema_of(t) == json_schema_of(Optional[int])
    assert parse(t, "null") is None and parse(t, "3") == 3


@pytest.mark.skipif(not hasattr(typing, "NotRequired"), reason="typing.NotRequired is Python 3.11+")
def test_typeddict_not_required_keys() -> None:
    Movie2 = TypedDict("Movie2", {"title": str, "year": typing.NotRequired[int]})  # type: ignore[attr-defined,misc]
    assert json_schema_of(Movie2) == {"type": "object", "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
                                      "required": ["title"], "additionalProperties": False}
    assert parse(Movie2, '{"title": "x"}') == {"title": "x"}


def test_local_forward_references_need_localns() -> None:
    @dataclass
    class Node:
        children: List["Node"]

    with pytest.raises(UnsupportedTypeError, match="localns"):
        json_schema_of(Node)
    assert parse(Node, '{"children": [{"children": []}]}', localns={"Node": Node}) == Node([Node([])])
    assert accepts(Grammar.from_type(Node, localns={"Node": Node}), '{"children": []}')


def test_deep_values_and_types_do_not_recurse() -> None:
    n = 10_000
    text = '{"value": 0, "next": ' * n + '{"value": 0}' + "}" * n
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        value = parse(Link, text)
        again = to_json(value, separators=(",", ":"))
    finally:
        sys.setrecursionlimit(old)
    depth = 0
    while value.next is not None:
        value, depth = value.next, depth + 1
    assert depth == n and again == text.replace(" ", "").replace('{"value":0}', '{"value":0,"next":null}')
    deep: Any = int
    for _ in range(300):
        deep = List[deep]
    assert parse(deep, "[" * 300 + "7" + "]" * 300) == json.loads("[" * 300 + "7" + "]" * 300)
    assert accepts(Grammar.from_type(deep), "[" * 300 + "]" * 300)


# -- what has no grammar -------------------------------------------------------------------

def _deep_list(depth: int = 100_000) -> List[Any]:
    out: List[Any] = []
    for _ in range(depth):
        out = [out]
    return out


@dataclass
class Bad:
    ok: int
    items: List[typing.Set[int]]


@pytest.mark.parametrize("t, path, message", [
    (typing.Set[int], "$", "unsupported type (a set"),
    (frozenset, "$", "unsupported type (a set"),
    (bytes, "$", "unsupported type (bytes"),
    (Callable[[int], int], "$", "unsupported type (a callable"),
    (typing.Sequence[int], "$", "unsupported type (an abstract collection"),
    (Dict[int, str], "$", "a dict needs str keys"),
    (list, "$", "a bare list needs its item types"),
    (List, "$", "a list needs its item type"),
    (Any, "$", "unsupported type (Any"),
    (Bad, "Bad.items[]", "unsupported type (a set"),
    (complex, "$", "unsupported type (no JSON form"),
    (Annotated[int, "a doc string"], "$", "Annotated metadata 'a doc string' is not a maskref marker"),
    (Annotated[int, Length(1)], "$", "Length(min=1, max=None) does not apply to int"),
    (Annotated[Point, Range(ge=0)], "$", "Range(ge=0, gt=None, le=None, lt=None) does not apply"),
    (Annotated[Optional[bool], Range(ge=0)], "$", "Range(ge=0, gt=None, le=None, lt=None) constrains number"),
    (Literal[b"x"], "$", "a literal value b'x' is not a JSON scalar"),
    (Literal[float("nan")], "$", "a literal value nan is not a JSON scalar"),
    ("List[", "$", "a forward reference that is not an expression"),  # SyntaxError before (fuzzing)
    ("", "$", "a forward reference that is not an expression"),  # IndexError before (fuzzing)
    (Literal[(_deep_list(),)], "$", "a literal value [[[[[[[...]]]]]]] is not"),  # RecursionError before (fuzzing)
    (Annotated[int, 10 ** 5000], "$", "Annotated metadata <int> is not a maskref marker"),  # ValueError before
    (make_dataclass("Half", [("x", "List[")]), "Half", "a type annotation that is not an expression"),
    (make_dataclass("Init", [("x", int), ("y", dataclasses.InitVar[int])]), "Init.y", "an InitVar field"),
])
def test_unsupported_types_are_named_with_their_place(t: Any, path: str, message: str) -> None:
    with pytest.raises(UnsupportedTypeError) as info:
        json_schema_of(t)
    assert info.value.path == path and info.value.message.startswith(message), str(info.value)
    with pytest.raises(UnsupportedTypeError):
        Grammar.from_type(t)


def test_markers_check_their_arguments() -> None:
    for make in (lambda: Range(), lambda: Range(ge="1"), lambda: Length(3, 2), lambda: Length(-1),
                 lambda: MultipleOf(0), lambda: Range(le=float("nan")), lambda: Format(1), lambda: EcmaPattern(None)):
        with pytest.raises(ValueError):
            make()


def test_to_json_writes_what_the_grammar_reads() -> None:
    assert to_json(Character("Zoë\x7f\n", 3, "", Metadata(1, Class.MAGE))) == (
        '{"name": "Zoë\\u007f\\n", "age": 3, "description": "", "metadata": {"level": 1, "role": "mage", "tags": []}}')
    assert to_json([1e-7, 2.0, -0.0, 1e300]) == "[0.0000001, 2, 0, 1" + "0" * 300 + "]"
    for bad in (float("nan"), {1: 2}, "\ud800", b"x"):
        with pytest.raises(ValueError):
            to_json(bad)


# -- pydantic models (where pydantic is installed) --------------------------------------


def test_pydantic_models_through_their_schema():
    pydantic = pytest.importorskip("pydantic", reason="pydantic is not installed (it comes with the peers extra)")
    from refimpl.typed import ParseError, json_schema_of, parse

    class Owner(pydantic.BaseModel):
        name: str

    class Pet(pydantic.BaseModel):
        name: str
        age: int
        tags: List[str] = []
        owner: Optional[Owner] = None

    assert json_schema_of(Pet) == Pet.model_json_schema()
    g = Grammar.from_type(Pet)
    text = '{"name": "Rex", "age": 3, "tags": ["a"], "owner": {"name": "Ada"}}'
    assert Recognizer(g.compiled).consume_bytes(text.encode())
    assert parse(Pet, text) == Pet(name="Rex", age=3, tags=["a"], owner=Owner(name="Ada"))
    assert parse(Pet, text.encode()) == parse(Pet, text)
    # pydantic itself takes members in any order; parse reads the grammar's language first
    swapped = '{"age": 3, "name": "Rex"}'
    assert Pet.model_validate_json(swapped) == Pet(name="Rex", age=3)
    with pytest.raises(ParseError) as e:
        parse(Pet, swapped)
    assert e.value.offset == 2
    with pytest.raises(ParseError, match="ends before"):
        parse(Pet, '{"name": "Rex"')

    class Checked(pydantic.BaseModel):
        n: int

        @pydantic.field_validator("n")
        @classmethod
        def even(cls, v: int) -> int:
            if v % 2:
                raise ValueError("odd")
            return v

    assert parse(Checked, '{"n": 2}') == Checked(n=2)
    with pytest.raises(ParseError, match="pydantic refused it"):
        parse(Checked, '{"n": 3}')


def test_a_cyclic_types_name_is_cut_short_whatever_the_recursion_limit():
    """typing's repr of a type that contains itself recurses to the recursion limit, at a
    cost that grows faster than the depth: the error's name of it stops within
    REPR_FRAMES frames, even where a program raised the limit (and leaves the limit as it was)."""
    import sys

    from refimpl.frontends.typed.errors import _type_name

    t = List[int].copy_with((int,))  # a new alias: List[int] itself is typing's cached object
    t.__args__ = (t, t)  # a type that contains itself, twice
    assert List[int].__args__ == (int,)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        assert _type_name(t) == "list[...]"
        assert sys.getrecursionlimit() == 100_000
    finally:
        sys.setrecursionlimit(old)
