"""One worker process: started, fed requests, read, timed and ended by the client.

    proc = WorkerProcess.shared(["pypy3", "-m", "refimpl.serving.worker"])
    reply = proc.request({"op": "mask", "session": 1}, timeout=60)

A worker process serves many sessions and is shared by the matchers started with the
same command (`WorkerProcess.shared`); it is shut down at exit. Nothing the worker does
can hang the caller: every request has a deadline, the pipes are read and written by
helper threads, and a worker that exits, misses a deadline (it is killed) or answers
something that is not a reply raises a `WorkerError` naming the command, the request,
the exit code and the tail of its stderr.
"""
from __future__ import annotations

import atexit
import collections
import io
import json
import os
import queue
import shlex
import subprocess
import threading
import weakref
from typing import Any, Dict, List, Optional, Sequence, Tuple, cast

from refimpl.serving import protocol
from refimpl.serving.protocol import PROTOCOL_VERSION, REQUIRED_OPS
from refimpl.tokens.vocab import Vocabulary

from .errors import WorkerDied, WorkerError, WorkerGarbage, WorkerRemoteError, WorkerTimeout, WorkerUnavailable, WorkerUnsupported


def _seconds(variable: str, default: float) -> float:
    try:
        return float(os.environ.get(variable, default))
    except ValueError:
        return default


#: Default deadlines in seconds (each a keyword of the backends' factories, and an
#: environment variable).
DEFAULT_TIMEOUT = _seconds("MASKREF_WORKER_TIMEOUT", 60.0)
DEFAULT_CREATE_TIMEOUT = _seconds("MASKREF_WORKER_CREATE_TIMEOUT", 600.0)
DEFAULT_STARTUP_TIMEOUT = _seconds("MASKREF_WORKER_STARTUP_TIMEOUT", 60.0)
STDERR_TAIL = 2000  # characters of the worker's stderr kept for error messages


def _summary(req: Dict[str, Any], limit: int = 240) -> str:
    text = json.dumps(req, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: environment variables left out of the pool key of `WorkerProcess.shared`
_VOLATILE_ENV = frozenset({"PYTEST_CURRENT_TEST"})


class WorkerProcess:
    """One process speaking the worker protocol; requests are serialised by a lock."""

    _pool: Dict[Tuple[Any, ...], "WorkerProcess"] = {}
    _pool_lock = threading.Lock()
    _live: "weakref.WeakSet[WorkerProcess]" = weakref.WeakSet()

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Optional[str] = None,
        env: Optional[Dict[str, str]] = None,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
    ) -> None:
        self.argv = list(argv)
        self.command = " ".join(shlex.quote(a) for a in self.argv)
        self.dead: Optional[str] = None  # why the process can no longer be used
        self.returncode: Optional[int] = None
        self.vocab_specs: "weakref.WeakKeyDictionary[Vocabulary, Dict[str, Any]]" = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self._next_id = 0
        self._pending_close: List[Any] = []  # sessions of matchers collected without close()
        self._replies: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self._writes: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self._stderr: "collections.deque[bytes]" = collections.deque()
        self._stderr_size = 0
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env
            )
        except OSError as e:
            raise WorkerUnavailable("cannot start worker `%s`: %s" % (self.command, e), command=self.command) from None
        # the pipes Popen made (buffered binary streams; never None with PIPE)
        self._stdin = cast(io.BufferedWriter, self.proc.stdin)
        self._stdout = cast(io.BufferedReader, self.proc.stdout)
        self._stderr_pipe = cast(io.BufferedReader, self.proc.stderr)
        self._threads = [
            threading.Thread(target=self._read_stdout, name="maskref-worker-stdout", daemon=True),
            threading.Thread(target=self._read_stderr, name="maskref-worker-stderr", daemon=True),
            threading.Thread(target=self._write_stdin, name="maskref-worker-stdin", daemon=True),
        ]
        for t in self._threads:
            t.start()
        WorkerProcess._live.add(self)
        try:
            self.hello = self.request({"op": "hello", "protocol": PROTOCOL_VERSION}, startup_timeout)
        except BaseException:
            if self.dead is None:
                self.kill("its hello failed")
            raise
        problem = protocol.hello_problem(self.hello)
        if problem is not None:
            self.kill("it answered garbage")
            raise WorkerGarbage("worker `%s` sent %s: %s" % (self.command, problem, _summary(self.hello)),
                                command=self.command, stderr=self.stderr_tail())
        if self.hello.get("protocol") != PROTOCOL_VERSION:
            self.kill("wrong protocol version")
            raise WorkerUnsupported(
                "worker `%s` speaks protocol %r; this client speaks %d"
                % (self.command, self.hello.get("protocol"), PROTOCOL_VERSION),
                command=self.command,
            )
        #: the ops the worker implements (the required ones, if its hello does not say)
        self.ops = set(self.hello.get("ops") or REQUIRED_OPS)

    @classmethod
    def shared(
        cls,
        argv: Sequence[str],
        *,
        cwd: Optional[str] = None,
        env: Optional[Dict[str, str]] = None,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
    ) -> "WorkerProcess":
        """The running process for this command (started if there is none, or it died).
        Variables that change under a running program without meaning another worker
        (pytest's PYTEST_CURRENT_TEST, set per test) do not count."""
        stable = None if env is None else tuple(sorted((k, v) for k, v in env.items() if k not in _VOLATILE_ENV))
        key = (tuple(argv), cwd, stable)
        with cls._pool_lock:
            proc = cls._pool.get(key)
            if proc is None or proc.dead is not None:
                proc = cls._pool[key] = cls(argv, cwd=cwd, env=env, startup_timeout=startup_timeout)
            return proc

    # -- the pipes (helper threads) -------------------------------------------------------

    def _read_stdout(self) -> None:
        stdout = self._stdout
        try:
            for line in iter(stdout.readline, b""):
                self._replies.put(line)
        except (OSError, ValueError):
            pass
        self._replies.put(None)  # end of file

    def _read_stderr(self) -> None:
        stderr = self._stderr_pipe
        try:
            for chunk in iter(lambda: stderr.read1(4096), b""):
                self._stderr.append(chunk)
                self._stderr_size += len(chunk)
                while self._stderr_size - len(self._stderr[0]) > STDERR_TAIL and len(self._stderr) > 1:
                    self._stderr_size -= len(self._stderr.popleft())
        except (OSError, ValueError):
            pass

    def _write_stdin(self) -> None:
        stdin = self._stdin
        while True:
            data = self._writes.get()
            try:
                if data is None:
                    stdin.close()
                    return
                stdin.write(data)
                stdin.flush()
            except (OSError, ValueError):  # the worker is gone; the reader sees EOF
                return

    def stderr_tail(self, wait: float = 0.0) -> str:
        """The last characters the worker wrote to stderr (waiting up to `wait` seconds
        for the stream to end, when the process has exited)."""
        if wait:
            self._threads[1].join(wait)
        text = b"".join(self._stderr).decode("utf-8", "replace")
        return text[-STDERR_TAIL:]

    # -- requests -------------------------------------------------------------------------

    def request(self, req: Dict[str, Any], timeout: float, *, grammar_text: str = "") -> Dict[str, Any]:
        """Send one request, wait for its reply: the reply if ok; else raise the error."""
        with self._lock:
            if self.dead is not None:
                raise WorkerDied(
                    "worker `%s` is not running (%s); cannot send %s" % (self.command, self.dead, _summary(req)),
                    command=self.command, request=_summary(req), returncode=self.returncode, stderr=self.stderr_tail(),
                )
            while self._pending_close:
                try:
                    self._roundtrip({"op": "close", "session": self._pending_close.pop()}, timeout)
                except (WorkerRemoteError, WorkerUnsupported, ValueError):
                    pass
            reply = self._roundtrip(req, timeout)
        if reply.get("ok") is True:
            return reply
        raise self._remote_error(reply, req, grammar_text)

    def _roundtrip(self, req: Dict[str, Any], timeout: float) -> Dict[str, Any]:
        self._next_id += 1
        rid = self._next_id
        req = dict(req, id=rid)
        self._writes.put(protocol.dump(req).encode("utf-8"))
        try:
            raw = self._replies.get(timeout=timeout)
        except queue.Empty:
            self.kill("it timed out")
            raise WorkerTimeout(
                "worker `%s` did not answer within %g s (killed it); request: %s%s"
                % (self.command, timeout, _summary(req), self._stderr_note()),
                command=self.command, request=_summary(req), stderr=self.stderr_tail(),
            ) from None
        if raw is None:
            code = self._reap()
            stderr = self.stderr_tail(wait=2.0)
            how = "exited with code %s" % code if code is not None else "closed its stdout (killed it)"
            raise WorkerDied(
                "worker `%s` %s before answering %s%s" % (self.command, how, _summary(req), self._stderr_note(stderr)),
                command=self.command, request=_summary(req), returncode=code, stderr=stderr,
            )
        return self._parse_reply(raw, req, rid)

    def _parse_reply(self, raw: bytes, req: Dict[str, Any], rid: int) -> Dict[str, Any]:
        """The reply line to request `rid`, parsed; garbage kills the process."""
        problem: Optional[str]
        try:
            reply = protocol.load(raw)
        except Exception:
            reply, problem = None, "is not JSON"
        else:
            problem = protocol.reply_problem(reply, rid)
        if problem is not None:
            self.kill("it answered garbage")
            shown = raw[:200].decode("utf-8", "replace") + ("..." if len(raw) > 200 else "")
            raise WorkerGarbage(
                "worker `%s` answered %s with a line that %s (killed it): %r%s"
                % (self.command, _summary(req), problem, shown, self._stderr_note()),
                command=self.command, request=_summary(req), stderr=self.stderr_tail(),
            )
        return reply

    def _stderr_note(self, text: Optional[str] = None) -> str:
        text = self.stderr_tail() if text is None else text
        return "\n--- worker stderr (tail) ---\n" + text.rstrip() if text.strip() else ""

    def _remote_error(self, reply: Dict[str, Any], req: Dict[str, Any], grammar_text: str) -> Exception:
        """The exception a worker's error reply stands for: the same typed refimpl error
        where there is one (fields kept, refimpl.serving.protocol.typed_error), else a WorkerError."""
        err = reply.get("error")
        if not isinstance(err, dict):
            err = {"type": "InternalError", "message": "error reply without an error object: %s" % json.dumps(reply)[:200]}
        typed = protocol.typed_error(err, grammar_text)
        if typed is not None:
            return typed
        kind = err.get("type")
        message = str(err.get("message", "(no message)"))
        exc: Exception
        if kind == "Unsupported":
            exc = WorkerUnsupported(
                "worker `%s` does not support %s: %s" % (self.command, _summary(req, 120), message),
                command=self.command, request=_summary(req),
            )
        else:
            tb = err.get("traceback")
            exc = WorkerRemoteError(
                "worker `%s` reported %s for %s: %s%s"
                % (self.command, kind, _summary(req), message, ("\n" + tb.rstrip()) if isinstance(tb, str) else ""),
                error=err, command=self.command, request=_summary(req),
            )
        return exc

    # -- ending ---------------------------------------------------------------------------

    def _reap(self) -> Optional[int]:
        """After EOF on stdout: the exit code (killing a process that lingers)."""
        try:
            self.returncode = self.proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            self.kill("it closed its stdout")
            return None
        self.dead = "exited with code %d" % self.returncode
        self._writes.put(None)  # let the writer thread end
        return self.returncode

    def kill(self, why: str) -> None:
        """Kill the process now; later requests raise WorkerDied naming `why`."""
        if self.dead is None:
            self.dead = "killed because %s" % why
        try:
            self.proc.kill()
            self.returncode = self.proc.wait(timeout=5.0)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self._writes.put(None)

    def close(self, timeout: float = 5.0) -> None:
        """Ask the worker to shut down; kill it if it does not within `timeout`."""
        with self._lock:
            if self.dead is None:
                try:
                    self._roundtrip({"op": "shutdown"}, timeout)
                except WorkerError:
                    pass
            if self.dead is None:
                self.dead = "closed"
            self._writes.put(None)
            try:
                self.returncode = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill("it did not shut down")
            for stream in (self._stdout, self._stderr_pipe):
                try:
                    stream.close()
                except OSError:
                    pass

    def close_session_later(self, session: Any) -> None:
        """Close a session at the next request (safe to call from __del__)."""
        if self.dead is None:
            self._pending_close.append(session)


@atexit.register
def _close_all() -> None:
    for proc in list(WorkerProcess._live):
        if proc.dead is None:
            proc.close(timeout=2.0)
