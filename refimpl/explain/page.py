"""`maskref explain --format html`: the steps as one self-contained HTML page.

A first version: each step's text (text.py) in its own section.
"""
from __future__ import annotations

import html

from . import text
from .steps import Explanation


def render(ex: Explanation) -> str:
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8"><title>maskref explain</title></head><body>']
    for step in ex.steps:
        parts.append('<section class="step" data-step="%d"><pre>%s</pre></section>'
                     % (step.index, html.escape("\n".join(text.step_lines(step)))))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
