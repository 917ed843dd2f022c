"""llama.cpp's reading of refimpl's grammar kinds: it runs GBNF — a GBNF vector's own, or
for a JSON schema the grammar llama-cpp-python's converter makes of it."""
from __future__ import annotations

from typing import Optional

from ...readings.converted_schemas import converted_gbnf
from ...vectors import GrammarSpec, NotSupported


def root_of(spec: GrammarSpec) -> str:
    """The rule llama.cpp starts at: a GBNF vector's `root` option, else `root`."""
    return spec.options.get("root", "root") if spec.kind == "gbnf" else "root"


def gbnf_of(spec: GrammarSpec, space: Optional[str] = None) -> str:
    """The GBNF llama.cpp runs for a vector: its own, or for a JSON schema the grammar of
    llama-cpp-python's converter (readings/converted_schemas.py), its `space` rule (by
    default `" "?`, at most one space) given the body `space` if not None."""
    if spec.kind == "gbnf":
        return spec.source or ""
    if spec.kind != "json_schema":
        raise NotSupported("llama.cpp: no %s grammars" % spec.kind)
    return converted_gbnf(spec, space)
