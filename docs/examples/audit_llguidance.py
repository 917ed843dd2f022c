"""transformers generate() with llguidance constraining a tiny random GPT-2, audited by
maskref (docs/audit.md).

    python docs/examples/audit_llguidance.py            # 1% of the steps checked
    python docs/examples/audit_llguidance.py 1.0        # every step

Needs torch, transformers and llguidance (`pip install -e ".[integrations,peers]"`);
nothing is downloaded: the model is built from a config (one layer, random weights) over
maskref's embedded GPT-2 vocabulary, and llguidance's tokenizer is made from the same
token bytes. The logits processor is the usual llguidance one — a matcher per row, its
bitmask filled by llguidance.torch.fill_next_token_bitmask — except that each matcher is
an AuditedLLMatcher: the same masks, a sampled fraction checked by maskref in a
background thread.
"""
from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Tuple

import llguidance
import llguidance.torch
import torch
import transformers

from conformance.audit import AuditedLLMatcher, Auditor, AuditReport
from refimpl import Vocabulary

SCHEMA = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 8},
                                           "age": {"type": "integer", "minimum": 0, "maximum": 120}},
          "required": ["name", "age"], "additionalProperties": False}


class GreedyTokenizer:
    """What llguidance's TokenizerWrapper reads: the token bytes, EOS, and a tokenizer of
    text (longest token first; llguidance uses it to spell the bytes a grammar forces). A
    real deployment uses llguidance.hf.from_tokenizer(the model's tokenizer) instead."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.tokens = vocab.tokens
        self.eos_token_id = vocab.eos_token_id
        self.bos_token_id = None
        self.special_token_ids = sorted(vocab.special_token_ids)
        self.ids: Dict[bytes, int] = {}
        for t, data in enumerate(vocab.tokens):
            if t not in vocab.special_token_ids:
                self.ids.setdefault(data, t)
        self.longest = max(len(data) for data in self.ids)

    def __call__(self, data: bytes) -> List[int]:
        out, i = [], 0
        while i < len(data):
            for n in range(min(self.longest, len(data) - i), 0, -1):
                t = self.ids.get(data[i:i + n])
                if t is not None:
                    out.append(t)
                    i += n
                    break
            else:
                i += 1  # no token spells this byte
        return out


class LLGuidanceProcessor(transformers.LogitsProcessor):
    """A matcher per row: consume the row's new token, fill its bitmask row, mask the scores."""

    def __init__(self, matchers: List[Any], prompt_length: int, vocab_size: int) -> None:
        self.matchers = matchers
        self.prompt_length = prompt_length
        self.bitmask = torch.zeros((len(matchers), (vocab_size + 31) // 32), dtype=torch.int32)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        for i, m in enumerate(self.matchers):
            generated = input_ids[i, self.prompt_length:].tolist()
            if generated and not m.is_stopped():
                m.consume_token(generated[-1])
            llguidance.torch.fill_next_token_bitmask(m, self.bitmask, i)
        bits = torch.arange(32, dtype=torch.int32)
        allowed = ((self.bitmask.unsqueeze(-1) >> bits) & 1).bool().flatten(1)[:, :scores.shape[1]]
        return scores.masked_fill(~allowed, float("-inf"))


def tiny_gpt2(vocab_size: int, eos: int) -> Any:
    """A one-layer GPT-2 with random weights (seeded), built from a config: no download."""
    torch.set_num_threads(1)  # a tiny model: threads only contend
    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=vocab_size,
                                     bos_token_id=eos, eos_token_id=eos)
    return transformers.GPT2LMHeadModel(config).eval()


def main(out_dir: Optional[str] = None, sample_rate: float = 0.01, max_new_tokens: int = 40,
         rows: int = 2) -> Tuple[List[str], AuditReport]:
    vocab = Vocabulary.load("gpt2")
    eos = vocab.eos_token_id
    tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(GreedyTokenizer(vocab)))
    # compact JSON: with free whitespace a random model writes spaces for ever
    grammar = llguidance.LLMatcher.grammar_from_json_schema(SCHEMA, defaults={"whitespace_flexible": False})
    with Auditor(vocab, engine="llguidance", sample_rate=sample_rate, out_dir=out_dir) as auditor:
        matchers = [AuditedLLMatcher(llguidance.LLMatcher(tokenizer, grammar), grammar, auditor) for _ in range(rows)]
        prompt = torch.tensor([[eos]] * rows)
        processor = LLGuidanceProcessor(matchers, prompt.shape[1], len(vocab))
        torch.manual_seed(1)
        with torch.no_grad():
            out = tiny_gpt2(len(vocab), eos).generate(
                prompt, attention_mask=torch.ones_like(prompt), logits_processor=[processor], do_sample=True,
                max_new_tokens=max_new_tokens, pad_token_id=eos, eos_token_id=eos)
    texts = [vocab.decode([t for t in row[1:] if t != eos]).decode("utf-8", "replace") for row in out.tolist()]
    report = auditor.report()  # closed on leaving the `with`: every queued step checked
    for text in texts:
        print(repr(text))
    print(report)
    return texts, report


if __name__ == "__main__":
    main(sample_rate=float(sys.argv[1]) if len(sys.argv) > 1 else 0.01)
