"""A Hugging Face transformers `LogitsProcessor` that constrains generation to a grammar.

    proc = MaskrefLogitsProcessor(grammar, Vocabulary.load("gpt2"), backend="native")
    out = model.generate(input_ids, logits_processor=[proc], max_new_tokens=64)

transformers calls the processor once per step with `input_ids` (batch, prompt + generated
so far) and `scores` (batch, model vocabulary). The first call's length is the prompt's
(left-padded batches share one width); each row's tokens after it are that row's output.
Each row gets its own matcher, opened on the first call; it consumes the tokens the row
gained since the last call (rolling back where the row changed, as with beam search, which
reorders rows). Disallowed scores become -inf; scores beyond the vocabulary (a model whose
embedding is padded past its tokenizer) are -inf too. After EOS a row allows EOS only:
transformers pads finished rows with the pad token, which is not read.

A call whose input_ids do not start with the first call's (another prompt, another batch
size) begins a new generation: the rows are reset. `reset()` does it by hand.
"""
from __future__ import annotations

from typing import Any, Hashable, List, Optional, Sequence, Union

import torch
from transformers import LogitsProcessor

from refimpl import Grammar, Vocabulary

from .rows import GenerationError, Rows
from .tensors import check_top_k, mask_scores, row_logits


class MaskrefLogitsProcessor(LogitsProcessor):
    """Masks each row's scores to the tokens its grammar allows next.

    `grammar` is one Grammar for every row, or one per row of input_ids (with beam
    search, a row is a beam: num_beams rows per prompt). `backend` and `options` go to
    `refimpl.open_matcher` (backend="native" for the C walker, mask_cache=True to keep
    masks of states seen before). `batch_size`, if given, is checked on the first call.
    With `top_k=k`, each row keeps only its k best allowed tokens by the scores it is
    given (ties by the lower id): what a top-k sampler after the full mask would keep,
    found without the full mask where the best tokens are allowed (refimpl/decoding/topk.py).
    """

    #: rows of a continuous batch come and go: the row index is not a sequence's identity
    supports_continuous_batching = False

    def __init__(self, grammar: Union[Grammar, Sequence[Grammar]], vocab: Vocabulary, *, backend: str = "python",
                 batch_size: Optional[int] = None, top_k: Optional[int] = None, **options: Any) -> None:
        self.top_k = check_top_k(top_k)
        if isinstance(grammar, Grammar):
            self.grammars: Optional[List[Grammar]] = None
            self.rows = Rows(grammar, vocab, backend=backend, **options)
        else:
            self.grammars = list(grammar)
            if batch_size is None:
                batch_size = len(self.grammars)
            elif batch_size != len(self.grammars):
                raise ValueError("%d grammars for a batch of %d rows" % (len(self.grammars), batch_size))
            self.rows = Rows(self._grammar_of_row, vocab, backend=backend, **options)
        self.vocab = vocab
        self.expected_batch_size = batch_size
        self.prompt: Optional[torch.Tensor] = None  # input_ids at the first call of this generation

    def __call__(self, input_ids: torch.LongTensor, scores: torch.Tensor) -> torch.Tensor:
        batch = input_ids.shape[0]
        if self.prompt is not None and not self._continues(input_ids):
            self.reset()  # not the generation of the first call: a new one begins
        if self.prompt is None:
            if self.expected_batch_size is not None and batch != self.expected_batch_size:
                raise GenerationError("a batch of %d rows; the processor was made for %d" % (batch, self.expected_batch_size))
            self.prompt = input_ids.detach().clone()
        generated = input_ids[:, self.prompt.shape[1]:].tolist()
        if self.top_k is None:
            return mask_scores(scores, self.rows.flags(generated))
        return mask_scores(scores, self.rows.flags(generated, logits=row_logits(scores), top_k=self.top_k))

    def _continues(self, input_ids: torch.Tensor) -> bool:
        """Do `input_ids` start with the first call's prompt (the same generation)?"""
        assert self.prompt is not None
        batch, length = self.prompt.shape
        return (input_ids.shape[0] == batch and input_ids.shape[1] >= length
                and torch.equal(input_ids[:, :length].to(self.prompt.device), self.prompt))

    def _grammar_of_row(self, row: Hashable) -> Grammar:
        assert self.grammars is not None and isinstance(row, int)
        return self.grammars[row]

    def reset(self) -> None:
        """Forget every row (closing the matchers): ready for another generate()."""
        self.rows.close()
        self.prompt = None
