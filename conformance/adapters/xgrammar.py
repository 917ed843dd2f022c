"""xgrammar's GrammarMatcher on a raw-bytes TokenizerInfo, and its known differences
(optional: xgrammar imports torch, so it is usually unavailable where torch is not
installed; this adapter fills numpy bitmasks through DLPack)."""
from __future__ import annotations

import json
from typing import Any, Dict, Optional

from refimpl import Grammar, Vocabulary

from ..core import AFTER_EOS, Backend, KnownDifference, Session, all_differing
from ..vectors import GrammarSpec, NotSupported, bitmask_len, vocab_hash

JSON_WHITESPACE = b" \n\r\t"

JSON_LAYOUT = KnownDifference(
    "json-whitespace", "semantic",
    "xgrammar's JSON whitespace (any_whitespace, its own separators) differs from "
    "llguidance's flexible whitespace",
    lambda d: d.grammar.kind == "json_schema" and all_differing(d, lambda t: any(b in JSON_WHITESPACE for b in t)),
)


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


class XgrammarBackend(Backend):
    """xgrammar's GrammarMatcher for regexes and JSON schemas (its Lark dialect differs,
    so Lark grammars are not compared)."""

    name = "xgrammar"
    description = "xgrammar GrammarMatcher, raw token bytes, numpy bitmasks"
    kinds = ("regex", "json_schema")
    known_differences = (AFTER_EOS, JSON_LAYOUT)

    def __init__(self) -> None:
        self._compilers: Dict[str, Any] = {}

    def unavailable_reason(self) -> Optional[str]:
        try:
            import numpy  # noqa: F401
            import xgrammar  # noqa: F401
        except ImportError as e:
            return "xgrammar is not importable (%s); it needs torch: pip install xgrammar" % e
        except Exception as e:  # xgrammar fails in odd ways without its native pieces
            return "xgrammar is not usable: %s" % e
        return None

    def version(self) -> str:
        from importlib.metadata import version

        return "xgrammar %s" % version("xgrammar")

    def compiler(self, vocab: Vocabulary) -> Any:
        import xgrammar as xgr

        key = vocab_hash(vocab)
        c = self._compilers.get(key)
        if c is None:
            # xgrammar counts empty tokens as special: specials other than EOS are
            # given as empty, so their display text is never matched
            tokens = [b"" if t in vocab.special_token_ids else data for t, data in enumerate(vocab.tokens)]
            info = xgr.TokenizerInfo(tokens, vocab_type=xgr.VocabType.RAW, vocab_size=len(tokens),
                                     stop_token_ids=list(vocab.eos_token_ids))
            c = self._compilers[key] = xgr.GrammarCompiler(info)
        return c

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        """Raises NotSupported for Lark grammars (special tokens and rule options among
        them), before touching xgrammar."""
        if spec.kind not in self.kinds:
            raise NotSupported("xgrammar: Lark grammars are not compared (a different dialect)")
        import xgrammar as xgr

        c = self.compiler(vocab)
        try:
            if spec.kind == "regex":
                compiled = c.compile_regex(spec.source)
            else:
                compiled = c.compile_json_schema(json.dumps(spec.schema), any_whitespace=True)
        except Exception as e:
            raise NotSupported("xgrammar cannot compile the grammar: %s" % str(e).splitlines()[0][:160]) from e
        return XgrammarSession(xgr.GrammarMatcher(compiled, terminate_without_stop_token=False), len(vocab))
