"""accel.pypy: refimpl itself under PyPy, in a worker process; and `cmd:` backends.

    open_matcher(g, v, backend="pypy")                         # pypy3 -m refimpl.serving.worker
    open_matcher(g, v, backend="cmd:/path/to/engine --flag")   # any program speaking the protocol

The PyPy worker runs this very copy of refimpl: the directory that holds the `refimpl`
package is put first on the worker's PYTHONPATH, so nothing needs installing under PyPy.
The executable is $MASKREF_PYPY, else `pypy3` on PATH. Both factories accept, besides
the Matcher's `limits` and `slices`: `timeout` (seconds per request), `create_timeout`,
`startup_timeout`, `reuse` (share one process per command; default True), `trust_masks`
(a consume of a token the last mask allowed does not wait for its reply; default True for
"pypy", False for `cmd:`), and for `cmd:` also `cwd` and `env`. Errors of the process are `accel.worker.WorkerError`s.
"""
from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
from typing import Any, Dict, List, Optional

import refimpl

from .worker import WorkerMatcher, WorkerUnavailable, start

#: the directory that contains the refimpl package this process uses
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(refimpl.__file__)))


def pypy_executable() -> Optional[str]:
    """$MASKREF_PYPY, or pypy3 on PATH, or None."""
    given = os.environ.get("MASKREF_PYPY")
    if given:
        return shutil.which(given) or (given if os.path.exists(given) else None)
    return shutil.which("pypy3")


def worker_env() -> Dict[str, str]:
    """The environment of a PyPy worker: ours, with refimpl's directory first on the path."""
    env = dict(os.environ)
    path = env.get("PYTHONPATH")
    env["PYTHONPATH"] = SOURCE_ROOT + (os.pathsep + path if path else "")
    return env


def unavailable_reason() -> Optional[str]:
    """None if the pypy backend can run here, else why not."""
    return _reason(pypy_executable())


def _reason(exe: Optional[str]) -> Optional[str]:
    """Why `exe` (pypy_executable()'s answer) cannot run the worker, or None.

    Only the probe of an executable is cached (it starts PyPy), keyed by everything it
    depends on; the reasons for a missing executable name the current $MASKREF_PYPY, so
    they are never cached: a test or a user that changes it gets the reason for the new
    value, not the one computed first."""
    if exe is None:
        given = os.environ.get("MASKREF_PYPY")
        if given:
            return "pypy: MASKREF_PYPY=%s is not an executable" % given
        return "pypy: pypy3 not found on PATH (apt-get install pypy3, or set MASKREF_PYPY)"
    return _probe(exe, worker_env()["PYTHONPATH"])


@functools.lru_cache(maxsize=None)
def _probe(exe: str, pythonpath: str) -> Optional[str]:
    """Run `exe` once: can it import this refimpl (with this PYTHONPATH), and is it 3.9+?"""
    probe = "import sys, refimpl.serving.worker; print('%d.%d' % sys.version_info[:2])"
    try:
        done = subprocess.run(
            [exe, "-c", probe], env=dict(worker_env(), PYTHONPATH=pythonpath), capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return "pypy: cannot run %s: %s" % (exe, e)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["exit code %d" % done.returncode])[-1]
        return "pypy: %s cannot import refimpl from %s: %s" % (exe, SOURCE_ROOT, tail)
    version = tuple(int(x) for x in done.stdout.strip().split("."))
    if version < (3, 9):
        return "pypy: %s is Python %s; refimpl needs 3.9 or later" % (exe, done.stdout.strip())
    return None


def matcher(grammar: Any, vocab: Any, backend: str = "pypy", **options: Any) -> WorkerMatcher:
    """A Matcher running in `pypy3 -m refimpl.serving.worker` (shared by matchers of this process)."""
    exe = pypy_executable()
    reason = _reason(exe)
    if reason is not None or exe is None:
        raise WorkerUnavailable("backend 'pypy' is not available: %s" % reason)
    return start([exe, "-m", "refimpl.serving.worker"], grammar, vocab, backend=backend, env=worker_env(), **options)


def command_argv(backend: str) -> List[str]:
    """The program and arguments of a "cmd:<command>" backend (split as a shell would, not
    run by a shell); ValueError if there is no command or a quote is left open."""
    command = backend[len("cmd:"):] if backend.startswith("cmd:") else backend
    argv = shlex.split(command)
    if not argv:
        raise ValueError('backend "cmd:<command>" needs a command, e.g. "cmd:pypy3 -m refimpl.serving.worker"')
    return argv


def command_matcher(grammar: Any, vocab: Any, backend: str = "cmd:", **options: Any) -> WorkerMatcher:
    """A Matcher in the worker started by the command after "cmd:" (split as a shell would,
    not run by a shell)."""
    return start(command_argv(backend), grammar, vocab, backend=backend, **options)


def start_problem(backend: str, startup_timeout: Optional[float] = None) -> Optional[str]:
    """Why the worker of a "cmd:<command>" backend cannot serve, in one line, or None: the
    worker is started and must answer its hello (the protocol's version) within
    `startup_timeout` seconds (default: `DEFAULT_STARTUP_TIMEOUT`, which
    $MASKREF_WORKER_STARTUP_TIMEOUT sets), then is shut down. The line names the command
    and what happened — it could not be run, exited (with its code), answered garbage, did
    not answer in time, or speaks another protocol version — and ends with the last lines
    of its stderr, if it wrote any.

    >>> print(start_problem("cmd:false"))
    worker `false` exited with code 1 before answering its hello
    """
    from .worker import WorkerError, WorkerProcess
    from .worker import process as worker_process

    try:
        argv = command_argv(backend)
    except ValueError as e:
        return str(e)
    timeout = worker_process.DEFAULT_STARTUP_TIMEOUT if startup_timeout is None else startup_timeout
    try:
        WorkerProcess(argv, startup_timeout=timeout).close()
    except WorkerError as e:
        return one_line(e)
    return None


def one_line(error: Any) -> str:
    """A worker's error (accel.worker.WorkerError) in one line: its message's first line,
    the request shown only as "its hello" when it was one, then the last lines of the
    worker's stderr (up to 300 characters, line ends shown as " | ")."""
    text = str(error).split("\n", 1)[0]
    text = re.sub(r'did not answer within (\S+ s) \(killed it\); request: \{"op":"hello"[^}]*\}',
                  r"did not answer its hello within \1 (killed it; $MASKREF_WORKER_STARTUP_TIMEOUT sets the limit)",
                  text)
    text = re.sub(r'(answering|answered) \{"op":"hello"[^}]*\}', r"\1 its hello", text)
    tail = " | ".join(line.strip() for line in (error.stderr or "").strip().splitlines()[-4:] if line.strip())
    if tail:
        text += "; its stderr ends: %s" % (tail if len(tail) <= 300 else "..." + tail[-297:])
    return text
