"""tools/doctest_fences.py, the site's hook: bare doctests become `pycon` code blocks;
fenced and indented code, and the text around, stay as they are."""
import doctest
import importlib.util
import sys

from tests.support.paths import TOOLS

_spec = importlib.util.spec_from_file_location("doctest_fences", str(TOOLS / "doctest_fences.py"))
assert _spec is not None and _spec.loader is not None
fences = importlib.util.module_from_spec(_spec)
sys.modules["doctest_fences"] = fences
_spec.loader.exec_module(fences)


def test_doctests():
    failed, tried = doctest.testmod(fences)
    assert tried >= 2 and failed == 0


def test_code_already_fenced_or_indented_is_left_alone():
    lines = ["```python", ">>> 1", "1", "```", "", "    >>> 2", "    2", "~~~", ">>> 3", "~~~"]
    assert fences.fence_doctests(lines) == lines


def test_a_run_at_the_end_is_closed_and_output_lines_stay_inside():
    lines = ["Intro:", ">>> print('a')", "a", "... not a prompt", ">>> x = 1"]
    assert fences.fence_doctests(lines) == ["Intro:", "", "```pycon"] + lines[1:] + ["```"]


def test_two_runs_two_blocks():
    out = fences.fence_doctests([">>> 1", "1", "", "text", "", ">>> 2", "2"])
    assert out == ["```pycon", ">>> 1", "1", "```", "", "", "text", "", "```pycon", ">>> 2", "2", "```"]
