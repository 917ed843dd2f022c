"""llama.cpp's grammar sampler (through llama-cpp-python) driven on refimpl's vocabulary.

llama.cpp reads its vocabulary from a GGUF file, so this writes one for the vocabulary
under test: a vocab-only GGUF (the `gguf` package) with the token texts in GPT-2's
byte-to-unicode spelling, which llama.cpp's `llama_token_to_piece` turns back into the
same bytes; EOS and special tokens are control tokens (their piece is empty, so the
grammar never matches their text; EOS is end-of-generation). The mask is the candidates
`llama_sampler_apply` leaves finite, out of all the vocabulary; consuming a token is
`llama_sampler_accept`.
"""
from __future__ import annotations

import os
import tempfile
from typing import Any, Dict, Optional

from refimpl import Vocabulary

from ...engine import Session
from ...readings.byte_level import byte_level_text
from ...vectors import GrammarSpec, NotSupported, Refused, bitmask_from_ids, bitmask_len, vocab_hash
from .reading import gbnf_of, root_of

_MODELS: Dict[str, Any] = {}


def write_gguf(vocab: Vocabulary, path: str) -> None:
    """A vocab-only GGUF file of `vocab` that llama.cpp loads (`vocab_only`)."""
    import gguf

    w = gguf.GGUFWriter(path, "gpt2")
    for add in (w.add_block_count, w.add_context_length, w.add_embedding_length, w.add_feed_forward_length,
                w.add_head_count):
        add(1)  # hyperparameters a vocab-only load still reads
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    control = set(vocab.eos_token_ids) | set(vocab.special_token_ids)
    w.add_token_list([("<control %d>" % t if t in control else byte_level_text(data))
                      for t, data in enumerate(vocab.tokens)])
    w.add_token_types([gguf.TokenType.CONTROL if t in control else gguf.TokenType.NORMAL
                       for t in range(len(vocab.tokens))])
    w.add_token_merges(["a b"])  # llama.cpp requires merges; masks never tokenise
    eos = list(vocab.eos_token_ids)
    w.add_eos_token_id(eos[0])
    if len(eos) > 1:
        w.add_eot_token_id(eos[1])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


class LlamaSession(Session):
    def __init__(self, sampler: Any, n: int, eos: Any) -> None:
        import ctypes

        import llama_cpp

        self.L, self.ctypes = llama_cpp, ctypes
        self.sampler, self.n, self.eos = sampler, n, eos
        self.candidates = (llama_cpp.llama_token_data * n)()
        self.ended = False

    def allowed(self) -> list:
        L, c = self.L, self.candidates  # type: Any, Any
        for i in range(self.n):
            c[i].id, c[i].logit, c[i].p = i, 0.0, 0.0
        arr = L.llama_token_data_array(c, self.n, -1, False)
        L.llama_sampler_apply(self.sampler, self.ctypes.byref(arr))
        return [c[i].id for i in range(arr.size) if c[i].logit != float("-inf")]

    def mask(self) -> bytes:
        if self.ended:
            return bytes(bitmask_len(self.n))
        return bitmask_from_ids(self.allowed(), self.n)

    def consume(self, token: int) -> bool:
        if self.ended or token not in self.allowed():  # llama.cpp throws on a token it does not allow
            return False
        if token in self.eos:
            self.ended = True
            return True
        self.L.llama_sampler_accept(self.sampler, token)
        return True


def model(vocab: Vocabulary) -> Any:
    """llama.cpp's vocab-only model of the vocabulary (loaded once per vocabulary)."""
    key = vocab_hash(vocab)
    loaded = _MODELS.get(key)
    if loaded is None:
        texts = [data for t, data in enumerate(vocab.tokens) if t not in vocab.eos_token_ids
                 and t not in vocab.special_token_ids]
        if len(set(texts)) != len(texts) or b"" in texts:
            raise NotSupported("llama.cpp aborts on a vocabulary with duplicate or empty tokens")
        import llama_cpp

        llama_cpp.llama_backend_init()
        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        with tempfile.TemporaryDirectory(prefix="maskref-") as tmp:  # the file is not needed once loaded
            path = os.path.join(tmp, "vocab.gguf")
            write_gguf(vocab, path)
            loaded = llama_cpp.llama_model_load_from_file(path.encode(), params)
        if not loaded:
            raise NotSupported("llama.cpp cannot load the vocabulary")
        _MODELS[key] = loaded
    return loaded


def start(spec: GrammarSpec, vocab: Vocabulary, space: Optional[str] = None) -> LlamaSession:
    """A session at the start of the GBNF llama.cpp runs for the spec (a JSON schema's
    with the body `space` for the converter's whitespace rule: reading.gbnf_of)."""
    text = gbnf_of(spec, space)
    import llama_cpp

    lvocab = llama_cpp.llama_model_get_vocab(model(vocab))
    root = root_of(spec)
    sampler = llama_cpp.llama_sampler_init_grammar(lvocab, text.encode(), root.encode())
    if not sampler:
        raise Refused("llama.cpp refuses the grammar (llama_sampler_init_grammar returned NULL)")
    return LlamaSession(sampler, len(vocab), set(vocab.eos_token_ids))
