"""The worker protocol (docs/protocol.md) as outside input, from both sides.

`protocol-server`: the fuzzer's bytes are the request lines a client sends to refimpl's
worker (refimpl/serving/worker.py), read as `serve` reads them. The property: every
request line gets exactly one reply line (and a mask asked for as raw bytes, its bytes
after it), strict JSON (no NaN), echoing the request's id,
and a failed request's reply is an error object of a type the protocol lists whose
message names the problem — never an `InternalError` (the worker's own bug, with a
traceback), never the worker dying.

`protocol-client`: the fuzzer's bytes are everything a fake worker writes to its stdout
(then it exits: a peer that dies mid-reply is a cut last line; or, when the bytes start
with `#hang`, it hangs: the client's deadline ends it) while maskref's client
(accel/worker) starts it, opens a `WorkerMatcher` and calls every method of the Matcher
API once. The property: each call returns a value of its type, or raises a `WorkerError`
naming the worker's command, or the typed refimpl error the worker reported with fields
of the right types.
"""
from __future__ import annotations

import base64
import functools
import io
import json
import shlex
import shutil
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from refimpl import Grammar, Mask, Vocabulary
from refimpl.errors import GrammarError, LimitError, RegexError, SchemaError, VocabularyError
from refimpl.serving.protocol import blank, frame, load
from refimpl.serving.worker import Worker, serve

from ..property import Violation, check
from . import Target, scratch

#: the error types a reply may carry (docs/protocol.md, "Errors"), InternalError aside
ERROR_TYPES = ("RegexError", "GrammarError", "SchemaError", "LimitError", "VocabularyError", "ValueError",
               "Unsupported", "ProtocolError", "MaskrefError")


# -- the server -------------------------------------------------------------------------------


def run_server(data: bytes) -> None:
    out = io.BytesIO()
    worker = Worker()
    check(lambda: serve(io.BytesIO(data), out, worker), typed=())
    requests = [line for line in io.BytesIO(data).readlines() if not blank(line)]
    replies = _reply_lines(out.getvalue())
    if len(replies) > len(requests) or (len(replies) < len(requests) and not worker.shutting_down):
        raise Violation("%d replies to %d request lines" % (len(replies), len(requests)))
    for line, raw in zip(requests, replies):
        _check_reply(line, raw)


def _reply_lines(out: bytes) -> List[bytes]:
    """The reply lines a worker wrote: a line ends at a newline, and the raw bytes of a
    mask asked for so (docs/protocol.md, "mask": the line's `binary`) are skipped."""
    lines, start = [], 0
    while start < len(out):
        end = out.find(b"\n", start)
        end = len(out) if end < 0 else end + 1
        lines.append(out[start:end])
        start = end
        try:
            n = load(lines[-1]).get("binary")
        except Exception:  # checked as a reply by _check_reply
            continue
        if isinstance(n, int) and not isinstance(n, bool) and n > 0:
            start += n
    return lines


def _check_reply(line: bytes, raw: bytes) -> None:
    if not raw.endswith(b"\n") or b"\n" in raw[:-1]:
        raise Violation("a reply that is not one line: %r" % raw[:200])
    try:
        reply = load(raw.decode("ascii"))
    except ValueError as e:
        raise Violation("a reply that is not strict JSON (%s): %r" % (e, raw[:200])) from None
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        raise Violation("a reply without a boolean ok: %r" % raw[:200])
    try:
        request = load(line)
    except Exception:  # not JSON: the reply's id is null
        request = None
    rid = request.get("id") if isinstance(request, dict) else None
    if reply.get("id") != rid:
        raise Violation("reply id %r to a request with id %r" % (reply.get("id"), rid))
    if reply["ok"]:
        return
    err = reply.get("error")
    if not isinstance(err, dict) or err.get("type") not in ERROR_TYPES:
        raise Violation("an error reply of type %r (a worker bug): %s" % (
            err.get("type") if isinstance(err, dict) else err, json.dumps(err)[:2000]))
    if not isinstance(err.get("message"), str) or not err["message"].strip():
        raise Violation("an error reply without a message: %r" % raw[:200])


#: the requests of the server's seeds: one session through every op (docs/protocol.md's examples)
SERVER_SESSION = [
    {"op": "hello", "id": 1, "protocol": 1},
    {"op": "load_vocabulary", "id": 2, "vocabulary": {"tokens_hex": ["30", "31", "3132", "78", "3c2f733e"],
                                                      "eos_token_ids": [4]}},
    {"op": "create", "id": 3, "grammar": {"kind": "regex", "text": "[0-9]+"}, "vocabulary": {"ref": "v1"},
     "options": {"slices": []}},
    {"op": "mask", "id": 4, "session": 1},
    {"op": "consume", "id": 5, "session": 1, "tokens": [2, 3, 0]},
    {"op": "accepting", "id": 7, "session": 1},
    {"op": "consume_bytes", "id": 8, "session": 1, "bytes": "Nw=="},
    {"op": "rollback", "id": 9, "session": 1, "n": 1},
    {"op": "forced_bytes", "id": 10, "session": 1},
    {"op": "forced_tokens", "id": 11, "session": 1},
    {"op": "stats", "id": 12, "session": 1},
    {"op": "validate", "id": 18, "session": 1, "tokens": [0, 3, 1]},
    {"op": "stop_reason", "id": 19, "session": 1},
    {"op": "clone", "id": 20, "session": 1},
    {"op": "reset", "id": 21, "session": 1},
    {"op": "create", "id": 13, "grammar": {"kind": "regex", "text": "a{5}"}, "vocabulary": {"ref": "v1"},
     "options": {"limits": {"repeat_bound": 3}}},
    {"op": "create", "id": 22, "grammar": {"kind": "lark", "text": 'start: "1" "2"?'},
     "vocabulary": {"tokens_hex": ["31", "32"], "vocab_size": 40}},
    {"op": "create", "id": 23, "grammar": {"kind": "gbnf", "text": 'root ::= "x"+', "options": {"root": "root"}},
     "vocabulary": {"ref": "v1"}},
    {"op": "create", "id": 24, "grammar": {"kind": "json_schema", "text": '{"type": "integer"}'},
     "vocabulary": {"ref": "v1"}},
    {"op": "mask", "id": 15, "session": 9},
    {"op": "close", "id": 14, "session": 1},
    {"op": "shutdown", "id": 17},
]


def server_seeds() -> Iterator[bytes]:
    lines = [json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in SERVER_SESSION]
    yield b"".join(lines)
    yield b"".join(lines[:4]) + b"{oops\n" + b"".join(lines[4:6])
    for line in lines[2:]:
        yield line


# -- the client -------------------------------------------------------------------------------

#: the client's session: a vocabulary of five tokens (EOS last) and a regex
CLIENT_TOKENS = [b"0", b"1", b"12", b"x", b"</s>"]
CLIENT_GRAMMAR = "[0-9]+"
#: seconds the client waits for each reply (a reply is there, or the fake worker has exited)
CLIENT_TIMEOUT = 5.0

#: an input that starts so is a worker that hangs after its replies (it never exits)
HANG = b"#hang\n"
#: seconds the client waits for each reply of a worker that hangs
HANG_TIMEOUT = 0.5

#: the Matcher API calls, in order, and the type each returns (None: no value)
CALLS: Tuple[Tuple[str, Callable[[Any], Any], Any], ...] = (
    ("mask", lambda m: m.mask(), Mask),
    ("consume", lambda m: m.consume(2), bool),
    ("try_consume_tokens", lambda m: m.try_consume_tokens([0, 3]), int),
    ("validate_tokens", lambda m: m.validate_tokens([0, 1]), int),
    ("consume_bytes", lambda m: m.consume_bytes(b"7"), bool),
    ("rollback", lambda m: m.rollback(1), type(None)),
    ("is_accepting", lambda m: m.is_accepting(), bool),
    ("stop_reason", lambda m: m.stop_reason, str),
    ("forced_bytes", lambda m: m.forced_bytes(), bytes),
    ("forced_tokens", lambda m: m.forced_tokens(), list),
    ("stats", lambda m: m.stats, dict),
    ("reset", lambda m: m.reset(), type(None)),
    ("clone", lambda m: m.clone().close(), type(None)),
)


def run_client(data: bytes) -> None:
    from accel.worker.errors import WorkerError
    from accel.worker.matcher import start

    hang = data.startswith(HANG)
    path = scratch.write("replies", data[len(HANG):] if hang else data)
    if hang:  # the worker writes its replies, then answers nothing more
        argv = [shutil.which("sh") or "/bin/sh", "-c", 'cat "$1"; exec sleep 60', "sh", path]
    else:
        argv = [shutil.which("cat") or "/bin/cat", path]
    command = " ".join(shlex.quote(a) for a in argv)
    timeout = HANG_TIMEOUT if hang else CLIENT_TIMEOUT
    vocab = Vocabulary.from_bytes(CLIENT_TOKENS, eos_token_id=len(CLIENT_TOKENS) - 1)
    grammar = Grammar.from_regex(CLIENT_GRAMMAR)
    typed = (WorkerError, RegexError, GrammarError, SchemaError, LimitError, VocabularyError, ValueError)

    def judged(what: str, call: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            try:
                return call()
            except typed as e:
                _check_client_error(e, command, what)
                raise
        return run

    opened = check(judged("start", lambda: start(argv, grammar, vocab, backend="cmd", reuse=False,
                                                 startup_timeout=timeout, timeout=timeout, create_timeout=timeout)),
                   typed=typed)
    if opened is None:
        return
    matcher = opened
    try:
        for name, call, kind in CALLS:
            if matcher.process.dead is not None:
                break
            value = check(judged(name, functools.partial(call, matcher)), typed=typed)
            if value is not None and not isinstance(value, kind):
                raise Violation("%s returned a %s" % (name, type(value).__name__))
            if isinstance(value, Mask) and len(value.flags) != len(vocab):
                raise Violation("mask returned %d flags for %d tokens" % (len(value.flags), len(vocab)))
    finally:
        check(judged("close", matcher.close), typed=typed)
        matcher.process.close(timeout=2.0)


def _check_client_error(e: BaseException, command: str, what: str) -> None:
    """A WorkerError names the worker's command; a typed refimpl error carries its fields."""
    from accel.worker.errors import WorkerError

    if isinstance(e, WorkerError):
        if command not in str(e):
            raise Violation("%s: %s does not name the worker: %s" % (what, type(e).__name__, e))
        return
    if not str(e).strip():
        raise Violation("%s: %s without a message" % (what, type(e).__name__))
    fields: Dict[type, List[Tuple[str, Any]]] = {
        RegexError: [("pattern", str), ("offset", int), ("message", str)],
        GrammarError: [("offset", (int, type(None))), ("line", (int, type(None))), ("column", (int, type(None))),
                       ("message", str)],
        SchemaError: [("pointer", str), ("message", str)],
        LimitError: [("limit", str), ("value", int)],
    }
    for cls, wanted in fields.items():
        if isinstance(e, cls):
            for name, kind in wanted:
                value = getattr(e, name, None)
                if not isinstance(value, kind) or isinstance(value, bool):
                    raise Violation("%s: a %s whose %s is %r" % (what, cls.__name__, name, value))


def _client_requests(load_vocabulary: bool) -> List[Dict[str, Any]]:
    """The requests the client sends for `run_client`'s calls, as the worker reads them."""
    tokens_hex = [t.hex() for t in CLIENT_TOKENS]
    vocabulary: Dict[str, Any] = {"tokens_hex": tokens_hex, "eos_token_ids": [len(CLIENT_TOKENS) - 1],
                                  "special_token_ids": [], "name": "custom"}
    out: List[Dict[str, Any]] = [{"op": "hello", "protocol": 1}]
    if load_vocabulary:
        out.append({"op": "load_vocabulary", "vocabulary": vocabulary})
        vocabulary = {"ref": "v1"}
    out.append({"op": "create", "grammar": {"kind": "regex", "text": CLIENT_GRAMMAR}, "vocabulary": vocabulary,
                "options": {"slices": None}})
    s = {"session": 1}
    # a consume right after a mask sends the next mask with it (accel/worker/matcher.py)
    mask = dict(s, op="mask", encoding="flags")
    out += [mask, dict(s, op="consume", tokens=[2]), mask, dict(s, op="consume", tokens=[0, 3]),
            dict(s, op="validate", tokens=[0, 1]), dict(s, op="consume_bytes", bytes=base64.b64encode(b"7").decode()),
            dict(s, op="rollback", n=1), dict(s, op="accepting"), dict(s, op="stop_reason"),
            dict(s, op="forced_bytes"), dict(s, op="forced_tokens"), dict(s, op="stats"), dict(s, op="reset"),
            dict(s, op="clone"), {"op": "close", "session": 2}, dict(s, op="close"), {"op": "shutdown"}]
    return out


def _transcript(requests: List[Dict[str, Any]], hello: Optional[Dict[str, Any]] = None) -> List[bytes]:
    """refimpl's worker's replies to `requests` (ids 1, 2, ...; no timings), as it writes them."""
    worker = Worker()
    lines = []
    for i, req in enumerate(requests, 1):
        reply = worker.handle(dict(req, id=i))
        reply.pop("mask_ns", None)
        reply.get("stats", {}).pop("mask_ns", None)
        if hello is not None and req["op"] == "hello":
            reply.update(hello)
        lines.append(frame(reply))
    return lines


def client_seeds() -> Iterator[bytes]:
    whole = _transcript(_client_requests(True))
    yield b"".join(whole)
    yield b"".join(_transcript(_client_requests(False), {"ops": ["hello", "create", "mask", "consume", "close"]}))
    yield b"".join(whole[:4]) + whole[4][: len(whole[4]) // 2]  # dies in the middle of a mask reply
    yield HANG + b"".join(whole[:5])  # hangs after the mask
    yield b"".join(whole[:3]) + b'{"ok":false,"id":4,"error":{"type":"InternalError","message":"boom"}}\n'
    yield b"".join(whole[:2]) + (b'{"ok":false,"id":3,"error":{"type":"RegexError","message":"bad","detail":"bad",'
                                 b'"pattern":"[0-9]+","offset":1}}\n')


TARGETS = [
    Target("protocol-server", "refimpl.serving.worker.serve (python -m refimpl.serving.worker)", run_server,
           server_seeds),
    Target("protocol-client", "accel.worker (open_matcher(..., backend=\"cmd:...\")) against a fake worker",
           run_client, client_seeds, ("accel", "refimpl")),
]
