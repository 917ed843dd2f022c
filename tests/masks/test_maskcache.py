"""The mask cache (refimpl/masks/maskcache.py) is exact: along random paths through random
grammars, rollback included, every mask with the cache equals the mask without it; and on
repetitive input it hits."""
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Limits, Matcher, Vocabulary
from tests.support.budget import examples
from tests.support.grammars import cfg_grammar, cfg_grammars, cfg_tokens, lockstep, vocabulary


@settings(max_examples=examples(200))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), min_size=4, max_size=14))
def test_masks_with_and_without_the_cache(ir, tokens, choices):
    """Along a random path with rollbacks (test_matcher.lockstep), the cached matcher's
    masks are the plain one's; a budget of three masks makes it evict too."""
    g, vocab = cfg_grammar(ir), vocabulary(tokens)
    plain = Matcher(g, vocab)
    cached = Matcher(g, vocab, mask_cache=True, limits=Limits(mask_cache_bytes=3 * len(vocab)))
    lockstep(plain, cached, vocab, choices)


def test_json_array_hits():
    """After the first elements, every mask of an array of objects is a hit."""
    schema = {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}},
                                         "required": ["a"], "additionalProperties": False}}
    g, vocab = Grammar.from_json_schema(schema), Vocabulary.load("gpt2")
    m = Matcher(g, vocab, mask_cache=True)
    text = "[" + ", ".join('{"a": %d}' % (i % 10) for i in range(8)) + "]"
    for i in range(len(text)):
        m.mask()
        if i == len(text) // 2:
            misses = m.stats["mask_cache_misses"]
        assert m.consume_bytes(text[i].encode())
    assert m.stats["mask_cache_hits"] > 0 and m.stats["mask_cache_misses"] <= misses + 1


def test_the_cache_is_the_grammars_per_vocabulary():
    """A fresh Matcher of a grammar finds the masks earlier Matchers computed; another
    vocabulary, or another grammar, has its own cache."""
    g = Grammar.from_lark('start: "[" x ("," x)* "]"\nx: /[0-9]+/')
    vocab = Vocabulary.from_bytes([b"[", b"1", b"2", b",", b"]"])
    first, second = Matcher(g, vocab, mask_cache=True), Matcher(g, vocab, mask_cache=True)
    assert first.cache is second.cache and first.mask() == second.mask()
    assert second.stats["mask_cache_hits"] == 1 and second.stats["mask_cache_misses"] == 1
    other_vocab = Vocabulary.from_bytes([b"[", b"1", b"2", b",", b"]"])
    other_grammar = Grammar.from_lark('start: "[" x ("," x)* "]"\nx: /[0-9]+/')
    assert Matcher(g, other_vocab, mask_cache=True).cache is not first.cache
    assert Matcher(other_grammar, vocab, mask_cache=True).cache is not first.cache
    assert Matcher(g, vocab).cache is None

