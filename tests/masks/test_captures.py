"""Captures (refimpl/masks/captures.py): the text each capturing rule matched.

Unit tests of the definition (when a capture is reported, its text, its order, what is
left out), `Matcher.captures()` over tokens, bytes, special tokens, EOS and rollback,
and a differential test against llguidance's `LLMatcher.get_captures()` (skipped where
llguidance is not installed): fixed cases, and random token paths checked at every step.
The one declared difference, rollback, has its own test.
"""
import random

import pytest

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.frontends.lark import lark_to_ir
from refimpl.masks.captures import CaptureError, capture_grammar, captures

WORDS = 'start: (word " ")* word\nword[capture]: /[a-z]+/'


def caps(grammar, text, ended=False):
    return captures(Grammar.from_lark(grammar), text.encode(), ended=ended)


# -- when a capture is reported ----------------------------------------------------------


def test_a_greedy_lexeme_is_captured_once_it_has_ended():
    assert caps(WORDS, "hi the") == [("word", b"hi")]  # "the" may go on
    assert caps(WORDS, "hi the ") == [("word", b"hi"), ("word", b"the")]
    assert caps(WORDS, "hi the", ended=True) == [("word", b"hi"), ("word", b"the")]


def test_a_lexeme_no_byte_can_extend_has_ended_at_once():
    assert caps('start: x+ ";"\nx[capture]: "a" | "b"', "ab") == [("x", b"a"), ("x", b"b")]
    assert caps('start: x "!"\nx[lazy, capture]: /[a-z]*b/', "aab") == [("x", b"aab")]


def test_captures_of_a_prefix_are_a_prefix_of_the_captures():
    g = Grammar.from_lark('start: x ";"\nx[capture]: "a" x | "b" x | y\ny[capture]: /[0-9]+/')
    text = b"abba12;"
    full = captures(g, text, ended=True)
    for n in range(len(text) + 1):
        assert full[:len(captures(g, text[:n]))] == captures(g, text[:n])
    assert full[-1] == ("x", b"abba12")


# -- what is reported --------------------------------------------------------------------


def test_nested_captures_come_inner_first():
    got = caps('start: x\nx[capture]: "<" y ">"\ny[capture]: /[a-z]+/', "<ab>")
    assert got == [("y", b"ab"), ("x", b"<ab>")]


def test_every_level_of_a_recursive_rule_is_captured():
    assert caps('start: x ";"\nx[capture]: x "a" | "a"', "aaa") == [("x", b"a"), ("x", b"aa"), ("x", b"aaa")]
    # right recursion: each completion, innermost first (Leo items would skip them)
    got = caps('start: x ";"\nx[capture]: "a" x | "b"', "aab")
    assert got == [("x", b"b"), ("x", b"ab"), ("x", b"aab")]


def test_an_alternative_that_later_input_rules_out_keeps_its_capture():
    g = 'start: x "b" | y "c"\nx[capture]: "a"\ny[capture]: "a"'
    assert caps(g, "ab") == [("x", b"a"), ("y", b"a")]


def test_a_rule_that_may_match_nothing_captures_the_empty_text_where_predicted():
    g = 'start: "a" x "b"\nx[capture]: "c"?'
    assert caps(g, "ab") == [("x", b"")]
    assert caps(g, "acb") == [("x", b""), ("x", b"c")]


def test_a_pair_equal_to_the_latest_of_its_name_is_left_out():
    assert caps('start: x+ ";"\nx[capture]: "a" | "b"', "aab;") == [("x", b"a"), ("x", b"b")]
    g = 'start: a b a\na[capture="n"]: "x"\nb[capture="m"]: "x"'
    assert caps(g, "xxx") == [("n", b"x"), ("m", b"x")]
    assert caps('start: a b\na[capture="n"]: "x"\nb[capture="n"]: "y"', "xy") == [("n", b"x"), ("n", b"y")]


def test_ignored_text_before_the_first_lexeme_is_in_the_capture_and_after_the_last_is_not():
    g = '%ignore " "\nstart: "a" x "d"\nx[capture]: "b" "c"'
    assert caps(g, "a  b  c  d") == [("x", b"  b  c")]


def test_a_stop_is_the_stop_capture_and_not_in_the_capture():
    for option in ("stop", "suffix"):
        g = 'start: x "!"\nx[%s="END", stop_capture="s", capture]: /[a-z ]*/' % option
        assert caps(g, "ab END") == [("s", b"END"), ("x", b"ab ")]
    g = 'start: y\ny[capture]: x "!"\nx[stop=/[0-9]+/]: /[a-z]*/'
    assert caps(g, "ab1!") == [("y", b"ab!")]


def test_sub_grammars_capture():
    assert caps('start: x "!"\nx[capture]: %json {"type": "integer"}', "12!") == [("x", b"12")]
    g = 'start: x\nx[capture]: %lark {\nstart: y ("," y)*\ny[capture]: /[0-9]+/\n%ignore " "\n}'
    assert caps(g, "1, 2", ended=True) == [("y", b"1"), ("x", b"1"), ("y", b" 2"), ("x", b"1, 2")]
    top = Grammar.from_llguidance({"grammars": [{"lark_grammar": 'start: "n=" v\nv[capture]: @num'},
                                                {"name": "num", "json_schema": {"type": "integer"}}]})
    assert captures(top, b"n=42", ended=True) == [("v", b"42")]


def test_grammars_without_captures_have_none():
    for g in (Grammar.from_lark(WORDS.replace("[capture]", "")), Grammar.from_regex("[a-z]+"),
              Grammar.from_json_schema({"type": "string"}), Grammar.from_gbnf('root ::= "a"+')):
        assert capture_grammar(g) is None
        assert captures(g, b"a", ended=True) == []


def test_the_frontends_ir_carries_the_capture_options_and_simplify_drops_them():
    ir = lark_to_ir('start: x\nx[capture="c", stop="!", stop_capture="s"]: /[a-z]+/')
    x = ir.names.index("x")
    assert ir.captures == {x: ("c", "s")}
    (lexeme,) = ir.stops
    assert ir.lexemes[lexeme].hidden
    assert Grammar.from_lark('start: x\nx[capture]: "a"').ir.captures == {}


def test_refused_input_is_an_error():
    with pytest.raises(CaptureError, match="refuses byte 33"):
        caps(WORDS, "hi!")
    with pytest.raises(CaptureError, match="need a vocabulary"):
        captures(Grammar.from_lark(WORDS), [b"hi", 3])
    with pytest.raises(CaptureError, match="max_tokens= budgets are not supported"):
        caps('start: x y\nx[capture, max_tokens=1]: /[a-z]+/\ny: /[0-9]+/', "ab")


# -- Matcher.captures() -------------------------------------------------------------------


def test_matcher_captures_over_tokens_bytes_eos_and_rollback():
    v = Vocabulary.from_bytes([b"<eos>", b"hi", b" ", b"there", b"ab"], eos_token_id=0)
    m = Matcher(Grammar.from_lark(WORDS), v)
    assert m.consume(1) and m.captures() == []
    assert m.consume(2) and m.captures() == [("word", b"hi")]
    assert m.consume_bytes(b"the") and m.consume(4) and m.captures() == [("word", b"hi")]
    assert m.consume(0) and m.captures() == [("word", b"hi"), ("word", b"theab")]
    m.rollback(3)
    assert m.captures() == [("word", b"hi")]
    assert m.consume(3) and m.consume(0) and m.captures() == [("word", b"hi"), ("word", b"there")]


def test_matcher_captures_a_special_token_as_its_bytes():
    v = Vocabulary.from_bytes([b"<eos>", b"a", b"b", b"<|t|>"], eos_token_id=0, special_token_ids=[3])
    m = Matcher(Grammar.from_lark('start: x\nx[capture]: "a" <|t|> "b"'), v)
    assert m.consume(1) and m.consume(3) and m.consume(2)
    assert m.captures() == [("x", b"a<|t|>b")]


def test_matcher_captures_after_eos_ending_a_stop_lexeme():
    v = Vocabulary.from_bytes([b"<eos>", b"ab", b"c"], eos_token_id=0)
    m = Matcher(Grammar.from_lark('start: x\nx[capture, stop=""]: /[a-z]+/'), v)
    assert m.consume(1) and m.consume(2) and m.captures() == []
    assert m.consume(0) and m.captures() == [("x", b"abc")]


# -- against llguidance --------------------------------------------------------------------

#: grammars and inputs whose captures llguidance and maskref must agree on (EOS at the end
#: when the flag says so)
CASES = [
    (WORDS, "hi there", False), (WORDS, "hi there", True),
    ('start: x " " y\nx[capture]: /[a-z]+/\ny[capture="foo"]: /[0-9]+/', "ab 12", True),
    ('start: x+\nx[capture]: "a" | "b"', "abab", False),
    ('start: x ";"\nx[capture]: y y\ny[capture]: /[a-z]/', "ab;", False),
    ('start: x "b" | y "c"\nx[capture]: "a"\ny[capture]: "a"', "ab", False),
    ('start: "a" x "b"\nx[capture]: "c"*', "accb", False),
    ('%ignore /[ ]+/\nstart: "a" x "d"\nx[capture]: "b" "c"', "a  b  c  d", False),
    ('start: a b a\na[capture="n"]: "x"\nb[capture="m"]: "x"', "xxx", False),
    ('start: x ";"\nx[capture]: "a" x | "a"', "aaaa;", False),
    ('start: x "!"\nx[stop="END", stop_capture="s", capture]: /[a-z ]*/', "ab END!", False),
    ('start: x "!"\nx[suffix="END", stop_capture="s", capture]: /[a-z ]*/', "ab END!", False),
    ('start: x "!"\nx[capture]: %json {"type":"integer"}', "123!", False),
    ('start[capture]: "a" "b"', "ab", True),
    ('start: "(" x ")"\nx[capture]: "" | "a"', "()", False),
    ('start: x\nx[capture, stop=""]: /[a-z]+/', "abc", True),
    ('start: "q" x\nx[capture]: /[a-z]*/', "q", True),
    ('start: x\nx[capture]: %lark {\nstart: y ("," y)*\ny[capture]: /[0-9]+/\n%ignore " "\n}', "1, 2", True),
]

#: grammars for random paths: each step's captures are compared
RANDOM_GRAMMARS = [
    WORDS,
    'start: x ";"\nx[capture]: "a" x | "b" x | "a"',
    'start: x ";"\nx[capture]: x "a" | "a" | y\ny[capture]: "b"+',
    'start: item ("," item)*\nitem[capture="v"]: NUM | WORD\nNUM: /[0-9]+/\nWORD: /[a-c]+/\n%ignore " "',
    'start: "<" tag ">" body "</" tag ">"\ntag[capture]: /[a-c]{1,3}/\nbody[capture]: /[a-z ]*/',
    'start: (x ".")+\nx[suffix=/[0-9]/, stop_capture="d", capture]: /[a-c]*/',
    'start: "(" x? ")"\nx[capture]: y ("," y)*\ny[capture]: /[ab]/ | ""',
    'start: pair+\npair[capture]: key "=" val ";"\nkey[capture]: /[a-c]+/\nval[capture]: %json {"type": "integer"}',
    'start: s\ns[capture]: "(" s ")" s | ""',
    'start: x\nx[capture]: %json {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}',
]


def byte_vocabulary():
    """One token per byte, and EOS (id 256)."""
    return Vocabulary.from_bytes([bytes([b]) for b in range(256)] + [b"<eos>"], eos_token_id=256)


def llguidance_matcher(grammar, vocab):
    pytest.importorskip("llguidance", reason="llguidance is not installed (the 'peers' extra)")
    import llguidance

    from conformance.peers.llguidance.reading import grammar_text
    from conformance.peers.llguidance.session import tokenizer
    from conformance.vectors import GrammarSpec

    m = llguidance.LLMatcher(tokenizer(vocab), grammar_text(GrammarSpec("lark", grammar)), log_level=0)
    assert not m.is_error(), m.get_error()
    return m


@pytest.mark.parametrize("grammar,text,eos", CASES)
def test_captures_agree_with_llguidance(grammar, text, eos):
    v = byte_vocabulary()
    ll = llguidance_matcher(grammar, v)
    m = Matcher(Grammar.from_lark(grammar), v)
    for t in list(text.encode()) + ([256] if eos else []):
        assert m.consume(t) and ll.consume_token(t) and not ll.is_error()
        assert m.captures() == ll.get_captures()


@pytest.mark.parametrize("grammar", RANDOM_GRAMMARS)
def test_captures_agree_with_llguidance_on_random_paths(grammar):
    v = byte_vocabulary()
    g = Grammar.from_lark(grammar)
    rng = random.Random(grammar)
    for _ in range(8):
        m, ll = Matcher(g, v), llguidance_matcher(grammar, v)
        for _ in range(rng.randint(1, 12)):
            allowed = m.mask().allowed()
            printable = [t for t in allowed if 32 <= t < 127 or t == 256]
            t = rng.choice(printable or allowed)
            assert m.consume(t) and ll.consume_token(t) and not ll.is_error()
            assert m.captures() == ll.get_captures()
            if t == 256:
                break


def test_declared_difference_rollback_takes_captures_back_llguidance_keeps_them():
    g = 'start: x+ ";"\nx[capture]: "a" | "b"'
    v = byte_vocabulary()
    m, ll = Matcher(Grammar.from_lark(g), v), llguidance_matcher(g, v)
    for t in b"aba":
        assert m.consume(t) and ll.consume_token(t)
    m.rollback(2)
    ll.rollback(2)
    assert m.captures() == [("x", b"a")]
    assert ll.get_captures() == [("x", b"a"), ("x", b"b"), ("x", b"a")]
