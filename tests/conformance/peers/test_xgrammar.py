"""xgrammar as an engine under test (conformance/peers/xgrammar/): each known difference's
predicate recognises its difference and refuses a near miss, and what xgrammar cannot run
is refused before touching it (these run without xgrammar); and, where xgrammar is
installed, the suite against it has no unexplained disagreement."""
import pytest

from conformance.divergence import Divergence
from conformance.peers.xgrammar.differences import KNOWN_DIFFERENCES
from conformance.peers.xgrammar.reading import as_macro, json_options
from conformance.registry import get_engine
from conformance.vectors import GrammarSpec, NotSupported, load_builtin
from refimpl import Vocabulary

B = load_builtin("bytes")


def ids(text):
    return list(text.encode("utf-8"))


def known():
    return {k.name: k for k in KNOWN_DIFFERENCES}


def test_regex_dialect():
    k = known()["regex-dialect"]
    date = GrammarSpec("regex", r"\d{2}")
    assert k.applies(Divergence(date, B, [], 0, [], [0xD9]))  # an Arabic-Indic digit begins with D9
    assert not k.applies(Divergence(date, B, [], 0, [], [ord("1")]))
    dot = GrammarSpec("regex", r'"(\\.)*"')
    assert k.applies(Divergence(dot, B, ids('"\\'), 2, [ord("\n")], []))
    assert not k.applies(Divergence(dot, B, ids('"\\'), 2, [ord("\n")], [ord("a")]))
    space = GrammarSpec("regex", r"a\sb")
    nbsp = Vocabulary.from_bytes([b"a", b"\xc2\xa0", b"b", b"<eos>"], eos_token_id=3)
    assert k.applies(Divergence(space, nbsp, [0], 1, [1], []))  # compile_regex's \s holds U+00A0
    posix = GrammarSpec("regex", "[[:digit:]]+")  # compile_regex: the class of `[:digt` and `]+`
    assert k.applies(Divergence(posix, B, [], 0, [ord(c) for c in "[:dgit"], [ord(c) for c in "013456789"]))
    assert not k.applies(Divergence(posix, B, [], 0, [], [ord("[")]))  # `[` is in its class
    assert not k.applies(Divergence(posix, B, [], 0, [ord("]")], []))  # `]` comes only after the class


def test_as_macro_rewrites_s_and_brackets():
    assert as_macro(r"[\s\d]\s\\s") == r"[\t-\r \u00a0\d][\t-\r \u00a0]\\s"
    assert as_macro(r"[^\S]") is None
    assert as_macro(r"[]\s]") == r"[\]\t-\r \u00a0]"
    assert as_macro(r"a][[b]") == r"a\][\[b]"  # a `]` outside a class is itself; classes do not nest


def test_json_string_spelling():
    k = known()["json-string-spelling"]
    s = GrammarSpec("json_schema", schema={"type": "string"})
    assert k.applies(Divergence(s, B, ids('"a'), 2, [0x7F], []))
    assert k.applies(Divergence(s, B, ids('"a\\'), 3, [ord("/")], []))
    assert k.applies(Divergence(s, B, ids('"a\\ud8'), 5, [ord("0")], []))
    assert not k.applies(Divergence(s, B, ids('"a'), 2, [0x1F], []))  # a raw control character
    assert not k.applies(Divergence(s, B, ids('"a\\'), 3, [ord("x")], []))
    assert not k.applies(Divergence(s, B, ids('"a'), 2, [0x7F], [ord("b")]))


def test_length_bounded_strings():
    k = known()["length-bounded-strings"]
    s = GrammarSpec("json_schema", schema={"type": "string", "maxLength": 3})
    assert k.applies(Divergence(s, B, ids('"'), 1, [0x01, 0x1F], [ord("\\")]))
    assert not k.applies(Divergence(s, B, ids('"'), 1, [ord("\n")], [ord("\\")]))
    assert not k.applies(Divergence(s, B, ids('"'), 1, [0x01], [ord("a")]))
    plain = GrammarSpec("json_schema", schema={"type": "string"})
    assert not k.applies(Divergence(plain, B, ids('"'), 1, [0x01], [ord("\\")]))


def test_six_fraction_digits():
    k = known()["six-fraction-digits"]
    s = GrammarSpec("json_schema", schema={"type": "number", "maximum": 5})
    assert k.applies(Divergence(s, B, ids("1.123456"), 8, [], [ord("7")]))
    assert not k.applies(Divergence(s, B, ids("1.12345"), 7, [], [ord("6")]))
    unbounded = GrammarSpec("json_schema", schema={"type": "number"})
    assert not k.applies(Divergence(unbounded, B, ids("1.123456"), 8, [], [ord("7")]))


def test_no_negative_zero():
    k = known()["no-negative-zero"]
    s = GrammarSpec("json_schema", schema={"type": "integer"})
    assert k.applies(Divergence(s, B, ids("-"), 1, [], [ord("0")]))
    assert not k.applies(Divergence(s, B, ids("-"), 1, [], [ord("1")]))
    assert not k.applies(Divergence(s, B, ids("1"), 1, [], [ord("0")]))


def test_surrogates():
    k = known()["surrogates-as-utf8"]
    s = GrammarSpec("regex", r"([^\x00-\x7F])*")
    assert k.applies(Divergence(s, B, [0xED], 1, [0xA0, 0xBF], []))
    assert not k.applies(Divergence(s, B, [0xED], 1, [0xC0], []))  # not a continuation byte at all
    assert not k.applies(Divergence(s, B, [0xE0], 1, [0x80], []))  # an overlong form, not a surrogate


def test_crash_on_left_recursion():
    k = known()["crash-on-left-recursion"]
    error = "start: PeerCrash: the peer's process died during start (exit code -11)"
    left = GrammarSpec("gbnf", 'root ::= "a"\nr1 ::= r1{1,2}\n')
    assert k.applies(Divergence(left, B, [], 0, [], [], error=error))
    right = GrammarSpec("gbnf", 'root ::= "a"\nr1 ::= "b" r1?\n')
    assert not k.applies(Divergence(right, B, [], 0, [], [], error=error))
    assert not k.applies(Divergence(left, B, [], 0, [], [], error="start: RuntimeError: boom"))


def test_unproductive_rules():
    k = known()["unproductive-rules-as-empty"]
    g = GrammarSpec("ebnf", 'root ::= "a"* r2 "a" | "a"\nr2 ::= r2\n', options={"dialect": "xgrammar"})
    aaa = Vocabulary.from_bytes([b"a", b"aaa", b"b", b"<eos>"], eos_token_id=3)
    assert k.applies(Divergence(g, aaa, [], 0, [1], []))
    assert not k.applies(Divergence(g, aaa, [], 0, [2], []))
    productive = GrammarSpec("ebnf", 'root ::= "a"* r2 "a" | "a"\nr2 ::= "b"\n', options={"dialect": "xgrammar"})
    assert not k.applies(Divergence(productive, aaa, [], 0, [1], []))


def test_eos_before_exclude_token():
    """xgrammar reads EOS as the end only: refused where the output may not end, and the
    end where it may (refimpl reads it as ExcludeToken's token and goes on)."""
    k = known()["eos-before-exclude-token"]
    v = Vocabulary.from_bytes([b"a", b"b", b"c", b"<eos>"], eos_token_id=3)
    one = GrammarSpec("ebnf", 'root ::= "a" ExcludeToken(1) "b"\n', options={"dialect": "xgrammar"})
    assert k.applies(Divergence(one, v, [0], 1, [], [3]))
    assert not k.applies(Divergence(one, v, [0], 1, [], [2, 3]))  # not EOS alone
    assert not k.applies(Divergence(one, v, [0], 1, [3], []))
    loop = GrammarSpec("ebnf", 'root ::= "a" ExcludeToken(1)*\n', options={"dialect": "xgrammar"})
    assert k.applies(Divergence(loop, v, [0, 2, 3], 3, [], [0, 2, 3]))  # xgrammar ended at that EOS
    assert not k.applies(Divergence(loop, v, [0, 2], 2, [], [3]))  # the output may end: EOS is the end
    plain = GrammarSpec("ebnf", 'root ::= "a" Token(0, 2) "b"\n', options={"dialect": "xgrammar"})
    assert not k.applies(Divergence(plain, v, [0], 1, [], [3]))


def test_pattern_without_escapes():
    k = known()["pattern-without-escapes"]
    s = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^[^a-c]+$"})
    assert k.applies(Divergence(s, B, ids('"'), 1, [], [ord("\\")]))
    assert not k.applies(Divergence(s, B, ids('"'), 1, [], [ord("d")]))
    plain = GrammarSpec("json_schema", schema={"type": "string"})
    assert not k.applies(Divergence(plain, B, ids('"'), 1, [], [ord("\\")]))
    tab = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^\\t$"})
    assert k.applies(Divergence(tab, B, ids('"'), 1, [ord("\t")], [ord("\\")]))  # the pattern's tab written raw
    assert not k.applies(Divergence(tab, B, ids('"'), 1, [ord("a")], [ord("\\")]))  # no control character


def test_json_whitespace():
    """Whitespace between JSON's tokens, not a raw tab or newline inside a string."""
    k = known()["json-whitespace"]
    s = GrammarSpec("json_schema", schema={"type": "object", "properties": {"a": {"type": "string"}}})
    assert k.applies(Divergence(s, B, ids('{"a":'), 5, [ord("\t"), ord("\n")], []))
    assert k.applies(Divergence(s, B, ids('{"a":'), 5, [], [ord(" ")]))
    assert not k.applies(Divergence(s, B, ids('{"a": "x'), 8, [ord("\t")], []))  # inside the string
    assert not k.applies(Divergence(s, B, ids('{"a'), 3, [ord("\n")], []))  # inside the key


def test_no_answer_on_left_recursion():
    k = known()["no-answer-on-left-recursion"]
    timeout = "mask: PeerTimeout: no answer to mask within 30 s"
    left = GrammarSpec("gbnf", 'root ::= root "a" | "b"\n')
    assert k.applies(Divergence(left, B, [], 0, [], [], error=timeout))
    assert not k.applies(Divergence(GrammarSpec("gbnf", 'root ::= "b" root?\n'), B, [], 0, [], [], error=timeout))


def test_json_options():
    assert json_options({}) == {"any_whitespace": True, "separators": (",", ":")}
    assert json_options({"whitespace_flexible": False, "item_separator": ", "}) == {
        "any_whitespace": False, "separators": (", ", ":")}
    with pytest.raises(NotSupported, match="whitespace_pattern"):
        json_options({"whitespace_pattern": " ?"})


def test_suite_against_xgrammar(tmp_path):
    """Every disagreement with xgrammar on the default suite is a declared difference."""
    pytest.importorskip("xgrammar")
    from conformance.generate import SUITE_DIR
    from conformance.runner import run_suite

    report = run_suite(get_engine("xgrammar"), SUITE_DIR, str(tmp_path), quiet=True)
    assert report.total()["agree"] > 100 and not report.failures()


def _obj(schema, text, only_b=(), only_r=(), vocab=B):
    return Divergence(GrammarSpec("json_schema", schema=schema), vocab, ids(text), len(ids(text)),
                      list(only_b), list(only_r))


ANY_START = [ord(c) for c in '"-0123456789[ftn']  # the bytes that begin a JSON value other than an object


def test_untyped_object_keywords():
    k = known()["untyped-object-keywords"]
    s = {"properties": {"a": {"type": "string"}}}
    assert k.applies(_obj(s, "", only_r=ANY_START))  # xgrammar: objects only
    assert not k.applies(_obj(s, "", only_r=ANY_START + [ord("{")]))
    assert not k.applies(_obj({"type": "object", "properties": {"a": {}}}, "", only_r=ANY_START))


def test_allof_as_any():
    k = known()["allof-as-any"]
    s = {"allOf": [{"type": "object"}, {"type": "object"}]}
    assert k.applies(_obj(s, "", only_b=ANY_START))
    assert not k.applies(_obj(s, "{", only_b=[ord("1")]))  # not a key
    assert not k.applies(_obj({"allOf": [{"type": "object"}]}, "", only_b=ANY_START))


def test_one_keyword_per_schema():
    k = known()["one-keyword-per-schema"]
    s = {"type": "string", "enum": [None, "a"]}
    assert k.applies(_obj(s, "", only_b=[ord("n")]))
    assert not k.applies(_obj(s, "", only_b=[ord("1")]))
    assert not k.applies(_obj({"enum": [None, "a"]}, "", only_b=[ord("n")]))


def test_ref_siblings_ignored():
    k = known()["ref-siblings-ignored"]
    s = {"definitions": {"e": {"type": "object"}}, "type": "object",
         "properties": {"a": {"$ref": "#/definitions/e", "properties": {"c": {"type": "object"}}}}}
    text = '{"a": {"c": '
    assert k.applies(_obj(s, text, only_b=[ord("1"), ord('"')]))  # `c` is any other member for xgrammar
    assert not k.applies(_obj(s, text, only_b=[ord("}")]))
    assert not k.applies(_obj(s, '{"a": ', only_b=[ord("1")]))


def test_oneof_as_anyof():
    k = known()["oneof-as-anyof"]
    s = {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]}
    assert k.applies(_obj(s, "", only_b=[ord("1")]))  # 1 is valid under both options
    assert not k.applies(_obj(s, "", only_b=[ord("a")]))


def test_untyped_keywords_unread():
    k = known()["untyped-keywords-unread"]
    s = {"type": "array", "items": {"required": ["file"]}}
    assert k.applies(_obj(s, '[{"', only_b=[ord("x")]))  # xgrammar: any object, `file` not required
    assert not k.applies(_obj(s, '[{"', only_b=[ord("x"), 0x01]))  # a raw control character
    assert not k.applies(_obj({"type": "array", "items": {"type": "object", "required": ["file"]}}, '[{"',
                              only_b=[ord("x")]))


def test_a_reading_that_only_completes_another():
    """Alone, untyped-any changes nothing in a typed schema; after one-keyword (only oneOf
    read) its options are untyped and read as any value (MaskBench, Github_easy o68296)."""
    k = known()["untyped-keywords-unread"]
    s = {"type": "object", "properties": {"a": {"type": "string"}}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}
    assert k.applies(_obj(s, '{"', only_b=[ord("x")]))  # refimpl: the key must be a or b
    assert not k.applies(_obj(s, '{"', only_r=[ord("a")]))
    assert not k.applies(_obj(dict(s, oneOf=[{"type": "object", "required": ["a"]}]), '{"', only_b=[ord("x")]))


def test_reading_with_string_spelling():
    """A token that needs both the reading and xgrammar's own spelling of strings."""
    k = known()["untyped-keywords-unread"]
    s = {"type": "array", "items": {"required": ["file"]}}
    assert k.applies(_obj(s, '[{"', only_b=[0x7F]))  # a raw DEL in a key of an unread schema's object


def test_format_regexes():
    k = known()["format-regexes"]
    date = {"type": "string", "format": "date"}
    assert k.applies(_obj(date, '"2024-02-', only_b=[ord("3")]))  # February 30
    assert not k.applies(_obj(date, '"2024-02-', only_b=[ord("4")]))
    uri = {"type": "string", "format": "uri"}
    assert k.applies(_obj(uri, '"http', only_r=[ord("2")]))  # a scheme with a digit
    assert not k.applies(_obj(uri, '"http', only_r=[ord("s")]))
    assert not k.applies(_obj({"type": "string"}, '"2024-02-', only_b=[ord("3")]))


def test_format_regexes_email():
    k = known()["format-regexes"]
    email = {"type": "string", "format": "email"}
    assert k.applies(_obj(email, '"a@', only_r=[ord("[")]))  # an address literal (MaskBench o36641)
    assert k.applies(_obj(email, '"a@b.c', only_r=[ord('"')]))  # a one-character label after a dot
    assert not k.applies(_obj(email, '"a@', only_r=[ord("b")]))


def test_multipleof_unread():
    k = known()["multipleof-unread"]
    half = {"type": "number", "multipleOf": 0.5}
    assert k.applies(_obj(half, "1.", only_b=[ord("2")]))
    assert not k.applies(_obj(half, "1.", only_b=[ord("a")]))
    assert not k.applies(_obj(dict(half, type="integer", multipleOf=2), "1", only_b=[ord("2")]))  # enforced
    wide = {"type": "integer", "multipleOf": 2, "minimum": 0, "maximum": 10000}  # 10,001 integers: unread
    assert k.applies(_obj(wide, "1", only_b=[ord("1")]))
    assert not k.applies(_obj(dict(wide, maximum=9999), "1", only_b=[ord("1")]))


def test_required_outside_properties():
    k = known()["required-outside-properties"]
    s = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a", "b"]}
    assert k.applies(_obj(s, '{"a":1', only_b=[ord("}")]))  # Github_hard o84348: `b` not required
    assert not k.applies(_obj(s, '{"a":1', only_b=[ord("]")]))
    assert not k.applies(_obj(dict(s, required=["a"]), '{"a":1', only_b=[ord("}")]))


def test_required_outside_properties_meets_other_readings():
    """MaskBench Github_medium o57539: the root is read as its `oneOf` alone
    (one-keyword-per-schema), whose option requires a name it has no `properties` for: any
    object; the `required` reading completes the explanation, so it is credited."""
    k = known()["required-outside-properties"]
    s = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
         "additionalProperties": False, "oneOf": [{"type": "object", "required": ["b"]}]}
    assert k.applies(_obj(s, '{"', only_b=[ord("x")]))  # refimpl: a or b
    assert not known()["one-keyword-per-schema"].applies(_obj(s, '{"', only_b=[ord("x")]))
    assert not k.applies(_obj(s, '{"', only_b=[0x01]))  # a raw control character: no reading allows it


def test_named_property_first():
    """MaskBench Github_medium o85190: with `required` naming none of the properties, the
    object must begin with a named one (`{"b": 1}` refused), and `b` is not required."""
    k = known()["named-property-first"]
    s = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["b"]}
    assert k.applies(_obj(s, '{"', only_r=[ord("b")]))  # after `{"` xgrammar: only `a`
    assert not k.applies(_obj(s, '{"', only_r=[ord("a")]))
    assert not k.applies(_obj(dict(s, required=["a", "b"]), '{"', only_r=[ord("b")]))  # `a` required: `a` first anyway
    assert not k.applies(_obj(dict(s, required=[]), '{"', only_r=[ord("b")]))
    # with one-keyword-per-schema: a named property whose `type` contradicts its `enum`
    both = {"type": "object", "properties": {"level": {"enum": [1], "type": "string"}}, "required": ["type"]}
    assert k.applies(_obj(both, '{"', only_b=[ord("l")], only_r=[ord("t")]))


def test_one_string_keyword():
    """Snowplow sp_331 (Tekken): a string's `pattern` beside `maxLength`; a format beside
    both is read alone too."""
    k = known()["one-string-keyword"]
    s = {"type": "string", "pattern": "^a+$", "maxLength": 3}
    assert k.applies(_obj(s, '"aaa', only_b=[ord("a")]))
    assert not k.applies(_obj(s, '"aaa', only_r=[ord('"')]))  # the reading lets the string end there too
    assert not k.applies(_obj(s, '"aaa', only_b=[ord("b")]))
    assert k.applies(_obj(dict(s, minLength=3, maxLength=5), '"a', only_b=[ord('"')]))
    assert k.applies(_obj({"type": "string", "format": "uuid", "pattern": "^0"}, '"', only_b=[ord("1")]))
    assert not k.applies(_obj({"type": "string", "format": "iri", "pattern": "^0"}, '"', only_b=[ord("1")]))


def test_pattern_keys_only():
    k = known()["pattern-keys-only"]
    s = GrammarSpec("json_schema", schema={"type": "object", "patternProperties": {"^_": {}}})
    v = Vocabulary.from_bytes([b"{", b'"', b"_", b"__", b"a", b"<eos>"], eos_token_id=5)
    assert k.applies(Divergence(s, v, [0, 1], 2, [], [3, 4]))  # only `_` itself, whole
    assert not k.applies(Divergence(s, v, [0, 1], 2, [], [2]))  # `_` it allows
    plain = GrammarSpec("json_schema", schema={"type": "object"})
    assert not k.applies(Divergence(plain, v, [0, 1], 2, [], [3, 4]))


def test_whole_string_pattern():
    k = known()["whole-string-pattern"]
    s = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^ab"})
    v = Vocabulary.from_bytes([b'"', b"a", b"b", b"c", b"<eos>"], eos_token_id=4)
    assert k.applies(Divergence(s, v, [0, 1, 2], 3, [], [1, 2, 3]))  # after "ab only the quote
    assert not k.applies(Divergence(s, v, [0, 1, 2], 3, [], [0]))  # the quote it allows
    assert not k.applies(Divergence(s, v, [0, 1, 2], 3, [1], [3]))  # it would refuse `a` too


def test_optional_group_loops():
    """X14: `?` on a group whose first item loops (`b+`) lets the group end after that item;
    on a key's pattern too (patternProperties)."""
    k = known()["optional-group-loops"]
    s = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^a(b+c)?$"})
    assert k.applies(Divergence(s, B, ids('"ab'), 3, [ord('"')], []))  # `ab` ends
    assert not k.applies(Divergence(s, B, ids('"ab'), 3, [ord("d")], []))  # `abd` it refuses too
    assert not k.applies(Divergence(s, B, ids('"a'), 2, [ord("c")], []))  # `ac`: b+ wants a b
    right = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^a(b+c){0,1}$"})
    assert not k.applies(Divergence(right, B, ids('"ab'), 3, [ord('"')], []))  # {0,1} has a fresh start
    keys = GrammarSpec("json_schema", schema={"type": "object", "patternProperties": {
        "^[a-z]([a-z0-9_-]*[a-z])?$": {"type": "boolean"}}, "additionalProperties": False})
    assert k.applies(Divergence(keys, B, ids('{"ng-'), 5, [ord('"')], []))
    assert not k.applies(Divergence(keys, B, ids('{"ng-'), 5, [ord("_")], [ord("a")]))


def test_pattern_classes_ascii():
    k = known()["pattern-classes-ascii"]
    s = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^a\\s*b$"})
    v = Vocabulary.from_bytes([b'"', b"a", "\u00a0".encode(), b" ", b"<eos>"], eos_token_id=4)
    assert k.applies(Divergence(s, v, [0, 1], 2, [], [2]))  # U+00A0 is \s to maskref only
    assert not k.applies(Divergence(s, v, [0, 1], 2, [], [3]))  # a space is \s to both


def test_pattern_dot_any():
    k = known()["pattern-dot-any"]
    s = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^.{0,2}$"})
    assert k.applies(Divergence(s, B, list(b'"\xe2\x80'), 3, [0xA8, 0xA9], []))
    assert not k.applies(Divergence(s, B, ids('"'), 1, [ord("\n")], []))  # a raw newline: never in a string
    near = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^[^a]{0,2}$"})
    assert not k.applies(Divergence(near, B, list(b'"\xe2\x80'), 3, [0xA8], []))


def test_key_without_escapes():
    k = known()["key-without-escapes"]
    s = GrammarSpec("json_schema", schema={"type": "object", "properties": {"a": {"type": "integer"}}})
    assert k.applies(Divergence(s, B, ids('{"a": 1, "x'), 11, [], [ord("\\")]))
    assert not k.applies(Divergence(s, B, ids('{"a": 1, "x": "'), 15, [], [ord("\\")]))  # a value, not a key
    assert not k.applies(Divergence(s, B, ids('{"a": 1, "x'), 11, [], [ord("y")]))


def test_keywords_unread():
    k = known()["keywords-unread"]
    s = GrammarSpec("json_schema", schema={"type": "integer", "if": {"minimum": 5}, "then": {"maximum": 7}})
    assert k.applies(Divergence(s, B, ids("8"), 1, [B.eos_token_ids[0]], []))  # 8 fails then: xgrammar ends
    assert not k.applies(Divergence(s, B, ids("8"), 1, [ord("x")], []))  # no reading allows x
    # draft 4's dependencies (SchemaStore's global.json): rollForward first needs latestMajor
    s = GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"v": {"type": "string"}, "r": {"enum": ["p", "l"]}},
        "dependencies": {"r": {"anyOf": [{"required": ["v"]}, {"properties": {"r": {"const": "l"}}}]}}})
    assert k.applies(Divergence(s, B, ids('{"r": "'), 7, [ord("p")], []))
    assert not k.applies(Divergence(s, B, ids('{"r": "'), 7, [ord("q")], []))


# -- first met on the JSON-Schema-Test-Suite (json_schema_test_suite.py; docs/findings.md, X17)

VALUE_START = [ord(c) for c in '"-0123456789[ftn{']  # the bytes that begin a JSON value


def test_non_pointer_ref_as_any():
    k = known()["non-pointer-ref-as-any"]
    anchor = {"$ref": "#foo", "$defs": {"A": {"$anchor": "foo", "type": "integer"}}}
    integer_start = [ord(c) for c in "-0123456789"]
    assert k.applies(_obj(anchor, "", only_b=[b for b in VALUE_START if b not in integer_start]))
    assert k.applies(_obj({"type": "integer", "$ref": "other.json"}, "", only_b=[ord('"')]))  # siblings unread
    assert not k.applies(_obj(anchor, "", only_r=[ord("1")]))  # any value: the integers too
    pointer = {"$ref": "#/$defs/A", "$defs": {"A": {"type": "integer"}}}
    assert not k.applies(_obj(pointer, "", only_b=[ord('"')]))  # a pointer it resolves


def test_unevaluated_properties_false_unread():
    k = known()["unevaluated-properties-false-unread"]
    s = {"type": "object", "properties": {"foo": {"type": "string"}}, "unevaluatedProperties": False}
    assert k.applies(_obj(s, '{"', only_b=[ord("x")]))  # another key
    assert not k.applies(_obj(s, '{"', only_b=[ord("x")], only_r=[ord("f")]))
    assert not k.applies(_obj(dict(s, unevaluatedProperties={"type": "integer"}), '{"x":', only_b=[ord('"')]))


def test_additional_keys_beside_patterns():
    k = known()["additional-keys-beside-patterns"]
    s = {"type": "object", "properties": {"foo": {"type": "array"}}, "patternProperties": {"x": {"type": "string"}},
         "additionalProperties": {"type": "integer"}}
    assert k.applies(_obj(s, '{"foo":', only_b=[ord("1")]))  # the named key as an additional one
    assert k.applies(_obj(s, '{"x":', only_b=[ord("1")]))  # a pattern's key too
    assert not k.applies(_obj(s, '{"foo":', only_b=[ord("t")]))  # no schema of the key takes true
    closed = dict(s, additionalProperties=False)
    assert not k.applies(_obj(closed, '{"foo":', only_b=[ord("1")]))
    assert not k.applies(_obj({"type": "object", "properties": {"foo": {"type": "array"}},
                               "additionalProperties": {"type": "integer"}}, '{"foo":', only_b=[ord("1")]))


def test_named_keys_by_raw_text():
    k = known()["named-keys-by-raw-text"]
    quoted = {"type": "object", "properties": {'foo"bar': {"type": "number"}}}
    assert k.applies(_obj(quoted, '{"foo\\"bar":', only_b=[ord('"'), ord("t")]))  # an additional key too
    assert not k.applies(_obj(dict(quoted, additionalProperties=False), '{"foo\\"bar":', only_b=[ord('"')]))
    newline = {"type": "object", "properties": {"foo\nbar": {"type": "number"}, "foo\tbar": {}}}
    assert k.applies(_obj(newline, '{"foo', only_b=[ord("\n"), ord("\t")]))  # raw, as in the key's raw text
    assert not k.applies(_obj(newline, '{"foo', only_b=[ord("\r")]))  # no named key has a CR there
    assert not k.applies(_obj(newline, '{"fo', only_b=[ord("\n")]))  # not next in a named key
    assert not k.applies(_obj({"type": "array", "items": {"enum": ["foo\nbar"]}}, '["foo', only_b=[ord("\n")]))
    backslash = {"type": "object", "properties": {"foo\\bar": {"type": "number"}}}
    assert k.applies(_obj(backslash, '{"foo\\', only_b=[ord("x"), ord(" ")]))  # past the key's raw backslash
    assert not k.applies(_obj(backslash, '{"foo\\', only_b=[ord("x")], only_r=[ord("n")]))
    closed = dict(backslash, additionalProperties=False)  # where refimpl takes only the key's own escape
    assert not k.applies(_obj(closed, '{"foo\\', only_b=[ord("n")]))  # an escape: not the trie's
    assert not k.applies(_obj(newline, '{"foo\\', only_b=[ord("x")]))  # no named key has a backslash
    # past the raw backslash, the quote ended the key `foo\` for xgrammar: whitespace may follow
    assert k.applies(_obj(backslash, '{"foo\\"', only_b=[ord("\t"), ord("\n"), ord(" ")]))
    assert not k.applies(_obj(backslash, '{"foo\\"', only_b=[1]))  # a raw U+0001: no whitespace
    assert not k.applies(_obj(newline, '{"foo\\"', only_b=[ord("\t")]))  # no named key has a backslash


def test_const_one_spelling():
    k = known()["const-one-spelling"]
    s = {"enum": ["foo\nbar", "foo\rbar"]}
    assert k.applies(_obj(s, '"foo\\', only_r=[ord("u")]))  # \u000a, the same string
    assert k.applies(_obj({"const": "a\u0001"}, '"a', only_r=[ord("\\")]))
    assert not k.applies(_obj(s, '"foo\\', only_r=[ord("u")], only_b=[ord("t")]))
    assert not k.applies(_obj(s, '"fox', only_r=[ord("\\")]))  # no value begins so
    assert not k.applies(_obj({"type": "string"}, '"foo\\', only_r=[ord("u")]))


def test_special_tokens_are_not_supported():
    """A Lark grammar with special tokens and options is NotSupported, installed or not."""
    with pytest.raises(NotSupported):
        get_engine("xgrammar").start(GrammarSpec("lark", 'start: <think> x </think>\nx[stop=""]: /[a-z]+/\n'),
                                     load_builtin("special"))
