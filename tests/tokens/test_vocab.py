"""Vocabulary loaders and the token trie, on the real vocabularies and on small files."""
import base64
import json
import os

import pytest

from refimpl import Grammar, Matcher, Vocabulary, VocabularyError
from refimpl.tokens.trie import TokenTrie
from tests.support.paths import DATA

DATA = DATA / "vocab"


def test_gpt2_embedded():
    v = Vocabulary.load("gpt2")
    assert len(v) == 50257 and v.eos_token_id == 50256
    assert v.tokens[262] == b" the" and v.tokens[198] == b"\n" and v.tokens[0] == b"!"
    assert v.special_token_ids == {50256}
    # ~2 nodes per token, and every grammar token sits at the node of its bytes
    trie = v.trie
    assert 1.5 * len(v) < len(trie) < 2.5 * len(v)
    assert trie.tokens_at(trie.find(b" the")) == (262,)
    assert trie.find(v.tokens[50256]) == -1 or 50256 not in trie.tokens_at(trie.find(v.tokens[50256]))


def test_mistral_sentencepiece_bytes():
    v = Vocabulary.load(str(DATA / "mistral_v1.json.gz"))
    assert len(v) == 32000 and v.eos_token_id == 2 and v.special_token_ids == {0, 1, 2}
    assert [v.tokens[3 + b] for b in (0, 10, 255)] == [b"\x00", b"\n", b"\xff"]  # <0x00>..<0xFF>
    assert v.tokens[13] == b"\n"
    assert v.tokens.count(b"\n") >= 1


def test_tekken_special_offset():
    v = Vocabulary.load(str(DATA / "mistral_nemo_tekken.json.gz"))
    assert len(v) == 131072 and v.eos_token_id == 2
    assert v.special_token_ids == set(range(1000))
    assert [v.tokens[1000 + b] for b in (0, 65, 255)] == [b"\x00", b"A", b"\xff"]  # rank r -> id r + 1000


def test_tekken_from_mistral_common_matches():
    mistral_common = pytest.importorskip("mistral_common", reason="mistral-common not installed (the bench extra)")
    path = os.path.join(os.path.dirname(mistral_common.__file__), "data", "tekken_240718.json")
    loaded = Vocabulary.from_tekken(path)
    reference = Vocabulary.load(str(DATA / "mistral_nemo_tekken.json.gz"))
    assert len(loaded) == len(reference) and loaded.special_token_ids == reference.special_token_ids
    assert loaded.tokens[1000:] == reference.tokens[1000:]


def test_tekken_small_file(tmp_path):
    path = tmp_path / "tekken.json"
    vocab = [{"rank": i, "token_bytes": base64.b64encode(t).decode(), "token_str": None}
             for i, t in enumerate([b"a", b"b", b"ab", b"zz"])]
    path.write_text(json.dumps({"config": {"default_num_special_tokens": 3, "default_vocab_size": 6}, "vocab": vocab}))
    v = Vocabulary.load(str(path))
    assert v.tokens[3:] == [b"a", b"b", b"ab"] and v.special_token_ids == {0, 1, 2} and v.eos_token_id == 2


def test_hf_byte_level_bpe():
    data = {
        "model": {"type": "BPE", "vocab": {"Ġthe": 0, "Ċ": 1, "a": 2, "Ã©": 3}},
        "pre_tokenizer": {"type": "ByteLevel"},
        "decoder": {"type": "ByteLevel"},
        "added_tokens": [{"id": 4, "content": "<|endoftext|>", "special": True}],
    }
    v = Vocabulary.from_hf_tokenizer_json(data)
    assert v.tokens == [b" the", b"\n", b"a", "é".encode(), b"<|endoftext|>"]
    assert v.eos_token_id == 4 and v.special_token_ids == {4}


def test_hf_sentencepiece():
    data = {
        "model": {"type": "BPE", "byte_fallback": True,
                  "vocab": {"<unk>": 0, "<s>": 1, "</s>": 2, "<0x0A>": 3, "▁the": 4, "é": 5}},
        "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "}]},
        "added_tokens": [{"id": i, "content": c, "special": True} for i, c in enumerate(["<unk>", "<s>", "</s>"])],
    }
    v = Vocabulary.from_hf_tokenizer_json(data)
    assert v.tokens[3:] == [b"\n", b" the", "é".encode()]
    assert v.eos_token_id == 2 and v.special_token_ids == {0, 1, 2}


def test_tiktoken(tmp_path):
    path = tmp_path / "x.tiktoken"
    path.write_text("".join("%s %d\n" % (base64.b64encode(t).decode(), i) for i, t in enumerate([b"a", b" b", b"\xff"])))
    v = Vocabulary.from_tiktoken(str(path), {"<|eot|>": 3}, eos_token="<|eot|>")
    assert v.tokens == [b"a", b" b", b"\xff", b"<|eot|>"] and v.eos_token_id == 3


def test_bad_vocabularies(tmp_path):
    with pytest.raises(VocabularyError, match="unknown vocabulary"):
        Vocabulary.load("no-such-vocab")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(VocabularyError, match="cannot read"):
        Vocabulary.load(str(bad))
    with pytest.raises(VocabularyError, match="not in the vocabulary"):
        Vocabulary.from_bytes([b"a"], eos_token_id=5)


def test_trie_with_empty_duplicate_and_special_tokens():
    v = Vocabulary.from_bytes([b"", b"ab", b"a", b"ab", b"<s>"], eos_token_id=4)
    t = TokenTrie(v)
    assert len(t) == 3  # root, "a", "ab": no node for "" nor for the special token
    assert t.tokens_at(t.find(b"ab")) == (1, 3) and t.tokens_at(t.find(b"a")) == (2,)
    assert t.n_tokens == 3


def test_tekken_masks_work():
    v = Vocabulary.load(str(DATA / "mistral_nemo_tekken.json.gz"))
    m = Matcher(Grammar.from_regex("[0-9]"), v)
    allowed = m.mask().allowed()
    assert [v.tokens[t] for t in allowed] == [bytes([c]) for c in b"0123456789"]


def test_trie_finds_every_token_and_nothing_else():
    """`find` (the root's children by table, deeper ones by their siblings) against the
    token texts: every prefix of a token is a node, and a text no token starts with is not."""
    v = Vocabulary.load("gpt2")
    t = TokenTrie(v)
    texts = {v.tokens[i] for i in range(len(v)) if v.is_grammar_token(i)}
    prefixes = {x[:k] for x in texts for k in range(1, len(x) + 1)}
    for x in sorted(texts)[::97]:
        node = t.find(x)
        assert node > 0 and t.tokens_at(node) and all(v.tokens[i] == x for i in t.tokens_at(node))
    for b in range(256):
        assert (t.child(0, b) > 0) == (bytes([b]) in prefixes)
    assert t.find(b"\xff\xfe\xfd") == -1


def test_missing_vocabulary_file(tmp_path):
    for path in ["nonexist.json", str(tmp_path / "nope" / "tokenizer.json"), "models/llama"]:
        with pytest.raises(VocabularyError, match="vocabulary file or directory not found: %s$" % path):
            Vocabulary.load(path)
    with pytest.raises(VocabularyError, match=r"unknown vocabulary 'gpt3': give one of gpt2, bytes or a file path"):
        Vocabulary.load("gpt3")
    with pytest.raises(VocabularyError, match="cannot read .*x.tiktoken: No such file"):
        Vocabulary.from_tiktoken(str(tmp_path / "x.tiktoken"))


@pytest.mark.parametrize("text, problem", [
    ("", "the file is empty"),
    (" \n", "the file is empty"),
    ("{", "not JSON"),
    ("[1, 2]", "not a format maskref knows"),
    ("{}", "not a format maskref knows"),
    ('{"model": {"vocab": {}}}', "the tokenizer has no tokens"),
    ('{"model": {"type": "BPE"}}', "no model.vocab"),
    ('{"model": {"vocab": 3}}', "model.vocab must be an object or a list"),
    ('{"model": {"vocab": {"a": -1}}}', r'model.vocab\["a"\] must be a token id'),
    ('{"model": {"vocab": {"a": 0}}, "added_tokens": [{"id": "1", "content": "x"}]}', r"added_tokens\[0\].id must be"),
    ('{"model": {"vocab": {"a": 0}}, "added_tokens": [{"id": 1}]}', r"added_tokens\[0\] needs an id and a content"),
    ('{"model": {"type": "WordPiece", "vocab": {"a": 0}}}', "WordPiece tokenizer"),
    ('{"model": {"vocab": {"\\ud800": 0}}}', r'model.vocab\["\\ud800"\] is not Unicode text \(a lone surrogate U\+D800'),
    ("[" * 5000, "JSON nested too deeply|not JSON"),  # PyPy's json module reads any depth: then "not JSON"
])
def test_malformed_tokenizer_json(tmp_path, text, problem):
    path = tmp_path / "tokenizer.json"
    path.write_text(text)
    with pytest.raises(VocabularyError, match=problem) as e:
        Vocabulary.load(str(path))
    assert str(e.value).count(str(path)) == 1  # named once (an empty file's error was wrapped in another)


def test_damaged_gzip(tmp_path):
    """A .gz vocabulary cut short or corrupted is a VocabularyError naming it."""
    import gzip

    data = gzip.compress(b'{"tokens_hex": ["61"], "eos_token_id": 0}')
    path = tmp_path / "v.json.gz"
    for damaged in (data[:-12], data[:10] + b"\xff" * 8 + data[18:]):
        path.write_bytes(damaged)
        with pytest.raises(VocabularyError, match="cannot read .*v.json.gz: "):
            Vocabulary.load(str(path))


def test_malformed_tiktoken_and_tekken(tmp_path):
    path = tmp_path / "bad.tiktoken"
    path.write_text("YQ== 0\nnot base64! 1\n")
    with pytest.raises(VocabularyError, match="bad.tiktoken:2: expected '<base64> <rank>'"):
        Vocabulary.load(str(path))
    path.write_text("\n")
    with pytest.raises(VocabularyError, match="bad.tiktoken: no tokens"):
        Vocabulary.load(str(path))
    path = tmp_path / "tekken.json"
    path.write_text(json.dumps({"config": {"default_num_special_tokens": 3}, "vocab": [{"rank": 0}]}))
    with pytest.raises(VocabularyError, match="tekken.json is not a Tekken tokenizer: 'token_bytes'"):
        Vocabulary.load(str(path))


def test_tekken_ids_are_checked(tmp_path):
    """A Tekken file's ranks and sizes are token ids (a negative rank once wrapped round
    to the last token); EOS is `</s>`, else id 2 only where it is a special token."""
    path = tmp_path / "tekken.json"
    vocab = [{"rank": -1, "token_bytes": "YQ=="}]
    path.write_text(json.dumps({"config": {"default_num_special_tokens": 3, "default_vocab_size": 5}, "vocab": vocab}))
    with pytest.raises(VocabularyError, match=r"tekken.json: vocab\[0\].rank must be a token id .* not -1"):
        Vocabulary.load(str(path))
    path.write_text(json.dumps({"config": {"default_num_special_tokens": 2 ** 21 - 1}, "vocab": []}))
    with pytest.raises(VocabularyError, match="tekken.json: default_num_special_tokens 2097151: more than 65536"):
        Vocabulary.load(str(path))  # (once 40 s and 2.9 GB)
    path.write_text(json.dumps({"config": {"default_num_special_tokens": 3, "default_vocab_size": 10 ** 12}, "vocab": []}))
    with pytest.raises(VocabularyError, match="tekken.json: config.default_vocab_size must be a token id"):
        Vocabulary.load(str(path))
    specials = [{"rank": 3, "token_str": "<s>"}]
    path.write_text(json.dumps({"config": {"default_num_special_tokens": 3}, "vocab": [], "special_tokens": specials}))
    with pytest.raises(VocabularyError, match=r"tekken.json: special_tokens\[0\] must have a rank below 3"):
        Vocabulary.load(str(path))
    path.write_text(json.dumps({"config": {"default_num_special_tokens": 1}, "vocab": vocab[:0] + [
        {"rank": r, "token_bytes": "YQ=="} for r in range(3)]}))
    assert Vocabulary.load(str(path)).eos_token_ids == ()  # id 2 is a normal token here


def test_no_tokens_and_bad_ids():
    with pytest.raises(VocabularyError, match="has no tokens"):
        Vocabulary.from_bytes([])
    with pytest.raises(VocabularyError, match="special token id 3 is not in the vocabulary"):
        Vocabulary.from_bytes([b"a"], special_token_ids=[3])
    with pytest.raises(VocabularyError, match="EOS token '</s>' is not a token"):
        Vocabulary.from_hf_tokenizer_json({"model": {"vocab": {"a": 0}}}, eos_token="</s>")


def test_unsupported_tokenizer_objects():
    with pytest.raises(VocabularyError, match="cannot read a vocabulary from a value of type int: from_huggingface takes"):
        Vocabulary.from_huggingface(42)

    class Encoding:  # what tiktoken's looks like to from_huggingface
        def decode_single_token_bytes(self, t):
            return b""

    with pytest.raises(VocabularyError, match=r"from a value of type tests.tokens.test_vocab.test_unsupported_tokenizer_objects."
                                              r"<locals>.Encoding \(a tiktoken Encoding: use Vocabulary.from_tiktoken\)"):
        Vocabulary.from_huggingface(Encoding())
    with pytest.raises(VocabularyError, match="from_tiktoken takes a tiktoken Encoding .* not a value of type dict"):
        Vocabulary.from_tiktoken({})
    with pytest.raises(VocabularyError, match="from_tekken takes a Tekken JSON file's path, .* not a value of type list"):
        Vocabulary.from_tekken([])


def test_model_directory_eos(tmp_path):
    """EOS from a model directory's files: the tokenizer's EOS token, then the ids
    generation_config.json stops at, each once; a missing tokenizer.json is named."""
    data = {
        "model": {"type": "BPE", "vocab": {"a": 0, "Ġb": 1}},
        "pre_tokenizer": {"type": "ByteLevel"},
        "added_tokens": [{"id": 2, "content": "<|end|>", "special": True},
                         {"id": 3, "content": "<|eot|>", "special": True},
                         {"id": 4, "content": "<|endoftext|>", "special": True}],
    }
    (tmp_path / "tokenizer.json").write_text(json.dumps(data))
    assert Vocabulary.from_huggingface(tmp_path).eos_token_ids == (4,)  # no configuration: the usual name
    (tmp_path / "config.json").write_text(json.dumps({"eos_token_id": 2}))
    assert Vocabulary.load(str(tmp_path)).eos_token_ids == (2,)
    (tmp_path / "special_tokens_map.json").write_text(json.dumps({"eos_token": {"content": "<|eot|>"}}))
    (tmp_path / "generation_config.json").write_text(json.dumps({"eos_token_id": [2, 3]}))
    v = Vocabulary.from_huggingface(str(tmp_path / "tokenizer.json"), vocab_size=8)
    assert v.eos_token_ids == (3, 2) and v.special_token_ids == {2, 3, 4} and len(v) == 8
    assert v.tokens[:5] == [b"a", b" b", b"<|end|>", b"<|eot|>", b"<|endoftext|>"] and v.name == tmp_path.name
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"eos_token": "<|endoftext|>"}))
    assert Vocabulary.from_huggingface(tmp_path).eos_token_ids == (4, 2, 3)
    assert Vocabulary.from_huggingface(tmp_path, eos_token_ids=[1, 3]).eos_token_ids == (1, 3)
    assert Vocabulary.from_huggingface(tmp_path, eos_token_ids=2).eos_token_ids == (2,)
    assert Vocabulary.from_huggingface(tmp_path, eos_token_ids=[]).eos_token_ids == ()
    (tmp_path / "generation_config.json").write_text(json.dumps({"eos_token_id": [2, 99]}))
    with pytest.raises(VocabularyError, match="generation_config.json: eos_token_id must be token ids below 5"):
        Vocabulary.from_huggingface(tmp_path)
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"eos_token": "<eos>"}))
    with pytest.raises(VocabularyError, match="tokenizer_config.json: the EOS token '<eos>' is not a token"):
        Vocabulary.from_huggingface(tmp_path)
    (tmp_path / "tokenizer.json").unlink()
    (tmp_path / "tokenizer.model").write_bytes(b"")
    with pytest.raises(VocabularyError, match="no tokenizer.json in this directory .a SentencePiece tokenizer.model"):
        Vocabulary.from_huggingface(tmp_path)
