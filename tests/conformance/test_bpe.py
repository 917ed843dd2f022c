"""conformance/bpe.py: texts spelled as the vocabularies' own tokenizers spell them, and
the tekken built-in vocabulary read from its file."""
from __future__ import annotations

import json
import os
from typing import Any, List

import pytest

from conformance import vectors
from conformance.bpe import PATTERNS, Encoder, UnknownTokenizer
from conformance.vectors import FormatError, load_builtin
from refimpl import Vocabulary

pytest.importorskip("regex")

TEXTS = ['{"name": "Ann", "age": 3}', '{"a":[1,2,-3.5e10],"b":null}', "  spaces\n\nand\ttabs  ",
         '{"emoji": "héllo wörld ✓ 日本語", "path": "/usr/bin"}', "I'm 1234567 CamelCaseWords don't"]


def test_gpt2_known_ids() -> None:
    e = Encoder(load_builtin("gpt2"))
    assert e.encode("Hello world") == [15496, 995]
    assert e.encode('{"name": "Hello world"}') == [4895, 3672, 1298, 366, 15496, 995, 20662]  # bpe.Encoder's docstring
    assert load_builtin("gpt2").decode(e.encode(TEXTS[3])) == TEXTS[3].encode("utf-8")


def test_gpt2_as_tiktoken_merges() -> None:
    """The same ranks and pattern in tiktoken give the same tokens (the algorithm)."""
    tiktoken = pytest.importorskip("tiktoken")
    e = Encoder(load_builtin("gpt2"))
    reference = tiktoken.Encoding("gpt2-ranks", pat_str=PATTERNS["gpt2"], mergeable_ranks=e.ranks, special_tokens={})
    for text in TEXTS:
        assert e.encode(text) == reference.encode_ordinary(text)


def _tekken_file() -> str:
    mistral_common = pytest.importorskip("mistral_common")
    return os.path.join(os.path.dirname(mistral_common.__file__), "data", "tekken_240718.json")


def test_tekken_as_mistral_common(monkeypatch: Any) -> None:
    """The tekken vocabulary read from mistral-common's file, spelled as its Tekkenizer does."""
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    path = _tekken_file()
    monkeypatch.setenv(vectors.TEKKEN_ENV, path)
    monkeypatch.setattr(vectors, "_VOCABS", {})
    v = load_builtin("tekken")
    assert (v.name, len(v), v.eos_token_id) == ("tekken", 131072, 2)
    with open(path) as f:
        assert json.load(f)["config"]["pattern"] == PATTERNS["tekken"]
    tk = Tekkenizer.from_file(path)
    e = Encoder(v)
    for text in TEXTS:
        assert e.encode(text) == tk.encode(text, bos=False, eos=False)
    assert vectors.vocab_to_json(v) == {"builtin": "tekken", "size": 131072, "sha256": vectors.TEKKEN_SHA256}


def test_tekken_file_errors(monkeypatch: Any, tmp_path: Any) -> None:
    monkeypatch.setattr(vectors, "_VOCABS", {})
    monkeypatch.setenv(vectors.TEKKEN_ENV, str(tmp_path / "missing.json"))
    with pytest.raises(FormatError, match="MASKREF_TEKKEN=.*missing.json: no such file"):
        load_builtin("tekken")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"tokens_hex": ["61", "62", "00"], "eos_token_id": 2}))
    monkeypatch.setenv(vectors.TEKKEN_ENV, str(other))
    with pytest.raises(FormatError, match="other.json: not the tekken vocabulary"):
        load_builtin("tekken")
    other.write_text(json.dumps({"config": {}, "vocab": []}))
    with pytest.raises(FormatError, match="the tekken vocabulary's file: .*not a Tekken tokenizer"):
        load_builtin("tekken")


def test_unknown_vocabulary() -> None:
    v = Vocabulary.from_bytes([b"a", b"b"], name="tiny")
    with pytest.raises(UnknownTokenizer, match="no tokenizer pattern for the vocabulary 'tiny'"):
        Encoder(v)
    ids: List[int] = Encoder(v, pattern=r"\p{L}+").encode("abab")
    assert ids == [0, 1, 0, 1]
