"""The Rust `regex` crate's own test data, as full-match cases.

tests/data/rust-regex/cases.json is made from the crate's TOML test files by
tests/data/rust-regex/convert.py (see its docstring: which search tests say something
sound about a full match, and what the expected answer then is). Each case must

* agree: Regex(regex).matches(haystack) equals the expected answer, or the regex fails
  to compile when the crate's test says `compiles = false`; or
* be rejected with RegexError for a feature the full-match dialect leaves out on
  purpose (word boundaries, anchors away from the ends: REJECTABLE), which the regex
  visibly uses (convert.py records each regex's features); or
* be listed in EXPECTED_DIFFERENCES with the reason. An entry there that starts
  agreeing fails the test, so the list stays honest.

test_summary checks the totals (see its docstring).
"""
from __future__ import annotations

import json
import os

import pytest

from refimpl.errors import RegexError
from refimpl.regex import Regex
from tests.support.paths import TESTS

HERE = str(TESTS)
CASES_FILE = os.path.join(HERE, "data", "rust-regex", "cases.json")

with open(CASES_FILE, encoding="utf-8") as _f:
    DATA = json.load(_f)
CASES = DATA["cases"]

# feature (as convert.py names it) -> a word the RegexError message must contain
REJECTABLE = {
    "word-boundary": "word boundar",
    "inner-anchor": "anchor",
}

_SEGMENTATION = (
    "unicode.py has no Grapheme_Cluster_Break / Word_Break / Sentence_Break tables; "
    "Rust's regex-syntax (and so llguidance) accepts these properties"
)
EXPECTED_DIFFERENCES = {
    "unicode.toml/class-gcb1": _SEGMENTATION,
    "unicode.toml/class-gcb2": _SEGMENTATION,
    "unicode.toml/class-gcb3": _SEGMENTATION,
    "unicode.toml/class-gcb5": _SEGMENTATION,
    "unicode.toml/class-gcb6": _SEGMENTATION,
    "unicode.toml/class-word-break1": _SEGMENTATION,
    "unicode.toml/class-word-break2": _SEGMENTATION,
    "unicode.toml/class-word-break3": _SEGMENTATION,
    "unicode.toml/class-word-break4": _SEGMENTATION,
    "unicode.toml/class-word-break5": _SEGMENTATION,
    "unicode.toml/class-sentence-break1": _SEGMENTATION,
    "unicode.toml/class-sentence-break2": _SEGMENTATION,
    "unicode.toml/class-sentence-break3": _SEGMENTATION,
    "unicode.toml/class-sentence-break4": _SEGMENTATION,
    "unicode.toml/class-sentence-break5": _SEGMENTATION,
}


def key(case):
    return "%s/%s" % (case["file"], case["name"])


def haystack(case):
    if "haystack_hex" in case:
        return bytes.fromhex(case["haystack_hex"])
    return case["haystack"].encode("utf-8")


_OUTCOMES = {}


def outcome(case):
    """("agree" | "rejected" | "differ", detail), computed once per case."""
    k = key(case)
    if k not in _OUTCOMES:
        _OUTCOMES[k] = _outcome(case)
    return _OUTCOMES[k]


def _outcome(case):
    expected = case["expected"]
    try:
        regex = Regex(case["regex"])
    except RegexError as e:
        if expected == "error":
            return "agree", "rejected, as the crate does"
        return "rejected", e.message
    if expected == "error":
        return "differ", "compiles, but the crate rejects it"
    got = regex.matches(haystack(case))
    if got == expected:
        return "agree", ""
    return "differ", "full match of %r is %s, expected %s" % (haystack(case), got, expected)


def allowed_rejection(case, message):
    return any(
        feature in REJECTABLE and REJECTABLE[feature] in message.lower()
        for feature in case["features"]
    )


@pytest.mark.parametrize("case", [pytest.param(c, id=key(c)) for c in CASES])
def test_case(case):
    k = key(case)
    result, detail = outcome(case)
    where = "%s: regex %r, haystack %r" % (k, case["regex"], haystack(case))
    if k in EXPECTED_DIFFERENCES:
        assert result != "agree", (
            "%s now agrees with the Rust regex crate: remove it from EXPECTED_DIFFERENCES "
            "(reason given: %s)" % (where, EXPECTED_DIFFERENCES[k])
        )
        return
    if result == "rejected":
        assert allowed_rejection(case, detail), "%s: rejected (%s); features %s" % (
            where, detail, case["features"],
        )
        return
    assert result == "agree", "%s: %s" % (where, detail)


def test_expected_differences_exist():
    keys = {key(c) for c in CASES}
    missing = sorted(set(EXPECTED_DIFFERENCES) - keys)
    assert not missing, "EXPECTED_DIFFERENCES names cases not in cases.json: %s" % missing


def test_summary():
    """Totals: many cases really checked; rejections only for REJECTABLE features.

    kept = every case in cases.json; checked = the engine compiled the regex and its answer
    was compared (plus `compiles = false` cases it rejected); rejected = RegexError for a
    REJECTABLE feature; differences = EXPECTED_DIFFERENCES.
    """
    counts = {"kept": len(CASES), "checked": 0, "agree": 0, "rejected": 0, "differences": 0}
    for case in CASES:
        result, detail = outcome(case)
        if key(case) in EXPECTED_DIFFERENCES:
            counts["differences"] += 1
        elif result == "rejected":
            counts["rejected"] += allowed_rejection(case, detail)
        else:
            counts["checked"] += 1
            counts["agree"] += result == "agree"
    assert counts["checked"] > 300, counts
    assert counts["differences"] == len(EXPECTED_DIFFERENCES), counts
    assert counts["rejected"] < counts["checked"] // 2, counts
