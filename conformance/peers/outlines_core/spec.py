"""outlines-core's closest-to-the-spec configuration, the engine `outlines-core-spec`: a
JSON schema's regex built with JSON's whitespace between tokens
(`build_regex_from_schema(schema, whitespace_pattern=r"[ \\t\\n\\r]*")`) where the engine
`outlines-core` runs outlines-core's default, `[ ]?` (at most one space). Regexes run as
in `outlines-core`. Its other readings of a schema (closed objects, numbers without
bounds, ...) have no option; its known differences are `outlines-core`'s, their
predicates reading the schema with this whitespace (docs/conformance.md, "Configurations").
"""
from __future__ import annotations

import functools
from typing import Optional

from refimpl import Grammar, Vocabulary

from ...engine import Session
from ...vectors import GrammarSpec
from . import session
from .differences import KNOWN_DIFFERENCES, json_schema_regex, no_answer_on_generic_values, pruned_after_match
from .engine import OutlinesCoreEngine
from .reading import JSON_WHITESPACE

SPEC_KNOWN_DIFFERENCES = KNOWN_DIFFERENCES.replacing({
    json_schema_regex: functools.partial(json_schema_regex, whitespace=JSON_WHITESPACE),
    pruned_after_match: functools.partial(pruned_after_match, whitespace=JSON_WHITESPACE),
    no_answer_on_generic_values: functools.partial(no_answer_on_generic_values, whitespace=JSON_WHITESPACE),
})


class OutlinesCoreSpecEngine(OutlinesCoreEngine):
    """outlines-core's Index, JSON schemas with JSON's whitespace between tokens."""

    name = "outlines-core-spec"
    description = "outlines-core Index, JSON schemas with whitespace_pattern [ \\t\\n\\r]*"
    known_differences = SPEC_KNOWN_DIFFERENCES

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        return session.start(spec, vocab, JSON_WHITESPACE)
