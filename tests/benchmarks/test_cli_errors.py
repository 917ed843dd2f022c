"""A mistake in the arguments of a benchmark's command (`python -m benchmarks.<name>`) is
one `error:` line naming the argument, exit status 2, no traceback — before any work."""
import pytest

from benchmarks import compare, index, schemastore, topk
from tests.support import cli
from tests.support.cli import error_line, run_module


@pytest.mark.parametrize("main, argv, culprits", [
    (compare.main, ["--vocab", "nope"], ["--vocab", "nope"]),
    (compare.main, ["--schemastore", "/no/such/corpus"], ["--schemastore", "/no/such/corpus", "no such directory"]),
    (topk.main, ["--refused", "-1"], ["--refused", ">= 0"]),
    (topk.main, ["--backend", "gpu"], ["--backend", "gpu"]),
    (index.main, ["--workload", "nope"], ["--workload", "nope", "https"]),
    (schemastore.main, ["/no/such/corpus"], ["corpus", "/no/such/corpus"]),
    (schemastore.main, [".", "--timeout", "0"], ["--timeout", "> 0"]),
    (schemastore.main, [".", "--limit", "x"], ["--limit", "'x'"]),
    (schemastore.main, [".", "--report", "/no/such/run.json"], ["--report", "/no/such/run.json", "no such file"]),
    (schemastore.main, [".", "--json", "/no/such/dir/run.json"], ["--json", "/no/such/dir/run.json"]),
])
def test_bad_arguments(capsys, main, argv, culprits):
    cli.fails(main, capsys, argv, *culprits)


def test_a_report_that_is_not_a_run(capsys, tmp_path):
    bad = tmp_path / "run.json"
    bad.write_text("{not json")
    cli.fails(schemastore.main, capsys, [".", "--report", str(bad)], "--report", "run.json", "not a run")


def test_as_a_user_runs_it():
    code, err = run_module("benchmarks.compare", "--workload", "nope")
    assert code == 2 and err.strip() == error_line(err, "--workload", "nope")
