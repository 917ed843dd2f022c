"""Constraints on a type through `typing.Annotated`: small frozen markers, each one or
two JSON schema keywords (docs/types.md).

    Annotated[int, Range(ge=0, le=255)]          minimum / maximum (also gt, lt)
    Annotated[float, MultipleOf(0.5)]            multipleOf
    Annotated[str, Length(1, 40)]                minLength / maxLength (characters)
    Annotated[list[str], Length(max=3)]          minItems / maxItems
    Annotated[str, EcmaPattern(r"^[A-Z][a-z]+$")]    pattern (ECMA-262, searched anywhere)
    Annotated[str, Format("date")]               format (the formats maskref enforces)

A marker applies to the JSON values of its kind ("number", "string", "array"): on a
union (``Annotated[Optional[int], Range(ge=0)]``) it constrains the alternatives of that
kind and leaves the others alone, as the keyword does in a JSON schema; a marker that
applies to no alternative is an UnsupportedTypeError.

>>> Range(ge=0, lt=10).keywords("number")
{'minimum': 0, 'exclusiveMaximum': 10}
>>> Length(2).keywords("string"), Length(max=3).keywords("array")
({'minLength': 2}, {'maxItems': 3})
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple, Union

Number = Union[int, float]


def _check_number(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value in (
            float("inf"), float("-inf")):
        raise ValueError("%s must be a finite int or float, got %r" % (name, value))


@dataclass(frozen=True)
class Range:
    """Bounds of a number: ``ge <= x``, ``gt < x``, ``x <= le``, ``x < lt`` (JSON schema's
    minimum, exclusiveMinimum, maximum, exclusiveMaximum), compared exactly on the text."""

    ge: Optional[Number] = None
    gt: Optional[Number] = None
    le: Optional[Number] = None
    lt: Optional[Number] = None

    kinds = ("number",)

    def __post_init__(self) -> None:
        given = [(k, v) for k, v in (("ge", self.ge), ("gt", self.gt), ("le", self.le), ("lt", self.lt)) if v is not None]
        if not given:
            raise ValueError("Range needs at least one of ge, gt, le, lt")
        for k, v in given:
            _check_number("Range(%s=...)" % k, v)

    def keywords(self, kind: str) -> Dict[str, Any]:
        names = (("ge", "minimum"), ("gt", "exclusiveMinimum"), ("le", "maximum"), ("lt", "exclusiveMaximum"))
        return {kw: getattr(self, attr) for attr, kw in names if getattr(self, attr) is not None}


@dataclass(frozen=True)
class MultipleOf:
    """The number is an integer multiple of `value` (> 0), exactly (JSON schema's
    multipleOf; a float divisor is meant as its shortest repr: 0.1 is one tenth)."""

    value: Number

    kinds = ("number",)

    def __post_init__(self) -> None:
        _check_number("MultipleOf", self.value)
        if self.value <= 0:
            raise ValueError("MultipleOf needs a positive number, got %r" % (self.value,))

    def keywords(self, kind: str) -> Dict[str, Any]:
        return {"multipleOf": self.value}


@dataclass(frozen=True)
class Length:
    """How many characters a string has (Unicode code points), or how many items a list
    has: ``min <= len <= max`` (minLength/maxLength, minItems/maxItems)."""

    min: int = 0
    max: Optional[int] = None

    kinds = ("string", "array")

    def __post_init__(self) -> None:
        for name, v in (("min", self.min), ("max", self.max)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise ValueError("Length(%s=...) must be an int >= 0, got %r" % (name, v))
        if self.max is not None and self.min > self.max:
            raise ValueError("Length(min=%d, max=%d): min is greater than max" % (self.min, self.max))

    def keywords(self, kind: str) -> Dict[str, Any]:
        lo, hi = ("minLength", "maxLength") if kind == "string" else ("minItems", "maxItems")
        out: Dict[str, Any] = {}
        if self.min:
            out[lo] = self.min
        if self.max is not None:
            out[hi] = self.max
        return out


@dataclass(frozen=True)
class EcmaPattern:
    """The string contains a match of an ECMA-262 regular expression (JSON schema's
    pattern: searched anywhere, so anchor it with ``^...$`` to match the whole string)."""

    regex: str

    kinds = ("string",)

    def __post_init__(self) -> None:
        if not isinstance(self.regex, str):
            raise ValueError("EcmaPattern needs a str, got %r" % (self.regex,))

    def keywords(self, kind: str) -> Dict[str, Any]:
        return {"pattern": self.regex}


@dataclass(frozen=True)
class Format:
    """The string is in a JSON schema format maskref enforces exactly (`date`, `time`,
    `date-time`, `email`, `uuid`, `ipv4`, ... — docs/jsonschema.md)."""

    name: str

    kinds = ("string",)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise ValueError("Format needs a str, got %r" % (self.name,))

    def keywords(self, kind: str) -> Dict[str, Any]:
        return {"format": self.name}


Marker = Union[Range, MultipleOf, Length, EcmaPattern, Format]
MARKERS: Tuple[type, ...] = (Range, MultipleOf, Length, EcmaPattern, Format)
