"""The default suite (conformance/generate.py writes conformance/suite/): the checked-in
lines are what the generator writes, refimpl agrees with them, and they cover each
construct they are there for."""
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conformance.generate import DATA_DIR, SUITE_DIR, _data_text
from conformance.registry import get_engine
from conformance.runner import check_vector
from conformance.vectors import ids_of, read_vectors
from tests.support.paths import DATA, ROOT
from tests.support.vectors import regenerated

REGEX_SUITE = os.path.join(SUITE_DIR, "regex.jsonl")


def test_checked_in_suite_is_what_generate_writes():
    """Regenerating one grammar gives the checked-in lines (the suite is not stale)."""
    stored = {v.id: v.to_line() for _, _, v in read_vectors(REGEX_SUITE) if v.id.startswith("regex/digits/")}
    assert regenerated("REGEXES", ("digits",), "regex") == stored


# the Lark and JSON-schema constructs of issue 13 (parametric rules, ignore_once, bounded
# JSON whitespace): each grammar name, its kind, and what its source must contain
NEW_CONSTRUCTS = {
    "permutation": ("lark", "perm::set_bit"), "unique-list": ("lark", "rest::set_bit"),
    "counted": ("lark", "lst::incr"), "length-limit": ("lark", "%if lt(_, 12)"),
    "ignore-once": ("lark", '"ignore_once": true'), "ignore-once-comment": ("lark", '"ignore_once": true'),
    "bounded-whitespace": ("json_schema", "[ ]{1,2}"), "x-guidance-whitespace": ("json_schema", "\\n[ ]{0,4}"),
}


def test_new_construct_vectors_exist_and_agree_with_refimpl():
    """Parametric rules, ignore_once and a bounded whitespace_pattern have vectors on both
    vocabularies, along paths that spell their samples and a random one; refimpl agrees."""
    backend = get_engine("refimpl")
    seen = {}
    for kind in ("lark", "json_schema"):
        for _, _, v in read_vectors(os.path.join(SUITE_DIR, kind + ".jsonl")):
            name = v.id.split("/")[1]
            if name not in NEW_CONSTRUCTS:
                continue
            want_kind, marker = NEW_CONSTRUCTS[name]
            text = v.grammar.source if want_kind == "lark" else json.dumps(v.grammar.schema) + json.dumps(
                v.grammar.options)
            assert v.grammar.kind == want_kind and marker in text, v.id
            assert check_vector(backend, v).status == "agree", v.id
            seen.setdefault(name, set()).add(tuple(v.id.split("/")[2:]))
    assert set(seen) == set(NEW_CONSTRUCTS)
    for name, ids in seen.items():
        assert {("bytes", "0"), ("bytes", "random"), ("gpt2", "0"), ("gpt2", "random")} <= ids, name


def test_new_construct_vectors_are_what_generate_writes():
    """The new vectors were written by the generator (and the old ones left unchanged)."""
    fresh = regenerated("LARK", ("permutation", "ignore-once"), "lark")
    stored = {v.id: v.to_line() for _, _, v in read_vectors(os.path.join(SUITE_DIR, "lark.jsonl")) if v.id in fresh}
    assert len(fresh) == 10 and fresh == stored  # (2 + 1 paths) + (1 + 1), on 2 vocabularies


def test_empty_language_vectors():
    """The empty language of each text frontend (docs/semantics.md, "The empty language"):
    one step, no token allowed, not even EOS, not accepting; what the generator writes;
    refimpl agrees."""
    backend = get_engine("refimpl")
    seen = set()
    for kind in ("regex", "lark", "gbnf", "ebnf"):
        for _, _, v in read_vectors(os.path.join(SUITE_DIR, kind + ".jsonl")):
            if "empty-language" not in v.tags:
                continue
            assert v.grammar.compile().is_empty, v.id
            assert len(v.steps) == 1 and not any(v.steps[0].mask) and not v.steps[0].accepting, v.id
            assert check_vector(backend, v).status == "agree", v.id
            seen.add((kind, v.id.split("/")[2]))
    assert seen == {(k, vocab) for k in ("regex", "lark", "gbnf", "ebnf") for vocab in ("bytes", "gpt2")}
    fresh = regenerated("REGEXES", ("empty-language",), "regex")
    stored = {v.id: v.to_line() for _, _, v in read_vectors(REGEX_SUITE) if v.id in fresh}
    assert len(fresh) == 4 and fresh == stored


# the constructs of the tokens group: each tag, and the vocabularies it must be on
TOKEN_CONSTRUCTS = {
    "special-token": ("bytes", "gpt2", "special"), "token-range": ("bytes", "gpt2", "special"),
    "negation": ("bytes", "gpt2", "special"), "ignore": ("bytes", "gpt2", "special"),
    "subgrammar": ("bytes", "gpt2", "special"), "stop": ("bytes", "gpt2", "special"),
    "suffix": ("bytes", "gpt2", "special"), "stop-eos": ("bytes", "gpt2", "special"),
    "max-tokens": ("bytes", "gpt2", "special"), "lazy": ("bytes", "gpt2", "special"),
    "metadata": ("bytes", "gpt2", "special"), "dead-end": ("bytes", "special"),
}


def test_token_vectors_cover_each_construct_and_agree_with_refimpl():
    backend = get_engine("refimpl")
    seen = {}
    for _, _, v in read_vectors(os.path.join(SUITE_DIR, "tokens.jsonl")):
        assert v.grammar.kind == "lark" and v.id.startswith("tokens/"), v.id
        assert check_vector(backend, v).status == "agree", v.id
        for tag in v.tags:
            seen.setdefault(tag, set()).add(v.vocab.name)
    for tag, vocabs in TOKEN_CONSTRUCTS.items():
        assert set(vocabs) <= seen.get(tag, set()), tag
    # EOS eaten mid-grammar, a budget spent where the lexeme cannot end: the vectors show it
    stop_eos = next(v for _, _, v in read_vectors(os.path.join(SUITE_DIR, "tokens.jsonl"))
                    if v.id == "tokens/stop-eos/special/0")
    eos_at = stop_eos.path.index(stop_eos.vocab.eos_token_id)
    assert stop_eos.path[eos_at + 1] == ord("!") and stop_eos.steps[eos_at + 1].accepting is False
    dead = next(v for _, _, v in read_vectors(os.path.join(SUITE_DIR, "tokens.jsonl"))
                if v.id == "tokens/max-tokens-dead/special/0")
    assert ids_of(dead.steps[-1].mask) == [] and not dead.steps[-1].accepting


def test_token_vectors_are_what_generate_writes():
    fresh = regenerated("TOKENS", ("text-or-token", "stop-eos-last"), "tokens")
    stored = {v.id: v.to_line() for _, _, v in read_vectors(os.path.join(SUITE_DIR, "tokens.jsonl")) if v.id in fresh}
    assert len(fresh) == 3 * 3 + 3 * 2 and fresh == stored  # (2 + 1) and (1 + 1) paths, on 3 vocabularies


BLINDSPOTS_SUITE = os.path.join(SUITE_DIR, "blindspots.jsonl")


def test_blindspot_vectors_are_what_generate_writes_and_cover_each_blind_spot():
    """The `blindspots` group: regenerated entries equal the checked-in lines; the group
    has two EOS ids on a vocabulary, escapes split across tokens, slice-boundary tokens
    in masks, lexemes ending on the same bytes, and multi-byte case folding."""
    from conformance import generate

    fresh = regenerated("BLINDSPOTS", ("escape-pieces", "two-eos"), "blindspots")
    stored = {v.id: v for _, _, v in read_vectors(BLINDSPOTS_SUITE)}
    assert len(fresh) == 6 and {i: stored[i].to_line() for i in fresh} == fresh
    by_name = {}
    for v in stored.values():
        by_name.setdefault(v.id.split("/")[1], []).append(v)
    two_eos = by_name["two-eos"][0]
    assert len(two_eos.vocab.eos_token_ids) == 2 and {0, 7} <= set(ids_of(two_eos.steps[-2].mask))
    pieces = [two.vocab.tokens[t] for two in by_name["escape-pieces"][:1] for t in two.path]
    assert b"\\" in pieces and b"u" in pieces  # `\u001f` typed in pieces
    runs = generate.ESCAPE_VOCAB.tokens.index(b"abcdefghij"), generate.ESCAPE_VOCAB.tokens.index(b"abcdefghijk")
    quoted = stored["blindspots/slice-bound-10/escapes/1"]
    assert quoted.vocab.tokens[quoted.path[0]] == b'"'
    first = quoted.steps[1].mask  # after the opening quote
    assert runs[0] in ids_of(first) and runs[1] not in ids_of(first)  # 10 fit, 11 do not
    assert "same-ends" in by_name and "case-folding" in by_name and "xgrammar-max-tokens" in by_name


def test_the_grammars_generate_reads_are_shipped_copies_of_the_test_data():
    """generate reads llama.cpp's json.gbnf and xgrammar's JSON grammar from
    conformance/data/, package data (pyproject.toml), exact copies of tests/data's entries."""
    cases = json.loads((DATA / "grammar_cases.json").read_text(encoding="utf-8"))
    gbnf = next(c["grammar"] for c in cases["compile_cases"] if c["source"] == "grammars/json.gbnf")
    ebnf = next(c["grammar"] for c in cases["cases"]
                if c["format"] == "xgrammar" and c["source"].endswith("(test_json_accept)"))
    assert _data_text("json.gbnf") == gbnf and _data_text("xgrammar_json.ebnf") == ebnf
    line = re.search(r"^conformance = (\[.*\])$", (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    globs = json.loads(line.group(1))
    for name in os.listdir(DATA_DIR):
        assert any(fnmatch.fnmatch("data/" + name, g) for g in globs), name


def _installable() -> bool:
    probe = "import setuptools, importlib.util; assert importlib.util.find_spec('pip')"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


@pytest.mark.skipif(not _installable(), reason="pip and setuptools are needed to install the package")
def test_generate_runs_from_an_installed_copy(tmp_path):
    """`pip install` of a copy of the sources (offline: no build isolation, no
    dependencies; without the optional C extension, CC=false, to be quick), then
    `generate` in another directory: it reads nothing from the checkout, and writes what
    the checked-in suite holds; an unknown group is refused."""
    # offline, the build backend is this interpreter's own setuptools: before 70.1 it makes
    # wheels with the wheel package (PyPy's venv here has setuptools 66 and no wheel)
    setuptools = pytest.importorskip("setuptools")
    if tuple(int(x) for x in setuptools.__version__.split(".")[:2]) < (70, 1):
        pytest.importorskip("wheel", reason="setuptools %s needs the wheel package to build offline" % setuptools.__version__)
    source, site, out = tmp_path / "source", tmp_path / "site", tmp_path / "suite"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in ("refimpl", "accel", "conformance", "integrations"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    env = dict(os.environ, CC="false", PIP_DISABLE_PIP_VERSION_CHECK="1")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-compile",
                    "--target", str(site), str(source)], check=True, env=env, cwd=str(tmp_path), timeout=600,
                   capture_output=True)
    shutil.rmtree(source)  # nothing left to read but the installed copy
    env = dict(os.environ, PYTHONPATH=str(site))
    run = subprocess.run([sys.executable, "-m", "conformance", "generate", "--only", "gbnf", "--out", str(out)],
                         env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert (out / "gbnf.jsonl").read_text(encoding="utf-8") == (ROOT / "conformance" / "suite" / "gbnf.jsonl").read_text(
        encoding="utf-8")
    where = subprocess.run([sys.executable, "-c", "import conformance.generate as g; print(g._data_text('xgrammar_json.ebnf'))"],
                           env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=120)
    assert where.stdout == _data_text("xgrammar_json.ebnf") + "\n"
    wrong = subprocess.run([sys.executable, "-m", "conformance", "generate", "--only", "nonsense"],
                           env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=120)
    assert wrong.returncode == 2 and wrong.stderr.startswith("error: --only: unknown group nonsense (known: regex, ")


TYPES_SUITE = os.path.join(SUITE_DIR, "types.jsonl")


def test_type_vectors_are_what_generate_writes(monkeypatch):
    """The `types` group: regenerated entries (a nested dataclass on two vocabularies, a
    recursive class, numbers with markers, strings, a dict) equal the checked-in lines."""
    from conformance import python_types

    names = ("character", "tree", "numbers", "strings", "dict")
    monkeypatch.setattr(python_types, "TYPES", [e for e in python_types.TYPES if e[0] in names])
    fresh = {v.id: v.to_line() for v in generate_group("types")}
    stored = {v.id: v.to_line() for _, _, v in read_vectors(TYPES_SUITE) if v.id.split("/")[1] in names}
    assert len(fresh) == 5 + 2 + 5 + 4 + 2 + 2 and fresh == stored  # + character and dict on GPT-2


def generate_group(group):
    from conformance import generate

    return generate.generate(kinds=[group])[group]


def test_type_vectors_cover_the_typed_frontend_and_pin_parse():
    """Every entry of python_types.TYPES has vectors whose schema is json_schema_of(T); the
    accepted texts are to_json's, their notes hold parse's value (the first also
    to_json's refusals of UNWRITABLE's values); the refused ones stop
    where the grammar refuses, their notes hold parse's error; refimpl agrees; the tags
    cover the typed frontend's features (docs/types.md)."""
    from conformance.python_types import TYPES, UNWRITABLE
    from refimpl.typed import json_schema_of, parse, to_json

    def _refusal(value):
        with pytest.raises(ValueError) as e:
            to_json(value)
        return str(e.value)

    assert set(UNWRITABLE) <= {e[0] for e in TYPES}

    backend = get_engine("refimpl")
    by_name = {}
    for _, _, v in read_vectors(TYPES_SUITE):
        by_name.setdefault(v.id.split("/")[1], []).append(v)
        assert check_vector(backend, v).status == "agree", v.id
    assert [e[0] for e in TYPES] == list(by_name)
    tags = set()
    for name, t, description, values, refused, entry_tags in TYPES:
        vectors = by_name[name]
        tags.update(entry_tags)
        assert all(v.grammar.kind == "json_schema" and v.grammar.schema == json_schema_of(t) for v in vectors)
        accepted = [v for v in vectors if "accepted" in v.tags and v.vocab.name == "bytes"]
        assert [bytes(b for t_ in v.path[:-1] for b in v.vocab.tokens[t_]).decode() for v in accepted] == [
            to_json(x) for x in values]
        for i, (v, x) in enumerate(zip(accepted, values)):
            refusals = "".join("; to_json refuses %r: %s" % (u, _refusal(u)) for u in UNWRITABLE.get(name, ()) if i == 0)
            assert v.steps[-2].accepting and v.note.startswith(description) and v.note.endswith(
                "parse gives %r%s" % (parse(t, to_json(x)), refusals))
        rejected = [v for v in vectors if "refused" in v.tags]
        assert len(rejected) == len(refused)
        for v, text in zip(rejected, refused):
            spelled = bytes(b for t_ in v.path for b in v.vocab.tokens[t_])
            assert text.encode().startswith(spelled) and "parse refuses it: " in v.note
            assert not v.steps[-1].accepting or spelled != text.encode()
    assert {"dataclass", "defaults", "optional", "typeddict", "namedtuple", "enum", "literal", "union", "list", "tuple",
            "dict", "recursion", "range", "multiple-of", "length", "pattern", "formats", "all-of"} <= tags
