"""lm-format-enforcer 0.11.3's known differences from maskref, by topic (docs/conformance.md
lists them; docs/findings.md, E1-E20), each declared over its predicate. Classification
tries them in this order: the topics' modules in the order below, each in its order of
declaration.

    decoding.py         tokens as decoded strings, interegular's regexes
    schema_reading.py   how it reads a JSON schema
    json_values.py      the JSON values it writes
    raised.py           schemas its parser raises on
"""
from ....differences import LENIENT_SCHEMA, KnownDifferences
from . import decoding, json_values, raised, schema_reading

KNOWN_DIFFERENCES = KnownDifferences(*decoding.KNOWN_DIFFERENCES, *schema_reading.KNOWN_DIFFERENCES,
                                     *json_values.KNOWN_DIFFERENCES, *raised.KNOWN_DIFFERENCES, LENIENT_SCHEMA)
