"""JSON schemas converted to GBNF by llama-cpp-python's converter (llama_grammar.
json_schema_to_gbnf, the port of llama.cpp's json_schema_to_grammar.py that
LlamaGrammar.from_json_schema uses): the grammar llama.cpp runs for a schema, and the one
xgrammar runs in the configuration `xgrammar.cpp` (MaskBench's "XGrammar.cpp"). The
converter's whitespace is its rule `space`, `" "?` (at most one space), which a
configuration may replace (`JSON_SPACE`, MaskBench's modification). For the predicates
of both peers: does the engine answer as refimpl does on the converted GBNF
(`answers_as_converted`), and do the tokens only it allows put raw control characters into
strings (the converter writes a string character as `[^"\\\\]`: `raw_controls_converted`)?
"""
from __future__ import annotations

import functools
import json
import re
from typing import Optional

from ..differences import answers_as
from ..divergence import Divergence, compiled
from ..vectors import GrammarSpec, NotSupported, Refused
from .json_text import puts, raw_control_in_string

#: JSON's whitespace (space, tab, line feed, carriage return, any amount) as the body of
#: the converter's `space` rule: MaskBench's llama.cpp ("whitespace regex modified to
#: [ \t\n\r]* to match JSON definition")
JSON_SPACE = r"[ \t\n\r]*"


def converted_gbnf(spec: GrammarSpec, space: Optional[str] = None) -> str:
    """The converter's GBNF for a JSON-schema vector, its `space` rule given the body
    `space` if not None (NotSupported for vector options, which it has none of, and for
    schemas it cannot convert)."""
    if spec.options:
        raise NotSupported("llama.cpp's JSON-schema converter has no options %s" % sorted(spec.options))
    text = _converted(json.dumps(spec.schema))
    return text if space is None else with_space(text, space)


def with_space(gbnf: str, space: str) -> str:
    """The converter's GBNF with the body of its `space` rule (the whitespace between JSON
    tokens, and after the value) replaced.

    >>> print(with_space('root ::= "{" space "}" space\\nspace ::= " "?', JSON_SPACE))
    root ::= "{" space "}" space
    space ::= [ \\t\\n\\r]*
    """
    return re.sub(r"(?m)^space ::= .*$", lambda _: "space ::= " + space, gbnf)


@functools.lru_cache(maxsize=16)
def _converted(schema: str) -> str:
    """The converter's GBNF of a schema's JSON text, cached: predicates ask for it once per
    differing token, and it takes seconds on large schemas."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    try:
        return json_schema_to_gbnf(schema)
    except Exception as e:  # noqa: BLE001 - the converter raises what it meets
        raise Refused("llama.cpp's converter cannot convert the schema: %s: %s"
                      % (type(e).__name__, str(e).splitlines()[0][:160] if str(e) else "")) from e


def answers_as_converted(d: Divergence, space: Optional[str] = None) -> bool:
    """Does the engine answer, on a JSON-schema vector, as refimpl does on the converter's
    GBNF (with the whitespace `space`)?"""
    if d.grammar.kind != "json_schema":
        return False
    try:
        text = converted_gbnf(d.grammar, space)
    except NotSupported:
        return False
    return answers_as(d, compiled(GrammarSpec("gbnf", text)))


def raw_controls_converted(d: Divergence, space: Optional[str] = None) -> bool:
    """Only the engine allows the differing tokens, each puts a raw control character
    (U+0000-U+001F) into a string, and the converter's GBNF allows them."""
    if d.only_refimpl or not d.only_engine or not answers_as_converted(d, space):
        return False
    text = d.text()
    return all(puts(text, d.vocab.tokens[t], raw_control_in_string) for t in d.only_engine)
