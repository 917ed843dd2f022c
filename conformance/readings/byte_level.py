"""GPT-2's byte-level spelling of token bytes: a reversible map from each byte to a
printable character, which byte-level BPE vocabularies (GPT-2's vocab.json, llama.cpp's
GGUF token texts, Hugging Face tokenizers) use to write any bytes as text.

>>> byte_level_text(b"a b\\xff")
'aĠbÿ'
"""
from __future__ import annotations

from typing import Dict


def _byte_encoder() -> Dict[int, str]:
    printable = [b for b in range(256) if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF]
    rest = [b for b in range(256) if b not in printable]
    out = {b: chr(b) for b in printable}
    out.update((b, chr(256 + i)) for i, b in enumerate(rest))
    return out


#: byte -> its character
BYTE_TO_CHAR: Dict[int, str] = _byte_encoder()


def byte_level_text(data: bytes) -> str:
    """The token's bytes as byte-level BPE writes them."""
    return "".join(BYTE_TO_CHAR[b] for b in data)
