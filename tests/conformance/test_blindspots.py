"""The blind-spot strategies (conformance/blindspots.py) draw what they claim, and the
fuzzer's path selection spells their targets across tokens."""
from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from conformance import blindspots as bs
from conformance.fuzz import Target, _draw_token
from conformance.strategies import VOCAB_MODES, grammar_specs, vocabularies
from refimpl import Grammar, MaskrefError, Matcher, Vocabulary
from tests.support.text_outcome import outcome


@given(bs.multi_eos_vocabularies())
def test_multi_eos_vocabularies_have_several_eos_among_special_tokens(v):
    assert len(v.eos_token_ids) >= 2 and len(set(v.eos_token_ids)) == len(v.eos_token_ids)
    assert set(v.eos_token_ids) <= v.special_token_ids
    assert len(v.special_token_ids) >= 2


def _draws(strategy, n=40):
    """n values of a strategy, drawn with a fixed seed (generation only: a list to make
    claims about a batch, not a property of each value)."""
    out = []

    @seed(0)
    @settings(max_examples=n, database=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(x):
        out.append(x)

    draw()
    return out


def test_multi_eos_places_eos_anywhere_and_shares_texts():
    """Over a batch: an EOS that is not the last id, and a special token whose text is
    also an ordinary token's."""
    vs = _draws(bs.multi_eos_vocabularies())
    assert any(min(v.eos_token_ids) < len(v) - 1 for v in vs)
    assert any(any(v.tokens[s] in {v.tokens[t] for t in range(len(v)) if t not in v.special_token_ids}
                   for s in v.special_token_ids) for v in vs)


@given(bs.slice_boundary_tokens())
def test_slice_boundary_tokens_sit_at_the_slicers_bounds(t):
    assert len(t) in bs.SLICE_LENGTHS
    odd = [i for i, b in enumerate(t) if b not in bs.SAFE]
    assert len(odd) <= 1 and all(i in (0, len(t) - 1, 9, 10, 29, 30) for i in odd)


def test_escape_vocabularies_hold_escape_pieces_and_boundary_runs():
    vs = _draws(bs.escape_vocabularies())
    for v in vs:
        assert v.eos_token_ids == (len(v) - 1,)
    tokens = [t for v in vs for t in v.tokens]
    assert any(t.endswith(b"\\") or t.endswith(b"\\u") or t.endswith(b"\\u00") for t in tokens)  # an escape cut
    assert any(len(t) in (10, 11) and b'"' not in t and b"\\" not in t for t in tokens)
    assert any(len(t) in bs.SLICE_LENGTHS and re.search(rb'["\\]', t) for t in tokens)


def test_unicode_vocabularies_split_multibyte_characters():
    vs = _draws(bs.unicode_vocabularies())
    tokens = [t for v in vs for t in v.tokens]
    ascii_ = {ord(c) for c in bs.UNICODE_CHARS if ord(c) < 0x80}
    assert all(any(b >= 0x80 for b in t) or set(t) <= ascii_ for v in vs for t in v.tokens[:-1])
    split = [t for t in tokens if not _is_utf8(t)]
    assert split, "no token splits a character"
    assert any("ſ".encode() in t or "\u212a".encode() in t for t in tokens)  # case-fold partners of s and k


def _is_utf8(t: bytes) -> bool:
    try:
        t.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


# a word of each terminal body, to find the words two terminals share
PROBES = ["a", "b", "ab", "aab", "abb", "abab", "bb", "aa", "c", "abc"]


def _words(body: str) -> set:
    pattern = re.escape(body[1:-1]) if body.startswith('"') else body[1:-1]
    return {w for w in PROBES if re.fullmatch(pattern, w)}


@given(bs.ambiguous_lark_grammars())
def test_ambiguous_grammars_have_lexemes_ending_on_the_same_bytes(text):
    bodies = re.findall(r"^(?!start)\w+(?:\[lazy\])?: (.*)$", text, re.M)
    assert len(bodies) >= 2
    assert _words(bodies[0]) & _words(bodies[1]), text  # the first two share a word
    Grammar.from_lark(text)  # and the grammar is one refimpl takes


@given(bs.unicode_regexes)
def test_unicode_regexes_use_multibyte_classes_case_folding_or_bytes(r):
    assert any(ord(c) > 0x7F for c in r) or re.search(r"\\[pwds]|\(\?i\)|\\u\{|\.|\(\?s?-u", r), r
    Grammar.from_regex(r)


#: characters the escape schemas aim at: those JSON text must escape (a quote, a backslash,
#: a control character) and those other engines may spell as an escape (`\\/`, `\\uXXXX`)
def aims_at(text):
    return any(c in '"\\/' or ord(c) < 0x20 or ord(c) > 0x7E for c in text)


#: strings that may fit a string schema the strategy draws: its texts, the empty string, an
#: escape alone and after a letter, the escape pattern's unit
CANDIDATES = bs.ESCAPE_STRINGS + ["", "\\", '"', "\n", "a\\", 'a"', "\\u1234"]


def instances(schema):
    """Candidate instances of a drawn schema: each candidate string as the string, as the
    array's one item, as the object's required property's value (alone, with the other
    properties, with a key that needs an escape)."""
    values = CANDIDATES + list(schema.get("enum", [])) + ([schema["const"]] if "const" in schema else [])
    if schema.get("type") == "array":
        inner = instances(schema["items"])
        return [[v] for v in inner] + [[]]
    if schema.get("type") == "object":
        key, keys = schema["required"][0], list(schema["properties"])
        inner = instances(schema["properties"][key])
        return [dict({key: v}, **o) for v in inner for o in ({}, dict.fromkeys(keys, v), {"\\": 0})]
    return values


def strings(value):
    """The keys and strings of a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k] + strings(v)]
    return []


def near_miss(schema):
    """The strategy's near misses, kept on purpose, whose strings meet no escape: a string
    bounded to be empty (maxLength 0: lm-format-enforcer's max-length-zero), `x y` alone,
    each inside an array or a closed object whose keys are `x y`."""
    if schema.get("type") == "array":
        return near_miss(schema["items"])
    if schema.get("type") == "object":
        return not schema["additionalProperties"] and set(schema["properties"]) == {"x y"} and near_miss(
            schema["properties"]["x y"])
    return schema.get("maxLength") == 0 or schema.get("const") == "x y" or schema.get("enum") == ["x y"]


@given(bs.escape_json_schemas())
def test_escape_schemas_meet_escapes(schema):
    """escape_json_schemas' claim: refimpl's grammar for the schema accepts an instance whose
    keys or strings meet an escape the strategy aims at (its near misses aside, which meet
    none)."""
    g = Grammar.from_json_schema(schema)
    meets = [v for v in instances(schema) if any(aims_at(s) for s in strings(v))
             and outcome(g, json.dumps(v, ensure_ascii=False)) == "accept"]
    assert bool(meets) != near_miss(schema), (schema, meets[:3])


def test_blindspot_modes_and_grammars_are_drawn():
    assert {"multi-eos", "escapes", "unicode"} <= set(VOCAB_MODES)
    found = set()

    @settings(max_examples=300, database=None)
    @given(grammar_specs(["regex", "lark", "json_schema"]), vocabularies("mixed"))
    def probe(spec, vocab):
        if spec.kind == "regex" and spec.source in bs.ESCAPE_REGEXES:
            found.add("escape regex")
        if spec.kind == "lark" and any(p[0] in spec.source and p[1] in spec.source for p in bs.OVERLAPPING_PAIRS):
            found.add("ambiguous lark")
        found.add(vocab.name)

    probe()
    assert {"escape regex", "ambiguous lark", "multi-eos", "escapes", "unicode"} <= found


# ------------------------------------------------------------------------------ path selection

PIECES = [b"\\", b"u", b"00", b"e9", b"\\u", b"\\u00", b'"', b"a", b"\\\\", b"e", b"9", b"0"]
ESCAPED = r'"([^"\\]|\\(["\\/bfnrt]|u[0-9a-fA-F]{4}))*"'


@settings(max_examples=60)
@given(st.data())
def test_paths_spell_the_target_splitting_escapes(data):
    """Steered by a target, the path spells it token by token; the vocabulary has no
    whole escape, so every escape is split across tokens, in drawn ways."""
    vocab = Vocabulary.from_bytes(PIECES + [b"<eos>"], eos_token_id=len(PIECES))
    target_text = b'"a\\u00e9\\\\"'
    target = Target(target_text)
    m = Matcher(Grammar.from_regex(ESCAPED), vocab)
    path = []
    while target.rest:
        mask = m.mask().to_bytes()
        t = _draw_token(mask, vocab, data, target)(mask)
        assert t is not None and m.consume(t)
        path.append(vocab.tokens[t])
    assert b"".join(path) == target_text and m.is_accepting()
    assert len(path) >= 6  # `\u00e9` takes at least two tokens, `\\` one or two
    assert any(p in (b"\\", b"\\u", b"\\u00", b"u") for p in path)


def test_without_a_target_any_allowed_token_is_drawn():
    vocab = Vocabulary.from_bytes([b"a", b"b", b"<eos>"], eos_token_id=2)
    m = Matcher(Grammar.from_regex("[ab]+"), vocab)
    mask = m.mask().to_bytes()
    seen = set()

    @settings(max_examples=30, database=None)
    @given(st.data())
    def pick(data):
        seen.add(_draw_token(mask, vocab, data, Target(b""))(mask))

    pick()
    assert seen == {0, 1}


def test_a_target_the_grammar_refuses_falls_back_to_random():
    vocab = Vocabulary.from_bytes([b"a", b"b", b"<eos>"], eos_token_id=2)
    m = Matcher(Grammar.from_regex("b+"), vocab)
    mask = m.mask().to_bytes()

    @settings(max_examples=10, database=None)
    @given(st.data())
    def pick(data):
        target = Target(b"ab")
        assert _draw_token(mask, vocab, data, target)(mask) == 1 and target.rest == b"ab"

    pick()


def test_compile_errors_are_rare():
    """Nearly all blind-spot grammars compile (a rejected grammar is a wasted example)."""
    rejected = []

    @settings(max_examples=150, database=None)
    @given(st.one_of(*bs.blindspot_specs(["regex", "lark", "json_schema"])))
    def probe(spec):
        try:
            spec.compile()
        except MaskrefError as e:
            rejected.append((spec, e))

    probe()
    assert len(rejected) <= 3, rejected[:3]
