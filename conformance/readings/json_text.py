"""JSON text as peers spell it, for the predicates of their known differences: where the
strings are, the spellings several engines allow that maskref does not (raw DEL, the
escape `\\/`, any `\\uXXXX`), and the numbers.

>>> [(chr(b), in_string, escaped) for _, b, in_string, escaped in string_bytes(b'"\\\\"')]
[('"', False, False), ('\\\\', True, False), ('"', True, True)]
>>> respelled(b'["a\\\\/\\x7f", "\\\\udc00"]')
b'["a/\\\\u007f", "\\\\u1c00"]'
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, TypeVar

from refimpl import Grammar

from ..divergence import Divergence

T = TypeVar("T", int, str)


def string_bytes(text: bytes) -> Iterator[Tuple[int, int, bool, bool]]:
    """Scan JSON text: (position, byte, in_string, escaped) for each byte, where `escaped`
    marks the byte after a backslash inside a string (`in_string` is the state before the
    byte: true on a string's closing quote, false on its opening one)."""
    return _scan(text, 0x5C, 0x22)


def string_chars(text: str) -> Iterator[Tuple[int, str, bool, bool]]:
    """`string_bytes` over the characters of a str."""
    return _scan(text, "\\", '"')


def _scan(text: Sequence[T], backslash: T, quote: T) -> Iterator[Tuple[int, T, bool, bool]]:
    in_string = escaped = False
    for i, b in enumerate(text):
        yield i, b, in_string, escaped
        if escaped:
            escaped = False
        elif in_string and b == backslash:
            escaped = True
        elif b == quote:
            in_string = not in_string


def open_string(text: bytes) -> Optional[int]:
    """Where the content of the JSON string the text ends inside begins (just after its
    opening quote); None if the text does not end inside a string.

    >>> open_string(b'{"a": "b'), open_string(b'{"a": "b"'), open_string(b'["\\\\"')
    (7, None, 2)
    """
    start: Optional[int] = None
    for i, b, in_string, escaped in string_bytes(text):
        if b == 0x22 and not escaped:
            start = None if in_string else i + 1
    return start


def string_so_far(text: bytes) -> Optional[str]:
    r"""The string the JSON text ends inside, as written so far (escapes not decoded); None
    outside a string, or where what is written is not UTF-8.

    >>> string_so_far(b'{"a\\n'), string_so_far(b'{"a": 1'), string_so_far(b'"\xc3')
    ('a\\n', None, None)
    """
    start = open_string(text)
    if start is None:
        return None
    try:
        return text[start:].decode("utf-8")
    except UnicodeDecodeError:
        return None


def controls_next(so_far: str, words: Iterable[str]) -> Set[str]:
    r"""The control characters (U+0000-U+001F) that come right after `so_far` in the words
    beginning with it: what a peer that writes those words raw, unescaped, offers next.

    >>> sorted(controls_next("ab", ["ab\ncd", "ab\t", "abc", "x\n"]))
    ['\t', '\n']
    """
    n = len(so_far)
    return {w[n] for w in words if len(w) > n and w.startswith(so_far) and w[n] < " "}


def in_key(text: bytes) -> bool:
    """Does the JSON text end inside an object key (a string opened after `{` or `,`, its
    innermost container an object)?

    >>> in_key(b'{"a": 1, "b'), in_key(b'{"a": "b'), in_key(b'["a')
    (True, False, False)
    """
    start = open_string(text)
    if start is None:
        return False
    containers: List[int] = []
    for _, b, in_string, _ in string_bytes(text[:start - 1]):
        if not in_string and b in b"{[":
            containers.append(b)
        elif not in_string and b in b"}]" and containers:
            containers.pop()
    return containers[-1:] == [ord("{")] and text[:start - 1].rstrip()[-1:] in (b"{", b",")


def puts(text: bytes, token: bytes, wanted: Callable[[int, bool, bool], bool]) -> bool:
    """Does the token, written after the text, write a byte `wanted(byte, in_string,
    escaped)` holds for?"""
    return any(i >= len(text) and wanted(b, in_string, escaped)
               for i, b, in_string, escaped in string_bytes(text + token))


def escape_in_string(b: int, in_string: bool, escaped: bool) -> bool:
    """A byte of an escape inside a string (for `puts`)."""
    return in_string and (escaped or b == 0x5C)


#: JSON's whitespace: space, tab, newline, carriage return (RFC 8259 §2)
JSON_WHITESPACE = b" \t\n\r"


def whitespace_between_tokens(b: int, in_string: bool, escaped: bool) -> bool:
    """JSON whitespace outside strings (for `puts`).

    >>> puts(b'{"a":', b' "b\tc"', whitespace_between_tokens), puts(b'{"a": "', b'b\tc', whitespace_between_tokens)
    (True, False)
    """
    return not in_string and b in JSON_WHITESPACE


def raw_control_in_string(b: int, in_string: bool, escaped: bool) -> bool:
    """A raw control character U+0000-U+001F inside a string (for `puts`)."""
    return in_string and not escaped and b < 0x20


_SIMPLE_ESCAPES = {ord('"'): '"', ord("\\"): "\\", ord("/"): "/", ord("b"): "\b", ord("f"): "\f",
                   ord("n"): "\n", ord("r"): "\r", ord("t"): "\t"}


def decoded_chars(data: bytes) -> List[Tuple[str, int]]:
    r"""The characters of the JSON strings in `data`, decoded, each with the offset just
    past its text (a character whose text is not complete is left out).

    >>> decoded_chars(b'"a\\r' + "\u2028".encode() + b'\\u0041')
    [('a', 2), ('\r', 4), ('\u2028', 7), ('A', 13)]
    >>> decoded_chars(b'"\\u00') + decoded_chars(b'"\xe2\x80')
    []
    """
    out: List[Tuple[str, int]] = []
    in_string, i = False, 0
    while i < len(data):
        c = data[i]
        if not in_string:
            in_string, i = c == 0x22, i + 1
        elif c == 0x22:
            in_string, i = False, i + 1
        elif c == 0x5C:
            e = data[i + 1] if i + 1 < len(data) else None
            if e in _SIMPLE_ESCAPES:
                out.append((_SIMPLE_ESCAPES[e], i + 2))
                i += 2
            elif e == ord("u") and i + 6 <= len(data):
                try:
                    out.append((chr(int(data[i + 2:i + 6].decode("ascii"), 16)), i + 6))
                except ValueError:
                    pass
                i += 6
            else:
                break
        else:
            n = 1 if c < 0x80 else 2 if c < 0xE0 else 3 if c < 0xF0 else 4
            try:
                out.append((data[i:i + n].decode("utf-8"), i + n))
            except UnicodeDecodeError:
                pass
            i += n
    return out


def respelled(text: bytes) -> bytes:
    """text with the spellings in strings that maskref's default JSON refuses replaced by
    ones it takes (with general `\\\\uXXXX` escapes on): a raw DEL by `\\\\u007f`, the
    escape `\\\\/` by `/`, a surrogate's `\\\\uD...` by `\\\\u1...` (a character outside the
    surrogates, so that unpaired ones pass)."""
    out = bytearray()
    after_u = False
    for _, b, in_string, escaped in string_bytes(text):
        if in_string and not escaped and b == 0x7F:
            out += b"\\u007f"
        elif escaped and b == 0x2F:  # `\\/`: replace the backslash already written
            out[-1] = 0x2F
        elif after_u and b in b"dD":
            out.append(0x31)
        else:
            out.append(b)
        after_u = escaped and b == 0x75
    return bytes(out)


def respelling_explains(d: Divergence, general: Grammar, read: Any = None) -> bool:
    """Only the peer allows the differing tokens, and `general` (the peer's reading of the
    schema with general `\\\\uXXXX` escapes on) allows each once respelled. `read` maps the
    text so far plus a token to the bytes the peer sees (default: as they are)."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_refimpl or not d.only_engine:
        return False
    from refimpl.recognition.recognizer import Recognizer

    text = d.text()
    for t in d.only_engine:
        data = text + d.vocab.tokens[t] if read is None else read(text, d.vocab.tokens[t])
        if data is None or not Recognizer(general.compiled, general.limits).consume_bytes(respelled(data)):
            return False
    return True


_NUMBER = b"0123456789.eE+-"


def number_at(data: bytes, at: int) -> bytes:
    """The run of number characters around position `at`."""
    lo = at
    while lo > 0 and data[lo - 1] in _NUMBER:
        lo -= 1
    hi = at
    while hi < len(data) and data[hi] in _NUMBER:
        hi += 1
    return data[lo:hi]


def fraction_digits(number: bytes) -> int:
    """How many digits follow the number's decimal point."""
    if b"." not in number:
        return 0
    fraction = number.split(b".", 1)[1]
    for i, b in enumerate(fraction):
        if not 0x30 <= b <= 0x39:
            return i
    return len(fraction)
