"""The documentation site's hook (mkdocs.yml: hooks): bare doctests shown as code.

docs/*.md and the docstrings hold their examples as doctests at the start of a line,
without a code fence, so that pytest runs them (`--doctest-glob=*.md`) and a reader of the
plain text sees a session. Markdown would read `>>>` as three nested quotes; this hook adds
a Markdown preprocessor that fences each run of doctest lines — a `>>>` line, its `...`
continuations and the output up to the next blank line — as a `pycon` block, on the pages
and in the API reference (mkdocstrings renders docstrings with the same extensions). Text
already in a fenced or indented block is left as it is.

>>> prompt = ">" * 3
>>> fence_doctests(["Text.", prompt + " 1 + 1", "2", "", "More text."])
['Text.', '', '```pycon', '>>> 1 + 1', '2', '```', '', '', 'More text.']
"""
from __future__ import annotations

import re
from typing import Any, List

FENCE = re.compile(r"^\s*(```|~~~)")


def fence_doctests(lines: List[str]) -> List[str]:
    """The lines with every run of doctest lines outside a fence fenced as `pycon`."""
    out: List[str] = []
    fence = None  # the marker of the fenced block we are in, if any
    in_doctest = False
    for line in lines:
        if in_doctest:
            if line.strip():
                out.append(line)
                continue
            out.extend(["```", ""])
            in_doctest = False
        opened = FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1) == fence:
                fence = None
        elif opened:
            fence = opened.group(1)
        elif line.startswith(">>>"):
            if out and out[-1].strip():
                out.append("")
            out.append("```pycon")
            in_doctest = True
        out.append(line)
    if in_doctest:
        out.append("```")
    return out


def on_config(config: Any) -> Any:
    """Add the preprocessor before the other extensions and plugins read the config
    (mkdocstrings copies the extensions when its own on_config runs)."""
    config["markdown_extensions"].append(_extension())
    return config


# run before mkdocstrings' on_config (priority 0 unless said otherwise)
on_config.mkdocs_priority = 100  # type: ignore[attr-defined]


def _extension() -> Any:
    from markdown.extensions import Extension
    from markdown.preprocessors import Preprocessor

    class DoctestFences(Preprocessor):
        def run(self, lines: List[str]) -> List[str]:
            return fence_doctests(lines)

    class DoctestFencesExtension(Extension):
        def extendMarkdown(self, md: Any) -> None:
            # before fenced_code (priority 25) reads the fences added here
            md.preprocessors.register(DoctestFences(md), "doctest_fences", 30)

    return DoctestFencesExtension()
