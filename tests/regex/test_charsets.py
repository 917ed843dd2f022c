"""The class algebras of refimpl/regex/charsets.py against Python sets, and the two
modes against each other: on ASCII, a set of code points and a set of bytes are the same."""
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.regex import unicode as uni
from refimpl.regex.charsets import ASCII_CLASSES, ByteMasks, CodePointSets, dot, mask_of, perl_class
from refimpl.regex.exprs import ALL_BYTES
from refimpl.regex.flags import Flags
from tests.support.budget import examples

OPS = {"&&": set.__and__, "--": set.__sub__, "~~": set.__xor__}


def members(mask: int) -> set:
    return {b for b in range(256) if mask >> b & 1}


def code_points(ranges) -> set:
    return {cp for lo, hi in ranges for cp in range(lo, hi + 1)}


ascii_ranges = st.lists(st.tuples(st.integers(0, 127), st.integers(0, 127)).map(sorted).map(tuple),
                        min_size=1, max_size=4)


@settings(max_examples=examples(300))
@given(ascii_ranges, ascii_ranges, st.sampled_from(sorted(OPS)))
def test_both_algebras_are_set_algebra_and_agree_on_ascii(a, b, op):
    expected_a = set().union(*(range(lo, hi + 1) for lo, hi in a))
    expected_b = set().union(*(range(lo, hi + 1) for lo, hi in b))
    sets_a = [CodePointSets.single(lo, hi) for lo, hi in a]
    masks_a = [ByteMasks.single(lo, hi) for lo, hi in a]
    assert code_points(CodePointSets.union(sets_a)) == members(ByteMasks.union(masks_a)) == expected_a
    cp = CodePointSets.combine(op, CodePointSets.union(sets_a), uni.normalize(b))
    by = ByteMasks.combine(op, ByteMasks.union(masks_a), mask_of(uni.normalize(b)))
    assert code_points(cp) == members(by) == OPS[op](expected_a, expected_b)
    folded = ByteMasks.fold(by)  # ASCII folding: the Unicode fold restricted to ASCII
    assert members(folded) == {c for c in code_points(CodePointSets.fold(cp)) if c < 128}
    assert members(ByteMasks.negate(by)) == set(range(256)) - members(by)
    negated = CodePointSets.negate(cp)
    assert {c for c in range(128) if uni.contains(negated, c)} == set(range(128)) - code_points(cp)


def test_byte_mode_folds_ascii_only():
    assert members(ByteMasks.fold(mask_of(((0x41, 0x43), (0xC0, 0xC0))))) == {0x41, 0x42, 0x43, 0x61, 0x62, 0x63, 0xC0}
    assert code_points(CodePointSets.fold(((0xE9, 0xE9),))) == {0xC9, 0xE9}


@pytest.mark.parametrize("name", sorted(ASCII_CLASSES))
def test_ascii_classes_are_the_same_in_both_modes(name):
    ranges = ASCII_CLASSES[name]
    assert uni.normalize(ranges) == CodePointSets.ascii(ranges)
    assert members(ByteMasks.ascii(ranges)) == code_points(ranges) <= set(range(128))


@pytest.mark.parametrize("letter", "dswDSW")
def test_perl_classes(letter):
    base = {"d": "digit", "s": "space", "w": "word"}[letter.lower()]
    ascii_set = code_points(ASCII_CLASSES[base])
    in_bytes = members(perl_class(letter, False))
    unicode_set = perl_class(letter, True)
    if letter.islower():
        assert in_bytes == ascii_set  # byte mode: ASCII only
        assert all(uni.contains(unicode_set, c) for c in ascii_set)
    else:
        assert in_bytes == set(range(256)) - ascii_set
        assert unicode_set == uni.negate(perl_class(letter.lower(), True))
    assert uni.contains(perl_class("w", True), ord("é")) and not uni.contains(perl_class("d", True), ord("a"))


@pytest.mark.parametrize("unicode,dot_all,crlf", list(itertools.product([True, False], repeat=3)))
def test_dot_is_everything_but_the_line_ends_it_excludes(unicode, dot_all, crlf):
    s = dot(Flags(unicode=unicode, dot_all=dot_all, crlf=crlf))
    excluded = set() if dot_all else {0x0A, 0x0D} if crlf else {0x0A}
    if unicode:
        assert s == uni.negate(tuple((c, c) for c in sorted(excluded)))
        assert uni.contains(s, 0x10FFFF) and not uni.contains(s, 0xD800)
    else:
        assert s == ALL_BYTES ^ sum(1 << c for c in excluded)
