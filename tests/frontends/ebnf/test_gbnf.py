"""GBNF: the parser (llama.cpp's reading, errors with positions) and the exactness of the
lexemes the compiler chooses, against an independent Earley over code points
(tests/support/char_earley.py) on random grammars and strings."""
import json
from functools import partial
from typing import List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.strategies import gbnf_grammars as fuzz_gbnf
from refimpl import Grammar, Matcher, Vocabulary
from refimpl.errors import GrammarError
from refimpl.frontends.ebnf.gbnf import read_rules
from refimpl.masks.oracle import naive_mask
from tests.support.budget import examples
from tests.support.char_earley import CharEarley
from tests.support.paths import DATA
from tests.support.text_outcome import outcome

#: llama.cpp's grammars/json.gbnf, as tests/data/grammar_cases.json holds it (MIT license)
JSON_GBNF = next(c["grammar"] for c in json.loads((DATA / "grammar_cases.json")
                                                   .read_text(encoding="utf-8"))["compile_cases"]
                 if c["source"] == "grammars/json.gbnf")


def naive_outcome(oracle: CharEarley, text: str) -> str:
    if not oracle.viable(text):
        return "reject"
    return "accept" if oracle.accepts(text) else "prefix_only"


@pytest.mark.parametrize("text, expected", [
    ('{"a": [1, -2.5e3, true, null, "x\\u00e9"]}', "accept"),
    ('{"a":1}\n  ', "accept"),
    ('{"a": [1, 2', "prefix_only"),
    ('{"a" 1}', "reject"),
    ('{"é": "ü"}', "accept"),
    ('{"a": 01}', "reject"),
])
def test_json_gbnf(text, expected):
    g = Grammar.from_gbnf(JSON_GBNF)
    assert outcome(g, text) == expected
    assert naive_outcome(CharEarley(read_rules(JSON_GBNF), "root"), text) == expected


def test_json_gbnf_keeps_strings_and_numbers_whole():
    """The lexemes the compiler finds: a string, a number, "true" with its space are one
    lexeme each (so a mask walks them in the lexer, not one Earley row per character)."""
    names = [lx.name for lx in Grammar.from_gbnf(JSON_GBNF).ir.lexemes]
    assert any(n.startswith('/(?-u)"') for n in names)
    assert any("true|false|null" in n for n in names)
    assert len(names) < 15, names


@pytest.mark.parametrize("text, message, where", [
    ('root = "a"', "expecting ::=", (1, 6)),
    ('root ::= "a', "unexpected end of grammar in a literal", (1, 10)),
    ('root ::= [a', "unexpected end of grammar in a character class", (1, 10)),
    ('root ::= "\\q"', "unknown escape \\q", (1, 11)),
    ('root ::= "\\x4"', "expecting 2 hex digits after \\x", (1, 11)),
    ('root ::= ("a"', "expecting ')'", (1, 10)),
    ('root ::= "a")', "expecting newline or end of grammar", (1, 13)),
    ('root ::= *', "expecting an item before *", (1, 10)),
    ('root ::= "a"{x}', "expecting an integer", (1, 14)),
    ('root ::= "a"{3,2}', "the minimum is above the maximum", (1, 18)),
    ('root ::= "a"{2001}', "number of repetitions exceeds sane defaults", (1, 19)),
    ('root ::= x', "undefined rule 'x'", (1, 10)),
    ('root ::= []', "empty character class", (1, 10)),
    ('root ::= "a"\nroot ::= "b"', "defined twice", (2, 1)),
    ('root_1 ::= "a"', "expecting ::=", (1, 5)),
    ('root ::= "a"\n  "b"', "expecting a rule name", (2, 3)),
    ('x ::= "a"', "no rule 'root'", None),
    ('root ::= <[12', "expecting ']>'", (1, 14)),
    ('root ::= "a\udc80"', "lone surrogate U+DC80", (1, 12)),
    ('root ::= <\udc80>', "lone surrogate U+DC80", (1, 11)),
    ('root ::= "a"{%s}' % ("9" * 5000), "number too large", (1, 14)),
    ('root ::= <[%s]>' % ("9" * 19), "number too large", (1, 12)),
    ('root ::= "a"{\u00b2}', "expecting an integer", (1, 14)),
    ('root ::= <[\u0663]>', "expecting a token id", (1, 12)),
])
def test_errors(text, message, where):
    with pytest.raises(GrammarError) as info:
        Grammar.from_gbnf(text)
    assert message in info.value.message
    if where is not None:
        assert (info.value.line, info.value.column) == where


def test_llama_cpp_reading():
    # a newline ends a rule outside groups, not after '|' and not inside ( )
    g = Grammar.from_gbnf('root ::= "a" |\n  "b" (\n "c"\n # comment\n | "d" )\n')
    assert [outcome(g, t) for t in ("a", "bc", "bd", "c")] == ["accept", "accept", "accept", "reject"]
    # a maximum above 2000 means no maximum
    g = Grammar.from_gbnf('root ::= "a"{0,2001}')
    assert outcome(g, "a" * 2500) == "accept"
    # escapes, classes with ranges and a literal '-' at the end
    g = Grammar.from_gbnf('root ::= "\\x41\\u00e9\\U0001F600\\t" [a-c-]+')
    assert outcome(g, "A\u00e9\U0001F600\t-ab") == "accept"
    # postfix operators nest: "ab"*? is ("ab"*)?; a literal repeats as a whole
    g = Grammar.from_gbnf('root ::= "ab"*? "c"')
    assert [outcome(g, t) for t in ("c", "ababc", "abac")] == ["accept", "accept", "reject"]


def test_left_recursion_and_unreachable_rules():
    g = Grammar.from_gbnf('root ::= root "a" | "a"\nunused ::= "b"')
    assert [outcome(g, t) for t in ("a", "aaa", "", "b")] == ["accept", "accept", "prefix_only", "reject"]
    with pytest.raises(GrammarError, match="undefined rule 'nope' \\(in the rule 'unused'\\)"):
        Grammar.from_gbnf('root ::= "a"\nunused ::= nope')


def test_deep_nesting_is_no_recursion_error():
    text = "root ::= " + "(" * 3000 + '"a"' + ")" * 3000
    assert outcome(Grammar.from_gbnf(text), "a") == "accept"


def test_token_references_bind_to_the_vocabulary():
    v = Vocabulary([b"a", b"<think>", b"</think>", b"b", b"</s>"], eos_token_ids=[4], special_token_ids=[1, 2])
    g = Grammar.from_gbnf("root ::= <think> !</think>* </think> \"a\"")
    m = Matcher(g, v)
    assert m.mask().allowed() == [1]
    assert m.consume(1)
    assert m.mask().allowed() == [0, 1, 2, 3]  # any token but </think> (and never EOS), or </think>
    assert m.consume(3) and m.consume(0) and m.consume(2)
    assert m.mask().allowed() == [0]
    assert Matcher(Grammar.from_gbnf("root ::= <[3]> \"a\""), v).mask().allowed() == [3]


# -- exactness: random grammars, random strings --------------------------------------------

ALPHABET = "abé"
#: GBNF grammars over the strings' alphabet (conformance's strategy, narrowed)
gbnf_grammars = partial(fuzz_gbnf, literals=['"a"', '"b"', '"ab"', '"é"', '"ba"', '""'],
                        classes=["[a-b]", "[^a]", "[a]", "[é-ê]", "."])


@settings(max_examples=examples(150), deadline=None)
@given(gbnf_grammars(), st.lists(st.text(ALPHABET, max_size=6), min_size=1, max_size=8))
def test_lexemes_keep_the_language(text: str, strings: List[str]):
    oracle = CharEarley(read_rules(text), "root")
    if not oracle.productive():
        return
    grammar = Grammar.from_gbnf(text)
    for s in strings:
        assert outcome(grammar, s) == naive_outcome(oracle, s), (text, s)


@settings(max_examples=examples(30), deadline=None)
@given(gbnf_grammars(), st.lists(st.integers(0, 5), max_size=4))
def test_masks_are_the_naive_masks(text: str, path: List[int]):
    if not CharEarley(read_rules(text), "root").productive():
        return
    v = Vocabulary([b"a", b"b", b"ab", "é".encode(), "é".encode()[:1], b"ba", b"</s>"], eos_token_ids=[6])
    grammar = Grammar.from_gbnf(text)
    m = Matcher(grammar, v)
    done: List[int] = []
    for t in path:
        assert m.mask() == naive_mask(grammar, v, done), (text, done)
        if not m.consume(t):
            break
        done.append(t)


def test_a_lexeme_that_goes_on_after_itself_is_cut():
    """`[a]*` followed by x, which may be `a`: as one lexeme, greedy lexing would take the
    whole "aa" and leave x nothing. The check's walk of the pair ([a]*, [a]*) comes back
    to its start pair after "a" — and must check it there (lexing.py)."""
    g = Grammar.from_gbnf('root ::= [a]* x\nx ::= "a" | "(" x ")"\n')
    assert outcome(g, "aa") == "accept" and outcome(g, "a(a)") == "accept"
    assert "/a*/" not in g.ir.to_text()


def test_a_lexeme_that_prints_exponentially_compiles_at_once():
    """A regular rule's expression is a DAG: r20 below is small, but printed as a pattern
    it is 2^20 alternations long. Its lexeme's name is cut (SchemaStore's glamour-style
    schema through llama.cpp's converter took minutes to compile before)."""
    rules = ['r0 ::= "a" | "b"'] + ["r%d ::= r%d (r%d | \"c\")" % (i, i - 1, i - 1) for i in range(1, 21)]
    g = Grammar.from_gbnf("root ::= r20\n" + "\n".join(rules))
    (lexeme,) = g.compiled.lexemes
    assert lexeme.name.endswith("…/") and len(lexeme.name) <= 205
