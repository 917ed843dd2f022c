"""The client side of the worker protocol (docs/protocol.md): a `WorkerMatcher` with the
Matcher's API, backed by a process speaking JSON lines — refimpl under PyPy, or any engine.

    proc = WorkerProcess.shared(["pypy3", "-m", "refimpl.worker"])
    m = WorkerMatcher(proc, grammar, vocab, backend="pypy")
    m.mask(); m.consume(t); m.rollback(1); m.close()

A worker process serves many sessions and is shared by the matchers started with the
same command (`WorkerProcess.shared`); it is shut down at exit. Nothing the worker does
can hang the caller: every request has a deadline (`timeout`, and `create_timeout` for
`create`), the pipes are read and written by helper threads, and a worker that exits,
misses a deadline (it is killed) or answers something that is not a reply raises a
`WorkerError` naming the command, the request, the exit code and the tail of its stderr.
A typed error the engine reports (a grammar with a syntax error, a limit) is raised as
the same refimpl exception class, with its fields (offset, line, column, ...).
"""
from __future__ import annotations

import atexit
import base64
import binascii
import collections
import dataclasses
import json
import os
import queue
import shlex
import subprocess
import threading
import time
import weakref
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from refimpl.errors import GrammarError, LimitError, MaskrefError, RegexError, SchemaError
from refimpl.limits import DEFAULT_LIMITS, Limits
from refimpl.mask import Mask
from refimpl.tokens.vocab import Vocabulary, VocabularyError
from refimpl.worker import PROTOCOL_VERSION, count_bits, decode_mask



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
#: what every worker implements (docs/protocol.md, "Writing a worker for your engine")
REQUIRED_OPS = ("hello", "create", "mask", "consume", "close")


# -- errors ---------------------------------------------------------------------------------


class WorkerError(MaskrefError):
    """A worker process failed us; the message says what, with the command and request.

    Fields: `command`, `request` (a summary of the request line), `returncode` (if it
    exited), `stderr` (the tail of its stderr).
    """

    def __init__(
        self,
        message: str,
        *,
        command: str = "",
        request: str = "",
        returncode: Optional[int] = None,
        stderr: str = "",
    ) -> None:
        self.command = command
        self.request = request
        self.returncode = returncode
        self.stderr = stderr
        super().__init__(message)


class WorkerDied(WorkerError):
    """The worker exited (or closed its stdout) before answering."""


class WorkerTimeout(WorkerError):
    """The worker did not answer within the deadline; it was killed."""


class WorkerGarbage(WorkerError):
    """The worker wrote something that is not a reply to the request; it was killed."""


class WorkerRemoteError(WorkerError):
    """The worker answered with an error that is not a typed refimpl error: a bug in the
    engine (`InternalError`, with its traceback) or a request it did not understand."""

    def __init__(self, message: str, *, error: Optional[Dict[str, Any]] = None, **kw: Any) -> None:
        self.error = error or {}
        super().__init__(message, **kw)


class WorkerUnsupported(WorkerError):
    """The engine (or the protocol) cannot serve this request: a grammar kind it lacks, a
    Grammar that has no source text, an op it does not implement."""


class WorkerUnavailable(WorkerError):
    """The worker could not be started (executable missing, refimpl not importable...)."""


# -- one worker process ---------------------------------------------------------------------


def _summary(req: Dict[str, Any], limit: int = 240) -> str:
    text = json.dumps(req, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
        if self.hello.get("protocol") != PROTOCOL_VERSION:
            self.kill("wrong protocol version")
            raise WorkerUnsupported(
                "worker `%s` speaks protocol %r; this client speaks %d" % (self.command, self.hello.get("protocol"), PROTOCOL_VERSION),
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
        """The running process for this command (started if there is none, or it died)."""
        key = (tuple(argv), cwd, tuple(sorted(env.items())) if env is not None else None)
        with cls._pool_lock:
            proc = cls._pool.get(key)
            if proc is None or proc.dead is not None:
                proc = cls._pool[key] = cls(argv, cwd=cwd, env=env, startup_timeout=startup_timeout)
            return proc

    # -- the pipes (helper threads) -------------------------------------------------------

    def _read_stdout(self) -> None:
        stdout = self.proc.stdout
        try:
            for line in iter(stdout.readline, b""):
                self._replies.put(line)
        except (OSError, ValueError):
            pass
        self._replies.put(None)  # end of file

    def _read_stderr(self) -> None:
        stderr = self.proc.stderr
        try:
            for chunk in iter(lambda: stderr.read1(4096), b""):
                self._stderr.append(chunk)
                self._stderr_size += len(chunk)
                while self._stderr_size - len(self._stderr[0]) > STDERR_TAIL and len(self._stderr) > 1:
                    self._stderr_size -= len(self._stderr.popleft())
        except (OSError, ValueError):
            pass

    def _write_stdin(self) -> None:
        stdin = self.proc.stdin
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
        self._writes.put(json.dumps(req, separators=(",", ":")).encode("utf-8") + b"\n")
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
        problem = None
        try:
            reply = json.loads(raw)
        except Exception:
            reply = None
            problem = "is not JSON"
        if problem is None:
            if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
                problem = 'is not a reply object with a boolean "ok"'
            elif reply.get("id") != rid:
                problem = "answers request id %r, not %r" % (reply.get("id"), rid)
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
        where there is one (fields kept), else a WorkerError."""
        err = reply.get("error")
        if not isinstance(err, dict):
            err = {"type": "InternalError", "message": "error reply without an error object: %s" % json.dumps(reply)[:200]}
        kind = err.get("type")
        message = str(err.get("message", "(no message)"))
        detail = err.get("detail", message)
        exc: Exception
        if kind == "RegexError":
            exc = _typed(RegexError, message, message=detail, pattern=err.get("pattern", ""), offset=err.get("offset"))
        elif kind == "GrammarError":
            exc = _typed(GrammarError, message, message=detail, text=grammar_text, offset=err.get("offset"),
                         line=err.get("line"), column=err.get("column"))
        elif kind == "SchemaError":
            exc = _typed(SchemaError, message, message=detail, pointer=err.get("pointer", ""))
        elif kind == "LimitError":
            exc = _typed(LimitError, message, limit=err.get("limit"), value=err.get("value"))
        elif kind == "VocabularyError":
            exc = VocabularyError(message)
        elif kind == "ValueError":
            exc = ValueError(message)
        elif kind == "Unsupported":
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
            for stream in (self.proc.stdout, self.proc.stderr):
                try:
                    stream.close()
                except OSError:
                    pass

    def close_session_later(self, session: Any) -> None:
        """Close a session at the next request (safe to call from __del__)."""
        if self.dead is None:
            self._pending_close.append(session)


def _typed(cls: type, full_message: str, **fields: Any) -> Exception:
    """An instance of a typed refimpl error with these fields and exactly this message."""
    exc = cls.__new__(cls)
    Exception.__init__(exc, full_message)
    for name, value in fields.items():
        setattr(exc, name, value)
    return exc


@atexit.register
def _close_all() -> None:
    for proc in list(WorkerProcess._live):
        if proc.dead is None:
            proc.close(timeout=2.0)


# -- what is sent ---------------------------------------------------------------------------

SENDABLE_KINDS = ("regex", "lark", "json_schema")


_SPECS: "weakref.WeakKeyDictionary[Any, Dict[str, Any]]" = weakref.WeakKeyDictionary()


def grammar_spec(grammar: Any) -> Dict[str, Any]:
    """The protocol's description of a Grammar: its frontend and source text."""
    try:
        return _SPECS[grammar]
    except (KeyError, TypeError):
        pass
    spec = _grammar_spec(grammar)
    try:
        _SPECS[grammar] = spec
    except TypeError:  # not weakly referenceable
        pass
    return spec


def _grammar_spec(grammar: Any) -> Dict[str, Any]:
    kind = getattr(grammar, "kind", None)
    if kind not in SENDABLE_KINDS:
        raise WorkerUnsupported(
            "a Grammar of kind %r cannot be sent to a worker: only grammars made by a frontend "
            "from source text (%s) can; build it with Grammar.from_regex / from_lark / from_json_schema"
            % (kind, ", ".join(SENDABLE_KINDS))
        )
    source = grammar.source
    if not isinstance(source, str):  # a JSON schema given as a dict
        source = json.dumps(source)
    spec: Dict[str, Any] = {"kind": kind, "text": source}
    options = getattr(grammar, "options", None)
    if isinstance(options, dict) and options:
        spec["options"] = options
    if kind == "json_schema":
        _check_json_schema_source(grammar, source, options is None)
    return spec


def _check_json_schema_source(grammar: Any, source: str, rebuild: bool) -> None:
    """A JSON-schema Grammar whose `source` is only a display of the schema (cut short),
    or that does not record its options, would be rebuilt differently by the worker: make
    sure its source is whole JSON and (without recorded options) rebuilds the same
    grammar, or refuse to send it."""
    from refimpl.grammar.jsonschema import parse_json_text  # no recursion on deep schemas

    try:
        parse_json_text(source)
    except MaskrefError:
        same = False
    else:
        if not rebuild or getattr(grammar, "ir", None) is None:
            return
        from refimpl.grammar.grammar import Grammar

        try:
            same = _fingerprint(Grammar.from_json_schema(source, limits=grammar.limits)) == _fingerprint(grammar)
        except MaskrefError:
            same = False
    if not same:
        raise WorkerUnsupported(
            "this JSON-schema Grammar cannot be sent to a worker: its source (%d characters%s) "
            "does not rebuild the same grammar (it was built with options, or from a dict "
            "whose source text was cut short); build it with Grammar.from_json_schema(<JSON text>) "
            "and no options" % (len(source), ", ending %r" % source[-12:] if source.endswith("...") else "")
        )


def _fingerprint(grammar: Any) -> Tuple[Any, ...]:
    """What the language of a compiled grammar depends on, as comparable text: the rules,
    the lexemes' regexes (printed), the %ignore lexemes and the lexing flags."""
    from refimpl.regex import to_string

    ir = grammar.ir
    return (
        ir.to_text(),
        [(x.name, to_string(ir.es, x.expr), x.lazy, x.lexeme_class) for x in ir.lexemes],
        sorted((c, to_string(ir.es, e)) for c, e in ir.ignores.items()),
        ir.allow_initial_skip,
        ir.allow_invalid_utf8,
    )


_GPT2: List[Optional[Vocabulary]] = []


def is_embedded_gpt2(vocab: Vocabulary) -> bool:
    """Is `vocab` exactly the embedded GPT-2 vocabulary (so a worker can load it by name)?"""
    if vocab.name != "gpt2" or len(vocab) != 50257:
        return False
    if not _GPT2:
        _GPT2.append(Vocabulary.load("gpt2"))
    ref = _GPT2[0]
    return (
        vocab.tokens == ref.tokens
        and vocab.eos_token_ids == ref.eos_token_ids
        and vocab.special_token_ids == ref.special_token_ids
    )


def vocabulary_spec(vocab: Vocabulary) -> Dict[str, Any]:
    """The protocol's description of a vocabulary, inline (tokens as hex)."""
    return {
        "name": vocab.name,
        "tokens_hex": [t.hex() for t in vocab.tokens],
        "eos_token_ids": list(vocab.eos_token_ids),
        "special_token_ids": sorted(vocab.special_token_ids),
    }


def limits_spec(limits: Limits) -> Dict[str, int]:
    """The limits that differ from the defaults."""
    default = dataclasses.asdict(DEFAULT_LIMITS)
    return {k: v for k, v in dataclasses.asdict(limits).items() if default.get(k) != v}


# -- the matcher ----------------------------------------------------------------------------


class WorkerMatcher:
    """A Matcher whose state lives in a worker process (one session of it).

    The API of refimpl.Matcher: mask, consume, consume_tokens, consume_bytes, rollback,
    is_accepting, forced_bytes, forced_tokens, stats; plus close() (or use it as a
    context manager) to end the session. `last_mask_ns` is the worker's own time for the
    last mask (without transfer), `last_roundtrip_ns` the caller's time for it.
    """

    def __init__(
        self,
        process: WorkerProcess,
        grammar: Any,
        vocab: Vocabulary,
        *,
        backend: str,
        limits: Optional[Limits] = None,
        slices: Optional[Sequence[str]] = None,
        timeout: float = DEFAULT_TIMEOUT,
        create_timeout: float = DEFAULT_CREATE_TIMEOUT,
        owns_process: bool = False,
    ) -> None:
        self.process = process
        self.grammar = grammar
        self.vocab = vocab
        self.backend = backend
        self.timeout = timeout
        self.create_timeout = create_timeout
        self.last_mask_ns: Optional[int] = None
        self.last_roundtrip_ns: Optional[int] = None
        self._owns_process = owns_process
        self.session: Any = None
        spec = grammar_spec(grammar)
        if spec["kind"] not in (process.hello.get("grammar_kinds") or SENDABLE_KINDS):
            raise WorkerUnsupported(
                "worker `%s` does not support grammar kind %r (it supports: %s)"
                % (process.command, spec["kind"], ", ".join(process.hello.get("grammar_kinds") or ())),
                command=process.command,
            )
        options: Dict[str, Any] = {"slices": None if slices is None else list(slices)}
        lim = limits_spec(limits or getattr(grammar, "limits", DEFAULT_LIMITS))
        if lim:
            options["limits"] = lim
        reply = process.request(
            {"op": "create", "grammar": spec, "vocabulary": self._vocabulary(), "options": options},
            create_timeout,
            grammar_text=spec["text"],
        )
        self.session = reply.get("session")
        if reply.get("vocab_size") not in (None, len(vocab)):
            raise WorkerGarbage(
                "worker `%s` built a vocabulary of %r tokens from one of %d"
                % (process.command, reply.get("vocab_size"), len(vocab)),
                command=process.command,
            )

    def _vocabulary(self) -> Dict[str, Any]:
        """The vocabulary as sent to this process: by name, or by reference to one loaded
        earlier (`load_vocabulary`, once per process), or inline every time."""
        proc, vocab = self.process, self.vocab
        spec = proc.vocab_specs.get(vocab)
        if spec is not None:
            return spec
        if vocab.name in (proc.hello.get("vocabularies") or ()) and vocab.name == "gpt2" and is_embedded_gpt2(vocab):
            spec = {"name": "gpt2"}
        else:
            spec = vocabulary_spec(vocab)
        if "load_vocabulary" in proc.ops:
            reply = proc.request({"op": "load_vocabulary", "vocabulary": spec}, self.create_timeout)
            if reply.get("vocab_size") != len(vocab):
                raise WorkerGarbage(
                    "worker `%s` loaded a vocabulary of %r tokens from one of %d"
                    % (proc.command, reply.get("vocab_size"), len(vocab)),
                    command=proc.command,
                )
            spec = {"ref": reply["vocabulary_id"]}
        proc.vocab_specs[vocab] = spec
        return spec

    def _call(self, op: str, **fields: Any) -> Dict[str, Any]:
        if self.session is None:
            raise ValueError("this WorkerMatcher is closed")
        if op not in self.process.ops:
            raise WorkerUnsupported(
                "worker `%s` does not implement %r (it implements: %s)" % (self.process.command, op, ", ".join(sorted(self.process.ops))),
                command=self.process.command,
            )
        return self.process.request(dict(op=op, session=self.session, **fields), self.timeout)

    def _garbage(self, what: str, reply: Dict[str, Any]) -> WorkerGarbage:
        self.process.kill("it answered garbage")
        return WorkerGarbage(
            "worker `%s` sent %s: %s" % (self.process.command, what, json.dumps(reply)[:200]),
            command=self.process.command,
        )

    # -- the Matcher API ------------------------------------------------------------------

    def mask(self) -> Mask:
        """The tokens allowed next (and EOS iff the input may end here)."""
        t0 = time.perf_counter_ns()
        data = self.mask_bytes()
        mask = Mask(decode_mask(data, len(self.vocab)))
        self.last_roundtrip_ns = time.perf_counter_ns() - t0
        return mask

    def mask_bytes(self) -> bytes:
        """The mask as the worker sent it, checked: the bitmask of `Mask.to_bytes()`
        (32-bit little-endian words), without decoding it into a Mask."""
        t0 = time.perf_counter_ns()
        reply = self._call("mask")
        n = len(self.vocab)
        try:
            data = base64.b64decode(reply["mask"], validate=True)
        except (KeyError, TypeError, ValueError, binascii.Error):
            raise self._garbage("a mask that is not base64", reply) from None
        if len(data) != 4 * ((n + 31) // 32) or reply.get("vocab_size", n) != n:
            raise self._garbage("a mask of %d bytes for %d tokens" % (len(data), n), reply)
        if int.from_bytes(data[n >> 3:], "little") >> (n & 7):
            raise self._garbage("a mask with bits set beyond the vocabulary", reply)
        if "count" in reply and reply["count"] != count_bits(data):
            raise self._garbage("a mask whose count (%r) is not its number of bits" % reply["count"], reply)
        self.last_roundtrip_ns = time.perf_counter_ns() - t0
        self.last_mask_ns = reply.get("mask_ns")
        return data

    def consume(self, token_id: int) -> bool:
        """Consume one token; False (and no change of state) if it is not allowed."""
        return self.consume_tokens([token_id]) == 1

    def consume_tokens(self, ids: Iterable[int]) -> int:
        """Consume tokens until one is refused; returns how many were consumed."""
        ids = [int(t) for t in ids]
        reply = self._call("consume", tokens=ids)
        k = reply.get("consumed")
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= len(ids):
            raise self._garbage("a consumed count that is not in 0..%d" % len(ids), reply)
        return k

    def consume_bytes(self, data: bytes) -> bool:
        """Consume raw bytes (one step for `rollback`); False and no change on failure."""
        reply = self._call("consume_bytes", bytes=base64.b64encode(bytes(data)).decode("ascii"))
        if not isinstance(reply.get("consumed"), bool):
            raise self._garbage("a consume_bytes reply without a boolean 'consumed'", reply)
        return reply["consumed"]

    def rollback(self, n_tokens: int) -> None:
        """Undo the last n consumed steps (tokens, EOS, or consume_bytes calls)."""
        self._call("rollback", n=int(n_tokens))

    def is_accepting(self) -> bool:
        reply = self._call("accepting")
        if not isinstance(reply.get("accepting"), bool):
            raise self._garbage("an accepting reply without a boolean 'accepting'", reply)
        return reply["accepting"]

    def forced_bytes(self) -> bytes:
        reply = self._call("forced_bytes")
        try:
            return base64.b64decode(reply["bytes"], validate=True)
        except (KeyError, TypeError, ValueError, binascii.Error):
            raise self._garbage("forced bytes that are not base64", reply) from None

    def forced_tokens(self) -> List[int]:
        reply = self._call("forced_tokens")
        tokens = reply.get("tokens")
        if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
            raise self._garbage("forced tokens that are not a list of integers", reply)
        return tokens

    @property
    def stats(self) -> Dict[str, Any]:
        """The worker's statistics for this session (with `mask_ns`, its last mask time)."""
        reply = self._call("stats")
        if not isinstance(reply.get("stats"), dict):
            raise self._garbage("stats that are not an object", reply)
        return reply["stats"]

    @property
    def engine(self) -> Dict[str, Any]:
        """The worker's hello reply: engine name, version, implementation, ops."""
        return self.process.hello

    # -- ending ---------------------------------------------------------------------------

    def close(self) -> None:
        """End the session (and the process, if this matcher started its own)."""
        session, self.session = self.session, None
        if session is not None and self.process.dead is None:
            try:
                self.process.request({"op": "close", "session": session}, self.timeout)
            except (WorkerError, ValueError):
                pass
        if self._owns_process:
            self.process.close()

    def __enter__(self) -> "WorkerMatcher":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        session = getattr(self, "session", None)
        if session is not None:
            if getattr(self, "_owns_process", False):
                self.process.kill("its matcher was collected without close()")
            else:
                self.process.close_session_later(session)

    def __repr__(self) -> str:
        return "WorkerMatcher(%r, %r, backend=%r, session=%r)" % (self.grammar, self.vocab, self.backend, self.session)


def start(
    argv: Sequence[str],
    grammar: Any,
    vocab: Vocabulary,
    *,
    backend: str,
    cwd: Optional[str] = None,
    env: Optional[Dict[str, str]] = None,
    reuse: bool = True,
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
    **options: Any,
) -> WorkerMatcher:
    """A WorkerMatcher on the shared process for `argv` (or a private one, reuse=False)."""
    if reuse:
        proc = WorkerProcess.shared(argv, cwd=cwd, env=env, startup_timeout=startup_timeout)
    else:
        proc = WorkerProcess(argv, cwd=cwd, env=env, startup_timeout=startup_timeout)
    try:
        return WorkerMatcher(proc, grammar, vocab, backend=backend, owns_process=not reuse, **options)
    except BaseException:
        if not reuse:
            proc.close()
        raise
