"""lm-format-enforcer's TokenEnforcer as an engine under test
(conformance/peers/lm_format_enforcer/): its vocabulary, the suite's regex and JSON
schema vectors, and each known difference's predicate on a constructed divergence (it
recognises the difference and rejects a near miss)."""

import pytest

pytest.importorskip("lmformatenforcer")

from conformance.divergence import Divergence  # noqa: E402
from conformance.isolation import Isolated  # noqa: E402
from conformance.peers.lm_format_enforcer import LmFormatEnforcerEngine, token_string  # noqa: E402
from conformance.peers.lm_format_enforcer.session import tokenizer_data  # noqa: E402
from conformance.runner import check_vector  # noqa: E402
from conformance.vectors import GrammarSpec, load_builtin, read_vectors, record  # noqa: E402
from refimpl import Vocabulary  # noqa: E402
from tests.support.paths import SUITE

SUITE = SUITE
BACKEND = LmFormatEnforcerEngine()
# a (first UTF-8 byte of é), b (its second), é, 1, ٣ (an Arabic-Indic digit), x, xé, empty, EOS
VOCAB = Vocabulary([b"a", b"\xc3", b"\xa9", b"\xc3\xa9", b"1", "\u0663".encode(), b"x", b"x\xc3\xa9", b"", b"</s>"],
                   eos_token_ids=[9])
NO_E = Vocabulary([b"a", b"x", b"x\xc3\xa9", b"</s>"], eos_token_ids=[3])  # no token begins with é
# [, :, d, 1, ], k, K, KELVIN SIGN, EOS
SIGNS = Vocabulary([b"[", b":", b"d", b"1", b"]", b"k", b"K", "\u212a".encode(), b"</s>"], eos_token_ids=[8])


def known(spec, vocab, prefix=(), only_engine=(), only_refimpl=()):
    d = Divergence(spec, vocab, list(prefix), len(prefix), list(only_engine), list(only_refimpl))
    k = BACKEND.classify(d)
    return k.name if k else None


@pytest.mark.parametrize("name", ["bytes", "gpt2"])
def test_the_enforcer_is_given_the_tokens_strings(name):
    vocab = load_builtin(name)
    data = tokenizer_data(vocab)
    assert data.eos_token_id == list(vocab.eos_token_ids)
    assert {t: s for t, s, _ in data.regular_tokens} == {
        t: token_string(b) for t, b in enumerate(vocab.tokens) if t not in vocab.special_token_ids}
    a, lead, tail = (vocab.tokens.index(b) for b in (b"a", b"\xc3", b"\xa9"))
    assert data.decoder([a, lead]) == "a" and data.decoder([a, lead, tail]) == "a\u00e9"


@pytest.mark.parametrize("suite", ["regex.jsonl"])
def test_the_suites_vectors(suite):
    """Every vector agrees, differs only as declared, or is one lm-format-enforcer refuses."""
    backend, statuses = Isolated(LmFormatEnforcerEngine(), timeout=60), set()
    for _, _, vector in read_vectors(str(SUITE / suite)):
        if vector.vocab.name == "gpt2" and vector.id.endswith("random"):
            continue  # keeps the test short; the bytes vocabulary's random paths stay
        result = check_vector(backend, vector)
        assert result.status in ("agree", "known", "unsupported"), (vector.id, result.divergence)
        statuses.add(result.status)
    assert {"agree", "known"} <= statuses


@pytest.mark.parametrize("vector_id", ["findings/xgrammar-required-outside-properties/bytes/0",
                                       "findings/llguidance-ecma-space-partial/bytes/0"])
def test_findings_vectors_of_other_peers(vector_id):
    """E24 and E25: vectors written for other peers' findings differ only as declared."""
    vector = next(v for _, _, v in read_vectors(str(SUITE / "findings.jsonl")) if v.id == vector_id)
    result = check_vector(Isolated(LmFormatEnforcerEngine(), timeout=60), vector)
    assert result.status == "known", result.divergence


def test_a_whole_session_through_the_child_process():
    spec = GrammarSpec("regex", "a+1")
    result = check_vector(Isolated(LmFormatEnforcerEngine(), timeout=30),
                          record(spec.compile(), spec, VOCAB, [0, 0, 4], "t", [], "test"))
    assert result.status == "known" and result.known == ["empty-token"]


@pytest.mark.parametrize("regex, vocab, prefix, only_engine, only_refimpl, expected", [
    ("a+", VOCAB, [], [8], [], "empty-token"),
    ("a+", VOCAB, [], [8, 0], [], None),  # a is refimpl's too: not only the empty token
    ("\u00e9+", VOCAB, [], [], [1], "decoded-strings"),  # \xc3 is offered as U+FFFD
    ("\u00e9+", VOCAB, [], [], [3], None),  # é itself: lm-format-enforcer allows it
    ("(?s).+", VOCAB, [1], [0], [], "decoded-strings"),  # after \xc3 its parser has read nothing yet
    ("(?s).+", VOCAB, [0], [0], [], None),  # after a: a is allowed by both
    ("\\d", VOCAB, [], [], [5], "ascii-classes"),
    ("[0-9\u0663]", VOCAB, [], [], [5], None),
    (".+", NO_E, [], [], [2], "tokenizer-alphabet"),  # é begins no token
    ("(x\u00e9)+", NO_E, [], [], [2], None),  # the regex names é
    ("[[:digit:]]+", SIGNS, [], [0, 1, 2], [3], "python-regex-syntax"),  # the class of `[:digt`, then `]+`
    ("[[:digit:]]+", SIGNS, [], [4], [3], None),  # `]` only after the class
    ("[[:digit:]]+", SIGNS, [], [], [2], None),  # d is in its class
    ("(?i)k+", SIGNS, [], [], [7], "case-folding-lower-upper"),  # KELVIN SIGN: neither k.lower() nor k.upper()
    ("(?i)k+", SIGNS, [], [], [6], None),  # K is k.upper()
])
def test_regex_differences(regex, vocab, prefix, only_engine, only_refimpl, expected):
    assert known(GrammarSpec("regex", regex), vocab, prefix, only_engine, only_refimpl) == expected


ONE_OF_REF = {"type": "object", "oneOf": [{"$ref": "#/definitions/a"}],
              "definitions": {"a": {"properties": {"x": {"type": "integer"}}}}}
ALL_OF_REF = {"allOf": [{"$ref": "#/definitions/base"}, {
    "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"],
    "additionalProperties": False}], "definitions": {"base": {"properties": {"c": {"type": "string"}}}}}
ESCAPED_KEYS = {"type": "object", "properties": {"a\"b": {"type": "string"}, "\\": {"type": "string"}},
                "additionalProperties": False}
PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name", "age"]}

# 13 optional properties (13! orders); a schema whose `not` lm-format-enforcer does not read
MANY = {"type": "object", "properties": {"p%d" % i: {"type": "integer"} for i in range(13)}}
# items that share one schema (MaskBench's o29394): the first in its order, the second in another
SHARED = {"type": "array", "items": {"$ref": "#/definitions/o"}, "definitions": {"o": {
    "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}}
NOT = {"type": "object", "properties": {"a": {"type": "integer"}}, "not": {"required": ["a"]}}
SHORT = {"type": "string", "minLength": 1, "maxLength": 1}
INTS_OR_BOOLS = {"anyOf": [{"type": "array", "items": {"type": "integer"}, "minItems": 1},
                           {"type": "array", "items": {"type": "boolean"}, "minItems": 1}]}
EMPTY_OR_ONE = {"anyOf": [{"type": "array", "items": {"type": "integer"}, "maxItems": 0},
                          {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 1}]}


@pytest.mark.parametrize("schema, text, only_engine, only_refimpl, expected", [
    ({"type": "integer"}, "1", [b"e"], [], "number-grammar"),  # lm-format-enforcer's integers take exponents
    ({"type": "integer"}, "1", [b"x"], [], None),
    ({"type": "number"}, "0.", [b"e"], [], "number-grammar"),  # 0.e5: an empty fraction before an exponent
    ({"type": "number"}, "0", [], [b"."], None),  # lm-format-enforcer writes 0.5
    ({"type": "integer"}, "0", [b"e"], [], "number-grammar"),  # 0e1 as an integer
    ({"type": "number"}, "0", [b"0"], [], None),  # 00 is not one of its numbers either
    (PERSON, '{"', [b"a"], [], "any-key-order"),  # "age" first
    (PERSON, '{"', [b"x"], [], None),
    ({"type": "array"}, "", [b" "], [], "json-reading"),  # whitespace before the value
    ({"type": "array"}, "", [b"\t", b"x"], [], None),
    ({"type": "string"}, '"', [b"\x01"], [], "control-characters-in-strings"),
    ({"type": "string"}, "", [b"\x01"], [], None),
    # a raw control character is read as its escape: a pattern's \\s takes a raw vertical tab (E25)
    ({"type": "string", "pattern": "^[\\w\\s-]+$"}, '"a', [b"\x0b", b"\x0c"], [], "control-characters-in-strings"),
    ({"type": "string", "pattern": "^[\\w\\s-]+$"}, '"a', [b"\x01"], [], None),  # U+0001 is no \\s
    ({"type": "string", "pattern": "^[a-z]+$"}, '"a', [b"\x0b"], [], None),
    ({"type": "string"}, '"a', [b"\x7f"], [], "json-string-spelling"),
    ({"type": "string"}, '"a\\', [b"/"], [], "json-string-spelling"),  # \/ across two tokens
    ({"type": "string"}, '"a\\u', [b"d"], [], "json-string-spelling"),
    ({"type": "string"}, '"a\\', [b"x"], [], None),
    ({"type": "string", "pattern": "^[^a-c]+$"}, '"', [], [b"|"], "pattern-alphabet"),
    ({"type": "string", "pattern": "^[^a-c]+$"}, '"', [], [b"d"], None),
    ({"type": "string"}, '"', [], [b"|"], None),  # no pattern
    (MANY, '{"p5": 1, "p', [b"0"], [], "any-key-order"),  # 13! orders: the reordered object alone
    (MANY, '{"p5": 1, "p', [b"5"], [], None),  # p5 is written already
    (MANY, '{"p5": 1, "p', [b"x"], [], None),
    (SHARED, '[{"a":1,"b":2},{"', [b"b"], [], "any-key-order"),  # each item takes its own order
    (SHARED, '[{"a":1,"b":2},{"', [b"c"], [], None),
    (SHARED, '[{"a":1,"b":2},{"b":1,"', [b"b"], [], None),  # b is written already
    (NOT, "", [b" "], [], "json-reading"),  # `not` is not read (nor compiled for refimpl's reading)
    (NOT, "", [b"x"], [], None),
    ({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}, '{"a": 1,',
     [b"}"], [], "trailing-comma"),
    ({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}, '{"a": 1',
     [b"]"], [], None),
    # the space after the quote is not in the string: one more character, not the closing quote
    (SHORT, '" ', [b"x", b"\x00", b"\x7f"], [b'"'], "string-leading-whitespace"),
    (SHORT, '"a', [b"x"], [b'"'], None),
    ({"type": "string", "maxLength": 0}, '"', [b"x", b"\x01"], [], "max-length-zero"),
    ({"type": "array", "items": {"type": "string", "maxLength": 0}}, "[", [b"x"], [], None),
    (EMPTY_OR_ONE, "[", [], [b"]"], "array-union"),  # the second option's item parser is on top
    (INTS_OR_BOOLS, "[", [], [b"1"], "array-union"),  # the booleans' item parser is on top
    (INTS_OR_BOOLS, "[1,", [], [b"2"], None),  # not the first item
    ({"anyOf": [{"type": "array", "maxItems": 0}, {"type": "string"}]}, "[", [], [b"]"], None),  # one array option
    ({"enum": [True]}, "", [b"T"], [b"t"], "enum-python-spelling"),  # Python's str(True)
    ({"enum": [1]}, "", [b"T"], [b"t"], None),
    # property names walked unescaped: `\\` is any escape, `"` closes the key
    (ESCAPED_KEYS, '{"\\', [b'"', b"/", b"n", b"u"], [], "raw-allowed-strings"),
    (ESCAPED_KEYS, '{"\\', [b"x"], [], None),
    (ESCAPED_KEYS, '{"a', [b'"'], [b"\\"], "raw-allowed-strings"),
    ({"type": "object", "properties": {"ab": {}}}, '{"a', [b'"'], [b"b"], None),
    ({"enum": ["a\\"]}, '"a\\', [b"n"], [], "raw-allowed-strings"),  # an enum value too
    ({"enum": ["a\\"]}, '"a\\', [], [b"\\"], None),  # JSON's spelling is among its escapes
    # a control character of a walked string is offered raw only (JSON-Schema-Test-Suite const/enum)
    ({"const": "hello\u0000there"}, '"hello', [b"\x00"], [b"\\"], "raw-allowed-strings"),
    ({"enum": ["foo\nbar", "foo\rbar"]}, '"foo', [b"\n", b"\r"], [b"\\"], "raw-allowed-strings"),
    ({"const": "hello there"}, '"hello', [b"\x00"], [b"\\"], None),  # no control character in it
    ({"const": "hello\u0000there"}, '"hello', [b"\x01"], [b"\\"], None),  # not its character
    # two differences on one token: a oneOf of a $ref makes the object open (one-of-objects),
    # and the key takes a raw control character (control-characters-in-strings)
    (ONE_OF_REF, '{"', [b"\x01"], [], "control-characters-in-strings"),
    (ONE_OF_REF, '{"', [b"\x01"], [b"x"], None),  # it takes the key x too
    (ONE_OF_REF, '{"', [b"\x7f"], [], "json-string-spelling"),  # and a raw DEL
    # an allOf read as its last part (all-of-last-part), whose keys then come in any order
    (ALL_OF_REF, '{"', [b"b"], [], "any-key-order"),
    (ALL_OF_REF, '{"', [b"b", b"c"], [], None),  # the $ref part is not read: no key c
    ({"type": "object", "properties": {"x": {"type": "integer"}}}, '{"', [b"\x01"], [], None),  # a closed object
])
def test_json_differences(schema, text, only_engine, only_refimpl, expected):
    vocab = load_builtin("bytes")
    prefix = list(text.encode())
    ids = [[vocab.tokens.index(b) for b in side] for side in (only_engine, only_refimpl)]
    assert known(GrammarSpec("json_schema", schema=schema), vocab, prefix, *ids) == expected


def test_json_differences_after_the_peer_fails():
    vocab = load_builtin("bytes")
    const = GrammarSpec("json_schema", schema={"const": 0})
    eos = vocab.eos_token_ids[0]
    d = Divergence(const, vocab, [], 0, [eos], [ord("0")], note="parser-error: Unknown LMFormatEnforcer Problem")
    assert BACKEND.classify(d).name == "non-string-const"
    d.note = None
    assert BACKEND.classify(d) is None
    # a vocabulary that cannot write 0: EOS is the only difference
    d = Divergence(const, vocab, [], 0, [eos], [], note="parser-error: Unknown LMFormatEnforcer Problem")
    assert BACKEND.classify(d).name == "non-string-const"
    # an enum of a string and a number: its get_parser raises
    note = ("parser-error: Unknown LMFormatEnforcer Problem. Prefix: '' "
            "(Exception: Unsupported enum type ['red', 7])")
    mixed = GrammarSpec("json_schema", schema={"enum": ["red", 7]})
    d = Divergence(mixed, vocab, [], 0, [eos], [ord('"')], note=note)
    assert BACKEND.classify(d).name == "mixed-enum"
    d.grammar = GrammarSpec("json_schema", schema={"enum": ["red", "blue"]})
    assert BACKEND.classify(d) is None
    # null in an enum under "type": "string": its string parser calls startswith on it
    note = ("parser-error: Unknown LMFormatEnforcer Problem. Prefix: '' "
            "(AttributeError: 'NoneType' object has no attribute 'startswith')")
    typed = GrammarSpec("json_schema", schema={"type": "string", "enum": [None, "a"]})
    d = Divergence(typed, vocab, [], 0, [eos], [ord('"')], note=note)
    assert BACKEND.classify(d).name == "mixed-enum"
    d.grammar = GrammarSpec("json_schema", schema={"type": "string", "enum": ["b", "a"]})
    assert BACKEND.classify(d) is None
    # oneOf options without properties under an object with properties: its merge raises
    merge = {"type": "object", "properties": {"a": {"type": "integer"}},
             "oneOf": [{"$ref": "#/definitions/b"}], "definitions": {"b": {"type": "object"}}}
    note = ("parser-error: Unknown LMFormatEnforcer Problem. Prefix: '' "
            "(TypeError: argument of type 'NoneType' is not iterable)")
    d = Divergence(GrammarSpec("json_schema", schema=merge), vocab, [], 0, [eos], [ord("{")], note=note)
    assert BACKEND.classify(d).name == "one-of-merge"
    d.note = note.replace("TypeError", "ValueError")
    assert BACKEND.classify(d) is None
    # é begins no token of this vocabulary (it comes only after x)
    person = GrammarSpec("json_schema", schema={"type": "object", "properties": {"name": {"type": "string"}}})
    v = Vocabulary([b'{"name": "', b"x\xc3\xa9", b"a", b" ", b"\"", b"</s>"], eos_token_ids=[5])
    assert known(person, v, [0, 1], [3], [2, 4]) == "character-outside-alphabet"
    assert known(person, v, [0, 2], [3], [2, 4]) is None


def test_min_length_alphabet():
    v = Vocabulary([b'"', b"\xc3\xa9", b"a", b'"\xc3\xa9', b'"a', b"</s>"], eos_token_ids=[5])
    short = GrammarSpec("json_schema", schema={"type": "string", "minLength": 1})
    assert known(short, v, [], [], [3]) == "min-length-alphabet"  # "é opens the string
    assert known(short, v, [], [], [4]) is None  # a is in the default alphabet
    assert known(short, v, [0], [], [1]) is None  # é once the string is open: lm-format-enforcer allows it
    assert known(GrammarSpec("json_schema", schema={"type": "string"}), v, [], [], [3]) is None


def test_string_alphabet():
    """A string under anyOf is walked character by character, with the tokenizer alphabet:
    xé is refused (é begins no token), x is not."""
    v = Vocabulary([b'"', b"x", b"x\xc3\xa9", b"a", b"</s>"], eos_token_ids=[4])
    strings = GrammarSpec("json_schema", schema={"anyOf": [{"type": "string"}, {"type": "string"}]})
    assert known(strings, v, [0], [], [2]) == "string-alphabet"
    assert known(strings, v, [0], [], [1]) is None
    with_e = Vocabulary(v.tokens[:4] + [b"\xc3\xa9", b"</s>"], eos_token_ids=[5])
    assert known(strings, with_e, [0], [], [2]) is None  # é begins a token here


UNTYPED = {"type": "array", "items": {"properties": {"a": {"type": "string"}}}}  # items without a type
NULL_OR_STRING = {"type": "object", "properties": {"d": {"oneOf": [{"type": "null"}, {"type": "string"}]}}}
OBJECT_OR_NULL = {"type": ["object", "null"], "properties": {"a": {"type": "integer"}}, "required": ["a"]}
URL = {"type": "string", "pattern": "^https?://"}
ALL_OF_REF = {"allOf": [{"$ref": "#/definitions/base"}, {"type": "object", "properties": {"b": {"type": "integer"}}}],
              "definitions": {"base": {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}}}
ALL_OF_OBJECTS = {"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}},
                            {"type": "object", "properties": {"b": {"type": "integer"}}}]}
REF_BESIDE = {"type": "object", "$ref": "#/definitions/c", "properties": {"p": {"type": "integer"}},
              "definitions": {"c": {"type": "object", "properties": {"c": {"type": "integer"}}}}}
# oneOf options that refimpl proves exclusive only while they are open (the reading closes them)
EXCLUSIVE = {"type": "object", "required": ["n"], "properties": {"n": {"type": "string"}},
             "oneOf": [{"required": ["i"], "properties": {"i": {"type": "string"}}},
                       {"required": ["v"], "properties": {"v": {"const": False}}}]}
# `b` is required and no property: lm-format-enforcer offers only "a" and never lets the object end
UNLISTED = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a", "b"]}
LISTED = dict(UNLISTED, required=["a"])
STRING_ONE_OF = {"type": "string", "oneOf": [{"minLength": 2}, {"maxLength": 4}]}
UNEVALUATED = {"type": "object", "unevaluatedProperties": False}
INNER_UNLISTED = {"type": "object", "properties": {"x": UNLISTED, "y": {"type": "object", "properties": {}}}}


def test_untyped_subschema():
    """A subschema without type (nor anyOf, $ref, ...): get_parser raises when it reaches it."""
    vocab = load_builtin("bytes")
    eos = vocab.eos_token_ids[0]
    session = BACKEND.start(GrammarSpec("json_schema", schema=UNTYPED), vocab)
    # its token walk reads `[` and makes the item parser: it raises there, and allows EOS alone
    assert sorted(set(session.allowed())) == [eos] and "(Exception: Unsupported type None)" in session.note
    d = Divergence(GrammarSpec("json_schema", schema=UNTYPED), vocab, [], 0, [eos], [ord("[")], note=session.note)
    assert BACKEND.classify(d).name == "untyped-subschema"
    d.grammar = GrammarSpec("json_schema", schema={"type": "array", "items": {"type": "object"}})
    assert BACKEND.classify(d) is None  # every subschema has a type
    d.grammar, d.note = GrammarSpec("json_schema", schema=UNTYPED), session.note.replace("None", "'x'")
    assert BACKEND.classify(d) is None


@pytest.mark.parametrize("schema, text, only_engine, only_refimpl, expected", [
    (NULL_OR_STRING, '{"d": ', [b"{"], [b"n", b'"'], "one-of-objects"),  # every option read as an object
    (NULL_OR_STRING, '{"d": ', [b"["], [b"n", b'"'], None),  # an array is no object
    # an option that is an object's schema: lm-format-enforcer's reading, not the bug
    ({"type": "object", "properties": {"d": {"oneOf": [{"type": "object"}]}}}, '{"d": ', [b"{"], [], "json-reading"),
    (OBJECT_OR_NULL, "{", [b"}"], [], "type-list"),  # {} of any object: `required` dropped
    (OBJECT_OR_NULL, "{", [b"]"], [], None),
    (dict(OBJECT_OR_NULL, type="object"), "{", [b"}"], [], None),  # no type list
    (URL, '"https://', [], [b"x"], "whole-string-pattern"),  # only the closing quote after https://
    (URL, '"https://', [], [b'"'], None),  # the closing quote is lm-format-enforcer's too
    (dict(URL, pattern="^https?://.*"), '"https://', [], [b"x"], None),  # the pattern takes x
    (REF_BESIDE, '{"', [b"p"], [], "ref-beside-keywords"),  # the definition's "c" is refused, "p" taken
    (REF_BESIDE, '{"', [b"x"], [], None),
    (ALL_OF_REF, "{", [b"}"], [], "all-of-last-part"),  # the $ref part (and its required "a") dropped
    (ALL_OF_REF, "{", [b"]"], [], None),
    (ALL_OF_OBJECTS, '{"b": 1, "', [b"a"], [], "json-reading"),  # one object: its parts' properties merged
    (ALL_OF_OBJECTS, '{"b": 1, "', [b"c"], [], None),
    ({"type": "object", "required": ["r"]}, '{"', [b"x"], [], "json-reading"),  # any key first, r checked at }
    ({"type": "object", "properties": {"r": {}}, "required": ["r"]}, '{"', [b"x"], [], None),  # closed
    (EXCLUSIVE, "", [b" "], [], "json-reading"),  # the reading compiles: its oneOf is an anyOf
    (EXCLUSIVE, "", [b"x"], [], None),
    # a oneOf beside type string is never read (get_parser takes the string first)
    (STRING_ONE_OF, '"fo', [b'"'], [], "one-of-objects"),  # "fo" is valid under both options
    (dict(STRING_ONE_OF, type="object"), '{"', [b"x"], [b"a"], None),
    # unevaluatedProperties is not read: an object without properties takes any key
    (UNEVALUATED, '{"', [b"x"], [], "json-reading"),
    (UNEVALUATED, '{"', [b"x"], [b"}"], None),  # the reading allows } too
    # a required name its properties do not name (E24): the object is read as it reads it (the
    # listed keys, never ending), so whitespace before it is its JSON's; its bug is the comma it
    # refuses before the required key
    (UNLISTED, "", [b" ", b"\t"], [], "json-reading"),
    (UNLISTED, "", [b" ", b"x"], [], None),
    (UNLISTED, '{"a": 1', [], [b","], "required-outside-properties"),
    (UNLISTED, '{"a": 1', [b"}"], [b","], None),  # it never lets the object end
    (LISTED, '{"a": 1', [], [b","], "json-reading"),  # no key left to write: its closed objects
    (LISTED, '{"a": 1', [], [b"}"], None),  # that object may end
    (INNER_UNLISTED, '{"x": {"a": 1', [], [b","], "required-outside-properties"),
    (INNER_UNLISTED, '{"y": {', [], [b"}"], None),  # that object may end
])
def test_json_dispatch_differences(schema, text, only_engine, only_refimpl, expected):
    test_json_differences(schema, text, only_engine, only_refimpl, expected)


def test_enum_python_spelling_after_whitespace():
    v = Vocabulary([b" T", b" t", b"T", b" Tx", b"</s>"], eos_token_ids=[4])
    rules = GrammarSpec("json_schema", schema={"enum": [2, True, False]})
    assert known(rules, v, [], [0], [1]) == "enum-python-spelling"  # ` True` at the start of the value
    assert known(rules, v, [], [3], [1]) is None  # Tx begins no value
    assert known(GrammarSpec("json_schema", schema={"enum": [2, 3]}), v, [], [0], [1]) is None


def test_pattern_syntax():
    """ECMA-262's named group: interegular raises when the string's parser is made."""
    vocab = load_builtin("bytes")
    eos = vocab.eos_token_ids[0]
    named = {"type": "object", "properties": {"v": {"type": "string", "pattern": "^(?<a>x)$"}}}
    session = BACKEND.start(GrammarSpec("json_schema", schema=named), vocab)
    prefix = list(b'{"v"')
    assert all(session.consume(t) for t in prefix)
    assert sorted(set(session.allowed())) == [eos] and "(InvalidSyntax: " in session.note  # its walk reads `:`
    d = Divergence(GrammarSpec("json_schema", schema=named), vocab, prefix, len(prefix), [eos], [ord(":")],
                   note=session.note)
    assert BACKEND.classify(d).name == "pattern-syntax"
    python = {"type": "object", "properties": {"v": {"type": "string", "pattern": "^(?P<a>x)$"}}}
    d.grammar = GrammarSpec("json_schema", schema=python)  # a pattern interegular reads
    assert BACKEND.classify(d) is None


RECURSIVE = {"type": "object", "properties": {"next": {"$ref": "#"}}, "definitions": {"x": {"type": "string"}}}
PAIR = {"type": "object", "properties": {"p": {"$ref": "#/definitions/pair"}},
        "definitions": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "string"}]}}}


@pytest.mark.parametrize("schema, raised, expected, near_miss", [
    (RECURSIVE, "(KeyError: '#')", "ref-by-last-segment", {"type": "object", "properties": {"next": {"$ref": "#/definitions/x"}},
                                    "definitions": {"x": {"type": "string"}}}),
    (PAIR, "(AttributeError: 'list' object has no attribute 'get')", "tuple-items",
     {"type": "object", "properties": {"p": {"$ref": "#/definitions/pair"}},
      "definitions": {"pair": {"type": "array", "items": {"type": "string"}}}}),
])
def test_definitions_it_cannot_reach(schema, raised, expected, near_miss):
    """A `$ref` to the root, a definition with tuple items: it raises when the walk reads `:`."""
    vocab = load_builtin("bytes")
    eos = vocab.eos_token_ids[0]
    key = list(('{"%s"' % next(iter(schema["properties"]))).encode())
    session = BACKEND.start(GrammarSpec("json_schema", schema=schema), vocab)
    assert all(session.consume(t) for t in key)
    assert sorted(set(session.allowed())) == [eos] and raised in session.note
    d = Divergence(GrammarSpec("json_schema", schema=schema), vocab, key, len(key), [eos], [ord(":")],
                   note=session.note)
    assert BACKEND.classify(d).name == expected
    d.grammar = GrammarSpec("json_schema", schema=near_miss)
    assert BACKEND.classify(d) is None


def test_true_subschema():
    """`items: true`: its walk reads `[` and get_parser raises on the boolean schema; EOS alone."""
    vocab = load_builtin("bytes")
    eos = vocab.eos_token_ids[0]
    spec = GrammarSpec("json_schema", schema={"type": "array", "items": True})
    session = BACKEND.start(spec, vocab)
    assert sorted(set(session.allowed())) == [eos] and "'bool' object has no attribute 'anyOf'" in session.note
    d = Divergence(spec, vocab, [], 0, [eos], [ord("[")], note=session.note)
    assert BACKEND.classify(d).name == "true-subschema"
    d.grammar = GrammarSpec("json_schema", schema={"type": "array", "items": {}})  # no boolean schema
    assert BACKEND.classify(d) is None


def test_pattern_with_length():
    """lm-format-enforcer's own exception for a string with a pattern and a length: the mask raises it."""
    from lmformatenforcer.exceptions import LMFormatEnforcerException

    vocab = load_builtin("bytes")
    both = {"type": "object", "properties": {"v": {"type": "string", "pattern": "^x+$", "minLength": 1}}}
    session = BACKEND.start(GrammarSpec("json_schema", schema=both), vocab)
    key = list(b'{"v"')
    assert all(session.consume(t) for t in key)
    with pytest.raises(LMFormatEnforcerException) as raised:
        session.allowed()  # its walk reads `:` and makes the string's parser
    error = "mask: RuntimeError: LMFormatEnforcerException: %s" % raised.value  # as Isolated reports it
    d = Divergence(GrammarSpec("json_schema", schema=both), vocab, key, len(key), [], [], error=error)
    assert BACKEND.classify(d).name == "pattern-with-length"
    d.grammar = GrammarSpec("json_schema", schema={"type": "object", "properties": {
        "v": {"type": "string", "pattern": "^x+$"}, "w": {"type": "string", "minLength": 1}}})
    assert BACKEND.classify(d) is None  # pattern and length on different strings


def test_any_key_order_after_a_value():
    """`",` ends the last property in the schema's order and goes on: another may follow in any order."""
    v = Vocabulary([b'{"b": "', b'",', b'"}', b"</s>"], eos_token_ids=[3])
    two = GrammarSpec("json_schema", schema={"type": "object", "properties": {"a": {"type": "string"},
                                                                               "b": {"type": "string"}}})
    assert known(two, v, [0], [1], []) == "any-key-order"
    one = GrammarSpec("json_schema", schema={"type": "object", "properties": {"b": {"type": "string"}}})
    assert known(one, v, [0], [1], []) is None  # no property is left to follow
