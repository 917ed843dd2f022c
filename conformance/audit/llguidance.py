"""llguidance's LLMatcher, audited: `AuditedLLMatcher` has LLMatcher's methods and
returns what the matcher returns; its masks (compute_bitmask, compute_logit_bias, and
unsafe_compute_mask_ptr, which llguidance.torch's and llguidance.numpy's
fill_next_token_bitmask call) are sampled for the auditor, its consumes, rollbacks and
resets followed. `read_grammar` states llguidance's grammar argument in refimpl's terms.

    m = AuditedLLMatcher(llguidance.LLMatcher(tokenizer, grammar), grammar, auditor)

llguidance itself is never imported here: the matcher is given.

>>> read_grammar('start: /[0-9]+/')
GrammarSpec({"kind": "lark", "source": "start: /[0-9]+/"})
>>> read_grammar('{"grammars": [{"json_schema": {"type": "integer"}}]}')
GrammarSpec({"kind": "json_schema", "schema": {"type": "integer"}})
"""
from __future__ import annotations

import ctypes
import json
from typing import Any, List, Optional, Sequence, Union

from refimpl.masks.mask import encode_mask

from ..vectors import FormatError, GrammarSpec
from .auditor import Auditor, Stream, Unreadable


def read_grammar(grammar: Union[str, GrammarSpec, Unreadable]) -> Union[GrammarSpec, Unreadable]:
    """llguidance's grammar argument (what LLMatcher takes: Lark text, or the JSON of
    grammar_from_json_schema / grammar_from_regex / grammar_from_lark) as a GrammarSpec;
    a GrammarSpec as is; Unreadable (with the reason) for what refimpl cannot state."""
    if isinstance(grammar, (GrammarSpec, Unreadable)):
        return grammar
    if not isinstance(grammar, str):
        return Unreadable("an llguidance grammar is text, not %s" % type(grammar).__name__)
    text = grammar.lstrip()
    if not text.startswith("{"):
        return GrammarSpec("lark", grammar)
    try:
        data = json.loads(text)
        grammars = data["grammars"]
    except (ValueError, KeyError, TypeError):
        return Unreadable("llguidance grammar JSON without 'grammars'")
    if not isinstance(grammars, list) or len(grammars) != 1 or not isinstance(grammars[0], dict):
        return Unreadable("llguidance grammar JSON with %s grammars (one is read)" % (
            len(grammars) if isinstance(grammars, list) else "no list of"))
    if data.get("max_tokens") is not None:
        return Unreadable("llguidance grammar JSON with max_tokens")
    one = grammars[0]
    try:
        if one.get("json_schema") is not None:
            return GrammarSpec("json_schema", schema=one["json_schema"])
        if isinstance(one.get("lark_grammar"), str):
            return GrammarSpec("lark", one["lark_grammar"])
    except FormatError as e:
        return Unreadable(str(e))
    return Unreadable("llguidance grammar JSON with neither json_schema nor lark_grammar")


class AuditedLLMatcher:
    """An llguidance LLMatcher whose masks a maskref Auditor checks (sampled, in its
    thread). Every method is LLMatcher's, with its arguments and its answers; `grammar` is
    the grammar the matcher was made with (llguidance's text, or a GrammarSpec)."""

    def __init__(self, matcher: Any, grammar: Union[str, GrammarSpec, Unreadable, None], auditor: Auditor,
                 stream: Optional[Stream] = None) -> None:
        self.matcher = matcher
        self.audit = stream or auditor.stream(read_grammar(grammar) if grammar is not None
                                              else Unreadable("no grammar given"))

    def __getattr__(self, name: str) -> Any:  # the rest of LLMatcher's API, unchanged
        return getattr(self.matcher, name)

    def __repr__(self) -> str:
        return "AuditedLLMatcher(%r, stream %d)" % (self.matcher, self.audit.number)

    # -- masks ----------------------------------------------------------------------------

    def _note(self) -> Optional[str]:
        """What the peer's session notes (conformance/peers/llguidance): NoExtensionBias."""
        m = self.matcher
        return "NoExtensionBias" if m.is_error() and m.get_error().startswith("NoExtensionBias") else None

    def compute_bitmask(self) -> bytes:
        bits = self.matcher.compute_bitmask()
        try:
            if self.audit.sampled():
                self.audit.record(bits, self._note())
        except Exception as e:  # noqa: BLE001 - recording never breaks generation
            self.audit.failed("compute_bitmask", e)
        return bits

    def compute_logit_bias(self) -> bytes:
        bias = self.matcher.compute_logit_bias()
        try:
            if self.audit.sampled():
                self.audit.record(_bitmask_of_bias(bias), self._note())
        except Exception as e:  # noqa: BLE001
            self.audit.failed("compute_logit_bias", e)
        return bias

    def unsafe_compute_mask_ptr(self, trg_pointer: int, trg_byte_size: int) -> Any:
        out = self.matcher.unsafe_compute_mask_ptr(trg_pointer, trg_byte_size)
        try:
            if self.audit.sampled():
                self.audit.record(ctypes.string_at(trg_pointer, trg_byte_size), self._note())
        except Exception as e:  # noqa: BLE001
            self.audit.failed("unsafe_compute_mask_ptr", e)
        return out

    # -- the state ------------------------------------------------------------------------

    def consume_token(self, sampled_token: int) -> bool:
        ok = self.matcher.consume_token(sampled_token)
        self._followed(ok, [sampled_token])
        return ok

    def consume_tokens(self, sampled_tokens: List[int]) -> bool:
        ok = self.matcher.consume_tokens(sampled_tokens)
        self._followed(ok, sampled_tokens)
        return ok

    def try_consume_tokens(self, tokens: List[int]) -> int:
        n = self.matcher.try_consume_tokens(tokens)
        self._followed(True, list(tokens)[:n])
        return n

    def rollback(self, num_tokens: int) -> bool:
        ok = self.matcher.rollback(num_tokens)
        if ok:
            self.audit.rolled_back(num_tokens)
        return ok

    def reset(self) -> bool:
        ok = self.matcher.reset()
        self.audit.reset()
        return ok

    def deep_copy(self) -> "AuditedLLMatcher":
        copy = self.matcher.deep_copy()
        return AuditedLLMatcher(copy, None, self.audit.auditor, self.audit.fork())

    def _followed(self, ok: bool, tokens: Sequence[int]) -> None:
        if ok:
            self.audit.consumed(tokens)
        else:  # the matcher is in its error state: its masks say nothing of the grammar
            self.audit.off("after llguidance refused a token (its error state)")


_ONES = bytes([0] + [1] * 255)


def _bitmask_of_bias(bias: bytes) -> bytes:
    """compute_logit_bias's answer (a byte per token, non-zero where allowed) as a bitmask.

    >>> _bitmask_of_bias(bytes([0, 200, 0, 200]))
    b'\\n\\x00\\x00\\x00'
    """
    return encode_mask(bytes(bias).translate(_ONES))
