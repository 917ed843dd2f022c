"""Sampler-aware top-k (refimpl/decoding/topk.py, `top_k`) against its definition: the full
mask's k best tokens, best first, ties by the lower id.

Random grammars (regexes, Lark-like IR grammars, grammars with token lexemes and
stop="" lexemes), random small vocabularies with EOS, special and empty tokens, random
paths with rollbacks, and random logits with many ties and infinities; k from 0 past
the number of allowed tokens; the fallback budget from 0 (the full mask at the first
refusal) to unlimited (never), so both ways to the answer are taken.
"""
import math
import random
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Matcher, Vocabulary, open_matcher
from refimpl.decoding.topk import reference_top_k, refusals_budget, top_k
from tests.support.budget import examples
from tests.support.grammars import cfg_grammar, cfg_grammars, cfg_tokens, regex_grammar, regexes, token_lists, vocabulary
from tests.support.special import WIDER, grammar_of, special_grammars


def expected(m, logits, k):
    """The definition, spelled out here: sort the mask's tokens by (-score, id)."""
    return sorted(m.mask().allowed(), key=lambda t: (-logits[t], t))[:k]


#: scores from a small set (ties are common), with infinities
scores = st.sampled_from([0.0, 1.0, 1.0, 2.5, -1.0, -0.0, 7.0, math.inf, -math.inf])


def logits_for(n):
    return st.lists(scores, min_size=n, max_size=n + 2)  # a model may pad its output layer


budgets = st.sampled_from([None, 0, 1, 3, 10 ** 9])


def check_path(m, data, choices, max_steps=6):
    """Along a random path (with rollbacks), top_k equals the definition for random
    logits, k and budgets; the full mask is computed only when the budget ran out."""
    n = len(m.vocab)
    depth = 0
    for c in list(choices)[:max_steps] + [None]:
        for _ in range(2):
            logits = data.draw(logits_for(n))
            k = data.draw(st.integers(0, n + 1))
            budget = data.draw(budgets)
            stats = {}
            want = expected(m, logits, k)
            assert top_k(m, logits, k, max_refused=budget, stats=stats) == want, (logits, k, budget)
            limit = refusals_budget(k) if budget is None else budget
            # the full mask is computed exactly when more than `limit` were refused
            assert stats["refused"] <= limit + 1 and stats["checked"] <= len(want) + stats["refused"]
            assert stats["fallback"] == (stats["refused"] > limit)
            assert not stats["fallback"] or k > 0
            assert reference_top_k(m, logits, k) == want
        assert top_k(m, logits, k) == want
        if c is None:
            break
        if c % 5 == 4 and depth:
            m.rollback(1)
            depth -= 1
            continue
        allowed = m.mask().allowed()
        if not allowed:
            break
        assert m.consume(allowed[c % len(allowed)])
        depth += 1


@settings(max_examples=examples(100))
@given(regexes, token_lists, st.lists(st.integers(0, 1000), max_size=6), st.data())
def test_regex_top_k_equals_the_full_masks_top_k(pattern, tokens, choices, data):
    m = Matcher(regex_grammar(pattern), vocabulary(tokens))
    check_path(m, data, choices)


@settings(max_examples=examples(100))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), max_size=6), st.data())
def test_cfg_top_k_equals_the_full_masks_top_k(ir, tokens, choices, data):
    m = Matcher(cfg_grammar(ir), vocabulary(tokens))
    check_path(m, data, choices)


@settings(max_examples=examples(60))
@given(special_grammars(), st.lists(st.integers(0, 1000), max_size=6), st.data())
def test_special_tokens_and_eos_are_read_as_the_grammar_asks(source, choices, data):
    """Token lexemes read by id, EOS ending a stop="" lexeme, an empty token (never allowed
    as bytes, allowed by id under <[*]>)."""
    m = Matcher(grammar_of(source), WIDER)
    check_path(m, data, choices)


def test_eos_and_fewer_allowed_than_k():
    v = Vocabulary.from_bytes([b"<eos>", b"1", b"12", b"a", b"x", b"2"], eos_token_id=0)
    m = Matcher(Grammar.from_regex("[0-9]+"), v)
    logits = [9.0, 0.5, 1.0, 9.0, 8.0, 1.0]
    assert top_k(m, logits, 6) == [2, 5, 1]  # not EOS: the input may not end yet
    assert m.consume(2)
    assert top_k(m, logits, 6) == [0, 2, 5, 1]  # EOS now, first by score
    assert m.consume(0) and top_k(m, logits, 6) == []  # after EOS nothing
    m.rollback(1)
    assert top_k(m, logits, 2) == [0, 2]


def test_k_zero_and_bad_arguments():
    v = Vocabulary.from_bytes([b"a", b"b"])
    m = Matcher(Grammar.from_regex("a"), v)
    assert top_k(m, [1.0, 2.0], 0) == []
    with pytest.raises(ValueError, match="k must be >= 0"):
        top_k(m, [1.0, 2.0], -1)
    with pytest.raises(TypeError, match="k must be an int"):
        top_k(m, [1.0, 2.0], 1.5)
    with pytest.raises(ValueError, match="1 logits for a vocabulary of 2 tokens"):
        top_k(m, [1.0], 1)
    with pytest.raises(ValueError, match=r"logits\[1\] is NaN"):
        top_k(m, [1.0, math.nan], 1)
    assert top_k(m, [1.0, math.inf, -math.inf], 1) == [0]  # a padded output layer: id 2 is no token
    assert top_k(m, [-math.inf, 0.0], 2) == [0]


def test_logit_containers():
    """A list, a tuple, array('f'), array('d'), an iterable."""
    v = Vocabulary.load("gpt2")
    m = Matcher(Grammar.from_regex("[0-9]+"), v)
    rng = random.Random(7)
    logits = [float(rng.randint(0, 50)) for _ in range(len(v))]  # ties everywhere
    want = expected(m, logits, 64)
    assert len(want) == 64
    for container in (logits, tuple(logits), array("f", logits), array("d", logits), iter(logits)):
        assert top_k(m, container, 64) == want, type(container)


def test_numpy_logits():
    """float32 and float64 arrays (where numpy is installed: not on the PyPy CI)."""
    np = pytest.importorskip("numpy")
    v = Vocabulary.load("gpt2")
    m = Matcher(Grammar.from_regex("[0-9]+"), v)
    rng = random.Random(7)
    logits = [float(rng.randint(0, 50)) for _ in range(len(v))]  # ties everywhere
    want = expected(m, logits, 64)
    for dtype in (np.float32, np.float64):
        arr = np.array(logits, dtype=dtype)
        assert top_k(m, arr, 64) == want, dtype
        # the full mask's k best by numpy (ties at the 64th score: partition, then a stable sort)
        assert reference_top_k(m, arr, 64) == want == top_k(m, arr, 64, max_refused=0)
        for k in (1, 993, 994, 995, 2000):
            assert reference_top_k(m, arr, k) == expected(m, logits, k), k
    with pytest.raises(ValueError, match="one-dimensional"):
        top_k(m, np.zeros((2, len(v))), 1)
    with pytest.raises(ValueError, match="is NaN"):
        top_k(m, np.full(len(v), np.nan), 1)


def favourable(v, allowed, seed):
    """Random logits where the allowed tokens score highest (a model that knows the format)."""
    rng = random.Random(seed)
    good = set(allowed)
    return [rng.random() + (10.0 if t in good else 0.0) for t in range(len(v))]


def test_few_checks_where_the_model_knows_the_format_and_fallback_where_not():
    v = Vocabulary.load("gpt2")
    m = Matcher(Grammar.from_json_schema({"type": "object", "properties": {"n": {"type": "integer"}}}), v)
    assert m.consume_bytes(b'{"n": 1')
    allowed = m.mask().allowed()
    stats = {}
    assert top_k(m, favourable(v, allowed, 1), 8, stats=stats) == expected(m, favourable(v, allowed, 1), 8)
    assert stats == {"checked": 8, "refused": 0, "allowed": 8, "fallback": 0}
    # adversarial: every allowed token scores below every refused one
    hostile = [-x for x in favourable(v, allowed, 2)]
    assert top_k(m, hostile, 8, stats=stats) == expected(m, hostile, 8)
    assert stats["fallback"] == 1 and stats["checked"] == stats["refused"] == refusals_budget(8) + 1


def test_after_rollback_and_on_other_backends():
    """top_k after a rollback; and reference_top_k, the definition, for any MatcherLike."""
    v = Vocabulary.load("gpt2")
    g = Grammar.from_regex("(ab|cd)[0-9]{2,4}")
    m = Matcher(g, v)
    rng = random.Random(3)
    logits = [rng.gauss(0, 1) for _ in range(len(v))]
    before = top_k(m, logits, 5)
    assert m.consume(before[0]) and top_k(m, logits, 5) == expected(m, logits, 5)
    m.rollback(1)
    assert top_k(m, logits, 5) == before == expected(m, logits, 5)
    with open_matcher(g, v, backend="index") as other:
        assert reference_top_k(other, logits, 5) == before == top_k(other, logits, 5)
