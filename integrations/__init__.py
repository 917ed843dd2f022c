"""maskref's logits-processor adapters: grammar-constrained decoding in the stacks people use.

    from integrations.transformers import MaskrefLogitsProcessor     # Hugging Face transformers
    proc = MaskrefLogitsProcessor(Grammar.from_type(Character), Vocabulary.load("gpt2"), backend="native")
    model.generate(input_ids, logits_processor=[proc], max_new_tokens=64)

    from integrations.vllm_backend import install_in_llm   # vLLM V1's structured-output backend
    from integrations.vllm import MaskrefVLLMProcessor, MaskrefBatchProcessor   # vLLM V0-style callables

    from integrations.bitmask import allocate_token_bitmask, fill_next_token_bitmask, apply_token_bitmask_inplace
    # token bitmasks in torch tensors or numpy arrays, in llguidance's and xgrammar's layout

Adapters only: they need torch (and transformers for the first), installed by the optional
extra `integrations` (`pip install ".[integrations]"` from a checkout; vLLM: the extra
`vllm`); refimpl never imports them. The bookkeeping they share —
which tokens each row has consumed, rollback where a row changes, finished rows, padding
to a wider model vocabulary — is torch-free, in integrations/rows.py. See docs/integrations.md.

The adapters are also reachable from this package (imported on first use, so that
importing `integrations` does not import torch):

>>> import integrations
>>> integrations.RowState.__name__, sorted(_ADAPTERS)
('RowState', ['MaskrefBackend', 'MaskrefBatchProcessor', 'MaskrefGrammar', 'MaskrefLogitsProcessor', 'MaskrefVLLMProcessor'])
"""
from __future__ import annotations

import importlib
from typing import Any

from .bitmask import allocate_token_bitmask, apply_token_bitmask_inplace, fill_next_token_bitmask
from .rows import GenerationError, Rows, RowState, pack

#: adapter name -> its module (imported by __getattr__ on first use: they need torch)
_ADAPTERS = {
    "MaskrefLogitsProcessor": "integrations.transformers",
    "MaskrefVLLMProcessor": "integrations.vllm",
    "MaskrefBatchProcessor": "integrations.vllm",
    "MaskrefBackend": "integrations.vllm_backend",
    "MaskrefGrammar": "integrations.vllm_backend",
}

__all__ = [
    "GenerationError", "RowState", "Rows", "allocate_token_bitmask", "apply_token_bitmask_inplace",
    "fill_next_token_bitmask", "pack",
] + sorted(_ADAPTERS)


def __getattr__(name: str) -> Any:
    module = _ADAPTERS.get(name)
    if module is None:
        raise AttributeError("module 'integrations' has no attribute %r" % name)
    return getattr(importlib.import_module(module), name)
