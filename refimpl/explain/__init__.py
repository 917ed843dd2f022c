"""`maskref explain`: a mask computed step by step, as text, DOT or an HTML page.

steps.py reads the engine's tracing hook (refimpl/trace.py) into plain records; text.py,
dot.py and page.py draw them (docs/explain.md is the tutorial).
"""
from .steps import Explanation, StepView, explain

__all__ = ["Explanation", "StepView", "explain"]
