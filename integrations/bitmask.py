"""Token bitmasks in tensors: allocate them, fill a row from a matcher, apply them to logits.

    bitmask = allocate_token_bitmask(batch, vocab_size)          # int32, all allowed
    fill_next_token_bitmask(matcher, bitmask, index=row)         # the row from matcher.mask()
    apply_token_bitmask_inplace(logits, bitmask)                 # disallowed logits -> -inf

The layout is llguidance's and xgrammar's, so a bitmask made here can go to their apply
functions and theirs to this one: int32 words, 32 tokens a word, token t at bit t % 32
of word t // 32 (`Mask.to_bytes()` writes it); a vocabulary of n tokens takes
ceil(n / 32) words a row. Logits wider than the bitmask (the model's vocabulary is often
padded beyond the tokenizer's) are disallowed past it; a bitmask wider than the logits
is fine (the bits past the logits are not read).

Both torch tensors and numpy arrays are taken — the library of the arguments decides,
and it is imported only when used, so numpy works without torch installed.
`allocate_token_bitmask(..., library="numpy")` makes a numpy bitmask.

>>> import numpy as np
>>> from refimpl import Grammar, Vocabulary, open_matcher
>>> m = open_matcher(Grammar.from_regex("[ab]+"), Vocabulary.from_bytes([b"a", b"b", b"c"]))
>>> bitmask = allocate_token_bitmask(2, 3, library="numpy")
>>> bitmask.shape, bitmask.dtype.name, int(bitmask[0, 0])
((2, 1), 'int32', -1)
>>> fill_next_token_bitmask(m, bitmask, index=1)
>>> int(bitmask[1, 0])                    # bits 0 and 1: tokens a and b
3
>>> logits = np.zeros((2, 5), dtype=np.float32)   # two ids past the vocabulary
>>> apply_token_bitmask_inplace(logits, bitmask)
>>> logits[1].tolist()
[0.0, 0.0, -inf, -inf, -inf]
"""
from __future__ import annotations

import sys
from array import array
from typing import Any

from refimpl import MatcherLike

__all__ = ["allocate_token_bitmask", "apply_token_bitmask_inplace", "bitmask_width", "fill_next_token_bitmask"]

LIBRARIES = ("torch", "numpy")


def bitmask_width(vocab_size: int) -> int:
    """The int32 words of one row for a vocabulary of `vocab_size` tokens."""
    return (vocab_size + 31) // 32


def allocate_token_bitmask(batch: int, vocab_size: int, *, library: str = "torch") -> Any:
    """A bitmask for `batch` rows of `vocab_size` tokens, every token allowed (all bits
    set, as llguidance and xgrammar allocate it): an int32 torch tensor of shape
    (batch, ceil(vocab_size / 32)), or a numpy array with library="numpy"."""
    if library not in LIBRARIES:
        raise ValueError("allocate_token_bitmask: library must be 'torch' or 'numpy', not %r" % (library,))
    if batch < 0 or vocab_size < 0:
        raise ValueError("allocate_token_bitmask: batch and vocab_size must be >= 0, not %d and %d" % (batch, vocab_size))
    shape = (batch, bitmask_width(vocab_size))
    if library == "torch":
        import torch

        return torch.full(shape, -1, dtype=torch.int32)
    import numpy as np

    return np.full(shape, -1, dtype=np.int32)


def fill_next_token_bitmask(matcher: MatcherLike, bitmask: Any, index: int = 0) -> None:
    """Write the matcher's mask (the tokens allowed next) into row `index` of `bitmask`;
    the words past the matcher's vocabulary are zeroed (nothing past it is allowed).
    The bitmask must be 2-D int32 and at least as wide as the vocabulary needs."""
    library = _library(bitmask, "bitmask")
    _check_bitmask(bitmask)
    mask_bytes = getattr(matcher, "mask_bytes", None)  # a worker's mask, not decoded
    data = mask_bytes() if mask_bytes is not None else matcher.mask().to_bytes()
    words = _words(data)
    n, width = len(words), bitmask.shape[1]
    if n > width:
        raise ValueError("fill_next_token_bitmask: the bitmask has %d words a row; the vocabulary of %d tokens needs %d"
                         % (width, len(matcher.vocab), n))
    if not -bitmask.shape[0] <= index < bitmask.shape[0]:
        raise IndexError("fill_next_token_bitmask: row %d of a bitmask of %d rows" % (index, bitmask.shape[0]))
    if library == "torch":
        import torch

        bitmask[index, :n] = torch.frombuffer(words, dtype=torch.int32) if n else 0
    else:
        import numpy as np

        bitmask[index, :n] = np.frombuffer(words, dtype=np.int32)
    bitmask[index, n:] = 0


def apply_token_bitmask_inplace(logits: Any, bitmask: Any) -> None:
    """Set every logit whose token the bitmask does not allow to -inf, in place.

    `logits` is (batch, width) or (width,), `bitmask` (batch, words) or (words,), both
    torch or both numpy. Ids at and past 32 * words are disallowed; bits past `width`
    are not read."""
    library = _library(logits, "logits")
    if _library(bitmask, "bitmask") != library:
        raise TypeError("apply_token_bitmask_inplace: logits and bitmask must both be torch tensors or both numpy arrays")
    logits2 = logits if logits.ndim == 2 else logits[None]
    bitmask2 = bitmask if bitmask.ndim == 2 else bitmask[None]
    if logits2.ndim != 2 or bitmask2.ndim != 2:
        raise ValueError("apply_token_bitmask_inplace: logits and bitmask must be 1-D or 2-D, not %d-D and %d-D"
                         % (logits.ndim, bitmask.ndim))
    _check_bitmask(bitmask2)
    if logits2.shape[0] != bitmask2.shape[0]:
        raise ValueError("apply_token_bitmask_inplace: %d rows of logits, %d rows of bitmask"
                         % (logits2.shape[0], bitmask2.shape[0]))
    width = logits2.shape[1]
    covered = min(width, 32 * bitmask2.shape[1])  # the ids the bitmask speaks of
    if library == "torch":
        import torch

        shifts = torch.arange(32, dtype=torch.int32, device=bitmask2.device)
        bits = (bitmask2.unsqueeze(-1) >> shifts) & 1  # (batch, words, 32): bit t % 32 of word t // 32
        allowed = bits.reshape(bitmask2.shape[0], -1)[:, :covered].to(device=logits2.device, dtype=torch.bool)
        logits2[:, :covered].masked_fill_(~allowed, float("-inf"))
    else:
        import numpy as np

        bits = (bitmask2[:, :, None] >> np.arange(32, dtype=np.int32)) & 1
        allowed = bits.reshape(bitmask2.shape[0], -1)[:, :covered].astype(bool)
        logits2[:, :covered][~allowed] = -np.inf
    logits2[:, covered:] = float("-inf")


def _words(data: bytes) -> array:
    """The bitmask bytes (little-endian words) as int32 words in this machine's order."""
    words = array("i")
    assert words.itemsize == 4
    words.frombytes(data)
    if sys.byteorder == "big":
        words.byteswap()
    return words


def _library(x: Any, what: str) -> str:
    """"torch" or "numpy": the library `x` is an array of (without importing either)."""
    library = type(x).__module__.split(".")[0]
    if library not in LIBRARIES:
        raise TypeError("%s must be a torch tensor or a numpy array, not %s" % (what, type(x).__name__))
    return library


def _check_bitmask(bitmask: Any) -> None:
    """A bitmask is 2-D int32 (torch or numpy)."""
    if bitmask.ndim != 2:
        raise ValueError("the bitmask must be 2-D (rows of int32 words), not %d-D" % bitmask.ndim)
    dtype = str(bitmask.dtype)
    if dtype not in ("torch.int32", "int32"):
        raise ValueError("the bitmask must be int32, not %s" % dtype)
