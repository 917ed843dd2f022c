"""Vocabularies: token id -> bytes, EOS and special tokens, and the loaders.

A token is the byte string it decodes to. Empty tokens are kept (they are never allowed
by a mask), several ids may share the same bytes (SentencePiece byte-fallback tokens do),
and special tokens (EOS, BOS, `<unk>`, control tokens) are never produced by grammar text:
they are recognised by id, never by matching their display text.

A model's logits may be wider than its tokenizer (GPT-2: 50,257 tokens, 50,304 logits): a
vocabulary padded to that width (`vocab_size`, `padded`) has the same ids as the logits, and
its padding ids (`padding_ids`) are no tokens at all: never allowed, never read.

Loaders, all stdlib-only and offline: `from_bytes`, `from_hf_tokenizer_json` (byte-level
BPE and SentencePiece-style), `from_huggingface` (the tokenizer objects and model
directories of transformers and tokenizers: huggingface.py), `from_tiktoken` and
`from_tekken` (a file or the library's object), `from_maskref_json` (the format of the
embedded vocabulary), and `load(name_or_path)`. docs/vocabularies.md tells them apart.

>>> v = Vocabulary.load("gpt2")
>>> len(v), v.eos_token_id, v.tokens[262], v.tokens[198]
(50257, 50256, b' the', b'\\n')
>>> w = v.padded(50304)
>>> len(w), w.padding_ids, w.tokens[50300], w.is_grammar_token(50300)
(50304, range(50257, 50304), b'', False)
"""
from __future__ import annotations

import base64
import binascii
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ..errors import VocabularyError
from .huggingface import (
    MAX_TOKEN_ID,
    check_id,
    check_text,
    read_huggingface,
    read_json,
    read_tokenizer_json,
    read_tokenizer_json_file,
    type_name,
)
from .trie import TokenTrie

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
EMBEDDED = {"gpt2": "gpt2.json.gz"}


class Vocabulary:
    """Token ids to bytes, with the EOS id(s) and the special-token ids; ids from
    `len(tokens)` up to `vocab_size` (when given) are padding."""

    def __init__(
        self,
        tokens: Sequence[bytes],
        eos_token_ids: Iterable[int] = (),
        special_token_ids: Iterable[int] = (),
        name: str = "custom",
        vocab_size: Optional[int] = None,
    ) -> None:
        self.tokens: List[bytes] = [bytes(t) for t in tokens]
        if not self.tokens:
            raise VocabularyError("vocabulary %r has no tokens" % name)
        n = len(self.tokens)
        if vocab_size is not None and vocab_size > MAX_TOKEN_ID + 1:
            raise VocabularyError("vocab_size %d: a vocabulary has at most %d ids" % (vocab_size, MAX_TOKEN_ID + 1))
        if vocab_size is not None and vocab_size < n:
            raise VocabularyError(
                "vocab_size %d is smaller than the vocabulary %r (%d tokens): the logits must cover every token"
                % (vocab_size, name, n))
        #: the ids beyond the tokenizer's tokens, up to the logits' width: no tokens at all
        self.padding_ids = range(n, n if vocab_size is None else vocab_size)
        self.tokens.extend([b""] * len(self.padding_ids))
        self.eos_token_ids: Tuple[int, ...] = tuple(eos_token_ids)
        for t in self.eos_token_ids:
            if not 0 <= t < n:
                raise VocabularyError("EOS token id %d is not in the vocabulary" % t)
        self.special_token_ids = frozenset(special_token_ids) | frozenset(self.eos_token_ids)
        for t in self.special_token_ids:
            if not 0 <= t < n:
                raise VocabularyError("special token id %d is not in the vocabulary" % t)
        self.name = name
        self._trie: Optional[TokenTrie] = None

    @property
    def eos_token_id(self) -> Optional[int]:
        return self.eos_token_ids[0] if self.eos_token_ids else None

    def __len__(self) -> int:
        """The width of the id space: the tokens and the padding after them."""
        return len(self.tokens)

    def __repr__(self) -> str:
        padding = ", padded to %d" % len(self) if self.padding_ids else ""
        return "Vocabulary(%r, %d tokens%s, eos=%r)" % (self.name, self.padding_ids.start, padding, self.eos_token_ids)

    def padded(self, vocab_size: int) -> "Vocabulary":
        """The same tokens with their ids padded to `vocab_size` (the model's logits'
        width); the padding ids are never allowed. A new vocabulary: this one is unchanged."""
        return Vocabulary(self.tokens[: self.padding_ids.start], self.eos_token_ids, self.special_token_ids,
                          self.name, vocab_size)

    @property
    def trie(self) -> TokenTrie:
        """The token trie, built on first use and shared by every Matcher."""
        if self._trie is None:
            self._trie = TokenTrie(self)
        return self._trie

    def is_grammar_token(self, t: int) -> bool:
        """Can grammar text produce token t? (Not special, not empty, not padding.)"""
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
        data = read_json(path)
        try:
            tokens = [bytes.fromhex(h) for h in data["tokens_hex"]]
            return cls(tokens, [data["eos_token_id"]], data.get("special_token_ids", ()), data.get("name", path))
        except (KeyError, ValueError, TypeError) as e:
            raise VocabularyError("%s is not a maskref vocabulary: %s" % (path, e)) from None

    @classmethod
    def from_hf_tokenizer_json(
        cls, source: Union[str, dict], *, eos_token: Optional[str] = None, name: Optional[str] = None
    ) -> "Vocabulary":
        """A Hugging Face `tokenizer.json` (path or parsed dict), the file alone (for the
        EOS of a model's configuration files, `from_huggingface` reads its directory).

        Byte-level BPE (GPT-2 style): the GPT-2 byte↔unicode map is undone. SentencePiece
        style (a Metaspace pre-tokenizer/decoder, or `byte_fallback`): `▁` becomes a space
        and `<0xNN>` that byte. Added tokens marked `special` are special; EOS is
        `eos_token` if given, else the first special token among the usual EOS names.
        """
        where = source if isinstance(source, str) else (name or "tokenizer.json")
        data = read_json(source) if isinstance(source, str) else source
        read = read_tokenizer_json(data, where)
        eos = [read.id_of(eos_token, where)] if eos_token else read.usual_eos()
        default_name = os.path.basename(source) if isinstance(source, str) else "hf"
        return cls(read.tokens, eos, read.special, name or default_name)

    @classmethod
    def from_huggingface(
        cls, tokenizer_or_path: Any, vocab_size: Optional[int] = None, *,
        eos_token_ids: Union[int, Iterable[int], None] = None,
    ) -> "Vocabulary":
        """The vocabulary of a Hugging Face tokenizer: a `transformers` tokenizer (fast or
        slow), a `tokenizers.Tokenizer`, a `sentencepiece.SentencePieceProcessor`, a
        tokenizer.json path or a model directory; `vocab_size` pads the ids to the logits'
        width; `eos_token_ids` (one id or several) replaces the EOS ids the tokenizer names
        (huggingface.py; docs/vocabularies.md)."""
        tokens, eos, special, name = read_huggingface(tokenizer_or_path)
        if eos_token_ids is not None:  # one id or several, as generation_config.eos_token_id
            eos = [eos_token_ids] if isinstance(eos_token_ids, int) else list(eos_token_ids)
        return cls(tokens, eos, special, name, vocab_size)

    @classmethod
    def from_tiktoken(
        cls, source: Any, special_tokens: Optional[Dict[str, int]] = None, *, eos_token: Optional[str] = None
    ) -> "Vocabulary":
        """A tiktoken `Encoding`, or a tiktoken rank file (`<base64 token> <rank>` per
        line), and its special tokens (an Encoding's own unless given). EOS is
        `eos_token`, else an Encoding's `<|endoftext|>` (a rank file has none unless
        `eos_token` names one)."""
        if isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            return _ranked(_read_ranks(path), dict(special_tokens or {}), eos_token, os.path.basename(path), path)
        if not (hasattr(source, "decode_single_token_bytes") and hasattr(source, "n_vocab")):
            raise VocabularyError("from_tiktoken takes a tiktoken Encoding or a rank file's path, not a value of type %s"
                                  % type_name(source))
        own = {text: source.encode_single_token(text) for text in source.special_tokens_set}
        ranks: Dict[int, bytes] = {}
        for i in set(range(source.n_vocab)) - set(own.values()):
            try:
                ranks[i] = source.decode_single_token_bytes(i)
            except KeyError:  # a gap in the ids
                pass
        if special_tokens is None:
            special_tokens = own
        if eos_token is None and "<|endoftext|>" in special_tokens:
            eos_token = "<|endoftext|>"
        return _ranked(ranks, dict(special_tokens), eos_token, str(getattr(source, "name", "tiktoken")), "the Encoding")

    @classmethod
    def from_tekken(cls, source: Any) -> "Vocabulary":
        """Mistral's Tekken: its JSON file (as shipped in mistral-common), or mistral-common's
        `Tekkenizer` (or a `MistralTokenizer` holding one). The first
        `default_num_special_tokens` ids are special (named by the file's `special_tokens`,
        else, in files before v7, by mistral-common's names for them; the rest
        `<SPECIAL_n>`); normal token of rank r has id r + that number; the vocabulary is
        cut at `default_vocab_size`."""
        if not isinstance(source, (str, os.PathLike)):
            return _tekkenizer(source)
        path = os.fspath(source)
        data = read_json(path)
        try:
            config = data["config"]
            n_special = config["default_num_special_tokens"]
            check_id(n_special, "config.default_num_special_tokens", path)
            if n_special > TEKKEN_MAX_SPECIAL:
                raise VocabularyError("%s: default_num_special_tokens %d: more than %d special tokens (Tekken has 1000)"
                                      % (path, n_special, TEKKEN_MAX_SPECIAL))
            size = config.get("default_vocab_size", n_special + len(data["vocab"]))
            check_id(size, "config.default_vocab_size", path)
            if size < n_special:
                raise VocabularyError("%s: default_vocab_size %d is below default_num_special_tokens %d"
                                      % (path, size, n_special))
            tokens = [b""] * size
            specials = data.get("special_tokens")
            if specials is None:  # files before v7 name none: mistral-common's names then
                specials = [{"rank": i, "token_str": text} for i, text in enumerate(TEKKEN_SPECIAL_TOKENS[:n_special])]
            for i in range(n_special):
                tokens[i] = ("<SPECIAL_%d>" % i).encode()
            by_text: Dict[str, int] = {}
            for k, s in enumerate(specials):
                check_id(s["rank"], "special_tokens[%d].rank" % k, path)
                if s["rank"] >= n_special or not isinstance(s["token_str"], str):
                    raise VocabularyError("%s: special_tokens[%d] must have a rank below %d and a token_str text"
                                          % (path, k, n_special))
                check_text(s["token_str"], "special_tokens[%d].token_str" % k, path)
                tokens[s["rank"]] = s["token_str"].encode("utf-8")
                by_text[s["token_str"]] = s["rank"]
            for k, entry in enumerate(data["vocab"][: size - n_special]):
                check_id(entry["rank"], "vocab[%d].rank" % k, path)
                tokens[entry["rank"] + n_special] = base64.b64decode(entry["token_bytes"])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            if isinstance(e, VocabularyError):
                raise
            raise VocabularyError("%s is not a Tekken tokenizer: %s" % (path, e)) from None
        eos = by_text.get("</s>", 2 if n_special > 2 else None)  # mistral-common's EOS is id 2
        return cls(tokens, [] if eos is None else [eos], range(n_special), "tekken")

    @classmethod
    def load(cls, name_or_path: str) -> "Vocabulary":
        """An embedded vocabulary by name ("gpt2"; "bytes": the 256 one-byte tokens and an
        EOS, id 256, for teaching), a file by its format (maskref's JSON, a tokenizer.json,
        Tekken's JSON, a `.tiktoken` rank file), or a Hugging Face model directory."""
        if name_or_path == "bytes":
            return cls.from_bytes([bytes([b]) for b in range(256)] + [b"</s>"], eos_token_id=256, name="bytes")
        if name_or_path in EMBEDDED:
            v = cls.from_maskref_json(os.path.join(DATA_DIR, EMBEDDED[name_or_path]))
            v.name = name_or_path
            return v
        path = name_or_path
        if not os.path.exists(path):
            if os.sep in path or "/" in path or "." in path:
                raise VocabularyError("vocabulary file or directory not found: %s" % path)
            raise VocabularyError(
                "unknown vocabulary %r: give one of %s or a file path" % (path, ", ".join(sorted(EMBEDDED) + ["bytes"]))
            )
        if os.path.isdir(path) or path.endswith(".tiktoken"):
            return cls.from_huggingface(path) if os.path.isdir(path) else cls.from_tiktoken(path)
        data = read_json(path)
        if not isinstance(data, dict):
            raise VocabularyError("%s: not a format maskref knows (a JSON %s, not an object)" % (path, type(data).__name__))
        if "tokens_hex" in data:
            return cls.from_maskref_json(path)
        if "config" in data and "vocab" in data:
            return cls.from_tekken(path)
        if "model" in data:
            return cls(*read_tokenizer_json_file(data, path))
        raise VocabularyError("%s: not a format maskref knows (maskref JSON, tokenizer.json, Tekken)" % path)


#: the most special tokens a Tekken file may declare (each is a token: a typo's millions
#: would take gigabytes)
TEKKEN_MAX_SPECIAL = 1 << 16

#: the special tokens of a Tekken file that names none (files before v7), as mistral-common
#: names them
TEKKEN_SPECIAL_TOKENS = (
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
    "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]",
)

def _read_ranks(path: str) -> Dict[int, bytes]:
    """A tiktoken rank file: rank -> token bytes."""
    ranks: Dict[int, bytes] = {}
    try:
        with open(path, "rb") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    b64, rank = line.split()
                    ranks[int(rank)] = base64.b64decode(b64, validate=True)
                except (ValueError, binascii.Error):
                    raise VocabularyError("%s:%d: expected '<base64> <rank>'" % (path, lineno)) from None
    except OSError as e:
        raise VocabularyError("cannot read %s: %s" % (path, e.strerror or e)) from None
    return ranks


def _ranked(ranks: Dict[int, bytes], special_tokens: Dict[str, int], eos_token: Optional[str], name: str,
            where: str) -> Vocabulary:
    """tiktoken's vocabulary: the tokens by rank, the special tokens by id; ids no token
    has are empty (never allowed)."""
    for i in list(ranks) + list(special_tokens.values()):
        check_id(i, "a rank", where)
    if not ranks and not special_tokens:
        raise VocabularyError("%s: no tokens" % where)
    tokens = [b""] * (max(list(ranks) + list(special_tokens.values())) + 1)
    for r, t in ranks.items():
        tokens[r] = t
    for text, i in special_tokens.items():
        tokens[i] = text.encode("utf-8")
    if eos_token is not None and eos_token not in special_tokens:
        raise VocabularyError("%s: the EOS token %r is not one of its special tokens" % (where, eos_token))
    eos = [special_tokens[eos_token]] if eos_token is not None else []
    return Vocabulary(tokens, eos, special_tokens.values(), name)


def _tekkenizer(source: Any) -> Vocabulary:
    """mistral-common's Tekkenizer (or a MistralTokenizer around one), duck-typed: its
    special tokens first, by their text, then each normal token's bytes."""
    tek = source
    if hasattr(tek, "instruct_tokenizer"):  # MistralTokenizer
        tek = tek.instruct_tokenizer.tokenizer
    if not (hasattr(tek, "id_to_byte_piece") and hasattr(tek, "num_special_tokens") and hasattr(tek, "n_words")):
        raise VocabularyError("from_tekken takes a Tekken JSON file's path, a mistral-common Tekkenizer or a "
                              "MistralTokenizer holding one, not a value of type %s" % type_name(tek))
    n_special = tek.num_special_tokens
    tokens = [tek.id_to_piece(i).encode("utf-8") for i in range(n_special)]
    tokens += [tek.id_to_byte_piece(i) for i in range(n_special, tek.n_words)]
    return Vocabulary(tokens, [tek.eos_id], range(n_special), "tekken")


