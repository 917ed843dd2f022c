"""A `cmd:` engine whose worker fails (tests/support/faulty_worker.py): one that cannot
start — cannot be run, exits at its hello, answers it with garbage or another protocol
version, or not in time — is a setup error (one `error:` line naming the worker and what
happened, exit status 2, before any vector, nothing written); one that dies, hangs or
answers garbage during a vector is a fault of that vector (Result.fault), never a
disagreement of masks, and the run goes on with a fresh worker."""
import os
import sys

import pytest

pytest.importorskip("accel.worker")

from conformance.__main__ import main  # noqa: E402
from conformance.registry import get_engine  # noqa: E402
from conformance.runner import run_suite  # noqa: E402
from conformance.vectors import GrammarSpec, byte_vocabulary, record  # noqa: E402
from tests.support import cli  # noqa: E402
from tests.support.cli import run_module  # noqa: E402
from tests.support.paths import ROOT  # noqa: E402
from tests.support.vectors import write_suite  # noqa: E402

SCRIPT = str(ROOT / "tests" / "support" / "faulty_worker.py")


def worker(mode):
    return "cmd:%s %s %s" % (sys.executable, SCRIPT, mode)


def vector(source, text, vid):
    spec = GrammarSpec("regex", source)
    return record(spec.compile(), spec, byte_vocabulary(), list(text.encode()) + [256], vid)


def suite(tmp_path, *faults):
    """Two vectors that agree, with a vector between them whose grammar asks the worker
    for each fault (faulty_worker.py: die, hang, junk)."""
    faulty = [vector("(%s)+" % f, f, "fault/" + f) for f in faults]
    return write_suite(tmp_path, vector("[0-9]+", "12", "ok/digits"), *faulty, vector("[a-z]+", "ab", "ok/letters"))


@pytest.mark.parametrize("mode, said", [
    ("exit-at-hello", ["exited with code 3 before answering its hello", "its stderr ends: faulty worker: cannot load"]),
    ("garbage-hello", ["answered its hello with a line that is not JSON", "hello there"]),
    ("old-protocol", ["speaks protocol 99"]),
    ("hang-hello", ["did not answer its hello within 1 s", "MASKREF_WORKER_STARTUP_TIMEOUT"]),
])
def test_a_worker_that_cannot_start_is_a_setup_error(mode, said, tmp_path, capsys, monkeypatch):
    import accel.worker.process

    monkeypatch.setattr(accel.worker.process, "DEFAULT_STARTUP_TIMEOUT", 1.0)
    repros, results = tmp_path / "repros", tmp_path / "results.jsonl"
    argv = ["run", "--engine", worker(mode), "--suite", suite(tmp_path), "--repros", str(repros),
            "--results", str(results)]
    line = cli.fails(main, capsys, argv, "cannot start", SCRIPT + " " + mode, *said)
    assert line.startswith("error: engine cmd:")
    assert not repros.exists() and not results.exists()  # before anything ran or was written
    cli.fails(main, capsys, ["fuzz", "--engine", worker(mode), "--batches", "1", "--repros", str(repros)],
              "cannot start", *said)
    assert not repros.exists()


def test_as_a_user_sees_it():
    """The issue's command, as typed: no repro files, one line, exit 2."""
    old = ROOT / "conformance-repros"  # where repros went before (a checkout may hold an old one)
    before = sorted(os.walk(old))
    code, err = run_module("conformance", "run", "--backend", "cmd:/bin/false")
    assert code == 2
    assert cli.error_line(err, "cmd:/bin/false", "exited with code 1 before answering its hello")
    assert sorted(os.walk(old)) == before


def test_faults_during_a_vector_are_recorded_and_the_run_goes_on(tmp_path, capsys):
    path = suite(tmp_path, "die", "junk")
    report = run_suite(get_engine(worker("serve")), path, str(tmp_path / "repros"), quiet=True)
    assert report.total()["vectors"] == 4 and report.total()["agree"] == 2  # a fresh worker after each fault
    assert not report.disagreements
    assert [(r.id, r.fault, r.status) for r in report.faults] == [("fault/die", "crash", "disagree"),
                                                                   ("fault/junk", "malformed", "disagree")]
    assert "WorkerDied" in report.faults[0].divergence["error"]
    table = report.table()
    assert "faults of the engine's process: 1 crash, 1 malformed" in table and "DISAGREE" not in table
    total = next(line for line in table.splitlines() if line.strip().startswith("total")).split()
    assert total[1:] == ["4", "8", "2", "0", "0", "2", "0"]  # vectors steps agree known disagree faults unsupported
    # on the command line: exit status 1, the faults told apart
    assert main(["run", "--engine", worker("serve"), "--suite", path, "--quiet", "--repros", str(tmp_path / "r")]) == 1
    out = capsys.readouterr().out
    assert "FAULT fault/die at step 0 [crash: mask: WorkerDied: the worker exited with code 7" in out


def test_a_worker_that_hangs_during_a_vector_times_out(tmp_path, monkeypatch):
    """(The worker's deadline per request is $MASKREF_WORKER_TIMEOUT, read when a process starts.)"""
    monkeypatch.setenv("MASKREF_WORKER_TIMEOUT", "2")
    results = tmp_path / "results.jsonl"
    code, err = run_module("conformance", "run", "--engine", worker("serve"), "--suite", suite(tmp_path, "hang"),
                           "--quiet", "--repros", str(tmp_path / "repros"), "--results", str(results))
    assert code == 1 and "Traceback" not in err, err
    from conformance.results import read_results

    faults = {r["id"]: r["fault"] for r in read_results(str(results))}
    assert faults == {"ok/digits": "", "fault/hang": "timeout", "ok/letters": ""}


def test_a_worker_that_dies_in_the_api_check(tmp_path, capsys):
    """refimpl's own backends are also compared on forced bytes and rollback
    (conformance/apicheck.py): a worker dying there is a fault, in run and in fuzz."""
    report = run_suite(get_engine(worker("die-at-forced-bytes")), suite(tmp_path), str(tmp_path / "r"), quiet=True)
    assert [r.fault for r in report.faults] == ["crash", "crash"] and not report.disagreements
    assert "forced_bytes" in report.faults[0].divergence["error"]
    code = main(["fuzz", "--engine", worker("die-at-forced-bytes"), "--batches", "1", "--quiet",
                 "--repros", str(tmp_path / "fuzz")])
    out = capsys.readouterr().out
    assert code == 1 and "WorkerDied" in open(next(
        os.path.join(root, f) for root, _, files in os.walk(tmp_path / "fuzz") for f in files if f.endswith(".txt")
    )).read(), out
