"""Rule options that make lexemes (refimpl/frontends/lark/reader.py `_rule_options`,
compiler.py `_options_lexeme`; the Matcher's token budgets): `lazy`, `stop=`, `suffix=`,
`stop=""`, `max_tokens=`, and the metadata-only `temperature=`, `capture`,
`stop_capture=`.

Parsing (the IR's lexemes, `CompiledGrammar.metadata`, errors with line and column), then
masks along token paths on the hand-made vocabulary of test_special_tokens.py (multi-byte
tokens, tokens that split é, EOS): each expected mask is written out, and every step is
also checked against `naive_mask` (`allowed_after`, `matcher_after`).
"""
import json

import pytest

from refimpl import Grammar, GrammarError, Matcher, Vocabulary
from tests.support.special import EOS, EOT, SPECIAL, allowed_after, ids, matcher_after, texts
from tests.support.text_outcome import outcome

# -- parsing ----------------------------------------------------------------------------------


def options_lexeme(source):
    """The lexeme that the options of rule x made (named x[...]), or None."""
    found = [lx for lx in Grammar.from_lark(source).compiled.lexemes if lx.name.startswith("x[")]
    assert len(found) <= 1
    return found[0] if found else None


@pytest.mark.parametrize("options, body, name, lazy, hidden, ends_at_eos, max_tokens", [
    ("lazy", "/a+/", "x[lazy]", True, False, False, None),
    ('stop="E"', "/a+/", "x[stop]", True, True, False, None),
    ("stop=/E+|x/", "/a+/", "x[stop]", True, True, False, None),
    ('suffix="E"', "/a+/", "x[suffix]", True, False, False, None),
    ('stop=""', "/a+/", "x[stop]", False, False, True, None),
    ("max_tokens=3", "/a+/", "x[max_tokens]", False, False, False, 3),
    ("temperature=0.5", '"a" "b"', "x[temperature]", False, False, False, None),
    ("lazy, max_tokens=2, temperature=1", "/a+/", "x[lazy]", True, False, False, 2),
    ('stop="", max_tokens=4', "/a+/", "x[stop]", False, False, True, 4),
    ('stop="E", max_tokens=4', "/a+/", "x[stop]", True, True, False, 4),
    ('suffix="E", max_tokens=2, capture="c", stop_capture="d", temperature=0.7', "/a+/", "x[suffix]", True, False, False,
     2),
    ('suffix="a", lazy', '"a"', "x[suffix]", True, False, False, None),  # lazy after a stop: as llguidance, nothing more
])
def test_options_that_make_one_lexeme(options, body, name, lazy, hidden, ends_at_eos, max_tokens):
    lexeme = options_lexeme("start: x\nx[%s]: %s" % (options, body))
    assert (lexeme.name, lexeme.lazy, lexeme.hidden, lexeme.ends_at_eos, lexeme.max_tokens) == (
        name, lazy, hidden, ends_at_eos, max_tokens)
    assert lexeme.tokens is None


@pytest.mark.parametrize("options", ["capture", 'capture="c"', "max_tokens=0"])
def test_options_that_make_no_lexeme(options):
    assert options_lexeme('start: x\nx[%s]: "a" "b"' % options) is None


@pytest.mark.parametrize("source, metadata", [
    ('start: x\nx[temperature=0.5]: "a"', {"x": {"temperature": 0.5}}),
    ('start: x\nx[capture]: "a"', {"x": {"capture": "x"}}),
    ('start: x\nx[capture="c"]: "a"', {"x": {"capture": "c"}}),
    ('start: x\nx[stop="E", stop_capture="s", capture]: /a+/', {"x": {"capture": "x", "stop_capture": "s"}}),
    ('start: x\nx[lazy, stop_capture="s"]: /a+/', {"x": {"stop_capture": "s"}}),
    ('start: x y\nx[temperature=2, capture="c"]: "a"\ny[capture, max_tokens=3]: "b"',
     {"x": {"temperature": 2.0, "capture": "c"}, "y": {"capture": "y"}}),
    ('start: x\nx[temperature=0.5]: %json {"type": "integer"}', {"x": {"temperature": 0.5}}),
    ('start: x\nx[lazy]: "a"', {}),
])
def test_metadata(source, metadata):
    assert Grammar.from_lark(source).compiled.metadata == metadata


def test_metadata_of_a_sub_grammar_reference():
    grammar = Grammar.from_llguidance({"grammars": [{"lark_grammar": 'start: x "!"\nx[temperature=0.3]: @sub'},
                                                    {"name": "sub", "lark_grammar": 'start: "a"+'}]})
    assert grammar.compiled.metadata == {"x": {"temperature": 0.3}}
    assert [outcome(grammar, s) for s in ("aa!", "aa")] == ["accept", "prefix_only"]


def test_temperature_makes_the_body_one_lexeme_and_capture_does_not():
    with_temperature = Grammar.from_lark('start: x\nx[temperature=0.5]: "a" "b"\n%ignore " "')
    assert [outcome(with_temperature, s) for s in ("ab", "a b")] == ["accept", "reject"]
    with_capture = Grammar.from_lark('start: x\nx[capture]: "a" "b"\n%ignore " "')
    assert [outcome(with_capture, s) for s in ("ab", "a b")] == ["accept", "accept"]


@pytest.mark.parametrize("options, message, column", [
    ("foo", r"Unknown attribute: foo \(options are lazy, capture and stop, suffix, stop_capture, max_tokens, temperature\)",
     3),
    ('stop="a", stop="b"', "Cannot have multiple stop/suffix conditions", 13),
    ('stop="a", suffix="b"', "Cannot have multiple stop/suffix conditions", 13),
    ('lazy, stop="a"', "Cannot have multiple stop/suffix conditions", 9),
    ('lazy, stop=""', "Cannot have multiple stop/suffix conditions", 9),
    ('stop="", lazy', "stop= and suffix= cannot be used together", 12),
    ('stop_capture="c"', "stop_capture requires stop= or suffix=", 3),
    ('stop_capture="a", stop_capture="b", stop="c"', "Cannot have multiple stop_capture names", 21),
    ("max_tokens=1.5", "max_tokens must be a whole number, not 1.5", 14),
    ("max_tokens=-1", "max_tokens must be a whole number, not -1", 14),
    ('max_tokens="a"', 'expected a number after max_tokens=, found string "a"', 14),
    ("temperature=hot", "expected a number after temperature=, found rule name 'hot'", 15),
    ("stop", "expected '=' after the option stop, found ']'", 7),
    ("stop=<|eot|>", r"special tokens \(like <\|eot\|>\) cannot be used", 8),
    ("stop=<[5]>", r"special tokens \(like <\[5\]>\) cannot be used", 8),
    ('capture="a"i', "flags are not allowed in an option's string", 11),
])
def test_option_errors(options, message, column):
    with pytest.raises(GrammarError, match=message) as e:
        Grammar.from_lark('start: x\nx[%s]: "a"' % options)
    assert (e.value.line, e.value.column) == (2, column)


@pytest.mark.parametrize("source, message, where", [
    ('start: x\nx[stop="a"]: y\ny: "b"', r"rule 'y' cannot be used in the \[stop\] rule 'x'", (2, 14)),
    ('start: x\nx[suffix="a"]: "b" y\ny: "b"', r"rule 'y' cannot be used in the \[suffix\] rule 'x'", (2, 20)),
    ('start: x\nx[max_tokens=2]: y\ny: "a"', r"rule 'y' cannot be used in the \[max_tokens\] rule 'x'", (2, 18)),
    ('start: x\nx[temperature=1]: "a" y\ny: "a"', r"rule 'y' cannot be used in the \[temperature\] rule 'x'", (2, 23)),
    ('start: x\nx[stop="a"]: <think>', r"special tokens \(like <think>\) cannot be used", (2, 14)),
    ('start: x\nx[max_tokens=3]: %lark {\nstart: "a"\n}', r"max_tokens= on a sub-grammar \(x\) is not supported", (2, 3)),
    ('start: x\nx[max_tokens=3]: %json {"type": "integer"}', r"max_tokens= on a sub-grammar \(x\) is not supported",
     (2, 3)),
    ("start: x\nx[max_tokens=3]: @sub", r"max_tokens= on a sub-grammar \(x\) is not supported", (2, 3)),
])
def test_option_body_errors(source, message, where):
    with pytest.raises(GrammarError, match=message) as e:
        Grammar.from_lark(source)
    assert (e.value.line, e.value.column) == where


def test_max_tokens_on_a_sub_grammar_of_a_top_level_object():
    with pytest.raises(GrammarError, match=r"max_tokens= on a sub-grammar \(x\)") as e:
        Grammar.from_llguidance(json.dumps({"grammars": [{"lark_grammar": 'start: "a" x\nx[max_tokens=2]: @sub'},
                                                         {"name": "sub", "lark_grammar": 'start: "b"'}]}))
    assert (e.value.line, e.value.column) == (2, 3)


# -- stop= and suffix= ------------------------------------------------------------------------

BYTES = Vocabulary.from_bytes([bytes([b]) for b in range(256)])


def byte_by_byte(source, text):
    """Does the grammar accept `text` read one byte per token? (A hidden stop= text must
    end a token, so this is the language of the masks: Recognizer.consume_bytes, which
    sees no token ends, refuses any byte after a hidden stop.)"""
    m = Matcher(Grammar.from_lark(source), BYTES)
    if not m.consume_tokens(text.encode()):
        return "reject"
    return "accept" if m.is_accepting() else "prefix_only"


@pytest.mark.parametrize("option", ['stop="E"', 'suffix="E"', "stop=/E/", "suffix=/E/"])
def test_the_body_then_the_stop_is_one_lazy_lexeme(option):
    source = 'start: x "b"\nx[%s]: /a+/' % option
    assert texts(allowed_after(source)) == [b"a", b"aE", b"aa"]
    assert texts(allowed_after(source, ids("a", "E"))) == [b"b"]  # the lexeme ended at the first stop
    assert texts(allowed_after(source, ids("aE"))) == [b"b"]
    assert [byte_by_byte(source, s) for s in ("aEb", "aEEb", "aEab")] == ["accept", "reject", "reject"]
    # with suffix=, "Eb" may span the stop and what follows; with stop= the stop text is
    # hidden, so the token that completes it must end there
    spanning = [b"Eb"] if option.startswith("suffix") else []
    assert texts(allowed_after(source, ids("a"))) == [b"a", b"E", b"aE"] + spanning + [b"aa"]
    assert Matcher(Grammar.from_lark(source), SPECIAL).try_consume_tokens(ids("a", "Eb")) == 1 + len(spanning)
    assert options_lexeme(source).hidden == (not spanning)


def test_after_a_hidden_stop_the_next_token_goes_on():
    source = 'start: x "b" "a"\nx[stop="E"]: /a+/'
    m = matcher_after(source, ids("aE"))
    assert texts(m.mask().allowed()) == [b"b", b"ba"]
    assert m.consume(ids("ba")[0]) and m.mask().allowed() == [EOS]
    m.rollback(2)
    assert texts(m.mask().allowed()) == [b"a", b"aE", b"aa"]


@pytest.mark.parametrize("option", ["stop", "suffix"])
def test_the_lexeme_ends_where_the_stop_first_matches(option):
    source = 'start: x "x"\nx[%s="b"]: /[ab]*/' % option
    assert texts(allowed_after(source)) == [b"a", b"b", b"ab", b"aa"]  # not "abab", not "ba"
    assert texts(allowed_after(source, ids("b"))) == [b"x"]  # the body matched "", the stop "b"
    assert texts(allowed_after(source, ids("a", "ab"))) == [b"x"]


def test_a_stop_regex():
    source = 'start: x "b"\nx[stop=/E+|x/]: /a+/'
    assert texts(allowed_after(source, ids("a"))) == [b"a", b"x", b"E", b"aE", b"aa"]
    for stop in ("x", "E"):
        assert texts(allowed_after(source, ids("a", stop))) == [b"b"]  # lazy: one E is the stop
    assert [byte_by_byte(source, s) for s in ("aab", "aaxb", "aEEb")] == ["reject", "accept", "reject"]


# -- stop="" ----------------------------------------------------------------------------------


def test_eos_ends_a_stop_empty_lexeme_and_the_grammar_goes_on():
    source = 'start: x "E"\nx[stop=""]: /a+/'
    assert texts(allowed_after(source)) == [b"a", b"aE", b"aa"]  # no EOS: no bytes yet
    assert texts(allowed_after(source, ids("a"))) == [b"a", b"</s>", b"E", b"aE", b"aa"]
    m = matcher_after(source, ids("a") + [EOS])
    assert not m.stopped and not m.is_accepting() and texts(m.mask().allowed()) == [b"E"]
    m = matcher_after(source, ids("a") + [EOS] + ids("E"))
    assert m.mask().allowed() == [EOS] and m.consume(EOS) and m.stopped


def test_eos_ends_a_stop_empty_lexeme_only_where_it_matches():
    source = 'start: x "E"\nx[stop=""]: /a+c/'
    assert EOS not in allowed_after(source, ids("a"))
    assert EOS in allowed_after(source, ids("a", "c"))
    source = 'start: x "E"\nx[stop=""]: /[aé]+/'  # not within a character
    assert EOS not in allowed_after(source, ids(b"a\xc3"))
    assert EOS in allowed_after(source, ids(b"a\xc3", b"\xa9"))


def test_at_the_end_eos_first_ends_the_lexeme_then_stops():
    """(llguidance stops by itself once only EOS may follow: one EOS there.)"""
    m = matcher_after('start: x\nx[stop=""]: /a+/', ids("a"))
    assert m.is_accepting() and texts(m.mask().allowed()) == [b"a", b"</s>", b"aa"]
    assert m.consume(EOS) and not m.stopped and m.mask().allowed() == [EOS]
    assert m.consume(EOS) and m.stopped and m.mask().allowed() == []
    m.rollback(2)
    assert texts(m.mask().allowed()) == [b"a", b"</s>", b"aa"]


def test_a_token_lexeme_after_a_stop_empty_lexeme():
    """EOS is read by id where a token lexeme matches it: it ends the pending lexeme as
    any token lexeme does."""
    source = 'start: x (</s> | <|eot|>) "b"\nx[stop=""]: /a+/'
    assert texts(allowed_after(source, ids("a"))) == [b"a", b"<|eot|>", b"</s>", b"aa"]
    for t in (EOS, EOT):
        assert texts(allowed_after(source, ids("a") + [t])) == [b"b"]


# -- max_tokens= ------------------------------------------------------------------------------


def test_after_the_budget_the_lexeme_ends():
    source = 'start: x "b"\nx[max_tokens=2]: /a+/'
    assert texts(allowed_after(source, ids("a"))) == [b"a", b"b", b"ab", b"aa"]
    for path in (["a", "a"], ["aa", "aa"], ["a", "aa"]):
        assert texts(allowed_after(source, ids(*path))) == [b"b"]
    assert allowed_after(source, ids("a", "ab")) == [EOS]  # the lexeme ended within the token


def test_the_budget_counts_tokens_that_gave_bytes_to_the_lexeme():
    source = 'start: B x "b"\nB: /b+/\nx[max_tokens=2]: /a+/'
    # "ba" ends B and starts x: it counts 1 for x
    assert texts(allowed_after(source, ids("ba", "a"))) == [b"b"]
    # "b" gave x nothing; "a" and "a" are its two tokens
    assert texts(allowed_after(source, ids("b", "a"))) == [b"a", b"b", b"ab", b"aa"]
    assert texts(allowed_after(source, ids("b", "a", "a"))) == [b"b"]
    # after a literal that ends with its token, too
    assert texts(allowed_after('start: "b" x "b"\nx[max_tokens=2]: /a+/', ids("b", "a"))) == [b"a", b"b", b"ab", b"aa"]


def test_a_budget_counts_tokens_not_characters():
    source = "start: x <|eot|>\nx[max_tokens=2]: /[aé]+/"
    assert texts(allowed_after(source, ids(b"\xc3\xa9"))) == [b"a", b"<|eot|>", b"\xc3", b"\xc3\xa9", b"a\xc3", b"aa"]
    assert allowed_after(source, ids(b"\xc3", b"\xa9")) == [EOT]  # two tokens for one é
    assert texts(allowed_after(source, ids(b"\xc3"))) == [b"\xa9"]  # the mask does not look ahead


def test_a_budget_that_leaves_the_lexeme_unable_to_end_is_a_dead_state():
    for source, path in (('start: x "b"\nx[max_tokens=1]: /a+c/', ["a"]),
                         ("start: x <|eot|>\nx[max_tokens=2]: /[aé]+/", ["a", b"\xc3"])):
        before = matcher_after(source, ids(*path[:-1])).mask()
        assert ids(path[-1])[0] in before.allowed()  # the mask does not look ahead
        m = matcher_after(source, ids(*path))
        assert m.mask().allowed() == [] and not m.is_accepting()
        assert not any(m.consume(t) for t in range(len(SPECIAL)))
        m.rollback(1)
        assert m.mask() == before


def test_a_spent_budget_drops_its_lexeme_and_keeps_the_others():
    source = "start: x | Y\nx[max_tokens=1]: /a+/\nY: /a+b/"
    m = matcher_after(source, ids("a"))
    assert texts(m.mask().allowed()) == [b"a", b"b", b"ab", b"aa"] and not m.is_accepting()  # only Y is left
    assert matcher_after(source, ids("a", "b")).is_accepting()
    assert matcher_after(source, ids("aa")).mask().allowed() == allowed_after(source, ids("a"))


def test_max_tokens_zero_matches_only_the_empty_string():
    source = 'start: "a" x "b"\nx[max_tokens=0]: /c+/'
    assert texts(allowed_after(source, ids("a"))) == [b"b"]
    assert [outcome(Grammar.from_lark(source), s) for s in ("ab", "acb")] == ["accept", "reject"]


def test_rollback_restores_the_budget():
    source = 'start: x "b"\nx[max_tokens=3]: /a+/'
    m = Matcher(Grammar.from_lark(source), SPECIAL)
    assert m.consume_tokens(ids("a", "a", "a")) and texts(m.mask().allowed()) == [b"b"]
    m.rollback(2)
    assert m.consume_tokens(ids("aa", "a")) and texts(m.mask().allowed()) == [b"b"]
    m.rollback(1)
    assert texts(m.mask().allowed()) == [b"a", b"b", b"ab", b"aa"]
    assert m.consume(ids("a")[0]) and texts(m.mask().allowed()) == [b"b"]

