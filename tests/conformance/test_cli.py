"""The command line (conformance/__main__.py): the default suite agrees with refimpl
(exit 0), a disagreement writes a repro that replays (exit 1), usage and setup errors
exit 2; --engine and its older name --backend."""
import os

from conformance.__main__ import main
from conformance.registry import get_engine
from tests.support.vectors import digits_vector, write_suite


def test_default_suite_agrees_with_refimpl(tmp_path, capsys):
    assert main(["run", "--engine", "refimpl", "--quiet", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "disagree" in out and not os.listdir(str(tmp_path))


def test_exit_status_2_on_usage_and_setup_errors(tmp_path, capsys):
    assert main(["run"]) == 2  # --engine missing
    assert main(["run", "--backend", "no-such-engine"]) == 2
    assert main(["run", "--backend", "refimpl", "--suite", str(tmp_path / "missing")]) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "maskref-vector", "version": 99}\n')
    assert main(["run", "--backend", "refimpl", "--suite", str(bad)]) == 2
    bad.write_text("not json\n")
    assert main(["run", "--backend", "refimpl", "--suite", str(bad)]) == 2
    assert main(["fuzz", "--backend", "refimpl", "--vocab", "nope", "--seconds", "1"]) == 2
    if get_engine("xgrammar").unavailable_reason():
        assert main(["run", "--backend", "xgrammar"]) == 2
    assert "error:" in capsys.readouterr().err


def test_exit_status_1_writes_a_repro_that_replays(tmp_path, capsys):
    suite = write_suite(tmp_path, digits_vector())
    out = str(tmp_path / "repros")
    assert main(["run", "--backend", "fault:drop-eos", "--suite", suite, "--quiet", "--out", out]) == 1
    text = open(os.path.join(out, "fault_drop-eos", "test_digits.txt"), encoding="utf-8").read()
    assert "diverges at  step 1" in text and '256 "<EOS>"' in text and "only refimpl (1)" in text
    replay = next(line for line in text.splitlines() if line.startswith("replay"))
    argv = replay.split()[4:]  # replay python -m conformance <argv>
    assert main(argv + ["--quiet", "--out", str(tmp_path / "again")]) == 1
    assert main(["run", "--backend", "refimpl", "--suite", argv[-1], "--quiet"]) == 0


def test_engine_and_its_older_name_backend(tmp_path, capsys):
    """--engine is the documented spelling; --backend, and the `backends` command, still
    work for scripts written before (the help says --backend is the older name)."""
    suite = write_suite(tmp_path, digits_vector())
    out = str(tmp_path / "repros")
    assert main(["run", "--engine", "refimpl", "--suite", suite, "--quiet", "--out", out]) == 0
    assert main(["run", "--backend", "refimpl", "--suite", suite, "--quiet", "--out", out]) == 0
    assert main(["run", "--engine", "refimpl", "--backend", "fault:drop-eos", "--suite", suite, "--quiet",
                 "--out", out]) == 1  # both name engines to run
    capsys.readouterr()
    assert main(["engines"]) == 0 and "fault:drop-eos" in capsys.readouterr().out
    assert main(["backends"]) == 0 and "fault:drop-eos" in capsys.readouterr().out
    for command in ("run", "fuzz"):
        assert main([command, "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())  # argparse wraps the help
        assert "--engine ENGINE, --backend ENGINE" in text and "--backend: its older name" in text
