"""xgrammar 0.2.9's known differences first met on MaskBench (docs/maskbench.md), kept
apart from differences.py, which appends them to its list (tried last).

`required-outside-properties`: a `required` name that `properties` does not name is not
required; `named-property-first`: a `required` that is not empty lets no property but the
named ones come first; `one-string-keyword`: a string's format, else its pattern, else its
lengths, the others unread (readings of the schema, reading.py: REQUIRED, NAMED_FIRST,
STRING_ONE).

`multipleof-unread`: xgrammar enforces `multipleOf` only on integers, with an integral
divisor of at most 1024, and, where the integer is bounded, bounded on both sides with at
most 10,000 integers between (cpp/json_schema_converter.cc, ParseInteger and ParseNumber:
"ignoring multipleOf" otherwise). The predicate reads the schema with those `multipleOf`
left out.

>>> read_multiples({"type": "number", "multipleOf": 0.01})
{'type': 'number'}
>>> read_multiples({"type": "integer", "multipleOf": 2, "minimum": 0, "maximum": 10000})
{'type': 'integer', 'minimum': 0, 'maximum': 10000}
>>> read_multiples({"type": "integer", "multipleOf": 2, "minimum": 0, "maximum": 9999})["multipleOf"]
2
"""
from __future__ import annotations

from decimal import Decimal
from typing import Any, Callable, Dict, Optional, Tuple

from refimpl import MaskrefError

from ...differences import KnownDifferences
from ...divergence import Divergence
from ...readings.json_schemas import rewrite_schemas
from ...vectors import GrammarSpec
from .reading import NAMED_FIRST, REQUIRED, STRING_ONE, SchemaReading, answers_as_read, reading_explains

MASKBENCH_DIFFERENCES = KnownDifferences()

#: the largest integral divisor xgrammar enforces, and the most integers of a range it does
INTEGER_DIVISOR_MAX = 1024
RANGE_INTEGERS_MAX = 10000


def _number(v: Any) -> Optional[Decimal]:
    return Decimal(str(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _enforced(s: Dict[str, Any]) -> Optional[bool]:
    """Does xgrammar enforce this schema object's multipleOf (None: not known here: another
    type than one of integer and number, or a bound that is not a plain integer)?"""
    t, m = s.get("type"), _number(s.get("multipleOf"))
    if t == "number":
        return False  # "multipleOf is not supported for type:number"
    if t != "integer" or m is None:
        return None
    if m != m.to_integral_value() or m > INTEGER_DIVISOR_MAX:
        return False  # "multipleOf for type:integer must be an integer" (or at most 1024)
    given = {k: _number(s[k]) for k in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum") if k in s}
    bounds: Dict[str, Decimal] = {k: b for k, b in given.items() if b is not None and b == b.to_integral_value()}
    if len(bounds) != len(given):
        return None
    lows = [bounds["minimum"]] if "minimum" in bounds else []
    lows += [bounds["exclusiveMinimum"] + 1] if "exclusiveMinimum" in bounds else []
    highs = [bounds["maximum"]] if "maximum" in bounds else []
    highs += [bounds["exclusiveMaximum"] - 1] if "exclusiveMaximum" in bounds else []
    if not lows and not highs:
        return True
    if not lows or not highs:
        return False  # "range + multipleOf combination not yet supported"
    lo, hi = max(lows), min(highs)
    return hi - lo + 1 <= RANGE_INTEGERS_MAX


def read_multiples(schema: Any) -> Any:
    """The schema with each `multipleOf` xgrammar does not enforce left out."""
    def read(s: Dict[str, Any]) -> Dict[str, Any]:
        if "multipleOf" in s and _enforced(s) is False:
            return {k: v for k, v in s.items() if k != "multipleOf"}
        return s
    return rewrite_schemas(schema, read)


_READ: Dict[Tuple[str, str], SchemaReading] = {}


def _answers_as(d: Divergence, name: str, rewrite: Callable[[Any], Any]) -> bool:
    """Does xgrammar answer every differing token as refimpl does on the schema as
    `rewrite` reads it (named `name`, for the cache)?"""
    if d.grammar.kind != "json_schema":
        return False
    key = (name, d.grammar.key())
    if key not in _READ:
        if len(_READ) > 16:
            _READ.clear()
        read = rewrite(d.grammar.schema)
        grammar = None
        if read != d.grammar.schema:
            try:
                grammar = GrammarSpec("json_schema", None, read, d.grammar.options).compile()
            except MaskrefError:
                grammar = None
        _READ[key] = SchemaReading(d.grammar, read, grammar)
    return answers_as_read(d, _READ[key])


@MASKBENCH_DIFFERENCES.declare(
    "multipleof-unread", "peer-bug",
    "xgrammar 0.2.9 ignores `multipleOf` (it warns so) on numbers, on integers with a divisor "
    "that is not an integer or above 1024, and on integers bounded on one side or over more "
    "than 10,000 integers: {\"type\": \"number\", \"multipleOf\": 0.01} allows 1.001 "
    "(docs/findings.md, X14)",
    cites=('JSON Schema 2020-12 Validation §6.2.1 multipleOf: valid if the division by the value is an '
           'integer (https://json-schema.org/draft/2020-12/json-schema-validation)'))
def multipleof_unread(d: Divergence) -> bool:
    """A JSON schema with a `multipleOf` xgrammar leaves out, on which it answers every
    differing token as refimpl does on the schema without it."""
    return "multipleOf" in (d.grammar.source or "") and _answers_as(d, "multipleOf", read_multiples)


MASKBENCH_DIFFERENCES.declare(
    "required-outside-properties", "peer-bug",
    "xgrammar 0.2.9 ignores a `required` name that `properties` does not name: "
    "{\"type\": \"object\", \"properties\": {\"a\": {}}, \"required\": [\"a\", \"b\"]} "
    "allows {\"a\": 1} (docs/findings.md, X14)",
    cites=('JSON Schema 2020-12 Validation §6.5.3 required: every name listed is a property of the object '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)')
)(reading_explains(REQUIRED))


MASKBENCH_DIFFERENCES.declare(
    "named-property-first", "peer-bug",
    "xgrammar 0.2.9 lets an object begin with a property its `properties` do not name only where "
    "`required` is empty: with `required` naming none of the properties, {\"type\": \"object\", "
    "\"properties\": {\"a\": {}}, \"required\": [\"b\"]} refuses {\"b\": 1} (after `{\"` only `a`) "
    "(docs/findings.md, X15)",
    cites=('JSON Schema 2020-12 Validation §6.5.3 required (every name listed must be a property of the '
           'object) (https://json-schema.org/draft/2020-12/json-schema-validation) and Core §10.3.2.3 '
           'additionalProperties (a property `properties` does not name is validated by it, absent: any value) '
           '(https://json-schema.org/draft/2020-12/json-schema-core); RFC 8259 (JSON) §4 Objects: the names '
           'of an object are unordered (https://www.rfc-editor.org/rfc/rfc8259)')
)(reading_explains(NAMED_FIRST))


MASKBENCH_DIFFERENCES.declare(
    "one-string-keyword", "peer-bug",
    "xgrammar 0.2.9 reads one of a string's keywords: a format it has a regex for, else `pattern`, "
    "else `minLength`/`maxLength`; the others are ignored: {\"type\": \"string\", \"pattern\": "
    "\"^a+$\", \"maxLength\": 3} allows \"aaaa\" (docs/findings.md, X15)",
    cites=("JSON Schema 2020-12 Core §7.6 keywords are applied independently (all of a schema's keywords apply) "
           '(https://json-schema.org/draft/2020-12/json-schema-core); JSON Schema 2020-12 Validation §6.3.1-6.3.3 '
           'maxLength, minLength, pattern (https://json-schema.org/draft/2020-12/json-schema-validation)')
)(reading_explains(STRING_ONE))
