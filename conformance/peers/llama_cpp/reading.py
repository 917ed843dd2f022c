"""llama.cpp's reading of refimpl's grammar kinds: it runs GBNF — a GBNF vector's own, or
for a JSON schema the grammar llama-cpp-python's converter makes of it."""
from __future__ import annotations

import functools
import json
import re
from typing import Optional

from ...vectors import GrammarSpec, NotSupported


def root_of(spec: GrammarSpec) -> str:
    """The rule llama.cpp starts at: a GBNF vector's `root` option, else `root`."""
    return spec.options.get("root", "root") if spec.kind == "gbnf" else "root"


#: JSON's whitespace (space, tab, line feed, carriage return, any amount) as the body of
#: the converter's `space` rule: the configuration `llama.cpp-spec`, MaskBench's llama.cpp
#: ("whitespace regex modified to [ \t\n\r]* to match JSON definition")
JSON_SPACE = r"[ \t\n\r]*"


def gbnf_of(spec: GrammarSpec, space: Optional[str] = None) -> str:
    """The GBNF llama.cpp runs for a vector: its own, or for a JSON schema the grammar of
    llama-cpp-python's converter (llama_grammar.json_schema_to_gbnf, the port of llama.cpp's
    json_schema_to_grammar.py that LlamaGrammar.from_json_schema uses), its `space` rule
    (by default `" "?`, at most one space) given the body `space` if not None."""
    if spec.kind == "gbnf":
        return spec.source or ""
    if spec.kind != "json_schema":
        raise NotSupported("llama.cpp: no %s grammars" % spec.kind)
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
        raise NotSupported("llama.cpp's converter cannot convert the schema: %s: %s"
                           % (type(e).__name__, str(e).splitlines()[0][:160] if str(e) else "")) from e
