"""X14: xgrammar's automaton of a `Regex` macro (a JSON schema's pattern) written back as a
regex (conformance/peers/xgrammar/regex_fsm.py): its optional groups read as xgrammar
0.2.9 reads them (each case checked against it; see docs/findings.md), other patterns
left as they are. refimpl matches them (these patterns mean the same in ECMA-262's syntax
and Rust's; a backtracking matcher would take exponential time on the readings' nested
stars). Where xgrammar is installed, the reading is compared with it on seeded random
patterns."""
import itertools
import json
import random

import pytest

from conformance.divergence import compiled
from conformance.peers.xgrammar.regex_fsm import optional_groups, read_regex
from conformance.vectors import GrammarSpec
from refimpl.recognition.recognizer import Recognizer


def fullmatch(regex, text):
    """Does the regex (anchored at both ends or not: the whole text is matched) take the text?"""
    if regex.startswith("^") and regex.endswith("$"):
        regex = regex[1:-1]
    g = compiled(GrammarSpec("regex", regex))
    r = Recognizer(g.compiled, g.limits)
    return r.consume_bytes(text.encode()) and r.is_accepting()

STRINGS = [""] + ["".join(p) for n in range(1, 5) for p in itertools.product("abc/", repeat=n)]

# a pattern, strings xgrammar 0.2.9 accepts though the pattern does not, strings both refuse
CASES = [
    ("^a(b+c)?$", ["ab", "abb"], ["ac", "abcc", "abcb"]),  # the start of b+ is the group's start
    ("^a(?:b*c)?$", ["ab", "abb"], ["acc"]),
    ("^a(bc*)?$", ["ac", "acc"], ["b"]),  # the end of c* is the group's first final state
    ("^/(a+(/a*)*)?$", ["//", "//a", "///"], ["/b"]),
    ("^a(b+cd)?$", ["ab"], ["abc"]),
    ("^x(ba{0,3})?$", ["xa", "xaa"], ["xaaa"]),  # from the first copy that may end: two more
    ("^x(ba{2,3})?$", ["xa"], ["xaa"]),
    ("^x(ba{1,})?$", ["xa", "xaa", "xaaa"], ["xb"]),
    ("^(ac+|){2,}$", ["c", "cc", "cac"], ["a", "ca"]),  # {m,}'s copy loops back into the tail of `c+`
]


@pytest.mark.parametrize("pattern, more, neither", CASES)
def test_optional_groups_as_xgrammar_reads_them(pattern, more, neither):
    reading = optional_groups(pattern)
    assert reading is not None and reading != pattern
    for s in STRINGS:  # every string the pattern takes, the reading takes
        if fullmatch(pattern, s):
            assert fullmatch(reading, s), s
    assert all(fullmatch(reading, s) for s in more)
    assert not any(fullmatch(pattern, s) for s in more)
    assert not any(fullmatch(reading, s) for s in neither)


@pytest.mark.parametrize("pattern", ["^a(bc)?$", "^a(b+c){0,1}$", "^a(b*c|d)?$", "^(/[^/ ]+)+/?$", "^[0-7]{3,4}$",
                                     "^a(b|c+)?$"])
def test_patterns_read_as_written(pattern):
    """No `?` over a loop at its group's ends (an alternation has a fresh start, `{0,1}` too):
    the pattern itself."""
    assert optional_groups(pattern) == pattern


def test_a_reading_may_say_the_same():
    """`(\\.\\d+)?` after `\\d+` takes more digits (the tail of `\\d+`), which `\\d+` took already."""
    pattern = "^\\d+(\\.\\d+)?$"
    reading = optional_groups(pattern)
    assert reading != pattern
    strings = ["".join(p) for n in range(1, 5) for p in itertools.product("1.a", repeat=n)]
    assert [s for s in strings if fullmatch(reading, s)] == [s for s in strings if fullmatch(pattern, s)]


@pytest.mark.parametrize("pattern", ["^a$|^b$", "a(?=b)", "(?i)ab", "a{x}", "[]a", "a(b"])
def test_patterns_not_read(pattern):
    """What is not modelled: an anchor in the middle, a lookahead, a flag, a `{` that is no
    repetition, an empty class, an unclosed group."""
    assert optional_groups(pattern) is None


def test_the_reading_of_a_part():
    part = read_regex("^a(b+c)?$")
    assert part is not None and part.leaks and part.loops is None


def _random_pattern(rng, depth=0):
    r = rng.random()
    if depth > 2 or r < 0.35:
        s = rng.choice("abc")
    elif r < 0.6:
        s = "(" + "".join(_random_pattern(rng, depth + 1) for _ in range(rng.randint(1, 3))) + ")"
    elif r < 0.75:
        s = "(" + "|".join("".join(_random_pattern(rng, depth + 1) for _ in range(rng.randint(0, 2)))
                           for _ in range(rng.randint(2, 3))) + ")"
    else:
        s = "(?:" + _random_pattern(rng, depth + 1) + _random_pattern(rng, depth + 1) + ")"
    q = rng.random()
    if q < 0.2:
        s += "?"
    elif q < 0.35:
        s += "+"
    elif q < 0.5:
        s += "*"
    elif q < 0.6:
        s += rng.choice(["{0,1}", "{1,2}", "{0,2}", "{2}", "{0,}", "{1,}", "{2,}", "??", "+?"])
    return s


def test_against_xgrammar():
    """On 60 seeded random patterns over a, b, c (groups, alternations, `+ * ?`, `{m,n}`,
    `{m,}`, lazy quantifiers), the reading takes exactly the strings of up to 4 characters
    xgrammar's JSON-schema pattern takes."""
    xgr = pytest.importorskip("xgrammar")
    from xgrammar.testing import _is_grammar_accept_string as accepts

    rng = random.Random(7)
    strings = [""] + ["".join(p) for n in range(1, 5) for p in itertools.product("abc", repeat=n)]
    differing = 0
    for _ in range(60):
        pattern = "^" + "".join(_random_pattern(rng) for _ in range(rng.randint(1, 3))) + "$"
        reading = optional_groups(pattern)
        assert reading is not None, pattern
        grammar = xgr.Grammar.from_json_schema(json.dumps({"type": "string", "pattern": pattern}), strict_mode=False)
        theirs = {s for s in strings if accepts(grammar, json.dumps(s))}
        assert theirs == {s for s in strings if fullmatch(reading, s)}, pattern
        differing += theirs != {s for s in strings if fullmatch(pattern, s)}
    assert differing > 0  # some of them show the bug
