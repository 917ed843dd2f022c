"""Runs on a Ray cluster (conformance/cluster.py, `run --ray`, `fuzz --ray`): the same
results, vector by vector, as a run in one process, contained or not; the fuzzer's
workers as Ray tasks draw the same examples as in processes; without Ray, one error line.

One local cluster of 2 CPUs for the module. (Ray is in the `cluster` extra, installed by
.ci/run with MASKREF_REQUIRE_MODULES naming it: these tests cannot skip there.)"""
import os
import sys

import pytest

from conformance import results
from conformance.__main__ import main
from conformance.containment import Limits
from conformance.fuzz import fuzz
from conformance.registry import get_engine
from conformance.runner import run_suite
from tests.conformance.test_results import comparable, small_suite


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def by_vector(path):
    return {(r["engine"], r["id"]): comparable(r) for r in results.read_results(path)}


def test_ray_gives_the_results_of_one_process_vector_by_vector(ray_cluster, tmp_path):
    """(The contained Ray run forks its children from actors, processes holding Ray's
    threads: that this works is tested here too.)"""
    suite = small_suite(tmp_path, n=20)
    out = str(tmp_path / "repros")
    runs = {}
    for name, options in [("one", {}), ("contained", {"limits": Limits()}), ("ray", {"ray": "", "limits": Limits()}),
                          ("ray-in-process", {"ray": ""})]:
        runs[name] = str(tmp_path / (name + ".jsonl"))
        for engine in ("refimpl", "fault:drop-eos"):
            run_suite(get_engine(engine), suite, out, quiet=True, results=runs[name], **options)
    one = by_vector(runs["one"])
    assert len(one) == 40
    statuses = {(engine, status) for (engine, _), (status, *_) in one.items()}
    assert ("refimpl", "agree") in statuses and ("fault:drop-eos", "disagree") in statuses
    assert ("refimpl", "disagree") not in statuses
    for name in ("contained", "ray", "ray-in-process"):
        assert by_vector(runs[name]) == one, name


def test_fuzz_on_ray_draws_the_examples_of_fuzz_in_processes(ray_cluster, tmp_path):
    found = []
    for name, ray in (("jobs", None), ("ray", "")):
        out = str(tmp_path / name)
        report = fuzz("fault:drop-eos", None, seed=7, jobs=2, out_dir=out, quiet=True, batches=1, ray=ray)
        with open(os.path.join(out, "fault_drop-eos", "fuzz-vectors.jsonl"), encoding="utf-8") as f:
            found.append((report.stats.to_json(), report.jobs, f.read()))
    assert found[0] == found[1] and found[0][2]


def test_without_ray_one_error_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray: ImportError
    suite = small_suite(tmp_path, n=2)
    assert main(["run", "--engine", "refimpl", "--suite", suite, "--quiet", "--ray"]) == 2
    assert main(["fuzz", "--engine", "refimpl", "--batches", "1", "--quiet", "--ray", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("error: --ray needs Ray") == 2 and "Traceback" not in err
