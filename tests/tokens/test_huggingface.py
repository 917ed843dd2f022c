"""Vocabularies from the tokenizer objects users hold — transformers (fast and slow),
tokenizers, sentencepiece, tiktoken, mistral-common — built here from local files (no hub):
each equal, token for token, to the loaders of files, and each token's bytes what the
library's own decode gives."""
import io
import os
import random

import pytest

from refimpl import Grammar, Matcher, Vocabulary, VocabularyError
from tests.support.paths import DATA

VOCAB = DATA / "vocab"
#: GPT-2's pre-tokenizer pattern (tiktoken's "gpt2" encoding)
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
TEXTS = ["The quick brown fox jumps over the lazy dog.", 'Grammar-constrained decoding: {"name": "Ada", "age": 36}',
         "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich.", "naïve café — 東京 ✓"]


def same(a, b):
    assert len(a) == len(b)
    assert a.tokens == b.tokens
    assert (a.eos_token_ids, a.special_token_ids) == (b.eos_token_ids, b.special_token_ids)


def utf8_ids(vocab):
    """The ordinary tokens whose bytes are UTF-8 text by themselves: any sequence of them
    decodes without loss."""
    out = []
    for t, data in enumerate(vocab.tokens):
        if vocab.is_grammar_token(t):
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            out.append(t)
    return out


def check_decode(decode, vocab, ids, after=None, n=150, seed=0):
    """`decode` (the library's, ids -> str) gives `vocab.decode` for random sequences of
    `ids`; `after`: a token put first and its text taken off again (a SentencePiece
    decoder strips the space a text's first token starts with: a generated token follows
    a prompt, where it keeps it)."""
    rng = random.Random(seed)
    head = [] if after is None else [after]
    skip = len(decode(head)) if head else 0
    for _ in range(n):
        seq = [rng.choice(ids) for _ in range(rng.randint(1, 12))]
        assert decode(head + seq)[skip:] == vocab.decode(seq).decode("utf-8"), seq


# -- GPT-2: byte-level BPE ------------------------------------------------------------------


@pytest.fixture(scope="module")
def gpt2():
    """The embedded GPT-2 vocabulary as a transformers fast tokenizer (no merges: only
    its vocabulary and decoding matter here)."""
    transformers = pytest.importorskip("transformers", reason="transformers not installed (the tokenizers extra)")
    try:
        from transformers.convert_slow_tokenizer import bytes_to_unicode
    except ImportError:  # transformers 4
        from transformers.models.gpt2.tokenization_gpt2 import bytes_to_unicode
    ref = Vocabulary.load("gpt2")
    to_text = bytes_to_unicode()
    pieces = {"".join(to_text[b] for b in data): t for t, data in enumerate(ref.tokens) if t != ref.eos_token_id}
    return transformers.GPT2TokenizerFast(vocab=pieces, merges=[]), ref


def test_gpt2_fast_tokenizer(gpt2):
    tok, ref = gpt2
    v = Vocabulary.from_huggingface(tok)
    same(v, ref)
    check_decode(lambda ids: tok.decode(ids, clean_up_tokenization_spaces=False), v, utf8_ids(v))


def test_gpt2_tokenizers_object_directory_and_file(gpt2, tmp_path):
    tok, ref = gpt2
    same(Vocabulary.from_huggingface(tok.backend_tokenizer), ref)  # a tokenizers.Tokenizer: EOS by its usual name
    tok.save_pretrained(str(tmp_path))
    for source in (tmp_path, str(tmp_path), str(tmp_path / "tokenizer.json")):
        same(Vocabulary.from_huggingface(source), ref)
    same(Vocabulary.load(str(tmp_path)), ref)


def test_gpt2_padded_to_the_logits(gpt2):
    tok, ref = gpt2
    v = Vocabulary.from_huggingface(tok, vocab_size=50304)
    assert len(v) == 50304 and v.padding_ids == range(50257, 50304) and v.tokens[:50257] == ref.tokens
    mask = Matcher(Grammar.from_lark("start: <[*]>"), v).mask()
    assert mask.vocab_size == 50304 and mask.allowed() == list(range(50257))
    with pytest.raises(VocabularyError, match="vocab_size 50000 is smaller than the vocabulary"):
        Vocabulary.from_huggingface(tok, vocab_size=50000)


def test_added_tokens(gpt2):
    """Tokens added to a tokenizer: a special one is special (read by id), an ordinary one
    is the text it decodes to."""
    tok, ref = gpt2
    tok = tok.__class__(vocab=dict(tok.get_vocab()), merges=[])
    tok.add_tokens(["<think>", " café"])
    tok.add_special_tokens({"additional_special_tokens": ["<|im_end|>"]})
    v = Vocabulary.from_huggingface(tok)
    assert len(v) == 50260 and v.tokens[:50257] == ref.tokens
    assert [tok.decode([t]) for t in (50257, 50258, 50259)] == [b.decode() for b in v.tokens[50257:]]
    assert v.special_token_ids == {50256, 50259} and v.eos_token_ids == (50256,)
    assert Vocabulary.from_huggingface(tok, eos_token_ids=[50259, 50256]).eos_token_ids == (50259, 50256)


def test_tiktoken_encoding():
    tiktoken = pytest.importorskip("tiktoken", reason="tiktoken not installed (the tokenizers extra)")
    ref = Vocabulary.load("gpt2")
    ranks = {data: t for t, data in enumerate(ref.tokens[:50256])}
    enc = tiktoken.Encoding("gpt2-local", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                            special_tokens={"<|endoftext|>": 50256})
    v = Vocabulary.from_tiktoken(enc)
    same(v, ref)
    rng = random.Random(0)
    for _ in range(100):  # tiktoken decodes to bytes: every sequence, the split characters too
        ids = [rng.randrange(50256) for _ in range(rng.randint(1, 12))]
        assert enc.decode_bytes(ids) == v.decode(ids)
    no_eos = Vocabulary.from_tiktoken(enc, {}, eos_token=None)
    assert no_eos.eos_token_ids == () and len(no_eos) == 50256


# -- SentencePiece: Mistral 7B v0.1, and a model trained here ---------------------------------


@pytest.fixture(scope="module")
def mistral_v1_pieces():
    ref = Vocabulary.load(str(VOCAB / "mistral_v1.json.gz"))
    pieces = {}
    for t, data in enumerate(ref.tokens):
        if t in ref.special_token_ids:
            pieces[data.decode()] = t
        elif 3 <= t < 3 + 256:  # the byte-fallback tokens <0x00> .. <0xFF>
            pieces["<0x%02X>" % (t - 3)] = t
        else:
            pieces[data.decode().replace(" ", "\u2581")] = t
    assert len(pieces) == len(ref)
    return pieces, ref


def test_llama_fast_tokenizer(mistral_v1_pieces):
    """LlamaTokenizerFast over Mistral 7B v0.1's pieces: `▁` a space, `<0xNN>` a byte."""
    transformers = pytest.importorskip("transformers", reason="transformers not installed (the tokenizers extra)")
    pieces, ref = mistral_v1_pieces
    tok = transformers.LlamaTokenizerFast(vocab=pieces, merges=[])
    v = Vocabulary.from_huggingface(tok)
    same(v, ref)
    check_decode(tok.decode, v, utf8_ids(v), after=pieces["\u2581This"])
    assert tok.decode([13, 851]) == v.decode([13, 851]).decode() == "\n This"  # <0x0A>, ▁This


def train_sentencepiece(**options):
    spm = pytest.importorskip("sentencepiece", reason="sentencepiece not installed (the tokenizers extra)")
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(TEXTS * 20), model_writer=model, vocab_size=400,
                                   model_type="bpe", byte_fallback=True, character_coverage=0.99, num_threads=1,
                                   minloglevel=2, **options)
    return model.getvalue()


def slow_tokenizer(path):
    """transformers' slow tokenizer over a SentencePiece model file."""
    try:  # transformers 5
        from transformers.tokenization_utils_sentencepiece import SentencePieceBackend
    except ImportError:  # transformers 4: LlamaTokenizer is the slow one
        from transformers import LlamaTokenizer as SentencePieceBackend
    return SentencePieceBackend(vocab_file=path, unk_token="<unk>", bos_token="<s>", eos_token="</s>")


def test_sentencepiece_slow_and_fast(tmp_path):
    """A SentencePiece model trained here (byte fallback, a user-defined piece): the
    processor itself, transformers' slow tokenizer over it and the fast one converted
    from it give one vocabulary, and its bytes are what sentencepiece decodes."""
    spm = pytest.importorskip("sentencepiece", reason="sentencepiece not installed (the tokenizers extra)")
    transformers = pytest.importorskip("transformers", reason="transformers not installed (the tokenizers extra)")
    model = train_sentencepiece(user_defined_symbols=["<tool>"])
    (tmp_path / "tokenizer.model").write_bytes(model)
    sp = spm.SentencePieceProcessor(model_proto=model)
    v = Vocabulary.from_huggingface(sp)
    assert len(v) == 400 and v.eos_token_ids == (2,) and v.special_token_ids == {0, 1, 2}
    assert v.tokens[3] == b"<tool>" and [v.tokens[4 + b] for b in (0, 10, 255)] == [b"\x00", b"\n", b"\xff"]
    assert sp.id_to_piece(v.tokens.index(b" d")) == "\u2581d"
    same(Vocabulary.from_huggingface(slow_tokenizer(str(tmp_path / "tokenizer.model"))), v)
    fast = transformers.LlamaTokenizerFast.from_pretrained(str(tmp_path))
    same(Vocabulary.from_huggingface(fast), v)
    # transformers lists the user-defined piece among all_special_ids, but its tokenizer
    # decodes it as text even when told to skip special tokens: it is text to maskref too
    assert 3 in fast.all_special_ids and fast.decode([3], skip_special_tokens=True) == "<tool>"
    check_decode(sp.decode, v, utf8_ids(v), after=sp.piece_to_id("\u2581d"))
    check_decode(fast.decode, v, utf8_ids(v), after=sp.piece_to_id("\u2581d"))


def test_mistral_sentencepiece_model():
    """The real Mistral 7B v0.1 tokenizer.model (shipped in mistral-common), read slow:
    the vocabulary the data file holds."""
    pytest.importorskip("sentencepiece", reason="sentencepiece not installed (the tokenizers extra)")
    pytest.importorskip("transformers", reason="transformers not installed (the tokenizers extra)")
    mistral_common = pytest.importorskip("mistral_common", reason="mistral-common not installed (the tokenizers extra)")
    path = os.path.join(os.path.dirname(mistral_common.__file__), "data", "tokenizer.model.v1")
    same(Vocabulary.from_huggingface(slow_tokenizer(path)), Vocabulary.load(str(VOCAB / "mistral_v1.json.gz")))


# -- Tekken: mistral-common -----------------------------------------------------------------


def test_tekken_objects():
    pytest.importorskip("mistral_common", reason="mistral-common not installed (the tokenizers extra)")
    import mistral_common
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    path = os.path.join(os.path.dirname(mistral_common.__file__), "data", "tekken_240718.json")
    ref = Vocabulary.load(str(VOCAB / "mistral_nemo_tekken.json.gz"))
    mistral = MistralTokenizer.from_file(path)
    tekkenizer = mistral.instruct_tokenizer.tokenizer
    v = Vocabulary.from_tekken(tekkenizer)
    same(v, ref)
    same(Vocabulary.from_tekken(mistral), ref)
    same(Vocabulary.from_tekken(path), ref)  # the file mistral-common ships, its special tokens named as it names them
    check_decode(tekkenizer.decode, v, utf8_ids(v))
    with pytest.raises(VocabularyError, match="a mistral-common tokenizer: use Vocabulary.from_tekken"):
        Vocabulary.from_huggingface(tekkenizer)
