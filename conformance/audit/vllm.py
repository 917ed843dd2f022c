"""vLLM V1's structured-output grammars, audited: a `StructuredOutputGrammar` of the
guidance backend (its `ll_matcher`, an llguidance LLMatcher) or of the xgrammar backend
(its `matcher`, an xgrammar GrammarMatcher) keeps its class and its methods; its matcher
is swapped for the audited one (llguidance.py, xgrammar.py), so accept_tokens,
validate_tokens, rollback, fill_bitmask, is_terminated and reset run vLLM's own code over
it. `audit_backend` does this to every grammar a `StructuredOutputBackend` compiles.

    audit_backend(backend, auditor)      # backend.compile_grammar's grammars are audited

vLLM is never imported here: the objects are given, and read by their attributes.

>>> request_spec("REGEX", "[0-9]+", whitespace_flexible=True)
GrammarSpec({"kind": "regex", "source": "[0-9]+"})
>>> request_spec("CHOICE", ["yes", "no"], whitespace_flexible=True).source
'start: "yes" | "no"'
"""
from __future__ import annotations

import functools
import json
from typing import Any, Union

from ..vectors import GrammarSpec
from .auditor import Auditor, Unreadable
from .llguidance import AuditedLLMatcher
from .llguidance import read_grammar as llguidance_grammar
from .xgrammar import AuditedGrammarMatcher


def request_spec(request_type: Any, grammar_spec: Any, whitespace_flexible: bool,
                 ebnf_dialect: str = "xgrammar") -> Union[GrammarSpec, Unreadable]:
    """A vLLM request's grammar (its StructuredOutputOptions, by name, and its spec) as a
    GrammarSpec: JSON (a schema; whitespace as the backend's disable_any_whitespace says),
    JSON_OBJECT, REGEX, GRAMMAR (EBNF of `ebnf_dialect` where it has `::=`, else Lark),
    CHOICE (a Lark alternative of the strings)."""
    kind = getattr(request_type, "name", str(request_type))
    options = None if whitespace_flexible else {"whitespace_flexible": False}
    if kind in ("JSON", "JSON_OBJECT"):
        schema = {"type": "object"} if kind == "JSON_OBJECT" else grammar_spec
        if isinstance(schema, str):
            schema = json.loads(schema)
        return GrammarSpec("json_schema", schema=schema, options=options)
    if kind == "REGEX":
        return GrammarSpec("regex", grammar_spec)
    if kind == "GRAMMAR":
        if "::=" in grammar_spec:
            return GrammarSpec("ebnf", grammar_spec, options={"dialect": ebnf_dialect})
        return GrammarSpec("lark", grammar_spec)
    if kind == "CHOICE":
        choices = json.loads(grammar_spec) if isinstance(grammar_spec, str) else grammar_spec
        return GrammarSpec("lark", "start: " + " | ".join(json.dumps(c, ensure_ascii=False) for c in choices))
    return Unreadable("vLLM %s requests are not read" % kind)


def audit_grammar(grammar: Any, auditor: Auditor, spec: Union[GrammarSpec, Unreadable, None] = None) -> Any:
    """The vLLM grammar object itself, its matcher now audited. `spec` is its grammar
    (default: the xgrammar grammar's compiled context, as xgrammar's EBNF)."""
    if hasattr(grammar, "ll_matcher"):  # the guidance backend's GuidanceGrammar
        grammar.ll_matcher = AuditedLLMatcher(grammar.ll_matcher, spec or Unreadable("no grammar given"), auditor)
    elif hasattr(grammar, "matcher"):  # the xgrammar backend's XgrammarGrammar
        grammar.matcher = AuditedGrammarMatcher(grammar.matcher, spec or getattr(grammar, "ctx", None), auditor)
    else:
        raise TypeError("%s has neither ll_matcher (vLLM's guidance backend) nor matcher (its xgrammar "
                        "backend): not a grammar the audit knows" % type(grammar).__name__)
    return grammar


def audit_backend(backend: Any, auditor: Auditor) -> Any:
    """The vLLM StructuredOutputBackend itself, its compile_grammar now auditing every
    grammar it compiles (the guidance backend's grammar read from the text it gave
    llguidance; the xgrammar backend's from the request). A failure to audit is recorded
    by the auditor; the grammar is returned all the same."""
    compile_grammar = backend.compile_grammar

    @functools.wraps(compile_grammar)
    def audited(request_type: Any, grammar_spec: Any, *args: Any, **kwargs: Any) -> Any:
        grammar = compile_grammar(request_type, grammar_spec, *args, **kwargs)
        try:
            if hasattr(grammar, "ll_matcher") and isinstance(getattr(backend, "serialized_grammar", None), str):
                spec = llguidance_grammar(backend.serialized_grammar)
            else:
                flexible = not getattr(backend, "disable_any_whitespace", False)
                spec = request_spec(request_type, grammar_spec, flexible)
            audit_grammar(grammar, auditor, spec)
        except Exception as e:  # noqa: BLE001 - auditing never breaks serving
            auditor.record_error("auditing a %s grammar: %s: %s" % (type(grammar).__name__, type(e).__name__, e))
        return grammar

    backend.compile_grammar = audited
    return backend
