"""What the tests with vLLM share (tests/integrations/test_vllm_v1.py,
tests/conformance/test_audit_vllm.py): a tiny byte-level BPE tokenizer and a one-layer
GPT-2 with random weights, written to a folder vLLM and transformers load (nothing is
downloaded); the part of vLLM's config its structured-output backends read; a bitmask
row read bit by bit.

torch, transformers, tokenizers and vLLM are imported inside the functions: this module
imports where they are absent (the tests using it skip there).
"""
from __future__ import annotations

import os
from typing import Any, List

from refimpl import Vocabulary

MODEL_WIDTH = 288  # the model's logits: wider than the tokenizer's 269 tokens
MERGES = [("{", '"'), ('"', ":"), ("a", "b"), ("1", "2"), ("t", "r"), ("tr", "u"), ("tru", "e"), ("n", "u"),
          ("nu", "l"), ("nul", "l"), ("Ġ", '"'), (",", '"')]
EOS_TEXT = "<|endoftext|>"


def write_tiny_model(out: str) -> None:
    """Write tokenizer.json and friends, and a tiny random GPT-2 MODEL_WIDTH logits wide,
    to the folder `out`: 256 byte tokens, MERGES, and EOS_TEXT (id 268)."""
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    vocab = {c: i for i, c in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}
    for a, b in MERGES:
        vocab[a + b] = len(vocab)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=MERGES))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([EOS_TEXT])
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOS_TEXT, bos_token=EOS_TEXT)
    fast.save_pretrained(out)
    torch.manual_seed(0)
    eos = len(vocab)
    config = transformers.GPT2Config(vocab_size=MODEL_WIDTH, n_positions=128, n_embd=128, n_layer=1, n_head=2,
                                     bos_token_id=eos, eos_token_id=eos)
    transformers.GPT2LMHeadModel(config).save_pretrained(out)


class BackendConfig:
    """The part of vLLM's config its structured-output backends read (the guidance and
    xgrammar backends, and maskref's): the structured-output options; no model config
    (no special tokenizer), no speculative decoding."""

    model_config = None
    speculative_config = None

    def __init__(self, disable_any_whitespace: bool = False) -> None:
        from vllm.config import StructuredOutputsConfig

        self.structured_outputs_config = StructuredOutputsConfig(backend="guidance",
                                                                 disable_any_whitespace=disable_any_whitespace)


def allowed_in_row(row: Any) -> List[int]:
    """The ids whose bit is set in a bitmask row (a torch tensor or numpy array of int32),
    read word by word: token t at bit t % 32 of word t // 32 (a bit beyond the
    vocabulary shows as an id no mask has)."""
    words = [int(w) & 0xFFFFFFFF for w in row.tolist()]
    return [t for t in range(len(words) * 32) if words[t // 32] >> (t % 32) & 1]


def file_vocab(model_dir: str) -> Vocabulary:
    """The vocabulary as a refimpl user reads it from the folder's tokenizer.json, padded to
    the model's width (the same ids as the tokenizer)."""
    return Vocabulary.from_hf_tokenizer_json(os.path.join(model_dir, "tokenizer.json"), eos_token=EOS_TEXT).padded(MODEL_WIDTH)
