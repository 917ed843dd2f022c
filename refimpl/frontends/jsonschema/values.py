"""JSON values as the schema compiler sees them: a schema given as text, UTF-8 bytes or
a Python value, read and checked (`schema_value`), the JSON type of a Python value, exact
Decimals for schema numbers and their canonical text, JSON pointer tokens and short
displays for messages."""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, Callable, List, Set, Tuple

from ...errors import LimitError, SchemaError, shown
from ...limits import Limits
from ..jsontext import JsonTextError, read_whole_json


def schema_value(schema: Any, limits: Limits) -> Any:
    """The JSON value of a schema given as a value, JSON text or UTF-8 bytes, checked
    by `check_value`.

    >>> schema_value(b'{"maximum": 1e3}', Limits())
    {'maximum': Decimal('1E+3')}
    """
    if isinstance(schema, (bytes, bytearray)):
        try:
            schema = bytes(schema).decode("utf-8")
        except UnicodeDecodeError as e:
            raise SchemaError("invalid JSON: not UTF-8 text: byte 0x%02X at offset %d" % (schema[e.start], e.start)) from None
    if isinstance(schema, str):
        schema = read_json_text(schema)
    check_value(schema, limits)
    return schema


def check_value(value: Any, limits: Limits) -> None:
    """SchemaError at its pointer for what no JSON text holds — a key that is not a
    string, a value that is not null, a bool, a finite number, a string, a list or a
    dict (a tuple, a set, bytes, NaN), a container that holds itself — and LimitError
    (`schema_depth`) for objects and arrays nested deeper than the limit (each level costs
    the compiler rules and time: 64,000 levels of `properties` took 45 s), and LimitError
    (`number_digits`) for a number whose plain decimal text is longer than the limit
    (1e400 has 401 digits: every bound compiles to regexes linear in the digits, and
    Python converts ints of at most 4,300 digits to text). Built Python values reach
    the compiler too, so this is checked once, here, without recursion; a container
    shared by two places is read once.

    >>> check_value({"enum": [1, ("a",)]}, Limits())
    Traceback (most recent call last):
    ...
    refimpl.errors.SchemaError: not a JSON value (a tuple: use a list): ('a',) at /enum/1
    """
    if not isinstance(value, (dict, list)):
        _check_scalar(value, [], -1, limits)
        return
    bits = 3 * limits.number_digits  # an int of at most this many bits has few enough digits (2^3 < 10)
    floats = limits.number_digits >= 325  # a finite float has at most 325 (5e-324)
    done: Set[int] = set()  # containers read through (met again: shared, read once)
    open_: Set[int] = set()  # containers being read: the path to here (met again: a cycle)
    places: List[Tuple[int, str, Any]] = [(-1, "", value)]  # (parent place, token, container)
    depth = [1]  # of each place: the containers it is inside, itself included
    stack = [0]  # places to read; ~place: the place's container is read through
    while stack:
        place = stack.pop()
        container = places[~place if place < 0 else place][2]
        if place < 0:
            open_.discard(id(container))
            done.add(id(container))
            continue
        if id(container) in done:
            continue
        open_.add(id(container))
        stack.append(~place)
        is_dict = isinstance(container, dict)
        for k, v in (container.items() if is_dict else enumerate(container)):
            if is_dict and not isinstance(k, str):
                raise SchemaError("keys must be strings, got %s" % shown(k), _pointer(places, place))
            if isinstance(v, str) or v is None or v is True or v is False:
                continue
            if type(v) is int and v.bit_length() <= bits or type(v) is float and floats and v - v == 0:
                continue  # the common numbers, at once
            if isinstance(v, (dict, list)):
                if id(v) in done:
                    continue
                places.append((place, str(k), v))
                depth.append(depth[place] + 1)
                if depth[-1] > limits.schema_depth:
                    where = _pointer(places, len(places) - 1)
                    raise LimitError("schema_depth", limits.schema_depth, "a value nested %d levels deep at %s" % (
                        depth[-1], where if len(where) <= 80 else where[:40] + " ... " + where[-30:]))
                if id(v) in open_:
                    raise SchemaError("the value holds itself (a cycle: JSON has none)", _pointer(places, len(places) - 1))
                stack.append(len(places) - 1)
            else:
                _check_scalar(v, places, place, limits, str(k))


def _check_scalar(x: Any, places: List[Tuple[int, str, Any]], place: int, limits: Limits, token: str = "") -> None:
    if is_number(x):
        _check_number(x, lambda: _pointer(places, place, token), limits)
    elif not (x is None or isinstance(x, (bool, str))):
        kind = "a tuple: use a list" if isinstance(x, tuple) else type(x).__name__
        raise SchemaError("not a JSON value (%s): %s" % (kind, shown(x)), _pointer(places, place, token))


def _check_number(x: Any, where: Callable[[], str], limits: Limits) -> None:
    """SchemaError unless x is finite, LimitError if its plain text is too long; `where`
    makes its pointer (only for the message)."""
    if isinstance(x, int):
        if x.bit_length() * 0.30103 > limits.number_digits + 1:  # log10(2): surely too long
            digits = int(x.bit_length() * 0.30103)
        else:
            digits = len(Decimal(x).as_tuple().digits)
    else:
        if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))) or (
                isinstance(x, Decimal) and not x.is_finite()):
            raise SchemaError("numbers must be finite, got %s" % x, where())
        _, coefficient, exponent = to_decimal(x).as_tuple()
        assert isinstance(exponent, int)
        digits = max(len(coefficient) + exponent, 1) + max(-exponent, 0)
    if digits > limits.number_digits:
        raise LimitError("number_digits", limits.number_digits,
                         "a number of %d digits at %s" % (digits, where() or "/"))


def _pointer(places: List[Tuple[int, str, Any]], place: int, token: str = "") -> str:
    """The JSON pointer of a place of check_value (and its member `token`)."""
    tokens = [escape_pointer(token)] if token else []
    while place > 0:
        place, t, _ = places[place]
        tokens.append(escape_pointer(t))
    return "".join("/" + t for t in reversed(tokens))


def read_json_text(text: str) -> Any:
    """A whole JSON text (see jsontext.read_json); SchemaError if it is not one (the
    offset in the message).

    >>> read_json_text('{"a": [1, 2.50, true, null]}')
    {'a': [1, Decimal('2.50'), True, None]}
    """
    try:
        return read_whole_json(text)
    except JsonTextError as e:
        raise SchemaError("invalid JSON: %s at offset %d" % (e.message, e.offset)) from None


def escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def short(value: Any, limit: int = 60) -> str:
    """A short display of a JSON value (never recursing into deep values)."""
    if isinstance(value, dict):
        text = "{%s}" % ", ".join(json.dumps(k, ensure_ascii=False) + ": ..." for k in list(value)[:4])
    elif isinstance(value, list):
        text = "[... %d items]" % len(value)
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = number_text(value) if is_number(value) else json.dumps(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."




def is_number(v: Any) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)


def json_type(v: Any) -> str:
    """The JSON type of a Python value: null, boolean, number, string, array, object."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if is_number(v):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    raise SchemaError("not a JSON value: %r" % (v,))


def to_decimal(v: Any) -> Decimal:
    """An exact Decimal for a schema number (floats by their shortest repr)."""
    if isinstance(v, Decimal):
        return v
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise SchemaError("numbers must be finite, got %r" % v)
        return Decimal(repr(v))
    return Decimal(v)


def number_text(v: Any) -> str:
    """The canonical JSON text of a number: an integer without fraction, otherwise the
    shortest plain decimal (no exponent): 1.0 -> "1", 2.50 -> "2.5", 1e-3 -> "0.001"."""
    d = to_decimal(v)
    if d == d.to_integral_value():
        return str(int(d))
    sign, digits, exp = d.normalize().as_tuple()
    s = "".join(map(str, digits))
    assert isinstance(exp, int) and exp < 0
    if len(s) <= -exp:
        s = "0." + "0" * (-exp - len(s)) + s
    else:
        s = s[:exp] + "." + s[exp:]
    return ("-" if sign else "") + s
