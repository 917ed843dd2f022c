"""vLLM-style logits processors: callables from the tokens generated so far and the
scores of the next token to the masked scores.

    proc = MaskrefVLLMProcessor(grammar, vocab, backend="native")
    SamplingParams(logits_processors=[proc], ...)        # vLLM's per-request processors (V0)
    logits = proc(output_token_ids, logits)               # what vLLM calls: 1-D logits

vLLM's per-request processors take `(token_ids, logits)` — the request's output tokens
(no prompt) and the 1-D logits — or `(prompt_ids, token_ids, logits)`; it tells the two
apart by the number of parameters. This one takes two: the prompt is not the grammar's.
It does not import vLLM (nor need it): any engine calling processors this way can use it.

`MaskrefBatchProcessor` does the same for a whole batch in one call (2-D logits, one
list of output tokens per row), with rows identified by key (a request id) so that a
continuous batch whose rows come and go keeps each request's matcher: call
`release(key)` when a request ends.

The token list a processor sees need not grow by one token per call: it consumes what is
new and rolls back where the list is not an extension of what it consumed (so one
processor shared by several sequences of a request stays exact, at the cost of
re-consuming).
"""
from __future__ import annotations

from typing import Any, Callable, Hashable, Optional, Sequence, Union

import torch

from refimpl import Grammar, Vocabulary

from .rows import Rows, RowState
from .tensors import check_top_k, mask_scores, row_logits


class MaskrefVLLMProcessor:
    """One request's processor: `proc(token_ids, logits) -> logits`, with 1-D logits whose
    disallowed entries (and those beyond the vocabulary) are -inf. `backend` and
    `options` go to `refimpl.open_matcher`; `top_k=k` keeps only the k best allowed
    tokens (as the transformers processor's)."""

    def __init__(self, grammar: Grammar, vocab: Vocabulary, *, backend: str = "python", top_k: Optional[int] = None,
                 **options: Any) -> None:
        self.grammar = grammar
        self.vocab = vocab
        self.backend = backend
        self.top_k = check_top_k(top_k)
        self.options = options
        self.row = RowState(grammar, vocab, backend=backend, name="request", **options)

    def __call__(self, token_ids: Sequence[int], logits: torch.Tensor) -> torch.Tensor:
        self.row.sync(token_ids)
        scores = logits.unsqueeze(0)
        if self.top_k is None:
            return mask_scores(scores, [self.row.flags()]).squeeze(0)
        return mask_scores(scores, [self.row.flags(row_logits(scores)[0], self.top_k)]).squeeze(0)

    def clone(self) -> "MaskrefVLLMProcessor":
        """A fresh processor for the same grammar (one per sequence of a request)."""
        return MaskrefVLLMProcessor(self.grammar, self.vocab, backend=self.backend, top_k=self.top_k, **self.options)

    def close(self) -> None:
        self.row.close()


class MaskrefBatchProcessor:
    """A batch's processor: `proc(token_ids_per_row, logits, keys=None) -> logits` with
    2-D logits (rows, model vocabulary). Row i is keyed by keys[i], or by i. `grammar` is
    one Grammar for every row or a function from a key to its Grammar."""

    def __init__(self, grammar: Union[Grammar, Callable[[Hashable], Grammar]], vocab: Vocabulary, *,
                 backend: str = "python", top_k: Optional[int] = None, **options: Any) -> None:
        self.top_k = check_top_k(top_k)
        self.rows = Rows(grammar, vocab, backend=backend, **options)

    def __call__(self, token_ids: Sequence[Sequence[int]], logits: torch.Tensor,
                 keys: Optional[Sequence[Hashable]] = None) -> torch.Tensor:
        if logits.dim() != 2 or logits.shape[0] != len(token_ids):
            raise ValueError("logits of shape %s for %d rows: expected (rows, vocabulary)"
                             % (tuple(logits.shape), len(token_ids)))
        if self.top_k is None:
            return mask_scores(logits, self.rows.flags(token_ids, keys))
        return mask_scores(logits, self.rows.flags(token_ids, keys, logits=row_logits(logits), top_k=self.top_k))

    def release(self, key: Hashable) -> None:
        """Forget a finished request's row."""
        self.rows.release(key)

    def close(self) -> None:
        self.rows.close()
