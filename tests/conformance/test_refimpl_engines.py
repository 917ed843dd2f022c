"""refimpl's engines (conformance/refimpl_engines.py): the token index by its own API."""
import os

import pytest

import refimpl.masks.index.build as build
from conformance.__main__ import main
from conformance.generate import SUITE_DIR
from conformance.registry import get_engine
from conformance.vectors import GrammarSpec, NotSupported, ids_of
from refimpl import Vocabulary


def test_token_index_engine_answers_from_the_index_api_built_in_parallel(monkeypatch):
    calls = []
    parallel = build._parallel_rows
    monkeypatch.setattr(build, "_parallel_rows", lambda builder, rows: (calls.append(builder.steps.workers),
                                                                         parallel(builder, rows)))
    engine = get_engine("token-index")
    vocab = Vocabulary.from_bytes([b"<eos>", b"1", b"12", b"a"], eos_token_id=0)
    spec = GrammarSpec("regex", "[0-9]+")
    grammar = spec.compile()  # as the runner hands it: one compiled grammar per spec
    session = engine.start(spec, vocab, grammar)
    assert calls == [2]  # the parallel build (step 4), two processes
    assert ids_of(session.mask()) == [1, 2]  # no EOS before a digit
    assert not session.consume(3) and ids_of(session.mask()) == [1, 2]
    assert session.consume(2) and ids_of(session.mask()) == [0, 1, 2]  # final: EOS allowed
    assert session.consume(0) and ids_of(session.mask()) == []  # nothing after EOS
    engine.start(spec, vocab, grammar)
    assert calls == [2]  # one index per grammar and vocabulary of a run
    engine.close()


def test_token_index_engine_declines_a_grammar_without_an_index_saying_why():
    vocab = Vocabulary.from_bytes([b"a", b"b"])
    with pytest.raises(NotSupported, match="no token index: the grammar has "):
        get_engine("token-index").start(GrammarSpec("lark", 'start: "(" start ")" | "x"'), vocab)


@pytest.mark.parametrize("name", ["token-index", "token-index-bare", "token-index-naive"])
def test_token_index_engines_agree_with_the_regex_suite(tmp_path, name):
    suite = os.path.join(SUITE_DIR, "regex.jsonl")
    assert main(["run", "--engine", name, "--suite", suite, "--quiet", "--out", str(tmp_path)]) == 0


def test_the_bare_and_naive_engines_build_their_own_way(monkeypatch):
    """token-index-bare builds with every step off (walk_each: no prefix graph), and
    token-index-naive by the definition (naive_index), never by build_index's steps."""
    import refimpl.masks.index.naive as naive

    seen = []
    each, definition = build.walk_each, naive.naive_index
    monkeypatch.setattr(build, "walk_each", lambda *a: (seen.append("each"), each(*a))[1])
    vocab = Vocabulary.from_bytes([b"<eos>", b"1", b"12", b"a"], eos_token_id=0)
    spec = GrammarSpec("regex", "[0-9]+")
    assert ids_of(get_engine("token-index-bare").start(spec, vocab).mask()) == [1, 2] and "each" in seen
    seen.clear()
    monkeypatch.setattr(build, "_Builder", None)  # the naive index builds no V2 rows
    engine = get_engine("token-index-naive")
    assert engine.build is definition and ids_of(engine.start(spec, vocab).mask()) == [1, 2] and not seen
