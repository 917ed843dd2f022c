"""Several grammars in one (refimpl/frontends/lark/subgrammars.py): nested `%lark { }`,
`@name` references, and `Grammar.from_llguidance` (llguidance's top-level grammar
object), each with its own lexeme class and %ignore.

Where llguidance is installed, whole languages (every string up to a length over a small
alphabet) and GPT-2 masks along random paths are compared with it; the known
differences (docs/semantics.md) are asserted as maskref's behaviour.
"""
import itertools
import json
import random

import pytest

from refimpl import Grammar, Matcher, Vocabulary, naive_mask
from refimpl.errors import GrammarError
from tests.support.special import build, llg_grammar
from tests.support.text_outcome import outcome

NESTED = 'start: "." sub "E"\nsub: %lark {\nstart: "A" "!"\n%ignore /[ \\t]+/\n}\n%ignore "x"'
NESTED_ONCE = 'start: sub "E"\nsub: %lark {\n%llguidance {"ignore_once": true}\nstart: "A" "!"\n%ignore " "\n}\n%ignore " "'
NESTED_INITIAL = ('start: "a" sub\nsub: %lark {\n%llguidance {"allow_initial_skip": true}\nstart: "A" "B"\n'
                  '%ignore " "\n}\n%ignore "x"')
NESTED_DEEP = 'start: "<" a ">"\na: %lark {\nstart: "(" b ")"\nb: %lark {\nstart: "z"+\n%ignore "-"\n}\n%ignore " "\n}'
NESTED_FIXED = 'start: "<" a ">"\na: %lark {\nstart: "(" b ")"\nb: %lark {\nstart: "z" "y"\n%ignore "-"\n}\n%ignore " "\n}'
REF_JSON = {"grammars": [{"lark_grammar": 'start: "." @sub "."\n%ignore " "'},
                         {"name": "sub", "json_schema": {"type": "array", "items": {"type": "integer"}}}]}
REF_LARK = {"grammars": [{"lark_grammar": 'start: "[" @a "|" @b "]"\n%ignore "x"'},
                         {"name": "a", "lark_grammar": 'start: "a" "a"\n%ignore " "'},
                         {"name": "b", "lark_grammar": 'start: @a "b"'}]}
REF_PARAMETRIC = {"grammars": [{"lark_grammar": 'start: @p'},
                               {"name": "p", "lark_grammar": 'start: q::0\nq::_: "" %if is_ones([0:2])\n'
                                                            '  | "a" q::set_bit(0) %if bit_clear(0)\n'
                                                            '  | "b" q::set_bit(1) %if bit_clear(1)'}]}

#: (grammar, alphabet, max length): maskref and llguidance agree on every string
AGREE = [
    (NESTED, ".A!E x\t", 5),
    (NESTED_ONCE, "A!E ", 6),
    (NESTED_INITIAL, "aABx ", 5),
    (NESTED_DEEP, "<>()z-", 6),
    (NESTED_FIXED, "<>()zy -", 6),
    ('start: /[ab]+/ foobar\nfoobar: %lark {\n    start: "foo" | "Bar"\n}', "abfoBr", 5),
    (REF_JSON, ".[]1, ", 6),
    (REF_LARK, "[]|ab x", 6),
    (REF_PARAMETRIC, "ab", 4),
    ('start: "a" sub "b"\nsub: %lark {\nstart: %json {"type":"integer"} "x"\n%ignore " "\n}\n%ignore "-"', "ab1x -", 5),
    ('start: sub "c"\nsub: %lark {\nstart: a "b"\na[lazy]: /a+/\n%ignore " "\n}', "abc ", 5),
    ('%llguidance {"ignore_once": true}\nstart: sub "c"\nsub: %lark {\nstart: "a" "b"\n%ignore /[ ]+/\n}\n%ignore " "',
     "abc ", 6),
]


def test_llguidance_nested_lark_example():
    """llguidance's test_nested_lark (test_lark.rs)."""
    g = Grammar.from_lark('start: /[ab]+/ foobar\nfoobar: %lark {\n    start: "foo" | "Bar"\n}')
    assert [outcome(g, s) for s in ("afoo", "abfoo", "aaaaaaBar")] == ["accept"] * 3
    assert [outcome(g, s) for s in ("a", "afooa")] == ["prefix_only", "reject"]


def test_llguidance_nested_skip_example():
    """llguidance's test_ll_skip with @sub (test_ll.rs): the inner %ignore applies after
    the inner grammar's first lexeme, never before it."""
    g = Grammar.from_llguidance({"grammars": [
        {"lark_grammar": 'start: "." @sub'},
        {"name": "sub", "lark_grammar": 'start: "A" "!"\n%ignore /[ \\t]+/'}]})
    assert outcome(g, ".A  !") == "accept"
    assert outcome(g, ". A!") == "reject"


def test_each_grammar_has_its_own_ignore():
    g = Grammar.from_lark(NESTED)
    assert [outcome(g, s) for s in (".A !E", ".A!xE", ".A!xxE")] == ["accept"] * 3
    # inner %ignore outside the inner grammar, outer %ignore inside it or before it
    assert [outcome(g, s) for s in (".A! E", ".Ax!E", ".xA!E", ". A!E")] == ["reject"] * 4


def test_nested_options_apply_to_the_nested_grammar():
    once = Grammar.from_lark(NESTED_ONCE)  # inner: one " " at most; outer: any number
    assert [outcome(once, s) for s in ("A !E", "A  !E", "A !  E")] == ["accept", "reject", "accept"]
    initial = Grammar.from_lark(NESTED_INITIAL)  # allow_initial_skip holds for the whole grammar
    assert [outcome(initial, s) for s in ("xaAB", "axAB", "aA B")] == ["accept", "reject", "accept"]


def test_references_may_be_cyclic():
    g = Grammar.from_llguidance({"grammars": [
        {"lark_grammar": 'start: "." @sub'},
        {"name": "sub", "lark_grammar": 'start: "A" @sub | "B"'}]})
    assert [outcome(g, s) for s in (".AAB", ".B", ".AA")] == ["accept", "accept", "prefix_only"]


def test_a_single_json_grammar_is_from_json_schema():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    g = Grammar.from_llguidance(json.dumps({"grammars": [{"json_schema": schema}], "max_tokens": None}))
    h = Grammar.from_json_schema(schema)
    for s in ('{"a": 1}', '{ "a":1}', "{}", '{"b": 1}', " {}"):
        assert outcome(g, s) == outcome(h, s), s


def test_long_chains_need_no_recursion():
    n = 10_000
    grammars = [{"name": "g%d" % i, "lark_grammar": 'start: "a" @g%d' % (i + 1)} for i in range(n)]
    grammars.append({"name": "g%d" % n, "lark_grammar": 'start: "b"'})
    g = Grammar.from_llguidance({"grammars": grammars})
    assert outcome(g, "a" * 20) == "prefix_only"
    assert outcome(g, "a" * n + "b") == "accept"


def test_nested_lark_depth_is_bounded_as_in_llguidance():
    def nested(depth):
        return 'start: x\nx: ' + "%lark { start: x\nx: " * depth + '"a"' + "\n}" * depth
    assert outcome(Grammar.from_lark(nested(29)), "a") == "accept"
    with pytest.raises(GrammarError, match="too deeply nested"):
        Grammar.from_lark(nested(30))
    with pytest.raises(GrammarError, match="too deeply nested"):
        Grammar.from_lark(nested(10_000))


ERRORS = [
    ('start: "a" @nope', "unknown grammar @nope", (1, 12)),
    ('start: "a" sub\nsub: %lark {\nstart: "b" @x\n}', "unknown grammar @x", (3, 12)),
    ('start: sub\nsub: %lark {\nstart: "b" undefined\n}', "undefined symbol 'undefined'", (3, 12)),
    ('start: sub\nsub: %lark { start: "b"', "Unmatched %lark", (2, 6)),
    ('start: sub\nsub: %lark start: "b"', "Expected '{' after %lark", (2, 12)),
    ('start: sub\nsub: %lark {\n%llguidance {"foo": true}\nstart: "b"\n}', "unknown %llguidance option 'foo'", (3, 13)),
    ('start: sub\nsub: %lark {\nrule: "b"\n}', "no start rule", None),
    ('start: j\nj[max_tokens=3]: %lark {\nstart: "b"\n}', "max_tokens", (2, 3)),
]


@pytest.mark.parametrize("grammar, message, where", ERRORS)
def test_lark_errors(grammar, message, where):
    with pytest.raises(GrammarError, match=message) as info:
        Grammar.from_lark(grammar)
    if where is not None:
        assert (info.value.line, info.value.column) == where


SUB = {"name": "sub", "lark_grammar": 'start: "b"'}
TOP_ERRORS = [
    ({"grammars": []}, "empty grammars array"),
    ({"grammars": [{"lark_grammar": "start: @sub"}, SUB, SUB]}, "duplicate grammar name: @sub"),
    ({"grammars": [{"lark_grammar": "start: \"a\"", "json_schema": {}}]}, "cannot have both"),
    ({"grammars": [{"name": "x"}]}, "either lark_grammar or json_schema"),
    ({"grammars": [{"lark_grammar": "start: @sub"}, SUB], "foo": 1}, "unknown field.*foo"),
    ({"grammars": [{"lark_grammar": "start: @sub", "nodes": []}, SUB]}, "unknown field.*nodes"),
    ({"grammars": [{"lark_grammar": "start: @sub"}, SUB], "max_tokens": 3}, "max_tokens"),
    ({"grammars": [{"lark_grammar": "start: j\nj[max_tokens=3]: @sub"}, SUB]}, "max_tokens"),
    ({"grammars": [{"lark_grammar": "start: A\nA: @sub"}, SUB]}, "cannot be used in terminals"),
    ({"grammars": [{"lark_grammar": "start: \"a\""}, {"name": "o", "lark_grammar": "start: bad"}]},
     r"grammar #1 \(@o\): undefined symbol 'bad'"),
    ({"grammars": [{"lark_grammar": "start: @j"}, {"name": "j", "json_schema": {"type": "nope"}}]},
     "failed to compile JSON schema"),
    ([], "JSON object"),
    ("{", "not valid JSON"),
]


@pytest.mark.parametrize("obj, message", TOP_ERRORS)
def test_top_level_errors(obj, message):
    with pytest.raises(GrammarError, match=message):
        Grammar.from_llguidance(obj)


@pytest.mark.parametrize("text, message, where", [
    ('{"grammars": [\n  {"lark_grammar": "start: \\"a\\""},]}', "not valid JSON", (2, 36)),
    ('{"grammars": []} []', "extra data after the JSON value", (1, 18)),
    ('{"grammars": "\udc80"}', r"lone surrogate U\+DC80", (1, 15)),
    (b'{"grammars": "\xff"}', r"lone surrogate U\+DCFF", (1, 15)),  # bytes that are not UTF-8
    ("[" * 100_000, "unexpected end of text", (1, 100_001)),  # deep nesting: no RecursionError
])
def test_top_level_text_errors_have_their_place(text, message, where):
    with pytest.raises(GrammarError, match=message) as info:
        Grammar.from_llguidance(text)
    assert (info.value.line, info.value.column) == where


def test_errors_in_a_listed_grammar_have_its_line_and_column():
    with pytest.raises(GrammarError) as info:
        Grammar.from_llguidance({"grammars": [{"lark_grammar": 'start: "a"\n  @nope'}]})
    assert (info.value.line, info.value.column) == (2, 3)


def test_known_differences_from_llguidance():
    """docs/semantics.md, "Known differences": maskref never skips before a sub-grammar's
    first lexeme, and a reference to the start grammar means its language."""
    g = Grammar.from_lark('start: sub+\nsub: %lark {\nstart: "a" "b"?\n%ignore " "\n}')
    assert outcome(g, "ab a") == "reject"  # llguidance: accept
    g = Grammar.from_llguidance({"grammars": [{"name": "main", "lark_grammar": 'start: "(" @main? ")"'}]})
    assert outcome(g, "(()") == "prefix_only"  # llguidance: accept
    assert outcome(g, "(())") == "accept"
    g = Grammar.from_lark(NESTED_DEEP)  # "z"+ may go on or end: llguidance skips only "-"
    assert outcome(g, "<(z )>") == "accept"  # llguidance: reject
    g = Grammar.from_lark('start: "a" sub "b"\nsub: %lark {\nstart: "x"?\n%ignore " "\n}\n%ignore "-"')
    assert outcome(g, "a-xb") == "accept"  # llguidance: reject


VOCAB = [b"<eos>", b".", b"A", b"!", b"E", b" ", b"x", b"A ", b" !", b"!x", b"xE", b".A", b"  ", b"\t"]


@pytest.mark.parametrize("source", [NESTED, NESTED_ONCE, REF_LARK, REF_JSON])
def test_masks_equal_naive_mask(source):
    grammar = build(source)
    alphabet = sorted({bytes([b]) for t in VOCAB[1:] for b in t} | {b"[", b"]", b"|", b"a", b"b", b"1", b","})
    vocab = Vocabulary.from_bytes(VOCAB + [t for t in alphabet if t not in VOCAB], eos_token_id=0)
    rng = random.Random(repr(source))
    for _ in range(12):
        m = Matcher(grammar, vocab)
        path = []
        for _ in range(8):
            assert m.mask() == naive_mask(grammar, vocab, path), path
            choices = [t for t in m.mask().allowed() if t != 0]
            if not choices:
                break
            t = rng.choice(choices)
            assert m.consume(t)
            path.append(t)


# ------------------------------------------------------------------ against llguidance


@pytest.fixture(scope="module")
def llg():
    llguidance = pytest.importorskip("llguidance", reason="llguidance is not installed")
    from conformance.peers import llguidance as adapter

    return llguidance, adapter


def their_outcomes(llguidance, tok, source, alphabet, n):
    """{text: llguidance's outcome} for every text over `alphabet` up to length n that
    llguidance does not reject before its end (a depth-first walk with rollback)."""
    m = llguidance.LLMatcher(tok, llg_grammar(source), log_level=0)
    assert not m.is_error(), m.get_error()
    seen = {}
    stack = [("", 0)]  # (text, 0 = enter, 1 = leave)
    while stack:
        text, leave = stack.pop()
        if leave:
            m.rollback(1)
            continue
        if text:  # (the alphabets are ASCII: one byte, one token)
            if m.validate_tokens([ord(text[-1])]) != 1:
                continue
            assert m.consume_token(ord(text[-1]))
            stack.append((text, 1))
        seen[text] = "accept" if m.is_accepting() else "prefix_only"
        if len(text) < n:
            stack.extend((text + c, 0) for c in alphabet)
    return seen


@pytest.mark.parametrize("source, alphabet, n", AGREE)
def test_languages_equal_llguidance(llg, source, alphabet, n):
    llguidance, adapter = llg
    tok = adapter.tokenizer(Vocabulary.from_bytes([bytes([i]) for i in range(256)] + [b"<eos>"], eos_token_id=256))
    grammar = build(source)
    theirs = their_outcomes(llguidance, tok, source, alphabet, n)
    for k in range(n + 1):
        for chars in itertools.product(alphabet, repeat=k):
            text = "".join(chars)
            assert outcome(grammar, text) == theirs.get(text, "reject"), text


@pytest.fixture(scope="module")
def gpt2(llg):
    v = Vocabulary.load("gpt2")
    return v, llg[1].tokenizer(v, slices=[])


@pytest.mark.parametrize("source", [NESTED, NESTED_FIXED, REF_JSON, REF_LARK,
                                    {"grammars": [{"lark_grammar": 'start: "call " @f "\\n"'},
                                                  {"name": "f", "json_schema": {"type": "object", "properties": {
                                                      "name": {"type": "string"}, "n": {"type": "integer"}}}}]}])
def test_gpt2_masks_equal_llguidance(llg, gpt2, source):
    llguidance = llg[0]
    vocab, tok = gpt2
    grammar = build(source)
    rng = random.Random(repr(source))
    for _ in range(3):
        ours = Matcher(grammar, vocab)
        theirs = llguidance.LLMatcher(tok, llg_grammar(source), log_level=0)
        for _ in range(12):
            mask = ours.mask()
            bits = theirs.compute_bitmask()
            if mask.to_bytes() != bits[: len(mask.to_bytes())]:
                only_ours = [vocab.tokens[t] for t in mask.allowed() if not (bits[t >> 3] >> (t & 7)) & 1]
                only_theirs = [vocab.tokens[t] for t in range(len(vocab))
                               if (bits[t >> 3] >> (t & 7)) & 1 and t not in mask]
                pytest.fail("only maskref: %r; only llguidance: %r" % (only_ours[:10], only_theirs[:10]))
            choices = [t for t in mask.allowed() if t not in vocab.eos_token_ids]
            if not choices:
                break
            t = rng.choice(choices)
            assert ours.consume(t) and theirs.consume_token(t)
