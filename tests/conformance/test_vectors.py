"""The vector format (conformance/vectors.py): vectors and masks round-trip, a tampered
mask is refused, the built-in special vocabulary round-trips by name and inline."""
import json

import pytest

from conformance.vectors import (
    FormatError,
    GrammarSpec,
    Vector,
    bitmask_from_ids,
    decode_mask,
    encode_mask,
    ids_of,
    load_builtin,
    record,
    vocab_from_json,
    vocab_hash,
    vocab_to_json,
)
from refimpl import Vocabulary
from tests.support.vectors import digits_vector


def test_vector_round_trip():
    v = digits_vector()
    again = Vector.from_json(json.loads(v.to_line()))
    assert again.path == [49, 50, 256]
    assert [s.mask for s in again.steps] == [s.mask for s in v.steps]
    assert [s.accepting for s in again.steps] == [False, True, True, True]
    assert ids_of(again.steps[0].mask) == list(range(48, 58))
    assert ids_of(again.steps[-1].mask) == []  # after EOS nothing


def test_stored_masks_are_bounded():
    """A stored mask inflates to at most one byte more than its bitmask (a zlib bomb stops
    there); ids are token ids; broken base64 or zlib is a FormatError, as is any line that
    is not a vector."""
    import base64
    import zlib

    bomb = base64.b64encode(zlib.compress(bytes(10 ** 7))).decode()
    with pytest.raises(FormatError, match="mask of 37 bytes for 257 tokens"):
        decode_mask({"zlib": bomb}, 257)
    for ids in ([-1], [257], [True], [1.5], "1"):
        with pytest.raises(FormatError, match="a mask's ids are token ids from 0 to 256"):
            decode_mask({"ids": ids}, 257)
    with pytest.raises(FormatError, match="not base64 of a zlib stream"):
        decode_mask({"zlib": "AAAA"}, 257)
    with pytest.raises(FormatError, match="a vector is a JSON object, not a list"):
        Vector.from_json([])


def test_mask_encodings():
    n = 50_000
    dense = bitmask_from_ids(range(0, n, 2), n)
    assert "zlib" in encode_mask(dense, n)
    near = bitmask_from_ids(list(range(0, n, 2)) + [1], n)
    delta = encode_mask(near, n, previous=dense)
    assert "xor" in delta and decode_mask(delta, n, previous=dense) == near
    bad = dict(encode_mask(dense, n), sha256="0" * 16)
    with pytest.raises(FormatError):
        decode_mask(bad, n)


def test_special_vocabulary_round_trips():
    """The built-in special vocabulary: bytes, text tokens spelling pieces of special-token
    texts, special tokens with two EOS ids; stored by name, and inline with its special ids."""
    v = load_builtin("special")
    assert [v.tokens[t] for t in v.eos_token_ids] == [b"<|eot_id|>", b"<|end_of_text|>"]
    specials = {v.tokens[t] for t in v.special_token_ids}
    assert {b"<think>", b"</think>", b"<|python_tag|>", b"<|start_header_id|>"} <= specials
    texts = [v.tokens[t] for t in range(len(v)) if t not in v.special_token_ids]
    assert {b"<|", b"eot", b"_id|>", b"<|eot_id|>"} <= set(texts)  # the text <|eot_id|> is no special token
    stored = vocab_to_json(v)
    assert stored["builtin"] == "special" and vocab_from_json(json.loads(json.dumps(stored))) is v
    copy = Vocabulary(v.tokens, v.eos_token_ids, v.special_token_ids, name="special-copy")
    inline = json.loads(json.dumps(vocab_to_json(copy)))
    assert "tokens_hex" in inline and inline["eos"] == list(v.eos_token_ids)
    again = vocab_from_json(inline)
    assert (again.tokens, again.eos_token_ids, again.special_token_ids) == (v.tokens, v.eos_token_ids,
                                                                           v.special_token_ids)
    assert vocab_hash(again) == vocab_hash(v)
    spec = GrammarSpec("lark", 'start: <think> /[a-z]+/ </think>\n')
    think = v.tokens.index(b"<think>")
    vector = record(spec.compile(), spec, copy, [think, ord("a"), think + 1, v.eos_token_id], "t")
    line = Vector.from_json(json.loads(vector.to_line()))
    assert line.path == vector.path and [s.mask for s in line.steps] == [s.mask for s in vector.steps]
    assert ids_of(line.steps[0].mask) == [think] and line.steps[-1].accepting


def test_error_vectors_round_trip_and_stay_readable_without_their_error():
    """An error vector records refimpl's error (its class and position) and one step, the
    empty mask: a reader that predates `error` (it ignores the field) still reads it, as
    the grammar of an empty language. A malformed `error` is refused."""
    from conformance.vectors import byte_vocabulary, refused

    v = refused(GrammarSpec("json_schema", schema={"type": "strin"}), byte_vocabulary(), "test/unknown-type")
    data = json.loads(v.to_line())
    assert data["error"] == {"type": "SchemaError", "pointer": "/type"} and v.error == data["error"]
    assert Vector.from_json(data).error == v.error
    old = Vector.from_json({k: x for k, x in data.items() if k != "error"})  # what an older reader keeps
    assert old.error is None and len(old.steps) == 1 and ids_of(old.steps[0].mask) == [] and not old.steps[0].accepting
    for bad in ({"type": 5}, {}, {"type": "RegexError", "offset": "1"}, {"type": "SchemaError"},
                {"type": "GrammarError", "offset": True, "line": 1, "column": 1}):
        with pytest.raises(FormatError, match="error"):
            Vector.from_json(dict(data, error=bad))
    with pytest.raises(AssertionError, match="compiles"):
        refused(GrammarSpec("regex", "a+"), byte_vocabulary(), "test/valid")
