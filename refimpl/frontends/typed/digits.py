"""Integers to and from decimal text of any length.

CPython (3.11, and 3.9 security releases; PyPy too) refuses `int(s)` and `str(i)` past
4,300 digits by default, a guard against quadratic work on untrusted input. A JSON
integer the grammar accepts may be longer; this converts in chunks of 1,000 digits, each
within the limit, without touching the interpreter-wide setting.

>>> n = int_of_text("-" + "12" * 3000)
>>> text_of_int(n) == "-" + "12" * 3000, text_of_int(0), int_of_text("-0")
(True, '0', 0)
"""
from __future__ import annotations

_CHUNK = 1000
_BASE = 10 ** _CHUNK


def int_of_text(text: str) -> int:
    """The int of a decimal integer text (an optional `-`, then digits)."""
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    head = len(digits) % _CHUNK or _CHUNK
    value = int(digits[:head])
    for i in range(head, len(digits), _CHUNK):
        value = value * _BASE + int(digits[i:i + _CHUNK])
    return -value if negative else value


def text_of_int(value: int) -> str:
    """The decimal text of an int."""
    negative = value < 0
    value = -value if negative else value
    chunks = []
    while value >= _BASE:
        value, low = divmod(value, _BASE)
        chunks.append(str(low).rjust(_CHUNK, "0"))
    chunks.append(str(value))
    return ("-" if negative else "") + "".join(reversed(chunks))
