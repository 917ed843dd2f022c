"""xgrammar's default configuration, the engine `xgrammar-default`: a JSON schema compiled
as `compile_json_schema(schema)` compiles it, with no options. Its defaults differ from
those of the engine `xgrammar` (docs/conformance.md, "Configurations") in strict mode
only: any_whitespace=True and the separators (",", ":") are the defaults too.

Strict mode ("equivalent to setting unevaluatedProperties and unevaluatedItems to false",
its docstring) closes every object schema without additionalProperties or
unevaluatedProperties, and every array schema without items or unevaluatedItems
(cpp/json_schema_converter.cc, SchemaParser::ParseObject and ParseArray) — except a
schema of `type` alone, annotations aside (`{"type": ["object", "null"]}` too): the cache
key of each of its types' schema is that of the converter's basic_object (basic_array),
built open. The target of a `$ref` gets a rule of its own, so there `type` alone is
closed too. Not modelled: xgrammar's rule cache then gives an inline schema of the same
`type` alone, later in the schema, that closed rule (a divergence there stays a
disagreement). The known difference `strict-mode` (semantic: a documented default) is
recognised by replaying refimpl on the schema so closed (`strict_rewrite`), alone or
under xgrammar's other readings (reading.py); the configuration's other known
differences are the engine `xgrammar`'s.

>>> strict_schema({"type": "object", "properties": {"a": {}}})
{'type': 'object', 'properties': {'a': {}}, 'additionalProperties': False}
>>> strict_schema({"type": "object", "title": "open"}), strict_schema({"prefixItems": [{}]})
({'type': 'object', 'title': 'open'}, {'prefixItems': [{}], 'items': False})
"""
from __future__ import annotations

import functools
from typing import Any, Dict, Optional, Set
from urllib.parse import unquote

from refimpl import Grammar, Vocabulary

from ...divergence import Divergence, compiled
from ...engine import Session
from ...readings.json_schemas import rewrite_schemas, schemas
from ...vectors import GrammarSpec
from . import session
from .differences import KNOWN_DIFFERENCES, accepts_omitted
from .engine import XgrammarEngine
from .maskbench import read_multiples
from .reading import READINGS, SchemaReading, answers_as_read, read_required, schema_reading

#: the keys ComputeCacheKey leaves out: a schema of `type` and these alone is the basic rule
_ANNOTATIONS = frozenset(("title", "default", "description", "examples", "deprecated", "readOnly", "writeOnly",
                          "$comment", "$schema"))
_OBJECT_KEYWORDS = ("properties", "additionalProperties", "unevaluatedProperties")
_ARRAY_KEYWORDS = ("items", "prefixItems", "unevaluatedItems")


def strict_schema(s: Dict[str, Any], by_ref: bool = False) -> Dict[str, Any]:
    """One schema object as xgrammar's strict mode reads it: an object schema without
    additionalProperties/unevaluatedProperties gets additionalProperties false, an array
    schema without items/unevaluatedItems gets items false; `type` alone (annotations
    aside) stays open, unless the schema is reached `by_ref` (a `$ref`'s target gets a rule
    of its own, not the basic one) with one type. An untyped schema counts as an object
    (array) schema where xgrammar reads it as one: with an object (array) keyword."""
    if set(s) - _ANNOTATIONS == {"type"} and not (by_ref and isinstance(s["type"], str)):
        return s  # each type's schema is its basic rule
    types = s["type"] if isinstance(s.get("type"), list) else [s.get("type")]
    untyped = "type" not in s
    if ("object" in types or untyped and any(k in s for k in _OBJECT_KEYWORDS)) and not any(
            k in s for k in ("additionalProperties", "unevaluatedProperties")):
        s = dict(s, additionalProperties=False)
    if ("array" in types or untyped and any(k in s for k in _ARRAY_KEYWORDS)) and not any(
            k in s for k in ("items", "unevaluatedItems")):
        s = dict(s, items=False)
    return s


def strict_rewrite(schema: Any) -> Any:
    """The whole schema as strict mode reads it: every schema object closed by
    strict_schema, those a local `$ref` reaches outside the keywords that hold subschemas
    (`{"$ref": "#/log"}` with `"log"` beside `properties`) too, as xgrammar parses every
    schema it reaches (a target of `type` alone closed too: strict_schema's by_ref).

    >>> strict_rewrite({"properties": {"a": {"$ref": "#/x"}}, "x": {"required": ["b"], "type": "object"}})["x"]
    {'required': ['b'], 'type': 'object', 'additionalProperties': False}
    """
    out = rewrite_schemas(schema, strict_schema)
    done: Set[str] = set()
    while True:
        refs = sorted({s["$ref"] for s in schemas(out) if isinstance(s.get("$ref"), str)
                       and s["$ref"].startswith("#/")} - done)
        if not refs:
            return out
        for ref in refs:
            done.add(ref)
            parent, key = None, None  # type: Any, Any
            node: Any = out
            for token in ref[2:].split("/"):
                token = unquote(token).replace("~1", "/").replace("~0", "~")
                if isinstance(node, list) and token.isdigit() and int(token) < len(node):
                    parent, key, node = node, int(token), node[int(token)]
                elif isinstance(node, dict) and token in node:
                    parent, key, node = node, token, node[token]
                else:
                    node = None
                    break
            if isinstance(node, dict) and parent is not None:
                parent[key] = strict_schema(rewrite_schemas(node, strict_schema), by_ref=True)


_STRICT: Dict[str, Optional[SchemaReading]] = {}


def strict_reading(spec: GrammarSpec) -> Optional[SchemaReading]:
    """The vector's schema closed as strict mode closes it, as a reading (None when strict
    mode changes nothing or refimpl cannot compile it); kept by the spec's content."""
    key = spec.key()
    if key not in _STRICT:
        read = strict_rewrite(spec.schema)
        reading = None
        if read != spec.schema:
            closed = GrammarSpec(spec.kind, None, read, spec.options)
            try:
                reading = SchemaReading(closed, read, compiled(closed))
            except Exception:  # noqa: BLE001 - a reading refimpl cannot compile explains nothing
                reading = None
        if len(_STRICT) > 64:
            _STRICT.clear()
        _STRICT[key] = reading
    return _STRICT[key]


#: the engine `xgrammar`'s known differences (the one whose predicate runs xgrammar again,
#: mask-omits-accepted-token, running it in strict mode), then strict mode's own
DEFAULT_KNOWN_DIFFERENCES = KNOWN_DIFFERENCES.replacing({
    accepts_omitted: functools.partial(accepts_omitted, strict_mode=True)})


@DEFAULT_KNOWN_DIFFERENCES.declare(
    "strict-mode", "semantic",
    "xgrammar compiles a JSON schema in strict mode by default (compile_json_schema's "
    "strict_mode=True): objects without additionalProperties/unevaluatedProperties and arrays "
    "without items/unevaluatedItems are closed (no property, no item the schema does not name), "
    "except {\"type\": \"object\"} and {\"type\": \"array\"} alone; JSON Schema leaves them open")
def strict_mode(d: Divergence) -> bool:
    """The peer answers as refimpl does on the schema closed as strict mode closes it
    (strict_schema); or, with xgrammar's other readings of the schema, closing it is what
    completes the explanation (they explain it with strict mode's closing, not without)."""
    if d.grammar.kind != "json_schema" or d.error is not None or d.refused is not None:
        return False
    alone = strict_reading(d.grammar)
    if alone is not None and answers_as_read(d, alone):
        return True
    # a closing refimpl cannot compile (no object left) may still be read with xgrammar's readings
    closed = strict_rewrite(d.grammar.schema) if alone is None else alone.schema
    if closed == d.grammar.schema:
        return False
    read = schema_reading(GrammarSpec(d.grammar.kind, None, closed, d.grammar.options), READINGS)
    if read.grammar is not None and answers_as_read(d, read) \
            and not answers_as_read(d, schema_reading(d.grammar, READINGS)):
        return True
    return any(_closed_and_read(d, closed, rewrite) for rewrite in (read_required, read_multiples))


def _closed_and_read(d: Divergence, closed: Any, rewrite: Any) -> bool:
    """Strict mode's closing with one of the peer bugs first met on MaskBench
    (maskbench.py: a keyword it leaves out) explains every differing token, where the
    bug's reading alone does not (closing is part of the explanation)."""
    both = rewrite(closed)
    if both == closed:
        return False
    spec = GrammarSpec("json_schema", None, both, d.grammar.options)
    try:
        grammar = compiled(spec)
    except Exception:  # noqa: BLE001 - a reading refimpl cannot compile explains nothing
        return False
    if not answers_as_read(d, SchemaReading(spec, both, grammar)):
        return False
    alone = rewrite(d.grammar.schema)
    if alone == d.grammar.schema:
        return True
    try:
        open_grammar = compiled(GrammarSpec("json_schema", None, alone, d.grammar.options))
    except Exception:  # noqa: BLE001
        return True
    return not answers_as_read(d, SchemaReading(d.grammar, alone, open_grammar))


class XgrammarDefaultEngine(XgrammarEngine):
    """xgrammar with compile_json_schema's defaults (strict_mode=True); regexes and
    grammars as the engine `xgrammar`."""

    name = "xgrammar-default"
    description = "xgrammar GrammarMatcher, JSON schemas with compile_json_schema's defaults (strict mode)"
    known_differences = DEFAULT_KNOWN_DIFFERENCES

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        return session.start(spec, vocab, strict_mode=True)
