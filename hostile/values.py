"""Python values from bytes, structure-aware: what a fuzz target builds when the entry
point takes a value rather than text (`Grammar.from_json_schema(dict)`, its options).

`decode(data)` reads a small tagged format — a tag byte, then what the tag needs — so a
byte-level mutation of an input changes one value, one length or one tag, and the result
is still a value: the fuzzer explores *structures*, not mostly-invalid text. The format
reaches what JSON text cannot: Python's odd values where JSON's go (NaN, infinities,
-0.0, huge ints, Decimals of any exponent, bools where numbers go, lone surrogates),
tuples, non-string keys, values no JSON holds (bytes, sets), shared containers and
cycles, and deep nesting (up to MAX_DEPTH) at a few bytes. `encode(value)` writes a JSON
value in the same format, so the seeds (schemas from the tests and the docs) are bytes
the fuzzer mutates. The format is fixed (a kept regression input must decode the same
forever): the tags and `WORDS` are only ever appended to.

>>> decode(encode({"type": ["integer", None], "minimum": 1.5, "x": [True, 10**30]}))
{'type': ['integer', None], 'minimum': 1.5, 'x': [True, 1000000000000000000000000000000]}
>>> decode(bytes([NEST, 0, 3, 0, WORD, 0]))
[[['type']]]

Reading never fails: past the end every byte reads as 0 (`null`, or a length 0), and the
containers still open are closed with what they hold.
"""
from __future__ import annotations

import struct
from decimal import Decimal, InvalidOperation
from typing import Any, List, Tuple

# the tags (a tag byte is read modulo their number)
NULL, TRUE, FALSE, SMALL, INT, POWER, FLOAT, DECIMAL, STRING, WORD, LIST, TUPLE, OBJECT, SHARED, SPECIAL, NEST = range(16)
TAGS = 16
#: the deepest a NEST tag nests (twice the 10,000 levels docs/jsonschema.md promises; more
#: only makes the fuzzer slow: a decoded value is built in Python)
MAX_DEPTH = 20_000

#: the strings a WORD tag names by one byte: JSON schema's keywords, types, formats and
#: options, and a few names and references (appended to only)
WORDS = (
    "type", "properties", "required", "items", "prefixItems", "additionalProperties", "patternProperties",
    "propertyNames", "enum", "const", "anyOf", "allOf", "oneOf", "not", "if", "then", "else", "$ref", "$defs",
    "definitions", "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor",
    "$schema", "$comment", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems", "contains",
    "minContains", "maxContains", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
    "dependencies", "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema",
    "contentMediaType", "contentEncoding", "title", "description", "default", "examples", "deprecated",
    "readOnly", "writeOnly", "x-guidance",
    "null", "boolean", "integer", "number", "string", "array", "object",
    "date", "time", "date-time", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri",
    "uri-reference", "iri", "iri-reference", "uri-template", "json-pointer", "relative-json-pointer",
    "regex", "idn-email", "idn-hostname", "unknown",
    "item_separator", "key_separator", "whitespace_flexible", "whitespace_pattern", "coerce_one_of", "lenient",
    "json_allowed_escapes", "json_allow_general_unicode_escapes",
    "#", "#/$defs/a", "#/$defs/b", "#/properties/a", "#/items", "#a", "a", "b", "c", "", " ", ", ", ": ",
    "^a+$", "[a-z]*", "a|b", "(", "\\", "\\d+", "https://example.com/s", "urn:x", "#/definitions/a",
)


class Reader:
    """Bytes read front to back; past the end, zeros."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    @property
    def exhausted(self) -> bool:
        return self.pos >= len(self.data)

    def byte(self) -> int:
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1]

    def take(self, n: int) -> bytes:
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def u16(self) -> int:
        return self.byte() << 8 | self.byte()

    def length(self) -> int:
        """0..254 in one byte; 255 then two more bytes: up to 65,790."""
        n = self.byte()
        return n if n < 255 else 255 + self.u16()

    def choice(self, options: Any) -> Any:
        return options[self.byte() % len(options)]

    def text(self) -> str:
        """A string of `length()` bytes as UTF-8, where an encoded surrogate is a lone
        surrogate; if the bytes are not that, each byte that is not UTF-8 becomes a lone
        surrogate (U+DC80..U+DCFF), as Python's surrogateescape reads it."""
        data = self.take(self.length())
        try:
            return data.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return data.decode("utf-8", "surrogateescape")


#: what a SPECIAL tag names by one byte: values where JSON's go that JSON has no text for
SPECIALS: Tuple[Any, ...] = (
    float("nan"), float("inf"), float("-inf"), -0.0, 1e308, 5e-324, 2.0 ** 63, 1e16 + 1, 0.1,
    Decimal("NaN"), Decimal("Infinity"), Decimal("-0"), Decimal("1E+999999"), Decimal("1E-999999"),
    Decimal("sNaN"), 2 ** 64, -(2 ** 63), b"bytes", bytearray(b"x"), set(), frozenset(["a"]), 1j, Ellipsis,
    NotImplemented, type, "\ud800", "\udfff", "\x00", "\u2028", "\ufeff", "é", "😀",
)

#: what NEST wraps a value in, `depth` times (the wrapper by a byte)
WRAPPERS = ("list", "items", "not", "anyOf", "allOf", "properties", "additionalProperties", "if", "prefixItems",
            "$defs")


def _wrap(value: Any, wrapper: str) -> Any:
    if wrapper == "list":
        return [value]
    if wrapper in ("anyOf", "allOf", "prefixItems"):
        return {wrapper: [value]}
    if wrapper in ("properties", "$defs"):
        return {wrapper: {"a": value}}
    if wrapper == "if":
        return {"if": value, "then": value}
    return {wrapper: value}


class _Open:
    """A container being read: what it holds so far and how many more it wants."""

    __slots__ = ("tag", "value", "remaining", "key", "wrapper")

    def __init__(self, tag: int, value: Any, remaining: int, wrapper: str = "") -> None:
        self.tag = tag
        self.value = value
        self.remaining = remaining
        self.key: Any = _NO_KEY
        self.wrapper = wrapper


_NO_KEY = object()


def decode(data: bytes) -> Any:
    """The value the bytes describe (see the module's docstring); never raises, never
    recurses (a value 60,000 deep is fine)."""
    return decode_from(Reader(data))


def decode_from(r: Reader) -> Any:
    """The next value of `r`."""
    made: List[Any] = []  # the lists and dicts made so far, for SHARED (a cycle if still open)
    stack: List[_Open] = []
    while True:
        if r.exhausted and stack:
            value = _close(stack.pop())
        else:
            value = _start(r, made, stack)
            if value is _NO_KEY:
                continue  # a container was opened
        while True:  # deliver the value; close what it completes
            if not stack:
                return value
            top = stack[-1]
            if top.tag == NEST:
                stack.pop()
                for _ in range(top.remaining):
                    value = _wrap(value, top.wrapper)
                continue
            if top.tag == OBJECT and top.key is _NO_KEY:
                top.key = value if _hashable(value) else repr(type(value))
                break
            if top.tag == OBJECT:
                top.value[top.key] = value
                top.key = _NO_KEY
            else:
                top.value.append(value)
            top.remaining -= 1
            if top.remaining:
                break
            value = _close(stack.pop())


def _start(r: Reader, made: List[Any], stack: List[_Open]) -> Any:
    """A scalar (or a shared container), or _NO_KEY after opening a container on `stack`."""
    tag = r.byte() % TAGS
    if tag in (LIST, TUPLE, OBJECT):
        n = r.length()
        value: Any = {} if tag == OBJECT else []
        if tag != TUPLE:
            made.append(value)
        if n == 0:
            return tuple(value) if tag == TUPLE else value
        stack.append(_Open(tag, value, n))
        return _NO_KEY
    if tag == NEST:
        depth = r.u16() % (MAX_DEPTH + 1)
        stack.append(_Open(NEST, None, depth, r.choice(WRAPPERS)))
        return _NO_KEY
    return _scalar(tag, r, made)


def _scalar(tag: int, r: Reader, made: List[Any]) -> Any:
    if tag == TRUE:
        return True
    if tag == FALSE:
        return False
    if tag == SMALL:
        return r.byte() - 128
    if tag == INT:
        return int.from_bytes(r.take(r.length()), "big", signed=True)
    if tag == POWER:  # ±10^k or ±2^k, k < 65,536: past the 4,300 digits int() reads by default
        sign = r.byte()
        k = r.u16()
        return (-1 if sign & 1 else 1) * (2 if sign & 2 else 10) ** k
    if tag == FLOAT:
        return struct.unpack(">d", r.take(8).ljust(8, b"\0"))[0]
    if tag == DECIMAL:
        try:
            return Decimal(r.text())
        except (InvalidOperation, ValueError):
            return Decimal(7)
    if tag == STRING:
        return r.text()
    if tag == WORD:
        return WORDS[r.byte() % len(WORDS)]
    if tag == SHARED:
        return made[r.byte() % len(made)] if made else None
    if tag == SPECIAL:
        return r.choice(SPECIALS)
    return None


def _close(top: _Open) -> Any:
    if top.tag == TUPLE:
        return tuple(top.value)
    if top.tag == NEST:
        return None
    return top.value


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


# -- writing a JSON value in the format (the seeds) -----------------------------------------


def encode(value: Any) -> bytes:
    """The bytes `decode` reads back as `value` (a JSON value: None, bool, int, float,
    Decimal, str, list, tuple, dict). Seeds are small: this one recurses."""
    out = bytearray()
    _encode(value, out)
    return bytes(out)


def _length(n: int, out: bytearray) -> None:
    if n < 255:
        out.append(n)
    else:
        assert n - 255 < 1 << 16, n
        out += bytes([255, (n - 255) >> 8, (n - 255) & 255])


def _encode(value: Any, out: bytearray) -> None:
    if value is None:
        out.append(NULL)
    elif value is True or value is False:
        out.append(TRUE if value else FALSE)
    elif isinstance(value, int):
        if -128 <= value < 128:
            out += bytes([SMALL, value + 128])
        else:
            data = value.to_bytes((value.bit_length() + 8) // 8, "big", signed=True)
            out.append(INT)
            _length(len(data), out)
            out += data
    elif isinstance(value, float):
        out.append(FLOAT)
        out += struct.pack(">d", value)
    elif isinstance(value, Decimal):
        out.append(DECIMAL)
        _text(str(value), out)
    elif isinstance(value, str):
        if value in _WORD_INDEX:
            out += bytes([WORD, _WORD_INDEX[value]])
        else:
            out.append(STRING)
            _text(value, out)
    elif isinstance(value, (list, tuple)):
        out.append(LIST if isinstance(value, list) else TUPLE)
        _length(len(value), out)
        for item in value:
            _encode(item, out)
    elif isinstance(value, dict):
        out.append(OBJECT)
        _length(len(value), out)
        for key, item in value.items():
            _encode(key, out)
            _encode(item, out)
    else:
        raise TypeError("not a JSON value: %r" % (value,))


def _text(s: str, out: bytearray) -> None:
    data = s.encode("utf-8", "surrogatepass")
    _length(len(data), out)
    out += data


_WORD_INDEX = {w: i for i, w in enumerate(WORDS)}


