"""The slicer gives exactly the masks of a plain walk, only faster.

Property: on random grammars and vocabularies, masks with slices equal masks without.
Real vocabularies: JSON-like grammars at in-string, in-key, short and long string
positions and after an opening quote, where slices apply (or must not).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.masks.slicer import JSON_SLICES, Slicer
from refimpl.regex import ExprSet, compile_pattern
from refimpl.regex.relevance import prefixes_contain
from tests.support.budget import examples
from tests.support.grammars import JSONISH, cfg_grammar, cfg_grammars, cfg_tokens, regex_grammar, regexes, token_lists, vocabulary
from tests.support.paths import DATA

SMALL_SLICES = ["[ ,]+", "[ab]{1,2}", "[abc]+", "[^\"]+"]


def masks_agree_along(grammar, vocab, choices, slices):
    with_slices = Matcher(grammar, vocab, slices=slices)
    without = Matcher(grammar, vocab, slices=[])
    for choice in choices + [0]:
        mask = without.mask()
        assert with_slices.mask() == mask, (grammar, choices)
        tokens = [t for t in mask.allowed() if t not in vocab.eos_token_ids]
        if not tokens:
            break
        t = tokens[choice % len(tokens)]
        assert with_slices.consume(t) and without.consume(t)


@settings(max_examples=examples(100))
@given(regexes, token_lists, st.lists(st.integers(0, 1000), max_size=5), st.sampled_from([SMALL_SLICES, list(JSON_SLICES)]))
def test_regex_masks_with_and_without_slices(pattern, tokens, choices, slices):
    g = regex_grammar(pattern)
    masks_agree_along(g, vocabulary(tokens), choices, slices)


@settings(max_examples=examples(100))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), max_size=5), st.sampled_from([SMALL_SLICES, list(JSON_SLICES)]))
def test_cfg_masks_with_and_without_slices(ir, tokens, choices, slices):
    g = cfg_grammar(ir)
    masks_agree_along(g, vocabulary(tokens), choices, slices)


STRING = r'"[^"\\\x00-\x1F\x7F]%s"'


DATA = DATA / "vocab"


@pytest.fixture(scope="module", params=["gpt2", "tekken"])
def real_vocab(request):
    if request.param == "gpt2":
        return Vocabulary.load("gpt2")
    return Vocabulary.load(str(DATA / "mistral_nemo_tekken.json.gz"))


def sliced_and_plain(grammar, vocab, prefix):
    a, b = Matcher(grammar, vocab), Matcher(grammar, vocab, slices=[])
    assert a.consume_bytes(prefix) and b.consume_bytes(prefix)
    mask = a.mask()
    assert mask == b.mask()
    return a, b, mask


@pytest.mark.parametrize(
    "pattern,prefix,applied",
    [
        (STRING % "*", b'"', 3),  # after an opening quote: every text slice applies
        (STRING % "*", b'"hello wor', 3),  # inside a string
        (STRING % "{0,5}", b'"', 0),  # maxLength 5: a 10-character token would not fit
        (STRING % "{0,50}", b'"', 2),  # maxLength 50: the <=10 and <=30 slices apply, not the unbounded one
        (STRING % "{0,50}", b'"' + b"x" * 25, 1),  # 25 used: only the <=10 slice still fits
    ],
)
def test_string_positions(real_vocab, pattern, prefix, applied):
    a, b, mask = sliced_and_plain(Grammar.from_regex(pattern), real_vocab, prefix)
    assert a.stats["slices_applied"] == applied
    if applied:  # the applied slices' tries were not walked
        assert a.stats["trie_nodes_walked"] < b.stats["trie_nodes_walked"] * (0.2 if applied == 3 else 0.5)


@pytest.mark.parametrize("prefix,certain,applied", [
    (b'{"ke', (False, False, False, False), 0),  # a KEY is [a-z_]+: no text slice fits
    (b'{"key": "va', (False, True, True, True), 3),
    # only the whitespace slice is certain: a few hundred tokens, less than MIN_SHARE of
    # the vocabulary, so the one trie is walked instead (Slicer.plan)
    (b'{"key": ', (True, False, False, False), 0),
    (b'{"key": 1, ', (True, False, False, False), 0),
])
def test_json_like_lark_positions(real_vocab, prefix, certain, applied):
    a, b, mask = sliced_and_plain(Grammar.from_lark(JSONISH), real_vocab, prefix)
    assert a._slice_oracle.certain(a.recognizer.state) == certain
    assert a.stats["slices_applied"] == applied
    assert (a.slicer.plan(certain) is None) == (applied == 0)


def test_slices_partition_the_vocabulary():
    v = Vocabulary.load("gpt2")
    slicer = Slicer.of(v, JSON_SLICES)
    sizes = [s.n_tokens for s in slicer.slices] + [slicer.final.n_tokens]
    assert sum(sizes) == sum(1 for t in range(len(v)) if v.is_grammar_token(t))
    union = 0
    for s in slicer.slices + [slicer.final]:
        assert union & s.flags == 0
        union |= s.flags
    assert Slicer.of(v, JSON_SLICES) is slicer  # built once per vocabulary


def test_prefix_containment():
    es = ExprSet()
    c = lambda p: compile_pattern(es, p, extended=True)  # noqa: E731
    assert prefixes_contain(es, c("[a-z]{1,10}"), c("[a-z]*\"")) is True
    assert prefixes_contain(es, c("[a-z]{1,10}"), c("[a-z]{0,5}\"")) is False
    assert prefixes_contain(es, c("[a-z]{1,3}"), c("[a-z]{0,5}\"")) is True
    assert prefixes_contain(es, c("ab|ac"), c("a(b|c)d")) is True
    assert prefixes_contain(es, c("ab|ae"), c("a(b|c)d")) is False
    assert prefixes_contain(es, c("[^x]+"), c("(?s:.)*")) is True  # UTF-8 text extends to text
    assert prefixes_contain(es, c("(?-u)[^x]+"), c("(?s:.)*")) is False  # a lone \\xFF does not
    assert prefixes_contain(es, c("a+"), c("a*&~(a{3})", )) is True  # every a^n extends to a longer a^m
    # fuel: a long counted repetition needs many states; a tiny fuel answers "unknown"
    long_slice, lexeme = c("[a-z]{1,300}"), c("[a-z]{0,300}\"")
    assert prefixes_contain(es, long_slice, lexeme, fuel=5) is None
    assert prefixes_contain(es, long_slice, lexeme) is True
    assert prefixes_contain(es, c("[a-z]{1,301}"), lexeme) is False


def test_a_slice_inside_a_larger_one_takes_its_answer():
    """`{1,10}` is inside `{1,30}`, inside `+`: where the larger slice is certain, the
    smaller is without its own search (a `\\p{Letter}` key: 6.7 -> 2.0 s, found by the
    json-schema fuzz targets), and the masks stay the definition's."""
    from refimpl import naive_mask
    from refimpl.masks.slicer import SliceOracle

    vocab = Vocabulary.from_bytes([bytes([b]) for b in range(256)] + [b"ab", "é".encode(), b"\n"])
    g = Grammar.from_json_schema({"type": "object", "patternProperties": {"^\\p{Letter}+$": {"type": "number"}}})
    m = Matcher(g, vocab, slices=JSON_SLICES)  # given: a vocabulary this small has none by default
    oracle = SliceOracle.of(Slicer.of(vocab, JSON_SLICES), m.recognizer.lexer)
    assert oracle.larger == ((), (3, 2), (3,), ())
    for t in b'{"':
        assert m.consume(t)
    assert m.mask() == naive_mask(g, vocab, list(b'{"'))
    assert m.stats["slices_applied"] > 0
