"""A text as a model's tokenizer spells it: byte-level BPE by ranks (tiktoken's
algorithm), after the tokenizer's pre-tokeniser has split the text into pieces by its
pattern. GPT-2 and Mistral's Tekken are such tokenizers (so is Llama 3's); in both
vocabularies a token's id orders it as its rank does (GPT-2: rank = id; Tekken: rank =
id - 1000, after the special tokens), so the ranks are the ids.

MaskBench (JSONSchemaBench's mask benchmark) feeds each instance to an engine as the
model's tokenizer encodes it; conformance/maskbench.py spells instances with this, so the
path is what a model would produce, not a spelling chosen by any engine's mask.

The patterns use Unicode classes (\\p{L}) that Python's `re` lacks: the `regex` package
reads them (installed with transformers and tokenizers).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from refimpl import Vocabulary

#: the pre-tokeniser's pattern by vocabulary name: GPT-2's (openai/gpt-2 encoder.py, as
#: tiktoken's r50k_base), and Tekken's (the "pattern" of mistral-common's
#: tekken_240718.json, the file of the "tekken" vocabulary)
PATTERNS = {
    "gpt2": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
    "tekken": r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|"
              r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}|"
              r" ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
}


class UnknownTokenizer(ValueError):
    """No pre-tokeniser pattern is known for this vocabulary."""


class Encoder:
    """A vocabulary's own tokenizer (ordinary text: special tokens are never produced):
    on GPT-2, `Encoder(load_builtin("gpt2")).encode('{"name": "Hello world"}')` is
    [4895, 3672, 1298, 366, 15496, 995, 20662] (tests/conformance/test_bpe.py; not a
    doctest: it needs the regex package, the `maskbench` extra)."""

    def __init__(self, vocab: Vocabulary, pattern: Optional[str] = None) -> None:
        try:
            import regex  # type: ignore[import-untyped]
        except ImportError:
            raise UnknownTokenizer("spelling text as a tokenizer does needs the regex package "
                                   "(pip install regex)") from None
        if pattern is None:
            if vocab.name not in PATTERNS:
                raise UnknownTokenizer("no tokenizer pattern for the vocabulary %r (known: %s)"
                                       % (vocab.name, ", ".join(sorted(PATTERNS))))
            pattern = PATTERNS[vocab.name]
        self.split: Any = regex.compile(pattern)
        special = set(vocab.special_token_ids) | set(vocab.eos_token_ids)
        self.ranks: Dict[bytes, int] = {}
        for t, data in enumerate(vocab.tokens):
            if t not in special and data:
                self.ranks.setdefault(data, t)
        self._pieces: Dict[bytes, List[int]] = {}

    def encode(self, text: str) -> List[int]:
        out: List[int] = []
        for piece in self.split.findall(text):
            out.extend(self.piece(piece.encode("utf-8")))
        return out

    def piece(self, data: bytes) -> List[int]:
        """The tokens of one piece: the whole piece if it is a token, else its bytes, the
        adjacent pair of lowest rank merged first, until no pair is a token."""
        known = self._pieces.get(data)
        if known is not None:
            return known
        ranks = self.ranks
        if data in ranks:
            out = [ranks[data]]
        else:
            parts = [data[i:i + 1] for i in range(len(data))]
            while len(parts) > 1:
                best, where = None, -1
                for i in range(len(parts) - 1):
                    r = ranks.get(parts[i] + parts[i + 1])
                    if r is not None and (best is None or r < best):
                        best, where = r, i
                if best is None:
                    break
                parts[where:where + 2] = [parts[where] + parts[where + 1]]
            out = [ranks[p] for p in parts]
        if len(self._pieces) < 100000:
            self._pieces[data] = out
        return out
