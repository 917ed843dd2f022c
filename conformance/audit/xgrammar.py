"""xgrammar's GrammarMatcher, audited: `AuditedGrammarMatcher` has GrammarMatcher's
methods and returns what the matcher returns; the row its fill_next_token_bitmask fills
is sampled for the auditor (copied only when sampled), its accept_token, rollback and
reset followed. `read_grammar` states the grammar in refimpl's terms: a GrammarSpec as
given (best: a JSON schema is then compared as one), else xgrammar's own EBNF of the
compiled grammar (`str(compiled.grammar)`), which maskref reads (docs/ebnf.md).

    compiled = compiler.compile_json_schema(schema, any_whitespace=False)
    m = AuditedGrammarMatcher(xgr.GrammarMatcher(compiled), compiled, auditor)

xgrammar itself is never imported here: the matcher is given.
"""
from __future__ import annotations

from typing import Any, Optional, Union

from ..vectors import GrammarSpec
from .auditor import Auditor, Stream, Unreadable


def read_grammar(grammar: Any) -> Union[GrammarSpec, Unreadable]:
    """A GrammarSpec as is; an xgrammar CompiledGrammar or Grammar (or its EBNF text) as
    an ebnf spec of xgrammar's dialect."""
    if isinstance(grammar, (GrammarSpec, Unreadable)):
        return grammar
    if hasattr(grammar, "grammar") and hasattr(grammar, "tokenizer_info"):  # a CompiledGrammar
        grammar = grammar.grammar
    try:
        text = grammar if isinstance(grammar, str) else str(grammar)
    except Exception as e:  # noqa: BLE001
        return Unreadable("xgrammar grammar not printable: %s" % e)
    return GrammarSpec("ebnf", text, options={"dialect": "xgrammar"})


def row_bytes(bitmask: Any, index: int) -> bytes:
    """Row `index` of an int32 bitmask (torch tensor, on any device, or numpy array; a
    1-D one is its only row), copied as bytes."""
    row = bitmask[index] if len(bitmask.shape) == 2 else bitmask
    if hasattr(row, "detach"):  # torch
        row = row.detach().cpu().numpy()
    return bytes(row.tobytes())


class AuditedGrammarMatcher:
    """An xgrammar GrammarMatcher whose masks a maskref Auditor checks (sampled, in its
    thread). Every method is GrammarMatcher's, with its arguments and answers; `grammar`
    is what the matcher was compiled from (a GrammarSpec, or the CompiledGrammar)."""

    def __init__(self, matcher: Any, grammar: Any, auditor: Auditor, stream: Optional[Stream] = None) -> None:
        self.matcher = matcher
        self.audit = stream or auditor.stream(read_grammar(grammar))

    def __getattr__(self, name: str) -> Any:  # the rest of GrammarMatcher's API, unchanged
        return getattr(self.matcher, name)

    def __repr__(self) -> str:
        return "AuditedGrammarMatcher(%r, stream %d)" % (self.matcher, self.audit.number)

    def fill_next_token_bitmask(self, bitmask: Any, index: int = 0, **kwargs: Any) -> Any:
        out = self.matcher.fill_next_token_bitmask(bitmask, index, **kwargs)
        try:
            if self.audit.sampled():
                self.audit.record(row_bytes(bitmask, index))
        except Exception as e:  # noqa: BLE001 - recording never breaks generation
            self.audit.failed("fill_next_token_bitmask", e)
        return out

    def accept_token(self, token_id: int, **kwargs: Any) -> bool:
        ok = self.matcher.accept_token(token_id, **kwargs)
        if ok:
            self.audit.consumed([token_id])
        return ok

    def accept_string(self, input_str: Any, **kwargs: Any) -> bool:
        ok = self.matcher.accept_string(input_str, **kwargs)
        if ok:  # text, not tokens: the prefix is no longer a token path
            self.audit.off("after accept_string (text consumed outside tokens)")
        return ok

    def rollback(self, num_tokens: int = 1) -> Any:
        out = self.matcher.rollback(num_tokens)
        self.audit.rolled_back(num_tokens)
        return out

    def reset(self) -> Any:
        out = self.matcher.reset()
        self.audit.reset()
        return out
