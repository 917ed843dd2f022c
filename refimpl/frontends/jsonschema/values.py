"""JSON values as the schema compiler sees them: a whole JSON text parsed
(`read_json_text`), the JSON type of a Python value, exact Decimals for schema numbers
and their canonical text, JSON pointer tokens and short displays for messages."""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from ...errors import SchemaError
from ..jsontext import JsonTextError, read_whole_json


def read_json_text(text: str) -> Any:
    """A whole JSON text (see jsontext.read_json); SchemaError if it is not one.

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
