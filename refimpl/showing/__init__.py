"""Showing: `maskref explain` (a mask step by step as text, DOT or an HTML page) and the
`maskref` command line.

steps.py reads the engine's tracing hook (refimpl/trace.py) into plain records; text.py,
dot.py and page.py (with svg.py) draw them (docs/explain.md is the tutorial); cli.py.
"""
from .steps import Explanation, StepView, explain

__all__ = ["Explanation", "StepView", "explain"]
