"""How a token is read (refimpl/masks/reading.py): the one rule the mask, consume, top-k,
forced tokens and the oracle share.

On random grammars mixing text, token lexemes (`<|eot|>`, `<[1-3,7]>`, `<[*]>`), `stop=""`
lexemes and sub-grammars, over a vocabulary with EOS, specials, an empty token and a
special spelled like text (tests/support/special.py), along random paths: each token's
reading is what consume does with it (BY_ID and EOS steps read no bytes; BYTES reads the
token's bytes; REFUSED changes nothing), and the mask is exactly the tokens the reading
allows. On GPT-2, after JSON prefixes, the single-token check is the mask.
"""
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.masks.reading import BY_ID, BYTES, ENDS_LEXEME, ENDS_OUTPUT, NAMES, REFUSED
from tests.support.budget import examples
from tests.support.special import WIDER, grammar_of, special_grammars


@settings(max_examples=examples(100))
@given(special_grammars(), st.lists(st.integers(0, 1000), max_size=5))
def test_each_reading_is_what_consume_does(source, choices):
    m = Matcher(grammar_of(source), WIDER)
    for choice in list(choices) + [None]:
        reading, mask = m.reading(), m.mask()
        before = m.recognizer.bytes_consumed
        for t in range(len(WIDER) + 2):  # and two ids past the vocabulary
            how, ok = reading.how(t), reading.allows(t)
            assert ok == (t in mask if t < len(WIDER) else False), (source, t, NAMES[how])
            assert (how == REFUSED) <= (not ok)
            if how == BYTES:
                assert WIDER.is_grammar_token(t)
            elif how in (ENDS_LEXEME, ENDS_OUTPUT):
                assert t in WIDER.eos_token_ids
            elif how == BY_ID:
                assert m.tokens.lexemes_with(t) & reading.by_id
            consumed = m.consume(t)
            assert consumed == ok, (source, t, NAMES[how])
            if consumed:
                steps = m.recognizer.bytes_consumed - before
                if how == BYTES:
                    assert steps >= len(WIDER.tokens[t])  # its bytes (and a token boundary)
                elif how != ENDS_OUTPUT:
                    assert steps == 1, NAMES[how]  # one symbol, or one lexeme ended
                else:
                    assert m.eos_consumed and steps == 0
                m.rollback(1)
                assert m.mask() == mask
        allowed = [t for t in mask.allowed() if reading.how(t) != ENDS_OUTPUT]
        if choice is None or not allowed:
            break
        assert m.consume(allowed[choice % len(allowed)])


def test_the_single_token_check_is_the_mask():
    """Every token of GPT-2 after a few JSON prefixes: `allows` says what the mask does."""
    v = Vocabulary.load("gpt2")
    g = Grammar.from_json_schema({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}})
    for prefix in (b"", b'{"a": 1', b'{"a": 12, "b": "x'):
        m = Matcher(g, v)
        assert m.consume_bytes(prefix)
        allows = m.reading().allows
        flags = m.mask().flags
        assert [t for t in range(len(v)) if allows(t)] == [t for t in range(len(v)) if flags[t]], prefix


def test_a_token_is_read_by_id_first_then_as_eos_then_as_bytes():
    v = Vocabulary.from_bytes([b"<eos>", b"a", b"<x>", b"ab", b"", b"b"], eos_token_id=0, special_token_ids=[2])
    m = Matcher(Grammar.from_lark('start: ("a" | <[1]> "b" | <x>)*'), v)
    assert [NAMES[m.reading().how(t)] for t in range(7)] == [
        "ends the output", "by id", "by id", "bytes", "refused", "bytes", "refused"]
    assert m.consume(1) and m.recognizer.bytes_consumed == 1  # "a" read as <[1]>: one symbol, no bytes
    r = m.reading()
    assert [NAMES[r.how(t)] for t in (0, 1, 5)] == ["refused", "bytes", "bytes"]  # "b" must come
    assert r.allows(5) and not r.allows(1) and not r.allows(3)
