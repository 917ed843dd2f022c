"""The README's Python quickstart, run as it is written there (the block after its marker
comment, as .ci/run takes the README's test command)."""
import contextlib
import io
import re

import pytest

from tests.support.paths import ROOT

MARKER = "<!-- the quickstart: tests/tokens/test_quickstart.py runs this very block -->"


def quickstart() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert MARKER in text, "README.md has lost its quickstart marker"
    block = re.match(r"\s*```python\n(.*?)\n```", text[text.index(MARKER) + len(MARKER):], re.S)
    assert block, "no python block after the quickstart marker"
    return block.group(1)


def test_readme_quickstart_runs():
    pytest.importorskip("tokenizers", reason="tokenizers not installed (the tokenizers extra)")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(quickstart(), "README.md (quickstart)", "exec"), {})
    assert out.getvalue() == "True\n"
