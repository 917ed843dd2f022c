"""xgrammar's GrammarMatcher on a raw-bytes TokenizerInfo (optional: xgrammar imports
torch, so it is usually unavailable where torch is not installed; this adapter fills
numpy bitmasks through DLPack). Regexes through compile_regex, JSON schemas through
compile_json_schema (strict_mode off), its own EBNF and GBNF through compile_grammar;
the known differences are in xgrammar_differences.py."""
from __future__ import annotations

import json
import re
from typing import Any, Dict, Optional

from refimpl import Grammar, Vocabulary

from ..differences import AFTER_EOS, KnownDifference
from ..divergence import Divergence
from ..engine import Engine, Session
from ..vectors import GrammarSpec, NotSupported, bitmask_len, vocab_hash
from .xgrammar_differences import (ALL_OF_AS_ANY, CRASH_ON_LEFT_RECURSION, JSON_LAYOUT, JSON_STRING_SPELLING,
                                   LENGTH_BOUNDED_STRINGS, NO_ANSWER_ON_LEFT_RECURSION, NO_NEGATIVE_ZERO,
                                   ONE_KEYWORD_PER_SCHEMA, ONE_OF_AS_ANY_OF, PATTERN_WITHOUT_ESCAPES,
                                   REF_SIBLINGS_IGNORED, REGEX_DIALECT, SIX_FRACTION_DIGITS, SURROGATES,
                                   UNPRODUCTIVE_RULES, UNTYPED_AS_TYPED, UNTYPED_KEYWORDS_UNREAD, FORMAT_REGEXES,
                                   PATTERN_CLASSES_ASCII, PATTERN_KEYS_ONLY, WHOLE_STRING_PATTERN, KEY_WITHOUT_ESCAPES,
                                   KEYWORDS_UNREAD)

def json_options(options: Dict[str, Any]) -> Dict[str, Any]:
    """xgrammar's compile_json_schema arguments for maskref's JSON options (llguidance's
    x-guidance): the separators, and whether whitespace is flexible. strict_mode is off
    everywhere: JSON Schema allows properties and items a schema does not name."""
    options = dict(options)
    flexible = options.pop("whitespace_flexible", True)
    separators = (options.pop("item_separator", ","), options.pop("key_separator", ":"))
    if options:
        raise NotSupported("xgrammar has no JSON options %s" % sorted(options))
    return {"any_whitespace": bool(flexible), "separators": separators}


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


class XgrammarEngine(Engine):
    """xgrammar's GrammarMatcher for regexes, JSON schemas, its EBNF and GBNF (its Lark
    dialect differs, so Lark grammars are not compared)."""

    name = "xgrammar"
    description = "xgrammar GrammarMatcher, raw token bytes, numpy bitmasks"
    kinds = ("regex", "json_schema", "ebnf", "gbnf")

    def __init__(self) -> None:
        self._compilers: Dict[str, Any] = {}
        self.known_differences = (
            AFTER_EOS, JSON_LAYOUT, REGEX_DIALECT, JSON_STRING_SPELLING, LENGTH_BOUNDED_STRINGS, SIX_FRACTION_DIGITS,
            NO_NEGATIVE_ZERO, SURROGATES, CRASH_ON_LEFT_RECURSION, UNPRODUCTIVE_RULES, PATTERN_WITHOUT_ESCAPES,
            NO_ANSWER_ON_LEFT_RECURSION, REF_SIBLINGS_IGNORED, UNTYPED_AS_TYPED, ALL_OF_AS_ANY, ONE_KEYWORD_PER_SCHEMA,
            ONE_OF_AS_ANY_OF, UNTYPED_KEYWORDS_UNREAD, FORMAT_REGEXES, PATTERN_KEYS_ONLY, WHOLE_STRING_PATTERN,
            PATTERN_CLASSES_ASCII, KEY_WITHOUT_ESCAPES, KEYWORDS_UNREAD,
            KnownDifference(
                "mask-omits-accepted-token", "peer-bug",
                "xgrammar's mask leaves out tokens that its own accept_token accepts in the same state "
                "(`root ::= root [^a] | \"\"` does not allow `bb` at the start, though it accepts it)",
                self._accepts_omitted))

    def _accepts_omitted(self, d: Divergence) -> bool:
        """refimpl allows tokens xgrammar's mask lacks, and a fresh xgrammar matcher after
        the same prefix accepts each of them (run here, in the comparing process)."""
        if d.error is not None or d.refused is not None or d.only_engine or not d.only_refimpl:
            return False
        for t in d.only_refimpl:
            session = self.start(d.grammar, d.vocab)
            if not all(session.consume(p) for p in d.prefix) or not session.consume(t):
                return False
        return True

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
            # one thread: the sessions run in forked children (conformance/isolation.py),
            # and a fork copies no other thread
            c = self._compilers[key] = xgr.GrammarCompiler(info, max_threads=1)
        return c

    def prepare(self, vocab: Vocabulary) -> None:
        """The compiler for the vocabulary, built before the session's child is forked."""
        self.compiler(vocab)

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        """Raises NotSupported for Lark grammars (special tokens and rule options among
        them), before touching xgrammar."""
        if spec.kind not in self.kinds:
            raise NotSupported("xgrammar: Lark grammars are not compared (a different dialect)")
        if spec.kind == "ebnf" and spec.options.get("dialect", "xgrammar") != "xgrammar":
            raise NotSupported("xgrammar reads its own EBNF dialect, not %s's" % spec.options["dialect"])
        import xgrammar as xgr

        c = self.compiler(vocab)
        try:
            if spec.kind == "regex":
                compiled = c.compile_regex(spec.source)
            elif spec.kind in ("ebnf", "gbnf"):
                compiled = c.compile_grammar(spec.source, root_rule_name=spec.options.get("root") or "root")
            else:
                compiled = c.compile_json_schema(json.dumps(spec.schema), strict_mode=False,
                                                 **json_options(spec.options))
        except NotSupported:
            raise
        except Exception as e:
            # xgrammar's messages begin "[hh:mm:ss] file.cc:line: "; the rest names the problem
            message = re.sub(r"^\[[0-9:]+\] \S+:[0-9]+: ", "", str(e).splitlines()[0])
            raise NotSupported("xgrammar cannot compile the grammar: %s" % message[:160]) from e
        return XgrammarSession(xgr.GrammarMatcher(compiled, terminate_without_stop_token=False), len(vocab))
