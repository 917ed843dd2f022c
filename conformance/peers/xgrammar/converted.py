"""xgrammar on llama.cpp's grammar for a JSON schema, the engine `xgrammar.cpp`
(MaskBench's "XGrammar.cpp": "XGrammar with the llama.cpp script", whose grammars are
"similar in feature coverage and flexibility to the ones used in LLGuidance"): a JSON
schema converted to GBNF by llama-cpp-python's converter with JSON's whitespace
(readings/converted_schemas.py, as the engine `llama.cpp-spec`), compiled by xgrammar's
`compile_grammar`. JSON schemas only: other vectors run as in the engine `xgrammar`.

Its known differences: the converter's reading of the schema (`converted-schema`,
semantic; `raw-control-characters`, its peer bug, credited first), and each of the
engine `xgrammar`'s, its predicate asked about the divergence on the converted GBNF (its
GBNF bugs, e.g. `surrogates-as-utf8`, apply there; its JSON-schema readings do not).
"""
from __future__ import annotations

import functools
from typing import Optional

from refimpl import Grammar, Vocabulary

from ...differences import LENIENT_SCHEMA, KnownDifferences, Predicate
from ...divergence import Divergence
from ...engine import Session
from ...readings.converted_schemas import JSON_SPACE, answers_as_converted, converted_gbnf, raw_controls_converted
from ...vectors import GrammarSpec, NotSupported
from . import session
from .differences import KNOWN_DIFFERENCES
from .engine import XgrammarEngine


def on_converted(applies: Predicate, d: Divergence) -> bool:
    """The predicate asked about the divergence as one on the converted GBNF (False for
    vectors the converter cannot convert)."""
    if d.grammar.kind != "json_schema":
        return applies(d)
    try:
        text = converted_gbnf(d.grammar, JSON_SPACE)
    except NotSupported:
        return False
    return applies(Divergence(GrammarSpec("gbnf", text), d.vocab, d.prefix, d.step, d.only_engine, d.only_refimpl,
                              d.error, d.refused, d.accepting, d.note))


CONVERTED_KNOWN_DIFFERENCES = KnownDifferences()


@CONVERTED_KNOWN_DIFFERENCES.declare(
    "raw-control-characters", "peer-bug",
    "llama-cpp-python's JSON-schema converter writes a string character as [^\"\\\\]: raw control "
    "characters, newlines among them, are allowed in strings (invalid JSON)")
def raw_control_characters(d: Divergence) -> bool:
    return raw_controls_converted(d, JSON_SPACE)


@CONVERTED_KNOWN_DIFFERENCES.declare(
    "converted-schema", "semantic",
    "llama-cpp-python turns a JSON schema into its own GBNF (json_schema_to_gbnf, here with JSON's "
    "whitespace): objects closed unless additionalProperties says otherwise, minimum and maximum "
    "ignored, ...; the differing tokens are exactly those refimpl answers differently on that GBNF")
def converted_schema(d: Divergence) -> bool:
    return answers_as_converted(d, JSON_SPACE)


# (lenient-schema-values is about the schema itself, not its reading: asked of the schema)
CONVERTED_KNOWN_DIFFERENCES.extend(KNOWN_DIFFERENCES.replacing(
    {k.applies: functools.partial(on_converted, k.applies) for k in KNOWN_DIFFERENCES if k is not LENIENT_SCHEMA}))


class XgrammarCppEngine(XgrammarEngine):
    """xgrammar's GrammarMatcher on the converter's GBNF of a JSON schema."""

    name = "xgrammar.cpp"
    description = "xgrammar GrammarMatcher on llama-cpp-python's GBNF of a JSON schema (JSON whitespace)"
    kinds = ("json_schema",)
    known_differences = CONVERTED_KNOWN_DIFFERENCES

    def unavailable_reason(self) -> Optional[str]:
        try:
            import llama_cpp  # noqa: F401
        except ImportError as e:
            return "llama-cpp-python (its JSON-schema converter) is not importable (%s)" % e
        return super().unavailable_reason()

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        if spec.kind != "json_schema":
            raise NotSupported("xgrammar.cpp runs JSON schemas only (the engine xgrammar runs the rest)")
        return session.start(GrammarSpec("gbnf", converted_gbnf(spec, JSON_SPACE)), vocab)
