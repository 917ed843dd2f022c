"""A campaign's log on stderr: its events at once (a finding, a child stopped), and its
counts at most every PROGRESS_EVERY seconds — plain lines, for a campaign that runs for
hours into a file (refimpl/progress.py is the one-line display at a terminal)."""
from __future__ import annotations

import sys
import time

#: the seconds between two progress lines
PROGRESS_EVERY = 5.0


class Say:
    """`say(text)`: a progress line `hostile: <text>` on stderr, if PROGRESS_EVERY seconds
    have passed since the last one (or since the start); `say(text, now=True)`: at once.
    Quiet: nothing."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet
        self.last = time.monotonic()

    def __call__(self, text: str, now: bool = False) -> None:
        t = time.monotonic()
        if self.quiet or not (now or t - self.last >= PROGRESS_EVERY):
            return
        self.last = t
        sys.stderr.write("hostile: %s\n" % text)
        sys.stderr.flush()
