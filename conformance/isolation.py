"""A peer in a child process, each call bounded in time.

A native engine that loops forever holds the interpreter (and the GIL) with it, so no
thread can time it out, and a campaign would stop there. `Isolated(engine)` runs each
session of `engine` in a forked child process and waits at most `timeout` seconds for
every start, mask and consume; a child that does not answer in time is killed and the
call raises `PeerTimeout`, and a child that dies (a segmentation fault, an abort) makes it
raise `PeerCrash` — findings like any exception (the runner and the fuzzer report them as
a divergence with an error), which a peer may declare as known differences.

>>> from conformance.refimpl_engines import OracleEngine
>>> from conformance.vectors import GrammarSpec, load_builtin
>>> session = Isolated(OracleEngine()).start(GrammarSpec("regex", "ab"), load_builtin("bytes"))
>>> session.consume(ord("a")), session.consume(ord("a"))
(True, False)
>>> session.close()
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from typing import Any, List, Optional, Tuple

from refimpl import Grammar, Vocabulary

from .differences import KnownDifference
from .divergence import Divergence
from .engine import Engine, Session
from .vectors import GrammarSpec, NotSupported, Refused


class PeerTimeout(RuntimeError):
    """The peer did not answer within the time allowed."""


class PeerCrash(RuntimeError):
    """The peer's process died (a segmentation fault, an abort) during a call."""


#: the kinds of a process fault, as Result.fault records them (conformance/runner.py)
FAULT_KINDS = ("crash", "timeout", "memory", "malformed")


def fault_of(error: BaseException) -> str:
    """The fault of the engine's process an exception stands for — "crash" (it died:
    PeerCrash, a worker's WorkerDied), "timeout" (no answer in time: PeerTimeout,
    WorkerTimeout), "malformed" (a worker's reply that is not one: WorkerGarbage),
    "memory" (MemoryError) — or "" for an error of the engine itself (a finding like a
    wrong mask).

    >>> fault_of(PeerTimeout("no answer")), fault_of(PeerCrash("died")), fault_of(ValueError("x"))
    ('timeout', 'crash', '')
    """
    kinds: List[Tuple[Any, str]] = [(PeerCrash, "crash"), (PeerTimeout, "timeout"), (MemoryError, "memory")]
    try:
        from accel.worker import WorkerDied, WorkerGarbage, WorkerTimeout, WorkerUnavailable
    except ImportError:  # no accel: no worker processes either
        pass
    else:  # (unavailable: a fresh worker that could not be run)
        kinds += [((WorkerDied, WorkerUnavailable), "crash"), (WorkerTimeout, "timeout"), (WorkerGarbage, "malformed")]
    return next((kind for cls, kind in kinds if isinstance(error, cls)), "")


def timed_out(d: Divergence) -> bool:
    """Is the divergence a call the isolated peer did not answer in time?"""
    return d.error is not None and "PeerTimeout" in d.error


def crashed(d: Divergence, during: str = "") -> bool:
    """Is the divergence a call (`during` that one, when given) in which the isolated peer's
    process died?"""
    return d.error is not None and "PeerCrash" in d.error and ("during " + during) in d.error


def _serve(engine: Engine, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar], conn: Any) -> None:
    """The child: start the session, then answer (op, arg) requests until told to stop.
    An answer is ("ok", value), ("unsupported", message), ("refused", message: the
    engine refuses the grammar, vectors.Refused) or ("error", "Type: message");
    the start's value is its time (ns), a call's (value, note, its time in ns)."""
    try:
        t0 = time.perf_counter_ns()
        session = engine.start(spec, vocab, grammar)
        conn.send(("ok", time.perf_counter_ns() - t0))
    except NotSupported as e:
        conn.send(("refused" if isinstance(e, Refused) else "unsupported", str(e)))
        return
    except BaseException as e:  # noqa: BLE001 - reported as the call's error (a Rust panic is a BaseException)
        conn.send(("error", "%s: %s" % (type(e).__name__, e)))
        return
    while True:
        op, arg = conn.recv()
        if op == "close":
            return
        try:
            t0 = time.perf_counter_ns()
            value = session.mask() if op == "mask" else session.consume(arg)
            conn.send(("ok", (value, session.note, time.perf_counter_ns() - t0)))
        except NotSupported as e:
            conn.send(("unsupported", str(e)))
        except BaseException as e:  # noqa: BLE001
            conn.send(("error", "%s: %s" % (type(e).__name__, e)))


def _single_threaded_torch() -> None:
    """In a forked child of a process where torch has used its OpenMP thread pool, torch's
    next parallel operation hangs (GNU OpenMP's pool does not survive a fork): one thread
    then (a child runs one session or vector; the parallelism is across workers)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


class Child:
    """A forked child process running `target(*args)`, then exiting. Plain os.fork, not
    multiprocessing.Process: the fuzzer's and runner's workers are daemonic pool
    processes, which multiprocessing does not let have children."""

    def __init__(self, target: Any, args: Tuple[Any, ...]) -> None:
        self.exitcode: Optional[int] = None
        self.maxrss_kb = 0  # the child's peak resident memory, once it has ended
        self.pid = os.fork()
        if self.pid == 0:  # the child
            code = 0
            try:
                _single_threaded_torch()
                target(*args)
            except BaseException:  # noqa: BLE001 - the parent sees the child end
                code = 1
            finally:
                os._exit(code)

    def _reap(self, flags: int) -> None:
        if self.exitcode is None:
            wait4 = getattr(os, "wait4", None)
            if wait4 is not None:
                pid, status, usage = wait4(self.pid, flags)
                self.maxrss_kb = usage.ru_maxrss if pid else 0
            else:
                pid, status = os.waitpid(self.pid, flags)
            if pid:
                self.exitcode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)

    def is_alive(self) -> bool:
        self._reap(os.WNOHANG)
        return self.exitcode is None

    def join(self, timeout: Optional[float] = None) -> None:
        """Wait for the child to end (at most `timeout` seconds, when given)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.is_alive() and (deadline is None or time.monotonic() < deadline):
            time.sleep(0.01)
        if deadline is None:
            self._reap(0)

    def kill(self) -> None:
        if self.is_alive():
            os.kill(self.pid, signal.SIGKILL)


class IsolatedSession(Session):
    """A session in a child process; its start and masks are timed there (start_ns,
    last_mask_ns), so a runner's times leave the round trip out."""

    def __init__(self, process: Any, conn: Any, timeout: float) -> None:
        self.process, self.conn, self.timeout = process, conn, timeout
        self.last_ns = 0

    def _answer(self, what: str) -> Any:
        if not self.conn.poll(self.timeout):
            self.close()
            raise PeerTimeout("no answer to %s within %g s" % (what, self.timeout))
        try:
            status, value = self.conn.recv()
        except EOFError:
            self.process.join()
            self.close()
            raise PeerCrash("the peer's process died during %s (exit code %s)" % (what, self.process.exitcode)) from None
        if status == "unsupported":
            raise NotSupported(value)
        if status == "refused":
            raise Refused(value)
        if status == "error":
            raise RuntimeError(value)
        return value

    def _call(self, op: str, arg: Any = None) -> Any:
        if not self.process.is_alive():
            raise RuntimeError("the peer's process has ended (exit code %s)" % self.process.exitcode)
        self.conn.send((op, arg))
        value, self.note, self.last_ns = self._answer(op)
        return value

    def mask(self) -> bytes:
        value = self._call("mask")
        self.last_mask_ns = self.last_ns  # timed in the child: the round trip left out
        return value

    def consume(self, token: int) -> bool:
        return self._call("consume", token)

    def close(self) -> None:
        if self.process.is_alive():
            try:
                self.conn.send(("close", None))
            except OSError:
                pass
            self.process.join(0.5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


class Isolated(Engine):
    """`engine` with its sessions in child processes (forked: the child inherits what the
    parent has built, e.g. a peer's vocabulary), every call bounded by `timeout`."""

    def __init__(self, engine: Engine, timeout: float = 30.0) -> None:
        self.inner = engine
        self.timeout = timeout
        self.name, self.description, self.kinds = engine.name, engine.description, engine.kinds
        self.known_differences: Tuple[KnownDifference, ...] = tuple(engine.known_differences)
        self.uses_refimpl = engine.uses_refimpl

    def unavailable_reason(self) -> Optional[str]:
        return self.inner.unavailable_reason()

    def version(self) -> str:
        return self.inner.version()

    def classify(self, d: Divergence) -> Optional[KnownDifference]:
        return self.inner.classify(d)

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        if spec.kind not in self.kinds:
            raise NotSupported("%s has no %s grammars" % (self.name, spec.kind))
        prepare = getattr(self.inner, "prepare", None)
        if prepare is not None:
            prepare(vocab)  # built once here, inherited by every child
        parent, child = multiprocessing.Pipe()
        process = Child(_serve, (self.inner, spec, vocab, grammar, child))
        child.close()
        session = IsolatedSession(process, parent, self.timeout)
        try:
            session.start_ns = session._answer("start")
        except BaseException:
            session.close()
            raise
        return session

    def close(self) -> None:
        self.inner.close()
