"""Vocabularies: token id -> bytes, EOS and special tokens, and the loaders.

A token is the byte string it decodes to. Empty tokens are kept (they are never allowed
by a mask), several ids may share the same bytes (SentencePiece byte-fallback tokens do),
and special tokens (EOS, BOS, `<unk>`, control tokens) are never produced by grammar text:
they are recognised by id, never by matching their display text.

Loaders, all stdlib-only and offline: `from_bytes`, `from_hf_tokenizer_json` (byte-level
BPE and SentencePiece-style), `from_tiktoken`, `from_tekken`, `from_maskref_json` (the
format of the embedded vocabulary), and `load(name_or_path)`.

>>> v = Vocabulary.load("gpt2")
>>> len(v), v.eos_token_id, v.tokens[262], v.tokens[198]
(50257, 50256, b' the', b'\\n')
"""
from __future__ import annotations

import base64
import gzip
import json
import os
import re
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ..errors import MaskrefError
from .trie import TokenTrie

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
EMBEDDED = {"gpt2": "gpt2.json.gz"}


class VocabularyError(MaskrefError, ValueError):
    """A vocabulary file that cannot be read."""


class Vocabulary:
    """Token ids to bytes, with the EOS id(s) and the special-token ids."""

    def __init__(
        self,
        tokens: Sequence[bytes],
        eos_token_ids: Iterable[int] = (),
        special_token_ids: Iterable[int] = (),
        name: str = "custom",
    ) -> None:
        self.tokens: List[bytes] = [bytes(t) for t in tokens]
        self.eos_token_ids: Tuple[int, ...] = tuple(eos_token_ids)
        for t in self.eos_token_ids:
            if not 0 <= t < len(self.tokens):
                raise VocabularyError("EOS token id %d is not in the vocabulary" % t)
        self.special_token_ids = frozenset(special_token_ids) | frozenset(self.eos_token_ids)
        self.name = name
        self._trie: Optional[TokenTrie] = None

    @property
    def eos_token_id(self) -> Optional[int]:
        return self.eos_token_ids[0] if self.eos_token_ids else None

    def __len__(self) -> int:
        return len(self.tokens)

    def __repr__(self) -> str:
        return "Vocabulary(%r, %d tokens, eos=%r)" % (self.name, len(self), self.eos_token_ids)

    @property
    def trie(self) -> TokenTrie:
        """The token trie, built on first use and shared by every Matcher."""
        if self._trie is None:
            self._trie = TokenTrie(self)
        return self._trie

    def is_grammar_token(self, t: int) -> bool:
        """Can grammar text produce token t? (Not special, not empty.)"""
        return t not in self.special_token_ids and len(self.tokens[t]) > 0

    def decode(self, ids: Iterable[int]) -> bytes:
        return b"".join(self.tokens[t] for t in ids)

    # -- loaders ---------------------------------------------------------------------------

    @classmethod
    def from_bytes(
        cls,
        tokens: Sequence[bytes],
        *,
        eos_token_id: Union[int, Sequence[int], None] = None,
        special_token_ids: Iterable[int] = (),
        name: str = "custom",
    ) -> "Vocabulary":
        """A vocabulary from a list of byte strings (index = token id)."""
        if eos_token_id is None:
            eos: Tuple[int, ...] = ()
        elif isinstance(eos_token_id, int):
            eos = (eos_token_id,)
        else:
            eos = tuple(eos_token_id)
        return cls(tokens, eos, special_token_ids, name)

    @classmethod
    def from_maskref_json(cls, path: str) -> "Vocabulary":
        """maskref's own format (`tokens_hex`, gzip or plain), as in tokens/data/."""
        data = _read_json(path)
        try:
            tokens = [bytes.fromhex(h) for h in data["tokens_hex"]]
            return cls(tokens, [data["eos_token_id"]], data.get("special_token_ids", ()), data.get("name", path))
        except (KeyError, ValueError, TypeError) as e:
            raise VocabularyError("%s is not a maskref vocabulary: %s" % (path, e)) from None

    @classmethod
    def from_hf_tokenizer_json(
        cls, source: Union[str, dict], *, eos_token: Optional[str] = None, name: Optional[str] = None
    ) -> "Vocabulary":
        """A Hugging Face `tokenizer.json` (path or parsed dict).

        Byte-level BPE (GPT-2 style): the GPT-2 byte↔unicode map is undone. SentencePiece
        style (a Metaspace pre-tokenizer/decoder, or `byte_fallback`): `▁` becomes a space
        and `<0xNN>` that byte. Added tokens marked `special` are special; EOS is
        `eos_token` if given, else the first special token among the usual EOS names.
        """
        data = _read_json(source) if isinstance(source, str) else source
        model = data.get("model") or {}
        vocab = model.get("vocab")
        if isinstance(vocab, list):  # Unigram: [[piece, score], ...]
            pieces: Dict[str, int] = {p[0]: i for i, p in enumerate(vocab)}
        elif isinstance(vocab, dict):
            pieces = dict(vocab)
        else:
            raise VocabularyError("tokenizer.json has no model.vocab")
        added = data.get("added_tokens") or []
        size = max([i for i in pieces.values()] + [a["id"] for a in added]) + 1
        byte_level = _mentions(data, "ByteLevel")
        decode = _byte_level_decoder() if byte_level else _sentencepiece_decode
        tokens = [b""] * size
        for piece, i in pieces.items():
            tokens[i] = decode(piece)
        special = set()
        for a in added:
            tokens[a["id"]] = a["content"].encode("utf-8")
            if a.get("special"):
                special.add(a["id"])
        by_text = {a["content"]: a["id"] for a in added}
        names = [eos_token] if eos_token else ["</s>", "<|endoftext|>", "<|end_of_text|>", "<|eot_id|>", "<eos>", "<|im_end|>"]
        eos = [by_text[n] for n in names if n in by_text][:1]
        if eos_token and not eos:
            raise VocabularyError("EOS token %r is not an added token" % eos_token)
        return cls(tokens, eos, special, name or "hf")

    @classmethod
    def from_tiktoken(
        cls, path: str, special_tokens: Optional[Dict[str, int]] = None, *, eos_token: Optional[str] = None
    ) -> "Vocabulary":
        """A tiktoken rank file (`<base64 token> <rank>` per line) plus special tokens."""
        ranks: Dict[int, bytes] = {}
        with open(path, "rb") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    b64, rank = line.split()
                    ranks[int(rank)] = base64.b64decode(b64)
                except ValueError:
                    raise VocabularyError("%s:%d: expected '<base64> <rank>'" % (path, lineno)) from None
        special_tokens = dict(special_tokens or {})
        size = max(list(ranks) + list(special_tokens.values())) + 1
        tokens = [b""] * size
        for r, t in ranks.items():
            tokens[r] = t
        for text, i in special_tokens.items():
            tokens[i] = text.encode("utf-8")
        eos = [special_tokens[eos_token]] if eos_token else []
        return cls(tokens, eos, special_tokens.values(), os.path.basename(path))

    @classmethod
    def from_tekken(cls, path: str) -> "Vocabulary":
        """Mistral's Tekken JSON (as shipped in mistral-common): the first
        `default_num_special_tokens` ids are special; normal token of rank r has id
        r + that number; the vocabulary is cut at `default_vocab_size`."""
        data = _read_json(path)
        try:
            config = data["config"]
            n_special = config["default_num_special_tokens"]
            size = config.get("default_vocab_size", n_special + len(data["vocab"]))
            tokens = [b""] * size
            specials = data.get("special_tokens") or []
            for i in range(n_special):
                tokens[i] = ("<SPECIAL_%d>" % i).encode()
            for s in specials:
                tokens[s["rank"]] = s["token_str"].encode("utf-8")
            for entry in data["vocab"][: size - n_special]:
                tokens[entry["rank"] + n_special] = base64.b64decode(entry["token_bytes"])
        except (KeyError, TypeError, ValueError) as e:
            raise VocabularyError("%s is not a Tekken tokenizer: %s" % (path, e)) from None
        by_text = {s["token_str"]: s["rank"] for s in specials}
        eos = by_text.get("</s>", 2)
        return cls(tokens, [eos], range(n_special), "tekken")

    @classmethod
    def load(cls, name_or_path: str) -> "Vocabulary":
        """An embedded vocabulary by name ("gpt2"; "bytes": the 256 one-byte tokens and an
        EOS, id 256, for teaching) or a file, by its format."""
        if name_or_path == "bytes":
            return cls.from_bytes([bytes([b]) for b in range(256)] + [b"</s>"], eos_token_id=256, name="bytes")
        if name_or_path in EMBEDDED:
            v = cls.from_maskref_json(os.path.join(DATA_DIR, EMBEDDED[name_or_path]))
            v.name = name_or_path
            return v
        path = name_or_path
        if not os.path.exists(path):
            raise VocabularyError(
                "unknown vocabulary %r: give one of %s or a file path" % (path, ", ".join(sorted(EMBEDDED) + ["bytes"]))
            )
        if path.endswith(".tiktoken"):
            return cls.from_tiktoken(path)
        data = _read_json(path)
        if "tokens_hex" in data:
            return cls.from_maskref_json(path)
        if "config" in data and "vocab" in data:
            return cls.from_tekken(path)
        if "model" in data:
            return cls.from_hf_tokenizer_json(data, name=os.path.basename(path))
        raise VocabularyError("%s: not a format maskref knows (maskref JSON, tokenizer.json, Tekken)" % path)


def _read_json(path: str) -> dict:
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise VocabularyError("cannot read %s: %s" % (path, e)) from None


def _mentions(data: dict, kind: str) -> bool:
    """Does the tokenizer's pre-tokenizer or decoder use a component of this type?"""
    text = json.dumps([data.get("pre_tokenizer"), data.get("decoder")])
    return '"type": "%s"' % kind in text


def _byte_level_decoder() -> Callable[[str], bytes]:
    """The inverse of GPT-2's bytes_to_unicode: printable bytes map to themselves, the
    others to code points 256 and up, in byte order."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    to_byte = {chr(b): b for b in printable}
    n = 0
    for b in range(256):
        if b not in printable:
            to_byte[chr(256 + n)] = b
            n += 1

    def decode(piece: str) -> bytes:
        try:
            return bytes(to_byte[ch] for ch in piece)
        except KeyError:
            return piece.encode("utf-8")  # not byte-level (an added token's text)

    return decode


_BYTE_PIECE = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")


def _sentencepiece_decode(piece: str) -> bytes:
    m = _BYTE_PIECE.match(piece)
    if m:
        return bytes([int(m.group(1), 16)])
    return piece.replace("\u2581", " ").encode("utf-8")
