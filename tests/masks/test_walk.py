"""The trie walk (refimpl/masks/walk.py): what it keeps while it walks, and the subtrees it
takes whole.

The walk's masks equal the naive definition on every path (tests/masks/test_matcher.py);
here, the pieces that make it fast and could make it wrong: restart's answers kept per
entry of the (depth, top) stack, `restart` and `advance` asked only where a lexeme ends
and the next may begin, and subtrees taken whole where every character loops — tokens of
complete, cut-short and malformed UTF-8 against such states.
"""
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Matcher, Vocabulary, open_matcher
from tests.support.budget import examples
from tests.support.grammars import check_path, regex_grammar, vocabulary


def native_if_built():
    try:
        import accel
    except ImportError:
        return []
    return ["native"] if accel.available_backends().get("native") is None else []


def test_restarts_are_kept_per_entry_not_per_top():
    """The walk keeps restart()'s answers per entry of its (depth, top) stack. Here the
    lexer state inside C is the same after "a" and after "b" (both rows allow C alone),
    and so is the top; only the row below differs, and with it what follows C. Answers
    kept per (state, top) would let "acq" and "bcp" through."""
    g = Grammar.from_lark('start: "a" C "p" | "b" C "q"\nC: /c+/')
    v = Vocabulary.from_bytes([b"acp", b"acq", b"bcp", b"bcq", b"acc", b"bccq"])
    for backend in ["python"] + native_if_built():
        with open_matcher(g, v, backend=backend) as m:
            assert m.mask().allowed() == [0, 3, 4, 5], backend


def test_the_walk_restarts_once_per_state():
    """Where a lexeme ends, the walk asks `restart` once per lexer state (and entry), and
    `advance` only where the next lexeme may start with the byte: after `{"a": 1, ` on
    GPT-2, most of the ~400 nodes where the number or the whitespace ends are refused by
    the first byte of the next lexeme, without a call of `advance`."""
    g = Grammar.from_json_schema({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}})
    m = Matcher(g, Vocabulary.load("gpt2"), slices=[])
    assert m.consume_bytes(b'{"a": 1, ')
    rec, calls = m.recognizer, {"advance": 0, "restart": 0}

    def counting(name, hook):
        def counted(*args):
            calls[name] += 1
            return hook(*args)
        return counted

    for name in calls:
        setattr(rec, name, counting(name, getattr(rec, name)))
    allowed = m.mask().allowed()
    assert allowed and all(m.vocab.tokens[t][:1] in b'" \t\n\r' for t in allowed)
    assert m.vocab.tokens.index(b'"') in allowed and m.stats["trie_nodes_walked"] > 300
    assert 0 < calls["restart"] <= 10 and 0 < calls["advance"] <= 10, calls


# Subtrees taken whole by their characters (tokens/subtrees.py): tokens of complete,
# cut-short and malformed UTF-8 against states where every character loops, or not.
UTF8_PIECES = [b"a", b"\"", b"\\", "é".encode(), "€".encode(), "😀".encode(), b"\xc3", b"\xe2\x82", b"\xf0\x9f",
               b"\x80", b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b" "]
utf8_tokens = st.lists(st.lists(st.sampled_from(UTF8_PIECES), min_size=1, max_size=4).map(b"".join),
                       min_size=4, max_size=30)
CHARACTER_LOOPS = ['"[^"\\\\]*"', "[^a]*", "(?s:.)*", r"\w*", "[^\u20ac]*x", "[a-z\u00e0-\u00ff]+", "(?s:.){0,3}",
                   r"(?-u:\xc3)(?s:.)*"]  # a raw byte, then characters: the trie's path is not


@settings(max_examples=examples(150))
@given(st.sampled_from(CHARACTER_LOOPS), utf8_tokens, st.lists(st.integers(0, 1000), max_size=5))
def test_character_loops_equal_the_naive_mask(pattern, tokens, choices):
    check_path(regex_grammar(pattern), vocabulary(tokens), choices)
