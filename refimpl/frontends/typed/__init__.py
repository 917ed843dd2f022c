"""Grammars from Python types, and typed values back from the text (docs/types.md).

    json_schema_of(T)        the JSON schema of T's values (Grammar.from_type compiles it)
    parse(T, text)           the value of type T the text is the JSON of, or ParseError
    to_json(value)           a value's JSON text, as the grammar writes it
    Range, MultipleOf, Length, EcmaPattern, Format   constraints through typing.Annotated

Modules: shapes.py (a type as a graph of shapes: the one analysis the others read),
schema.py (shapes -> JSON schema), markers.py, reader.py (JSON text as a token tree with
offsets), leaves.py (scalar texts through the frontend's lexemes), parse.py, dump.py,
errors.py (UnsupportedTypeError, ParseError); integers of any length: ../digits.py.
"""
from .dump import to_json
from .errors import ParseError, UnsupportedTypeError
from .markers import EcmaPattern, Format, Length, MultipleOf, Range
from .parse import parse
from .schema import json_schema_of

__all__ = [
    "Format", "Length", "MultipleOf", "ParseError", "EcmaPattern", "Range", "UnsupportedTypeError", "json_schema_of",
    "parse", "to_json",
]
