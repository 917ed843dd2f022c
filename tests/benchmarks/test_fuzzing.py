"""benchmarks/fuzzing.py: a fuzz campaign's phases add up to its time, and the same seed
draws the same examples (the digest)."""
import pytest

pytest.importorskip("hypothesis")

from benchmarks import fuzzing  # noqa: E402


def test_the_phases_add_up_and_a_seed_draws_the_same_examples():
    a = fuzzing.measure("refimpl", seconds=None, seed=1, batches=1)
    b = fuzzing.measure("refimpl", seconds=None, seed=1, batches=1)
    assert a["examples"] >= 25 and a["masks"] > 0  # hypothesis may run a few more than it counts
    assert sum(a["split"].values()) == pytest.approx(a["elapsed"])
    assert all(a["split"][p] >= 0 for p in ("strategy", "refimpl", "peer")) and a["split"]["refimpl"] > 0
    assert a["digest"] == b["digest"] and a["masks"] == b["masks"]
    c = fuzzing.measure("refimpl", seconds=None, seed=2, batches=1)
    assert c["digest"] != a["digest"]
    assert "| refimpl | 1 | 1 batches | %d |" % a["examples"] in fuzzing.table([a])


def test_an_unknown_engine_is_one_error_line(capsys):
    assert fuzzing.main(["--engine", "nosuch", "--batches", "1"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
