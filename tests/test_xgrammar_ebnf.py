"""xgrammar's EBNF: what its reader takes beyond GBNF, its errors, and the same language
as GBNF on their common part."""
from typing import List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from conformance.strategies import gbnf_grammars
from refimpl import Grammar, Matcher, Vocabulary
from refimpl.errors import GrammarError
from refimpl.recognizer import Recognizer


def outcome(grammar: Grammar, text: str) -> str:
    r = Recognizer(grammar.compiled)
    if not r.consume_bytes(text.encode("utf-8")):
        return "reject"
    return "accept" if r.is_accepting() else "prefix"


def xg(text: str, root: str = "root") -> Grammar:
    return Grammar.from_ebnf(text, dialect="xgrammar", root=root)


def test_beyond_gbnf():
    # a rule may span lines; names with _ and .; ( ) is ε; [^] is any character
    g = xg('root ::= a_b.c\n   "x" ( ) [^]\na_b.c ::= "\\x41\\e\\/" | ""')
    assert [outcome(g, t) for t in ("A\x1b/x\n", "x😀", "x")] == ["accept", "accept", "prefix"]
    # class escapes, and a dash as a range end
    g = xg('root ::= [\\^\\]\\--/]+')
    assert [outcome(g, t) for t in ("^]-./", "a")] == ["accept", "reject"]
    # repetition ranges, {m,} and the printed form {m, -1}
    g = xg('root ::= "a"{2,} "b"{0, -1} "c"{0}')
    assert [outcome(g, t) for t in ("aa", "aaabb", "a")] == ["accept", "accept", "prefix"]
    # a lookahead assertion is read and does not change the language
    g = xg('root ::= x "b" | x "c"\nx ::= "a" (= "b")')
    assert outcome(g, "ac") == "accept"
    # Substring(...)
    g = xg('root ::= Substring("abc", "de", "fg") "!"')
    assert [outcome(g, t) for t in ("abcde!", "defg!", "!", "ab!", "cde!")] == ["accept", "accept", "accept", "reject", "reject"]


def test_token_macros():
    v = Vocabulary([b"a", b"<|x|>", b"b", b"</s>"], eos_token_ids=[3], special_token_ids=[1])
    m = Matcher(xg("root ::= Token(1) ExcludeToken(1, 2)*"), v)
    assert m.mask().allowed() == [1]
    assert m.consume(1) and m.mask().allowed() == [0, 3]  # not 1 or 2; EOS: the end (or read by id)


@pytest.mark.parametrize("text, message, where", [
    ('root ::= "a"\nroot ::= "b"', 'Rule "root" is defined multiple times', (2, 1)),
    ('x ::= "a"', 'The root rule with name "root" is not found', (1, 1)),
    ('root ::= y', 'Rule "y" is not defined', (1, 10)),
    ('root ::= "a" x ::= "b"', "the rule name should be at the beginning of the line", (1, 14)),
    ('root ::= "a"++', "two repetition operators in a row", (1, 14)),
    ('root ::= [\\d]', "Character class escape is not supported yet", (1, 11)),
    ('root ::= "a" | ', "Expect element", (1, 16)),
    ('root ::= "a"{3,2}', "Lower bound is larger than upper bound: 3 > 2", (1, 17)),
    ('root ::= "a" (= "b" | "c")', "may not hold choices", (1, 16)),
    ('root ::= "a" (= "b") "c"', "may only end a rule", (1, 22)),
    ('root[lazy] ::= "a"', "rule options ([lazy]) are not supported yet", (1, 5)),
    ('root ::= Regex("[0-9]+")', "the macro Regex(...) is not supported yet", (1, 10)),
    ('root ::= "\\q"', "Invalid escape sequence \\q", (1, 11)),
])
def test_errors(text, message, where):
    with pytest.raises(GrammarError) as info:
        xg(text)
    assert message in info.value.message
    assert (info.value.line, info.value.column) == where


@settings(max_examples=examples(60), deadline=None)
@given(gbnf_grammars(literals=['"a"', '"b"', '"ab"', '"é"', '""'], classes=["[a-b]", "[^a]", "[é-ê]"]),
       st.lists(st.text("abé", max_size=5), min_size=1, max_size=6))
def test_same_language_as_gbnf_on_the_common_part(text: str, strings: List[str]):
    """A grammar both dialects read (one rule per line, no `_` in names, no `.`: a name
    character in xgrammar) means the same."""
    try:
        gbnf = Grammar.from_gbnf(text)
    except GrammarError:
        with pytest.raises(GrammarError):
            xg(text)
        return
    ebnf = xg(text)
    for s in strings:
        assert outcome(ebnf, s) == outcome(gbnf, s), (text, s)
