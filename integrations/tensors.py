"""The torch half of the adapters: per-row flags -> a bool tensor -> masked scores.

The flags of all rows are packed into one buffer (core.pack, padded to the scores' width)
and read by `torch.frombuffer` without a per-token loop: one copy to a bool tensor, one to
the scores' device, one `masked_fill`. Disallowed scores become -inf, so softmax gives them
probability 0 and argmax never picks them.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import torch

from .rows import pack


def allowed_tensor(rows: Sequence[Union[bytes, bytearray]], width: int, device: Union[str, torch.device] = "cpu") -> torch.Tensor:
    """The rows' flags as a bool tensor of shape (len(rows), width), False beyond each
    row's vocabulary."""
    if not rows or width == 0:
        return torch.zeros((len(rows), width), dtype=torch.bool, device=device)
    buf = pack(rows, width)
    allowed = torch.frombuffer(buf, dtype=torch.uint8).view(len(rows), width).to(torch.bool)
    return allowed.to(device, non_blocking=True)


def mask_scores(scores: torch.Tensor, rows: Sequence[Union[bytes, bytearray]]) -> torch.Tensor:
    """`scores` (shape (len(rows), width)) with every disallowed entry set to -inf; a new
    tensor (the input is not changed)."""
    allowed = allowed_tensor(rows, scores.shape[-1], scores.device)
    return scores.masked_fill(~allowed, float("-inf"))


def row_logits(scores: torch.Tensor) -> Sequence[Any]:
    """The rows of 2-D `scores` as refimpl's top_k reads them: numpy arrays (no copy on
    the CPU) where numpy is installed, else lists of floats."""
    scores = scores.detach().to("cpu", torch.float32)
    try:
        return list(scores.numpy())
    except RuntimeError:  # torch without numpy: "Numpy is not available"
        return scores.tolist()


def check_top_k(top_k: Optional[int]) -> Optional[int]:
    """`top_k` as the processors take it: None (the full mask) or a positive int."""
    if top_k is not None and (not isinstance(top_k, int) or top_k < 1):
        raise ValueError("top_k must be a positive int or None, not %r" % (top_k,))
    return top_k
