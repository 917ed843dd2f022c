"""The worker protocol: refimpl as a process speaking JSON lines on stdin/stdout.

    python -m refimpl.serving.worker          # CPython
    pypy3 -m refimpl.serving.worker           # the same engine under PyPy (accel.pypy runs this)
    python -m refimpl.serving.worker --backend index --mask-cache   # the Matcher's other paths

One request per line in, one reply per line out, in order (docs/protocol.md is the full
specification, written for anyone implementing the protocol in another language so that
the conformance suite can check their engine; refimpl/serving/protocol.py holds what this server
and maskref's client share). A session is one Matcher; sessions are
independent, and a vocabulary or grammar used by several sessions is loaded and compiled
once. Nothing a client sends can stop the loop except `shutdown` or the end of stdin:
malformed JSON, unknown ops, bad grammars and engine bugs are all error replies.

>>> w = Worker()
>>> w.handle_line('{"op": "create", "id": 1, "grammar": {"kind": "regex", "text": "ab?"},'
...               ' "vocabulary": {"tokens_hex": ["61", "62", "6162", ""], "eos_token_ids": [3]}}')
'{"ok":true,"id":1,"session":1,"vocab_size":4,"eos_token_ids":[3]}\\n'
>>> import base64
>>> from refimpl.masks.mask import decode_mask
>>> reply = w.handle({"op": "mask", "session": 1})
>>> reply["mask"], reply["count"], decode_mask(base64.b64decode(reply["mask"]), 4)
('BQAAAA==', 2, bytearray(b'\\x01\\x00\\x01\\x00'))
>>> w.handle({"op": "consume", "session": 1, "tokens": [2, 1]})
{'ok': True, 'consumed': 1}
>>> w.handle({"op": "mask", "session": 9})["error"]["message"]
'unknown session 9'
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import platform
import sys
import time
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from ..frontends.grammar import Grammar
from ..limits import Limits
from ..masks.index import NotRegular
from ..masks.matcher import Matcher
from ..tokens.vocab import EMBEDDED, Vocabulary, VocabularyError
from .protocol import (
    MASK_ENCODINGS,
    PROTOCOL_VERSION,
    ProtocolError,
    Unsupported,
    b64_field,
    b64encode,
    blank,
    error_reply,
    field,
    frame,
    int_list,
    load,
    mask_fields,
)

ENGINE = "maskref"
#: Grammars compiled and kept for reuse by later `create` requests (least recently used out).
GRAMMAR_CACHE_SIZE = 32

__all__ = ["Worker", "main", "serve"]


# -- the worker -----------------------------------------------------------------------------


class Worker:
    """The protocol's state: sessions (Matchers), vocabularies and compiled grammars.

    `handle(request) -> reply` serves one parsed request; `handle_line(line)` one line of
    the wire format (None for a blank line). Neither raises on any input.
    """

    def __init__(self, backend: str = "python", mask_cache: bool = False) -> None:
        #: the sessions' Matcher options: backend "index" (regular grammars only; another is
        #: unsupported) and the mask cache — so that a client reaches those paths too
        self.backend, self.mask_cache = backend, mask_cache
        self.sessions: Dict[int, Matcher] = {}
        self.vocabularies: Dict[str, Vocabulary] = {}  # "v1", ... -> vocabulary
        self._vocab_by_key: Dict[str, str] = {}  # canonical spec -> "v1"
        self._grammars: "OrderedDict[str, Grammar]" = OrderedDict()
        self._last_session = 0
        self._last_mask_ns: Dict[int, int] = {}
        self.shutting_down = False
        self._ops: Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]] = {
            "hello": self.op_hello,
            "load_vocabulary": self.op_load_vocabulary,
            "create": self.op_create,
            "mask": self.op_mask,
            "consume": self.op_consume,
            "consume_bytes": self.op_consume_bytes,
            "validate": self.op_validate,
            "rollback": self.op_rollback,
            "reset": self.op_reset,
            "clone": self.op_clone,
            "accepting": self.op_accepting,
            "stop_reason": self.op_stop_reason,
            "forced_bytes": self.op_forced_bytes,
            "forced_tokens": self.op_forced_tokens,
            "stats": self.op_stats,
            "close": self.op_close,
            "shutdown": self.op_shutdown,
        }

    # -- the wire -------------------------------------------------------------------------

    def handle_line(self, line: Union[str, bytes]) -> Optional[str]:
        """One request line -> one reply line (with its newline); None for a blank line.
        (A mask asked for in a raw encoding has its bytes after the line, here as Latin-1
        characters: `respond` gives the bytes.)"""
        answer = self.respond(line)
        return None if answer is None else answer.decode("latin-1")

    def respond(self, line: Union[str, bytes]) -> Optional[bytes]:
        """One request line -> what the worker writes back (`frame`: the reply line, and
        the raw bytes of a mask asked for so); None for a blank line."""
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as e:
                return frame({"ok": False, "id": None, "error": error_reply(ProtocolError("request is not UTF-8: %s" % e))})
        if blank(line):
            return None
        try:
            req = load(line)
        except Exception as e:  # ValueError, or RecursionError on absurd nesting
            return frame({"ok": False, "id": None, "error": error_reply(ProtocolError("malformed JSON: %s" % e))})
        reply = self.handle(req)
        try:
            return frame(reply)
        except Exception as e:  # an engine value JSON cannot carry: the engine's bug
            return frame({"ok": False, "id": reply.get("id"), "error": error_reply(e)})

    def handle(self, req: Any) -> Dict[str, Any]:
        """One parsed request -> its reply (`{"ok": true, ...}` or `{"ok": false, "error": ...}`)."""
        rid = req.get("id") if isinstance(req, dict) else None
        try:
            if not isinstance(req, dict):
                raise ProtocolError("a request must be a JSON object")
            op = field(req, "op", str)
            handler = self._ops.get(op)
            if handler is None:
                raise ProtocolError("unknown op %r (this worker knows: %s)" % (op, ", ".join(self._ops)))
            body = handler(req)
        except Exception as e:
            reply: Dict[str, Any] = {"ok": False}
            if rid is not None:
                reply["id"] = rid
            reply["error"] = error_reply(e)
            return reply
        reply = {"ok": True}
        if rid is not None:
            reply["id"] = rid
        reply.update(body)
        return reply

    # -- ops ------------------------------------------------------------------------------

    def op_hello(self, req: Dict[str, Any]) -> Dict[str, Any]:
        wanted = field(req, "protocol", int, PROTOCOL_VERSION)
        if wanted != PROTOCOL_VERSION:
            raise Unsupported("protocol version %d is not supported (this worker speaks %d)" % (wanted, PROTOCOL_VERSION))
        kinds = ["regex", "lark", "json_schema", "llguidance", "gbnf", "ebnf"]
        return {
            "protocol": PROTOCOL_VERSION,
            "engine": ENGINE,
            "engine_version": _engine_version(),
            "implementation": "%s %s" % (platform.python_implementation(), platform.python_version()),
            "ops": list(self._ops),
            "grammar_kinds": kinds,
            "vocabularies": sorted(EMBEDDED),
            "mask_encodings": list(MASK_ENCODINGS),
        }

    def op_load_vocabulary(self, req: Dict[str, Any]) -> Dict[str, Any]:
        ref = self._vocabulary(field(req, "vocabulary", dict))
        vocab = self.vocabularies[ref]
        return {"vocabulary_id": ref, "vocab_size": len(vocab), "eos_token_ids": list(vocab.eos_token_ids)}

    def op_create(self, req: Dict[str, Any]) -> Dict[str, Any]:
        vocab = self.vocabularies[self._vocabulary(field(req, "vocabulary", dict))]
        options = dict(field(req, "options", dict, {}))
        slices = options.pop("slices", None)
        if slices is not None and (not isinstance(slices, list) or not all(isinstance(s, str) for s in slices)):
            raise ProtocolError("option 'slices' must be null or a list of regex strings")
        limits = _limits(options.pop("limits", None))
        if options:
            raise Unsupported("unknown session option(s): %s" % ", ".join(sorted(options)))
        grammar = self._grammar(field(req, "grammar", dict), limits)
        try:
            matcher = Matcher(grammar, vocab, limits=limits, slices=slices, backend=self.backend,
                              mask_cache=self.mask_cache)
        except NotRegular as e:
            raise Unsupported("no token index (this worker runs backend 'index'): %s" % e) from None
        self._last_session += 1
        self.sessions[self._last_session] = matcher
        return {"session": self._last_session, "vocab_size": len(vocab), "eos_token_ids": list(vocab.eos_token_ids)}

    def op_mask(self, req: Dict[str, Any]) -> Dict[str, Any]:
        sid, m = self._session(req)
        encoding = field(req, "encoding", str, "base64")
        if encoding not in MASK_ENCODINGS:
            raise Unsupported("unknown mask encoding %r (this worker sends: %s)" % (encoding, ", ".join(MASK_ENCODINGS)))
        t0 = time.perf_counter_ns()
        mask = m.mask()
        elapsed = time.perf_counter_ns() - t0
        self._last_mask_ns[sid] = elapsed
        return dict(mask_fields(mask.flags, encoding), mask_ns=elapsed)

    def op_consume(self, req: Dict[str, Any]) -> Dict[str, Any]:
        _, m = self._session(req)
        return {"consumed": m.try_consume_tokens(int_list(req, "tokens"))}

    def op_consume_bytes(self, req: Dict[str, Any]) -> Dict[str, Any]:
        _, m = self._session(req)
        return {"consumed": m.consume_bytes(b64_field(req, "bytes"))}

    def op_validate(self, req: Dict[str, Any]) -> Dict[str, Any]:
        _, m = self._session(req)
        return {"valid": m.validate_tokens(int_list(req, "tokens"))}

    def op_rollback(self, req: Dict[str, Any]) -> Dict[str, Any]:
        _, m = self._session(req)
        m.rollback(field(req, "n", int))
        return {}

    def op_reset(self, req: Dict[str, Any]) -> Dict[str, Any]:
        _, m = self._session(req)
        m.reset()
        return {}

    def op_clone(self, req: Dict[str, Any]) -> Dict[str, Any]:
        _, m = self._session(req)
        self._last_session += 1
        self.sessions[self._last_session] = m.clone()
        return {"session": self._last_session}

    def op_accepting(self, req: Dict[str, Any]) -> Dict[str, Any]:
        _, m = self._session(req)
        return {"accepting": m.is_accepting()}

    def op_stop_reason(self, req: Dict[str, Any]) -> Dict[str, Any]:
        _, m = self._session(req)
        return {"stop_reason": m.stop_reason}

    def op_forced_bytes(self, req: Dict[str, Any]) -> Dict[str, Any]:
        _, m = self._session(req)
        return {"bytes": b64encode(m.forced_bytes())}

    def op_forced_tokens(self, req: Dict[str, Any]) -> Dict[str, Any]:
        _, m = self._session(req)
        return {"tokens": m.forced_tokens()}

    def op_stats(self, req: Dict[str, Any]) -> Dict[str, Any]:
        sid, m = self._session(req)
        stats = dict(m.stats)
        if sid in self._last_mask_ns:
            stats["mask_ns"] = self._last_mask_ns[sid]
        return {"stats": stats}

    def op_close(self, req: Dict[str, Any]) -> Dict[str, Any]:
        sid, _ = self._session(req)
        del self.sessions[sid]
        self._last_mask_ns.pop(sid, None)
        return {}

    def op_shutdown(self, req: Dict[str, Any]) -> Dict[str, Any]:
        self.shutting_down = True
        return {}

    # -- helpers --------------------------------------------------------------------------

    def _session(self, req: Dict[str, Any]) -> Tuple[int, Matcher]:
        sid = field(req, "session", int)
        m = self.sessions.get(sid)
        if m is None:
            raise ProtocolError("unknown session %d" % sid)
        return sid, m

    def _vocabulary(self, spec: Dict[str, Any]) -> str:
        """The id ("v1", ...) of the vocabulary a spec names, loading it the first time."""
        if "ref" in spec:
            ref = field(spec, "ref", str)
            if ref not in self.vocabularies:
                raise ProtocolError("unknown vocabulary_id %r" % ref)
            return ref
        if "tokens_hex" in spec:  # inline (a "name" beside the tokens is only a label)
            key = "sha256:" + hashlib.sha256(json.dumps(spec, sort_keys=True).encode("utf-8")).hexdigest()
        elif "name" in spec:
            name = field(spec, "name", str)
            if name not in EMBEDDED:
                raise VocabularyError("unknown vocabulary name %r (this worker has: %s)" % (name, ", ".join(sorted(EMBEDDED))))
            key = "name:" + name
        else:
            raise ProtocolError("a vocabulary is {\"name\": ...}, {\"tokens_hex\": [...], ...} or {\"ref\": ...}")
        ref = self._vocab_by_key.get(key)
        if ref is None:
            vocab = _inline_vocabulary(spec) if "tokens_hex" in spec else Vocabulary.load(spec["name"])
            ref = "v%d" % (len(self.vocabularies) + 1)
            self.vocabularies[ref] = vocab
            self._vocab_by_key[key] = ref
        return ref

    def _grammar(self, spec: Dict[str, Any], limits: Optional[Limits]) -> Grammar:
        kind = field(spec, "kind", str)
        text = field(spec, "text", str)
        options = field(spec, "options", dict, {})
        key = json.dumps([kind, text, options, dataclasses.asdict(limits) if limits else None], sort_keys=True)
        grammar = self._grammars.get(key)
        if grammar is not None:
            self._grammars.move_to_end(key)
            return grammar
        kw: Dict[str, Any] = {} if limits is None else {"limits": limits}
        if kind in ("regex", "lark", "llguidance"):
            if options:
                raise Unsupported("grammar kind %r takes no options (got %s)" % (kind, ", ".join(sorted(options))))
            build = {"regex": Grammar.from_regex, "lark": Grammar.from_lark, "llguidance": Grammar.from_llguidance}
            grammar = build[kind](text, **kw)
        elif kind == "json_schema":
            grammar = Grammar.from_json_schema(text, **dict(options, **kw))
        elif kind in ("gbnf", "ebnf"):
            allowed = {"root"} if kind == "gbnf" else {"root", "dialect"}
            unknown = sorted(set(options) - allowed)
            if unknown:
                raise Unsupported("grammar kind %r takes only the options %s (got %s)"
                                  % (kind, ", ".join(sorted(allowed)), ", ".join(unknown)))
            root = field(options, "root", str, None)
            grammar = (Grammar.from_gbnf(text, root=root or "root", **kw) if kind == "gbnf" else
                       Grammar.from_ebnf(text, dialect=field(options, "dialect", str, "xgrammar"), root=root, **kw))
        else:
            raise Unsupported("unknown grammar kind %r (this worker knows: regex, lark, json_schema, llguidance, gbnf, ebnf)"
                              % kind)
        self._grammars[key] = grammar
        if len(self._grammars) > GRAMMAR_CACHE_SIZE:
            self._grammars.popitem(last=False)
        return grammar


def _inline_vocabulary(spec: Dict[str, Any]) -> Vocabulary:
    hexes = field(spec, "tokens_hex", list)
    try:
        tokens = [bytes.fromhex(h) for h in hexes]
    except (TypeError, ValueError):
        raise VocabularyError("tokens_hex must be a list of hex strings") from None
    eos = int_list(spec, "eos_token_ids", [])
    special = int_list(spec, "special_token_ids", [])
    for t in special:
        if not 0 <= t < len(tokens):
            raise VocabularyError("special token id %d is not in the vocabulary" % t)
    vocab_size = field(spec, "vocab_size", int, None)  # padded to the logits: ids past the tokens
    return Vocabulary(tokens, eos, special, field(spec, "name", str, "inline"), vocab_size)


def _limits(spec: Any) -> Optional[Limits]:
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise ProtocolError("option 'limits' must be an object")
    known = {f.name for f in dataclasses.fields(Limits)}
    for name, value in spec.items():
        if name not in known:
            raise Unsupported("unknown limit %r (known: %s)" % (name, ", ".join(sorted(known))))
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ProtocolError("limit %r must be a non-negative integer" % name)
    return Limits(**spec)


def _engine_version() -> str:
    try:
        from importlib.metadata import version

        return version("maskref")
    except Exception:
        return "unknown"


# -- the loop -------------------------------------------------------------------------------


def serve(stdin: Any, stdout: Any, worker: Optional[Worker] = None) -> int:
    """Answer requests from the binary stream `stdin` on `stdout` until shutdown or EOF."""
    worker = worker or Worker()
    while not worker.shutting_down:
        line = stdin.readline()
        if not line:
            break
        reply = worker.respond(line)
        if reply is None:
            continue
        try:
            stdout.write(reply)
            stdout.flush()
        except (BrokenPipeError, ValueError):  # the client went away
            break
    return 0


USAGE = """usage: python -m refimpl.serving.worker [--backend python|index] [--mask-cache]
Speaks the maskref worker protocol (JSON lines on stdin/stdout; docs/protocol.md).
  --backend index   answer masks from a token index (regular grammars; others are unsupported)
  --mask-cache      keep masks by (lexer state, compacted Earley sets) across a grammar's sessions
"""


def main(argv: Optional[List[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    backend, mask_cache = "python", False
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            sys.stderr.write(USAGE)
            return 0
        if a == "--mask-cache":
            mask_cache = True
        elif a == "--backend" and args and args[0] in ("python", "index"):
            backend = args.pop(0)
        else:
            sys.stderr.write("error: unknown worker argument %r (it takes only --backend python|index and "
                             "--mask-cache, and speaks the maskref worker protocol on stdin/stdout: "
                             "docs/protocol.md)\n" % a)
            return 2
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must never corrupt the protocol stream
    try:
        return serve(sys.stdin.buffer, out, Worker(backend, mask_cache))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
