"""kbnf's EBNF: the reader (kbnf's syntax, errors with positions), the regular terminals
(`#"..."`, `#e`, `#ex`, `#substrs`, the older `except!` and `any!`), kbnf's own test cases
(tests/data/grammar_cases.json) and, where the `kbnf` package is installed, kbnf itself
byte by byte (kbnf as an engine under test: tests/conformance/peers/test_kbnf.py)."""
import json
from typing import List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.errors import GrammarError
from refimpl.frontends.ebnf.ast import Alt, Excluding, Literal, Ref, Seq
from refimpl.frontends.ebnf.compiler import compile_rules
from refimpl.frontends.ebnf.kbnf import read_rules
from refimpl.masks.oracle import naive_mask
from tests.support.budget import examples
from tests.support.paths import DATA
from tests.support.text_outcome import outcome

try:
    import kbnf
except ImportError:  # the peers extra; no build for PyPy
    kbnf = None

DATA = json.loads((DATA / "grammar_cases.json").read_text(encoding="utf-8"))
CASES = [c for c in DATA["cases"] if c["format"] == "kbnf"]
COMPILE_CASES = [c for c in DATA["compile_cases"] if c["format"] == "kbnf"]

#: compile cases where maskref differs on purpose: source -> reason
DELIBERATE = {
    "src/parser.rs:506 (escaped_nonterminal)":
        "the regex class `[\"\\bfnrt/]` holds `\\b`, which Rust's regex syntax refuses; kbnf-syntax's parser "
        "test accepts it, kbnf 0.4.2 itself refuses the grammar, as maskref does",
}


def kbnf_grammar(text: str, root: str = "start") -> Grammar:
    return Grammar.from_ebnf(text, dialect="kbnf", root=root)


_KINDS = {  # what each list of strings of a case says, on the outcome
    "passing": lambda o: o == "accept",
    "failing": lambda o: o != "accept",
    "prefix_only": lambda o: o == "prefix_only",
    "prefixes": lambda o: o != "reject",
    "not_prefixes": lambda o: o == "reject",
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["source"] + (" (before except! was removed)" if "note" in c else ""))
def test_kbnf_cases(case):
    g = kbnf_grammar(case["grammar"], case["root"])
    for kind, check in _KINDS.items():
        for text in case.get(kind, []):
            assert check(outcome(g, text)), (kind, text)


@pytest.mark.parametrize("case", COMPILE_CASES, ids=lambda c: "%s %s" % (c["source"], c["stage"]))
def test_kbnf_compile_cases(case):
    build = read_rules if case["stage"] == "parse" else (lambda text: kbnf_grammar(text, case["root"]))
    if case["source"] in DELIBERATE:
        assert case["should_compile"]
        with pytest.raises(GrammarError, match="word boundaries"):
            build(case["grammar"])
    elif case["should_compile"]:
        build(case["grammar"])
    else:
        with pytest.raises(GrammarError):
            build(case["grammar"])


# -- the reading ---------------------------------------------------------------------------

@pytest.mark.parametrize("text, accepted, refused", [
    # alternation binds loosest; `,` and juxtaposition both concatenate
    ("start ::= 'a' | 'b' , 'c' 'd' | e; e = 'e';", ["a", "bcd", "e"], ["acd", "b", "bc"]),
    # a rule defined twice: the alternatives of both; [x] and {x}
    ("start ::= 'a' ['b'];\nstart ::= {'c'} 'd';", ["a", "ab", "d", "cccd"], ["b", "abd"]),
    ("start ::= ('a' | 'b')+ 'c'? ;", ["ab", "bac"], ["c", "acc"]),
    # escapes, raw newlines in strings, comments between rules
    ("(* lead *) start ::= '\\x41\\u0042\\u{1F600}\\/\\'\n'; (* trail *)", ["AB😀/'\n"], ["AB"]),
    # regex terminals: whole match, the string's escapes first (\\\\d is the regex \\d)
    ("start ::= #'[0-9]+' #\"\\\\.\\\\d\";", ["12.3"], ["12.", "a"]),
    ("start ::= #e'[a-z]+[0-9]+' 'X';", ["ab1X"], ["ab12X"]),   # the shortest match
    ("start ::= #'[a-z]+[0-9]+' 'X';", ["ab1X", "ab12X"], []),
    ("start ::= #ex'a|bc' 'X';", ["bX", "bbX", "cbX", "\nX"], ["X", "aX", "bcX"]),  # non-empty, no match inside
    ("start ::= #substrs'abc' 'X';", ["X", "bcX", "abcX"], ["acX", "cbX"]),
    # kbnf before 2024-08: except!(strings[, bytes]) and any!
    ("start ::= except!(C) C; C ::= 'A' | 'BC';", ["xA", "xBC", "xBBC"], ["A", "xAxA"]),
    ("start ::= except!('ab', 3) 'X';", ["aaaX", "€X"], ["X", "aaaaX", "ééX"]),
    ("start ::= any! any! 'X';", ["a\nX", "éxX"], ["aX"]),
])
def test_reading(text, accepted, refused):
    g = kbnf_grammar(text)
    for s in accepted:
        assert outcome(g, s) == "accept", s
    for s in refused:
        assert outcome(g, s) != "accept", s


@pytest.mark.parametrize("text, message, where", [
    ("start ::= 'a'", "expected ; at the end of the rule 'start'", (1, 14)),
    ("start ::= ;", "expected an element, found ';'", (1, 11)),
    ("start ::= 'a' | ;", "expected an element, found ';'", (1, 17)),
    ("start ::= ('a' | ) 'b';", "expected an element, found ')'", (1, 18)),
    ("start ::= ('a' 'b';", "expected )", (1, 19)),
    ("start ::= 'a' ,, 'b';", "expected an element after ','", (1, 16)),
    ("start ::= 'a' ];", "unexpected ']'", (1, 15)),
    ("start ::= 'a'+* 'b';", "expected an element", (1, 15)),
    ("start ::= 'a\\q';", "invalid escape '\\\\q'", (1, 13)),
    ("start ::= '\\uD800';", "not a Unicode scalar value", (1, 12)),
    ("start ::= '\\x4';", "\\x takes two hex digits", (1, 12)),
    ("start ::= 'abc", "unterminated string", (1, 15)),
    ("start ::= a;", "undefined rule 'a'", (1, 11)),
    ("start ::= #'a\\\\b';", "invalid regex", (1, 11)),
    ("start ::= #'(a';", "invalid regex", (1, 11)),
    ("1a ::= 'x';", "expected a rule definition", (1, 1)),
    ("start := 'x';", "expected ::= or = after the rule name 'start'", (1, 7)),
    ("start ::= 'x'; (* open", "unterminated comment", (1, 16)),
    ("start ::= except!('');", "except! needs a non-empty string", (1, 19)),
    ("start ::= except!(A); A ::= B; B ::= 'b';", "alternatives of non-empty strings", (1, 19)),
    ("start ::= except!('a', );", "expected the number of bytes", (1, 24)),
    ("", "the grammar has no rules", (1, 1)),
    ("start ::= 'a\udc80';", "lone surrogate U+DC80", (1, 13)),
    ("start ::= #e\n'a';", "expected a quote after #, #e, #ex or #substrs", (1, 11)),
    ("start ::= #x'a';", "expected a quote after #", (1, 11)),
    ("s::=except!(", "expected a string or a rule name in except!", (1, 13)),
    ("start ::= except!('a', %s);" % ("9" * 5000), "number too large", (1, 24)),
])
def test_errors(text, message, where):
    with pytest.raises(GrammarError) as e:
        kbnf_grammar(text)
    assert message in e.value.message, e.value.message
    assert (e.value.line, e.value.column) == where, str(e.value)


def test_dialect_and_start_rule():
    g = kbnf_grammar("start ::= x; x ::= 'x';")
    assert g.options == {"dialect": "kbnf", "root": "start"}
    assert outcome(Grammar.from_ebnf("start ::= x; x ::= 'x';", dialect="kbnf", root="x"), "x") == "accept"
    with pytest.raises(GrammarError, match="no rule 'root'"):
        Grammar.from_ebnf("start ::= 'x';", dialect="kbnf", root="root")
    with pytest.raises(GrammarError, match="unknown EBNF dialect 'lark'"):
        Grammar.from_ebnf("start ::= 'x';", dialect="lark")


def test_exclusion_needs_a_regular_operand():
    """kbnf's syntax cannot write it (except! takes strings), the AST can."""
    rules = {"start": Seq(0, [Excluding(0, Ref(0, "A")), Literal(0, "x")]),
             "A": Alt(0, [Literal(0, "a"), Seq(0, [Literal(0, "b"), Ref(0, "A")])])}
    with pytest.raises(GrammarError, match="an exclusion needs a regular operand"):
        compile_rules(rules, "start")


def test_deep_nesting_is_no_recursion_error():
    g = kbnf_grammar("start ::= " + "(" * 5000 + "'a'" + ")" * 5000 + ";")
    assert outcome(g, "a") == "accept"


# -- a regex that runs into what follows: the automaton of its derivatives ------------------

OVERLAPPING = [  # (kbnf grammar, the same language as one regex, a one-byte lexeme of its automaton)
    ("start ::= #'[a-z]+' start | #'[a-z]+';", "[a-z]+", "/[a-z]/"),
    ("start ::= #e'a+' #'a+' start | 'b';", "(?:aa+)*b", "/a/"),
    ("start ::= #ex'b' start | 'b';", "[^b]*b", "/(?-u)\\xE0/"),
    ("start ::= #substrs'ab1' '1' start | 'b';", "(?:(?:|a|b|1|ab|b1|ab1)1)*b", "/1/"),
]


def test_overlapping_terminals_become_automata():
    for text, _, one_byte in OVERLAPPING:
        assert one_byte in [lx.name for lx in kbnf_grammar(text).ir.lexemes]


@settings(max_examples=examples(40), deadline=None)
@given(st.sampled_from(OVERLAPPING), st.lists(st.integers(0, 4), max_size=6))
def test_automata_keep_the_language(pair, path: List[int]):
    """Masks along a random path equal those of the same language as one regex, and the
    naive masks (every token tried from scratch)."""
    text, regex, _ = pair
    v = Vocabulary([b"a", b"b", b"ab", b"1", b"\n", b"</s>"], eos_token_ids=[5])
    g, same = kbnf_grammar(text), Grammar.from_regex(regex)
    m, n = Matcher(g, v), Matcher(same, v)
    done: List[int] = []
    for t in path:
        assert m.mask() == n.mask() == naive_mask(g, v, done), (text, done)
        if not m.consume(t) or not n.consume(t):
            break
        done.append(t)


# -- kbnf itself ---------------------------------------------------------------------------

needs_kbnf = pytest.mark.skipif(kbnf is None, reason="the kbnf package is not installed (the peers extra)")

#: grammars for the differential check: each construct of the dialect
DIFFERENTIAL = [c["grammar"] for c in CASES if "note" not in c] + [
    "start ::= 'a' | 'b' , 'c' 'd' | e; e = 'e';",
    "start ::= {'ab'} 'c' | ['b'] #'[a-c]{2}' 'd';",
    "start ::= #e'(a|b)+c' #ex'ab' '\\n';",
    "start ::= #substrs'abcab' 'c' | #'(?i)AB' '\\n';",
    "start ::= ('a'+ 'b')? 'c' start | 'd';",
]


def kbnf_run(engine, data: bytes) -> List[str]:
    """kbnf's verdict after each byte: "ongoing", "finished" or "rejected" (then stop)."""
    out = []
    for b in data:
        try:
            result = engine.try_accept_new_token(b)
        except ValueError:
            return out + ["rejected"]
        out.append("finished" if result == kbnf.AcceptTokenResult.Finished else "ongoing")
        if out[-1] == "finished":
            break
    return out


@needs_kbnf
@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(DIFFERENTIAL), st.text("abcde\n", max_size=12))
def test_kbnf_agrees_byte_by_byte(text, s):
    """kbnf (one token per byte) and maskref read the grammar alike: kbnf refuses a byte
    exactly where maskref's prefix stops being viable, and kbnf finishes exactly at the
    first non-empty prefix maskref accepts (kbnf ends eagerly: docs/ebnf.md)."""
    vocab = kbnf.Vocabulary({b: kbnf.Token(bytes([b])) for b in range(1, 256)},
                            {b: repr(bytes([b])) for b in range(1, 256)})
    engine = kbnf.Engine(text, vocab)
    g = kbnf_grammar(text)
    data = s.encode()
    for i, verdict in enumerate(kbnf_run(engine, data)):
        expected = outcome(g, data[:i + 1].decode())
        assert verdict == {"reject": "rejected", "prefix_only": "ongoing", "accept": "finished"}[expected], (text, data[:i + 1])
