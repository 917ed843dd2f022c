"""Flags (refimpl/regex/flags.py): `read_flags` against a model of Rust's rules, its
errors, and what each flag does to the tree the reader builds."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.errors import RegexError
from refimpl.regex.ast import dump
from refimpl.regex.flags import FLAG_LETTERS, Flags, read_flags
from refimpl.regex.reader import read_pattern
from tests.support.budget import examples
from tests.support.regex_strategies import assert_read_error

# (pattern, message substring, offset)
ERRORS = [
    ("(?i", "expected a flag", 3),
    ("(?)", "empty flag group", 2),
    ("(?)?", "empty flag group", 2),
    ("(?z)", "unrecognized flag 'z'", 2),
    ("(?#comment)", "comments (?#...) are not supported", 2),
    ("(?>a)", "atomic groups (?>...) are not supported", 2),
    ("(?1)", "recursion (?1) is not supported", 2),
    ("(?ii)", "duplicate flag 'i'", 3),
    ("(?i-i)", "duplicate flag 'i'", 4),
    ("(?--i)", "flag negation operator '-' repeated", 3),
    ("(?i-)", "dangling flag negation operator", 3),
]


@pytest.mark.parametrize("pattern,message,offset", ERRORS)
def test_error_table(pattern, message, offset):
    assert_read_error(pattern, message, offset)


def _model(text: str, flags: Flags) -> Flags:
    """Rust's reading of a valid flag text: letters before '-' set, after it cleared."""
    names = dict(zip(FLAG_LETTERS, Flags._fields))
    on = "-" not in text
    values = flags._asdict()
    for c in text:
        if c == "-":
            on = False
        else:
            values[names[c]] = on
    return Flags(**values)


@settings(max_examples=examples(300))
@given(st.text(alphabet=FLAG_LETTERS + "-", max_size=6), st.sampled_from(":)"),
       st.builds(Flags, *[st.booleans()] * 7))
def test_read_flags_against_the_model(text, end, flags):
    pattern = "(?" + text + end + "a)"
    letters = text.replace("-", "")
    valid = text.count("-") <= 1 and len(set(letters)) == len(letters) and not text.endswith("-")
    if not valid:
        with pytest.raises(RegexError):
            read_flags(pattern, 2, flags)
        return
    got, at = read_flags(pattern, 2, flags)
    assert at == 2 + len(text) and pattern[at] == end
    assert got == _model(text, flags)


@pytest.mark.parametrize("pattern,expected", [
    ("(?i)a(?-i)b", "(concat i'a' 'b')"),
    ("(?i:a)b", "(concat i'a' 'b')"),
    ("a(?i)b|c", "(alt (concat 'a' i'b') i'c')"),  # flags last to the end of the group
    ("(?x) a b # comment\n c", "(concat 'a' 'b' 'c')"),
    ("(?m)^(a)$", "(concat ^ 'a' $)"),             # m: no effect at the pattern's ends
    ("(?U)a*", "(repeat 0 inf 'a')"),              # U: no effect on the language
    ("(?-u:\\xFF)a", "(concat \\xFF 'a')"),        # byte mode ends with its group
    ("(?i-u)k", "bytes[\\x4B\\x6B]"),
    ("(?-u)(?i)é", "'\\u{E9}'"),                   # byte mode folds ASCII only
    ("(?R).", "[^\\u{A}\\u{D}]"),
    ("(?s).", "any"),
    ("(?-u:(?s).)", "bytes[\\x00-\\xFF]"),
])
def test_flags_are_resolved_into_the_tree(pattern, expected):
    assert dump(read_pattern(pattern)) == expected
