"""The driver, `python -m hostile` (hostile/__main__.py, campaign.py, results.py,
report.py, replay.py), on the toy targets of tests/hostile/toy.py: a user's mistake is one
`error:` line and exit status 2; a run appends one record per target and resumes without
counting a target twice; a finding is kept (the shortest input of its signature) outside
the current directory, and a child that libFuzzer stops does not end the campaign."""
import importlib.util
import json
import os

import pytest

from hostile import campaign, report, results
from hostile.__main__ import main
from hostile.findings import name_of, signature
from hostile.property import Violation, check, deadline
from refimpl.errors import GrammarError
from tests.support.cli import fails

REGEX = "tests.hostile.toy:toy-regex"
PLANTED = "tests.hostile.toy:toy-planted"
ABORT = "tests.hostile.toy:toy-abort"


# ------------------------------------------------------------------------------- mistakes


@pytest.mark.parametrize("argv,culprits", [
    (["run", "no-such-target"], ("no-such-target", "unknown target")),
    (["replay", "no-such-target"], ("no-such-target",)),
    (["run", "tests.hostile.toy:nothing"], ("nothing",)),
    (["run", "no.such.module:x"], ("no.such.module",)),
    (["run", REGEX, "--runs", "0"], ("--runs", "'0'")),
    (["run", REGEX, "--seconds", "ten"], ("--seconds", "ten")),
    (["run", REGEX, "--seconds", "-5"], ("--seconds", "-5")),
    (["run", REGEX, "--seed", "x"], ("--seed", "x")),
    (["run", REGEX, "--seconds", "5", "--runs", "5"], ("--runs", "--seconds")),
    (["run", REGEX, "--profile", "forever"], ("--profile", "forever")),
    (["report", "no/such/results.jsonl"], ("no/such/results.jsonl",)),
    (["replay", REGEX, "--corpus", "no/such/dir"], ("--corpus", "no/such/dir")),
    (["frobnicate"], ("frobnicate",)),
])
def test_a_mistake_is_one_error_line(argv, culprits, capsys):
    fails(main, capsys, argv, *culprits)


def test_without_atheris_run_says_how_to_install_it(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "atheris" else real(name, *a))
    fails(main, capsys, ["run", REGEX], "atheris", "pip install maskref[fuzz]")


def test_results_a_directory(tmp_path, capsys):
    fails(main, capsys, ["run", REGEX, "--results", str(tmp_path)], "--results", "directory")


def test_a_page_without_the_figures_block(tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text("# no markers\n")
    results_file = tmp_path / "r.jsonl"
    results_file.write_text("")
    fails(main, capsys, ["report", str(results_file), "--markdown", str(page)], str(page), "BEGIN hostile figures")


# ------------------------------------------------------------------------------- pieces


def test_signature_says_what_and_where():
    def bug():
        return {}["k"]

    with pytest.raises(Violation) as v:
        check(bug)
    assert signature(v.value) == "KeyError at tests/hostile/test_driver.py:%d in bug" % (bug.__code__.co_firstlineno + 1)
    with pytest.raises(Violation) as v:
        check(lambda: (_ for _ in ()).throw(GrammarError("no rule 'start'")))
    assert signature(v.value).startswith("GrammarError without a position at tests/hostile/test_driver.py:")
    assert signature(Violation("took more than 10 s")) == "took more than 10 s"


def test_a_deadline_rings_on_time_and_ignores_a_stale_alarm():
    import signal
    import time

    with deadline(60):  # an earlier deadline's alarm, delivered late: not this one's
        os.kill(os.getpid(), signal.SIGALRM)
        time.sleep(0.05)
    with pytest.raises(Violation, match="took more than 0.2 s"):
        check(lambda: time.sleep(5), seconds=0.2)


def test_budget_flags():
    assert campaign.Budget(runs=300).flags(executed=100, elapsed=9) == ["-runs=200"]
    assert campaign.Budget(seconds=60).flags(executed=100, elapsed=20.5) == ["-max_total_time=39"]
    assert not campaign.Budget(seconds=60).left(executed=0, elapsed=59)
    assert str(campaign.PROFILES["ci"]) == "runs=100,seeds=16"
    assert str(campaign.PROFILES["campaign"]) == "seconds=60,seeds=64"


def test_the_childs_output_read():
    child = campaign.Child()
    for line in ["INFO: Seed: 1",
                 "#275\tNEW    cov: 671 ft: 1357 corp: 51/248b lim: 6 exec/s: 0 rss: 76Mb L: 5/6 MS: 1 Insert-",
                 "#300\tDONE   cov: 680 ft: 1360 corp: 52/250b lim: 6 exec/s: 0 rss: 76Mb",
                 'hostile-finding {"signature": "KeyError at x.py:1 in f", "size": 2, "hex": "2121"}',
                 "==123== ERROR: libFuzzer: deadly signal",
                 "stat::number_of_executed_units: 300", "stat::peak_rss_mb:              76"]:
        child.read(line)
    assert (child.executed, child.cov, child.ft, child.corpus) == (300, 680, 1360, 52)
    assert child.findings == [{"signature": "KeyError at x.py:1 in f", "size": 2, "hex": "2121"}]
    assert child.stopped == "deadly signal"
    assert child.stats == {"number_of_executed_units": 300, "peak_rss_mb": 76}


def test_the_report_rewrites_its_block_only():
    record = dict(results.keyed("t", "d"), entry="E", executed=1234, cov=5, ft=6, corpus=7, findings=[],
                  replay={"slowest": {"seconds": 0.25, "input": "ab", "head": "b'xy'"}, "peak_rss_mb": 50.0},
                  date="D", budget="runs=1", seed=1, commit="c", python="CPython 3.11", atheris="3", cpus=2, load=[1.0])
    page = "# Title\n\nprose\n\n%s\n\nmore prose\n" % report.block({})
    new = report.regenerate(page, {"t": record})
    assert new.startswith("# Title\n\nprose\n\n<!-- BEGIN hostile figures") and new.endswith("\n\nmore prose\n")
    assert "| `t` | `E` | 1,234 | 5 / 6 | 7 | 0 | none | 0.250 s: `b'xy'` | 50 MB |" in new
    assert report.regenerate(new, {"t": record}) == new
    with pytest.raises(report.MarkersMissing):
        report.regenerate("# Title\n", {})


def test_replay_reports_the_broken_inputs(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for data in (b"fine", b"a!!b"):
        (corpus / name_of(data)).write_bytes(data)
    assert main(["replay", PLANTED, "--corpus", str(corpus)]) == 1
    out = capsys.readouterr().out
    assert "toy-planted: 2 inputs, 1 broke the property" in out and name_of(b"a!!b") + ": KeyError" in out
    assert main(["replay", REGEX, "--corpus", str(corpus), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["inputs"] == 2 and got["violations"] == [] and got["peak_rss_mb"] > 0


# ------------------------------------------------------------------------------- runs under atheris


def run(argv, tmp_path, monkeypatch, capsys):
    """main(argv) from an empty directory, which must stay empty; (status, stdout)."""
    pytest.importorskip("atheris")
    cwd = tmp_path / "cwd"
    cwd.mkdir(exist_ok=True)
    monkeypatch.chdir(cwd)
    code = main(argv + ["--quiet"])
    assert os.listdir(cwd) == [], "a run wrote into the current directory"
    return code, capsys.readouterr().out


def test_a_run_appends_and_resumes(tmp_path, monkeypatch, capsys):
    path = str(tmp_path / "results.jsonl")
    argv = ["run", REGEX, PLANTED, "--runs", "200", "--results", path, "--findings", str(tmp_path / "f")]
    with open(path, "w") as f:
        f.write('{"engine": "atheris", "id": "torn')  # a run killed while writing
    code, out = run(argv, tmp_path, monkeypatch, capsys)
    assert code == 1  # the planted bug
    first = results.read(path)
    assert [r["target"] for r in first] == ["toy-regex", "toy-planted"]
    assert first[0]["executed"] == 200 and first[0]["cov"] > 100 and first[0]["seeds"] == 3
    assert first[0]["replay"]["inputs"] == first[0]["corpus"] or first[0]["replay"]["inputs"] >= 3
    code, out = run(argv, tmp_path, monkeypatch, capsys)
    assert code == 0 and out == "" and results.read(path) == first  # resumed: nothing to do
    code, out = run(argv + ["--again"], tmp_path, monkeypatch, capsys)
    assert len(open(path).read().splitlines()) == 4  # appended ...
    assert [r["target"] for r in results.read(path)] == ["toy-regex", "toy-planted"]  # ... not counted twice


def test_a_finding_is_kept_outside_the_current_directory(tmp_path, monkeypatch, capsys):
    findings = tmp_path / "findings"
    code, out = run(["run", PLANTED, "--runs", "500", "--findings", str(findings)], tmp_path, monkeypatch, capsys)
    assert code == 1 and "finding: KeyError at tests/hostile/toy.py:" in out
    assert "1 finding(s)" in out
    kept = [n for n in os.listdir(findings / "toy-planted") if n != "libfuzzer.log"]
    assert kept and all(b"!!" in (findings / "toy-planted" / n).read_bytes() for n in kept)


def test_a_stopped_child_does_not_end_the_campaign(tmp_path, monkeypatch, capsys):
    path = str(tmp_path / "results.jsonl")
    code, out = run(["run", ABORT, REGEX, "--runs", "100", "--results", path, "--findings", str(tmp_path / "f")],
                    tmp_path, monkeypatch, capsys)
    aborted, regex = results.read(path)
    assert [f["signature"] for f in aborted["findings"]] == ["libFuzzer: deadly signal"]
    assert aborted["restarts"] == campaign.RESTARTS
    assert regex["findings"] == [] and regex["executed"] == 100 and code == 1


def test_minimise_keeps_the_signature(tmp_path, capsys):
    found = tmp_path / "found"
    found.write_bytes(b"abc!!def!")
    assert main(["minimise", PLANTED, str(found), "--out", str(tmp_path / "small")]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["size"], got["hex"], got["was"]) == (2, "2121", 9) and got["signature"].startswith("KeyError at")
    assert (tmp_path / "small" / name_of(b"!!")).read_bytes() == b"!!"
    fine = tmp_path / "fine"
    fine.write_bytes(b"fine")
    fails(main, capsys, ["minimise", PLANTED, str(fine)], str(fine), "keeps the property")


def test_a_timeout_is_a_finding_only_if_the_replay_confirms_it():
    slow = {"signature": campaign.TIMEOUT, "input": "aaa", "size": 3, "hex": "7a7a7a", "artifact": "/tmp/x"}
    other = {"signature": "KeyError at x.py:1 in f", "input": "bbb", "size": 2, "hex": "2121"}
    replayed = {"violations": [], "slowest": {"seconds": 4.0}}
    assert campaign.confirmed([slow, other], replayed) == [other] and replayed["slow_when_instrumented"] == 1
    over = {"signature": "took more than 10 s", "input": "aaa", "size": 3, "hex": "7a7a7a", "name": "aaa",
            "message": "took more than 10 s"}
    got = campaign.confirmed([slow, other], {"violations": [over]})
    assert got == [other, {k: over[k] for k in ("signature", "input", "size", "hex", "message")}]
    assert campaign.confirmed([slow], {"error": "the replay child ended with status -9"}) == [
        {k: slow[k] for k in ("signature", "input", "size", "hex")}]


def test_list_names_every_target_and_its_entry_point(capsys):
    from hostile.lookup import registry

    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == sorted(registry())
    assert all(t.entry in line for t, line in zip((registry()[n] for n in sorted(registry())), lines))
