"""llama.cpp's reading of refimpl's grammar kinds: it runs GBNF — a GBNF vector's own, or
for a JSON schema the grammar llama-cpp-python's converter makes of it."""
from __future__ import annotations

import functools
import json

from ...vectors import GrammarSpec, NotSupported


def root_of(spec: GrammarSpec) -> str:
    """The rule llama.cpp starts at: a GBNF vector's `root` option, else `root`."""
    return spec.options.get("root", "root") if spec.kind == "gbnf" else "root"


def gbnf_of(spec: GrammarSpec) -> str:
    """The GBNF llama.cpp runs for a vector: its own, or for a JSON schema the grammar of
    llama-cpp-python's converter (llama_grammar.json_schema_to_gbnf, the port of llama.cpp's
    json_schema_to_grammar.py that LlamaGrammar.from_json_schema uses)."""
    if spec.kind == "gbnf":
        return spec.source or ""
    if spec.kind != "json_schema":
        raise NotSupported("llama.cpp: no %s grammars" % spec.kind)
    if spec.options:
        raise NotSupported("llama.cpp's JSON-schema converter has no options %s" % sorted(spec.options))
    return _converted(json.dumps(spec.schema))


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
