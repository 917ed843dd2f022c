"""A user's mistake on the `maskref` command line (refimpl/showing/cli.py, with the handler
of refimpl/showing/commandline.py) is one `error:` line naming the problem and where,
exit status 2, and no traceback — for every kind of mistake the issue lists (missing and
unreadable files, malformed grammars and vocabularies, a type that cannot be imported,
bad token ids, a bad --prefix, bad numbers). A programming error still shows its
traceback. Most cases run through main(argv); a few run `python -m refimpl.showing.cli`
as a user would, to see the whole of standard error."""
import json
import os
import sys

import pytest

from refimpl.errors import GrammarError
from refimpl.showing.cli import main
from refimpl.showing.commandline import CommandLineError, command_line
from tests.support import cli
from tests.support.cli import error_line, run_module
from tests.support.paths import ROOT

EXAMPLES = os.path.join(str(ROOT), "docs", "examples")


def fails(capsys, argv, *culprits):
    return cli.fails(main, capsys, argv, *culprits)


@pytest.fixture
def files(tmp_path):
    """Small files, good and bad, by name."""
    made = {
        "bad.json": '{"type": "object",',
        "bad.lark": 'start: "a" |\n  | ( "b"\n',
        "bad.gbnf": 'root ::= ( "a"\n',
        "ok.lark": 'start: "a"+\n',
        "empty.lark": 'start: start "a"\n',
        "empty.json": "",
        "not-a-vocab.json": '{"some": "thing"}',
        "empty-tokenizer.json": json.dumps({"model": {"type": "BPE", "vocab": {}, "merges": []}, "added_tokens": []}),
    }
    for name, text in made.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "binary.json").write_bytes(b'{"\xff\xfe": 1}')
    (tmp_path / "a-directory.json").mkdir()
    return {name: str(tmp_path / name) for name in list(made) + ["binary.json", "a-directory.json"]}


# -- files ------------------------------------------------------------------------------------


def test_missing_grammar_files(capsys):
    for option in ("--schema", "--lark", "--gbnf", "--ebnf"):
        fails(capsys, ["mask", option, "nonexist.json", "--vocab", "bytes"], option, "nonexist.json",
              "no such file")
    fails(capsys, ["generate", "--schema", "nonexist.json"], "--schema", "nonexist.json", "no such file")
    fails(capsys, ["generate", "--lark", "nonexist.lark"], "--lark", "nonexist.lark", "no such file")


def test_a_directory_or_undecodable_file_where_a_file_is_asked(capsys, files):
    fails(capsys, ["mask", "--schema", files["a-directory.json"], "--vocab", "bytes"], "--schema",
          "a-directory.json", "directory")
    fails(capsys, ["mask", "--schema", files["binary.json"], "--vocab", "bytes"], "--schema", "binary.json",
          "not UTF-8", "offset 2")
    fails(capsys, ["mask", "--regex", "a", "--vocab", files["a-directory.json"]], "--vocab", "a-directory.json")
    fails(capsys, ["explain", "--regex", "a", "--vocab", "bytes", "--out", files["a-directory.json"]], "--out",
          "a-directory.json", "directory")
    fails(capsys, ["explain", "--regex", "a", "--vocab", "bytes", "--out", os.path.join("no", "such", "dir.html")],
          "--out", "dir.html", "no such file")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root reads a file whatever its permissions")
def test_an_unreadable_file(capsys, files):
    os.chmod(files["ok.lark"], 0)
    try:
        fails(capsys, ["mask", "--lark", files["ok.lark"], "--vocab", "bytes"], "--lark", "ok.lark",
              "permission denied")
    finally:
        os.chmod(files["ok.lark"], 0o644)


def test_malformed_grammar_files_say_where(capsys, files):
    line = fails(capsys, ["mask", "--schema", files["bad.json"], "--vocab", "bytes"], "--schema", "bad.json",
                 "invalid JSON", "offset 18")
    assert line.count("bad.json") == 1
    fails(capsys, ["mask", "--schema", files["empty.json"], "--vocab", "bytes"], "--schema", "empty.json")
    fails(capsys, ["mask", "--lark", files["bad.lark"], "--vocab", "bytes"], "--lark", "bad.lark", "line 2")
    fails(capsys, ["mask", "--gbnf", files["bad.gbnf"], "--vocab", "bytes"], "--gbnf", "bad.gbnf", "line 1")
    fails(capsys, ["generate", "--lark", files["bad.lark"]], "--lark", "bad.lark", "line 2")
    fails(capsys, ["mask", "--regex", "a(b", "--vocab", "bytes"], "--regex", "offset")
    fails(capsys, ["mask", "--ebnf", files["ok.lark"], "--dialect", "nope", "--vocab", "bytes"], "--ebnf", "nope")


# -- vocabularies -----------------------------------------------------------------------------


def test_vocabulary_files(capsys, files):
    # the vocabulary's own message (VocabularyError), whatever its wording: it names the path
    fails(capsys, ["mask", "--regex", "a", "--vocab", "nonexist.json"], "--vocab", "nonexist.json")
    fails(capsys, ["mask", "--regex", "a", "--vocab", files["bad.json"]], "--vocab", "bad.json")
    fails(capsys, ["mask", "--regex", "a", "--vocab", files["not-a-vocab.json"]], "--vocab", "not-a-vocab.json")
    fails(capsys, ["generate", "--lark", files["ok.lark"], "--vocab", "nonexist.json"], "--vocab", "nonexist.json")


def test_an_empty_tokenizer_json(capsys, files):
    """A tokenizer.json without a single token is refused (VocabularyError, branch
    i32-hf), not accepted nor a ValueError of max()."""
    fails(capsys, ["mask", "--regex", "a", "--vocab", files["empty-tokenizer.json"]], "--vocab",
          "empty-tokenizer.json")


# -- --type -------------------------------------------------------------------------------------


def test_types_that_cannot_be_imported(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the module is looked for in the current directory first
    monkeypatch.delitem(sys.modules, "kalosm_character", raising=False)
    fails(capsys, ["generate", "--type", "mymodule:Nope"], "--type", "mymodule")
    # docs/generation.md's example as it once was: the module is not in the directory
    fails(capsys, ["generate", "--type", "kalosm_character:Character"], "kalosm_character", "no module")
    fails(capsys, ["generate", "--type", "json:Nope"], "--type", "json", "'Nope'")
    fails(capsys, ["generate", "--type", "json:JSONDecoder.Nope"], "json:JSONDecoder", "'Nope'")
    fails(capsys, ["generate", "--type", "json:dumps"], "--type", "json:dumps")  # not a type: no JSON form
    fails(capsys, ["generate", "--type", "Character"], "--type", "module:Class")
    fails(capsys, ["generate", "--type", "missing.py:Character"], "--type", "missing.py", "no such file")
    fails(capsys, ["generate", "--type", os.path.join(EXAMPLES, "character.py") + ":Nope"], "character.py",
          "'Nope'")


def test_an_error_inside_the_users_module_keeps_its_traceback(tmp_path, monkeypatch):
    """The module exists, and something it imports does not: that is the module's
    error, shown as Python shows it (with where in the module)."""
    (tmp_path / "broken_module.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_xyz"):
        main(["generate", "--type", "broken_module:Thing"])


# -- tokens, --prefix, numbers -------------------------------------------------------------


def test_bad_token_ids_and_texts(capsys):
    fails(capsys, ["explain", "--regex", "a", "--tokens", "64", "99999999"], "--tokens", "99999999")
    fails(capsys, ["explain", "--regex", "a", "--vocab", "bytes", "--tokens", "-1"], "--tokens", "-1")
    fails(capsys, ["explain", "--regex", "a", "--vocab", "bytes", "--tokens", "x"], "--tokens", "'x'")
    fails(capsys, ["explain", "--regex", "a", "--why", "notatoken123"], "--why", "notatoken123")
    fails(capsys, ["explain", "--regex", "a", "--vocab", "bytes", "--why", "257"], "--why", "257")


def test_a_prefix_the_grammar_refuses_says_at_which_byte(capsys):
    fails(capsys, ["mask", "--regex", "abc", "--vocab", "bytes", "--prefix", "abx"], "--prefix", "'abx'",
          "b'x'", "offset 2", "after 'ab'")
    fails(capsys, ["mask", "--regex", "abc", "--vocab", "bytes", "--prefix", "x"], "--prefix", "offset 0")
    invalid = b"a\xff".decode("utf-8", "surrogateescape")  # bytes of a command line that are not UTF-8
    fails(capsys, ["explain", "--regex", "a", "--vocab", "bytes", "--prefix", invalid], "--prefix", "0xFF",
          "offset 1")
    main(["mask", "--regex", "abc", "--vocab", "bytes", "--prefix", "ab"])  # and a good prefix is taken
    assert "forced     'c'" in capsys.readouterr().out


def test_bad_numbers(capsys):
    fails(capsys, ["mask", "--regex", "a", "--vocab", "bytes", "--sample", "0"], "--sample", ">= 1")
    fails(capsys, ["mask", "--regex", "a", "--vocab", "bytes", "--sample", "many"], "--sample", "'many'")
    fails(capsys, ["generate", "--lark", "g.lark", "--max-tokens", "-1"], "--max-tokens", ">= 0")
    fails(capsys, ["generate", "--lark", "g.lark", "--top-k", "-2"], "--top-k")
    fails(capsys, ["generate", "--lark", "g.lark", "--seed", "abc"], "--seed", "'abc'")


def test_usage_mistakes(capsys):
    fails(capsys, [], "command", "maskref --help")
    fails(capsys, ["nope"], "nope")
    fails(capsys, ["mask", "--vocab", "bytes"], "--regex", "maskref mask --help")
    fails(capsys, ["mask", "--regex", "a", "--lark", "g.lark"], "--lark", "not allowed")
    fails(capsys, ["explain", "--regex", "a", "--format", "pdf"], "--format", "pdf")
    fails(capsys, ["explain", "--regex", "a", "--format", "dot", "--graph", "both"], "--graph", "both")
    fails(capsys, ["explain", "--regex", "a", "--vocab", "bytes", "--graph", "trie"], "--graph trie", "--format dot")


# -- the handler --------------------------------------------------------------------------------


def test_version(capsys, monkeypatch):
    assert main(["--version"]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith("maskref ") and out.split()[1][0].isdigit()
    # run from a checkout, not installed: pyproject.toml's version, said so
    from importlib import metadata

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    assert main(["--version"]) == 0
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    version = pyproject.split('\nversion = "', 1)[1].split('"', 1)[0]
    assert capsys.readouterr().out.strip() == "maskref %s (from the checkout at %s, not installed)" % (version, ROOT)


def test_programming_errors_are_not_caught():
    """command_line turns the user's mistakes into error lines, not bugs."""
    def buggy(argv):
        return {}["missing"]

    with pytest.raises(KeyError):
        command_line(buggy)([])

    def bad_grammar(argv):
        raise GrammarError("unexpected token")

    assert command_line(bad_grammar)([]) == 2
    with pytest.raises(GrammarError):  # where refimpl's errors are not the user's (conformance)
        command_line(bad_grammar, mistakes=(OSError,))([])

    def bad_argument(argv):
        raise CommandLineError("--x: wrong")

    assert command_line(bad_argument, mistakes=())([]) == 2


@pytest.mark.parametrize("argv, culprits", [
    (["mask", "--schema", "nonexist.json"], ["--schema", "nonexist.json"]),
    (["explain", "--regex", "a", "--vocab", "bytes", "--tokens", "64", "99999999"], ["--tokens", "99999999"]),
    (["generate", "--type", "kalosm_character:Character"], ["kalosm_character"]),
    (["mask", "--regex", "a", "--sample", "0"], ["--sample"]),
])
def test_as_a_user_runs_it(argv, culprits):
    code, err = run_module("refimpl.showing.cli", *argv)
    assert code == 2
    line = error_line(err, *culprits)
    assert err.strip() == line  # nothing else: no usage block, no traceback


def test_the_empty_language(capsys, files):
    """A grammar whose language is empty compiles (docs/semantics.md, "The empty
    language"): `mask` says why its mask is empty, `explain` stops at its first step
    saying so, `generate` refuses it with one error line."""
    assert main(["mask", "--regex", r"[^\s\S]", "--vocab", "bytes"]) == 0
    out = capsys.readouterr().out
    assert "allowed    0 tokens\n" in out and "note       the grammar's language is empty" in out
    assert main(["explain", "--lark", files["empty.lark"], "--vocab", "bytes", "--format", "text", "--prefix", "a"]) == 1
    out = capsys.readouterr().out
    assert out.count("== step") == 1 and "stopped     the grammar's language is empty" in out
    fails(capsys, ["generate", "--lark", files["empty.lark"], "--vocab", "bytes"], "--lark", "empty.lark",
          "language is empty")
