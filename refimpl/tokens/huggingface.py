"""Reading the Hugging Face tokenizers users hold — their files and objects — into the
parts of a vocabulary (vocab.py's `Vocabulary.from_huggingface`, `from_hf_tokenizer_json`
and `load` build it). Duck-typed: nothing here imports transformers, tokenizers or
sentencepiece.

What is accepted, and how it is read:

  a model directory         its tokenizer.json; EOS from its configuration files (below)
  a tokenizer.json path     the same (the configuration files beside it, if it is named
                            tokenizer.json)
  a tokenizers.Tokenizer    its JSON (`to_str()`), read as a tokenizer.json
  a transformers tokenizer  fast (`backend_tokenizer`): its tokenizer's JSON; slow over
                            SentencePiece (`sp_model`): the pieces, then the added tokens
                            (`added_tokens_decoder`); EOS: the tokenizer's `eos_token_id`
  a SentencePieceProcessor  its pieces; EOS: its `eos_id()`

The bytes of a token are the bytes the model emits with it, as the tokenizer's decoder
makes them: byte-level BPE's map undone, SentencePiece's `▁` a space and `<0xNN>` that
byte, an ordinary added token the text the decoder makes of it. Special tokens keep their
text (their name, for `<name>` in a grammar); they are read by id, never by their text.

EOS of a model directory: the tokenizer's EOS token (`eos_token` of tokenizer_config.json,
else of special_tokens_map.json), then the ids `generate()` stops at (`eos_token_id` of
generation_config.json, else of config.json: one id or a list), in that order, each once;
where none of these files names one, the first special token among the usual EOS texts.
A model may stop at several ids (Llama 3 Instruct: `<|end_of_text|>`, `<|eom_id|>`,
`<|eot_id|>`): every one of them is EOS, allowed where the grammar may end, and
`Vocabulary.eos_token_id` is the first.

>>> parts = read_tokenizer_json({"model": {"vocab": {"\u2581the": 0, "<0x0A>": 1}},
...                              "added_tokens": [{"id": 2, "content": "</s>", "special": True}]}, "tokenizer.json")
>>> parts.tokens, parts.special, parts.usual_eos()
([b' the', b'\\n', b'</s>'], {2}, [2])
"""
from __future__ import annotations

import gzip
import json
import os
import re
import zlib
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Set, Tuple

from ..errors import VocabularyError

#: the configuration files of a model directory that name its EOS, in the order read
TOKENIZER_CONFIGS = ("tokenizer_config.json", "special_tokens_map.json")
GENERATION_CONFIGS = ("generation_config.json", "config.json")


class TokenizerParts(NamedTuple):
    """What a vocabulary is made of (vocab.py's `Vocabulary` takes them)."""

    tokens: List[bytes]
    eos_token_ids: List[int]
    special_token_ids: Set[int]
    name: str


def read_huggingface(source: Any) -> TokenizerParts:
    """A tokenizer object, a tokenizer.json path or a model directory: see the module's
    docstring (`Vocabulary.from_huggingface`)."""
    if isinstance(source, (str, os.PathLike)):
        return _from_path(os.fspath(source))
    if hasattr(source, "backend_tokenizer"):  # transformers, fast
        return _from_fast(source)
    if hasattr(source, "sp_model"):  # transformers, slow over SentencePiece
        return _from_slow_sentencepiece(source)
    if hasattr(source, "to_str") and hasattr(source, "get_vocab_size"):  # tokenizers.Tokenizer
        return _from_json_text(source.to_str(), "the tokenizers.Tokenizer", "tokenizers")
    if hasattr(source, "id_to_piece") and hasattr(source, "get_piece_size"):  # sentencepiece
        return _from_sentencepiece(source, getattr(source, "eos_id", lambda: -1)(), {}, "sentencepiece")
    raise VocabularyError(_unsupported(source))


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


def _from_path(path: str) -> TokenizerParts:
    if os.path.isdir(path):
        tokenizer_json = os.path.join(path, "tokenizer.json")
        if not os.path.isfile(tokenizer_json):
            has_model = os.path.isfile(os.path.join(path, "tokenizer.model"))
            raise VocabularyError(
                "%s: no tokenizer.json in this directory%s" % (path, (
                    " (a SentencePiece tokenizer.model alone: load it with transformers and pass the tokenizer)"
                    if has_model else "")))
        return read_tokenizer_json_file(read_json(tokenizer_json), tokenizer_json)
    if not os.path.exists(path):
        raise VocabularyError("tokenizer file not found: %s" % path)
    return read_tokenizer_json_file(read_json(path), path)


def read_tokenizer_json_file(data: Any, path: str) -> TokenizerParts:
    """A parsed tokenizer.json read from `path`; EOS from the model's configuration files
    when it is a model directory's tokenizer.json."""
    read = read_tokenizer_json(data, path)
    directory = os.path.dirname(os.path.abspath(path))
    eos: List[int] = []
    if os.path.basename(path) == "tokenizer.json":
        eos = directory_eos(directory, read)
    name = os.path.basename(directory) if os.path.basename(path) == "tokenizer.json" else os.path.basename(path)
    return TokenizerParts(read.tokens, eos or read.usual_eos(), read.special, name)


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


def _from_json_text(text: str, where: str, name: str, eos: Optional[int] = None) -> TokenizerParts:
    read = read_tokenizer_json(json.loads(text), where)
    return TokenizerParts(read.tokens, [eos] if eos is not None else read.usual_eos(), read.special, name)


def _name(tokenizer: Any) -> str:
    return str(getattr(tokenizer, "name_or_path", "") or type(tokenizer).__name__)


def _from_fast(tokenizer: Any) -> TokenizerParts:
    """A transformers fast tokenizer: its tokenizers.Tokenizer's JSON, and its EOS. The
    special tokens are those the JSON marks special, those its decoder skips
    (`all_special_ids` may list more: a SentencePiece model's user-defined pieces, which
    decode as text)."""
    backend = tokenizer.backend_tokenizer
    return _from_json_text(backend.to_str(), "the tokenizer of a %s" % type_name(tokenizer), _name(tokenizer),
                           tokenizer.eos_token_id)


def _from_slow_sentencepiece(tokenizer: Any) -> TokenizerParts:
    """A transformers slow tokenizer over a SentencePiece model: the model's pieces, then
    the added tokens."""
    added: Dict[int, Any] = dict(getattr(tokenizer, "added_tokens_decoder", {}))
    return _from_sentencepiece(tokenizer.sp_model, tokenizer.eos_token_id, added, _name(tokenizer))


def _from_sentencepiece(sp: Any, eos: Optional[int], added: Dict[int, Any], name: str) -> TokenizerParts:
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
    return TokenizerParts(tokens, [eos] if eos is not None and eos >= 0 else [], special, name)


# -- tokenizer.json ------------------------------------------------------------------------

#: the texts an EOS token has in the usual tokenizers, in the order they are looked for
USUAL_EOS = ("</s>", "<|endoftext|>", "<|end_of_text|>", "<|eot_id|>", "<eos>", "<|im_end|>")

#: the largest token id a vocabulary file may give: 2^21 ids, eight times the largest
#: vocabulary in use (Gemma's 262,144), a guard against a typo's gigabytes — 2^24 empty
#: tokens took 10 s and 300 MB to load from a 37-byte file (found by hostile/, issue 34)
MAX_TOKEN_ID = (1 << 21) - 1


class TokenizerJson:
    """What a tokenizer.json says of its tokens: their bytes, the special ids, and the id
    of each token's text (the model's pieces and the added tokens), for naming EOS."""

    def __init__(self, tokens: List[bytes], special: Set[int], by_text: Dict[str, int]) -> None:
        self.tokens = tokens
        self.special = special
        self.by_text = by_text

    def id_of(self, text: str, where: str) -> int:
        """The id of the token whose text is `text` (an added token's, else a piece's)."""
        if text not in self.by_text:
            raise VocabularyError("%s: the EOS token %r is not a token of the tokenizer" % (where, text))
        return self.by_text[text]

    def usual_eos(self) -> List[int]:
        """The first special token among the usual EOS texts, if any."""
        return [self.by_text[n] for n in USUAL_EOS if n in self.by_text and self.by_text[n] in self.special][:1]


def read_tokenizer_json(data: Any, where: str) -> TokenizerJson:
    """The tokens of a parsed tokenizer.json; `where` names it in errors (its path)."""
    if not isinstance(data, dict):
        raise VocabularyError("%s: a tokenizer.json holds a JSON object, not a %s" % (where, type(data).__name__))
    model = data.get("model")
    if not isinstance(model, dict) or "vocab" not in model:
        raise VocabularyError("%s: no model.vocab: not a Hugging Face tokenizer.json" % where)
    if model.get("type") == "WordPiece":
        raise VocabularyError("%s: a WordPiece tokenizer (BERT-style) is not supported: its tokens' text depends "
                              "on their neighbours (## continues a word)" % where)
    pieces = _pieces(model["vocab"], where)
    added = _added_tokens(data.get("added_tokens"), where)
    if not pieces and not added:
        raise VocabularyError("%s: the tokenizer has no tokens (model.vocab and added_tokens are empty)" % where)
    size = max(list(pieces.values()) + [i for i, _, _ in added]) + 1
    decode = _byte_level_decoder() if _mentions(data, "ByteLevel") else sentencepiece_bytes
    tokens = [b""] * size
    for piece, i in pieces.items():
        tokens[i] = decode(piece)
    special = set()
    for i, content, is_special in added:
        # the decoder reads an added token's text too; a special token keeps its text, its name
        tokens[i] = content.encode("utf-8") if is_special else decode(content)
        if is_special:
            special.add(i)
    by_text = dict(pieces)
    by_text.update((content, i) for i, content, _ in added)
    return TokenizerJson(tokens, special, by_text)


def _pieces(vocab: Any, where: str) -> Dict[str, int]:
    """model.vocab: {piece: id} (BPE, WordLevel) or [[piece, score], ...] (Unigram)."""
    if isinstance(vocab, list):
        if not all(isinstance(p, list) and p and isinstance(p[0], str) for p in vocab):
            raise VocabularyError("%s: model.vocab must list [piece, score] pairs" % where)
        for i, p in enumerate(vocab):
            check_text(p[0], "model.vocab[%d]" % i, where)
        return {p[0]: i for i, p in enumerate(vocab)}
    if not isinstance(vocab, dict):
        raise VocabularyError("%s: model.vocab must be an object or a list, not a %s" % (where, type(vocab).__name__))
    for piece, i in vocab.items():
        check_id(i, "model.vocab[%s]" % json.dumps(piece), where)
        check_text(piece, "model.vocab[%s]" % json.dumps(piece), where)
    return dict(vocab)


def _added_tokens(added: Any, where: str) -> List[Tuple[int, str, bool]]:
    """added_tokens as (id, content, special)."""
    if added is None:
        return []
    if not isinstance(added, list):
        raise VocabularyError("%s: added_tokens must be a list" % where)
    out = []
    for k, a in enumerate(added):
        if not (isinstance(a, dict) and isinstance(a.get("content"), str)):
            raise VocabularyError("%s: added_tokens[%d] needs an id and a content text" % (where, k))
        check_id(a.get("id"), "added_tokens[%d].id" % k, where)
        check_text(a["content"], "added_tokens[%d].content" % k, where)
        out.append((a["id"], a["content"], bool(a.get("special"))))
    return out


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


def sentencepiece_bytes(piece: str) -> bytes:
    m = _BYTE_PIECE.match(piece)
    if m:
        return bytes([int(m.group(1), 16)])
    return piece.replace("\u2581", " ").encode("utf-8")


# -- what every reader shares ---------------------------------------------------------------


def type_name(obj: Any) -> str:
    """An object's type as `module.Name` (a builtin's: `Name`), for errors."""
    t = type(obj)
    return t.__qualname__ if t.__module__ == "builtins" else "%s.%s" % (t.__module__, t.__qualname__)


def read_json(path: str) -> Any:
    """The JSON value in the file at `path` (gzip-compressed if it ends in .gz); a
    VocabularyError naming the file if it cannot be read, or is not JSON."""
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            text = f.read()
    except OSError as e:  # BadGzipFile among them
        raise VocabularyError("cannot read %s: %s" % (path, e.strerror or e)) from None
    except (EOFError, zlib.error) as e:  # a gzip stream cut short, or corrupted
        raise VocabularyError("cannot read %s: a damaged gzip file: %s" % (path, e)) from None
    except UnicodeDecodeError as e:
        raise VocabularyError("cannot read %s: not UTF-8 text: %s" % (path, e)) from None
    if not text.strip():
        raise VocabularyError("cannot read %s: the file is empty" % path)
    try:
        return json.loads(text)
    except ValueError as e:  # JSONDecodeError
        raise VocabularyError("cannot read %s: not JSON: %s" % (path, e)) from None
    except RecursionError:
        raise VocabularyError("cannot read %s: JSON nested too deeply for Python's json module" % path) from None


def check_id(i: Any, what: str, where: str) -> None:
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i <= MAX_TOKEN_ID:
        raise VocabularyError("%s: %s must be a token id (an integer from 0 to %d), not %r" % (where, what, MAX_TOKEN_ID, i))


def check_text(text: str, what: str, where: str) -> None:
    """A token's text from a JSON file must be Unicode text: JSON may escape a lone
    surrogate (`"\\ud800"`), which has no UTF-8 bytes."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise VocabularyError("%s: %s is not Unicode text (a lone surrogate U+%04X at offset %d)"
                              % (where, what, ord(text[e.start]), e.start)) from None
