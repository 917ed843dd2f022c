"""The scoreboard (conformance/report.py) and the committed results it is made from
(results/): docs/compliance.md is the regeneration of results/, the docs' figures of runs
are the results', the committed runs are of this suite and of the engines' versions here,
and rerunning the default suite gives each vector the committed status and known
differences (every engine installed here; in CI the `peers` extra's too).

The reruns are split in shards (pytest -n spreads them): measured on a shared 2-core
machine, one process, the default suite of 567 vectors takes refimpl ~12 s, index ~28 s,
llguidance ~3 s, kbnf ~23 s and lm-format-enforcer ~33 s."""
import collections
import difflib
import json
import re
import xml.etree.ElementTree as ET

import pytest

from conformance import report, results
from conformance.__main__ import main
from conformance.generate import SUITE_DIR
from conformance.registry import get_engine
from conformance.runner import GrammarCache, check_vector, raw_lines
from conformance.vectors import Vector
from tests.support import cli, scoreboard
from tests.support.paths import ROOT

RESULTS = ROOT / "results"
DEFAULT = RESULTS / "default"
ENGINES = sorted(p.name[:-len(".jsonl.gz")] for p in DEFAULT.glob("*.jsonl.gz"))
#: engines whose rerun is split in shards, and how many (the slow ones)
SHARDS = {"index": 3, "kbnf": 2, "lm-format-enforcer": 3, "refimpl": 2}


def committed(engine):
    return report.read_results(str(DEFAULT / (engine + ".jsonl.gz")))


def suite_lines():
    """(id, digest) of each vector line of the default suite, and the lines."""
    out = collections.OrderedDict()
    for line in raw_lines(SUITE_DIR):
        out[json.loads(line)["id"]] = (results.digest(line), line)
    return out


# ------------------------------------------------------------------------------- staleness


def test_the_committed_results_are_there():
    assert {"refimpl", "llguidance", "kbnf", "lm-format-enforcer"} <= set(ENGINES)


def test_compliance_md_is_the_regeneration(monkeypatch):
    """docs/compliance.md is exactly what `report` writes from results/ (a hand edit fails)."""
    monkeypatch.chdir(ROOT)
    want = report.markdown(report.load(["results"]))
    have = (ROOT / "docs" / "compliance.md").read_text(encoding="utf-8")
    diff = "\n".join(list(difflib.unified_diff(have.splitlines(), want.splitlines(), "docs/compliance.md",
                                               "regenerated", lineterm=""))[:40])
    assert have == want, "docs/compliance.md is not the regeneration of results/ (%s):\n%s" % (report.REGENERATE, diff)


def test_the_template_types_no_figure():
    """Every figure of docs/compliance.md comes from the records: the template's prose
    holds no number but names (GPT-2, issue 17, E11–E20, X11, UTF-8) and fixed limits."""
    text = (ROOT / "conformance" / "compliance_template.md").read_text(encoding="utf-8")
    allowed = {"GPT-2", "issue 17", "E11", "E20", "X11", "20 KB", "10 s", "1,000", "UTF-8", "--jobs 2", "p50", "p75", "p99",
               "2020-12", "--timeout 30"}
    for a in allowed:
        text = text.replace(a, "")
    assert re.findall(r"\d[\d,.]*", text) == []


def test_a_missing_field_is_an_error():
    with pytest.raises(KeyError):
        report.fill("{{default_vectors}} {{no_such_field}}", {"default_vectors": "1"})
    assert report.fill("a {{b}} c", {"b": "1,234"}) == "a 1,234 c"


@pytest.mark.parametrize("engine", ENGINES)
def test_the_committed_runs_are_of_this_suite(engine):
    """Each committed run holds one record per vector of the default suite, for the
    vector's line as it is now (a regenerated or edited vector needs a rerun)."""
    have = {(r["id"], r["digest"]) for r in committed(engine)}
    want = {(id, digest) for id, (digest, _) in suite_lines().items()}
    changed = sorted(id for id, _ in want - have)
    gone = sorted(id for id, _ in have - want if id not in {i for i, _ in want})
    assert not changed and not gone, ("results/default/%s.jsonl.gz is of another suite: %d vectors new or changed "
                                      "(%s), %d gone (%s); rerun and regenerate: %s"
                                      % (engine, len(changed), ", ".join(changed[:10]), len(gone),
                                         ", ".join(gone[:10]), report.rerun_command(engine)))


RERUNS = [(e, k, SHARDS.get(e, 1)) for e in ENGINES for k in range(SHARDS.get(e, 1))]


@pytest.mark.parametrize("engine,shard,shards", RERUNS, ids=["%s-%d" % (e, k) for e, k, _ in RERUNS])
def test_a_rerun_gives_the_committed_results(engine, shard, shards):
    """Vector by vector (every shards-th, from shard), the status and the known
    differences of a rerun equal the committed record's; an engine of another version
    than the committed run's is a failure that says how to rerun."""
    e = get_engine(engine)
    reason = e.unavailable_reason()
    if reason:
        pytest.skip("%s is not installed here: %s" % (engine, reason))
    records = {r["id"]: r for r in committed(engine)}
    try:
        versions = {r["version"] for r in records.values()}
        assert versions == {e.version()}, ("results/default/%s.jsonl.gz is of %s, here runs %r: rerun and "
                                           "regenerate: %s" % (engine, ", ".join(sorted(versions)), e.version(),
                                                               report.rerun_command(engine)))
        grammars = GrammarCache()
        wrong = []
        for i, (id, (_, line)) in enumerate(suite_lines().items()):
            if i % shards != shard:
                continue
            r = check_vector(e, Vector.from_json(json.loads(line)), grammars)
            was = records.get(id)
            got, want = (r.status, sorted(r.known)), (was["status"], sorted(was["known"])) if was else None
            if got != want:
                wrong.append("%s: now %s %s, committed %s" % (id, got[0], got[1], want))
    finally:
        e.close()
    assert not wrong, "%d vectors differ from results/default/%s.jsonl.gz:\n  %s\nrerun and regenerate: %s" % (
        len(wrong), engine, "\n  ".join(wrong), report.rerun_command(engine))


def test_the_docs_figures_of_runs_are_the_results():
    """docs/conformance.md's figures of runs: llguidance's known differences on
    tokens.jsonl and the token index's agreements, from the committed results."""
    text = " ".join((ROOT / "docs" / "conformance.md").read_text(encoding="utf-8").split())
    said = re.search(r"llguidance agrees or differs by known differences only \((.*?)\)\.", text)
    assert said
    claimed = {m.group(1): int(m.group(2)) for m in re.finditer(r"`([a-z-]+)` (\d+)", said.group(1))}
    tokens = [r for r in committed("llguidance") if r["id"].startswith("tokens/")]
    assert {r["status"] for r in tokens} <= {"agree", "known"}
    assert claimed == dict(collections.Counter(k for r in tokens for k in r["known"]))
    said = re.search(r"on the default suite (\d+) vectors agree, the other (\d+) are unsupported", text)
    assert said
    index = collections.Counter(r["status"] for r in committed("index"))
    assert (int(said.group(1)), int(said.group(2))) == (index["agree"], index["unsupported"])
    assert index["agree"] + index["unsupported"] == len(suite_lines())


# ------------------------------------------------------------------------------- the report itself


def test_written_results_are_the_same_bytes_for_the_same_records(tmp_path):
    report.write_records(scoreboard.RECORDS, str(tmp_path / "a.jsonl.gz"))
    report.write_records(scoreboard.RECORDS, str(tmp_path / "b.jsonl.gz"))
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()
    assert report.read_results(str(tmp_path / "a.jsonl.gz")) == scoreboard.RECORDS


def test_the_tables_from_made_up_records(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sources = report.load([str(scoreboard.write(tmp_path))])
    default = report.Board(sources, "default")
    assert default.engines == ["refimpl", "peer", "peer-default"]
    matrix = report.matrix_table(default)
    assert [r[0] for r in matrix.rows] == ["refimpl (refimpl 1.0)", "peer (peer 1.0)", "peer-default (peer-default 1.0)"]
    assert matrix.rows[1][1:4] == ["0 ✓ 1 ≈ 0 ✗", "—", "0 ✓ 0 ≈ 1 ✗"]
    totals = {r[0]: r for r in report.totals_table(default).rows}
    #            vectors masks agree known disagree under over n/a masks-under masks-over faults
    assert totals["peer"][1:] == ["2", "8", "0", "1", "1", "1", "0", "0", "1", "1", "—"]
    assert [r[:4] for r in report.disagreements(default).rows] == [["peer", "`lark/b/gpt2/0`", "2", "under"]]
    assert "`results/default/mixed.jsonl.gz`" in default.sources_line()
    mb = {(r["engine"], r["subset"]): r for r in report.maskbench_summary(
        [r for r in scoreboard.RECORDS if "maskbench" in r["tags"]])}
    easy, kube, every = mb[("peer", "Github_easy")], mb[("peer", "Kubernetes")], mb[("peer", "all")]
    assert (easy["schemas"], easy["compiled"], easy["passing"], easy["undeclared"]) == (1, 1, 0, 1)
    assert (kube["schemas"], kube["compiled"], kube["passing"], kube["faults"]) == (2, 0, 0, 1)
    assert (every["validation_errors"], every["invalidation_errors"]) == (1, 0)
    assert every["over_per_1000"] == 1000.0 * 2 / 12 and every["under_per_1000"] == 0
    # a schema's TTFM is its vectors' lower median; a timed-out schema counts at the limit
    # (here the longest time recorded, 10 ms); maskbench.percentile is MaskBench's
    assert easy["ttfm"] == [900] * 4 and every["ttfm"] == [10000] * 4 and every["tbm"] == [30, 40, 40, 40]
    assert [r[:3] for r in report.maskbench_table(report.Board(sources, "maskbench")).rows][-1] == [
        "peer-default", "gpt2", "all"]
    outcomes = report.outcome_table(report.Board(sources, "schemastore")).rows
    assert outcomes == [["peer", "2", "1", "1", "0", "0", "0", "0"]]
    # the MaskBench sample the vectors were made from, from its record
    samples = {r[0]: r[1] for r in report.samples_table(sources).rows}
    assert samples["record"] == "`results/gpt2.sample.json`" and samples["schemas with vectors"] == "3"
    assert samples["schemas per subset"] == "Github_easy 1, Kubernetes 2"
    assert (samples["skipped: refimpl refuses the schema (below)"], samples["skipped: recording over the budget"],
            samples["skipped: other"]) == ("1", "1", "0")
    assert samples["vectors / masks"] == "1,234 / 56,789" and samples["time / file size"] == "4,321 s / 2.5 MB"
    assert samples["valid instances refimpl refuses (text / compact)"] == "3 / 2"
    assert [r[1] for r in report.skipped_table(sources).rows] == ["1", "1"]


def test_the_page_holds_every_section_and_well_formed_plots(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    html = report.page(report.load([str(scoreboard.write(tmp_path))]))
    plots = re.findall(r"<svg.*?</svg>", html, re.S)
    names = [ET.fromstring(p).get("data-plot") for p in plots]  # each parses as XML
    assert names == ["default-outcomes", "default-kinds", "default-seconds", "maskbench-outcomes", "maskbench-ttfm",
                     "maskbench-tbm", "schemastore-outcomes"]
    segments = re.findall(r'<rect class="seg (\w+)"', plots[3])
    assert sorted(set(segments)) == ["agree", "fault", "known", "over", "unsupported"]
    assert "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")  # nothing fetched
    assert "<script" not in html
    assert '<table class="maskbench-samples">' in html and "gpt2.sample.json" in html


def test_the_command_writes_the_page_and_the_markdown(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = scoreboard.write(tmp_path)
    md = tmp_path / "compliance.md"
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--markdown", str(md)]) == 0
    assert (tmp_path / "out" / "compliance.md").read_text() == md.read_text()
    assert "| peer (peer 1.0) | 0 ✓ 1 ≈ 0 ✗ |" in md.read_text()
    assert (tmp_path / "out" / "index.html").read_text().startswith("<!DOCTYPE html>")
    capsys.readouterr()
    cli.fails(main, capsys, ["report", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o")], "nope.jsonl")
    (tmp_path / "bad.jsonl").write_text('{"a": 1}\n{"b": 2}\n')
    cli.fails(main, capsys, ["report", str(tmp_path / "bad.jsonl"), "--out", str(tmp_path / "o")], "bad.jsonl:1")
    (tmp_path / "empty.jsonl").write_text("")
    cli.fails(main, capsys, ["report", str(tmp_path / "empty.jsonl"), "--out", str(tmp_path / "o")], "no records")


def test_maskbench_published_figures_beside_the_reproduction(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    board = report.Board(report.load([str(scoreboard.write(tmp_path))]), "maskbench")
    published = tmp_path / "published.json"
    published.write_text(json.dumps({"schemas": 200, "engines": {
        "peer": {"as": "Peer", "version": "peer 0.1", "passing": 150, "compile_error": 20, "segmentation_fault": 1,
                 "out_of_memory": 2, "timeout": 3, "validation_error": 10, "invalidation_error": 14,
                 "ttfm_p50": 1500, "tbm_p50": 40},
        "absent": {"as": "Absent", "version": "absent 1", "passing": 1, "compile_error": 0, "segmentation_fault": 0,
                   "out_of_memory": 0, "timeout": 0, "validation_error": 0, "invalidation_error": 0,
                   "ttfm_p50": 1, "tbm_p50": 1}}}))
    rows = report.published_table(board, str(published)).rows
    assert rows[0] == ["peer (MaskBench: Peer)", "peer 0.1", "200", "75.0%", "10.0%", "5.0% / 7.0%", "3.0%",
                       "1.5 ms / 40 µs"]
    here = {(s["engine"], s["vocab"], s["subset"]): s for s in report.maskbench_summary(
        [r for e in board.engines for r in board.records[e]])}[("peer", "gpt2", "all")]
    assert rows[1][:3] == ["peer (here)", "peer 1.0", str(here["schemas"])]
    assert rows[1][6] == "%.1f%%" % (100.0 * here["faults"] / here["schemas"])
    # an engine MaskBench ran that has no results here: its published row alone
    assert [r[0] for r in rows] == ["peer (MaskBench: Peer)", "peer (here)", "absent (MaskBench: Absent)"]
