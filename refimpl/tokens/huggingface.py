"""Vocabularies from the Hugging Face tokenizers users hold, duck-typed (nothing here
imports transformers, tokenizers or sentencepiece).

What is accepted, and how it is read:

  a model directory         its tokenizer.json; EOS from its configuration files (below)
  a tokenizer.json path     the same (the configuration files beside it, if it is named
                            tokenizer.json)
  a tokenizers.Tokenizer    its JSON (`to_str()`), read as a tokenizer.json
  a transformers tokenizer  fast (`backend_tokenizer`): its tokenizer's JSON; slow over
                            SentencePiece (`sp_model`): the pieces, then the added tokens
                            (`added_tokens_decoder`); EOS: the tokenizer's `eos_token_id`
  a SentencePieceProcessor  its pieces; EOS: its `eos_id()`

The bytes of a token are the bytes the model emits with it, as the tokenizer decodes
them: byte-level BPE's map undone, SentencePiece's `▁` a space and `<0xNN>` that byte
(vocab.py, `read_tokenizer_json`). Special tokens keep their text (their name, for `<name>`
in a grammar); they are read by id, never by their text.

EOS of a model directory: the tokenizer's EOS token (`eos_token` of tokenizer_config.json,
else of special_tokens_map.json), then the ids `generate()` stops at (`eos_token_id` of
generation_config.json, else of config.json: one id or a list), in that order, each once;
where none of these files names one, the first special token among the usual EOS texts.
A model may stop at several ids (Llama 3 Instruct: `<|end_of_text|>`, `<|eom_id|>`,
`<|eot_id|>`): every one of them is EOS, allowed where the grammar may end, and
`Vocabulary.eos_token_id` is the first. `eos_token_ids=` replaces them all.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Optional, Set

from .vocab import (
    TokenizerJson,
    Vocabulary,
    VocabularyError,
    read_json,
    read_tokenizer_json,
    sentencepiece_bytes,
    type_name,
)

#: the configuration files of a model directory that name its EOS, in the order read
TOKENIZER_CONFIGS = ("tokenizer_config.json", "special_tokens_map.json")
GENERATION_CONFIGS = ("generation_config.json", "config.json")


def vocabulary_from_huggingface(source: Any, vocab_size: Optional[int] = None,
                                eos_token_ids: Optional[Iterable[int]] = None) -> Vocabulary:
    """`Vocabulary.from_huggingface`: see the module's docstring."""
    if isinstance(source, (str, os.PathLike)):
        vocab = _from_path(os.fspath(source))
    elif hasattr(source, "backend_tokenizer"):  # transformers, fast
        vocab = _from_fast(source)
    elif hasattr(source, "sp_model"):  # transformers, slow over SentencePiece
        vocab = _from_slow_sentencepiece(source)
    elif hasattr(source, "to_str") and hasattr(source, "get_vocab_size"):  # tokenizers.Tokenizer
        vocab = _from_json_text(source.to_str(), "the tokenizers.Tokenizer", "tokenizers")
    elif hasattr(source, "id_to_piece") and hasattr(source, "get_piece_size"):  # sentencepiece
        vocab = _from_sentencepiece(source, getattr(source, "eos_id", lambda: -1)(), {}, "sentencepiece")
    else:
        raise VocabularyError(_unsupported(source))
    if eos_token_ids is not None:
        vocab = Vocabulary(vocab.tokens, eos_token_ids, vocab.special_token_ids, vocab.name)
    return vocab.padded(vocab_size) if vocab_size is not None else vocab


def _unsupported(source: Any) -> str:
    what = type_name(source)
    hint = ""
    if hasattr(source, "decode_single_token_bytes"):
        hint = " (a tiktoken Encoding: use Vocabulary.from_tiktoken)"
    elif hasattr(source, "instruct_tokenizer") or hasattr(source, "id_to_byte_piece"):
        hint = " (a mistral-common tokenizer: use Vocabulary.from_tekken)"
    return ("cannot read a vocabulary from a value of type %s%s: from_huggingface takes a transformers tokenizer, a "
            "tokenizers.Tokenizer, a sentencepiece.SentencePieceProcessor, a tokenizer.json path or a model "
            "directory" % (what, hint))


# -- files ---------------------------------------------------------------------------------


def _from_path(path: str) -> Vocabulary:
    if os.path.isdir(path):
        tokenizer_json = os.path.join(path, "tokenizer.json")
        if not os.path.isfile(tokenizer_json):
            has_model = os.path.isfile(os.path.join(path, "tokenizer.model"))
            raise VocabularyError(
                "%s: no tokenizer.json in this directory%s" % (path, (
                    " (a SentencePiece tokenizer.model alone: load it with transformers and pass the tokenizer)"
                    if has_model else "")))
        return vocabulary_from_tokenizer_json(read_json(tokenizer_json), tokenizer_json)
    if not os.path.exists(path):
        raise VocabularyError("tokenizer file not found: %s" % path)
    return vocabulary_from_tokenizer_json(read_json(path), path)


def vocabulary_from_tokenizer_json(data: Any, path: str) -> Vocabulary:
    """A parsed tokenizer.json read from `path`; EOS from the model's configuration files
    when it is a model directory's tokenizer.json."""
    read = read_tokenizer_json(data, path)
    directory = os.path.dirname(os.path.abspath(path))
    eos: List[int] = []
    if os.path.basename(path) == "tokenizer.json":
        eos = directory_eos(directory, read)
    name = os.path.basename(directory) if os.path.basename(path) == "tokenizer.json" else os.path.basename(path)
    return Vocabulary(read.tokens, eos or read.usual_eos(), read.special, name)


def directory_eos(directory: str, read: TokenizerJson) -> List[int]:
    """The EOS ids a model directory's configuration files name (see the module's
    docstring), in order, each once; [] where none names one."""
    eos: List[int] = []
    for name in TOKENIZER_CONFIGS:
        config = _config(directory, name)
        if config is not None and config.get("eos_token") is not None:
            text = _token_text(config["eos_token"], os.path.join(directory, name))
            eos.append(read.id_of(text, os.path.join(directory, name)))
            break
    for name in GENERATION_CONFIGS:
        config = _config(directory, name)
        if config is not None and config.get("eos_token_id") is not None:
            eos.extend(_ids(config["eos_token_id"], os.path.join(directory, name), len(read.tokens)))
            break
    return list(dict.fromkeys(eos))


def _config(directory: str, name: str) -> Optional[Dict[str, Any]]:
    path = os.path.join(directory, name)
    if not os.path.isfile(path):
        return None
    data = read_json(path)
    if not isinstance(data, dict):
        raise VocabularyError("%s: a configuration holds a JSON object, not a %s" % (path, type(data).__name__))
    return data


def _token_text(value: Any, where: str) -> str:
    """`eos_token` as transformers writes it: the text, or an AddedToken's object."""
    if isinstance(value, dict):
        value = value.get("content")
    if not isinstance(value, str):
        raise VocabularyError("%s: eos_token must be a token's text, not %r" % (where, value))
    return value


def _ids(value: Any, where: str, size: int) -> List[int]:
    """`eos_token_id`: one id or a list of them."""
    ids = value if isinstance(value, list) else [value]
    for i in ids:
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < size:
            raise VocabularyError("%s: eos_token_id must be token ids below %d, not %r" % (where, size, value))
    return ids


# -- objects -------------------------------------------------------------------------------


def _from_json_text(text: str, where: str, name: str, eos: Optional[int] = None) -> Vocabulary:
    read = read_tokenizer_json(json.loads(text), where)
    return Vocabulary(read.tokens, [eos] if eos is not None else read.usual_eos(), read.special, name)


def _name(tokenizer: Any) -> str:
    return str(getattr(tokenizer, "name_or_path", "") or type(tokenizer).__name__)


def _from_fast(tokenizer: Any) -> Vocabulary:
    """A transformers fast tokenizer: its tokenizers.Tokenizer's JSON, and its EOS. The
    special tokens are those the JSON marks special, those its decoder skips
    (`all_special_ids` may list more: a SentencePiece model's user-defined pieces, which
    decode as text)."""
    backend = tokenizer.backend_tokenizer
    return _from_json_text(backend.to_str(), "the tokenizer of a %s" % type_name(tokenizer), _name(tokenizer),
                           tokenizer.eos_token_id)


def _from_slow_sentencepiece(tokenizer: Any) -> Vocabulary:
    """A transformers slow tokenizer over a SentencePiece model: the model's pieces, then
    the added tokens."""
    added: Dict[int, Any] = dict(getattr(tokenizer, "added_tokens_decoder", {}))
    return _from_sentencepiece(tokenizer.sp_model, tokenizer.eos_token_id, added, _name(tokenizer))


def _from_sentencepiece(sp: Any, eos: Optional[int], added: Dict[int, Any], name: str) -> Vocabulary:
    """A sentencepiece.SentencePieceProcessor's pieces (control and unknown pieces are
    special), then `added` (id -> an AddedToken: `content`, `special`)."""
    n = sp.get_piece_size()
    tokens: List[bytes] = []
    special: Set[int] = set()
    for i in range(n):
        piece = sp.id_to_piece(i)
        if sp.is_control(i) or sp.is_unknown(i):
            special.add(i)
            tokens.append(piece.encode("utf-8"))
        else:
            tokens.append(sentencepiece_bytes(piece))
    size = max([n] + [i + 1 for i in added])
    tokens.extend([b""] * (size - n))
    for i, token in added.items():
        content = str(getattr(token, "content", token))
        if getattr(token, "special", False):
            special.add(i)
            tokens[i] = content.encode("utf-8")
        elif i >= n:
            tokens[i] = sentencepiece_bytes(content)
    return Vocabulary(tokens, [eos] if eos is not None and eos >= 0 else [], special, name)
