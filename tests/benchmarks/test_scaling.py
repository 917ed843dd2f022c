"""benchmarks/scaling.py: every configuration runs the suite with the same results, and a
configuration that changes a result is an error, not a figure."""
import itertools

import pytest

from benchmarks import scaling


@pytest.fixture
def suite(tmp_path):
    from conformance.vectors import suite_lines
    lines = [line for _, _, line in itertools.islice(suite_lines("conformance/suite/regex.jsonl"), 4)]
    path = tmp_path / "four.jsonl"
    path.write_text("".join(lines))
    return str(path)


def test_one_and_two_workers_agree_and_are_tabled(suite):
    runs, vectors = scaling.measure("refimpl", suite, ["process", "process-2"], 1)
    assert vectors == 4 and [r.config for r in runs] == ["process", "process-2"]
    assert all(r.wall > 0 and r.cpu is not None and r.cpu > 0 for r in runs)
    rows = scaling.table(runs, vectors).splitlines()
    assert rows[2].startswith("| `--no-contain` | 1 |") and rows[3].startswith("| `--no-contain --jobs 2` | 2 |")
    speedup = rows[3].split("|")[4].strip()
    assert float(speedup) == pytest.approx(runs[0].wall / runs[1].wall, abs=0.01)


def test_a_configuration_that_changes_a_result_is_an_error(suite, monkeypatch):
    answers = iter([{"a": ("passed",)}, {"a": ("disagree",)}])
    monkeypatch.setattr(scaling, "outcomes", lambda path: next(answers))
    with pytest.raises(SystemExit, match="process-2 gave other results than process"):
        scaling.measure("refimpl", suite, ["process", "process-2"], 1)


def test_bad_arguments(capsys):
    assert scaling.main(["--runs", "0"]) == 2
    assert "--runs" in capsys.readouterr().err
    assert scaling.main(["--suite", "/no/such/suite.jsonl"]) == 2
    assert "/no/such/suite.jsonl" in capsys.readouterr().err
    assert scaling.main(["--engine", "nosuch", "--runs", "1", "--config", "process"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown engine 'nosuch'" in err
