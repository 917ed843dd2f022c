"""The results file (conformance/results.py) and `run --results`: records appended as
vectors complete, the last record of a key wins, a torn last line is ignored, a run
resumes where it stopped (even one killed mid-way) with every vector recorded once."""
import gzip
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conformance import results
from conformance.__main__ import main
from conformance.generate import SUITE_DIR
from conformance.registry import get_engine
from conformance.runner import raw_lines, run_suite
from conformance.vectors import FormatError

REGEX = os.path.join(SUITE_DIR, "regex.jsonl")


def small_suite(tmp_path, n=12, name="suite.jsonl"):
    path = str(tmp_path / name)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(raw_lines(REGEX)[:n])
    return path


def record(id, status, engine="e"):
    return {"engine": engine, "id": id, "digest": results.digest(id), "status": status}


def test_round_trip_last_record_wins_torn_line_ignored(tmp_path):
    path = str(tmp_path / "r.jsonl")
    for r in (record("a", "disagree"), record("b", "agree"), record("a", "agree"), record("a", "known", engine="f")):
        results.append(path, r)
    got = results.read_results(path)
    assert [(r["engine"], r["id"], r["status"]) for r in got] == [("e", "b", "agree"), ("e", "a", "agree"),
                                                                   ("f", "a", "known")]
    assert results.done_keys(path) == {("e", "a", results.digest("a")), ("e", "b", results.digest("b")),
                                       ("f", "a", results.digest("a"))}
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"engine": "e", "id": "c", "dig')  # killed mid-write
    torn = []
    assert len(results.read_results(path, on_torn=lambda p, text: torn.append((p, text)))) == 3
    assert torn == [(path, '{"engine": "e", "id": "c", "dig')]
    # a run appending after it cuts it off first
    assert results.repair(path) == '{"engine": "e", "id": "c", "dig' and results.repair(path) == ""
    results.append(path, record("c", "agree"))
    assert len(results.read_results(path)) == 4
    # gzip-compressed files read the same
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
        g.write(f.read())
    assert results.read_results(path + ".gz") == results.read_results(path)


def test_a_malformed_line_inside_the_file_is_an_error_naming_it(tmp_path):
    path = str(tmp_path / "r.jsonl")
    results.append(path, record("a", "agree"))
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"id": "no engine"}\n')
    results.append(path, record("b", "agree"))
    with pytest.raises(FormatError, match=r"r\.jsonl:2: "):
        results.read_results(path)


def test_a_rerun_resumes_and_counts_the_stored_results(tmp_path, capsys):
    suite = small_suite(tmp_path)
    path, repros = str(tmp_path / "r.jsonl"), str(tmp_path / "repros")
    argv = ["run", "--engine", "fault:drop-eos", "--suite", suite, "--quiet", "--out", repros, "--results", path]
    assert main(argv) == 1
    first = capsys.readouterr().out
    assert "resumed 0 of 12 vectors" in first and os.listdir(repros)
    stored = results.read_results(path)
    assert len(stored) == 12 and {r["engine"] for r in stored} == {"fault:drop-eos"}
    assert all(r["seconds"] >= 0 and r["digest"] and "tags" in r for r in stored)
    disagreeing = [r for r in stored if r["status"] == "disagree"]
    kinds = {r["divergence"]["signature"] for r in disagreeing}  # one repro each (the default cap)
    assert disagreeing and sum(1 for r in disagreeing if r["repro"]) == len(kinds) < len(disagreeing)
    # the rerun checks nothing, writes no repro, and reports the same
    for name in os.listdir(os.path.join(repros, "fault_drop-eos")):
        os.remove(os.path.join(repros, "fault_drop-eos", name))
    assert main(argv) == 1
    second = capsys.readouterr().out
    assert "resumed 12 of 12 vectors" in second
    assert _table(second) == _table(first)  # the same table
    assert "repros: none written; 12 resumed from the results file" in second
    assert not os.listdir(os.path.join(repros, "fault_drop-eos"))
    with open(path, encoding="utf-8") as f:
        assert len(f.readlines()) == 12
    # a changed vector (another digest) is checked again; another engine is not resumed
    with open(suite, "a", encoding="utf-8") as f:
        f.write(raw_lines(REGEX)[0].replace('"tags":', '"note":"changed","tags":', 1))
    report = run_suite(get_engine("fault:drop-eos"), suite, repros, quiet=True, results=path)
    assert report.resumed == 12 and report.total()["vectors"] == 13
    assert run_suite(get_engine("refimpl"), suite, repros, quiet=True, results=path).resumed == 0


def _table(out):
    """The run's table: its output after the first line, up to the repros' summary."""
    return out.split("\n", 1)[1].split("  repros:")[0]


def comparable(r):
    d = r.get("divergence") or {}
    return (r["status"], tuple(r["known"]), r["steps"], d.get("signature"), r["under"], r["over"], r["fault"])


def test_a_run_killed_midway_resumes_with_every_vector_once(tmp_path):
    """SIGKILL a run once some results are written; the rerun completes it: every vector
    recorded exactly once, with the results of an uninterrupted run."""
    suite = os.path.join(SUITE_DIR, "tokens.jsonl")
    n = len(raw_lines(suite))
    path = str(tmp_path / "killed.jsonl")
    argv = [sys.executable, "-m", "conformance", "run", "--engine", "refimpl", "--suite", suite, "--quiet",
            "--out", str(tmp_path / "repros"), "--results", path]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while process.poll() is None and not (os.path.exists(path) and os.path.getsize(path) > 0
                                               and len(open(path, "rb").read().split(b"\n")) > 10):
            time.sleep(0.005)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    killed = len(results.read_results(path, on_torn=None))
    assert 10 <= killed < n, "the run was not stopped mid-way"
    assert main(argv[3:]) == 0
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    assert len(lines) == n and len({results.key(r) for r in lines}) == n  # each vector once
    whole = str(tmp_path / "whole.jsonl")
    run_suite(get_engine("refimpl"), suite, str(tmp_path / "repros"), quiet=True, results=whole)
    expected = {r["id"]: comparable(r) for r in results.read_results(whole)}
    assert {r["id"]: comparable(r) for r in lines} == expected


def test_support_lost_against_an_earlier_run_is_a_failure(tmp_path, capsys):
    """`run --supported FILE`: a vector the file records as supported that the engine
    declines now fails the run (exit 1, SUPPORT LOST), a resumed one too; one it declined
    there too, or that changed since (another digest), does not."""
    suite = small_suite(tmp_path, n=70)
    lines = raw_lines(suite)
    declined = [json.loads(line)["id"] for line in lines if run_suite(
        get_engine("index"), _one(tmp_path, line), quiet=True).total()["unsupported"]]
    assert declined  # the regex suite's grammars without a lexeme: no index
    earlier = str(tmp_path / "earlier.jsonl")
    for line in lines:
        v = json.loads(line)
        results.append(earlier, {"engine": "index", "id": v["id"], "digest": results.digest(line),
                                 "status": "agree" if v["id"] == declined[0] else "unsupported"})
    argv = ["run", "--engine", "index", "--suite", suite, "--quiet", "--max-repros", "0"]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(argv + ["--supported", earlier]) == 1
    out = capsys.readouterr().out
    assert "SUPPORT LOST %s: no token index" % declined[0] in out
    assert out.count("SUPPORT LOST") == 1 and "repros:" not in out
    path = str(tmp_path / "r.jsonl")  # resumed from a results file: the same verdict
    assert main(argv + ["--results", path]) == 0
    assert main(argv + ["--results", path, "--supported", earlier]) == 1
    assert "SUPPORT LOST %s" % declined[0] in capsys.readouterr().out
    with open(earlier, "a", encoding="utf-8") as f:  # the earlier record of another digest
        f.write(json.dumps({"engine": "index", "id": declined[0], "digest": "0" * 16, "status": "agree"}) + "\n")
    rewritten = str(tmp_path / "rewritten.jsonl")
    with open(earlier, encoding="utf-8") as f, open(rewritten, "w", encoding="utf-8") as g:
        g.writelines(line for line in f if '"status":"agree"' not in line.replace(" ", "") or '"0000' in line)
    assert main(argv + ["--supported", rewritten]) == 0
    assert main(argv + ["--supported", str(tmp_path / "none.jsonl")]) == 2
    assert "--supported" in capsys.readouterr().err


def _one(tmp_path, line):
    path = str(tmp_path / "one.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(line)
    return path
