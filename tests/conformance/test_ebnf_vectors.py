"""The conformance suite's grammar kind `ebnf` (other engines' EBNF dialects): one random
grammar structure printed in GBNF, xgrammar's EBNF and kbnf's means the same in each;
ebnf vectors round-trip and replay; the default suite's ebnf vectors and the fuzzer's
ebnf strategies."""
import json
import os
from typing import List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.engine import Engine
from conformance.generate import EBNF, SUITE_DIR
from conformance.registry import get_engine
from conformance.runner import check_vector
from conformance.strategies import CHAR_DIALECTS, EBNF_DIALECTS, char_grammars, grammar_specs, print_char_grammar, rule_names
from conformance.vectors import GRAMMAR_KINDS, FormatError, GrammarSpec, Vector, byte_vocabulary, read_vectors, record
from refimpl import Grammar
from refimpl.errors import GrammarError
from tests.support.budget import examples
from tests.support.text_outcome import outcome
from tests.support.vectors import regenerated

EBNF_SUITE = os.path.join(SUITE_DIR, "ebnf.jsonl")


def build(text: str, dialect: str) -> Grammar:
    return Grammar.from_gbnf(text) if dialect == "gbnf" else Grammar.from_ebnf(text, dialect=dialect)


# -- one structure, three syntaxes ---------------------------------------------------------

ALPHABET = 'ab"é\n'
#: literals and classes over the strings' alphabet, with characters each syntax escapes
LITERALS = ['"a"', '"b"', '"ab"', '"é"', '""', '"\\""', '"a\\n"']
CLASSES = ["[a-b]", "[^a]", "[é-ê]", ".", '[^"\\x00-\\x1F]', "[\\]\\-\\\\^]"]


@settings(max_examples=examples(30), deadline=None)
@given(char_grammars(LITERALS, CLASSES), st.lists(st.text(ALPHABET, max_size=5), min_size=1, max_size=6))
def test_one_structure_means_the_same_in_each_dialect(structure, strings: List[str]):
    """The structure printed in GBNF, xgrammar's EBNF and kbnf's: all three are refused
    (an empty language), or all accept, reject and take as a prefix the same strings."""
    texts = {d: print_char_grammar(structure, d) for d in CHAR_DIALECTS}
    grammars = {}
    for d, text in texts.items():
        try:
            grammars[d] = build(text, d)
        except GrammarError as e:
            grammars[d] = None
            refused = e
    if any(g is None for g in grammars.values()):
        assert all(g is None for g in grammars.values()), (texts, refused)
        return
    for s in strings:
        seen = {d: outcome(g, s) for d, g in grammars.items()}
        assert len(set(seen.values())) == 1, (texts, s, seen)


def test_printed_forms():
    """Each syntax's own spelling of the same structure: kbnf has no {m,n} and writes a
    class as a regex; xgrammar's any character is [^] and its \\x would run on."""
    g = [[("seq", [("lit", 'a"\x01'), ("rep", ("cls", True, ((0, 0x1F), (0x5D, 0x5E))), "{1,2}")]),
          ("rep", ("grp", [("ref", 1), ("cls", True, ())]), "?")],
         [("rep", ("lit", "b"), "{2}"), ("rep", ("grp", [("lit", "")]), "*")]]
    assert print_char_grammar(g, "gbnf") == ('root ::= "a\\"\\x01" [^\\x00-\\x1F\\x5D-\\x5E]{1,2} | (r1 | .)?\n'
                                             'r1 ::= "b"{2} | ("")*\n')
    assert print_char_grammar(g, "xgrammar") == ('root ::= "a\\"\\u0001" [^\\u0000-\\u001F\\u005D-\\u005E]{1,2} | (r1 | [^])?\n'
                                                 'r1 ::= "b"{2} | ("")*\n')
    assert print_char_grammar(g, "kbnf") == (
        'start ::= \'a"\\x01\', #"[^\\\\x00-\\\\x1F\\\\x5D-\\\\x5E]" [#"[^\\\\x00-\\\\x1F\\\\x5D-\\\\x5E]"] | [r1 | #"(?s:.)"];\n'
        'r1 ::= "b" "b" | {""};\n')
    assert rule_names(g, "kbnf") == ["start", "r1"] and rule_names(g, "gbnf") == ["root", "r1"]
    for d in CHAR_DIALECTS:
        grammar = build(print_char_grammar(g, d), d)
        assert [outcome(grammar, s) for s in ('a"\x01ab', 'a"\x01', "bb", "bbb", "é", "")] == \
            ["accept", "prefix_only", "accept", "reject", "accept", "accept"], d


# -- vectors -------------------------------------------------------------------------------

XGRAMMAR = 'root ::= "a" x\nx ::= [0-9]+ (= "")\n'
KBNF = "start ::= 'a' x;\nx ::= #\"[0-9]+\";\n"


def test_ebnf_is_a_grammar_kind_with_its_options():
    assert "ebnf" in GRAMMAR_KINDS and "ebnf" in Engine.kinds
    spec = GrammarSpec("ebnf", XGRAMMAR, options={"dialect": "xgrammar"})
    assert GrammarSpec.from_json(json.loads(json.dumps(spec.to_json()))).key() == spec.key()
    assert spec.to_json() == {"kind": "ebnf", "source": XGRAMMAR, "options": {"dialect": "xgrammar"}}
    assert spec.describe().splitlines()[0] == "ebnf dialect=xgrammar"
    with pytest.raises(FormatError, match="needs the option 'dialect'"):
        GrammarSpec("ebnf", XGRAMMAR)
    with pytest.raises(FormatError, match="takes only the options dialect, root"):
        GrammarSpec("ebnf", XGRAMMAR, options={"dialect": "xgrammar", "lenient": "yes"})
    with pytest.raises(FormatError, match="option root is a string"):
        GrammarSpec("ebnf", XGRAMMAR, options={"dialect": "xgrammar", "root": 1})
    with pytest.raises(FormatError, match="takes only the options root"):
        GrammarSpec("gbnf", 'root ::= "a"', options={"dialect": "xgrammar"})
    # an unknown dialect is the frontend's error, as for any bad grammar
    with pytest.raises(GrammarError, match="unknown EBNF dialect"):
        GrammarSpec("ebnf", XGRAMMAR, options={"dialect": "lark"}).compile()


@pytest.mark.parametrize("dialect, text, root", [("xgrammar", XGRAMMAR, None), ("kbnf", KBNF, None),
                                                 ("xgrammar", XGRAMMAR.replace("root", "top"), "top")])
def test_ebnf_vectors_round_trip_and_replay(dialect, text, root):
    if dialect not in EBNF_DIALECTS:
        pytest.fail("the fuzzer does not draw %s grammars" % dialect)
    options = {"dialect": dialect} if root is None else {"dialect": dialect, "root": root}
    spec = GrammarSpec("ebnf", text, options=options)
    grammar = spec.compile()
    vocab = byte_vocabulary()
    v = record(grammar, spec, vocab, [ord("a"), ord("4"), ord("2"), 256], "ebnf/test/bytes/0")
    assert len(v.steps) == 5 and [s.accepting for s in v.steps] == [False, False, True, True, True]
    back = Vector.from_json(json.loads(v.to_line()))
    assert back.to_line() == v.to_line() and back.grammar.options == options
    assert back.grammar.compile().ir.to_text() == grammar.ir.to_text()
    assert check_vector(get_engine("refimpl"), back).status == "agree"


def _suite():
    return [v for _, _, v in read_vectors(EBNF_SUITE)]


def test_default_suite_has_each_dialect_on_both_vocabularies():
    vectors = _suite()
    assert all(v.grammar.kind == "ebnf" for v in vectors)
    seen = {}
    for v in vectors:
        name, vocab, _ = v.id.split("/")[1:]
        assert name.startswith(v.grammar.options["dialect"] + "-"), v.id
        seen.setdefault(name, set()).add(vocab)
    assert set(seen) == {e[0] for e in EBNF}
    assert all(vocabs == {"bytes", "gpt2"} for vocabs in seen.values()), seen
    assert {v.grammar.options["dialect"] for v in vectors} == set(EBNF_DIALECTS)


def test_default_suite_ebnf_vectors_are_what_generate_writes():
    fresh = regenerated("EBNF", ("xgrammar-substring", "kbnf-substrs"), "ebnf")
    stored = {v.id: v.to_line() for v in _suite() if v.id in fresh}
    assert len(fresh) == 12 and fresh == stored  # 2 grammars, (2 samples + 1 random path) on 2 vocabularies


@pytest.mark.parametrize("backend", ["refimpl", "native"])
def test_default_suite_ebnf_vectors_agree(backend):
    b = get_engine(backend)
    if b.unavailable_reason():
        pytest.skip(b.unavailable_reason())
    # (refimpl runs the whole suite in test_conformance; xgrammar's JSON grammar on GPT-2
    # walks a parser row per string byte, the slowest of these vectors)
    statuses = {v.id: check_vector(b, v).status for v in _suite()
                if "/bytes/" in v.id or (backend == "native" and not v.id.startswith("ebnf/xgrammar-json/"))}
    assert statuses and set(statuses.values()) == {"agree"}, statuses


# -- fuzzing -------------------------------------------------------------------------------


@settings(max_examples=examples(20), deadline=None)
@given(grammar_specs(["ebnf"]))
def test_fuzzer_draws_ebnf_in_each_dialect(spec):
    """Each drawn grammar names its dialect, and is compiled or refused with a GrammarError."""
    assert spec.kind == "ebnf" and spec.options["dialect"] in EBNF_DIALECTS
    try:
        spec.compile()
    except GrammarError:
        pass


def test_fuzz_ebnf_against_the_oracle(tmp_path):
    from conformance.fuzz import fuzz

    report = fuzz("oracle", 3, seed=1, out_dir=str(tmp_path), quiet=True, vocab_mode="small", kinds=["ebnf"])
    assert not report.failures, report.table()
    assert report.stats.steps > 0
