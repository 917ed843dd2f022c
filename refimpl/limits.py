"""Limits on the work an input may cause.

Every loop whose length the input controls checks one of these and raises `LimitError`
naming it. The defaults are generous for real grammars and small enough that a hostile
input fails in seconds rather than hanging.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    #: hash-consed regex expressions in one ExprSet (bounds memory of derivatives)
    expressions: int = 2_000_000
    #: states of one lazy DFA (or lexer)
    dfa_states: int = 200_000
    #: states of one token index (each holds a row of one byte per token: 50 KB on GPT-2)
    index_states: int = 10_000
    #: bytes of masks one Matcher's mask cache keeps (one byte per token per mask)
    mask_cache_bytes: int = 16 << 20
    #: derivative states explored by one emptiness / containment / forcing question
    relevance_fuel: int = 10_000
    #: largest counted repetition bound {n,m} in a pattern
    repeat_bound: int = 100_000
    #: digits of one number in a JSON schema, in plain decimal text (1e400: 401; a
    #: double needs at most 309, or 325 for 5e-324): bounds compile to regexes linear in
    #: them, and Python writes ints of at most 4,300 digits as text
    number_digits: int = 1_000
    #: objects and arrays nested in one another in one JSON schema (every value in it:
    #: subschemas, `const`, `enum`): real schemas nest a few dozen levels; 2,000 compile
    #: in about a second (docs/jsonschema.md, "Bounds")
    schema_depth: int = 2_000
    #: Earley items in one row
    items_per_row: int = 100_000
    #: Earley rows (lexemes scanned) in one parse
    rows: int = 1_000_000
    #: symbols + rules of one grammar
    grammar_size: int = 1_000_000
    #: instances (rule, parameter value) of parametric Lark rules expanded from `start`
    parametric_instances: int = 20_000
    #: array/object alternatives one JSON schema distributes its disjunctions into (anyOf,
    #: exact oneOf, if/else, dependencies): a product, exponential in theory
    #: (docs/jsonschema.md, "Bounds"); real schemas need at most a few hundred
    schema_alternatives: int = 500
    #: states of the minimal divisibility automaton of one JSON schema `multipleOf`
    #: (docs/jsonschema.md, "Bounds"): it becomes a regex by state elimination, practical
    #: up to here; beyond, the keyword cannot be enforced (SchemaError, unless lenient)
    multiple_of_states: int = 400
    #: states of the part of that automaton that state elimination unrolls into one regex
    #: (the remainder mod c' of an integer divisor c = 2^a·5^b·c', a decimal divisor's
    #: whole automaton): its regex and derivatives grow fast with the loops (a prime near
    #: 130 compiled in 15 s, its first GPT-2 mask took 130 s; 397 exceeds `expressions`)
    eliminated_states: int = 134
    #: key regions of one JSON object and the splits leading to them (keys split by the
    #: patternProperties they match: 2^patterns in theory, docs/jsonschema.md, "Bounds")
    property_regions: int = 256


DEFAULT_LIMITS = Limits()
