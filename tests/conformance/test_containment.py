"""Containment (conformance/containment.py, `run --timeout/--memory`): an engine that
hangs, crashes or eats memory costs the vector it was on, recorded as a timeout, a crash
or a memory fault, and the run goes on with the next vector."""
import pytest

from conformance.containment import Contained, Limits
from conformance.registry import get_engine
from conformance.runner import run_suite
from tests.conformance.test_results import small_suite


@pytest.mark.parametrize("fault, limits", [("hang", Limits(timeout=2)), ("crash", Limits(timeout=60)),
                                           ("memory", Limits(timeout=60, memory_mb=400))])
def test_a_faulty_engine_is_recorded_and_the_run_goes_on(fault, limits, tmp_path):
    suite = small_suite(tmp_path, n=3)
    report = run_suite(get_engine("fault:" + fault), suite, str(tmp_path / "repros"), quiet=True, limits=limits)
    assert report.total()["vectors"] == 3 and len(report.faults) == 3 and not report.disagreements
    for r in report.faults:
        assert r.fault == {"hang": "timeout", "crash": "crash", "memory": "memory"}[fault], (r.fault, r.divergence)
        assert r.divergence["step"] == 0
        assert {"hang": "PeerTimeout: ", "crash": "PeerCrash: ", "memory": "MemoryError"}[fault] in r.divergence["error"]
    # one repro for the kind of fault (the default cap), the others counted
    assert [bool(r.repro) for r in report.faults] == [True, False, False] and report.unwritten == 2
    # refimpl, contained the same way (with time to spare: this machine may be loaded), agrees
    report = run_suite(get_engine("refimpl"), suite, str(tmp_path / "repros"), quiet=True,
                       limits=limits._replace(timeout=60))
    assert report.total()["agree"] == 3


def test_the_memory_fault_refuses_to_run_without_a_limit(tmp_path):
    report = run_suite(get_engine("fault:memory"), small_suite(tmp_path, n=1), str(tmp_path), quiet=True)
    assert "runs only under a memory limit" in report.disagreements[0].divergence["error"]


def test_a_child_forked_after_torch_started_its_threads_works():
    """(GNU OpenMP's thread pool does not survive a fork: isolation.Child makes torch
    single-threaded in the child, or this would hang.)"""
    torch = pytest.importorskip("torch")
    assert float(torch.ones(64, 64).matmul(torch.ones(64, 64)).sum()) == 64.0 ** 3  # starts its thread pool
    work = Contained(lambda n: float(torch.ones(n, n).matmul(torch.ones(n, n)).sum()), Limits(timeout=60))
    try:
        assert work(64) == ("ok", 64.0 ** 3) and work(8) == ("ok", 8.0 ** 3)
    finally:
        work.close()


def test_the_command_line_contains_with_limits_and_records_the_fault(tmp_path, capsys):
    from conformance import results
    from conformance.__main__ import main

    suite, path = small_suite(tmp_path, n=2), str(tmp_path / "r.jsonl")
    argv = ["run", "--engine", "fault:crash", "--suite", suite, "--quiet", "--out", str(tmp_path), "--results", path]
    assert main(argv + ["--timeout", "60", "--memory", "400"]) == 1
    assert [r["fault"] for r in results.read_results(path)] == ["crash", "crash"]
    assert main(argv[:-1] + [path + ".gz"]) == 2  # runs append to plain files only
    assert "error: --results" in capsys.readouterr().err
