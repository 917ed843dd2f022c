"""Progress of long steps, for a user waiting at a terminal.

Code that may run for a while names its step and, when it knows them, counts its units:

    with progress.task("token index", total=len(states)) as t:
        for state in states:
            ...
            t.advance()

That costs next to nothing (a `Task` whose `advance` adds one) unless a command has
installed a display with `shown()`; refimpl's own steps do so only through the command
lines (`maskref`, `python -m conformance`). The display is one line on standard error,
redrawn in place:

    maskref: first mask (walking the token trie) · 14 s
    fuzz fault:drop-eos: shrinking a disagreement · 212/1000 examples · 31 s

and the rules of when it shows are the same for every command:

* only when the stream (standard error) is a terminal: piped or redirected to a file
  (logs, CI, tests) nothing is written — unless `lines_every` asks for a plain line
  every so many seconds there (a long campaign's log);
* only once the innermost step has run for `delay` seconds (2 s), so quick commands
  print nothing; then redrawn every `interval` seconds by a daemon thread (a step that
  counts nothing still shows its time), and erased when the step ends;
* never with the command's flag off (`--no-progress`, or `--quiet`).

Tasks nest (the line shows the innermost, after its parents' names); a Task is used
from the thread that opened it, and the display only reads it.
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import Callable, Iterator, List, Optional, TextIO

__all__ = ["Display", "Task", "shown", "task"]


class Task:
    """One step: its name, units done and the total (None: unknown), when it started."""

    __slots__ = ("what", "total", "done", "started", "note")

    def __init__(self, what: str, total: Optional[int], started: float) -> None:
        self.what, self.total, self.done, self.started = what, total, 0, started
        #: a short text shown after the count (what the step is at)
        self.note = ""

    def advance(self, n: int = 1, note: Optional[str] = None) -> None:
        self.done += n
        if note is not None:
            self.note = note


class Display:
    """Draws the open tasks on a stream (see the module docstring for when). `clock` and
    the stream are parameters, so tests drive it without waiting."""

    def __init__(self, stream: TextIO, delay: float = 2.0, interval: float = 0.25,
                 clock: Callable[[], float] = time.monotonic, lines_every: Optional[float] = None) -> None:
        self.stream, self.delay, self.interval, self.clock = stream, delay, interval, clock
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        #: on a stream that is not a terminal: a plain line at most every so many seconds
        self.lines_every = lines_every
        self.tasks: List[Task] = []
        self._drawn = ""  # the line on screen (terminal), "" if none
        self._last_line = -1e18  # when the last plain line was written
        self._lock = threading.Lock()

    def line(self) -> Optional[str]:
        """The text for now, or None when nothing is to be shown yet."""
        tasks = list(self.tasks)
        if not tasks:
            return None
        now = self.clock()
        inner = tasks[-1]
        if now - inner.started < self.delay:
            return None
        parts = [" › ".join(t.what for t in tasks)]
        if inner.total is not None:
            parts.append("%d/%d" % (inner.done, inner.total))
        elif inner.done:
            parts.append("%d" % inner.done)
        if inner.note:
            parts.append(inner.note)
        parts.append("%.0f s" % (now - tasks[0].started))
        return " · ".join(parts)

    def draw(self) -> None:
        """Write the line if it is due (called by the ticker, and as tasks open and end)."""
        with self._lock:
            text = self.line()
            if self.tty:
                text = "" if text is None else text[:150]
                if text != self._drawn:
                    self.stream.write("\r\x1b[K" + text)
                    self.stream.flush()
                    self._drawn = text
            elif text is not None and self.lines_every is not None:
                now = self.clock()
                if now - self._last_line >= self.lines_every:
                    self.stream.write(text + "\n")
                    self.stream.flush()
                    self._last_line = now

    @contextlib.contextmanager
    def opened(self, what: str, total: Optional[int]) -> Iterator[Task]:
        t = Task(what, total, self.clock())
        self.tasks.append(t)
        try:
            yield t
        finally:
            self.tasks.remove(t)
            self.draw()  # erased, or the parent's line


#: the display of this process, while `shown` is in force (else tasks show nothing)
_display: Optional[Display] = None


@contextlib.contextmanager
def task(what: str, total: Optional[int] = None) -> Iterator[Task]:
    """A step that may take a while: shown (if a display is installed and the step lasts)
    as `what`, with its count of `total` if given."""
    display = _display
    if display is None:
        yield Task(what, total, 0.0)
        return
    with display.opened(what, total) as t:
        yield t


@contextlib.contextmanager
def shown(enabled: bool = True, stream: Optional[TextIO] = None, delay: float = 2.0, interval: float = 0.25,
          lines_every: Optional[float] = None) -> Iterator[Optional[Display]]:
    """Show the tasks opened inside this block on `stream` (standard error), as the module
    docstring says; nothing if not `enabled`, or if the stream is not a terminal (unless
    `lines_every`). A daemon thread redraws every `interval` seconds; the line is erased
    at the end."""
    global _display
    display = Display(stream if stream is not None else sys.stderr, delay, interval, lines_every=lines_every)
    if not enabled or (not display.tty and lines_every is None) or _display is not None:
        yield None
        return
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(interval):
            try:
                display.draw()
            except (OSError, ValueError):  # the stream went away
                return

    _display = display
    ticker = threading.Thread(target=tick, name="maskref-progress", daemon=True)
    ticker.start()
    try:
        yield display
    finally:
        stop.set()
        ticker.join()
        _display = None
        display.tasks.clear()
        with contextlib.suppress(OSError, ValueError):
            display.draw()
