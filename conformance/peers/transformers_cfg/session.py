"""transformers-cfg driven on refimpl's vocabulary.

transformers-cfg reads tokens through a Hugging Face tokenizer: this builds a byte-level
BPE tokenizer (`tokenizers`, wrapped as transformers' GPT2TokenizerFast, the class
transformers-cfg maps byte-level tokens for) whose tokens are the vocabulary's bytes in
GPT-2's byte-to-unicode spelling; EOS and special tokens are special tokens with
placeholder texts (transformers-cfg leaves every special token out of its trie and reads
it as no text). transformers-cfg's own GPT-2 mapping loads GPT-2's slow tokenizer from the
Hub for its byte table, which transformers 5 no longer has, so `Peer` gives its
TokenizerMiddleMapping and ByteTrie that table itself (the same GPT-2 table), built as its
`ByteTrie.from_tokenizer` builds them. transformers-cfg has one EOS id, the tokenizer's:
the vocabulary's first EOS.

The mask is `filter_vocab`'s acceptance tensor after the tokens so far; consuming a token
is `_update_state_with_token_id` (its stacks advanced by the token's bytes), refused when
no stack survives (or, for EOS, when its `can_stop` says no).
"""
from __future__ import annotations

from typing import Any, Dict

from refimpl import Vocabulary

from ...engine import Session
from ...readings.byte_level import BYTE_TO_CHAR, byte_level_text
from ...vectors import GrammarSpec, NotSupported, bitmask_from_ids, bitmask_len, vocab_hash
from .reading import check_dialect, tcfg_parse

_PEERS: Dict[str, "Peer"] = {}


def _placeholder(t: int) -> str:
    return "<special %d>" % t


def hf_tokenizer(vocab: Vocabulary) -> Any:
    """A GPT2TokenizerFast whose token t is vocab.tokens[t] in GPT-2's byte-to-unicode
    spelling (EOS and special tokens: special tokens named by placeholders)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
    from transformers import GPT2TokenizerFast

    special = set(vocab.eos_token_ids) | set(vocab.special_token_ids)
    texts: Dict[str, int] = {}
    for t, data in enumerate(vocab.tokens):
        text = _placeholder(t) if t in special else byte_level_text(data)
        if text in texts:
            raise NotSupported("transformers-cfg reads tokens through an HF tokenizer, whose vocabulary maps a "
                               "text to one id: tokens %d and %d have the same bytes" % (texts[text], t))
        texts[text] = t
    model = Tokenizer(models.BPE(vocab=texts, merges=[]))
    model.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    model.decoder = decoders.ByteLevel()
    model.add_special_tokens([AddedToken(_placeholder(t), special=True) for t in sorted(special)])
    eos = list(vocab.eos_token_ids)
    others = [_placeholder(t) for t in sorted(special) if t != eos[0]]
    return GPT2TokenizerFast(tokenizer_object=model, eos_token=_placeholder(eos[0]), unk_token=None, bos_token=None,
                             extra_special_tokens=others)


class Peer:
    """transformers-cfg's view of one vocabulary: the tokenizer, its token-to-bytes
    mapping and its byte trie."""

    def __init__(self, vocab: Vocabulary) -> None:
        from transformers_cfg.tokenization.byte_trie import ByteTrie
        from transformers_cfg.tokenization.middle.ByteProxyMapping import ByteProxyMapping
        from transformers_cfg.tokenization.middle.TokenizerMiddleMapping import GPT2TokenizerMiddleMapping, TokenizerMiddleMapping
        from transformers_cfg.tokenization.tokenizer import TCFG_Tokenizer

        self.tokenizer = tok = hf_tokenizer(vocab)
        if len(tok.get_vocab()) != len(vocab) or tok.eos_token_id != vocab.eos_token_ids[0]:
            raise NotSupported("the HF tokenizer does not hold the vocabulary's %d tokens" % len(vocab))
        proxy = ByteProxyMapping.__new__(ByteProxyMapping)  # its __init__ loads GPT-2 from the Hub
        proxy.byte2proxychar = dict(BYTE_TO_CHAR)
        proxy.proxychar2byte = {c: b for b, c in BYTE_TO_CHAR.items()}
        proxy.cdp2byte = {ord(c): b for c, b in proxy.proxychar2byte.items()}
        proxy.byte2cdp = {b: c for c, b in proxy.cdp2byte.items()}
        proxy.PROXY_CDP_SET = set(proxy.cdp2byte)
        mapping = GPT2TokenizerMiddleMapping.__new__(GPT2TokenizerMiddleMapping)
        TokenizerMiddleMapping.__init__(mapping, tok)
        mapping.byte_proxy_mapper = proxy
        self.mapping = mapping
        # as ByteTrie.from_tokenizer: every token but the special ones, by its bytes
        trie = ByteTrie()
        excluded = TCFG_Tokenizer.from_hf_tokenizer(tok).get_special_token_ids_to_excluded()
        for t in range(len(tok.vocab)):
            if t not in excluded:
                trie.insert(mapping.map(t), t)
        trie.vocab_size = len(tok.get_vocab())
        self.trie = trie

    def token_bytes(self, t: int) -> bytes:
        return bytes(self.mapping.map(t))


class TcfgSession(Session):
    def __init__(self, constraint: Any, n: int) -> None:
        import torch

        self.constraint = constraint
        self.state = constraint.string_recognizer.get_initial_parsing_state()
        self.n = n
        self.device = torch.device("cpu")
        self.ended = False

    def mask(self) -> bytes:
        if self.ended:
            return bytes(bitmask_len(self.n))
        acceptance = self.constraint.filter_vocab(self.state, self.device)
        return bitmask_from_ids(acceptance.nonzero().flatten().tolist(), self.n)

    def consume(self, token: int) -> bool:
        if self.ended:
            return False
        try:
            state = self.constraint._update_state_with_token_id(token, self.state)
        except ValueError:  # its "only EOS is accepted" / "EOS but no stack is empty"
            return False
        if token == self.constraint.eos_token_id:
            self.ended = True
        elif not state.stacks:
            return False
        self.state = state
        return True


def peer(vocab: Vocabulary) -> Peer:
    """transformers-cfg's view of the vocabulary (built once per vocabulary)."""
    key = vocab_hash(vocab)
    p = _PEERS.get(key)
    if p is None:
        p = _PEERS[key] = Peer(vocab)
    return p


def start(spec: GrammarSpec, vocab: Vocabulary) -> TcfgSession:
    """A session at the start of a GBNF grammar (NotSupported for other kinds, and for
    what its parser cannot read)."""
    if spec.kind != "gbnf":
        raise NotSupported("transformers-cfg: only GBNF grammars are compared")
    check_dialect(spec.source)
    from transformers_cfg.grammar_utils import IncrementalGrammarConstraint

    view = peer(vocab)
    root = spec.options.get("root", "root")
    tcfg_parse(spec.source)
    constraint = IncrementalGrammarConstraint(spec.source, root, view.tokenizer, trie=view.trie,
                                              homomorphism=view.mapping)
    return TcfgSession(constraint, len(vocab))
