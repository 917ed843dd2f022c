"""llama.cpp's own GBNF cases (tests/data/grammar_cases.json, extracted by
tools/extract_grammar_cases.py), replayed on maskref: every case agrees, or is a
deliberate difference listed here with its reason (docs/ebnf.md). xgrammar's and kbnf's
cases join when their dialects do (issue 14)."""
import json

import pytest

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.errors import GrammarError
from refimpl.frontends.ebnf.gbnf import read_rules
from refimpl.recognition.recognizer import Recognizer
from tests.support.paths import DATA

DATA = json.loads((DATA / "grammar_cases.json").read_text(encoding="utf-8"))
LEFT_RECURSION = "llama.cpp refuses left recursion; maskref's Earley parser accepts it (docs/ebnf.md)"

#: compile cases where maskref differs on purpose: source -> reason
DELIBERATE = {
    "tests/test-grammar-integration.cpp:836 (test_build_grammar_fails)": LEFT_RECURSION,
    "tests/test-grammar-integration.cpp:843 (test_build_grammar_fails)": LEFT_RECURSION,
    "tests/test-grammar-integration.cpp:850 (test_build_grammar_fails)": LEFT_RECURSION,
    "tests/test-grammar-integration.cpp:858 (test_build_grammar_fails)": LEFT_RECURSION,
}

#: for the cases whose inputs mix text and token ids: ids 10..29 are special tokens, and
#: text is read as one-byte tokens (ids 30 + byte), which the grammar reads by id where a
#: token element such as !<[11]> comes (docs/semantics.md, "Special tokens")
TOKENS = Vocabulary([b"<unused%d>" % i for i in range(10)] + [b"<|t%d|>" % i for i in range(10, 30)]
                    + [bytes([b]) for b in range(256)], special_token_ids=range(30))


def _cases(key, fmt):
    return [c for c in DATA[key] if c["format"] == fmt]


def _accepts(grammar, text):
    if isinstance(text, list):  # text pieces and token ids
        m = Matcher(grammar, TOKENS)
        ids = [t for x in text for t in ([x] if isinstance(x, int) else [30 + b for b in x.encode("utf-8")])]
        return m.consume_tokens(ids) and m.is_accepting()
    r = Recognizer(grammar.compiled)
    return r.consume_bytes(text.encode("utf-8")) and r.is_accepting()


@pytest.mark.parametrize("case", _cases("cases", "gbnf"), ids=lambda c: c["source"])
def test_llama_cpp_cases(case):
    g = Grammar.from_gbnf(case["grammar"], root=case["root"])
    for text in case["passing"]:
        assert _accepts(g, text), text
    for text in case["failing"]:  # llama.cpp's "failing": not a complete match
        assert not _accepts(g, text), text


@pytest.mark.parametrize("case", _cases("compile_cases", "gbnf"), ids=lambda c: "%s %s" % (c["source"], c["stage"]))
def test_llama_cpp_compile_cases(case):
    build = read_rules if case["stage"] == "parse" else Grammar.from_gbnf
    if case["source"] in DELIBERATE:
        g = build(case["grammar"])
        assert isinstance(g, Grammar) and _accepts(g, "a"), DELIBERATE[case["source"]]
    elif case["should_compile"]:
        build(case["grammar"])
    else:
        with pytest.raises(GrammarError):
            build(case["grammar"])


# -- xgrammar's EBNF ------------------------------------------------------------------------

#: what maskref refuses on purpose or does not take yet, by the start of its message
XGRAMMAR_UNSUPPORTED = ("not supported yet: max_tokens on rule", "not supported yet: max_chars")
_KINDS = {  # what each list of strings says, on (viable prefix, accepted)
    "passing": lambda viable, acc: acc,
    "failing": lambda viable, acc: not acc,
    "prefix_only": lambda viable, acc: viable and not acc,
    "prefixes": lambda viable, acc: viable,
    "not_prefixes": lambda viable, acc: not viable,
}


def _xgrammar(case):
    """maskref's Grammar for an xgrammar case, or None where it refuses the construct on
    purpose (the refusal must name one of XGRAMMAR_UNSUPPORTED)."""
    try:
        return Grammar.from_ebnf(case["grammar"], root=case.get("root", "root"))
    except GrammarError as e:
        assert e.message.startswith(XGRAMMAR_UNSUPPORTED) or "is not supported yet" in e.message, e.message
        return None


@pytest.mark.parametrize("case", _cases("cases", "xgrammar"), ids=lambda c: c["source"])
def test_xgrammar_cases(case):
    g = _xgrammar(case)
    if g is None:
        return
    for kind, check in _KINDS.items():
        for text in case.get(kind, []):
            r = Recognizer(g.compiled)
            viable = r.consume_bytes(text.encode("utf-8"))
            assert check(viable, viable and r.is_accepting()), (kind, text)


#: grammars xgrammar reads (from_ebnf) but refuses at a later stage (compile_grammar: a
#: regex it cannot compile): maskref refuses them when it reads them
XGRAMMAR_REFUSED_LATER = {c["grammar"] for c in _cases("compile_cases", "xgrammar")
                          if not c["should_compile"] and c["stage"] == "compile_grammar"}
#: xgrammar's words for an error -> maskref's, where they differ
XGRAMMAR_MESSAGES = {"Failed to build the automaton for rule root": "There is nothing to repeat"}


def _message(case):
    """The part of xgrammar's error message maskref's must hold too (its words where they
    differ), or None to check only that it fails: the lexer's messages and the position
    prefix are xgrammar's own."""
    expected = case["error_contains"]
    if not expected or case.get("error_is_regex") or "Assign should be" in expected:
        return None
    expected = expected.split(": ", 1)[1] if expected.startswith("EBNF parser error at") else expected
    return XGRAMMAR_MESSAGES.get(expected, expected)


@pytest.mark.parametrize("case", _cases("compile_cases", "xgrammar"), ids=lambda c: "%s %s" % (c["source"], c["stage"]))
def test_xgrammar_compile_cases(case):
    if case["should_compile"] and case["grammar"] not in XGRAMMAR_REFUSED_LATER:
        _xgrammar(case)
    else:
        with pytest.raises(GrammarError) as info:
            Grammar.from_ebnf(case["grammar"], root=case.get("root", "root"))
        expected = _message(case)
        if expected is not None:
            assert expected.replace("\\", "") in info.value.message, (expected, info.value.message)


def test_xgrammar_cases_mostly_supported():
    """maskref reads all of xgrammar's match cases (each agrees: test_xgrammar_cases)."""
    supported = [c for c in _cases("cases", "xgrammar") if _xgrammar(c) is not None]
    assert len(supported) == 157, len(supported)
