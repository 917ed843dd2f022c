"""Vocabulary files as outside input: every loader of refimpl/tokens/vocab.py on a file
whose content is the fuzzer's bytes.

The first byte chooses the loader (`LOADERS`, modulo their number), the rest is the
file: maskref's JSON (plain and gzip), a Hugging Face tokenizer.json, a tiktoken rank
file, a Tekken JSON, `Vocabulary.load` of a file by its content, and of a model directory
(the rest split at NUL bytes into its tokenizer.json, tokenizer_config.json and
generation_config.json). The property: a vocabulary, or a `VocabularyError` naming the
file it could not read.

The seeds are small slices (a few hundred tokens) of the real vocabularies maskref ships
(refimpl/tokens/data, tests/data/vocab) written in each format, and the tests' literals.
"""
from __future__ import annotations

import base64
import gzip
import json
import os
from typing import Any, Callable, Dict, Iterator, List, Tuple

from refimpl.errors import VocabularyError
from refimpl.tokens.huggingface import _byte_level_decoder
from refimpl.tokens.vocab import DATA_DIR, Vocabulary

from ..property import Violation, check
from . import Target, scratch

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEST_VOCABS = os.path.join(_REPO, "tests", "data", "vocab")
#: tokens of a real vocabulary kept in a seed (the seeds stay small)
SEED_TOKENS = 300


def _directory_files(body: bytes) -> str:
    """A model directory: `body` split at NUL bytes into its tokenizer.json and the
    configuration files that name its EOS (an empty part: no such file)."""
    path = scratch.clear("model")
    names = ("tokenizer.json", "tokenizer_config.json", "generation_config.json")
    for name, part in zip(names, body.split(b"\x00", len(names) - 1)):
        if not part:
            continue
        with open(os.path.join(path, name), "wb") as f:
            f.write(part)
    return path


#: (label, file name, how the file is read); the first byte of an input picks one
LOADERS: Tuple[Tuple[str, str, Callable[[str], Vocabulary]], ...] = (
    ("maskref-json", "vocab.json", Vocabulary.from_maskref_json),
    ("maskref-json-gz", "vocab.json.gz", Vocabulary.from_maskref_json),
    ("tokenizer-json", "tok/tokenizer.json", Vocabulary.from_hf_tokenizer_json),
    ("tiktoken", "ranks.tiktoken", Vocabulary.from_tiktoken),
    ("tekken", "tekken.json", Vocabulary.from_tekken),
    ("load-file", "file.json", Vocabulary.load),
    ("load-tiktoken", "file.tiktoken", Vocabulary.load),
    ("load-directory", "", Vocabulary.load),
)


def run(data: bytes) -> None:
    if not data:
        return
    label, name, load = LOADERS[data[0] % len(LOADERS)]
    body = data[1:]
    path = scratch.write(name, body) if name else _directory_files(body)
    named = os.path.basename(path)

    def call() -> Vocabulary:
        try:
            return load(path)
        except VocabularyError as e:
            if named not in str(e):
                raise Violation("%s: a VocabularyError that does not name the file %s: %s" % (label, named, e)) from None
            raise

    vocab = check(call, typed=(VocabularyError,))
    if vocab is not None:
        _check_vocabulary(vocab, label)


def _check_vocabulary(v: Vocabulary, label: str) -> None:
    """What every vocabulary keeps: bytes tokens, EOS and special ids among them."""
    n = len(v.tokens)
    if not n or not all(isinstance(t, bytes) for t in v.tokens):
        raise Violation("%s: a vocabulary whose tokens are not byte strings" % label)
    for t in list(v.eos_token_ids) + list(v.special_token_ids):
        if not (isinstance(t, int) and not isinstance(t, bool) and 0 <= t < n):
            raise Violation("%s: a vocabulary with special or EOS id %r of %d tokens" % (label, t, n))


# -- seeds ------------------------------------------------------------------------------------


def _maskref(path: str) -> Dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def _slice(data: Dict[str, Any]) -> Tuple[List[bytes], int]:
    """The first SEED_TOKENS tokens of a maskref vocabulary, its EOS last."""
    tokens = [bytes.fromhex(h) for h in data["tokens_hex"][:SEED_TOKENS]]
    return tokens + [bytes.fromhex(data["tokens_hex"][data["eos_token_id"]])], len(tokens)


def _seed(loader: str, content: bytes) -> bytes:
    return bytes([[label for label, _, _ in LOADERS].index(loader)]) + content


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def seeds() -> Iterator[bytes]:
    gpt2 = _maskref(os.path.join(DATA_DIR, "gpt2.json.gz"))
    tokens, eos = _slice(gpt2)
    maskref = {"name": "gpt2-slice", "eos_token_id": eos, "special_token_ids": [eos],
               "tokens_hex": [t.hex() for t in tokens]}
    yield _seed("maskref-json", _dump(maskref))
    yield _seed("maskref-json-gz", gzip.compress(_dump(maskref), mtime=0))
    yield _seed("load-file", _dump(maskref))
    # byte-level BPE: GPT-2's pieces, the byte-to-unicode map applied
    decode = _byte_level_decoder()
    unicode_of = {decode(chr(c)): chr(c) for c in range(324) if len(decode(chr(c))) == 1}
    pieces = {"".join(unicode_of[bytes([b])] for b in t): i for i, t in enumerate(tokens[:eos])}
    byte_level = {"model": {"type": "BPE", "vocab": pieces, "merges": []},
                  "added_tokens": [{"id": eos, "content": tokens[eos].decode(), "special": True}],
                  "pre_tokenizer": {"type": "ByteLevel"}, "decoder": {"type": "ByteLevel"}}
    yield _seed("tokenizer-json", _dump(byte_level))
    yield _seed("load-directory", b"\x00".join([_dump(byte_level), _dump({"eos_token": {"content": "<|endoftext|>"}}),
                                                _dump({"eos_token_id": [eos]})]))
    # SentencePiece: Mistral 7B's pieces (byte fallback <0xNN>, ▁ for a space)
    mistral = _maskref(os.path.join(TEST_VOCABS, "mistral_v1.json.gz"))
    special = set(mistral["special_token_ids"])
    unigram = []
    for i, h in enumerate(mistral["tokens_hex"][:SEED_TOKENS]):
        t = bytes.fromhex(h)
        piece = "<0x%02X>" % t[0] if 3 <= i < 259 else t.decode("utf-8", "replace").replace(" ", "\u2581")
        unigram.append([piece, -float(i)])
    sentencepiece = {"model": {"type": "Unigram", "vocab": unigram},
                     "added_tokens": [{"id": i, "content": unigram[i][0], "special": True} for i in sorted(special)],
                     "decoder": {"type": "Metaspace", "replacement": "\u2581"}}
    yield _seed("tokenizer-json", _dump(sentencepiece))
    yield _seed("load-file", _dump(sentencepiece))
    yield _seed("load-directory", _dump(sentencepiece) + b"\x00\x00" + _dump({"eos_token_id": 2}))
    # tiktoken: GPT-2's tokens as ranks
    ranks = b"".join(b"%s %d\n" % (base64.b64encode(t), i) for i, t in enumerate(tokens[:eos]))
    yield _seed("tiktoken", ranks)
    yield _seed("load-tiktoken", ranks)
    # Tekken: NeMo's first special tokens and normal tokens
    nemo = _maskref(os.path.join(TEST_VOCABS, "mistral_nemo_tekken.json.gz"))
    n_special = 10
    normal = [bytes.fromhex(h) for h in nemo["tokens_hex"][1000:1000 + SEED_TOKENS]]
    tekken = {"config": {"default_num_special_tokens": n_special, "default_vocab_size": n_special + len(normal),
                         "version": "v7", "pattern": "[^\\r\\n]+"},
              "vocab": [{"rank": r, "token_bytes": base64.b64encode(t).decode(), "token_str": None}
                        for r, t in enumerate(normal)],
              "special_tokens": [{"rank": i, "token_str": bytes.fromhex(nemo["tokens_hex"][i]).decode(), "is_control": True}
                                 for i in range(n_special)]}
    yield _seed("tekken", _dump(tekken))
    yield _seed("load-file", _dump(tekken))
    small = {"config": {"default_num_special_tokens": 3, "default_vocab_size": 6},
             "vocab": [{"rank": i, "token_bytes": base64.b64encode(t).decode(), "token_str": None}
                       for i, t in enumerate([b"a", b"b", b"ab", b"zz"])]}  # tests/tokens/test_vocab.py
    yield _seed("tekken", _dump(small))


TARGETS = [
    Target("vocabulary", "Vocabulary.from_maskref_json, from_hf_tokenizer_json, from_tiktoken, from_tekken, load",
           run, seeds),
]
