"""Numbers to and from decimal text of any length.

CPython (3.11, and 3.9 security releases; PyPy too) refuses `int(s)` and `str(i)` past
4,300 digits by default, a guard against quadratic work on untrusted input. A JSON
integer the grammar accepts may be longer; this converts in chunks of 1,000 digits, each
within the limit, without touching the interpreter-wide setting.

A count or an id written in a grammar (a repetition, a token id, a budget) is read by
`grammar_int`: ASCII digits only (`str.isdigit` is true of "²", which `int` refuses, and
of other scripts' digits), and at most `GRAMMAR_DIGITS` of them — every bound is far
below, and a longer number is refused where it is written rather than printed whole.

>>> n = int_of_text("-" + "12" * 3000)
>>> text_of_int(n) == "-" + "12" * 3000, text_of_int(0), int_of_text("-0")
(True, '0', 0)

A JSON number's exact value is a Decimal (`decimal_of_text`), built from its digits:
PyPy's pure-Python decimal reads a text through `int()`, so `Decimal(text)` stops at
4,300 digits there.
"""
from __future__ import annotations

import re
from decimal import Decimal

_CHUNK = 1000
_BASE = 10 ** _CHUNK


#: the most digits of a count or an id a grammar writes
GRAMMAR_DIGITS = 18


def is_digits(text: str) -> bool:
    """Is `text` one or more ASCII decimal digits?

    >>> is_digits("12"), is_digits(""), is_digits("\u00b2"), is_digits("\u0663")
    (True, False, False, False)
    """
    return text.isascii() and text.isdigit()


def grammar_int(text: str) -> int:
    """The int of a count or an id a grammar writes; ValueError (the reader's message)
    unless `text` is 1 to GRAMMAR_DIGITS ASCII digits.

    >>> grammar_int("0042")
    42
    >>> grammar_int("9" * 30)
    Traceback (most recent call last):
      ...
    ValueError: number too large: 99999999... has 30 digits (at most 18)
    """
    if not is_digits(text):
        raise ValueError("expected a number, found %r" % text[:20])
    if len(text) > GRAMMAR_DIGITS:
        raise ValueError("number too large: %s... has %d digits (at most %d)" % (text[:8], len(text), GRAMMAR_DIGITS))
    return int(text)


def int_of_text(text: str) -> int:
    """The int of a decimal integer text (an optional `-`, then digits)."""
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    head = len(digits) % _CHUNK or _CHUNK
    value = int(digits[:head])
    for i in range(head, len(digits), _CHUNK):
        value = value * _BASE + int(digits[i:i + _CHUNK])
    return -value if negative else value


#: a JSON number: its sign, integer part, fraction and exponent (RFC 8259)
JSON_NUMBER = re.compile(r"(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?")


def decimal_of_text(text: str) -> Decimal:
    """The exact Decimal of a JSON number's text, of any length (`Decimal(text)`, also on
    PyPy); ValueError if it is not one.

    >>> decimal_of_text("-2.50e3"), decimal_of_text("1" * 5000).adjusted()
    (Decimal('-2.50E+3'), 4999)
    """
    m = JSON_NUMBER.fullmatch(text)
    if m is None:
        raise ValueError("not a JSON number: %r" % text[:20])
    sign, whole, fraction, exponent = m.groups()
    fraction = fraction or ""
    digits = tuple(b - 48 for b in (whole + fraction).encode("ascii"))
    return Decimal((1 if sign else 0, digits, (int_of_text(exponent.lstrip("+")) if exponent else 0) - len(fraction)))


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
