"""The progress line (refimpl/progress.py), driven by a fake clock and a fake terminal: it
shows only on a terminal, only for a step past its delay, and is erased at the end; a
task without a display costs nothing and shows nothing."""
from __future__ import annotations

import io

from refimpl import progress
from refimpl.progress import Display


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_step_shows_after_its_delay_on_a_terminal_and_is_erased_at_its_end():
    out, clock = Terminal(), Clock()
    d = Display(out, delay=2.0, clock=clock)
    with d.opened("first mask", None):
        d.draw()
        assert out.getvalue() == ""  # not yet: quick steps print nothing
        clock.now += 3
        with d.opened("token index", 40) as inner:
            inner.advance(7, note="12 states")
            d.draw()
            assert out.getvalue() == ""  # the innermost step is not 2 s old yet
            clock.now += 2.5
            d.draw()
            assert out.getvalue().endswith("first mask › token index · 7/40 · 12 states · 6 s")
        assert out.getvalue().endswith("\r\x1b[Kfirst mask · 6 s")  # back to the parent
    assert out.getvalue().endswith("\r\x1b[K")  # erased


def test_nothing_on_a_stream_that_is_not_a_terminal_unless_asked_for_lines():
    out, clock = io.StringIO(), Clock()
    d = Display(out, clock=clock)
    with d.opened("fuzz", None):
        clock.now += 60
        d.draw()
    assert out.getvalue() == ""
    logged = Display(out, clock=clock, lines_every=10.0)
    with logged.opened("run", 9) as t:
        for _ in range(9):
            clock.now += 4
            t.advance()
            logged.draw()
    assert out.getvalue().splitlines() == ["run · 1/9 · 4 s", "run · 4/9 · 16 s", "run · 7/9 · 28 s"]


def test_tasks_without_a_display_and_shown_on_a_pipe_do_nothing():
    with progress.task("anything", 3) as t:
        t.advance()
        assert t.done == 1
    pipe = io.StringIO()
    with progress.shown(stream=pipe) as display:
        assert display is None
        with progress.task("x"):
            pass
    with progress.shown(enabled=False, stream=Terminal()) as display:
        assert display is None
    assert pipe.getvalue() == ""


def test_shown_installs_its_display_for_the_tasks_inside():
    term = Terminal()
    with progress.shown(stream=term, delay=0.0, interval=60.0) as display:
        assert display is not None
        with progress.task("step", 2) as t:
            t.advance()
            display.draw()
        assert "step · 1/2" in term.getvalue()
    with progress.task("after"):
        pass
    assert "after" not in term.getvalue()
