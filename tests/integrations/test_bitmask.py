"""integrations/bitmask.py: token bitmasks in torch tensors and numpy arrays.

Property-tested against `Mask` (what a filled row says is what the mask allows; what
apply leaves finite is what the bitmask allows, and nothing past it), for numpy (which
must work without torch) and for torch where installed; and against llguidance's and
xgrammar's own fill and apply functions where they are installed: the same layout, so
the same bits and the same logits.
"""
import doctest
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import integrations
from integrations import bitmask as bm
from integrations.bitmask import allocate_token_bitmask, apply_token_bitmask_inplace, fill_next_token_bitmask
from refimpl import Grammar, Mask, Vocabulary, open_matcher
from tests.support.budget import examples

np = pytest.importorskip("numpy", reason="the bitmask functions take numpy arrays or torch tensors")

LIBRARIES = ["numpy", pytest.param("torch", marks=pytest.mark.skipif(
    __import__("importlib").util.find_spec("torch") is None, reason="torch is not installed"))]


class FixedMask:
    """A matcher whose mask is given (MatcherLike's mask() and vocab, nothing else)."""

    def __init__(self, flags):
        self.flags = flags
        self.vocab = Vocabulary.from_bytes([b"x"] * len(flags))

    def mask(self):
        return Mask(bytearray(self.flags))


def as_numpy(x):
    return x if isinstance(x, np.ndarray) else x.numpy()


def bit(words, t):
    """Token t's bit in a row of int32 words, as llguidance and xgrammar define it."""
    return (int(words[t // 32]) >> (t % 32)) & 1


def logits_like(library, values):
    if library == "torch":
        import torch

        return torch.tensor(values, dtype=torch.float32)
    return np.array(values, dtype=np.float32)


flag_lists = st.lists(st.booleans(), min_size=1, max_size=150).map(lambda bs: bytearray(int(b) for b in bs))


@pytest.mark.parametrize("library", LIBRARIES)
@settings(max_examples=examples(150), deadline=None)
@given(flags=flag_lists, extra_words=st.integers(0, 2), batch=st.integers(1, 3), data=st.data())
def test_a_filled_row_is_the_mask(library, flags, extra_words, batch, data):
    index = data.draw(st.integers(-batch, batch - 1))
    bitmask = allocate_token_bitmask(batch, len(flags) + 32 * extra_words, library=library)
    fill_next_token_bitmask(FixedMask(flags), bitmask, index)
    words = as_numpy(bitmask)
    mask = Mask(bytearray(flags))
    row = words[index]
    assert [t for t in range(32 * len(row)) if bit(row, t)] == list(mask)
    assert row[:bm.bitmask_width(len(flags))].tobytes() == mask.to_bytes()  # little-endian machines
    for other in range(batch):
        if other != index % batch:
            assert (words[other] == -1).all()  # allocated: all allowed, untouched


@pytest.mark.parametrize("library", LIBRARIES)
@settings(max_examples=examples(150), deadline=None)
@given(flags=flag_lists, extra_words=st.integers(0, 2), width_delta=st.integers(-40, 70), seed=st.integers(0, 2**16))
def test_apply_leaves_exactly_the_allowed_logits(library, flags, extra_words, width_delta, seed):
    """Fill then apply: a logit stays iff its token is in the mask; ids past the bitmask
    are disallowed, bits past the logits are not read."""
    width = max(0, len(flags) + width_delta)
    rng = random.Random(seed)
    values = [[rng.uniform(-5, 5) for _ in range(width)] for _ in range(2)]
    bitmask = allocate_token_bitmask(2, len(flags) + 32 * extra_words, library=library)
    fill_next_token_bitmask(FixedMask(flags), bitmask, 0)
    logits = logits_like(library, values)
    apply_token_bitmask_inplace(logits, bitmask)
    out = as_numpy(logits)
    allowed = set(Mask(bytearray(flags)))
    for t in range(width):
        assert out[0, t] == (np.float32(values[0][t]) if t in allowed else -np.inf), t
        covered = t < 32 * bitmask.shape[1]  # row 1 is allocated: all allowed as far as it goes
        assert out[1, t] == (np.float32(values[1][t]) if covered else -np.inf), t


@pytest.mark.parametrize("library", LIBRARIES)
def test_one_dimensional_logits_and_bitmask(library):
    logits = logits_like(library, [1.0] * 40)
    bitmask = allocate_token_bitmask(1, 33, library=library)[0]
    bitmask[0] = 0b101
    bitmask[1] = 1
    apply_token_bitmask_inplace(logits, bitmask)
    assert [t for t, x in enumerate(as_numpy(logits).tolist()) if x == 1.0] == [0, 2, 32]


def test_a_matcher_fills_its_row():
    vocab = Vocabulary.from_bytes([b"a", b"b", b"ab", b"c"] + [b"z"] * 40 + [b"</s>"], eos_token_id=44)
    m = open_matcher(Grammar.from_regex("a+b"), vocab)
    bitmask = allocate_token_bitmask(1, 64, library="numpy")
    for t in (0, 0, 2):
        fill_next_token_bitmask(m, bitmask)
        assert [t for t in range(64) if bit(bitmask[0], t)] == m.mask().allowed()
        m.consume(t)
    fill_next_token_bitmask(m, bitmask)
    assert [t for t in range(64) if bit(bitmask[0], t)] == [44]  # EOS alone


@pytest.mark.parametrize("call, error, message", [
    (lambda: allocate_token_bitmask(1, 3, library="jax"), ValueError, "library must be 'torch' or 'numpy'"),
    (lambda: allocate_token_bitmask(-1, 3, library="numpy"), ValueError, "must be >= 0"),
    (lambda: fill_next_token_bitmask(FixedMask(bytearray(40)), np.zeros((1, 1), np.int32)), ValueError,
     "the bitmask has 1 words a row; the vocabulary of 40 tokens needs 2"),
    (lambda: fill_next_token_bitmask(FixedMask(bytearray(4)), np.zeros((1, 1), np.int64)), ValueError,
     "must be int32, not int64"),
    (lambda: fill_next_token_bitmask(FixedMask(bytearray(4)), np.zeros(1, np.int32)), ValueError, "must be 2-D"),
    (lambda: fill_next_token_bitmask(FixedMask(bytearray(4)), np.zeros((1, 1), np.int32), 1), IndexError,
     "row 1 of a bitmask of 1 rows"),
    (lambda: fill_next_token_bitmask(FixedMask(bytearray(4)), [[0]]), TypeError,
     "bitmask must be a torch tensor or a numpy array, not list"),
    (lambda: apply_token_bitmask_inplace(np.zeros((2, 3)), np.zeros((1, 1), np.int32)), ValueError,
     "2 rows of logits, 1 rows of bitmask"),
])
def test_mistakes_are_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_mixed_libraries_are_refused():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="both be torch tensors or both numpy arrays"):
        apply_token_bitmask_inplace(torch.zeros(3), np.zeros(1, np.int32))


def test_the_module_examples_run():
    assert doctest.testmod(bm).failed == 0


def test_reachable_from_the_package():
    assert integrations.fill_next_token_bitmask is fill_next_token_bitmask


# -- against llguidance's and xgrammar's functions ----------------------------------------------


def random_case(rng):
    """Random bitmask words (any int32) and logits, the logits as wide as the bitmask
    covers or less (xgrammar leaves logits past the bitmask unmasked: that case is ours and
    llguidance's alone), or wider."""
    batch, words = rng.randint(1, 3), rng.randint(1, 4)
    bitmask = np.array([[rng.randint(-2**31, 2**31 - 1) for _ in range(words)] for _ in range(batch)], dtype=np.int32)
    width = rng.randint(1, 32 * words + 40)
    logits = np.array([[rng.uniform(-3, 3) for _ in range(width)] for _ in range(batch)], dtype=np.float32)
    return bitmask, logits


@pytest.mark.parametrize("seed", range(40))
def test_apply_equals_llguidance_numpy(seed):
    lnp = pytest.importorskip("llguidance.numpy")
    bitmask, logits = random_case(random.Random(seed))
    ours, theirs = logits.copy(), logits.copy()
    apply_token_bitmask_inplace(ours, bitmask)
    lnp.apply_token_bitmask_inplace(theirs, bitmask)
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("seed", range(10))
def test_apply_equals_llguidance_torch(seed, monkeypatch):
    pytest.importorskip("llguidance")
    torch = pytest.importorskip("torch")
    import llguidance.torch as lt

    # llguidance's kernel is torch.compile'd (a minute to compile on a CPU): run its code
    # eagerly (the function torch.compile wraps)
    monkeypatch.setattr(lt, "apply_token_bitmask_inplace_kernel", lt.apply_token_bitmask_inplace_kernel.__wrapped__)
    bitmask, logits = random_case(random.Random(seed))
    ours, theirs = torch.from_numpy(logits.copy()), torch.from_numpy(logits.copy())
    apply_token_bitmask_inplace(ours, torch.from_numpy(bitmask))
    lt.apply_token_bitmask_inplace(theirs, torch.from_numpy(bitmask))
    assert torch.equal(ours, theirs)


@pytest.mark.parametrize("seed", range(40))
def test_apply_equals_xgrammar(seed):
    xgr = pytest.importorskip("xgrammar")
    torch = pytest.importorskip("torch")
    bitmask, logits = random_case(random.Random(seed))
    logits = logits[:, :32 * bitmask.shape[1]]  # xgrammar does not mask logits past the bitmask
    ours, theirs = torch.from_numpy(logits.copy()), torch.from_numpy(logits.copy())
    apply_token_bitmask_inplace(ours, torch.from_numpy(bitmask))
    xgr.apply_token_bitmask_inplace(theirs, torch.from_numpy(bitmask))
    assert torch.equal(ours, theirs)


# a grammar on which refimpl, llguidance and xgrammar agree (checked by the conformance suite)
TOKENS = [b"a", b"b", b"ab", b"c", b"bc", b"x"] + [b"y%d" % i for i in range(30)] + [b"</s>"]
PATH = [0, 4]  # "a", "bc": then only EOS


def test_fill_equals_llguidance():
    llguidance = pytest.importorskip("llguidance")
    import llguidance.numpy as lnp

    from conformance.peers.llguidance.session import tokenizer

    vocab = Vocabulary.from_bytes(TOKENS, eos_token_id=len(TOKENS) - 1)
    theirs = llguidance.LLMatcher(tokenizer(vocab, slices=[]), llguidance.LLMatcher.grammar_from_regex("[ab]+c"))
    ours = open_matcher(Grammar.from_regex("[ab]+c"), vocab)
    a = lnp.allocate_token_bitmask(1, len(vocab))
    b = allocate_token_bitmask(1, len(vocab), library="numpy")
    for t in PATH + [None]:
        lnp.fill_next_token_bitmask(theirs, a)
        fill_next_token_bitmask(ours, b)
        assert np.array_equal(a, b), t
        if t is not None:
            assert theirs.consume_token(t) and ours.consume(t)


def test_fill_equals_xgrammar():
    xgr = pytest.importorskip("xgrammar")
    pytest.importorskip("torch")
    vocab = Vocabulary.from_bytes(TOKENS, eos_token_id=len(TOKENS) - 1)
    info = xgr.TokenizerInfo([t.decode() for t in TOKENS], vocab_type=xgr.VocabType.RAW, vocab_size=len(TOKENS),
                             stop_token_ids=[len(TOKENS) - 1])
    theirs = xgr.GrammarMatcher(xgr.GrammarCompiler(info).compile_grammar('root ::= [ab]+ "c"'))
    ours = open_matcher(Grammar.from_regex("[ab]+c"), vocab)
    a = xgr.allocate_token_bitmask(1, len(vocab))
    b = allocate_token_bitmask(1, len(vocab))
    for t in PATH + [None]:
        theirs.fill_next_token_bitmask(a)
        fill_next_token_bitmask(ours, b)
        assert a.equal(b), t
        if t is not None:
            assert theirs.accept_token(t) and ours.consume(t)
