"""Typed values: grammars from Python types, and the values back from the text
(docs/types.md) — one namespace for what the typed frontend (frontends/typed/) and the
recogniser do for types.

    Grammar.from_type(T)    the grammar of T's JSON values (refimpl.Grammar)
    json_schema_of(T)       the JSON schema that Grammar.from_type compiles
    parse(T, text)          the value of type T that the text is the JSON of
    to_json(value)          a value's JSON text, as the grammar writes it
    Range, MultipleOf, Length, EcmaPattern, Format    constraints through typing.Annotated
    ParseError, UnsupportedTypeError                  the two errors

pydantic models (v2), when pydantic is installed, go through their own JSON schema.

A model's grammar is that of `Model.model_json_schema()` (frontends/typed/models.py).
`parse(Model, text)` first reads the text with that grammar's recogniser — a text the
grammar refuses is a ParseError at the byte where it is refused, so parse accepts exactly
what the grammar accepts, as for every other type — and then lets pydantic build the
instance. pydantic validates more loosely than the grammar reads (members in any order,
coercions), so a text the grammar accepts validates; should pydantic still refuse one (a
validator of the model's own), that is a ParseError too.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple, Union

from .frontends.grammar import Grammar
from .frontends.typed import (
    EcmaPattern,
    Format,
    Length,
    MultipleOf,
    ParseError,
    Range,
    UnsupportedTypeError,
    json_schema_of,
    to_json,
)
from .frontends.typed import parse as parse_type
from .frontends.typed.models import is_model, model_schema
from .grammar.ir import CompiledGrammar
from .recognition.recognizer import Recognizer

__all__ = [
    "EcmaPattern", "Format", "Length", "MultipleOf", "ParseError", "Range", "UnsupportedTypeError", "json_schema_of",
    "parse", "to_json",
]

_GRAMMARS: Dict[int, Tuple[Any, CompiledGrammar]] = {}  # id(model) -> (model, its grammar)


def parse(t: Any, text: Union[str, bytes], *, localns: Optional[Dict[str, Any]] = None) -> Any:
    """The value of type `t` (or the pydantic model instance) that `text` (str, or UTF-8
    bytes) is the JSON of; ParseError with the byte offset where it is not
    (frontends/typed/parse.py; for models, the module docstring)."""
    if not is_model(t):
        return parse_type(t, text, localns=localns)
    if isinstance(text, (bytes, bytearray)):
        data = bytes(text)
        text = data.decode("utf-8", "replace")
    else:
        data = text.encode("utf-8", "surrogatepass")
    got = _GRAMMARS.get(id(t))
    if got is None or got[0] is not t:
        got = _GRAMMARS[id(t)] = (t, Grammar.from_json_schema(model_schema(t)).compiled)
    r = Recognizer(got[1])
    for i, b in enumerate(data):
        if not r.consume_byte(b):
            raise ParseError("not in the grammar of %s" % t.__name__, text, len(data[:i].decode("utf-8", "replace")), "$")
    if not r.is_accepting():
        raise ParseError("the text ends before a value of %s does" % t.__name__, text, len(text), "$")
    try:
        return t.model_validate_json(data)
    except ValueError as e:  # pydantic's ValidationError is a ValueError
        raise ParseError("pydantic refused it: %s" % str(e).splitlines()[0], text, 0, "$") from None
