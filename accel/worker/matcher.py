"""`WorkerMatcher`: a matcher whose state lives in a worker process (one session of it),
with the API of refimpl's Matcher (refimpl.serving.backends.MatcherLike).

    proc = WorkerProcess.shared(["pypy3", "-m", "refimpl.serving.worker"])
    m = WorkerMatcher(proc, grammar, vocab, backend="pypy")
    m.mask(); m.consume(t); m.rollback(1); m.close()
    c = m.clone()          # a new session of the same process, in the same state

Every reply is checked (refimpl.serving.protocol): a mask of the wrong size, a count that is not
an integer, ... is garbage, and the process is killed.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, TypeVar

from refimpl.limits import DEFAULT_LIMITS, Limits
from refimpl.masks.mask import Mask
from refimpl.serving import protocol
from refimpl.tokens.vocab import Vocabulary

from .errors import WorkerError, WorkerGarbage, WorkerUnsupported
from .process import DEFAULT_CREATE_TIMEOUT, DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT, WorkerProcess
from .specs import SENDABLE_KINDS, grammar_spec, is_embedded_gpt2, limits_spec, vocabulary_spec

T = TypeVar("T")

#: the requests that may change a session's state (a mask sent ahead is then dropped)
_CHANGES_STATE = frozenset({"consume", "consume_bytes", "rollback", "reset", "close"})


def _allows(mask: Tuple[str, bytes], token: int, n_tokens: int) -> bool:
    """Does a mask as `WorkerMatcher._last_mask` keeps it (raw flags, or the bitmask)
    allow the token?"""
    encoding, data = mask
    if not 0 <= token < n_tokens:
        return False
    return data[token] == 1 if encoding == "flags" else bool(data[token >> 3] >> (token & 7) & 1)


class WorkerMatcher:
    """A Matcher whose state lives in a worker process (one session of it).

    The API of refimpl.Matcher (refimpl.MatcherLike, docs/matcher.md): mask, consume,
    consume_tokens, try_consume_tokens, validate_tokens, consume_bytes, rollback, reset,
    clone (and copy.copy, copy.deepcopy), is_accepting, is_stopped, stop_reason,
    forced_bytes, forced_tokens, stats; plus close() (or use it as a context manager) to
    end the session. `last_mask_ns` is the worker's own time for the last mask (without
    transfer), `last_roundtrip_ns` the caller's time for it.

    A matcher started with its own process (reuse=False) shares it with its clones: the
    process ends when the last of them is closed.

    Round trips are saved where the answer cannot change (docs/protocol.md, "What the
    client guarantees"): close() does not wait for its reply; a consume right after a
    mask sends the next mask request with it; and with `trust_masks` (backend "pypy"'s
    default) a consume of a token that mask allowed returns without waiting, its reply
    checked at the next call.
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
        trust_masks: Optional[bool] = None,
    ) -> None:
        self.process = process
        self.grammar = grammar
        self.vocab = vocab
        self.backend = backend
        self.timeout = timeout
        self.create_timeout = create_timeout
        self.last_mask_ns: Optional[int] = None
        self.last_roundtrip_ns: Optional[int] = None
        #: the number of open matchers (this one and its clones) that own the process, in
        #: a list all of them share; None when the process is shared by its command
        self._owners: Optional[List[int]] = [1] if owns_process else None
        self.session: Any = None
        #: does a consume of a token the last mask allowed return True without waiting for
        #: the reply? (default: for backend "pypy", refimpl itself; the reply is checked
        #: at the next call)
        self.trust_masks = backend == "pypy" if trust_masks is None else trust_masks
        #: the id of a mask request sent with the last consume (`try_consume_tokens`), or None
        self._next_mask: Optional[int] = None
        #: the mask of the current state when the last call was mask() or mask_bytes(), as
        #: (encoding, data): then a consume sends the next mask request with it
        self._last_mask: Optional[Tuple[str, bytes]] = None
        #: (id, request) of a consume whose reply is not read yet (trust_masks)
        self._unchecked: Optional[Tuple[int, Dict[str, Any]]] = None
        spec = grammar_spec(grammar)
        if spec["kind"] not in (process.hello.get("grammar_kinds") or SENDABLE_KINDS):
            raise WorkerUnsupported(
                "worker `%s` does not support grammar kind %r (it supports: %s)"
                % (process.command, spec["kind"], ", ".join(process.hello.get("grammar_kinds") or ())),
                command=process.command,
            )
        options: Dict[str, Any] = {"slices": None if slices is None else list(slices)}
        chosen: Limits = limits if limits is not None else getattr(grammar, "limits", DEFAULT_LIMITS)
        lim = limits_spec(chosen)
        if lim:
            options["limits"] = lim
        reply = process.request(
            {"op": "create", "grammar": spec, "vocabulary": self._vocabulary(), "options": options},
            create_timeout,
            grammar_text=spec["text"],
        )
        self.session = self._checked(protocol.session_from_reply, reply)
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
            spec = {"ref": self._checked(protocol.string_from_reply, reply, "vocabulary_id", "load_vocabulary")}
        proc.vocab_specs[vocab] = spec
        return spec

    def _call(self, op: str, **fields: Any) -> Dict[str, Any]:
        """One request of this session, and its reply."""
        return self.process.request(self._request(op, **fields), self.timeout)

    def _request(self, op: str, **fields: Any) -> Dict[str, Any]:
        """A request of this session (checked: open, and the op implemented), after the
        reply of a consume not waited for is checked. A request that may change the state
        drops the mask sent ahead."""
        if self.session is None:
            raise ValueError("this WorkerMatcher is closed")
        if op not in self.process.ops:
            raise WorkerUnsupported(
                "worker `%s` does not implement %r (it implements: %s)"
                % (self.process.command, op, ", ".join(sorted(self.process.ops))),
                command=self.process.command,
            )
        self._settle()
        self._last_mask = None
        if op in _CHANGES_STATE:
            self._drop_next_mask()
        return dict(op=op, session=self.session, **fields)

    def _settle(self) -> None:
        """Read the reply of the consume that returned without it (trust_masks): an error
        reply raises now, and so does a refusal of the token its mask allowed (the
        worker's masks and consumes disagree: garbage)."""
        pending, self._unchecked = self._unchecked, None
        if pending is None:
            return
        rid, req = pending
        reply = self.process.reply(rid, req, self.timeout)
        if self._checked(protocol.count_from_reply, reply, "consumed", 1) != 1:
            self.process.kill("it refused a token its mask allowed")
            raise WorkerGarbage(
                "worker `%s` refused token %d, which its mask allowed (killed it): %s"
                % (self.process.command, req["tokens"][0], protocol.shown(reply)),
                command=self.process.command,
            )

    def _encoding(self, encoding: str) -> Dict[str, str]:
        """The field asking for a mask in `encoding`, if the worker's hello lists it (raw
        bytes, no base64: docs/protocol.md, "mask"); else none (base64)."""
        return {"encoding": encoding} if encoding in (self.process.hello.get("mask_encodings") or ()) else {}

    def _drop_next_mask(self) -> None:
        rid, self._next_mask = self._next_mask, None
        if rid is not None:
            self.process.forget(rid)

    def _drop_replies(self) -> None:
        """The session ends: the replies it has not read are dropped unread."""
        self._drop_next_mask()
        pending, self._unchecked = self._unchecked, None
        if pending is not None:
            self.process.forget(pending[0])

    def _checked(self, read: Callable[..., T], reply: Dict[str, Any], *args: Any) -> T:
        """`read(reply, *args)` (a reply reader of refimpl.serving.protocol); a reply it refuses is
        garbage: the process is killed and WorkerGarbage raised."""
        try:
            return read(reply, *args)
        except protocol.BadReply as e:
            self.process.kill("it answered garbage")
            raise WorkerGarbage(
                "worker `%s` sent %s: %s" % (self.process.command, e, protocol.shown(reply)),
                command=self.process.command,
            ) from None

    # -- the Matcher API ------------------------------------------------------------------

    def mask(self) -> Mask:
        """The tokens allowed next (and EOS iff the input may end here)."""
        t0 = time.perf_counter_ns()
        reply = self._mask_reply("flags")
        flags = self._checked(protocol.flags_from_reply, reply, len(self.vocab))
        self._last_mask = ("flags", bytes(flags))
        self.last_roundtrip_ns = time.perf_counter_ns() - t0
        self.last_mask_ns = reply.get("mask_ns")
        return Mask(flags)

    def mask_bytes(self) -> bytes:
        """The mask as the worker sent it, checked: the bitmask of `Mask.to_bytes()`
        (32-bit little-endian words), without decoding it into a Mask."""
        t0 = time.perf_counter_ns()
        reply = self._mask_reply("bits")
        data = self._checked(protocol.mask_from_reply, reply, len(self.vocab))
        self._last_mask = ("bits", data)
        self.last_roundtrip_ns = time.perf_counter_ns() - t0
        self.last_mask_ns = reply.get("mask_ns")
        return data

    def _mask_reply(self, encoding: str) -> Dict[str, Any]:
        """The reply to a mask request: the one sent ahead with the last consume, if it
        was, else a new one (in `encoding`, if the worker sends it)."""
        rid, self._next_mask = self._next_mask, None
        if rid is None:
            return self._call("mask", **self._encoding(encoding))
        self._settle()
        return self.process.reply(rid, {"op": "mask", "session": self.session}, self.timeout)

    def consume(self, token_id: int) -> bool:
        """Consume one token; False (and no change of state) if it is not allowed."""
        return self.try_consume_tokens([token_id]) == 1

    def consume_tokens(self, ids: Iterable[int]) -> bool:
        """Consume all the tokens, or none: False (and no change) if one is refused.
        (One request; a second, rollback, when a token was refused after others.)"""
        ids = list(ids)
        n = self.try_consume_tokens(ids)
        if n < len(ids):
            if n:
                self.rollback(n)
            return False
        return True

    def try_consume_tokens(self, ids: Iterable[int]) -> int:
        """Consume tokens until one is refused; returns how many were consumed."""
        ids = [int(t) for t in ids]
        known = self._last_mask  # the mask of this state, if the last call asked for it
        req = self._request("consume", tokens=ids)
        if known is None or "mask" not in self.process.ops:
            reply = self.process.request(req, self.timeout)
            return self._checked(protocol.count_from_reply, reply, "consumed", len(ids))
        # mask, consume, mask, ...: the next mask is asked for now, computed meanwhile
        rid, self._next_mask = self.process.send([req, self._request("mask", **self._encoding("flags"))], self.timeout)
        if self.trust_masks and len(ids) == 1 and _allows(known, ids[0], len(self.vocab)):
            self._unchecked = (rid, req)  # its reply is read (and checked) at the next call
            return 1
        return self._checked(protocol.count_from_reply, self.process.reply(rid, req, self.timeout), "consumed", len(ids))

    def validate_tokens(self, ids: Iterable[int]) -> int:
        """How many of the tokens, from the first, would be consumed; the state is left
        unchanged."""
        ids = [int(t) for t in ids]
        return self._checked(protocol.count_from_reply, self._call("validate", tokens=ids), "valid", len(ids))

    def consume_bytes(self, data: bytes) -> bool:
        """Consume raw bytes (one step for `rollback`); False and no change on failure."""
        reply = self._call("consume_bytes", bytes=protocol.b64encode(bytes(data)))
        return self._checked(protocol.bool_from_reply, reply, "consumed", "consume_bytes")

    def rollback(self, n_tokens: int) -> None:
        """Undo the last n consumed steps (tokens, EOS, or consume_bytes calls)."""
        self._call("rollback", n=int(n_tokens))

    def reset(self) -> None:
        """Back to the start, as freshly built."""
        self._call("reset")

    def clone(self) -> "WorkerMatcher":
        """An independent matcher in the same state: a new session of the same process."""
        session = self._checked(protocol.session_from_reply, self._call("clone"))
        new = object.__new__(WorkerMatcher)
        new.__dict__.update(self.__dict__)
        new.session = session
        new.last_mask_ns = new.last_roundtrip_ns = new._next_mask = new._last_mask = None
        if self._owners is not None:
            self._owners[0] += 1
        return new

    def __copy__(self) -> "WorkerMatcher":
        return self.clone()

    def __deepcopy__(self, memo: Dict[int, Any]) -> "WorkerMatcher":
        return self.clone()

    def is_accepting(self) -> bool:
        """May the output end here (is EOS allowed)?"""
        return self._checked(protocol.bool_from_reply, self._call("accepting"), "accepting", "accepting")

    def is_stopped(self) -> bool:
        """Will no token be consumed here (EOS was consumed, or no token is allowed)?"""
        return self.stop_reason != ""

    @property
    def stop_reason(self) -> str:
        """Why the matcher is stopped: "eos", "no extension", or "" while it is not."""
        return self._checked(protocol.string_from_reply, self._call("stop_reason"), "stop_reason", "stop_reason")

    def forced_bytes(self) -> bytes:
        """The bytes every continuation must start with (empty where EOS is allowed)."""
        return self._checked(protocol.bytes_from_reply, self._call("forced_bytes"), "bytes", "forced bytes")

    def forced_tokens(self) -> List[int]:
        """The tokens a tokenizer-agnostic fast-forward would emit now."""
        return self._checked(protocol.tokens_from_reply, self._call("forced_tokens"))

    @property
    def stats(self) -> Dict[str, Any]:
        """The worker's statistics for this session (with `mask_ns`, its last mask time)."""
        return self._checked(protocol.stats_from_reply, self._call("stats"))

    @property
    def engine(self) -> Dict[str, Any]:
        """The worker's hello reply: engine name, version, implementation, ops."""
        return self.process.hello

    # -- ending ---------------------------------------------------------------------------

    def close(self) -> None:
        """End the session (and the process, if this matcher started its own and its
        clones are closed)."""
        session, self.session = self.session, None
        if session is None:
            return
        self._drop_replies()
        if self.process.dead is None:
            try:  # its reply is read (and dropped) before the next one's: no wait here
                self.process.forget(self.process.send([{"op": "close", "session": session}], self.timeout)[0])
            except (WorkerError, ValueError):
                pass
        if self._last_owner():
            self.process.close()

    def _last_owner(self) -> bool:
        """This matcher's session ends: was it the last one owning its process?"""
        owners = self._owners
        if owners is None:
            return False
        owners[0] -= 1
        return owners[0] == 0

    def __enter__(self) -> "WorkerMatcher":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        session = getattr(self, "session", None)
        if session is not None:
            self._drop_replies()
            if getattr(self, "_owners", None) is not None and self._last_owner():
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
