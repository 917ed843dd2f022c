"""One worker process: started, fed requests, read, timed and ended by the client.

    proc = WorkerProcess.shared(["pypy3", "-m", "refimpl.serving.worker"])
    reply = proc.request({"op": "mask", "session": 1}, timeout=60)

A worker process serves many sessions and is shared by the matchers started with the
same command (`WorkerProcess.shared`); it is shut down at exit. Nothing the worker does
can hang the caller: every request has a deadline, within which the calling thread
writes the request and reads the reply without blocking (poll; a helper thread keeps the
tail of stderr), and a worker that exits, misses a deadline (it is killed) or answers
something that is not a reply raises a `WorkerError` naming the command, the request,
the exit code and the tail of its stderr.
"""
from __future__ import annotations

import atexit
import collections
import io
import json
import os
import select
import shlex
import subprocess
import threading
import time
import weakref
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple, Union, cast

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


#: Linux's fcntl command that sets a pipe's capacity (fcntl.F_SETPIPE_SZ from Python 3.10)
_F_SETPIPE_SZ = 1031
#: the capacity asked for the worker's stdout: a mask of raw flags (one byte per token)
#: fits whole for a vocabulary of up to a million tokens (Linux's default limit for a pipe)
PIPE_SIZE = 1 << 20


def _widen(fd: int) -> None:
    """Ask for a pipe of PIPE_SIZE bytes, where the system can (Linux); else keep it."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", _F_SETPIPE_SZ), PIPE_SIZE)
    except (ImportError, OSError):
        pass


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
        self._unread: "collections.deque[Tuple[int, Dict[str, Any]]]" = collections.deque()  # sent, not read
        self._forgotten: Set[int] = set()  # ids whose replies nobody will ask for
        self._early: Dict[int, Dict[str, Any]] = {}  # replies read before their sender asked
        self._received = bytearray()  # bytes of stdout read but not yet taken as replies
        self._stderr: "collections.deque[bytes]" = collections.deque()
        self._stderr_size = 0
        if not hasattr(select, "poll"):
            raise WorkerUnavailable("cannot start worker `%s`: the worker client needs select.poll on pipes (POSIX)"
                                    % self.command, command=self.command)
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env,
                bufsize=0,
            )
        except OSError as e:
            raise WorkerUnavailable("cannot start worker `%s`: %s" % (self.command, e), command=self.command) from None
        # our ends of the pipes Popen made (never None with PIPE): stdin and stdout are
        # written and read without blocking, by the calling thread, within each deadline
        self._stdin = cast(io.RawIOBase, self.proc.stdin)
        self._stdout = cast(io.RawIOBase, self.proc.stdout)
        self._stderr_pipe = cast(io.RawIOBase, self.proc.stderr)
        os.set_blocking(self._stdin.fileno(), False)
        os.set_blocking(self._stdout.fileno(), False)
        _widen(self._stdout.fileno())
        self._stderr_thread = threading.Thread(target=self._read_stderr, name="maskref-worker-stderr", daemon=True)
        self._stderr_thread.start()
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

    @property
    def requests(self) -> int:
        """The number of requests sent to this process so far (its hello included)."""
        return self._next_id

    # -- the pipes ------------------------------------------------------------------------

    def _read_stderr(self) -> None:
        """The helper thread that keeps the tail of the worker's stderr (for error messages)."""
        stderr = self._stderr_pipe
        try:
            for chunk in iter(lambda: stderr.read(4096), b""):
                if chunk is None:  # not expected on a blocking pipe
                    continue
                self._stderr.append(chunk)
                self._stderr_size += len(chunk)
                while self._stderr_size - len(self._stderr[0]) > STDERR_TAIL and len(self._stderr) > 1:
                    self._stderr_size -= len(self._stderr.popleft())
        except (OSError, ValueError):
            pass

    def stderr_tail(self, wait: float = 0.0) -> str:
        """The last characters the worker wrote to stderr (waiting up to `wait` seconds
        for the stream to end, when the process has exited)."""
        if wait:
            self._stderr_thread.join(wait)
        text = b"".join(self._stderr).decode("utf-8", "replace")
        return text[-STDERR_TAIL:]

    def _wait(self, fd: int, event: int, deadline: float) -> bool:
        """Wait until `fd` is ready for `event` (or hung up) before `deadline`; False if
        the deadline passed first."""
        poller = select.poll()
        poller.register(fd, event)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if poller.poll(left * 1000.0 + 1.0):
                return True

    def _write(self, data: bytes, deadline: float) -> bool:
        """Write all of `data` to the worker's stdin before `deadline` (False if it passed
        first). A worker that has gone away is not an error here: reading finds it."""
        fd = self._stdin.fileno()
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(fd, view):]
                continue
            except BlockingIOError:
                pass
            except (OSError, ValueError):  # a broken pipe (the worker is gone), or closed here
                return True
            if not self._wait(fd, select.POLLOUT, deadline):
                return False
        return True

    def _fill(self, deadline: float) -> Optional[bool]:
        """Read what the worker has written to stdout (waiting for something before
        `deadline`): True if bytes came, False at the end of the stream, None if the
        deadline passed first."""
        fd = self._stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                if not self._wait(fd, select.POLLIN, deadline):
                    return None
                continue
            except (OSError, ValueError):  # (closed here)
                return False
            if not chunk:
                return False
            self._received += chunk
            return True

    def _read_line(self, deadline: float) -> Union[bytes, bool, None]:
        """The next line the worker writes (with its newline): False at the end of the
        stream, None if the deadline passed first."""
        scanned = 0
        while True:
            end = self._received.find(b"\n", scanned)
            if end >= 0:
                line = bytes(self._received[: end + 1])
                del self._received[: end + 1]
                return line
            scanned = len(self._received)
            got = self._fill(deadline)
            if not got:
                return got

    def _read_bytes(self, n: int, deadline: float) -> Union[bytes, bool, None]:
        """The next `n` bytes the worker writes: False at the end of the stream, None if
        the deadline passed first."""
        while len(self._received) < n:
            got = self._fill(deadline)
            if not got:
                return got
        if len(self._received) == n:
            payload, self._received = bytes(self._received), bytearray()
        else:
            payload = bytes(self._received[:n])
            del self._received[:n]
        return payload

    # -- requests -------------------------------------------------------------------------

    def request(self, req: Dict[str, Any], timeout: float, *, grammar_text: str = "") -> Dict[str, Any]:
        """Send one request, wait for its reply: the reply if ok; else raise the error."""
        with self._lock:
            rid = self._send([req], timeout)[0]
            reply = self._receive(rid, timeout)
        if reply.get("ok") is True:
            return reply
        raise self._remote_error(reply, req, grammar_text)

    def send(self, reqs: Sequence[Dict[str, Any]], timeout: float) -> List[int]:
        """Send requests (in one write) and return their ids without waiting for the
        replies: `reply(id)` reads one later (the worker answers in order, so it may
        compute meanwhile), or `forget(id)` drops it when it comes."""
        with self._lock:
            return self._send(reqs, timeout)

    def reply(self, rid: int, req: Dict[str, Any], timeout: float, *, grammar_text: str = "") -> Dict[str, Any]:
        """The reply to the request `req` sent earlier as `rid` (`send`): as `request`'s."""
        with self._lock:
            if self.dead is not None and rid not in self._early:
                raise self._not_running(req, "read the reply to")
            reply = self._receive(rid, timeout)
        if reply.get("ok") is True:
            return reply
        raise self._remote_error(reply, req, grammar_text)

    def forget(self, rid: int) -> None:
        """Nobody will ask for the reply to `rid`: drop it, read or when it comes. (No
        lock: a matcher's __del__ may call it while its thread holds the lock.)"""
        self._forgotten.add(rid)

    def _not_running(self, req: Dict[str, Any], what: str) -> WorkerDied:
        return WorkerDied(
            "worker `%s` is not running (%s); cannot %s %s" % (self.command, self.dead, what, _summary(req)),
            command=self.command, request=_summary(req), returncode=self.returncode, stderr=self.stderr_tail(),
        )

    def _send(self, reqs: Sequence[Dict[str, Any]], timeout: float) -> List[int]:
        """Write the requests, their ids added, in one write within `timeout` (after the
        closes of matchers collected without close(), whose replies are dropped); the ids."""
        if self.dead is not None:
            raise self._not_running(reqs[0], "send")
        closes = [{"op": "close", "session": self._pending_close.pop()} for _ in range(len(self._pending_close))]
        sent = []
        for req in closes + list(reqs):
            self._next_id += 1
            sent.append((self._next_id, dict(req, id=self._next_id)))
        if not self._write("".join(protocol.dump(req) for _, req in sent).encode("utf-8"), time.monotonic() + timeout):
            raise self._timed_out(sent[-1][1], timeout)
        self._unread.extend(sent)
        self._forgotten.update(rid for rid, _ in sent[: len(closes)])
        return [rid for rid, _ in sent[len(closes):]]

    def _receive(self, rid: int, timeout: float) -> Dict[str, Any]:
        """Read replies in order until `rid`'s (keeping the earlier ones for their senders,
        dropping the forgotten); errors of the stream raise."""
        for kept in [k for k in self._early if k in self._forgotten]:  # forgotten once read
            del self._early[kept]
            self._forgotten.discard(kept)
        early = self._early.pop(rid, None)
        if early is not None:
            return early
        deadline = time.monotonic() + timeout
        while self._unread:
            sent, req = self._unread[0]
            raw = self._read_line(deadline)
            if not isinstance(raw, bytes):
                raise self._timed_out(req, timeout) if raw is None else self._died(req)
            self._unread.popleft()
            reply = self._parse_reply(raw, req, sent)
            n = self._binary_length(reply, req, raw)
            if n is not None:  # raw bytes follow the line
                payload = self._read_bytes(n, deadline)
                if not isinstance(payload, bytes):
                    raise self._timed_out(req, timeout) if payload is None else self._died(req)
                reply["binary"] = payload
            if sent == rid:
                return reply
            if sent in self._forgotten:
                self._forgotten.discard(sent)
            else:
                self._early[sent] = reply
        raise ValueError("no request %d is waiting for its reply" % rid)

    def _timed_out(self, req: Dict[str, Any], timeout: float) -> WorkerTimeout:
        self.kill("it timed out")
        return WorkerTimeout(
            "worker `%s` did not answer within %g s (killed it); request: %s%s"
            % (self.command, timeout, _summary(req), self._stderr_note()),
            command=self.command, request=_summary(req), stderr=self.stderr_tail(),
        )

    def _died(self, req: Dict[str, Any]) -> WorkerDied:
        code = self._reap()
        stderr = self.stderr_tail(wait=2.0)
        how = "exited with code %s" % code if code is not None else "closed its stdout (killed it)"
        return WorkerDied(
            "worker `%s` %s before answering %s%s" % (self.command, how, _summary(req), self._stderr_note(stderr)),
            command=self.command, request=_summary(req), returncode=code, stderr=stderr,
        )

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

    def _binary_length(self, reply: Dict[str, Any], req: Dict[str, Any], raw: bytes) -> Optional[int]:
        """The number of raw bytes after the reply line (None: none); a number that is not
        one, or raw bytes the request did not ask for, is garbage."""
        try:
            n = protocol.binary_length(reply)
            if n is not None and (req.get("encoding") not in protocol.RAW_ENCODINGS or reply.get("ok") is not True):
                raise protocol.BadReply("raw bytes the request did not ask for")
        except protocol.BadReply as e:
            self.kill("it answered garbage")
            raise WorkerGarbage(
                "worker `%s` answered %s with %s (killed it): %r%s"
                % (self.command, _summary(req), e, raw[:200].decode("utf-8", "replace"), self._stderr_note()),
                command=self.command, request=_summary(req), stderr=self.stderr_tail(),
            ) from None
        return n

    def _stderr_note(self, text: Optional[str] = None) -> str:
        text = self.stderr_tail() if text is None else text
        return "\n--- worker stderr (tail) ---\n" + text.rstrip() if text.strip() else ""

    def _remote_error(self, reply: Dict[str, Any], req: Dict[str, Any], grammar_text: str) -> Exception:
        """The exception a worker's error reply stands for: the same typed refimpl error
        where there is one (fields kept, refimpl.serving.protocol.typed_error), else a WorkerError."""
        err = reply.get("error")
        if not isinstance(err, dict):
            err = {"type": "InternalError", "message": "error reply without an error object: %s" % protocol.shown(reply)}
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
        return self.returncode

    def kill(self, why: str) -> None:
        """Kill the process now; later requests raise WorkerDied naming `why`. (Its pipes
        are closed by `close`, under the lock: another thread may be reading them.)"""
        if self.dead is None:
            self.dead = "killed because %s" % why
        try:
            self.proc.kill()
            self.returncode = self.proc.wait(timeout=5.0)
        except (OSError, subprocess.TimeoutExpired):
            pass

    def close(self, timeout: float = 5.0) -> None:
        """Ask the worker to shut down; kill it if it does not within `timeout`."""
        with self._lock:
            if self.dead is None:
                try:
                    self._receive(self._send([{"op": "shutdown"}], timeout)[0], timeout)
                except WorkerError:
                    pass
            if self.dead is None:
                self.dead = "closed"
            for stream in (self._stdin, self._stdout):
                try:
                    stream.close()  # the worker sees the end of its stdin
                except OSError:
                    pass
            try:
                self.returncode = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill("it did not shut down")
            try:
                self._stderr_pipe.close()
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
