"""The worker protocol's shared vocabulary (docs/protocol.md): what both sides agree on.

The server (refimpl/serving/worker.py) and maskref's client (accel/worker) both import this
module, so each rule is written once: the version, the line framing, the request fields
the server checks, the replies the client checks, and errors — an exception becomes an
`error` object (`error_reply`) and an `error` object becomes the same typed exception
again (`typed_error`). The mask encoding itself is refimpl/masks/mask.py's.

>>> from refimpl.errors import RegexError
>>> err = error_reply(RegexError("unclosed group", pattern="a(", offset=1))
>>> err["type"], err["detail"], err["offset"]
('RegexError', 'unclosed group', 1)
>>> again = typed_error(err)
>>> type(again).__name__, str(again) == err["message"], again.offset
('RegexError', True, 1)
>>> mask_from_reply(dict(mask_fields(bytearray([0, 1, 1])), ok=True), 3).hex()
'06000000'
"""
from __future__ import annotations

import base64
import binascii
import json
import traceback
from typing import Any, Dict, List, Optional, Tuple, Type, Union

from ..errors import GrammarError, LimitError, MaskrefError, RegexError, SchemaError
from ..masks.mask import count_bits, decode_mask, encode_mask
from ..tokens.vocab import VocabularyError

#: The protocol version both sides speak (docs/protocol.md, "Versioning").
PROTOCOL_VERSION = 1
#: what every worker implements (docs/protocol.md, "Writing a worker for your engine")
REQUIRED_OPS = ("hello", "create", "mask", "consume", "close")
#: the encodings of a mask reply (docs/protocol.md, "mask"): the bitmask in base64, in the
#: line (every worker); or raw bytes after the line, where the worker's hello lists them
MASK_ENCODINGS = ("base64", "bits", "flags")
RAW_ENCODINGS = ("bits", "flags")
#: the most raw bytes a reply may announce (a vocabulary of a billion tokens, as flags)
MAX_BINARY = 1 << 30


class ProtocolError(MaskrefError, ValueError):
    """A request that does not follow the protocol (bad JSON, unknown op, bad field)."""


class Unsupported(MaskrefError, ValueError):
    """A well-formed request this engine cannot serve (e.g. a grammar kind it lacks)."""


class BadReply(ValueError):
    """A reply that does not follow the protocol; the message says what was sent
    ("a mask that is not base64"), for the client to report with the worker's name."""


# -- framing --------------------------------------------------------------------------------


def blank(line: Union[str, bytes]) -> bool:
    """Whether a line holds nothing but JSON's whitespace (space, tab, CR, LF): not a
    request, no reply. Other characters Python calls space (\\x1c, \\x0b, U+2028) are
    a request that is not JSON.

    >>> blank(" \\r\\n"), blank("\\x1c\\n"), blank(b"\\t\\n")
    (True, False, True)
    """
    if isinstance(line, bytes):
        return not line.strip(b" \t\r\n")
    return not line.strip(" \t\r\n")


def dump(message: Dict[str, Any]) -> str:
    """One message as a line of the wire format: compact JSON and a newline (ValueError
    for a number JSON cannot write: NaN, an infinity)."""
    return json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n"


def load(line: Union[str, bytes]) -> Any:
    """The JSON value of a message line; ValueError if it is not JSON — Python's json
    module would also read NaN and Infinity, and 1e400 as an infinity, which no JSON
    reader in another language takes back (RecursionError on absurd nesting)."""
    return json.loads(line, parse_constant=_not_json, parse_float=_finite)


def _not_json(constant: str) -> Any:
    raise ValueError("%s is not JSON" % constant)


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError("%s is beyond a double" % text[:40])
    return value


def frame(reply: Dict[str, Any]) -> bytes:
    """A reply as the worker writes it: its line, then the raw bytes of its `binary`
    field, if it has them (the line gives their number instead)."""
    payload = reply.get("binary")
    if isinstance(payload, (bytes, bytearray)):
        return dump(dict(reply, binary=len(payload))).encode("ascii") + payload
    return dump(reply).encode("ascii")


def shown(reply: Dict[str, Any], limit: int = 200) -> str:
    """A reply as JSON for an error message, cut at `limit` characters (its raw bytes
    shown as their number)."""
    if isinstance(reply.get("binary"), (bytes, bytearray)):
        reply = dict(reply, binary=len(reply["binary"]))
    return json.dumps(reply)[:limit]


def b64encode(data: bytes) -> str:
    """Byte strings travel as standard base64 (with padding)."""
    return base64.b64encode(data).decode("ascii")


def reply_problem(reply: Any, request_id: Any) -> Optional[str]:
    """Why a parsed reply line is not the reply to request `request_id`, or None."""
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        return 'is not a reply object with a boolean "ok"'
    rid = reply.get("id")
    if rid != request_id or isinstance(rid, bool) != isinstance(request_id, bool):  # true is not 1
        return "answers request id %r, not %r" % (rid, request_id)
    return None


def hello_problem(reply: Dict[str, Any]) -> Optional[str]:
    """Why a hello reply's capabilities cannot be read, or None: `ops`, `grammar_kinds`,
    `vocabularies` and `mask_encodings`, where given, are lists of strings."""
    for name in ("ops", "grammar_kinds", "vocabularies", "mask_encodings"):
        value = reply.get(name)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            return "a hello reply whose %r is not a list of strings" % name
    return None


# -- requests (checked by the server) -------------------------------------------------------

Kind = Union[type, Tuple[type, ...]]


def field(req: Dict[str, Any], name: str, kind: Kind, default: Any = ...) -> Any:
    """The request's field `name`, of type `kind` (a bool is not an int), or `default`
    when it is absent; ProtocolError if it is missing or of another type."""
    if name not in req:
        if default is ...:
            raise ProtocolError("missing field %r" % name)
        return default
    value = req[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        raise ProtocolError("field %r must be %s, not %s" % (name, _kind_name(kind), json.dumps(value)[:60]))
    return value


def _as_tuple(kind: Kind) -> Tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: Kind) -> str:
    names = {int: "an integer", str: "a string", list: "a list", dict: "an object", bool: "a boolean", type(None): "null"}
    return " or ".join(names.get(k, k.__name__) for k in _as_tuple(kind))


def int_list(req: Dict[str, Any], name: str, default: Any = ...) -> List[int]:
    """A field that is a list of integers."""
    values = field(req, name, list, default)
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool):
            raise ProtocolError("field %r must be a list of integers" % name)
    return values


def b64_field(req: Dict[str, Any], name: str) -> bytes:
    """A field that is a base64 byte string, decoded."""
    try:
        return base64.b64decode(field(req, name, str), validate=True)
    except (binascii.Error, ValueError):
        raise ProtocolError("field %r is not valid base64" % name) from None


# -- replies (checked by the client) --------------------------------------------------------


def mask_fields(flags: Union[bytes, bytearray], encoding: str = "base64") -> Dict[str, Any]:
    """The fields of a mask reply for one 0/1 flag byte per token, in one of the
    `MASK_ENCODINGS`: the bitmask in base64 (`mask`, with its `count` of bits set), or raw
    bytes after the reply line (`binary`, here the bytes themselves: `frame` writes their
    length, then them) — the bitmask ("bits") or the flags ("flags"), without a `count`:
    counting costs the client more than reading them (checking a count is `bytes.count`,
    a branch per byte)."""
    if encoding == "flags":
        return {"encoding": "flags", "vocab_size": len(flags), "binary": bytes(flags)}
    data = encode_mask(flags)
    if encoding == "bits":
        return {"encoding": "bits", "vocab_size": len(flags), "binary": data}
    return {"mask": b64encode(data), "vocab_size": len(flags), "count": count_bits(data)}


def binary_length(reply: Dict[str, Any]) -> Optional[int]:
    """The number of raw bytes that follow a reply line (None: none do); BadReply if its
    `binary` is not a length, or comes without a raw `encoding`."""
    if "binary" not in reply:
        return None
    n = reply["binary"]
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_BINARY:
        raise BadReply("a binary length that is not in 0..%d" % MAX_BINARY)
    if reply.get("encoding") not in RAW_ENCODINGS:
        raise BadReply("raw bytes of an encoding that is not one of %s" % ", ".join(RAW_ENCODINGS))
    return n


def flags_from_reply(reply: Dict[str, Any], n_tokens: int) -> bytearray:
    """The mask of a mask reply as one 0/1 byte per token (`Mask.flags`), checked against a
    vocabulary of n_tokens as `mask_from_reply` checks it: raw flags are taken as they
    are (no bit to unpack), the other encodings decoded."""
    payload = reply.get("binary")
    if not isinstance(payload, bytes) or reply.get("encoding") != "flags":
        return decode_mask(mask_from_reply(reply, n_tokens), n_tokens)
    if len(payload) != n_tokens or reply.get("vocab_size", n_tokens) != n_tokens:
        raise BadReply("a mask of %d flags for %d tokens" % (len(payload), n_tokens))
    if payload.translate(None, b"\x00\x01"):
        raise BadReply("a mask whose flags are not all 0 or 1")
    if "count" in reply and reply["count"] != payload.count(1):
        raise BadReply("a mask whose count (%r) is not its number of flags set" % reply["count"])
    return bytearray(payload)


def mask_from_reply(reply: Dict[str, Any], n_tokens: int) -> bytes:
    """The bitmask of a mask reply, checked against a vocabulary of n_tokens: its length,
    no bits beyond the vocabulary, and its `count` if it sends one."""
    payload = reply.get("binary")
    if isinstance(payload, bytes) and reply.get("encoding") == "flags":
        return encode_mask(flags_from_reply(reply, n_tokens))
    if isinstance(payload, bytes) and reply.get("encoding") == "bits":
        data = payload
    else:
        try:
            data = base64.b64decode(reply["mask"], validate=True)
        except (KeyError, TypeError, ValueError, binascii.Error):
            raise BadReply("a mask that is not base64") from None
    if len(data) != 4 * ((n_tokens + 31) // 32) or reply.get("vocab_size", n_tokens) != n_tokens:
        raise BadReply("a mask of %d bytes for %d tokens" % (len(data), n_tokens))
    if int.from_bytes(data[n_tokens >> 3:], "little") >> (n_tokens & 7):
        raise BadReply("a mask with bits set beyond the vocabulary")
    if "count" in reply and reply["count"] != count_bits(data):
        raise BadReply("a mask whose count (%r) is not its number of bits" % reply["count"])
    return data


def count_from_reply(reply: Dict[str, Any], name: str, n_tokens: int) -> int:
    """The count `name` of a reply about n_tokens tokens sent: "consumed" (consume),
    "valid" (validate)."""
    k = reply.get(name)
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= n_tokens:
        raise BadReply("a %s count that is not in 0..%d" % (name, n_tokens))
    return k


def session_from_reply(reply: Dict[str, Any]) -> Union[int, float, str]:
    """The session id of a create or clone reply: a JSON scalar (not null, not a boolean)."""
    session = reply.get("session")
    if not isinstance(session, (int, float, str)) or isinstance(session, bool):
        raise BadReply("a session id that is not a number or a string")
    return session


def string_from_reply(reply: Dict[str, Any], name: str, op: str) -> str:
    """The string field `name` of the reply to `op`."""
    value = reply.get(name)
    if not isinstance(value, str):
        raise BadReply("a %s reply without a string %r" % (op, name))
    return value


def bool_from_reply(reply: Dict[str, Any], name: str, op: str) -> bool:
    """The boolean field `name` of the reply to `op`."""
    value = reply.get(name)
    if not isinstance(value, bool):
        raise BadReply("%s %s reply without a boolean %r" % ("an" if op[0] in "aeiou" else "a", op, name))
    return value


def bytes_from_reply(reply: Dict[str, Any], name: str, what: str) -> bytes:
    """The base64 field `name` of a reply, decoded (`what` names it in errors)."""
    try:
        return base64.b64decode(reply[name], validate=True)
    except (KeyError, TypeError, ValueError, binascii.Error):
        raise BadReply("%s that are not base64" % what) from None


def tokens_from_reply(reply: Dict[str, Any]) -> List[int]:
    """The token ids of a forced_tokens reply."""
    tokens = reply.get("tokens")
    if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
        raise BadReply("forced tokens that are not a list of integers")
    return tokens


def stats_from_reply(reply: Dict[str, Any]) -> Dict[str, Any]:
    """The statistics of a stats reply."""
    stats = reply.get("stats")
    if not isinstance(stats, dict):
        raise BadReply("stats that are not an object")
    return stats


# -- errors ---------------------------------------------------------------------------------

#: the types of error objects, from the most specific exception class
_ERROR_TYPES: Tuple[Tuple[Type[BaseException], str], ...] = (
    (ProtocolError, "ProtocolError"), (Unsupported, "Unsupported"), (RegexError, "RegexError"),
    (GrammarError, "GrammarError"), (SchemaError, "SchemaError"), (LimitError, "LimitError"),
    (VocabularyError, "VocabularyError"),
)


def error_reply(exc: BaseException) -> Dict[str, Any]:
    """The `error` object of a failed request: its type, the full message, and the typed
    error's fields (offset, line, column, pattern, pointer, limit, value)."""
    err: Dict[str, Any] = {"type": error_type(exc), "message": str(exc)}
    if isinstance(exc, RegexError):
        err.update(detail=exc.message, pattern=exc.pattern, offset=exc.offset)
    elif isinstance(exc, GrammarError):
        err.update(detail=exc.message, offset=exc.offset, line=exc.line, column=exc.column)
    elif isinstance(exc, SchemaError):
        err.update(detail=exc.message, pointer=exc.pointer)
    elif isinstance(exc, LimitError):
        err.update(limit=exc.limit, value=exc.value)
    elif err["type"] == "InternalError":
        err["message"] = "%s: %s" % (type(exc).__name__, exc)
        err["traceback"] = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)[-6:])
    return err


def error_type(exc: BaseException) -> str:
    """The `type` of an exception's error object ("InternalError" for an engine bug)."""
    for cls, name in _ERROR_TYPES:
        if isinstance(exc, cls):
            return name
    if isinstance(exc, MaskrefError):
        return "MaskrefError"
    if type(exc) is ValueError:  # a bad argument the engine refused (e.g. rollback too far)
        return "ValueError"
    return "InternalError"


def typed_error(err: Dict[str, Any], grammar_text: str = "") -> Optional[Exception]:
    """The refimpl exception an `error` object stands for, with its fields and exactly its
    message; None for the types that are no refimpl error (Unsupported, ProtocolError,
    InternalError, ...: the client reports those as its own). `grammar_text` is the
    grammar's source, which a GrammarError points into."""
    kind = err.get("type")
    message = err.get("message")
    detail = err.get("detail", message)
    if not _fields_ok(err, kind) or not isinstance(message, str) or not message.strip() or not isinstance(detail, str):
        return None  # a malformed error object: the client reports it as the worker's
    if kind == "RegexError":
        return _typed(RegexError, message, message=detail, pattern=err.get("pattern") or "", offset=err.get("offset"))
    if kind == "GrammarError":
        return _typed(GrammarError, message, message=detail, text=grammar_text, offset=err.get("offset"),
                      line=err.get("line"), column=err.get("column"))
    if kind == "SchemaError":
        return _typed(SchemaError, message, message=detail, pointer=err.get("pointer") or "")
    if kind == "LimitError":
        return _typed(LimitError, message, limit=err.get("limit"), value=err.get("value"))
    if kind == "VocabularyError":
        return VocabularyError(message)
    if kind == "ValueError":
        return ValueError(message)
    return None


#: the fields of each typed error object, and their JSON types (None: may be absent)
_OPTIONAL_INT = (int, type(None))
_ERROR_FIELDS: Dict[str, Tuple[Tuple[str, Any], ...]] = {
    "RegexError": (("pattern", (str, type(None))), ("offset", int)),
    "GrammarError": (("offset", _OPTIONAL_INT), ("line", _OPTIONAL_INT), ("column", _OPTIONAL_INT)),
    "SchemaError": (("pointer", (str, type(None))),),
    "LimitError": (("limit", str), ("value", int)),
}


def _fields_ok(err: Dict[str, Any], kind: Any) -> bool:
    """Are a typed error object's fields of their types (a boolean is no number)?"""
    for name, types in _ERROR_FIELDS.get(kind, ()) if isinstance(kind, str) else ():
        value = err.get(name)
        if not isinstance(value, types) or isinstance(value, bool):
            return False
    return True


def _typed(cls: Type[Exception], full_message: str, **fields: Any) -> Exception:
    """An instance of a typed refimpl error with these fields and exactly this message."""
    exc = cls.__new__(cls)
    Exception.__init__(exc, full_message)
    for name, value in fields.items():
        setattr(exc, name, value)
    return exc
