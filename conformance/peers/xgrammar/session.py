"""xgrammar driven on refimpl's vocabulary: a GrammarCompiler on a raw-bytes TokenizerInfo
of the same tokens (special tokens other than EOS given as empty: xgrammar treats empty
tokens as special; every EOS id a stop token), a GrammarMatcher for a grammar spec, and a
session filling numpy bitmasks (xgrammar imports torch, so it is usually unavailable where
torch is not installed)."""
from __future__ import annotations

import json
import re
from typing import Any, Dict

from refimpl import Vocabulary

from ...engine import Session
from ...vectors import GrammarSpec, NotSupported, Refused, bitmask_len, vocab_hash
from .reading import json_options

KINDS = ("regex", "json_schema", "ebnf", "gbnf")

_COMPILERS: Dict[str, Any] = {}


class XgrammarSession(Session):
    def __init__(self, matcher: Any, n_tokens: int) -> None:
        import numpy

        self.m = matcher
        self.n = n_tokens
        self.np = numpy
        self.stopped = False

    def mask(self) -> bytes:
        np = self.np
        if self.m.is_terminated():
            return bytes(bitmask_len(self.n))
        buf = np.zeros((1, (self.n + 31) // 32), dtype=np.int32)
        self.m.fill_next_token_bitmask(buf)
        return buf.tobytes()[: bitmask_len(self.n)]

    def consume(self, token: int) -> bool:
        return bool(self.m.accept_token(token))


def compiler(vocab: Vocabulary) -> Any:
    """xgrammar's GrammarCompiler for the vocabulary (cached by its content)."""
    import xgrammar as xgr

    key = vocab_hash(vocab)
    c = _COMPILERS.get(key)
    if c is None:
        # xgrammar counts empty tokens as special: specials other than EOS are
        # given as empty, so their display text is never matched
        tokens = [b"" if t in vocab.special_token_ids else data for t, data in enumerate(vocab.tokens)]
        info = xgr.TokenizerInfo(tokens, vocab_type=xgr.VocabType.RAW, vocab_size=len(tokens),
                                 stop_token_ids=list(vocab.eos_token_ids))
        # one thread: the sessions run in forked children (conformance/isolation.py),
        # and a fork copies no other thread
        c = _COMPILERS[key] = xgr.GrammarCompiler(info, max_threads=1)
    return c


def start(spec: GrammarSpec, vocab: Vocabulary, strict_mode: bool = False) -> XgrammarSession:
    """A session at the start of the grammar. Raises NotSupported for Lark grammars
    (special tokens and rule options among them) and kbnf's EBNF, before touching
    xgrammar, and for grammars it cannot compile. JSON schemas are compiled with
    `strict_mode` (xgrammar's default is True: its configuration `xgrammar-default`)."""
    if spec.kind not in KINDS:
        raise NotSupported("xgrammar: Lark grammars are not compared (a different dialect)")
    if spec.kind == "ebnf" and spec.options.get("dialect", "xgrammar") != "xgrammar":
        raise NotSupported("xgrammar reads its own EBNF dialect, not %s's" % spec.options["dialect"])
    import xgrammar as xgr

    c = compiler(vocab)
    try:
        if spec.kind == "regex":
            compiled = c.compile_regex(spec.source)
        elif spec.kind in ("ebnf", "gbnf"):
            compiled = c.compile_grammar(spec.source, root_rule_name=spec.options.get("root") or "root")
        else:
            compiled = c.compile_json_schema(json.dumps(spec.schema), strict_mode=strict_mode, **json_options(spec.options))
    except NotSupported:
        raise
    except Exception as e:
        # xgrammar's messages begin "[hh:mm:ss] file.cc:line: "; the rest names the problem
        message = re.sub(r"^\[[0-9:]+\] \S+:[0-9]+: ", "", str(e).splitlines()[0])
        raise Refused("xgrammar cannot compile the grammar: %s" % message[:160]) from e
    return XgrammarSession(xgr.GrammarMatcher(compiled, terminate_without_stop_token=False), len(vocab))
