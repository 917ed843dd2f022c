"""Test vectors: a grammar, a vocabulary, and the masks along one token path.

One vector per line of a JSON-lines file (docs/conformance.md is the full format):

    {"format": "maskref-vector", "version": 1, "id": "regex/digits/bytes/0",
     "grammar": {"kind": "regex", "source": "[0-9]+"},
     "vocab": {"builtin": "bytes", "size": 257, "sha256": "..."},
     "steps": [{"mask": {"count": 10, "sha256": "...", "ids": [48, ..., 57]},
                "accepting": false, "token": 49, "text": "1"},
               {"mask": {...}, "accepting": true, "token": null}],
     "tags": ["numbers"], "origin": "generate"}

Step i is the state after the tokens of steps 0..i-1: its full mask (EOS included iff
the state accepts; empty after EOS) and the token consumed next (null on the last step).
A mask is stored as its sorted ids when short, else as the llguidance/xgrammar bitmask
(32-bit little-endian words) compressed with zlib and base64-encoded — either itself
(`zlib`) or XORed with the previous step's bitmask (`xor`); `sha256` is the first 16 hex
digits of the SHA-256 of the bitmask, so an engine can check a whole mask by hashing its
own bitmask.

>>> bits = bitmask_from_ids([1, 2, 40], 41)
>>> encode_mask(bits, 41)["ids"], ids_of(decode_mask(encode_mask(bits, 41), 41))
([1, 2, 40], [1, 2, 40])
"""
from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import zlib
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from refimpl import Grammar, Mask, Vocabulary, VocabularyError
from refimpl.masks.mask import count_bits
from refimpl.masks.mask import decode_mask as decode_bits
from refimpl.masks.mask import encode_mask as encode_bits

FORMAT = "maskref-vector"
VERSION = 1
#: masks with at most this many ids are stored as an id list, others as a bitmask
IDS_LIMIT = 32
BUILTIN_VOCABS = ("bytes", "gpt2", "special", "tekken")
GRAMMAR_KINDS = ("regex", "lark", "json_schema", "gbnf", "ebnf")
#: the options a character grammar takes (`dialect` is required for ebnf)
GRAMMAR_OPTIONS = {"gbnf": ("root",), "ebnf": ("dialect", "root")}


class FormatError(ValueError):
    """A vector file that does not follow the format (a setup error: exit status 2)."""


# ------------------------------------------------------------------------------- masks


def bitmask_len(n_tokens: int) -> int:
    """The size of the bitmask of n tokens: whole 32-bit words (len(encode_bits(...)))."""
    return 4 * ((n_tokens + 31) // 32)


def bitmask_from_ids(ids: Iterable[int], n_tokens: int) -> bytes:
    """The bitmask (llguidance layout: token t at bit t % 32 of LE word t // 32)."""
    flags = bytearray(n_tokens)
    for t in ids:
        flags[t] = 1
    return encode_bits(flags)


def ids_of(bitmask: bytes) -> List[int]:
    """The token ids set in a bitmask, ascending."""
    return Mask(decode_bits(bitmask, 8 * len(bitmask))).allowed()


def mask_hash(bitmask: bytes) -> str:
    return hashlib.sha256(bitmask).hexdigest()[:16]


def _xor(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "little") ^ int.from_bytes(b, "little")).to_bytes(len(a), "little")


def encode_mask(bitmask: bytes, n_tokens: int, previous: Optional[bytes] = None) -> Dict[str, Any]:
    """The stored form: `ids` when there are few, else the smaller of `zlib` (the
    bitmask) and `xor` (the bitmask XOR the previous step's, which is mostly zeros when
    the state changed little)."""
    ids = ids_of(bitmask)
    out: Dict[str, Any] = {"count": len(ids), "sha256": mask_hash(bitmask)}
    if len(ids) <= IDS_LIMIT:
        out["ids"] = ids
        return out
    plain = base64.b64encode(zlib.compress(bitmask, 9)).decode("ascii")
    delta = None
    if previous is not None:
        delta = base64.b64encode(zlib.compress(_xor(bitmask, previous), 9)).decode("ascii")
    if delta is not None and len(delta) < len(plain):
        out["xor"] = delta
    else:
        out["zlib"] = plain
    return out


def decode_mask(data: Dict[str, Any], n_tokens: int, previous: Optional[bytes] = None) -> bytes:
    """The bitmask of a stored mask; checks its ids, size, count and hash (a FormatError
    says what is wrong)."""
    if not isinstance(data, dict):
        raise FormatError("a mask is an object, not %s" % json_type(data))
    if "ids" in data:
        ids = data["ids"]
        if not isinstance(ids, list) or not all(is_id(t, n_tokens) for t in ids):
            raise FormatError("a mask's ids are token ids from 0 to %d" % (n_tokens - 1))
        bits = bitmask_from_ids(ids, n_tokens)
    elif "zlib" in data:
        bits = _inflate(data["zlib"], n_tokens)
    elif "xor" in data:
        if previous is None:
            raise FormatError("an 'xor' mask on the first step")
        bits = _xor(_inflate(data["xor"], n_tokens), previous)
    else:
        raise FormatError("a mask needs 'ids', 'zlib' or 'xor'")
    if len(bits) != bitmask_len(n_tokens):
        raise FormatError("mask of %d bytes for %d tokens" % (len(bits), n_tokens))
    if "sha256" in data and mask_hash(bits) != data["sha256"]:
        raise FormatError("mask hash mismatch")
    if "count" in data and count_bits(bits) != data["count"]:
        raise FormatError("mask count mismatch")
    return bits


def _inflate(text: Any, n_tokens: int) -> bytes:
    """A stored bitmask: base64 of its zlib stream, inflated to at most one byte more
    than the bitmask of n tokens (so a bomb stops there: the size check refuses it)."""
    try:
        packed = base64.b64decode(text, validate=True)
        inflate = zlib.decompressobj()
        bits = inflate.decompress(packed, bitmask_len(n_tokens) + 1)
    except (TypeError, ValueError, zlib.error) as e:  # binascii.Error is a ValueError
        raise FormatError("a mask that is not base64 of a zlib stream (%s)" % e) from None
    if len(bits) <= bitmask_len(n_tokens) and not inflate.eof:
        raise FormatError("a mask whose zlib stream is cut short")
    return bits


def is_id(t: Any, n_tokens: int) -> bool:
    """Is `t` a token id of a vocabulary of n tokens (an integer, not a boolean)?"""
    return isinstance(t, int) and not isinstance(t, bool) and 0 <= t < n_tokens


def json_type(value: Any) -> str:
    """The JSON type of a parsed value, for errors ("a list")."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


# ------------------------------------------------------------------------------- grammars


class GrammarSpec:
    """What a vector's grammar is: a kind and its text (or schema) and options."""

    __slots__ = ("kind", "source", "schema", "options")

    def __init__(self, kind: str, source: Optional[str] = None, schema: Any = None, options: Optional[dict] = None):
        if kind not in GRAMMAR_KINDS:
            raise FormatError("unknown grammar kind %r (one of %s)" % (kind, ", ".join(GRAMMAR_KINDS)))
        if kind == "json_schema":
            if schema is None:
                raise FormatError("a json_schema grammar needs 'schema'")
            source = json.dumps(schema, ensure_ascii=False)
        elif not isinstance(source, str):
            raise FormatError("a %s grammar needs 'source' (a string)" % kind)
        if options is not None and not isinstance(options, dict):
            raise FormatError("a grammar's 'options' is an object")
        if kind in GRAMMAR_OPTIONS:
            _check_options(kind, options or {})
        self.kind = kind
        self.source = source
        self.schema = schema
        self.options = dict(options or {})

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "GrammarSpec":
        return cls(data.get("kind", ""), data.get("source"), data.get("schema"), data.get("options"))

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"kind": self.kind}
        if self.kind == "json_schema":
            out["schema"] = self.schema
        else:
            out["source"] = self.source
        if self.options:
            out["options"] = self.options
        return out

    def key(self) -> str:
        """The spec as one text, the same for the same grammar: the options in sorted
        order, a schema's keys in its own order — that order is the grammar's (the order of
        an object's properties), so two schemas that differ only in it are two grammars
        (the JSON-Schema-Test-Suite has such pairs: `$ref` before and after `properties`).

        >>> a = GrammarSpec("json_schema", schema={"properties": {"a": {}}, "$ref": "#/$defs/b"})
        >>> b = GrammarSpec("json_schema", schema={"$ref": "#/$defs/b", "properties": {"a": {}}})
        >>> a.key() == b.key(), a.key() == GrammarSpec("json_schema", schema=a.schema).key()
        (False, True)
        """
        out = self.to_json()
        if self.options:
            out["options"] = dict(sorted(self.options.items()))
        return json.dumps(out, ensure_ascii=False)

    def compile(self) -> Grammar:
        """refimpl's Grammar for this spec. Raises refimpl's own errors (RegexError,
        GrammarError, SchemaError, LimitError) for bad grammars."""
        if self.kind == "regex":
            return Grammar.from_regex(self.source)
        if self.kind == "lark":
            return Grammar.from_lark(self.source)
        if self.kind == "gbnf":
            return Grammar.from_gbnf(self.source, **self.options)
        if self.kind == "ebnf":
            return Grammar.from_ebnf(self.source, **self.options)
        return Grammar.from_json_schema(self.schema, **self.options)

    def describe(self) -> str:
        if self.kind == "json_schema":
            text = json.dumps(self.schema, ensure_ascii=False)
            if self.options:
                text += "  options " + json.dumps(self.options)
            return "json_schema " + text
        if self.kind == "regex":
            return "regex " + json.dumps(self.source, ensure_ascii=False)
        head = self.kind
        if self.options:  # ebnf's dialect, a start rule
            head += " " + " ".join("%s=%s" % (k, v) for k, v in sorted(self.options.items()))
        return head + "\n" + "\n".join("    " + line for line in self.source.splitlines())

    def __repr__(self) -> str:
        return "GrammarSpec(%s)" % self.key()


def _check_options(kind: str, options: Dict[str, Any]) -> None:
    """A gbnf or ebnf grammar's options: strings, only those it takes (an ebnf grammar
    names its dialect, as Grammar.from_ebnf reads it; its start rule is the dialect's
    default unless `root` names it).

    >>> GrammarSpec("ebnf", 'root ::= "a"', options={"dialect": "xgrammar"}).describe()
    'ebnf dialect=xgrammar\\n    root ::= "a"'
    >>> GrammarSpec("ebnf", 'root ::= "a"')
    Traceback (most recent call last):
    conformance.vectors.FormatError: an ebnf grammar needs the option 'dialect' (e.g. "xgrammar")
    """
    allowed = GRAMMAR_OPTIONS[kind]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise FormatError("a %s grammar takes only the options %s (got %s)" % (kind, ", ".join(allowed), ", ".join(unknown)))
    bad = sorted(k for k, v in options.items() if not isinstance(v, str))
    if bad:
        raise FormatError("a %s grammar's option %s is a string" % (kind, bad[0]))
    if kind == "ebnf" and "dialect" not in options:
        raise FormatError("an ebnf grammar needs the option 'dialect' (e.g. \"xgrammar\")")


class NotSupported(Exception):
    """A backend cannot run this grammar or vocabulary here (the vector counts as unsupported)."""


class Refused(NotSupported):
    """The engine refuses the grammar: its own compiler reports it malformed (or beyond
    what it supports: the engine cannot tell the two apart). On a vector refimpl
    compiles this is unsupported, like NotSupported; on an error vector (refimpl
    refuses the grammar too) it is the agreement. An adapter raises NotSupported, not
    this, where it does not even try the grammar (a dialect, option or vocabulary it
    lacks)."""


# ------------------------------------------------------------------------------- vocabularies


def byte_vocabulary() -> Vocabulary:
    """The 256 single-byte tokens, then EOS (id 256, special)."""
    return Vocabulary.from_bytes([bytes([b]) for b in range(256)] + [b"<eos>"], eos_token_id=256, name="bytes")


#: the special vocabulary's text tokens after the 256 bytes: pieces of special-token texts
#: (and one whole text, `<|eot_id|>`, as plain text), and a few words and numbers
SPECIAL_VOCAB_TEXT = ("<|", "|>", "eot", "_id|>", "<|eot_id|>", "<th", "ink>", "</", "think", "python", "_tag",
                      "ab", "aaa", "hello", " world", "12", "123", "\n\n", "é!")
#: ... then its special tokens, Llama 3's and a reasoning model's; EOS is <|eot_id|>
#: (the primary one, first), then <|end_of_text|>
SPECIAL_VOCAB_SPECIALS = ("<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|eom_id|>", "<|python_tag|>",
                          "<|start_header_id|>", "<|end_header_id|>", "<think>", "</think>")


def special_vocabulary() -> Vocabulary:
    """The 256 single-byte tokens, multi-byte text tokens (SPECIAL_VOCAB_TEXT: among them
    pieces of special-token texts, `<|`, `eot`, `_id|>`, and the text `<|eot_id|>` itself),
    then special tokens (SPECIAL_VOCAB_SPECIALS), two of them EOS, as in Llama 3:

    >>> v = special_vocabulary()
    >>> len(v), [v.tokens[t] for t in v.eos_token_ids], v.tokens.index(b"<|eot_id|>") in v.special_token_ids
    (284, [b'<|eot_id|>', b'<|end_of_text|>'], False)
    """
    text = [bytes([b]) for b in range(256)] + [t.encode("utf-8") for t in SPECIAL_VOCAB_TEXT]
    first = len(text)
    ids = {name: first + i for i, name in enumerate(SPECIAL_VOCAB_SPECIALS)}
    return Vocabulary(text + [t.encode("utf-8") for t in SPECIAL_VOCAB_SPECIALS],
                      eos_token_ids=[ids["<|eot_id|>"], ids["<|end_of_text|>"]],
                      special_token_ids=ids.values(), name="special")


def vocab_hash(vocab: Vocabulary) -> str:
    """SHA-256 (16 hex digits) of the token bytes, EOS ids and special ids (cached on the
    vocabulary, which is never modified once built)."""
    cached = vocab.__dict__.get("_conformance_hash")
    if cached is not None:
        return cached
    h = hashlib.sha256()
    for t in vocab.tokens:
        h.update(len(t).to_bytes(4, "little"))
        h.update(t)
    h.update(json.dumps([list(vocab.eos_token_ids), sorted(vocab.special_token_ids)]).encode())
    vocab.__dict__["_conformance_hash"] = out = h.hexdigest()[:16]
    return out


_VOCABS: Dict[str, Vocabulary] = {}

#: Mistral NeMo's Tekken (131,072 tokens, a Llama-3-class vocabulary) is a built-in name
#: but not shipped (a 660 kB file): read from the file named by this environment
#: variable, else from the places below (the shared data of the maskref checkout's
#: parent, mistral-common's own file); its hash must be this one
TEKKEN_ENV = "MASKREF_TEKKEN"
TEKKEN_SHA256 = "e3ac964476dc2d47"
_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEKKEN_PLACES = (os.path.join(_REPO, "..", "shared", "data", "vocab", "mistral_nemo_tekken.json.gz"),
                 os.path.join(_REPO, "tests", "data", "vocab", "mistral_nemo_tekken.json.gz"))


def tekken_path() -> str:
    """The file the "tekken" vocabulary is read from (FormatError if there is none)."""
    path = os.environ.get(TEKKEN_ENV)
    if path:
        if not os.path.exists(path):
            raise FormatError("%s=%s: no such file" % (TEKKEN_ENV, path))
        return path
    for place in TEKKEN_PLACES:
        if os.path.exists(place):
            return place
    try:
        import mistral_common
    except ImportError:
        pass
    else:
        place = os.path.join(os.path.dirname(mistral_common.__file__), "data", "tekken_240718.json")
        if os.path.exists(place):
            return place
    raise FormatError("the tekken vocabulary is not here: set %s to mistral-common's tekken_240718.json "
                      "(pip install mistral-common) or a maskref JSON of it" % TEKKEN_ENV)


def load_builtin(name: str) -> Vocabulary:
    v = _VOCABS.get(name)
    if v is None:
        if name == "bytes":
            v = byte_vocabulary()
        elif name == "gpt2":
            v = Vocabulary.load("gpt2")
        elif name == "special":
            v = special_vocabulary()
        elif name == "tekken":
            path = tekken_path()
            try:
                v = Vocabulary.load(path)
            except VocabularyError as e:
                raise FormatError("the tekken vocabulary's file: %s" % e) from None
            v.name = "tekken"
            if vocab_hash(v) != TEKKEN_SHA256:
                raise FormatError("%s: not the tekken vocabulary (hash %s, expected %s)" % (path, vocab_hash(v), TEKKEN_SHA256))
        else:
            raise FormatError("unknown built-in vocabulary %r (one of %s)" % (name, ", ".join(BUILTIN_VOCABS)))
        _VOCABS[name] = v
    return v


def vocab_to_json(vocab: Vocabulary) -> Dict[str, Any]:
    """A vocabulary as a vector stores it: a built-in name when it is one, else inline."""
    if vocab.name in BUILTIN_VOCABS and vocab_hash(vocab) == vocab_hash(load_builtin(vocab.name)):
        return {"builtin": vocab.name, "size": len(vocab), "sha256": vocab_hash(vocab)}
    return {
        "tokens_hex": [t.hex() for t in vocab.tokens],
        "eos": list(vocab.eos_token_ids),
        "special": sorted(set(vocab.special_token_ids) - set(vocab.eos_token_ids)),
        "sha256": vocab_hash(vocab),
        "name": vocab.name,
    }


_INLINE: Dict[str, Vocabulary] = {}


def vocab_from_json(data: Dict[str, Any]) -> Vocabulary:
    if "builtin" in data:
        v = load_builtin(data["builtin"])
    elif "tokens_hex" in data:
        v = _inline_vocabulary(data)
    else:
        raise FormatError("a vocabulary needs 'builtin' or 'tokens_hex'")
    if "sha256" in data and vocab_hash(v) != data["sha256"]:
        raise FormatError("vocabulary %s: hash %s, the vector expects %s (a different build of it?)"
                          % (data.get("builtin", "inline"), vocab_hash(v), data["sha256"]))
    return v


def _inline_vocabulary(data: Dict[str, Any]) -> Vocabulary:
    """A vocabulary stored in the vector (built once per hash)."""
    key = data.get("sha256") or json.dumps(data, sort_keys=True)
    v = _INLINE.get(key)
    if v is None:
        try:
            tokens = [bytes.fromhex(h) for h in data["tokens_hex"]]
            v = Vocabulary.from_bytes(tokens, eos_token_id=list(data.get("eos", ())),
                                      special_token_ids=data.get("special", ()), name=data.get("name", "inline"))
        except (ValueError, TypeError) as e:
            raise FormatError("bad inline vocabulary: %s" % e) from None
        _INLINE[key] = v
    return v


# ------------------------------------------------------------------------------- vectors


class Step:
    __slots__ = ("mask", "accepting", "token")

    def __init__(self, mask: bytes, accepting: bool, token: Optional[int]) -> None:
        self.mask = mask
        self.accepting = accepting
        self.token = token


class Benchmark:
    """A benchmark's test of the vector's grammar (optional): its label for a whole text
    (`valid`) and that text's tokens, EOS last. The vector's path is a prefix of them (up
    to the first token refimpl refuses, or shorter); the runner then feeds the engine the
    rest and records its own verdict (Result.accepted). Stored as
    `"benchmark": {"valid": true, "tokens": [...]}`."""

    __slots__ = ("valid", "tokens")

    def __init__(self, valid: bool, tokens: Sequence[int]) -> None:
        self.valid = valid
        self.tokens = list(tokens)

    def to_json(self) -> Dict[str, Any]:
        return {"valid": self.valid, "tokens": self.tokens}

    @classmethod
    def from_json(cls, data: Any, n_tokens: int) -> "Benchmark":
        if not isinstance(data, dict) or not isinstance(data.get("valid"), bool) or not isinstance(data.get("tokens"), list):
            raise FormatError("a benchmark is {\"valid\": true|false, \"tokens\": [...]}")
        if not all(is_id(t, n_tokens) for t in data["tokens"]):
            raise FormatError("a benchmark's tokens are ids of the vocabulary")
        return cls(data["valid"], data["tokens"])


class Vector:
    """A grammar, a vocabulary and the expected masks along a token path (and, for a
    benchmark's test, its label and whole text: `Benchmark`); or, with `error`, a grammar
    refimpl refuses and the error it raises (`error_fields`: an error vector)."""

    def __init__(self, id: str, grammar: GrammarSpec, vocab: Vocabulary, steps: List[Step],
                 tags: Sequence[str] = (), origin: str = "", note: str = "",
                 benchmark: Optional[Benchmark] = None, error: Optional[Dict[str, Any]] = None) -> None:
        self.id = id
        self.grammar = grammar
        self.vocab = vocab
        self.steps = steps
        self.tags = list(tags)
        self.origin = origin
        self.note = note
        self.benchmark = benchmark
        self.error = error

    @property
    def path(self) -> List[int]:
        return [s.token for s in self.steps if s.token is not None]

    def to_json(self) -> Dict[str, Any]:
        n = len(self.vocab)
        steps = []
        previous = None
        for s in self.steps:
            d: Dict[str, Any] = {"mask": encode_mask(s.mask, n, previous), "accepting": s.accepting, "token": s.token}
            previous = s.mask
            if s.token is not None:
                d["text"] = token_text(self.vocab, s.token)
            steps.append(d)
        out: Dict[str, Any] = {"format": FORMAT, "version": VERSION, "id": self.id,
                               "grammar": self.grammar.to_json(), "vocab": vocab_to_json(self.vocab),
                               "steps": steps}
        if self.tags:
            out["tags"] = self.tags
        if self.origin:
            out["origin"] = self.origin
        if self.note:
            out["note"] = self.note
        if self.benchmark is not None:
            out["benchmark"] = self.benchmark.to_json()
        if self.error is not None:
            out["error"] = self.error
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Any) -> "Vector":
        """The vector of a parsed line; a FormatError says what is wrong with it."""
        if not isinstance(data, dict):
            raise FormatError("a vector is a JSON object, not %s" % json_type(data))
        if data.get("format") != FORMAT:
            raise FormatError("not a maskref vector (format %r)" % data.get("format"))
        if data.get("version") != VERSION:
            raise FormatError("vector format version %r; this reader knows version %d" % (data.get("version"), VERSION))
        for name, kind in (("vocab", dict), ("grammar", dict), ("steps", list), ("tags", list), ("error", dict)):
            if name in data and not isinstance(data[name], kind):
                raise FormatError("a vector's %r is %s, not %s" % (name, json_type(kind()), json_type(data[name])))
        try:
            vocab = vocab_from_json(data["vocab"])
            n = len(vocab)
            steps: List[Step] = []
            for s in data["steps"]:
                if not isinstance(s, dict):
                    raise FormatError("a step is an object, not %s" % json_type(s))
                token = s.get("token")
                if token is not None and not is_id(token, n):
                    raise FormatError("token %r is not in the vocabulary" % (token,))
                previous = steps[-1].mask if steps else None
                steps.append(Step(decode_mask(s["mask"], n, previous), bool(s["accepting"]), token))
            error = _error_from_json(data["error"]) if "error" in data else None
            if not steps:
                raise FormatError("a vector needs at least one step")
            bench = Benchmark.from_json(data["benchmark"], n) if "benchmark" in data else None
            return cls(str(data["id"]), GrammarSpec.from_json(data["grammar"]), vocab, steps,
                       data.get("tags", ()), data.get("origin", ""), data.get("note", ""), bench, error)
        except (KeyError, TypeError) as e:
            raise FormatError("malformed vector: %r" % e) from None

    def truncated(self, upto: int) -> "Vector":
        """The vector's first `upto + 1` steps (the last one consumes nothing)."""
        steps = [Step(s.mask, s.accepting, s.token) for s in self.steps[: upto + 1]]
        steps[-1].token = None
        return Vector(self.id, self.grammar, self.vocab, steps, self.tags, self.origin, self.note, self.benchmark,
                      self.error)


# ------------------------------------------------------------------------------- error vectors

#: the fields of refimpl's typed errors an error vector records, by error class
ERROR_FIELDS = {"RegexError": ("offset",), "GrammarError": ("offset", "line", "column"),
                "SchemaError": ("pointer",), "LimitError": ("limit",)}


def error_fields(error: BaseException) -> Dict[str, Any]:
    """What an error vector records of an error: the name of its class and, for refimpl's
    typed errors, where it is (ERROR_FIELDS: a RegexError's offset into the pattern, a
    GrammarError's offset, line and column in the grammar text or null, a SchemaError's
    JSON pointer, a LimitError's limit). A worker's typed error reply is raised as the
    same class with the same fields (refimpl.serving.protocol.typed_error), so two
    engines built on refimpl refuse alike iff these are equal.

    >>> from refimpl import Grammar, RegexError
    >>> try:
    ...     Grammar.from_lark('start: /a(/')
    ... except Exception as e:
    ...     error_fields(e)
    {'type': 'GrammarError', 'offset': 9, 'line': 1, 'column': 10}
    >>> error_fields(TypeError("unsupported operand"))
    {'type': 'TypeError'}
    """
    name = type(error).__name__
    out: Dict[str, Any] = {"type": name}
    for field in ERROR_FIELDS.get(name, ()):
        out[field] = getattr(error, field, None)
    return out


def _error_from_json(data: Dict[str, Any]) -> Dict[str, Any]:
    """An error vector's `error`, checked: a type name, and the fields of its class
    (ERROR_FIELDS) as refimpl gives them (an integer or null; a pointer a string)."""
    kind = data.get("type")
    if not isinstance(kind, str) or not kind:
        raise FormatError("an error vector's 'error' names the error's 'type' (e.g. \"GrammarError\")")
    for field in ERROR_FIELDS.get(kind, ()):
        value = data.get(field)
        ok = isinstance(value, str) if field in ("pointer", "limit") else (
            value is None or (isinstance(value, int) and not isinstance(value, bool)))
        if not ok:
            raise FormatError("an error vector's %s has %r %r" % (kind, field, value))
    return {k: data[k] for k in ("type",) + ERROR_FIELDS.get(kind, ())}


def refused(spec: GrammarSpec, vocab: Vocabulary, id: str, tags: Sequence[str] = (), origin: str = "",
            note: str = "") -> Vector:
    """The error vector of a grammar refimpl refuses: its error (error_fields) as refimpl
    raises it now, and the one step a reader that predates `error` reads (the empty mask,
    not accepting). An AssertionError if refimpl compiles the grammar.

    >>> v = refused(GrammarSpec("regex", "a{2,1}"), byte_vocabulary(), "example")
    >>> v.error, len(v.steps), ids_of(v.steps[0].mask)
    ({'type': 'RegexError', 'offset': 1}, 1, [])
    """
    from refimpl import MaskrefError

    try:
        spec.compile()
    except MaskrefError as e:
        error = error_fields(e)
    else:
        raise AssertionError("refimpl compiles the grammar of %s: %s" % (id, spec.describe()))
    step = Step(bitmask_from_ids((), len(vocab)), False, None)
    return Vector(id, spec, vocab, [step], tags, origin, note, error=error)


def token_text(vocab: Vocabulary, t: int) -> str:
    """A token shown readably: its UTF-8 text, invalid bytes as \\xNN, specials as <id>."""
    if t in vocab.eos_token_ids:
        return "<EOS>"
    data = vocab.tokens[t]
    if t in vocab.special_token_ids:
        return "<special %s>" % data.decode("utf-8", "backslashreplace")
    return data.decode("utf-8", "backslashreplace")


def suite_files(path: str) -> List[str]:
    """The .jsonl files of a suite: the file itself, or a directory's, sorted."""
    if os.path.isdir(path):
        return [os.path.join(path, f) for f in sorted(os.listdir(path)) if f.endswith(".jsonl")]
    if os.path.isfile(path):
        return [path]
    raise FormatError("no suite at %s" % path)


def suite_lines(path: str) -> Iterator[Tuple[str, int, str]]:
    """(file, line number, line) for every vector line of a suite file or directory
    (blank lines and # comments left out); a line that is not UTF-8 is a FormatError."""
    for name in suite_files(path):
        with open(name, "rb") as f:
            for lineno, raw in enumerate(f, 1):
                line = utf8_line(name, lineno, raw)
                if line.strip() and not line.lstrip().startswith("#"):
                    yield name, lineno, line


def utf8_line(name: str, lineno: int, raw: bytes) -> str:
    """Line `lineno` of the file `name`, decoded; a FormatError where it is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError("%s:%d: not UTF-8 text (byte 0x%02X at column %d)" % (
            name, lineno, raw[e.start], e.start + 1)) from None


def json_line(line: str) -> Any:
    """The JSON value of a line of a suite; a FormatError if it is not JSON (nested
    beyond what Python's json module reads among the ways)."""
    try:
        return json.loads(line)
    except ValueError as e:
        raise FormatError("not JSON: %s" % e) from None
    except RecursionError:
        raise FormatError("not JSON this reader takes: nested too deeply") from None


def read_vectors(path: str) -> Iterator[Tuple[str, int, Vector]]:
    """(file, line number, vector) for every vector of a suite file or directory."""
    for name, lineno, line in suite_lines(path):
        try:
            yield name, lineno, Vector.from_json(json_line(line))
        except FormatError as e:
            raise FormatError("%s:%d: %s" % (name, lineno, e)) from None


def write_vectors(path: str, vectors: Iterable[Vector]) -> int:
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for v in vectors:
            f.write(v.to_line() + "\n")
            n += 1
    return n


def record(grammar: Grammar, spec: GrammarSpec, vocab: Vocabulary, path: Sequence[int], id: str,
           tags: Sequence[str] = (), origin: str = "", note: str = "", benchmark: Optional[Benchmark] = None,
           backend: str = "python", choose: Optional[Callable[[Mask, int], Optional[int]]] = None) -> Vector:
    """Record refimpl's masks along `path` (tokens refused by refimpl end the path); or,
    with `choose`, along the tokens it picks: choose(mask, step) -> a token of the mask,
    or None to end. `backend` computes the masks (refimpl.open_matcher's: the same masks)."""
    from refimpl import open_matcher

    m = open_matcher(grammar, vocab, backend=backend)
    n = len(vocab)
    steps = []
    tokens = iter(path)
    for i in itertools.count():
        mask = m.mask()
        step = Step(mask.to_bytes(), m.is_accepting(), None)
        steps.append(step)
        t = choose(mask, i) if choose is not None else next(tokens, None)
        if t is None or not m.consume(t):
            break
        step.token = t
    assert all(len(s.mask) == bitmask_len(n) for s in steps)
    return Vector(id, spec, vocab, steps, tags, origin, note, benchmark)
