"""A vocabulary padded to the logits' width: the padding ids are in the id space (every
mask is that wide) and never allowed — by the walk, by a token lexeme (`<[*]>`, a
negated range), by the token index, nor by consume."""
import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, GrammarError, Mask, Matcher, Vocabulary, VocabularyError, naive_mask, open_matcher
from refimpl.tokens.trie import TokenTrie
from tests.support.special import SPECIAL, build, grammar_of, special_grammars


def test_padded_vocabulary():
    v = Vocabulary.from_bytes([b"a", b"b", b"</s>"], eos_token_id=2)
    p = v.padded(8)
    assert len(v) == 3 and not v.padding_ids  # unchanged
    assert len(p) == 8 and p.padding_ids == range(3, 8) and p.tokens == [b"a", b"b", b"</s>"] + [b""] * 5
    assert p.eos_token_ids == (2,) and p.special_token_ids == {2}
    assert not any(p.is_grammar_token(t) for t in p.padding_ids)
    assert p.padded(3).padding_ids == range(3, 3) and len(p.padded(16)) == 16  # from the tokens, not the old width
    assert "padded to 8" in repr(p)
    with pytest.raises(VocabularyError, match="vocab_size 2 is smaller than the vocabulary"):
        v.padded(2)


def test_padding_ids_are_not_in_the_trie():
    p = Vocabulary.from_bytes([b"a", b"ab", b"b"]).padded(40)
    trie = TokenTrie(p)
    assert trie.n_tokens == 3 and len(trie) == 4  # root, a, ab, b


def test_every_token_lexeme_excludes_padding():
    p = SPECIAL.padded(len(SPECIAL) + 9)
    n = p.padding_ids.start
    assert Matcher(Grammar.from_lark("start: <[*]>"), p).mask().allowed() == list(range(n))
    assert Matcher(Grammar.from_lark("start: <[^0-4]>"), p).mask().allowed() == list(range(5, n))
    with pytest.raises(GrammarError, match=r"the vocabulary has %d tokens, padded to %d" % (n, len(p))):
        Matcher(Grammar.from_lark("start: <[%d]>" % (n + 1)), p)


@settings(max_examples=60, deadline=None)
@given(special_grammars(), st.integers(1, 40), st.lists(st.integers(0, 1000), max_size=6))
def test_padding_never_allowed(source, extra, choices):
    """The padded vocabulary's masks are the unpadded one's, widened with zeros: the
    same allowed ids, none of them padding; consume refuses every padding id; the naive
    mask (consume, token by token) agrees."""
    grammar = grammar_of(source)
    padded = SPECIAL.padded(len(SPECIAL) + extra)
    m, p = Matcher(grammar, SPECIAL), Matcher(build(source), padded)
    path = []
    for choice in choices + [None]:
        mask, wide = m.mask(), p.mask()
        assert wide.vocab_size == len(padded) and wide.allowed() == mask.allowed(), (source, path)
        assert wide == naive_mask(grammar, padded, path)
        assert not any(p.consume(t) for t in padded.padding_ids)
        allowed = mask.allowed()
        if choice is None or not allowed:
            break
        t = allowed[choice % len(allowed)]
        assert m.consume(t) and p.consume(t)
        path.append(t)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["[ab]+", "a(b|ab)*", "[0-9]+(\\.[0-9]+)?", "x?é+"]), st.integers(1, 70),
       st.lists(st.integers(0, 1000), max_size=5))
def test_padding_with_the_token_index_and_native_walker(pattern, extra, choices):
    """The token index (a mask is a lookup) and the C walker, where built, on a padded
    vocabulary: the Python walker's masks, none with a padding id."""
    vocab = Vocabulary.from_bytes([b"a", b"b", b"ab", b"0", b"12", b".", b"x", b"\xc3", b"\xa9", b"\xc3\xa9", b"</s>"],
                                  eos_token_id=10).padded(11 + extra)
    grammar = Grammar.from_regex(pattern)
    matchers = [Matcher(grammar, vocab), Matcher(grammar, vocab, backend="index")]
    try:
        matchers.append(open_matcher(grammar, vocab, backend="native"))
    except ValueError:  # not built here
        pass
    for choice in choices + [None]:
        masks = [m.mask() for m in matchers]
        assert all(mask == masks[0] for mask in masks), pattern
        assert masks[0].vocab_size == len(vocab) and all(t < 11 for t in masks[0].allowed())
        allowed = masks[0].allowed()
        if choice is None or not allowed:
            break
        t = allowed[choice % len(allowed)]
        assert all(m.consume(t) for m in matchers)


def test_padding_crosses_the_worker_protocol():
    """A padded vocabulary sent to a worker (the pypy and cmd: backends) as its tokens and
    `vocab_size`: the worker's vocabulary has the same padding, so `<[*]>` skips it there too."""
    from accel.worker.specs import vocabulary_spec
    from refimpl.serving.worker import Worker

    padded = SPECIAL.padded(len(SPECIAL) + 7)
    spec = vocabulary_spec(padded)
    assert len(spec["tokens_hex"]) == len(SPECIAL) and spec["vocab_size"] == len(padded)
    worker = Worker()
    reply = worker.handle({"op": "load_vocabulary", "id": 1, "vocabulary": spec})
    assert reply["ok"] and reply["vocab_size"] == len(padded)
    reply = worker.handle({"op": "create", "id": 2, "grammar": {"kind": "lark", "text": "start: <[*]>"},
                           "vocabulary": {"ref": reply["vocabulary_id"]}})
    reply = worker.handle({"op": "mask", "id": 3, "session": reply["session"]})
    mask = Mask.from_bytes(base64.b64decode(reply["mask"]), reply["vocab_size"])
    assert mask == Matcher(Grammar.from_lark("start: <[*]>"), padded).mask() and len(mask) == len(SPECIAL)
    assert "vocab_size" not in vocabulary_spec(SPECIAL)
