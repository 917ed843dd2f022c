"""The conformance suite tests itself (docs/conformance.md).

- The default suite agrees with refimpl (exit 0), and with every Matcher backend and peer
  available here (known differences aside).
- Fault injection: deliberately broken backends (conformance/faults.py). `run` on the
  default suite catches most of them, `fuzz` finds each one with a fixed seed and a small
  time budget, and shrinks it to a small repro that replays.
- Exit status 1 on a disagreement, 2 on a usage or setup error; the vector format round
  trips; the checked-in suite is what the generator writes.
"""
import json
import os
import re

import pytest

from refimpl import Matcher, MaskrefError, Vocabulary

from conformance.__main__ import main
from conformance.faults import FAULTS, incomplete_tail, shorten_negated_ranges
from conformance.differences import AFTER_EOS
from conformance.divergence import Divergence
from conformance.generate import SUITE_DIR
from conformance.registry import get_engine
from conformance.runner import check_vector, run_suite
from conformance.vectors import (
    FormatError, GrammarSpec, NotSupported, Vector, bitmask_from_ids, byte_vocabulary, decode_mask, encode_mask,
    ids_of, load_builtin, read_vectors, record, vocab_from_json, vocab_hash, vocab_to_json,
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
    backend = get_engine("refimpl")
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
    if get_engine("xgrammar").unavailable_reason():
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
        report = run_suite(get_engine("fault:" + name), SUITE_DIR, str(tmp_path), quiet=True, first=True)
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
    backend = get_engine(peer)
    if backend.unavailable_reason():
        pytest.skip(backend.unavailable_reason())
    report = run_suite(backend, SUITE_DIR, str(tmp_path), quiet=True)
    assert not report.disagreements, report.table()
    assert report.total()["agree"] > 0


def test_known_differences_are_recognised(tmp_path):
    """A documented llguidance difference is reported as known, not as a disagreement."""
    backend = get_engine("llguidance")
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

    # the grammar kinds the budget was measured on: a GBNF grammar cut to one-letter lexemes
    # is correct but slow to walk (a parser row per trie node), long under PyPy
    report = fuzz("fault:" + fault, FUZZ_BUDGET, seed=0, out_dir=str(tmp_path), first_only=True, quiet=True,
                  kinds=("regex", "lark", "json_schema"))
    assert report.failures, report.table()
    f = report.failures[0]
    vector = next(v for _, _, v in read_vectors(os.path.join(str(tmp_path), "fault_" + fault, "fuzz-vectors.jsonl")))
    assert len(vector.path) <= 3  # shrunk to a short path
    # the minimal case replays as a disagreement, and refimpl agrees with itself on it
    assert check_vector(get_engine("fault:" + fault), vector).status == "disagree"
    assert check_vector(get_engine("refimpl"), vector).status == "agree"
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
    assert check_vector(get_engine("fault:utf8-split"), vector).status == "disagree"


# ------------------------------------------------------------------------------ special tokens, lexeme options


def test_special_vocabulary_round_trips():
    """The built-in special vocabulary: bytes, text tokens spelling pieces of special-token
    texts, special tokens with two EOS ids; stored by name, and inline with its special ids."""
    v = load_builtin("special")
    assert [v.tokens[t] for t in v.eos_token_ids] == [b"<|eot_id|>", b"<|end_of_text|>"]
    specials = {v.tokens[t] for t in v.special_token_ids}
    assert {b"<think>", b"</think>", b"<|python_tag|>", b"<|start_header_id|>"} <= specials
    texts = [v.tokens[t] for t in range(len(v)) if t not in v.special_token_ids]
    assert {b"<|", b"eot", b"_id|>", b"<|eot_id|>"} <= set(texts)  # the text <|eot_id|> is no special token
    stored = vocab_to_json(v)
    assert stored["builtin"] == "special" and vocab_from_json(json.loads(json.dumps(stored))) is v
    copy = Vocabulary(v.tokens, v.eos_token_ids, v.special_token_ids, name="special-copy")
    inline = json.loads(json.dumps(vocab_to_json(copy)))
    assert "tokens_hex" in inline and inline["eos"] == list(v.eos_token_ids)
    again = vocab_from_json(inline)
    assert (again.tokens, again.eos_token_ids, again.special_token_ids) == (v.tokens, v.eos_token_ids,
                                                                           v.special_token_ids)
    assert vocab_hash(again) == vocab_hash(v)
    spec = GrammarSpec("lark", 'start: <think> /[a-z]+/ </think>\n')
    think = v.tokens.index(b"<think>")
    vector = record(spec.compile(), spec, copy, [think, ord("a"), think + 1, v.eos_token_id], "t")
    line = Vector.from_json(json.loads(vector.to_line()))
    assert line.path == vector.path and [s.mask for s in line.steps] == [s.mask for s in vector.steps]
    assert ids_of(line.steps[0].mask) == [think] and line.steps[-1].accepting


# the constructs of the tokens group: each tag, and the vocabularies it must be on
TOKEN_CONSTRUCTS = {
    "special-token": ("bytes", "gpt2", "special"), "token-range": ("bytes", "gpt2", "special"),
    "negation": ("bytes", "gpt2", "special"), "ignore": ("bytes", "gpt2", "special"),
    "subgrammar": ("bytes", "gpt2", "special"), "stop": ("bytes", "gpt2", "special"),
    "suffix": ("bytes", "gpt2", "special"), "stop-eos": ("bytes", "gpt2", "special"),
    "max-tokens": ("bytes", "gpt2", "special"), "lazy": ("bytes", "gpt2", "special"),
    "metadata": ("bytes", "gpt2", "special"), "dead-end": ("bytes", "special"),
}


def test_token_vectors_cover_each_construct_and_agree_with_refimpl():
    backend = get_engine("refimpl")
    seen = {}
    for _, _, v in read_vectors(os.path.join(SUITE_DIR, "tokens.jsonl")):
        assert v.grammar.kind == "lark" and v.id.startswith("tokens/"), v.id
        assert check_vector(backend, v).status == "agree", v.id
        for tag in v.tags:
            seen.setdefault(tag, set()).add(v.vocab.name)
    for tag, vocabs in TOKEN_CONSTRUCTS.items():
        assert set(vocabs) <= seen.get(tag, set()), tag
    # EOS eaten mid-grammar, a budget spent where the lexeme cannot end: the vectors show it
    stop_eos = next(v for _, _, v in read_vectors(os.path.join(SUITE_DIR, "tokens.jsonl"))
                    if v.id == "tokens/stop-eos/special/0")
    eos_at = stop_eos.path.index(stop_eos.vocab.eos_token_id)
    assert stop_eos.path[eos_at + 1] == ord("!") and stop_eos.steps[eos_at + 1].accepting is False
    dead = next(v for _, _, v in read_vectors(os.path.join(SUITE_DIR, "tokens.jsonl"))
                if v.id == "tokens/max-tokens-dead/special/0")
    assert ids_of(dead.steps[-1].mask) == [] and not dead.steps[-1].accepting


def test_token_vectors_are_what_generate_writes():
    from conformance import generate

    kept = generate.TOKENS
    try:
        generate.TOKENS = [e for e in kept if e[0] in ("text-or-token", "stop-eos-last")]
        fresh = {v.id: v.to_line() for v in generate.token_vectors()}
    finally:
        generate.TOKENS = kept
    stored = {v.id: v.to_line() for _, _, v in read_vectors(os.path.join(SUITE_DIR, "tokens.jsonl")) if v.id in fresh}
    assert len(fresh) == 3 * 3 + 3 * 2 and fresh == stored  # (2 + 1) and (1 + 1) paths, on 3 vocabularies


def test_oracle_reads_eos_that_ends_a_stop_lexeme():
    """The naive oracle goes on after an EOS that ended a stop="" lexeme (and after the
    token lexemes' EOS reads); it agrees with the Matcher on those vectors."""
    oracle = get_engine("oracle")
    ids = ("tokens/stop-eos/bytes/0", "tokens/stop-eos/special/0", "tokens/stop-eos-last/special/0",
           "tokens/eos-token/special/0")
    vectors = [v for _, _, v in read_vectors(os.path.join(SUITE_DIR, "tokens.jsonl")) if v.id in ids]
    assert len(vectors) == len(ids)
    for v in vectors:
        assert check_vector(oracle, v).status == "agree", v.id


def test_after_eos_means_the_output_ended():
    """An EOS that ended a stop="" lexeme does not end the output (after-eos does not apply)."""
    v = load_builtin("special")
    spec = GrammarSpec("lark", 'start: x "!"\nx[stop=""]: /[a-z]+/\n')
    eos = v.eos_token_id
    eaten = Divergence(spec, v, [ord("a"), eos], 2, [eos], [])
    ended = Divergence(spec, v, [ord("a"), eos, ord("!"), eos], 4, [eos], [])
    assert not eaten.after_eos and ended.after_eos
    assert AFTER_EOS.applies(ended) and not AFTER_EOS.applies(eaten)


# llguidance's known differences with special tokens, lexeme options, sub-grammars and JSON
# numbers: the suite has a minimal vector for each (docs/findings.md, L6-L13)
LLGUIDANCE_FINDINGS = {
    "findings/llguidance-stop-eos-primary/special/0": "stop-eos-primary-only",
    "findings/llguidance-eos-before-token-lexeme/bytes/0": "eos-before-token-lexeme",
    "findings/llguidance-first-token-lexeme/special/0": "token-read-by-first-lexeme",
    "findings/llguidance-marker-bytes/marker/0": "special-marker-bytes",
    "findings/llguidance-subgrammar-ignore/bytes/0": "subgrammar-ignore",
    "findings/llguidance-subgrammar-skip-panic/bytes/0": "subgrammar-skip-panic",
    "findings/llguidance-empty-first-lexeme/bytes/0": "empty-first-lexeme",
    "findings/llguidance-stop-eos-complete-lexeme/bytes/0": "stop-eos-after-complete-lexeme",
    "findings/llguidance-negative-fraction/bytes/0": "negative-fraction-trailing-zero",
    "findings/llguidance-negative-fraction/gpt2/0": "negative-fraction-trailing-zero",
    "findings/llguidance-escape-in-negated-class/bytes/0": "escape-in-negated-class",
    "findings/llguidance-ecma-dot/bytes/0": "ecma-dot-and-space",
    "findings/llguidance-ecma-dot/bytes/1": "ecma-dot-and-space",
    "tokens/max-tokens-first-byte/special/0": "max-tokens-row-count",
    "tokens/max-tokens-row-start/bytes/0": "max-tokens-row-count",
    "tokens/max-tokens-dead/special/0": "max-tokens-dead",
}


def test_llguidance_known_differences_on_their_vectors():
    backend = get_engine("llguidance")
    if backend.unavailable_reason():
        pytest.skip(backend.unavailable_reason())
    found = {}
    for _, _, v in read_vectors(SUITE_DIR):
        if v.id in LLGUIDANCE_FINDINGS:
            r = check_vector(backend, v)
            found[v.id] = r.status, [k for k in r.known if k != "after-eos"]
    assert found == {vid: ("known", [name]) for vid, name in LLGUIDANCE_FINDINGS.items()}


def _differences():
    from conformance.peers.llguidance.differences import KNOWN_DIFFERENCES

    return {k.name: k for k in KNOWN_DIFFERENCES}


def test_llguidance_predicates_are_exact():
    """Each new predicate explains its case and not a near miss: another token, another
    state, another grammar."""
    k = _differences()
    v = load_builtin("special")
    eot, eot2 = v.eos_token_ids
    stop = GrammarSpec("lark", 'start: x "!"\nx[stop=""]: /[a-z]+/\n')
    assert k["stop-eos-primary-only"].applies(Divergence(stop, v, [ord("a")], 1, [], [eot2]))
    assert not k["stop-eos-primary-only"].applies(Divergence(stop, v, [ord("a")], 1, [], [eot]))
    assert not k["stop-eos-primary-only"].applies(Divergence(stop, v, [ord("a")], 1, [], [eot2, ord("b")]))
    assert not k["stop-eos-primary-only"].applies(Divergence(stop, v, [], 0, [], [eot2]))
    first = GrammarSpec("lark", 'start: "1" x "!"\nx[max_tokens=2]: /[a-z]+/\n')
    letters = list(range(ord("a"), ord("z") + 1))
    aaa = v.tokens.index(b"aaa")
    assert k["max-tokens-row-count"].applies(Divergence(first, v, [ord("1"), aaa], 2, [], letters))
    assert not k["max-tokens-row-count"].applies(Divergence(first, v, [ord("1")], 1, [], letters))
    wide = GrammarSpec("lark", 'start: "1" x "!"\nx[max_tokens=5]: /[a-z]+/\n')
    assert not k["max-tokens-row-count"].applies(Divergence(wide, v, [ord("1"), aaa], 2, [], letters))
    dead = GrammarSpec("lark", 'start: "12" x "!"\nx[max_tokens=2]: /[a-z]+[0-9]/\n')
    ab, twelve = v.tokens.index(b"ab"), v.tokens.index(b"12")
    assert k["max-tokens-dead"].applies(Divergence(dead, v, [twelve, ab, ab], 3, [ord("!")], []))
    assert not k["max-tokens-dead"].applies(Divergence(dead, v, [twelve, ab], 2, [ord("!")], []))
    marker = GrammarSpec("lark", 'start: "a" <eos>\n')
    mv = Vocabulary.from_bytes([b"a", b"\xff[", b"\xff<", b"<eos>"], eos_token_id=3)
    assert k["special-marker-bytes"].applies(Divergence(marker, mv, [0], 1, [1], []))
    assert not k["special-marker-bytes"].applies(Divergence(marker, mv, [0], 1, [2], []))
    assert not k["special-marker-bytes"].applies(Divergence(marker, mv, [], 0, [1], []))
    ambiguous = GrammarSpec("lark", 'start: <think>? <[282-283]> "x"\n')
    think = v.tokens.index(b"<think>")
    assert k["token-read-by-first-lexeme"].applies(Divergence(ambiguous, v, [think], 1, [], [ord("x")]))
    assert not k["token-read-by-first-lexeme"].applies(Divergence(ambiguous, v, [think], 1, [ord("y")], []))
    assert not k["token-read-by-first-lexeme"].applies(Divergence(ambiguous, v, [], 0, [], [ord("x")]))
    eos_first = GrammarSpec("lark", 'start: "a" (<eos> "b")?\n')
    b = load_builtin("bytes")
    assert k["eos-before-token-lexeme"].applies(Divergence(eos_first, b, [ord("a"), 256], 2, [256], [ord("b")]))
    assert not k["eos-before-token-lexeme"].applies(Divergence(eos_first, b, [ord("a")], 1, [256], [ord("b")]))
    sub = GrammarSpec("lark", 'start: sub+ "!"\nsub: %lark {\nstart: "a"\n%ignore " "\n}\n')
    assert k["subgrammar-ignore"].applies(Divergence(sub, b, [ord("a")], 1, [ord(" ")], []))
    assert not k["subgrammar-ignore"].applies(Divergence(sub, b, [ord("a")], 1, [ord("b")], []))
    assert not k["subgrammar-ignore"].applies(Divergence(sub, b, [], 0, [ord(" ")], []))
    complete = GrammarSpec("lark", 'start: o "a"\no[stop=""]: "a"\n')
    extends = GrammarSpec("lark", 'start: o "a"\no[stop=""]: /a+/\n')
    assert k["stop-eos-after-complete-lexeme"].applies(Divergence(complete, b, [ord("a")], 1, [], [256]))
    assert not k["stop-eos-after-complete-lexeme"].applies(Divergence(extends, b, [ord("a")], 1, [], [256]))
    empty_first = GrammarSpec("lark", 'start: O "a"\nO: /[a-z]*/\n%ignore ","\n')
    assert k["empty-first-lexeme"].applies(Divergence(empty_first, b, [], 0, [ord(",")], []))
    assert not k["empty-first-lexeme"].applies(Divergence(empty_first, b, [], 0, [ord(";")], []))
    assert not k["empty-first-lexeme"].applies(Divergence(GrammarSpec("lark", 'start: O "a"\nO: /[a-z]+/\n'
                                                                      '%ignore ","\n'), b, [], 0, [ord(",")], []))
    bounded = GrammarSpec("json_schema", schema={"type": "number", "minimum": -1})
    text = [ord(c) for c in "-0.10"]
    assert k["negative-fraction-trailing-zero"].applies(Divergence(bounded, b, text, 5, [], [256]))
    assert not k["negative-fraction-trailing-zero"].applies(Divergence(bounded, b, text[:-1], 4, [], [256]))
    assert not k["negative-fraction-trailing-zero"].applies(
        Divergence(GrammarSpec("json_schema", schema={"type": "number"}), b, text, 5, [], [256]))
    panic = "mask: RuntimeError: llguidance: panic: grammar stack empty for non-root grammar: {LexemeClass(1)}"
    assert k["subgrammar-skip-panic"].applies(Divergence(sub, b, [ord("a")], 1, [], [], error=panic))
    assert not k["subgrammar-skip-panic"].applies(Divergence(sub, b, [ord("a")], 1, [], [], error="mask: panic: x"))


@pytest.mark.parametrize("name", ["outlines-core", "xgrammar"])
def test_peers_without_special_tokens_refuse_them(name):
    """outlines-core and xgrammar refuse a Lark grammar with special tokens and options (and
    outlines-core a vocabulary with two EOS ids) as NotSupported, installed or not."""
    backend = get_engine(name)
    v = load_builtin("special")
    with pytest.raises(NotSupported):
        backend.start(GrammarSpec("lark", 'start: <think> x </think>\nx[stop=""]: /[a-z]+/\n'), v)
    if name == "outlines-core":
        with pytest.raises(NotSupported):
            backend.start(GrammarSpec("regex", "a+"), v)


class _Found(Exception):
    pass


def _first(mode, condition):
    """The first (spec, vocabulary) the fuzzer's strategy draws, with a fixed seed, that
    satisfies `condition` and that refimpl compiles and binds to the vocabulary."""
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from conformance.strategies import examples

    @seed(0)
    @settings(database=None, max_examples=2000, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(examples(["lark"], mode))
    def probe(drawn):
        spec, vocab = drawn
        if condition(spec.source, vocab):
            try:
                Matcher(spec.compile(), vocab)
            except MaskrefError:
                return
            raise _Found(drawn)

    with pytest.raises(_Found) as found:
        probe()
    return found.value.args[0]


# constructs the Lark strategy must generate: (name, vocabulary mode, condition on the source)
STRATEGY_CONSTRUCTS = [
    ("special token by name", "special", lambda s, v: "<think>" in s or "<|" in s),
    ("EOS by name", "small", lambda s, v: "<eos>" in s),
    ("token id", "special", lambda s, v: re.search(r"<\[\d+\]>", s)),
    ("token range", "special", lambda s, v: re.search(r"<\[\d+-\d+\]>", s)),
    ("token list", "special", lambda s, v: re.search(r"<\[\d+,\d+\]>", s)),
    ("negated range", "special", lambda s, v: "<[^" in s),
    ("any token", "special", lambda s, v: "<[*]>" in s),
    ("lazy", "special", lambda s, v: "[lazy" in s),
    ("stop string", "special", lambda s, v: 'stop="c"' in s or 'stop="b"' in s),
    ("stop regex", "special", lambda s, v: "stop=/" in s),
    ("suffix", "special", lambda s, v: "suffix=" in s),
    ('stop=""', "special", lambda s, v: 'stop=""' in s),
    ("max_tokens", "special", lambda s, v: "max_tokens=" in s),
    ("temperature", "special", lambda s, v: "temperature=" in s),
    ("capture", "special", lambda s, v: "capture" in s),
    ("sub-grammar with its own %ignore", "special", lambda s, v: re.search(r"%lark \{[^}]*%ignore", s)),
    ("sub-grammar with a special token", "special", lambda s, v: re.search(r"%lark \{[^}]*<", s)),
    ("the special vocabulary in mixed mode", "mixed", lambda s, v: v.name == "special" and "<" in s),
]


@pytest.mark.parametrize("name,mode,condition", STRATEGY_CONSTRUCTS, ids=[c[0] for c in STRATEGY_CONSTRUCTS])
def test_strategies_generate_each_construct(name, mode, condition):
    spec, vocab = _first(mode, condition)
    assert condition(spec.source, vocab)
    m = Matcher(spec.compile(), vocab)
    assert len(m.mask()) >= 0  # the grammar binds and runs


def test_special_is_a_vocabulary_mode(tmp_path):
    from conformance.strategies import VOCAB_MODES

    assert "special" in VOCAB_MODES
    report = fuzz_oracle_special(tmp_path)
    assert not report.failures, report.table()
    assert report.stats.steps > 0


def fuzz_oracle_special(tmp_path):
    from conformance.fuzz import fuzz

    return fuzz("oracle", 4, seed=5, out_dir=str(tmp_path), quiet=True, vocab_mode="special", kinds=["lark"])


def test_the_compliance_matrix_row(tmp_path):
    """`run --matrix`: one Markdown row per engine, a cell per grammar kind."""
    from conformance.runner import MATRIX_KINDS, matrix_header, matrix_row, run_suite

    suite = os.path.join(SUITE_DIR, "findings.jsonl")
    report = run_suite(get_engine("fault:drop-eos"), suite, str(tmp_path), quiet=True)
    row = matrix_row(report)
    assert matrix_header().splitlines()[0].count("|") == row.count("|") == len(MATRIX_KINDS) + 4
    cells = dict(zip([k for k, _ in MATRIX_KINDS], row.split(" | ")[1:]))
    lark = report.rows["lark"]
    assert cells["lark"].startswith("%d ✓ %d ≈ %d ✗" % (lark["agree"], lark["known"], lark["disagree"]))
    assert lark["disagree"] > 0  # the fault never allows EOS


def test_llguidance_hostname_hyphens():
    HOSTNAME_HYPHENS = _differences()["hostname-hyphens"]

    b = load_builtin("bytes")
    host = GrammarSpec("json_schema", schema={"type": "string", "format": "hostname"})
    text = [ord(c) for c in '"ab']
    assert HOSTNAME_HYPHENS.applies(Divergence(host, b, text + [ord("-")], 4, [ord("-")], []))
    assert not HOSTNAME_HYPHENS.applies(Divergence(host, b, text, 3, [ord("-")], []))  # ab- is fine
    plain = GrammarSpec("json_schema", schema={"type": "string"})
    assert not HOSTNAME_HYPHENS.applies(Divergence(plain, b, text + [ord("-")], 4, [ord("-")], []))


def test_llguidance_escape_in_negated_class():
    ESCAPE_IN_NEGATED_CLASS = _differences()["escape-in-negated-class"]

    b = load_builtin("bytes")
    no_backslash = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^[^\\\\]*$"})
    text = [ord(c) for c in '"a\\']  # "a and a backslash: an escape begins
    assert ESCAPE_IN_NEGATED_CLASS.applies(Divergence(no_backslash, b, text, 3, [ord("\\")], []))
    assert not ESCAPE_IN_NEGATED_CLASS.applies(Divergence(no_backslash, b, text, 3, [ord("n")], []))  # \n: not it
    assert not ESCAPE_IN_NEGATED_CLASS.applies(Divergence(no_backslash, b, text, 3, [ord("\\")], [ord("n")]))
    escaped = [ord(c) for c in '"\\\\']  # "\\ : the backslash escaped, another token after it
    assert not ESCAPE_IN_NEGATED_CLASS.applies(Divergence(no_backslash, b, escaped, 3, [ord("a")], []))
    other = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^[^x]*$"})
    assert not ESCAPE_IN_NEGATED_CLASS.applies(Divergence(other, b, text, 3, [ord("\\")], []))


def test_llguidance_ecma_dot_and_space():
    ECMA_CLASSES = _differences()["ecma-dot-and-space"]

    b = load_builtin("bytes")
    dot = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^.{0,2}$"})
    escape = [ord(c) for c in '"\\']  # an escape begins
    assert ECMA_CLASSES.applies(Divergence(dot, b, escape, 2, [ord("r")], []))  # \r: CR
    assert not ECMA_CLASSES.applies(Divergence(dot, b, escape, 2, [ord("n")], []))  # \n: both leave it out
    ls = list(b'"\xe2\x80')  # U+2028 is E2 80 A8
    assert ECMA_CLASSES.applies(Divergence(dot, b, ls, 3, [0xA8], []))
    assert not ECMA_CLASSES.applies(Divergence(dot, b, ls, 3, [0xA7], []))
    space = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^\\s$"})
    assert ECMA_CLASSES.applies(Divergence(space, b, list(b'"\xef\xbb'), 3, [], [0xBF]))  # U+FEFF: ECMA only
    literal = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^a\\.b$"})
    assert not ECMA_CLASSES.applies(Divergence(literal, b, escape, 2, [ord("r")], []))


# ------------------------------------------------------------------------------ blind spots (issue 20)

BLINDSPOTS_SUITE = os.path.join(SUITE_DIR, "blindspots.jsonl")


def test_blindspot_vectors_are_what_generate_writes_and_cover_each_blind_spot():
    """The `blindspots` group: regenerated entries equal the checked-in lines; the group
    has two EOS ids on a vocabulary, escapes split across tokens, slice-boundary tokens
    in masks, lexemes ending on the same bytes, and multi-byte case folding."""
    from conformance import generate

    kept = generate.BLINDSPOTS
    try:
        generate.BLINDSPOTS = [e for e in kept if e[0] in ("escape-pieces", "two-eos")]
        fresh = {v.id: v.to_line() for v in generate.generate(kinds=["blindspots"])["blindspots"]}
    finally:
        generate.BLINDSPOTS = kept
    stored = {v.id: v for _, _, v in read_vectors(BLINDSPOTS_SUITE)}
    assert len(fresh) == 6 and {i: stored[i].to_line() for i in fresh} == fresh
    by_name = {}
    for v in stored.values():
        by_name.setdefault(v.id.split("/")[1], []).append(v)
    two_eos = by_name["two-eos"][0]
    assert len(two_eos.vocab.eos_token_ids) == 2 and {0, 7} <= set(ids_of(two_eos.steps[-2].mask))
    pieces = [two.vocab.tokens[t] for two in by_name["escape-pieces"][:1] for t in two.path]
    assert b"\\" in pieces and b"u" in pieces  # `\u001f` typed in pieces
    runs = generate.ESCAPE_VOCAB.tokens.index(b"abcdefghij"), generate.ESCAPE_VOCAB.tokens.index(b"abcdefghijk")
    quoted = stored["blindspots/slice-bound-10/escapes/1"]
    assert quoted.vocab.tokens[quoted.path[0]] == b'"'
    first = quoted.steps[1].mask  # after the opening quote
    assert runs[0] in ids_of(first) and runs[1] not in ids_of(first)  # 10 fit, 11 do not
    assert "same-ends" in by_name and "case-folding" in by_name and "xgrammar-max-tokens" in by_name


def test_refimpl_backends_are_compared_on_forced_tokens(tmp_path):
    """A Matcher backend whose forced_tokens is wrong agrees on every mask, and `run`
    still finds it (conformance/apicheck.py)."""
    from conformance.refimpl_engines import MatcherEngine, MatcherSession

    class Wrong(Matcher):
        def forced_tokens(self):
            return super().forced_tokens()[:-1]

    class Engine(MatcherEngine):
        def start(self, spec, vocab, grammar=None):
            return MatcherSession(Wrong(grammar or spec.compile(), vocab))

    spec = GrammarSpec("regex", "abc")
    vocab = Vocabulary.from_bytes([b"a", b"b", b"c", b"<eos>"], eos_token_id=3)
    v = record(spec.compile(), spec, vocab, [0, 1, 2, 3], "test/forced")
    wrong = Engine()
    wrong.name = "wrong-forced"
    res = check_vector(wrong, v)
    assert res.status == "disagree" and "forced_tokens" in res.divergence["error"], res.divergence
    assert check_vector(MatcherEngine("python"), v).status == "agree"


def test_refimpl_backends_are_compared_on_rollback():
    """A Matcher backend whose rollback forgets to undo the last step: masks and forced
    tokens agree along the path, the rollback at its end disagrees."""
    from conformance.refimpl_engines import MatcherEngine, MatcherSession

    class Wrong(Matcher):
        def rollback(self, n_tokens):
            super().rollback(max(0, n_tokens - 1) if n_tokens <= len(self._steps) else n_tokens)

    class Engine(MatcherEngine):
        def start(self, spec, vocab, grammar=None):
            return MatcherSession(Wrong(grammar or spec.compile(), vocab))

    wrong = Engine()
    wrong.name = "wrong-rollback"
    spec = GrammarSpec("regex", "1234")
    v = record(spec.compile(), spec, byte_vocabulary(), list(b"1234"), "test/rollback")
    res = check_vector(wrong, v)
    assert res.status == "disagree" and res.divergence["error"] == "rollback(2): the masks after it differ"


def test_refimpl_backends_refuse_a_rollback_past_the_start_as_refimpl_does():
    """A Matcher whose refusal is a TypeError, not refimpl's ValueError."""
    from conformance.refimpl_engines import MatcherEngine, MatcherSession

    class Wrong(Matcher):
        def rollback(self, n_tokens):
            if n_tokens > len(self._steps):
                raise TypeError("unsupported operand")
            super().rollback(n_tokens)

    class Engine(MatcherEngine):
        def start(self, spec, vocab, grammar=None):
            return MatcherSession(Wrong(grammar or spec.compile(), vocab))

    wrong = Engine()
    wrong.name = "wrong-refusal"
    res = check_vector(wrong, digits_vector())
    assert res.status == "disagree" and "raised TypeError (refimpl: ValueError)" in res.divergence["error"]


def test_refimpl_backends_must_refuse_a_refused_token():
    """A Matcher that says it took a token its mask refuses (its masks are refimpl's)."""
    from conformance.refimpl_engines import MatcherEngine, MatcherSession

    class Wrong(Matcher):
        def consume(self, token_id):
            super().consume(token_id)
            return True

    class Engine(MatcherEngine):
        def start(self, spec, vocab, grammar=None):
            return MatcherSession(Wrong(grammar or spec.compile(), vocab))

    wrong = Engine()
    wrong.name = "wrong-consume"
    res = check_vector(wrong, digits_vector((0x31, 0x32)))
    assert res.status == "disagree" and "took a token the mask refuses" in res.divergence["error"], res.divergence
    assert check_vector(MatcherEngine("python"), digits_vector((0x31, 0x32))).status == "agree"
