"""outlines-core's reading of refimpl's grammar kinds: everything it runs is a regex — a
regex itself, a JSON schema through its own schema-to-regex compiler."""
from __future__ import annotations

import json
from typing import Optional

from ...vectors import GrammarSpec, NotSupported, Refused

#: JSON's whitespace (RFC 8259: space, tab, line feed, carriage return), any amount: the
#: whitespace of the configuration `outlines-core-spec`
JSON_WHITESPACE = r"[ \t\n\r]*"


def regex_of(spec: GrammarSpec, whitespace: Optional[str] = None) -> str:
    """The regex outlines-core runs for a spec: a regex itself, a JSON schema through
    outlines-core's schema-to-regex compiler (raises NotSupported for Lark). `whitespace`
    is the whitespace pattern between JSON tokens where the vector's options name none
    (None: outlines-core's default, `[ ]?`)."""
    if spec.kind == "regex":
        return spec.source
    if spec.kind == "json_schema":
        from outlines_core.json_schema import build_regex_from_schema

        options = dict(spec.options)
        ws = options.pop("whitespace_pattern", None)
        if options.pop("whitespace_flexible", True) is False and ws is None:
            ws = ""  # no whitespace between JSON tokens
        if ws is None:
            ws = whitespace
        if options:
            raise NotSupported("outlines-core has no options %s" % sorted(options))
        try:
            return build_regex_from_schema(json.dumps(spec.schema), ws)
        except Exception as e:
            raise Refused("outlines-core cannot compile the schema: %s" % str(e).splitlines()[0][:200]) from e
    raise NotSupported("outlines-core has no Lark grammars")


def effective_regex(spec: GrammarSpec, whitespace: Optional[str] = None) -> Optional[str]:
    """regex_of(spec, whitespace), or None when outlines-core cannot run the spec."""
    try:
        return regex_of(spec, whitespace)
    except Exception:  # noqa: BLE001
        return None
