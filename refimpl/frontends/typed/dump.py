"""`to_json(value)`: the JSON text of a typed value, as the type's grammar accepts it.

json.dumps cannot write dataclasses, recurses on depth, and writes some texts the
grammar refuses: `1e-07` (no exponent where a number has bounds), `2.0` (no fraction for
a multiple of 2), a raw DEL character (the grammar wants `\\u007f`), `\\u00e9` (non-ASCII
is written as itself). This writer has no such cases: dataclasses as objects of their
fields in declared order, NamedTuples and tuples as arrays, Enum members as their values,
floats in their shortest plain decimal (`1.0` as `1`), strings with only the escapes JSON
requires. A dict (a TypedDict too) keeps its own key order.

>>> import enum
>>> from dataclasses import dataclass
>>> class Color(enum.Enum):
...     RED = "red"
>>> @dataclass
... class Car:
...     color: Color
...     speed: float
...     name: str
>>> print(to_json(Car(Color.RED, 1e-07, "Zoë\\x7f")))
{"color": "red", "speed": 0.0000001, "name": "Zoë\\u007f"}
"""
from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any, List, Tuple

from ..digits import text_of_int
from ..jsonschema.values import number_text
from ..jsontext import json_string


def to_json(value: Any, *, separators: Tuple[str, str] = (", ", ": ")) -> str:
    """The JSON text of `value` (separators as json.dumps's). ValueError for what has no
    JSON form (NaN, infinities, a lone surrogate, a dict key that is not a str)."""
    item_sep, key_sep = separators
    out: List[str] = []
    stack: List[Tuple[bool, Any]] = [(False, value)]  # (is literal text, value)
    while stack:
        literal, x = stack.pop()
        if literal:
            out.append(x)
            continue
        if isinstance(x, enum.Enum):
            x = x.value
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            x = {f.name: getattr(x, f.name) for f in dataclasses.fields(x) if f.init}
        if isinstance(x, dict):
            items = list(x.items())
            stack.append((True, "}"))
            for i in range(len(items) - 1, -1, -1):
                key, v = items[i]
                if not isinstance(key, str):
                    raise ValueError("a dict key that is not a str: %r" % (key,))
                stack.append((False, v))
                stack.append((True, (item_sep if i else "") + json_string(key) + key_sep))
            out.append("{")
        elif isinstance(x, (list, tuple)):
            stack.append((True, "]"))
            for i in range(len(x) - 1, -1, -1):
                stack.append((False, x[i]))
                if i:
                    stack.append((True, item_sep))
            out.append("[")
        else:
            out.append(scalar(x))
    return "".join(out)


def scalar(x: Any) -> str:
    """The JSON text of None, a bool, an int, a float or a str."""
    if x is None:
        return "null"
    if x is True or x is False:
        return "true" if x else "false"
    if isinstance(x, int):
        return text_of_int(int(x))  # not str(x): that stops at 4,300 digits
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            raise ValueError("%r has no JSON form" % x)
        return number_text(x)
    if isinstance(x, str):
        return json_string(x)
    raise ValueError("no JSON form for %r (%s)" % (x, type(x).__name__))
