"""The mask cache (refimpl/maskcache.py) is exact: along random paths through random
grammars, rollback included, every mask with the cache equals the mask without it; and on
repetitive input it hits."""
from hypothesis import given, settings, strategies as st
from budget import examples
from test_matcher import cfg_grammar, cfg_grammars, cfg_tokens, vocabulary

from refimpl import Grammar, Limits, Matcher, Vocabulary


@settings(max_examples=examples(200))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), min_size=4, max_size=14))
def test_masks_with_and_without_the_cache(ir, tokens, choices):
    """A choice c consumes the (c mod k)-th allowed token, or rolls one back when c mod 5
    is 4; the cached matcher follows the plain one. A small budget makes it evict too."""
    g, vocab = cfg_grammar(ir), vocabulary(tokens)
    plain = Matcher(g, vocab)
    cached = Matcher(g, vocab, mask_cache=True, limits=Limits(mask_cache_bytes=3 * len(vocab)))
    depth = 0
    for c in choices:
        mask = plain.mask()
        assert cached.mask() == mask
        if c % 5 == 4 and depth:
            plain.rollback(1)
            cached.rollback(1)
            depth -= 1
            continue
        allowed = [t for t in mask.allowed() if t not in vocab.eos_token_ids]
        if not allowed:
            break
        t = allowed[c % len(allowed)]
        assert plain.consume(t) and cached.consume(t)
        depth += 1
    assert cached.mask() == plain.mask()


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
