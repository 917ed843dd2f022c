"""The old name of conformance.adapters.llguidance's helpers (tokenizer, matcher,
first_mask_seconds), kept for tests/test_jsonschema_frontend.py; new code imports
conformance.adapters.llguidance."""
from __future__ import annotations

from .adapters.llguidance import first_mask_seconds, grammar_text, matcher, tokenizer

__all__ = ["first_mask_seconds", "grammar_text", "matcher", "tokenizer"]
