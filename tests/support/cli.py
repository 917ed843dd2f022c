"""Checking a command line's answer to a user's mistake: one `error:` line naming the
culprits, exit status 2, no traceback (refimpl/showing/commandline.py)."""
import os
import subprocess
import sys
from typing import List, Tuple

from tests.support.paths import ROOT


def error_line(stderr: str, *culprits: str) -> str:
    """The one `error:` line of `stderr`, which names every culprit (case-insensitive)."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, stderr
    for c in culprits:
        assert c.lower() in lines[0].lower(), (c, lines[0])
    return lines[0]


def fails(main, capsys, argv: List[str], *culprits: str) -> str:
    """main(argv) exits 2 with one error line naming the culprits; the line."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    return error_line(err, *culprits)


def run_module(*argv: str) -> Tuple[int, str]:
    """`python -m <argv>` from the repository root, as a user runs it: (exit status, stderr)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m"] + list(argv), cwd=str(ROOT), env=env, capture_output=True,
                          text=True, timeout=300)
    return proc.returncode, proc.stderr
