"""tools/playground_hook.py, without a site generator or npm: what it vendors (Pyodide's
files from MASKREF_PYODIDE, refimpl as a zip that imports and loads its embedded GPT-2
vocabulary once unpacked, byte for byte the same on a second build), the page's links,
and its one clear error where Pyodide cannot be had."""
import os
import subprocess
import sys
import types
import zipfile

import pytest

from tools import playground_hook as hook


@pytest.fixture
def fake_pyodide(tmp_path, monkeypatch):
    folder = tmp_path / "pyodide"
    folder.mkdir()
    for name in hook.PYODIDE_FILES:
        (folder / name).write_bytes(name.encode())
    monkeypatch.setenv("MASKREF_PYODIDE", str(folder))
    return folder


def test_vendor_copies_pyodide_and_zips_refimpl(tmp_path, fake_pyodide):
    out = hook.vendor(str(tmp_path / "site"))
    assert out == str(tmp_path / "site" / "playground")
    for name in hook.PYODIDE_FILES:
        assert (tmp_path / "site/playground/pyodide" / name).read_bytes() == name.encode()
    archive = tmp_path / "site/playground/maskref.zip"
    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        assert "refimpl/__init__.py" in names and "refimpl/showing/playground.py" in names
        assert "refimpl/tokens/data/gpt2.json.gz" in names
        assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
        z.extractall(tmp_path / "unpacked")
    # what the page does under Pyodide: unpack, put on the path, import, load GPT-2
    done = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); import refimpl; "
                           "from refimpl.showing import playground as pg; print(refimpl.__file__); "
                           "print(len(pg.vocabulary('gpt2')))" % str(tmp_path / "unpacked")],
                          stdout=subprocess.PIPE, universal_newlines=True, check=True, env={"PATH": os.environ["PATH"]})
    where, size = done.stdout.split()
    assert where.startswith(str(tmp_path / "unpacked")) and size == "50257"
    first = archive.read_bytes()
    hook.vendor(str(tmp_path / "site"))
    assert archive.read_bytes() == first  # the same tree, the same zip


def test_missing_pyodide_files_are_named(tmp_path, fake_pyodide):
    (fake_pyodide / "pyodide.asm.wasm").unlink()
    with pytest.raises(hook.PlaygroundError, match="lacks Pyodide's pyodide.asm.wasm"):
        hook.vendor(str(tmp_path / "site"))


def test_without_npm_the_error_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.delenv("MASKREF_PYODIDE", raising=False)
    monkeypatch.setattr(hook, "NPM_PROJECT", str(tmp_path))  # no node_modules there
    monkeypatch.setenv("PATH", str(tmp_path))  # and no npm
    with pytest.raises(hook.PlaygroundError, match="install Node.js's npm, or set MASKREF_PYODIDE"):
        hook.pyodide_dir()


def test_the_playground_page_gets_its_style_and_script():
    pytest.importorskip("properdocs" if _has("properdocs") else "mkdocs")
    page = types.SimpleNamespace(file=types.SimpleNamespace(src_uri="playground.md"), url="playground.html")
    out = hook.on_post_page("<html><head></head><body></body></html>", page, {})
    assert out == ('<html><head><link rel="stylesheet" href="playground/playground.css">\n</head><body>'
                   '<script src="playground/playground.js"></script>\n</body></html>')
    page.url = "playground/"  # directory URLs
    assert 'src="playground.js"' in hook.on_post_page("<body></body>", page, {})
    other = types.SimpleNamespace(file=types.SimpleNamespace(src_uri="index.md"), url="index.html")
    assert hook.on_post_page("<head></head>", other, {}) == "<head></head>"


def _has(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None
