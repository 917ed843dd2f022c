"""Audit mode: maskref as the correctness oracle of a running engine (docs/audit.md).

A wrapper around another engine's matcher serves the engine's masks unchanged, and a
sampled fraction of its steps is checked against refimpl in a background thread; each
difference is classified by the engine's known differences (conformance/differences.py,
conformance/peers/<peer>/differences.py), and every undeclared one is written as a
conformance vector and a repro.

    auditor.py      the Auditor: streams (what the hot path records), sampling, the
                    checker thread, the report; undeclared differences written as vectors
    differences.py  known differences of an audited setup (llguidance with forcing on)
    llguidance.py   AuditedLLMatcher: llguidance's LLMatcher; its grammar text read
    xgrammar.py     AuditedGrammarMatcher: xgrammar's GrammarMatcher; its grammar read
    vllm.py         vLLM V1's guidance and xgrammar grammars and backends, audited

>>> from refimpl import Vocabulary
>>> with Auditor(Vocabulary.load("gpt2"), engine="llguidance", sample_rate=0.01) as auditor:
...     pass   # wrap matchers: AuditedLLMatcher(matcher, grammar, auditor)
>>> auditor.report().seen
0
"""
from .auditor import Auditor, AuditReport, Stream, Unreadable
from .llguidance import AuditedLLMatcher
from .vllm import audit_backend, audit_grammar
from .xgrammar import AuditedGrammarMatcher

__all__ = ["AuditReport", "AuditedGrammarMatcher", "AuditedLLMatcher", "Auditor", "Stream", "Unreadable",
           "audit_backend", "audit_grammar"]
