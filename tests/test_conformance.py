"""The conformance suite tests itself (docs/conformance.md).

- The default suite agrees with refimpl (exit 0), and with every Matcher backend and peer
  available here (known differences aside).
- Fault injection: deliberately broken backends (conformance/adapters/faults.py). `run` on the
  default suite catches most of them, `fuzz` finds each one with a fixed seed and a small
  time budget, and shrinks it to a small repro that replays.
- Exit status 1 on a disagreement, 2 on a usage or setup error; the vector format round
  trips; the checked-in suite is what the generator writes.
"""
import json
import os

import pytest

from refimpl import Vocabulary

from conformance.__main__ import main
from conformance.adapters.faults import FAULTS, incomplete_tail, shorten_negated_ranges
from conformance.generate import SUITE_DIR
from conformance.registry import get_backend
from conformance.runner import check_vector, run_suite
from conformance.vectors import (
    FormatError, GrammarSpec, Vector, byte_vocabulary, decode_mask, encode_mask, ids_of, bitmask_from_ids,
    read_vectors, record,
)

REGEX_SUITE = os.path.join(SUITE_DIR, "regex.jsonl")


def digits_vector(path=(0x31, 0x32, 256)):  # "1", "2", EOS
    spec = GrammarSpec("regex", "[0-9]+")
    return record(spec.compile(), spec, byte_vocabulary(), list(path), "test/digits")


def write_suite(tmp_path, *vectors, name="suite.jsonl"):
    p = tmp_path / name
    p.write_text("".join(v.to_line() + "\n" for v in vectors), encoding="utf-8")
    return str(p)


# ------------------------------------------------------------------------------ format


def test_vector_round_trip():
    v = digits_vector()
    again = Vector.from_json(json.loads(v.to_line()))
    assert again.path == [49, 50, 256]
    assert [s.mask for s in again.steps] == [s.mask for s in v.steps]
    assert [s.accepting for s in again.steps] == [False, True, True, True]
    assert ids_of(again.steps[0].mask) == list(range(48, 58))
    assert ids_of(again.steps[-1].mask) == []  # after EOS nothing


def test_mask_encodings():
    n = 50_000
    dense = bitmask_from_ids(range(0, n, 2), n)
    assert "zlib" in encode_mask(dense, n)
    near = bitmask_from_ids(list(range(0, n, 2)) + [1], n)
    delta = encode_mask(near, n, previous=dense)
    assert "xor" in delta and decode_mask(delta, n, previous=dense) == near
    bad = dict(encode_mask(dense, n), sha256="0" * 16)
    with pytest.raises(FormatError):
        decode_mask(bad, n)


def test_checked_in_suite_is_what_generate_writes():
    """Regenerating one grammar gives the checked-in lines (the suite is not stale)."""
    from conformance import generate

    stored = {v.id: v.to_line() for _, _, v in read_vectors(REGEX_SUITE) if v.id.startswith("regex/digits/")}
    kept = generate.REGEXES
    try:
        generate.REGEXES = [e for e in kept if e[0] == "digits"]
        fresh = generate.generate(kinds=["regex"])["regex"]
    finally:
        generate.REGEXES = kept
    assert {v.id: v.to_line() for v in fresh} == stored


# the Lark and JSON-schema constructs of issue 13 (parametric rules, ignore_once, bounded
# JSON whitespace): each grammar name, its kind, and what its source must contain
NEW_CONSTRUCTS = {
    "permutation": ("lark", "perm::set_bit"), "unique-list": ("lark", "rest::set_bit"),
    "counted": ("lark", "lst::incr"), "length-limit": ("lark", "%if lt(_, 12)"),
    "ignore-once": ("lark", '"ignore_once": true'), "ignore-once-comment": ("lark", '"ignore_once": true'),
    "bounded-whitespace": ("json_schema", "[ ]{1,2}"), "x-guidance-whitespace": ("json_schema", "\\n[ ]{0,4}"),
}


def test_new_construct_vectors_exist_and_agree_with_refimpl():
    """Parametric rules, ignore_once and a bounded whitespace_pattern have vectors on both
    vocabularies, along paths that spell their samples and a random one; refimpl agrees."""
    backend = get_backend("refimpl")
    seen = {}
    for kind in ("lark", "json_schema"):
        for _, _, v in read_vectors(os.path.join(SUITE_DIR, kind + ".jsonl")):
            name = v.id.split("/")[1]
            if name not in NEW_CONSTRUCTS:
                continue
            want_kind, marker = NEW_CONSTRUCTS[name]
            text = v.grammar.source if want_kind == "lark" else json.dumps(v.grammar.schema) + json.dumps(
                v.grammar.options)
            assert v.grammar.kind == want_kind and marker in text, v.id
            assert check_vector(backend, v).status == "agree", v.id
            seen.setdefault(name, set()).add(tuple(v.id.split("/")[2:]))
    assert set(seen) == set(NEW_CONSTRUCTS)
    for name, ids in seen.items():
        assert {("bytes", "0"), ("bytes", "random"), ("gpt2", "0"), ("gpt2", "random")} <= ids, name


def test_new_construct_vectors_are_what_generate_writes():
    """The new vectors were written by the generator (and the old ones left unchanged)."""
    from conformance import generate

    kept = generate.LARK
    try:
        generate.LARK = [e for e in kept if e[0] in ("permutation", "ignore-once")]
        fresh = {v.id: v.to_line() for v in generate.generate(kinds=["lark"])["lark"]}
    finally:
        generate.LARK = kept
    stored = {v.id: v.to_line() for _, _, v in read_vectors(os.path.join(SUITE_DIR, "lark.jsonl")) if v.id in fresh}
    assert len(fresh) == 10 and fresh == stored  # (2 + 1 paths) + (1 + 1), on 2 vocabularies


# ------------------------------------------------------------------------------ run


def test_default_suite_agrees_with_refimpl(tmp_path, capsys):
    assert main(["run", "--backend", "refimpl", "--quiet", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "disagree" in out and not os.listdir(str(tmp_path))


def test_exit_status_2_on_usage_and_setup_errors(tmp_path, capsys):
    assert main(["run"]) == 2  # --backend missing
    assert main(["run", "--backend", "no-such-engine"]) == 2
    assert main(["run", "--backend", "refimpl", "--suite", str(tmp_path / "missing")]) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "maskref-vector", "version": 99}\n')
    assert main(["run", "--backend", "refimpl", "--suite", str(bad)]) == 2
    bad.write_text("not json\n")
    assert main(["run", "--backend", "refimpl", "--suite", str(bad)]) == 2
    assert main(["fuzz", "--backend", "refimpl", "--vocab", "nope", "--seconds", "1"]) == 2
    if get_backend("xgrammar").unavailable_reason():
        assert main(["run", "--backend", "xgrammar"]) == 2
    assert "error:" in capsys.readouterr().err


def test_exit_status_1_writes_a_repro_that_replays(tmp_path, capsys):
    suite = write_suite(tmp_path, digits_vector())
    out = str(tmp_path / "repros")
    assert main(["run", "--backend", "fault:drop-eos", "--suite", suite, "--quiet", "--out", out]) == 1
    text = open(os.path.join(out, "fault_drop-eos", "test_digits.txt"), encoding="utf-8").read()
    assert "diverges at  step 1" in text and '256 "<EOS>"' in text and "only refimpl (1)" in text
    replay = next(line for line in text.splitlines() if line.startswith("replay"))
    argv = replay.split()[4:]  # replay python -m conformance <argv>
    assert main(argv + ["--quiet", "--out", str(tmp_path / "again")]) == 1
    assert main(["run", "--backend", "refimpl", "--suite", argv[-1], "--quiet"]) == 0


def test_run_catches_most_faults(tmp_path, capsys):
    """Each fault against the default suite, stopping at its first disagreement."""
    caught = []
    for name in sorted(FAULTS):
        report = run_suite(get_backend("fault:" + name), SUITE_DIR, str(tmp_path), quiet=True, first=True)
        if report.disagreements:
            caught.append(name)
    with capsys.disabled():
        print("\nrun on the default suite catches %d of %d faults: %s" % (len(caught), len(FAULTS), ", ".join(caught)))
    assert len(caught) >= len(FAULTS) - 1


def matcher_backends():
    try:
        import accel
    except ImportError:
        return []
    return [name for name, reason in accel.available_backends().items()
            if reason is None and name not in ("python", "cmd:<command>")]


@pytest.mark.parametrize("backend", matcher_backends())
def test_regex_suite_agrees_with_matcher_backends(backend, tmp_path):
    assert main(["run", "--backend", backend, "--suite", REGEX_SUITE, "--quiet", "--out", str(tmp_path)]) == 0


@pytest.mark.parametrize("peer", ["llguidance", "outlines-core"])
def test_default_suite_against_peers(peer, tmp_path):
    backend = get_backend(peer)
    if backend.unavailable_reason():
        pytest.skip(backend.unavailable_reason())
    report = run_suite(backend, SUITE_DIR, str(tmp_path), quiet=True)
    assert not report.disagreements, report.table()
    assert report.total()["agree"] > 0


def test_known_differences_are_recognised(tmp_path):
    """A documented llguidance difference is reported as known, not as a disagreement."""
    backend = get_backend("llguidance")
    if backend.unavailable_reason():
        pytest.skip(backend.unavailable_reason())
    spec = GrammarSpec("lark", "start: A lz\nA: /a+/\nlz[lazy]: /[0-9]+/\n")
    vector = record(spec.compile(), spec, byte_vocabulary(), [ord("a"), ord("1")], "test/lazy")
    r = check_vector(backend, vector)
    assert r.status == "known" and r.known == ["lazy-after-greedy"]


# ------------------------------------------------------------------------------ fuzz

# fixed seeds; each fault is found in a few seconds (the budget is a ceiling)
FUZZ_BUDGET = 45.0


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fuzz_finds_each_fault(fault, tmp_path):
    from conformance.fuzz import fuzz

    report = fuzz("fault:" + fault, FUZZ_BUDGET, seed=0, out_dir=str(tmp_path), first_only=True, quiet=True)
    assert report.failures, report.table()
    f = report.failures[0]
    vector = next(v for _, _, v in read_vectors(os.path.join(str(tmp_path), "fault_" + fault, "fuzz-vectors.jsonl")))
    assert len(vector.path) <= 3  # shrunk to a short path
    # the minimal case replays as a disagreement, and refimpl agrees with itself on it
    assert check_vector(get_backend("fault:" + fault), vector).status == "disagree"
    assert check_vector(get_backend("refimpl"), vector).status == "agree"
    assert os.path.exists(f["repro"])


def test_fuzz_is_deterministic_and_spreads_over_jobs(tmp_path):
    from conformance.fuzz import fuzz

    lines = []
    for i in range(2):
        out = str(tmp_path / str(i))
        fuzz("fault:drop-eos", 20, seed=7, out_dir=out, first_only=True, quiet=True)
        with open(os.path.join(out, "fault_drop-eos", "fuzz-vectors.jsonl"), encoding="utf-8") as f:
            lines.append(f.read())
    assert lines[0] == lines[1] and lines[0]
    report = fuzz("fault:utf8-split", 20, seed=7, jobs=2, out_dir=str(tmp_path / "jobs"), first_only=True, quiet=True)
    assert report.failures and report.jobs == 2


def test_fuzz_finds_nothing_between_matcher_and_oracle(tmp_path):
    from conformance.fuzz import fuzz

    report = fuzz("oracle", 4, seed=3, out_dir=str(tmp_path), quiet=True)
    assert not report.failures, report.table()
    assert report.stats.steps > 0


def test_fault_helpers():
    assert shorten_negated_ranges("x[^a-c]+[a-c][^0-9a-z]") == "x[^a-b]+[a-c][^0-9a-y]"
    assert [incomplete_tail(b) for b in (b"a", b"\xc3", b"a\xe2\x82", "é".encode(), b"\xf0\x9f\x98")] == [0, 1, 2, 0, 3]
    v = Vocabulary.from_bytes([b"a", b"\xc3", b"<eos>"], eos_token_id=2)
    spec = GrammarSpec("regex", "a+")
    vector = record(spec.compile(), spec, v, [0], "t")
    assert check_vector(get_backend("fault:utf8-split"), vector).status == "disagree"
