"""llama.cpp's closest-to-the-spec configuration, the engine `llama.cpp-spec`: a JSON
schema converted by llama-cpp-python's json_schema_to_gbnf with its whitespace rule
`space` given JSON's whitespace, `[ \\t\\n\\r]*` — MaskBench's llama.cpp (its
json_schema_to_grammar.py "with whitespace regex modified to `[ \\t\\n\\r]*` to match
JSON definition") — where the engine `llama.cpp` runs the converter's default, `" "?`
(at most one space). GBNF vectors run as in `llama.cpp`. Its known differences are
`llama.cpp`'s, their predicates reading the converter's GBNF with this whitespace
(docs/conformance.md, "Configurations").
"""
from __future__ import annotations

import functools
from typing import Optional

from refimpl import Grammar, Vocabulary

from ...engine import Session
from ...readings.converted_schemas import JSON_SPACE
from ...vectors import GrammarSpec
from . import session
from .differences import (
    KNOWN_DIFFERENCES,
    converted_schema,
    ends_generation,
    hidden_left_recursion,
    raw_control_characters,
    unproductive_prefixes,
)
from .engine import LlamaCppEngine

#: llama.cpp's known differences, those that read the converter's GBNF reading it with JSON's whitespace
SPEC_KNOWN_DIFFERENCES = KNOWN_DIFFERENCES.replacing({
    predicate: functools.partial(predicate, space=JSON_SPACE)
    for predicate in (hidden_left_recursion, raw_control_characters, converted_schema, unproductive_prefixes,
                      ends_generation)})


class LlamaCppSpecEngine(LlamaCppEngine):
    """llama.cpp's grammar sampler, JSON schemas converted with JSON's whitespace."""

    name = "llama.cpp-spec"
    description = "llama.cpp grammar sampler, JSON schemas converted with whitespace [ \\t\\n\\r]* (MaskBench's)"
    known_differences = SPEC_KNOWN_DIFFERENCES

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        return session.start(spec, vocab, JSON_SPACE)
