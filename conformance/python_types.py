"""The Python types of the suite's `types` group: what `refimpl.typed` makes grammars of.

`python -m conformance generate` writes, for each entry of TYPES, json_schema vectors
whose schema is `json_schema_of(T)` (conformance/generate.py, `type_vectors`): the texts
of the entry's values as `to_json` writes them (each checked to parse back to the value
and to the same text, the parsed value's repr kept in the vector's note), then texts the
type refuses — a wrong type, a missing field, a bound broken — along the longest prefix
the grammar allows (parse's error kept in the note). So the vectors pin the typed
frontend where the worker protocol cannot reach it: its schema (the grammar), parse and
to_json (the notes). docs/types.md lists the types and markers covered here.

Each entry: (name, type, description naming the type, values, refused texts, tags); the
vector ids are `types/<name>/<vocabulary>/<i>`.

>>> [name for name, *_ in TYPES][:3]
['character', 'defaults', 'init-false']
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field, make_dataclass
from typing import Annotated, Any, Dict, List, Literal, NamedTuple, Optional, Tuple, TypedDict, Union

from refimpl.typed import EcmaPattern, Format, Length, MultipleOf, Range


class Class(enum.Enum):
    """A str-valued Enum (docs/types.md's Character example)."""

    WARRIOR = "warrior"
    MAGE = "mage"


class Level(enum.Enum):
    """An int-valued Enum."""

    LOW = 1
    HIGH = 10


class Mixed(enum.Enum):
    """An Enum of mixed JSON values: a float, a bool, None."""

    HALF = 0.5
    YES = True
    NOTHING = None


@dataclass
class Metadata:
    role: Class
    level: Annotated[int, Range(ge=1, le=99)]
    tags: List[str] = field(default_factory=list)


@dataclass
class Character:
    name: Annotated[str, Length(1, 32)]
    age: Annotated[int, Range(ge=0, le=255)]
    metadata: Metadata


@dataclass
class Config:
    """Fields with defaults (optional in the text), one of them Optional."""

    name: str
    retries: int = 3
    timeout: Optional[float] = None


@dataclass
class Rect:
    """A field that is not an __init__ argument: not in the text, set by __post_init__."""

    w: int
    h: int
    area: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.area = self.w * self.h


class Movie(TypedDict, total=False):
    title: str
    year: Annotated[int, Range(gt=1887)]


class Address(TypedDict):
    street: str
    zip: Annotated[str, EcmaPattern("^[0-9]{5}$"), Length(5, 5)]


class Pair(NamedTuple):
    key: str
    value: float


@dataclass
class Tree:
    """A dataclass that refers to itself."""

    value: int
    children: List[Tree]


@dataclass
class Link:
    """A linked list: recursion through Optional, ended by a default."""

    value: str
    next: Optional[Link] = None


@dataclass
class Tag:
    name: str


#: a recursive alias (a forward reference to itself, and one to a class), used as a field type
Json = Union[int, str, "Tag", List["Json"]]


@dataclass
class Doc:
    body: Json


@dataclass
class Contact:
    """String formats."""

    email: Annotated[str, Format("email")]
    id: Annotated[str, Format("uuid")]
    born: Annotated[str, Format("date")]
    seen: Annotated[str, Format("date-time")]


@dataclass
class Reading:
    """Numbers: multiples of an int and of a float, exclusive bounds on a float."""

    count: Annotated[int, MultipleOf(5)]
    step: Annotated[float, MultipleOf(0.5)]
    ratio: Annotated[float, Range(gt=0, lt=1.5)]


@dataclass
class Event:
    """A Literal of one value (a const), an Enum default."""

    kind: Literal["event"]
    level: Level = Level.LOW


#: a dataclass with the same name as the NamedTuple Pair: `$defs` names them apart
OtherPair = make_dataclass("Pair", [("left", int), ("right", int)])

ID = '"123e4567-e89b-12d3-a456-426614174000"'

TYPES: List[Tuple[str, Any, str, List[Any], List[str], List[str]]] = [
    ("character", Character, "dataclass Character: a nested dataclass, a str Enum, Range, Length, a default_factory "
                             "list (docs/types.md)",
     [Character("Aria", 27, Metadata(Class.MAGE, 12, ["fire", "ice"]))],
     ['{"name": "Aria", "age": 300, "metadata": {"role": "mage", "level": 1}}',
      '{"name": "Aria", "metadata": {"role": "mage", "level": 1}}',
      '{"name": "Aria", "age": 1, "metadata": {"role": "rogue", "level": 1}}',
      '{"name": "Aria", "age": 1, "metadata": {role: "mage", "level": 1}}'],
     ["dataclass", "enum", "range", "length"]),
    ("defaults", Config, "dataclass Config: fields with defaults, an Optional[float]",
     [Config("a"), Config("b", 5, 1.5)],
     ['{"name": "a", "timeout": 2, "retries": 1}', '{"name": "a", "extra": 1}', '{"name": "a", "retries": 1'],
     ["dataclass", "defaults", "optional"]),
    ("init-false", Rect, "dataclass Rect: a field(init=False) set by __post_init__", [Rect(2, 3)],
     ['{"w": 2, "h": 3, "area": 6}'], ["dataclass"]),
    ("typeddict-partial", Movie, "TypedDict Movie, total=False, with an exclusive minimum",
     [{"title": "Metropolis", "year": 1927}, {}], ['{"year": 1887}'], ["typeddict", "range"]),
    ("typeddict", Address, "TypedDict Address (total) with an EcmaPattern and Length(5, 5)",
     [{"street": "1 Rue de l'Église", "zip": "75001"}],
     ['{"street": "x", "zip": "7500a"}'], ["typeddict", "pattern"]),
    ("namedtuple", Pair, "NamedTuple Pair(key: str, value: float)", [Pair("n", -2.0)], ['["pi"]'], ["namedtuple"]),
    ("enum-int", List[Level], "List[Level], an int-valued Enum", [[Level.LOW, Level.HIGH]], ["[1, 5]"],
     ["enum", "list"]),
    ("enum-mixed", Tuple[Mixed, ...], "Tuple[Mixed, ...], an Enum of 0.5, True and None",
     [(Mixed.HALF, Mixed.YES, Mixed.NOTHING)], ["[0.50]"], ["enum", "tuple"]),
    ("literal", List[Literal["on", "off", 0, None, True, Class.MAGE]],
     "List[Literal['on', 'off', 0, None, True, Class.MAGE]]", [["on", 0, None, True, Class.MAGE]],
     ["[false]"], ["literal", "list"]),
    ("optional-int", Optional[int], "Optional[int]", [7, None], ["1.5", '"7"'], ["optional"]),
    ("int-or-float", Union[int, float], "Union[int, float]", [3, -1e-7, 1e21], ["true"], ["union", "numbers"]),
    ("float-or-int", List[Union[float, int]], "List[Union[float, int]]: an int alternative wins on an integer text",
     [[3, 2.5, -0.0]], [], ["union", "numbers"]),
    ("str-or-list", Union[str, List[int]], "Union[str, List[int]]", ["x", [1, 2]], ['["x"]'], ["union"]),
    ("optional-range", List[Union[str, Annotated[Optional[int], Range(ge=0)]]],
     "List[Union[str, Annotated[Optional[int], Range(ge=0)]]]: a marker on a union, in a union",
     [["a", 0, None, 12]], ["[-1]"],
     ["union", "range"]),
    ("bounded-list", Annotated[List[Annotated[int, Range(ge=0, lt=100), MultipleOf(33)]], Length(1, 3)],
     "Annotated[List[Annotated[int, Range(ge=0, lt=100), MultipleOf(33)]], Length(1, 3)]: a name of 81 "
     "characters in parse's errors, cut short", [[0, 99]],
     ["[]", "[0, 33, 66, 99]"], ["list", "length", "range"]),
    ("fixed-tuple", Tuple[int, str, bool], "Tuple[int, str, bool]", [(1, "a", False)],
     ['[1, "a"]', '[1, "a", true, 2]'], ["tuple"]),
    ("empty-tuple", Tuple[()], "Tuple[()]", [()], ["[1]"], ["tuple"]),
    ("dict", Dict[str, List[int]], "Dict[str, List[int]]", [{"a": [1], "é": [], "a b": [2, 3]}],
     ['{"a": 1}'], ["dict"]),
    ("tree", Tree, "dataclass Tree(value: int, children: List[Tree]): a recursive class",
     [Tree(1, [Tree(2, []), Tree(3, [Tree(4, [])])])], ['{"value": 1, "children": [{"value": 2}]}'],
     ["recursion", "dataclass"]),
    ("linked-list", Link, "dataclass Link(value: str, next: Optional[Link] = None)",
     [Link("a", Link("b", Link("c")))], ['{"value": "a", "next": {"next": null}}'], ["recursion", "optional"]),
    ("recursive-alias", Doc, "dataclass Doc(body: Json), Json = Union[int, str, 'Tag', List['Json']]",
     [Doc([1, "two", Tag("x"), [3, []]]), Doc(4)], ['{"body": [1.5]}'], ["recursion", "union"]),
    ("strings", Annotated[str, Length(max=12)], "Annotated[str, Length(max=12)]: escapes and UTF-8",
     ['say "hi"\n\t\\', "Zoë\x7f😀\x01"], ['"abcdefghijklm"', '"\\/"'], ["strings", "escapes", "utf8", "length"]),
    ("scalars", Tuple[bool, None, int, float, str], "Tuple[bool, None, int, float, str]",
     [(True, None, -12345678901234567890, 0.1, "")], ['[1, null, 1, 1, ""]', '[true, null, 1.0, 1, ""]'],
     ["scalars", "numbers"]),
    ("formats", Contact, "dataclass Contact: Format email, uuid, date, date-time",
     [Contact("jane.doe@example.org", ID[1:-1], "2024-02-29", "2024-02-29T23:59:60Z")],
     ['{"email": "jane", "id": %s, "born": "2024-02-29", "seen": "2024-02-29T23:59:60Z"}' % ID,
      '{"email": "a@b.org", "id": %s, "born": "2023-02-29", "seen": "2024-02-29T23:59:60Z"}' % ID],
     ["formats", "dataclass"]),
    ("numbers", Reading, "dataclass Reading: MultipleOf(5), MultipleOf(0.5), Range(gt=0, lt=1.5)",
     [Reading(15, 2.5, 0.25), Reading(-10, 0.0, 1.25)],
     ['{"count": 7, "step": 1, "ratio": 1}', '{"count": 5, "step": 0.25, "ratio": 1}',
      '{"count": 5, "step": 1, "ratio": 1.5}'], ["numbers", "multiple-of", "range"]),
    ("keyword-twice", Annotated[int, Range(ge=0), Range(ge=5, le=10)],
     "Annotated[int, Range(ge=0), Range(ge=5, le=10)]: a keyword twice (allOf)", [5], ["4", "11"],
     ["range", "all-of"]),
    ("const", Event, "dataclass Event: a Literal['event'] (one value), an Enum default", [Event("event")],
     ['{"kind": "other"}'], ["literal", "enum", "dataclass", "defaults"]),
    ("same-names", Tuple[Pair, OtherPair], "Tuple[Pair, OtherPair]: a NamedTuple and a dataclass both named Pair",
     [(Pair("a", 1.5), OtherPair(1, 2))], ['[["a", 1.5], {"left": 1}]'], ["namedtuple", "dataclass", "tuple"]),
    ("marker-over-class", Annotated[Union[Config, str], Length(max=5)],
     "Annotated[Union[Config, str], Length(max=5)]: a union's marker passes the class by", [Config("a"), "short"],
     ['"longer"'], ["union", "length", "dataclass"]),
]

#: values of an entry's shape that `to_json` refuses (no JSON form: a key that is not a
#: str, a complex, NaN, a lone surrogate), by entry name: its first vector's note keeps
#: each ValueError's message, so `to_json`'s refusals are pinned as its output is
UNWRITABLE: Dict[str, List[Any]] = {
    "dict": [{1: [2]}, {"a": [2j]}],
    "scalars": [(True, None, 1, float("nan"), "x"), (True, None, 1, 0.5, "\ud800")],
}
