"""Containment: work done in a forked child process, each piece bounded in time and the
process in memory, so that an engine which segfaults, hangs or eats memory costs one
vector, recorded as such, and the run goes on with the next one.

`Contained(fn, limits)` is fn run in a child process (isolation.Child, forked at the first
call: it inherits the caller's engine and caches, and keeps its own across calls). Its
address space (RLIMIT_AS) may grow by at most `limits.memory_mb` beyond what it held at
the fork, and each call waits at most `limits.timeout` seconds for the answer. A call's
outcome is one of

    ("ok", value)       fn(item) (sent back pickled)
    ("timeout", why)    no answer in time: the child and its process group are killed
    ("crash", why)      the child died (a signal, an exit) without answering
    ("memory", why)     fn raised MemoryError, or the child died after its resident
                        memory grew by more than half the allowance (an allocation that
                        failed in native code and aborted, or the kernel's OOM killer)
    ("error", text)     fn raised another exception (its traceback: a bug, not a fault)

After anything but "ok", and after a call that left the child over half its allowance
(caches that grew), the next call starts a fresh child: so the allowance is, in effect,
per vector.

The defaults, 300 s and 4096 MB, are far above what an engine needs for one vector of
the default suite or of MaskBench (seconds, a few hundred MB), and low enough that 64
workers on a 64-core machine with 256 GB cannot exhaust it. (MaskBench gave a peer 15
minutes and 40 GiB, on a machine with 880 GiB.)

>>> square = Contained(lambda x: x * x, Limits(timeout=10))
>>> square(12), square(-3)
(('ok', 144), ('ok', 9))
>>> square.close()
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import traceback
from typing import Any, Callable, NamedTuple, Optional, Tuple

from .isolation import Child

DEFAULT_TIMEOUT = 300.0
DEFAULT_MEMORY_MB = 4096


class Limits(NamedTuple):
    timeout: float = DEFAULT_TIMEOUT
    memory_mb: int = DEFAULT_MEMORY_MB


def _status_kb(field: str) -> Optional[int]:
    """A field of /proc/self/status in kB (VmSize, VmRSS), None where there is none."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _die_with_parent(parent: int) -> None:
    """Linux: the child is killed when its parent dies (a run killed or shut down while the
    child hangs in a vector would otherwise leave it running, adopted by init)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - not Linux, or no ctypes: the pipe's EOF ends an idle child still
        return
    if os.getppid() != parent:  # the parent died before that
        os._exit(1)


def _serve(fn: Callable[[Any], Any], memory_mb: int, conn: Any, other_end: Any, parent: int) -> None:
    """The child: its own process group (killed whole on a timeout, with any process the
    engine started), the memory limit, then (outcome, value, kB grown) for every item
    received, until None (or the parent's end closes)."""
    import resource

    other_end.close()  # the parent's: so the parent's end closing is an EOF here
    _die_with_parent(parent)
    os.setpgid(0, 0)
    held = _status_kb("VmSize") or 0
    limit = (held + memory_mb * 1024) * 1024
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    while True:
        try:
            item = conn.recv()
        except EOFError:
            return
        if item is None:
            return
        try:
            answer: Tuple[str, Any] = ("ok", fn(item))
        except MemoryError:
            answer = ("memory", "MemoryError (over %d MB)" % memory_mb)
        except BaseException:  # noqa: BLE001 - sent to the parent, which decides
            answer = ("error", traceback.format_exc())
        conn.send(answer + ((_status_kb("VmSize") or held) - held,))


class Contained:
    """fn in a child process, each call within the limits (see the module's docstring)."""

    def __init__(self, fn: Callable[[Any], Any], limits: Limits) -> None:
        self.fn, self.limits = fn, limits
        self.process: Optional[Child] = None
        self.conn: Any = None
        self.rss_kb = 0

    def _start(self) -> Child:
        self.rss_kb = _status_kb("VmRSS") or 0
        self.conn, child = multiprocessing.Pipe()
        self.process = Child(_serve, (self.fn, self.limits.memory_mb, child, self.conn, os.getpid()))
        child.close()
        return self.process

    def __call__(self, item: Any) -> Tuple[str, Any]:
        process = self.process or self._start()
        allowance_kb = self.limits.memory_mb * 1024
        try:
            self.conn.send(item)
            answered = self.conn.poll(self.limits.timeout)
        except OSError:  # the child is gone already
            answered = True
        if not answered:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:  # not its own group yet, or already gone
                process.kill()
            self.close()
            return "timeout", "no answer within %g s" % self.limits.timeout
        try:
            outcome, value, grown_kb = self.conn.recv()
        except (EOFError, OSError):
            self.close()
            code = process.exitcode
            why = "killed by signal %d" % -code if code is not None and code < 0 else "exit status %s" % code
            if process.maxrss_kb - self.rss_kb > allowance_kb // 2:
                return "memory", "%s, after %d MB" % (why, (process.maxrss_kb - self.rss_kb) // 1024)
            return "crash", why
        if outcome != "ok" or grown_kb > allowance_kb // 2:
            self.close()  # a fresh child for the next call
        return outcome, value

    def close(self) -> None:
        """End the child (it is started again at the next call)."""
        if self.process is None:
            return
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.process.join(2.0)
        self.process.kill()
        self.process.join()
        self.conn.close()
        self.process = None
