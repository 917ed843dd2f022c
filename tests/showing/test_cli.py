"""The `maskref` command as the docs write it: docs/generation.md's `maskref generate`
lines run from the repository's root and print a value (the example files are in
docs/examples/); `--type` takes a module from the current directory or a file."""
import os
import re
import shlex

from refimpl.showing.cli import main
from tests.support.paths import ROOT

PAGE = (ROOT / "docs" / "generation.md").read_text(encoding="utf-8")


def documented_commands():
    block = PAGE.split("<!-- tests/showing/test_cli.py runs these lines -->", 1)[1]
    body = re.search(r"```sh\n(.*?)```", block, re.DOTALL).group(1)
    return [shlex.split(line) for line in body.splitlines() if line.strip()]


def fields(out):
    return {line.split(" ", 1)[0]: line.split(" ", 1)[1].strip() for line in out.splitlines() if " " in line}


def test_the_documented_generate_commands_run(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    commands = documented_commands()
    assert len(commands) == 3 and all(c[:2] == ["maskref", "generate"] for c in commands)
    for argv in commands:
        code = main(argv[1:])
        out = capsys.readouterr().out
        assert code == 0, (argv, out)
        got = fields(out)
        assert got["text"] and ("value" in got) == ("--lark" not in argv), (argv, out)


def test_a_type_from_a_module_or_a_file_and_its_layout(capsys, monkeypatch):
    """--type module:Class (the current directory first on the path) and file.py:Class
    are the same type; the JSON layout is one line (docs/generation.md, "The JSON
    layout": everything between values forced) unless --flexible-whitespace."""
    monkeypatch.chdir(ROOT / "docs" / "examples")
    monkeypatch.syspath_prepend(os.getcwd())
    assert main(["generate", "--type", "character:Character", "--seed", "5"]) == 0
    by_module = fields(capsys.readouterr().out)
    monkeypatch.chdir(ROOT)
    argv = ["generate", "--type", "docs/examples/character.py:Character", "--seed", "5"]
    assert main(argv) == 0
    by_file = fields(capsys.readouterr().out)
    assert by_module["text"] == by_file["text"] and by_module["value"] == by_file["value"]
    assert by_file["value"].startswith("Character(")
    assert re.fullmatch(r'\{"name": ".*", "age": \d+, .*\}', by_file["text"])
    main(argv + ["--flexible-whitespace"])
    loose = capsys.readouterr().out.split("text      ", 1)[1].split("\ntokens    ", 1)[0]  # (on several lines)
    assert loose.startswith("{") and re.search(r"\s[,:]|[,:]\s\s|[\n\t]", loose), loose


def test_progress_is_never_written_to_a_pipe_and_can_be_turned_off(capsys, monkeypatch):
    # a display that shows every step at once (no delay), on a standard error that is a pipe
    from refimpl import progress

    shown = progress.shown
    monkeypatch.setattr(progress, "shown", lambda enabled=True: shown(enabled, delay=0.0))
    assert main(["mask", "--regex", "[0-9]+", "--vocab", "bytes"]) == 0
    assert main(["mask", "--regex", "[0-9]+", "--vocab", "bytes", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
