"""The `json_schema_test_suite` corpus (conformance/json_schema_test_suite.py): the
JSON-Schema-Test-Suite's schemas and instances as vectors, beside the default suite. The
committed results (results/json-schema-test-suite/) are of the vectors the generator writes
now, every vector follows its test's instance (a valid one whole, an invalid one to where the
grammar refuses it), the kept paths hold every mask of their schema's tests, and refimpl
agrees with them."""
import functools
import os
import shutil

from conformance import json_schema_test_suite as jsts
from conformance.__main__ import main
from conformance.generate import _suite_test_path, json_schema_test_suite_vectors
from conformance.registry import get_engine
from conformance.results import digest, read_results
from conformance.runner import GrammarCache, check_vector
from conformance.vectors import GrammarSpec, ids_of, load_builtin, record
from tests.support.paths import ROOT

RESULTS = ROOT / "results" / "json-schema-test-suite"
EOS = 256


@functools.lru_cache(maxsize=None)
def _generated():
    return tuple(json_schema_test_suite_vectors())


def stored():
    """The corpus's vectors as `generate --only json_schema_test_suite` writes them (once)."""
    return {v.id: v for v in _generated()}


def cases_by_id():
    tests = jsts.read_tests()
    return dict(zip(jsts.case_ids(tests), tests))


def copy(tmp_path, *names):
    for name in names:
        shutil.copy(os.path.join(jsts.SUITE_DIR, name + ".json"), tmp_path / (name + ".json"))
    return str(tmp_path)


def test_the_committed_results_are_of_these_vectors():
    """Each engine's committed results hold a record of every vector the generator writes
    now, of the same line (its digest), and of no other: a changed corpus or generator
    fails here until the engines are run again (compliance_template.md's commands)."""
    now = {v.id: digest(v.to_line()) for v in _generated()}
    files = sorted(RESULTS.glob("*.jsonl.gz"))
    assert len(files) >= 8
    for path in files:
        ran = {r["id"]: r["digest"] for r in read_results(str(path))}
        assert ran == now, "%s: %d vectors not run, %d stale" % (
            path.name, len(set(now) - set(ran)), sum(1 for i in ran if now.get(i) != ran[i]))


def test_a_schemas_paths_are_chosen_among_its_own_tests(tmp_path):
    """Two files of the corpus generated alone give the same lines as the whole corpus
    gives for their tests."""
    fresh = {v.id: v.to_line() for v in json_schema_test_suite_vectors(copy(tmp_path, "required", "unevaluatedProperties"))}
    lines = {vid: v.to_line() for vid, v in stored().items()
             if vid.split("/")[1] in ("required", "unevaluatedProperties")}
    assert len(fresh) > 50 and fresh == lines


def test_each_vector_follows_its_instance_to_its_end_or_refusal():
    """A valid instance whole, then EOS; an invalid one along the longest prefix refimpl
    allows, whose last mask refuses the next byte (or EOS after the whole text)."""
    tests = cases_by_id()
    vectors = stored()
    assert len(vectors) == 680 and len(tests) == 2225
    for vid, v in vectors.items():
        t = tests[vid]
        text = t.text.encode("utf-8")
        path = [s.token for s in v.steps[:-1]]
        last = ids_of(v.steps[-1].mask)
        assert ("valid" if t.valid else "invalid") in v.tags and t.file in v.note
        if path and path[-1] == EOS:
            assert t.valid and bytes(path[:-1]) == text and v.steps[-1].accepting, vid
        else:
            assert text.startswith(bytes(path)), vid
            assert EOS not in last if len(path) == len(text) else text[len(path)] not in last, vid


def test_kept_paths_hold_every_mask_of_their_schemas_tests(tmp_path):
    """Every test of a schema refimpl compiles has each of its masks (with `accepting`) in
    a kept vector of the same schema; a schema refimpl refuses has no vector."""
    vectors = stored()
    by_schema = {}
    for v in vectors.values():
        by_schema.setdefault(v.grammar.key(), set()).update((s.mask, s.accepting) for s in v.steps)
    vocab = load_builtin("bytes")
    tests = jsts.read_tests(copy(tmp_path, "enum", "maxContains", "refRemote"))
    refused = 0
    for vid, t in zip(jsts.case_ids(tests), tests):
        spec = GrammarSpec("json_schema", schema=t.schema)
        if spec.key() not in by_schema:
            refused += 1
            assert vid not in vectors
            continue
        path, _ = _suite_test_path(spec.compile(), vocab, t, vid)
        v = record(spec.compile(), spec, vocab, path, vid)
        assert {(s.mask, s.accepting) for s in v.steps} <= by_schema[spec.key()], vid
    assert 0 < refused < len(tests)  # refRemote's schemas: remote references, refused


def test_refimpl_agrees_sharing_one_grammar_cache():
    """The two schemas of unevaluatedProperties.json that differ only in where `$ref`
    stands (before or after `properties`) are two grammars: the runner's cache keys a
    schema with its key order (GrammarSpec.key), so refimpl agrees on both in one run."""
    vectors = [v for vid, v in stored().items() if "/unevaluatedproperties-before-ref/" in vid
               or "/unevaluatedproperties-with-ref/" in vid]
    assert {v.grammar.key() for v in vectors} and len({v.grammar.key() for v in vectors}) == 2
    cache, engine = GrammarCache(), get_engine("refimpl")
    assert [check_vector(engine, v, cache).status for v in vectors + vectors[::-1]] == ["agree"] * 2 * len(vectors)


def test_generate_outside_a_checkout_is_one_error_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(jsts, "SUITE_DIR", str(tmp_path / "nowhere"))
    assert main(["generate", "--only", "json_schema_test_suite", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "nowhere" in err and err.count("\n") == 1


def test_the_corpus_is_not_written_into_the_default_suite(capsys):
    assert main(["generate", "--only", "json_schema_test_suite"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --only json_schema_test_suite: a corpus") and "--out" in err
