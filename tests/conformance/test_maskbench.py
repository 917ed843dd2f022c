"""conformance/maskbench.py: a corpus in JSONSchemaBench's layout -> vectors; engines run
on them give MaskBench's verdicts, under/over counts and its figures."""
from __future__ import annotations

import io
import json
import os
from typing import Any, Dict, List, Optional

import pytest

from conformance import report
from conformance.__main__ import main as cli
from conformance.differences import KnownDifference
from conformance.engine import Engine, Session
from conformance.faults import FaultEngine
from conformance.maskbench import SOURCE, Options, main_maskbench, maskbench_summary, read_sample, sample, subset_of
from conformance.refimpl_engines import MatcherEngine, MatcherSession
from conformance.runner import GrammarCache, check_vector
from conformance.vectors import GrammarSpec, Vector, bitmask_from_ids, ids_of, load_builtin, read_vectors
from refimpl import Grammar, Matcher, Vocabulary

pytest.importorskip("regex")  # the tokenizers' pre-tokeniser patterns (conformance/bpe.py)

PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name"], "additionalProperties": False}
FILES = {
    "Github_easy---person": {"schema": PERSON, "tests": [
        {"valid": True, "data": {"name": "Ann", "age": 3}},
        {"valid": False, "data": {"name": "Bob", "age": "x"}},
        {"valid": False, "data": {"name": "Bob", "age": 3, "extra": 1}}]},
    "Glaiveai2K---pair": {"schema": {"type": "array", "items": {"type": "integer"}, "maxItems": 2}, "tests": [
        {"valid": True, "data": [1, 2]},
        {"valid": False, "data": [1, 2, 3]}]},
    "Kubernetes---unique": {"schema": {"type": "array", "uniqueItems": True}, "tests": [
        {"valid": True, "data": [1]}]},
}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: Any) -> str:
    root = tmp_path_factory.mktemp("jsonschemabench")
    os.makedirs(root / "maskbench" / "data")
    for stem, data in FILES.items():
        with open(root / "maskbench" / "data" / (stem + ".json"), "w") as f:
            json.dump(dict(data, description="", meta={}), f)
    out = str(root / "gpt2.jsonl")
    err = io.StringIO()
    assert main_maskbench(str(root), out, Options("gpt2", walks=1, max_tokens=64), stream=err) == 0
    text = err.getvalue()
    assert "2 schemas, 12 vectors" in text
    assert "skipped    1 x refimpl: SchemaError: uniqueItems" in text
    return out


def _vectors(path: str) -> Dict[str, Vector]:
    return {v.id: v for _, _, v in read_vectors(path)}


def test_vectors_ids_tags_and_paths(suite: str) -> None:
    vs = _vectors(suite)
    assert sorted(vs) == sorted(
        ["maskbench/Github_easy/Github_easy---person/%s/gpt2" % w
         for w in ("t0", "t0-compact", "t1", "t1-compact", "t2", "t2-compact", "walk0")]
        + ["maskbench/Glaiveai2K/Glaiveai2K---pair/%s/gpt2" % w for w in ("t0", "t0-compact", "t1", "t1-compact", "walk0")])
    gpt2 = load_builtin("gpt2")
    v = vs["maskbench/Github_easy/Github_easy---person/t0/gpt2"]
    assert v.tags == ["maskbench", "Github_easy", "valid", "text"]
    assert v.benchmark is not None and v.benchmark.valid
    # MaskBench's spelling, the tokenizer's tokens, then EOS; refimpl takes them all
    assert gpt2.decode(v.benchmark.tokens) == b'{"name": "Ann", "age": 3}<|endoftext|>'
    assert v.path == v.benchmark.tokens and v.steps[-1].token is None
    compact = vs["maskbench/Github_easy/Github_easy---person/t0-compact/gpt2"]
    assert gpt2.decode(compact.path) == b'{"name":"Ann","age":3}<|endoftext|>'
    # an invalid instance: the path runs to the first token refimpl refuses
    bad = vs["maskbench/Glaiveai2K/Glaiveai2K---pair/t1/gpt2"]
    assert bad.tags[2:] == ["invalid", "text"]
    assert gpt2.decode(bad.path) == b"[1, 2" and gpt2.decode(bad.benchmark.tokens) == b"[1, 2, 3]<|endoftext|>"
    walk = vs["maskbench/Glaiveai2K/Glaiveai2K---pair/walk0/gpt2"]
    assert walk.tags == ["maskbench", "Glaiveai2K", "walk", "walk"] and walk.benchmark is None
    m = Matcher(Grammar.from_json_schema(FILES["Glaiveai2K---pair"]["schema"]), gpt2)
    assert m.consume_tokens(walk.path)  # a walk stays in refimpl's language


def test_vectors_are_the_same_again(suite: str, tmp_path: Any) -> None:
    """Seeded: the same corpus and options give the same file."""
    out = str(tmp_path / "again.jsonl")
    root = os.path.dirname(suite)
    main_maskbench(root, out, Options("gpt2", walks=1, max_tokens=64), stream=io.StringIO())
    with open(suite) as a, open(out) as b:
        assert a.read() == b.read()


def _run(engine: Engine, suite: str) -> List[Dict[str, Any]]:
    grammars = GrammarCache()
    out = []
    for _, _, v in read_vectors(suite):
        r = check_vector(engine, v, grammars).to_json()
        out.append(dict(r, engine=engine.name, tags=v.tags))
    return out


def test_refimpl_agrees_and_judges_the_instances(suite: str) -> None:
    records = _run(MatcherEngine(), suite)
    assert {r["status"] for r in records} == {"agree"}
    assert all(r["under"] == r["over"] == 0 for r in records)
    tests = [r for r in records if "walk" not in r["tags"]]
    assert all(r["accepted"] is r["valid"] for r in tests) and len(tests) == 10
    assert all(r["valid"] is None and r["accepted"] is None for r in records if "walk" in r["tags"])
    assert all(r["first_mask_us"] is not None and len(r["mask_us"]) >= 1 for r in records)
    s = maskbench_summary(records)["refimpl"]
    assert (s["schemas"], s["compiled"], s["passing"], s["differing"]) == (2, 2, 2, 0)
    assert s["under_per_1000"] == s["over_per_1000"] == 0.0


def test_llguidance_on_the_corpus(suite: str) -> None:
    pytest.importorskip("llguidance")
    from conformance.registry import get_engine

    records = _run(get_engine("llguidance"), suite)
    assert {r["status"] for r in records} <= {"agree", "known"}
    assert all(r["accepted"] is r["valid"] for r in records if "walk" not in r["tags"])
    assert maskbench_summary(records)["llguidance"]["passing"] == 2


def test_drop_eos_is_over_constraining(suite: str) -> None:
    """An engine that never allows EOS refuses refimpl's EOS (over), and so every valid text."""
    records = _run(FaultEngine("drop-eos"), suite)
    valid = [r for r in records if r["valid"]]
    assert valid and all(r["accepted"] is False for r in valid)
    assert all(r["over"] == 1 and r["under"] == 0 and r["divergence"]["direction"] == "over" for r in valid)
    s = maskbench_summary(records)["fault:drop-eos"]
    assert (s["passing"], s["validation_errors"], s["invalidation_errors"], s["differing"]) == (0, 2, 0, 2)
    assert s["over_per_1000"] > 0 and s["under_per_1000"] == 0


class ExtraSession(MatcherSession):
    """refimpl's masks plus one token, always (until the output ended)."""

    def __init__(self, matcher: Matcher, extra: int) -> None:
        super().__init__(matcher)
        self.extra = extra

    def mask(self) -> bytes:
        ids = ids_of(super().mask())
        if ids:
            ids = sorted(set(ids) | {self.extra})
        return bitmask_from_ids(ids, len(self.m.vocab))

    def consume(self, token: int) -> bool:
        return token != self.extra and super().consume(token)


class ExtraEngine(Engine):
    """Allows one token refimpl refuses (declared, so every step is compared)."""

    name = "extra"
    uses_refimpl = True

    def __init__(self, extra: int, declared: bool) -> None:
        self.extra = extra
        if declared:
            self.known_differences = [KnownDifference("extra-token", "semantic", "one more token",
                                                      lambda d: d.only_engine == [extra] and not d.only_refimpl)]

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        return ExtraSession(Matcher(grammar or spec.compile(), vocab), self.extra)


def test_under_constraining_counted_per_step(suite: str) -> None:
    gpt2 = load_builtin("gpt2")
    bang = gpt2.tokens.index(b"~~~~")
    v = _vectors(suite)["maskbench/Glaiveai2K/Glaiveai2K---pair/t0/gpt2"]  # "[1, 2]" then EOS
    r = check_vector(ExtraEngine(bang, declared=True), v)
    # every step before EOS (refimpl never allows "~~~~"), none after it (the mask is empty)
    assert (r.status, r.steps, r.under, r.over, r.known) == ("known", len(v.steps), len(v.steps) - 1, 0, ["extra-token"])
    assert r.accepted is True
    r = check_vector(ExtraEngine(bang, declared=False), v)
    assert (r.status, r.steps, r.under, r.over) == ("disagree", 1, 1, 0)
    assert r.divergence is not None and r.divergence["direction"] == "under"
    assert r.accepted is True  # the engine still takes the whole text


def _record(stem: str, which: str, engine: str = "e", status: str = "agree", **fields: Any) -> Dict[str, Any]:
    kind = "walk" if which.startswith("walk") else "compact" if which.endswith("compact") else "text"
    r = {"id": "maskbench/S/%s/%s/gpt2" % (stem, which), "kind": "json_schema", "status": status, "steps": 10,
         "known": [], "reason": "", "divergence": None, "repro": None, "fault": "", "under": 0, "over": 0,
         "first_mask_us": 100, "mask_us": [10, 20], "valid": None, "accepted": None, "engine": engine,
         "tags": ["maskbench", "S", "walk" if kind == "walk" else "valid", kind], "seconds": 0.1}
    r.update(fields)
    return r


def test_summary_counts_as_maskbench() -> None:
    records = [
        # a passes: valid accepted, invalid refused (its compact form, not MaskBench's, is wrong)
        _record("a", "t0", valid=True, accepted=True, first_mask_us=300),
        _record("a", "t1", valid=False, accepted=False, under=2, steps=10),
        _record("a", "t1-compact", valid=False, accepted=True),
        _record("a", "walk0", status="disagree", over=1, steps=5, mask_us=[30]),
        # b: an invalid text accepted, then a valid one refused: the last failing test counts
        _record("b", "t0", valid=False, accepted=True),
        _record("b", "t1", valid=True, accepted=False),
        # c: an invalid text accepted (an invalidation error)
        _record("c", "t0", valid=True, accepted=True),
        _record("c", "t1", valid=False, accepted=True),
        # d: not compiled; e: timed out; f: no vectors of maskbench
        _record("d", "t0", status="unsupported", steps=0, first_mask_us=None, mask_us=[], valid=True),
        _record("e", "t0", status="disagree", fault="timeout", seconds=30.0, first_mask_us=None, mask_us=[]),
        dict(_record("f", "t0"), id="regex/f/0"),
        _record("a", "t0", engine="other", valid=True, accepted=False),
    ]
    s = maskbench_summary(records)
    assert sorted(s) == ["e", "other"]
    e = s["e"]
    assert (e["schemas"], e["compiled"], e["passing"], e["validation_errors"], e["invalidation_errors"]) == (5, 3, 1, 1, 1)
    assert e["differing"] == 2 and e["faults"] == {"timeout": 1}
    steps = 10 * 7 + 5 + 0 + 10
    assert e["steps"] == steps and e["under_per_1000"] == pytest.approx(2000.0 / steps)
    assert e["over_per_1000"] == pytest.approx(1000.0 / steps)
    # TTFM: a's median start (100, not its first 300), b's, c's, and e's timeout at its limit
    assert e["ttfm_us"] == {"p50": 100, "p75": 30000000, "p99": 30000000, "max": 30000000}
    assert e["tbm_us"]["max"] == 30 and e["tbm_us"]["p50"] == 20
    assert maskbench_summary(records, timeout_s=900)["e"]["ttfm_us"]["max"] == 900000000
    assert s["other"]["passing"] == 0 and s["other"]["validation_errors"] == 1


def test_sample_is_stratified_and_seeded() -> None:
    stems = (["Github_easy---%d" % i for i in range(50)] + ["BFCL_simple_%d" % i for i in range(30)]
             + ["JME_%d" % i for i in range(20)])
    picked = sample(stems, 10, seed=3)
    assert len(picked) == 10 and picked == sample(stems, 10, seed=3) and picked != sample(stems, 10, seed=4)
    assert sorted(subset_of(s) for s in picked).count("Github_easy") == 5
    assert {subset_of(s) for s in sample(stems, 10, seed=3, subset="JME")} == {"JME"}


def test_cli(suite: str, tmp_path: Any, capsys: Any) -> None:
    out = str(tmp_path / "one.jsonl")
    root = os.path.dirname(suite)
    assert cli(["maskbench", root, "--out", out, "--sample", "1", "--walks", "0", "--backend", "python",
                "--subset", "Glaiveai2K", "--summary", str(tmp_path / "gpt2.sample.json")]) == 0
    assert "1 schemas, 4 vectors" in capsys.readouterr().err
    record = read_sample(str(tmp_path / "gpt2.sample.json"))
    assert (record["sample"], record["subset"], record["walks"], record["backend"]) == (1, "Glaiveai2K", 0, "python")
    assert (record["schemas"], record["vectors"]) == ({"Glaiveai2K": 1}, 4)
    assert set(_vectors(out)) == {"maskbench/Glaiveai2K/Glaiveai2K---pair/%s/gpt2" % w
                                  for w in ("t0", "t0-compact", "t1", "t1-compact")}


def test_cli_errors(tmp_path: Any, capsys: Any) -> None:
    assert cli(["maskbench", str(tmp_path), "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "has no maskbench/data/*.json" in capsys.readouterr().err
    assert cli(["maskbench", str(tmp_path), "--out", "x", "--vocab", "bytes"]) == 2
    assert "--vocab must be one of gpt2, tekken" in capsys.readouterr().err


def test_the_sample_record(suite: str, tmp_path: Any, capsys: Any) -> None:
    """`--summary` writes what the command printed as the sample's record, which report
    tables (docs/compliance.md's samples); a file that is no record is an error naming it."""
    root = os.path.dirname(suite)
    path = tmp_path / "gpt2.sample.json"
    err = io.StringIO()
    assert main_maskbench(root, str(tmp_path / "v.jsonl"), Options("gpt2", walks=1, max_tokens=64), stream=err,
                          summary=str(path)) == 0
    record = read_sample(str(path))
    assert (record["vocab"], record["sample"], record["seed"], record["max_tokens"]) == ("gpt2", 0, 0, 64)
    assert record["schemas"] == {"Github_easy": 1, "Glaiveai2K": 1} and record["vectors"] == 12
    assert "%d schemas, %d vectors, %d masks" % (2, 12, record["masks"]) in err.getvalue()
    assert list(record["skipped"].values()) == [1] and "uniqueItems" in list(record["skipped"])[0]
    assert record["bytes"] == os.path.getsize(tmp_path / "v.jsonl") and record["source"].startswith(SOURCE + "@")
    rows = {r[0]: r[1:] for r in report.samples_table(report.load([str(path)])).rows}
    assert rows["schemas with vectors"] == ["2"] and rows["skipped: refimpl refuses the schema (below)"] == ["1"]
    assert rows["schemas per subset"] == ["Github_easy 1, Glaiveai2K 1"]
    (tmp_path / "bad.sample.json").write_text('{"format": "other"}')
    with pytest.raises(ValueError, match="bad.sample.json: not a MaskBench sample"):
        read_sample(str(tmp_path / "bad.sample.json"))
    assert cli(["maskbench", root, "--out", str(tmp_path / "w.jsonl"), "--summary", str(tmp_path / "no" / "x.json")]) == 2
    assert "--summary" in capsys.readouterr().err
