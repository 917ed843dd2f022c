"""Escape sequences (refimpl/regex/escapes.py): what each reads as, and the errors."""
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.regex import unicode as uni
from refimpl.regex.ast import ByteLiteral, Class, Literal, dump
from refimpl.regex.escapes import EscapeReader
from refimpl.regex.reader import read_pattern
from tests.support.budget import examples
from tests.support.regex_strategies import assert_read_error

# (pattern, message substring, offset)
ERRORS = [
    ("\\q", "invalid escape \\q", 0),
    ("ab\\e", "invalid escape \\e", 2),
    ("\\Z", "use \\z", 0),
    ("a\\", "incomplete escape sequence", 1),
    ("\\0", "octal escapes are not supported", 0),
    ("\\x", "incomplete escape sequence \\x", 2),
    ("\\xG0", "invalid hexadecimal digit 'G'", 2),
    ("\\x{}", "hexadecimal literal empty", 2),
    ("\\x{41", "unclosed hexadecimal escape", 2),
    ("\\x{110000}", "not a Unicode scalar value", 3),
    ("\\u{D800}", "is a surrogate", 3),
    ("\\uDFFF", "is a surrogate", 2),
    ("\\u12", "expected 4 hexadecimal digits", 4),
    ("(a)\\1", "backreferences are not supported", 3),
    ("(?<n>a)\\k<n>", "backreferences are not supported", 7),
    ("\\bword\\b", "word boundaries (\\b) are not supported", 0),
    ("a\\B", "word boundaries (\\B) are not supported", 1),
    ("\\<a", "word boundaries (\\<) are not supported", 0),
    ("[\\b]", "word boundaries (\\b) are not supported", 1),
    ("[\\A]", "anchors cannot appear there", 1),
    # Unicode classes
    ("\\p{Foo}", "unknown Unicode property 'Foo'", 3),
    ("a\\P{Klingon}", "unknown Unicode property 'Klingon'", 4),
    ("\\p{Script=Foo}", "unknown Unicode property value 'Foo'", 3),
    ("\\pQ", "unknown Unicode property 'Q'", 2),
    ("\\p{Greek", "unclosed Unicode class name", 2),
    ("\\p{}", "empty Unicode class name", 2),
    ("(?-u)\\p{L}", "not allowed in byte mode", 5),
]


@pytest.mark.parametrize("pattern,message,offset", ERRORS)
def test_error_table(pattern, message, offset):
    assert_read_error(pattern, message, offset)


@pytest.mark.parametrize("pattern,expected", [
    ("\\x41\\u0042\\U00000043\\x{44}\\u{45}", "(concat 'A' 'B' 'C' 'D' 'E')"),
    ("\\a\\f\\t\\n\\r\\v", "(concat '\\u{7}' '\\u{C}' '\\u{9}' '\\u{A}' '\\u{D}' '\\u{B}')"),
    ("\\%\\/\\&\\~\\-\\#\\ ", "(concat '%' '/' '&' '~' '-' '#' '\\u{20}')"),
    ("(?-u)\\d\\W", "(concat bytes[\\x30-\\x39] bytes[\\x00-\\x2F\\x3A-\\x40\\x5B-\\x5E\\x60"
                    "\\x7B-\\xFF])"),
    ("\\Aa\\z", "(concat \\A 'a' \\z)"),
    ("\\p{Greek}", "[%s]" % "".join(
        ("\\u{%X}" % lo if lo == hi else "\\u{%X}-\\u{%X}" % (lo, hi))
        for lo, hi in uni.property_ranges("Greek"))),
])
def test_escapes_read_as(pattern, expected):
    assert dump(read_pattern(pattern)) == expected


@pytest.mark.parametrize("c", [c for c in string.punctuation + " " if c not in "<>"])
def test_escaped_punctuation_is_itself(c):
    assert read_pattern("\\" + c) == Literal(ord(c))


@settings(max_examples=examples(300))
@given(st.integers(0, 0x10FFFF).filter(lambda cp: not 0xD800 <= cp <= 0xDFFF))
def test_hexadecimal_escapes_are_their_code_point(cp):
    forms = ["\\x{%x}" % cp, "\\u{%X}" % cp, "\\U%08X" % cp]
    if cp <= 0xFFFF:
        forms.append("\\u%04x" % cp)
    for text in forms:
        esc = EscapeReader(text).read_escape(0, in_class=False)
        assert (esc.kind, esc.cp, esc.end) == ("char", cp, len(text)), text
        assert read_pattern(text) == Literal(cp)


@pytest.mark.parametrize("byte", [0x00, 0x41, 0x7F, 0x80, 0xC3, 0xFF])
def test_two_digit_hex_is_a_raw_byte_in_byte_mode_only(byte):
    text = "\\x%02X" % byte
    assert read_pattern(text) == Literal(byte)
    assert read_pattern("(?-u)" + text) == (ByteLiteral(byte) if byte >= 0x80 else Literal(byte))
    assert read_pattern("(?-u)\\x{%X}" % byte) == Literal(byte)  # braces: a code point


def test_property_escapes():
    greek = uni.property_ranges("Greek")
    assert read_pattern("\\p{Greek}") == read_pattern("\\p{greek}") == Class(greek)
    assert read_pattern("\\P{Greek}") == read_pattern("\\p{Script!=Greek}") == Class(uni.negate(greek))
    assert read_pattern("\\p{sc:Greek}") == read_pattern("\\p{Script=Greek}") == Class(greek)
    assert read_pattern("\\pN") == Class(uni.property_ranges("N"))
    assert read_pattern("(?i)\\p{Lu}") == Class(uni.case_fold(uni.property_ranges("Lu")))
