"""A user's mistake on `python -m conformance` (conformance/__main__.py) is one `error:`
line naming the problem and where, exit status 2, no traceback: bad numbers, unknown
groups and engines, a cmd: engine whose program does not exist, suite files that are
missing, directories, not JSON or not UTF-8, an --out that cannot be made. refimpl's own
errors are not the user's here (the runner judges them per vector): one that escapes is a
bug and keeps its traceback."""
import pytest

from conformance.__main__ import main
from refimpl.errors import GrammarError
from tests.support import cli
from tests.support.cli import error_line, run_module


def fails(capsys, argv, *culprits):
    return cli.fails(main, capsys, argv, *culprits)


def test_bad_numbers(capsys):
    fails(capsys, ["run", "--engine", "refimpl", "--jobs", "0"], "--jobs", ">= 1")
    fails(capsys, ["run", "--engine", "refimpl", "--jobs", "two"], "--jobs", "'two'")
    fails(capsys, ["fuzz", "--engine", "refimpl", "--seconds", "-1"], "--seconds", "> 0")
    fails(capsys, ["fuzz", "--engine", "refimpl", "--seconds", "nan"], "--seconds", "nan")
    fails(capsys, ["fuzz", "--engine", "refimpl", "--batches", "0"], "--batches")
    fails(capsys, ["fuzz", "--engine", "refimpl", "--steps", "0"], "--steps")
    fails(capsys, ["fuzz", "--engine", "refimpl", "--seed", "x"], "--seed", "'x'")


def test_unknown_names(capsys, tmp_path):
    fails(capsys, ["generate", "--only", "regex,nope", "--out", str(tmp_path)], "--only", "nope", "json_schema")
    fails(capsys, ["run", "--engine", "no-such-engine"], "no-such-engine")
    fails(capsys, ["fuzz", "--engine", "refimpl", "--kinds", "nope"], "--kinds", "nope")
    fails(capsys, ["fuzz", "--engine", "refimpl", "--vocab", "nope"], "--vocab")
    fails(capsys, ["nope"], "nope", "python -m conformance --help")


def test_a_command_engine_whose_program_is_missing(capsys):
    """Not 48 "disagreements" from a worker that never started: the program is named."""
    fails(capsys, ["run", "--engine", "cmd:/no/such/program --flag", "--quiet"], "cmd:", "/no/such/program")
    fails(capsys, ["run", "--engine", "cmd:'unclosed", "--quiet"], "cmd:", "quotation")
    fails(capsys, ["run", "--engine", "cmd:", "--quiet"], "cmd:")


def test_suite_files(capsys, tmp_path):
    fails(capsys, ["run", "--engine", "refimpl", "--suite", str(tmp_path / "missing")], "missing")
    fails(capsys, ["show", str(tmp_path / "missing")], "missing")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b'# a comment line, then bytes that are not UTF-8\n{"\xff": 1}\n')
    fails(capsys, ["show", str(binary)], "binary.jsonl:2", "not UTF-8", "0xFF")
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 5000 + "]" * 5000 + "\n")
    fails(capsys, ["run", "--engine", "refimpl", "--suite", str(deep)], "deep.jsonl:1")  # PyPy's json reads it: "not an object"
    folder = tmp_path / "suite"
    (folder / "a-directory.jsonl").mkdir(parents=True)
    fails(capsys, ["show", str(folder)], "a-directory.jsonl", "directory")


def test_an_out_directory_that_cannot_be_made(capsys, tmp_path):
    (tmp_path / "a-file").write_text("")
    fails(capsys, ["generate", "--only", "regex", "--out", str(tmp_path / "a-file" / "suite")], "--out", "a-file")


def test_refimpls_errors_escaping_are_bugs(monkeypatch):
    import conformance.__main__ as cli_module

    def broken(args):
        raise GrammarError("a bug in a frontend")

    monkeypatch.setattr(cli_module, "cmd_engines", broken)
    with pytest.raises(GrammarError):
        main(["engines"])


def test_as_a_user_runs_it():
    code, err = run_module("conformance", "run", "--engine", "refimpl", "--jobs", "0")
    assert code == 2 and err.strip() == error_line(err, "--jobs")
