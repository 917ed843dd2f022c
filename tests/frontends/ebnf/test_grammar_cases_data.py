"""The shape of tests/data/grammar_cases.json (GBNF, xgrammar-EBNF and KBNF cases).

The file is made by tools/extract_grammar_cases.py from the engines' own test sources
(see tests/data/README.md). These tests check the data file itself, not any frontend:
every entry is well formed, names a listed source, and says something that can be
checked (a case has at least one string; its string lists do not contradict each other).
"""
from __future__ import annotations

import fnmatch
import json
import os
import re
from collections import Counter

import pytest

from tests.support.paths import TESTS

HERE = str(TESTS)
CASES_FILE = os.path.join(HERE, "data", "grammar_cases.json")

with open(CASES_FILE, encoding="utf-8") as _f:
    DATA = json.load(_f)
META = DATA["meta"]
CASES = DATA["cases"]
COMPILE_CASES = DATA["compile_cases"]

FORMATS = {"gbnf", "xgrammar", "kbnf"}
LICENSES = {"MIT", "Apache-2.0", "MIT OR Apache-2.0"}
REPOS = {"gbnf": {"ggml-org/llama.cpp"}, "xgrammar": {"mlc-ai/xgrammar"},
         "kbnf": {"Dan-wanna-M/kbnf", "Dan-wanna-M/kbnf-syntax"}}
STRING_KINDS = ("passing", "failing", "prefix_only", "prefixes", "not_prefixes")
CASE_KEYS = {"format", "source", "commit", "grammar", "root", "features", "passing", "failing"}
OPTIONAL_CASE_KEYS = {"prefix_only", "prefixes", "not_prefixes", "token_inputs", "note"}
COMPILE_KEYS = {"format", "source", "commit", "grammar", "root", "stage", "should_compile", "error_contains", "features"}
OPTIONAL_COMPILE_KEYS = {"error_is_regex", "note"}
STAGES = {"parse", "init", "validate", "from_ebnf", "compile_grammar", "engine", "example"}
FEATURES = {
    "gbnf": {"token", "repetition-range", "any-char"},
    "xgrammar": {"lookahead", "repetition-range", "rule-options", "macro"},
    "kbnf": {"regex", "early-end-regex", "regex-complement", "substrings", "except", "any"},
}
SOURCE = re.compile(r"(?P<path>[^:]+):(?P<line>\d+) \((?P<test>.*)\)")


def _listed(entry: dict) -> bool:
    """The entry's file and commit are among meta.sources, for a repository of its format."""
    path = SOURCE.fullmatch(entry["source"])
    path_text = path.group("path") if path else entry["source"]
    return any(s["commit"] == entry["commit"] and s["repo"] in REPOS[entry["format"]]
               and fnmatch.fnmatchcase(path_text, s["path"]) for s in META["sources"])


def _ids(entries: list) -> list:
    return [f"{i}-{e['format']}-{e['source']}" for i, e in enumerate(entries)]


def test_meta_lists_sources_with_commit_and_license() -> None:
    assert META["generated_by"] == "tools/extract_grammar_cases.py"
    assert {s["repo"] for s in META["sources"]} == set().union(*REPOS.values())
    for source in META["sources"]:
        assert set(source) == {"repo", "commit", "path", "license"}
        assert re.fullmatch(r"[0-9a-f]{40}", source["commit"]), source
        assert source["license"] in LICENSES, source
    assert all(isinstance(n, int) and n > 0 for n in META["skipped"].values())


def test_every_format_has_cases_and_compile_cases() -> None:
    """Enough of each format for the frontends' tests to say something."""
    cases = Counter(c["format"] for c in CASES)
    compile_cases = Counter((c["format"], c["should_compile"]) for c in COMPILE_CASES)
    assert cases["gbnf"] >= 10 and cases["kbnf"] >= 10 and cases["xgrammar"] >= 100, cases
    for fmt in FORMATS:
        assert compile_cases[fmt, True] >= 5 and compile_cases[fmt, False] >= 5, compile_cases
    strings = sum(len(c.get(k, ())) for c in CASES for k in STRING_KINDS)
    assert strings >= 1000


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_case_shape(case: dict) -> None:
    assert CASE_KEYS <= set(case) <= CASE_KEYS | OPTIONAL_CASE_KEYS
    assert case["format"] in FORMATS
    assert isinstance(case["grammar"], str) and case["grammar"].strip()
    assert isinstance(case["root"], str) and case["root"]
    assert SOURCE.fullmatch(case["source"]), case["source"]
    assert _listed(case), (case["source"], case["commit"])
    assert set(case["features"]) <= FEATURES[case["format"]]
    assert sum(len(case.get(k, ())) for k in STRING_KINDS) >= 1, "a case says something"
    for kind in STRING_KINDS[2:]:
        assert case.get(kind, [None]) != [], f"an optional list is left out when empty: {kind}"


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_case_strings(case: dict) -> None:
    """Strings are text (or, with token_inputs, lists of text and token ids), each listed
    once, and the lists agree: nothing both in and out of the language, nothing both a
    prefix and not a prefix."""
    tokens = case.get("token_inputs", False)
    seen = []
    for kind in STRING_KINDS:
        for s in case.get(kind, ()):
            if tokens:
                assert isinstance(s, list) and s, s
                assert all(isinstance(p, str) and p or isinstance(p, int) and p >= 0 for p in s), s
            else:
                assert isinstance(s, str), s
            assert s not in seen, f"{s!r} listed twice"
            seen.append(s)
    in_language = case["passing"]
    positive = in_language + case.get("prefix_only", []) + case.get("prefixes", [])
    assert not any(s in in_language for s in case["failing"])
    assert not any(s in positive for s in case.get("not_prefixes", []))
    if tokens:
        assert case["format"] == "gbnf" and "token" in case["features"]


@pytest.mark.parametrize("entry", COMPILE_CASES, ids=_ids(COMPILE_CASES))
def test_compile_case_shape(entry: dict) -> None:
    assert COMPILE_KEYS <= set(entry) <= COMPILE_KEYS | OPTIONAL_COMPILE_KEYS
    assert entry["format"] in FORMATS
    assert isinstance(entry["grammar"], str) and entry["grammar"]
    assert entry["root"] is None or isinstance(entry["root"], str) and entry["root"]
    assert entry["stage"] in STAGES
    assert isinstance(entry["should_compile"], bool)
    assert _listed(entry), (entry["source"], entry["commit"])
    assert set(entry["features"]) <= FEATURES[entry["format"]]
    error = entry["error_contains"]
    assert error is None or isinstance(error, str) and error
    if error is not None:
        assert not entry["should_compile"], "only a rejected grammar has an error text"
    if entry.get("error_is_regex"):
        assert entry["format"] == "xgrammar" and error is not None
        re.compile(error)


def test_compile_cases_do_not_repeat_cases() -> None:
    """A grammar with strings is known to compile; it is not listed again as such, and no
    grammar both compiles and fails at the same stage."""
    with_strings = {(c["format"], c["grammar"], c["root"]) for c in CASES}
    passing = [(c["format"], c["grammar"], c["root"]) for c in COMPILE_CASES if c["should_compile"]]
    assert not with_strings & set(passing)
    assert len(passing) == len(set(passing))
    outcomes = Counter((c["format"], c["grammar"], c["root"], c["stage"], c.get("note")) for c in COMPILE_CASES)
    assert max(outcomes.values()) == 1


def test_legacy_kbnf_entries_are_marked() -> None:
    """kbnf's `except!` exists only in the legacy dialect: every entry using it carries the
    note, and the legacy sources are the ones at the older commits."""
    legacy_commits = {"aea93b1469c1a4df5acf2865df0a64ea4885bd86", "01c13398e34b0756837d6417a047f39c2b2e888e"}
    for entry in CASES + COMPILE_CASES:
        if entry["format"] != "kbnf":
            continue
        assert ("note" in entry) == (entry["commit"] in legacy_commits), entry["source"]
        if "except" in entry["features"] and entry.get("should_compile", True):
            assert "note" in entry, entry["source"]
