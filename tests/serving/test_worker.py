"""The worker protocol (refimpl/serving/worker.py, docs/protocol.md) and its client (accel).

In process (the request handler called directly), through a subprocess of the current
interpreter (`backend="cmd:<python> -m refimpl.serving.worker"`), and under PyPy when pypy3 is
here: masks equal the in-process Matcher's along random paths, rollback restores them,
errors come back typed, and a worker that dies, hangs or answers garbage raises a
WorkerError quickly instead of hanging the caller.
"""
import base64
import json
import random
import shlex
import subprocess
import sys
import textwrap
import time

import pytest

import accel
from accel import pypy
from accel.worker import (
    WorkerDied,
    WorkerError,
    WorkerGarbage,
    WorkerMatcher,
    WorkerRemoteError,
    WorkerTimeout,
    WorkerUnsupported,
    is_embedded_gpt2,
)
from refimpl import Grammar, GrammarError, Mask, Matcher, RegexError, Vocabulary, open_matcher
from refimpl.masks import mask as mask_encoding
from refimpl.masks.mask import count_bits, decode_mask, encode_mask
from refimpl.serving import protocol
from refimpl.serving.protocol import PROTOCOL_VERSION
from refimpl.serving.worker import Worker, serve
from tests.support.paths import ROOT

PYTHON = shlex.quote(sys.executable)
WORKER = "cmd:%s -m refimpl.serving.worker" % PYTHON

LARK = r"""
start: "{" pair ("," pair)* "}"
pair: KEY ":" value
value: STRING | NUMBER | "true" | "null" | "[" (value ("," value)*)? "]" | start
KEY: /"[a-z_]+"/
STRING: /"([^"\\\x00-\x1F\x7F]|\\["\\\/bfnrt])*"/
NUMBER: /-?(0|[1-9][0-9]*)(\.[0-9]+)?/
%ignore /[ \t\n]+/
"""
REGEXES = [r"[0-9]+(\.[0-9]+)?", r'"[^"\\]*"', r"(yes|no|maybe)!{1,3}", r"[a-c]*é€?"]


def small_vocab():
    """Tokens of the grammars' pieces, tokens that split UTF-8 characters, an empty
    token, a duplicate, EOS and another special token."""
    pieces = ["{", "}", "[", "]", ",", ":", '"', '"a', 'a"', "ab", "b_", "_", "1", "0", "12", ".",
              "-", "true", "null", " ", "\n", "yes", "no", "!", "!!", "may", "be", "é", "€", "a", "c",
              '":', '{"', "\\", "\\n", "x"]
    tokens = [p.encode() for p in pieces] + [b"\xc3", b"\xa9", b"\xe2\x82", b"\xac", b"", b"ab", b"<eos>", b"<sp>"]
    return Vocabulary.from_bytes(tokens, eos_token_id=len(tokens) - 2, special_token_ids=[len(tokens) - 1])


@pytest.fixture(scope="module")
def gpt2():
    return Vocabulary.load("gpt2")


def grammars():
    return [Grammar.from_regex(p) for p in REGEXES] + [Grammar.from_lark(LARK)]


def worker_matcher(grammar, vocab, **options):
    return open_matcher(grammar, vocab, backend=WORKER, cwd=str(ROOT), **options)


def walk_both(m, ref, rng, steps):
    """A random path through the masks: the two matchers agree at every step."""
    vocab = ref.vocab
    consumed = 0
    for _ in range(steps):
        mask = ref.mask()
        assert m.mask() == mask
        assert m.is_accepting() == ref.is_accepting()
        refused = next((t for t in range(len(vocab)) if t not in mask), None)
        if refused is not None:
            assert m.consume(refused) is False and ref.consume(refused) is False
        allowed = [t for t in mask.allowed() if t not in vocab.eos_token_ids]
        if not allowed:
            break
        t = rng.choice(allowed)
        assert m.consume(t) and ref.consume(t)
        consumed += 1
        if consumed > 1 and rng.random() < 0.3:
            n = rng.randint(1, 2)
            m.rollback(n)
            ref.rollback(n)
            consumed -= n
            assert m.mask() == ref.mask()
    assert m.forced_bytes() == ref.forced_bytes()
    assert m.forced_tokens() == ref.forced_tokens()
    if ref.is_accepting() and vocab.eos_token_ids:
        eos = vocab.eos_token_ids[0]
        assert m.consume(eos) and ref.consume(eos)
        assert m.mask() == ref.mask()


# -- the mask encoding ----------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 7, 31, 32, 33, 100, 50257])
def test_encode_mask_is_mask_to_bytes_and_decode_inverts_it(n):
    rng = random.Random(n)
    flags = bytearray(rng.random() < 0.3 for _ in range(n))
    data = encode_mask(flags)
    assert data == Mask(flags).to_bytes()
    assert decode_mask(data, n) == flags
    assert count_bits(data) == flags.count(1)
    # both implementations (integer arithmetic for CPython, loops for PyPy), everywhere
    assert mask_encoding._encode_by_integers(flags) == mask_encoding._encode_by_loop(flags) == data
    assert mask_encoding._decode_by_integers(data)[:n] == mask_encoding._decode_by_loop(data)[:n] == flags


# -- in process -----------------------------------------------------------------------------


def inline(vocab):
    return {"tokens_hex": [t.hex() for t in vocab.tokens], "eos_token_ids": list(vocab.eos_token_ids),
            "special_token_ids": sorted(vocab.special_token_ids)}


class Session:
    """The in-process Worker, driven like a client: a Matcher-like view of one session."""

    def __init__(self, worker, grammar, vocab_spec, n, slices=None):
        reply = worker.handle({"op": "create", "grammar": {"kind": grammar.kind, "text": grammar.source},
                               "vocabulary": vocab_spec, "options": {"slices": slices}})
        assert reply["ok"], reply
        self.w, self.sid, self.n = worker, reply["session"], n

    def call(self, op, **kw):
        reply = self.w.handle(dict(op=op, session=self.sid, **kw))
        assert reply["ok"], reply
        return reply

    def mask(self):
        reply = self.call("mask")
        assert reply["vocab_size"] == self.n and reply["mask_ns"] >= 0
        flags = decode_mask(base64.b64decode(reply["mask"]), self.n)
        assert reply["count"] == flags.count(1)
        return Mask(flags)

    def consume(self, t):
        return self.call("consume", tokens=[t])["consumed"] == 1

    def rollback(self, n):
        self.call("rollback", n=n)

    def is_accepting(self):
        return self.call("accepting")["accepting"]

    def forced_bytes(self):
        return base64.b64decode(self.call("forced_bytes")["bytes"])

    def forced_tokens(self):
        return self.call("forced_tokens")["tokens"]


@pytest.mark.parametrize("seed", range(3))
def test_in_process_masks_equal_the_matcher_small_vocab(seed):
    vocab = small_vocab()
    w = Worker()
    for g in grammars():
        rng = random.Random(seed)
        walk_both(Session(w, g, inline(vocab), len(vocab)), Matcher(g, vocab), rng, 12)
    assert len(w.vocabularies) == 1  # one inline spec, loaded once, shared by the sessions


def test_in_process_masks_equal_the_matcher_gpt2(gpt2):
    w = Worker()
    for g, slices in [(Grammar.from_regex(r"[0-9]+(\.[0-9]+)?"), []), (Grammar.from_lark(LARK), None)]:
        walk_both(Session(w, g, {"name": "gpt2"}, len(gpt2), slices), Matcher(g, gpt2, slices=slices), random.Random(1), 8)


def test_in_process_consume_bytes_stats_close():
    vocab = small_vocab()
    w = Worker()
    s = Session(w, Grammar.from_regex("abc|abd"), inline(vocab), len(vocab))
    assert s.call("consume_bytes", bytes=base64.b64encode(b"ab").decode())["consumed"] is True
    assert s.call("consume_bytes", bytes=base64.b64encode(b"x").decode())["consumed"] is False
    s.mask()
    stats = s.call("stats")["stats"]
    assert stats["trie_nodes_walked"] > 0 and stats["mask_ns"] >= 0
    s.rollback(1)
    assert s.forced_bytes() == b"ab"
    assert s.call("close") == {"ok": True}
    assert w.handle({"op": "mask", "session": s.sid})["error"] == {"type": "ProtocolError", "message": "unknown session 1"}


def test_in_process_lifecycle_ops():
    """validate, clone, reset and stop_reason: the Matcher's methods, one op each."""
    vocab = Vocabulary.from_bytes([b"a", b"b", b"c", b"</s>"], eos_token_id=3)
    w = Worker()
    s = Session(w, Grammar.from_lark('start: "a" "b"*'), inline(vocab), len(vocab))
    assert s.call("validate", tokens=[0, 1, 3, 1]) == {"ok": True, "valid": 3}
    assert s.mask().allowed() == [0]  # validate moved nothing
    assert s.call("consume", tokens=[0, 1, 2])["consumed"] == 2  # consume: the longest accepted prefix
    assert s.call("stop_reason") == {"ok": True, "stop_reason": ""}
    clone = s.call("clone")["session"]
    assert clone != s.sid and sorted(w.sessions) == [s.sid, clone]
    assert w.handle({"op": "consume", "session": clone, "tokens": [3]})["consumed"] == 1
    assert w.handle({"op": "stop_reason", "session": clone})["stop_reason"] == "eos"
    assert s.call("stop_reason")["stop_reason"] == "" and s.mask().allowed() == [1, 3]
    assert s.call("reset") == {"ok": True}
    assert s.mask().allowed() == [0]
    assert w.handle({"op": "mask", "session": clone})["count"] == 0  # after EOS: nothing
    assert {"validate", "clone", "reset", "stop_reason"} <= set(w.handle({"op": "hello"})["ops"])
    assert error_of(w, {"op": "validate", "session": s.sid, "tokens": "ab"})["message"] == (
        "field 'tokens' must be a list, not \"ab\"")


def error_of(w, req):
    reply = w.handle(req)
    assert reply["ok"] is False
    return reply["error"]


def test_in_process_errors_are_replies():
    w = Worker()
    gpt2_spec = {"name": "gpt2"}
    err = error_of(w, {"op": "create", "grammar": {"kind": "regex", "text": "ab(c"}, "vocabulary": gpt2_spec})
    assert err["type"] == "RegexError" and err["offset"] == 2 and err["pattern"] == "ab(c"
    err = error_of(w, {"op": "create", "grammar": {"kind": "lark", "text": "start: a\n  a: 'x\n"}, "vocabulary": gpt2_spec})
    assert err["type"] == "GrammarError" and (err["line"], err["column"]) == (2, 6) and "line 2" in err["message"]
    err = error_of(w, {"op": "create", "grammar": {"kind": "regex", "text": "a{5}"}, "vocabulary": gpt2_spec,
                       "options": {"limits": {"repeat_bound": 3}}})
    assert err["type"] == "LimitError" and err["limit"] == "repeat_bound" and err["value"] == 3
    err = error_of(w, {"op": "create", "grammar": {"kind": "cfg", "text": "x"}, "vocabulary": gpt2_spec})
    assert err["type"] == "Unsupported" and "cfg" in err["message"]
    err = error_of(w, {"op": "create", "grammar": {"kind": "regex", "text": "x"}, "vocabulary": {"name": "/etc/passwd"}})
    assert err["type"] == "VocabularyError"
    err = error_of(w, {"op": "create", "grammar": {"kind": "regex", "text": "x"}, "vocabulary": {"tokens_hex": ["zz"]}})
    assert err["type"] == "VocabularyError"
    err = error_of(w, {"op": "create", "grammar": {"kind": "regex", "text": "x"}, "vocabulary": gpt2_spec,
                       "options": {"slice": []}})
    assert err["type"] == "Unsupported" and "slice" in err["message"]
    assert error_of(w, {"op": "frobnicate", "id": 7})["type"] == "ProtocolError"
    assert w.handle({"op": "frobnicate", "id": 7})["id"] == 7
    assert error_of(w, {"op": "consume", "session": 1, "tokens": [1]})["message"] == "unknown session 1"
    assert error_of(w, {"op": "hello", "protocol": 99})["type"] == "Unsupported"
    assert error_of(w, {"no": "op"})["message"] == "missing field 'op'"
    assert error_of(w, [1, 2])["type"] == "ProtocolError"
    s = w.handle({"op": "create", "grammar": {"kind": "regex", "text": "ab"}, "vocabulary": gpt2_spec})["session"]
    assert error_of(w, {"op": "consume", "session": s, "tokens": [True]})["type"] == "ProtocolError"
    assert error_of(w, {"op": "consume_bytes", "session": s, "bytes": "!!"})["type"] == "ProtocolError"
    err = error_of(w, {"op": "rollback", "session": s, "n": 1})
    assert err == {"type": "ValueError", "message": "cannot roll back 1 steps: 0 consumed"}
    # a bug in the engine is an InternalError reply, and the worker lives on
    w.sessions[s].mask = None
    err = error_of(w, {"op": "mask", "session": s})
    assert err["type"] == "InternalError" and "TypeError" in err["message"] and "Traceback" in err["traceback"]
    assert w.handle({"op": "accepting", "session": s}) == {"ok": True, "accepting": False}
    # so is a reply JSON cannot carry
    w.sessions[s]._last_mask = {"bad": object()}  # in its stats
    err = json.loads(w.handle_line('{"op": "stats", "session": %d, "id": 8}' % s))
    assert err["id"] == 8 and err["error"]["type"] == "InternalError" and "not JSON serializable" in err["error"]["message"]


def test_json_schema_is_served():
    w = Worker()
    reply = w.handle({"op": "create", "grammar": {"kind": "json_schema", "text": '{"type": "integer"}'},
                      "vocabulary": {"name": "gpt2"}})
    assert reply["ok"], reply
    assert "json_schema" in w.handle({"op": "hello"})["grammar_kinds"]


def test_wire_lines():
    w = Worker()
    assert w.handle_line("   \n") is None
    bad = json.loads(w.handle_line("{not json"))
    assert bad["ok"] is False and bad["id"] is None and bad["error"]["type"] == "ProtocolError"
    assert bad["error"]["message"].startswith("malformed JSON")
    assert json.loads(w.handle_line(b"\xff\n"))["error"]["type"] == "ProtocolError"
    hello = json.loads(w.handle_line('{"op":"hello","id":"h","protocol":%d}' % PROTOCOL_VERSION))
    assert hello["ok"] and hello["id"] == "h" and hello["protocol"] == PROTOCOL_VERSION
    assert {"hello", "create", "mask", "consume", "rollback", "accepting", "close", "shutdown"} <= set(hello["ops"])


def test_serve_answers_one_line_per_request_and_stops_at_shutdown():
    import io

    lines = [
        '{"op":"hello","id":1}',
        "garbage",
        "",
        '{"op":"nope","id":2}',
        '{"op":"create","id":3,"grammar":{"kind":"regex","text":"a+"},"vocabulary":{"tokens_hex":["61","6161"]}}',
        '{"op":"mask","id":4,"session":1}',
        '{"op":"shutdown","id":5}',
        '{"op":"hello","id":6}',
    ]
    out = io.BytesIO()
    assert serve(io.BytesIO("\n".join(lines).encode() + b"\n"), out) == 0
    replies = [json.loads(x) for x in out.getvalue().decode().splitlines()]
    assert [r.get("id") for r in replies] == [1, None, 2, 3, 4, 5]
    assert [r["ok"] for r in replies] == [True, False, False, True, True, True]
    assert replies[4]["mask"] == base64.b64encode(bytes([3, 0, 0, 0])).decode()


def test_mask_encodings_give_the_same_mask():
    """A mask asked for as raw flags or as a raw bitmask is the base64 one; on the wire its
    bytes follow the reply line, which gives their number (docs/protocol.md, "mask")."""
    vocab = small_vocab()
    n = len(vocab)
    w = Worker()
    assert w.handle({"op": "hello"})["mask_encodings"] == ["base64", "bits", "flags"]
    s = Session(w, Grammar.from_lark(LARK), inline(vocab), n)
    assert s.call("consume_bytes", bytes=base64.b64encode(b'{"ab": ').decode())["consumed"]
    base, bits, flags = (s.call("mask", **kw) for kw in ({}, {"encoding": "bits"}, {"encoding": "flags"}))
    assert bits["encoding"] == "bits" and bits["binary"] == base64.b64decode(base["mask"])
    assert flags["encoding"] == "flags" and flags["binary"] == bytes(decode_mask(bits["binary"], n))
    assert base["count"] == flags["binary"].count(1) > 1 and "count" not in bits and "count" not in flags
    for reply in (base, bits, flags):  # what the client reads from each
        assert protocol.flags_from_reply(reply, n) == flags["binary"]
        assert protocol.mask_from_reply(reply, n) == bits["binary"]
    wire = w.respond('{"op": "mask", "id": 9, "session": %d, "encoding": "flags"}' % s.sid)
    line, rest = wire.split(b"\n", 1)
    head = json.loads(line)
    assert (head["id"], head["binary"], head["encoding"]) == (9, n, "flags") and rest == flags["binary"]
    assert w.handle_line('{"op": "mask", "session": %d, "encoding": "bits"}' % s.sid).endswith(
        bits["binary"].decode("latin-1"))
    err = error_of(w, {"op": "mask", "session": s.sid, "encoding": "hex"})
    assert err["type"] == "Unsupported" and "'hex'" in err["message"]


@pytest.mark.parametrize("reply, message", [
    ({"encoding": "flags", "binary": 3, "vocab_size": 3}, "a mask of 3 flags for 4 tokens"),
    ({"encoding": "flags", "binary": b"\x01\x02\x00\x00"}, "flags are not all 0 or 1"),
    ({"encoding": "flags", "binary": b"\x01\x01\x00\x00", "count": 1}, "count \\(1\\) is not its number"),
    ({"encoding": "bits", "binary": b"\x10\x00\x00\x00"}, "bits set beyond the vocabulary"),
    ({"encoding": "bits", "binary": b"\x01"}, "a mask of 1 bytes for 4 tokens"),
])
def test_raw_masks_are_checked(reply, message):
    if isinstance(reply["binary"], int):
        reply = dict(reply, binary=bytes(reply["binary"]))
    with pytest.raises(protocol.BadReply, match=message):
        protocol.flags_from_reply(reply, 4)
    with pytest.raises(protocol.BadReply, match=message):
        protocol.mask_from_reply(reply, 4)


# -- through a subprocess -------------------------------------------------------------------


def test_raw_subprocess_survives_bad_lines():
    lines = ["{oops", '{"op":"hello","id":1}', '["not", "an", "object"]', '{"op":"shutdown","id":2}']
    done = subprocess.run([sys.executable, "-m", "refimpl.serving.worker"], input="\n".join(lines) + "\n", cwd=str(ROOT),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    replies = [json.loads(x) for x in done.stdout.splitlines()]
    assert [r["ok"] for r in replies] == [False, True, False, True]


@pytest.mark.parametrize("seed", range(2))
def test_subprocess_masks_equal_the_matcher_small_vocab(seed):
    vocab = small_vocab()
    for g in grammars():
        with worker_matcher(g, vocab) as m:
            assert isinstance(m, WorkerMatcher)
            walk_both(m, Matcher(g, vocab), random.Random(seed), 12)
    assert list(m.process.vocab_specs[vocab]) == ["ref"]  # sent once, then by reference


def test_subprocess_masks_equal_the_matcher_gpt2(gpt2):
    for g, slices in [(Grammar.from_regex(r'"[^"\\]*"'), None), (Grammar.from_lark(LARK), None),
                      (Grammar.from_regex("[0-9]+"), [])]:
        with worker_matcher(g, gpt2, slices=slices) as m:
            walk_both(m, Matcher(g, gpt2, slices=slices), random.Random(2), 6)
            assert m.last_mask_ns > 0 and m.last_roundtrip_ns > 0
            assert {"trie_nodes_walked", "mask_ns"} <= set(m.stats)
    assert is_embedded_gpt2(gpt2) and not is_embedded_gpt2(small_vocab())  # so it is sent by name
    assert list(m.process.vocab_specs[gpt2]) == ["ref"]  # loaded once, then referred to


def test_subprocess_sessions_are_independent_and_rollback_works():
    vocab = small_vocab()
    g = Grammar.from_regex(REGEXES[2])
    a, b, ref = worker_matcher(g, vocab), worker_matcher(g, vocab), Matcher(g, vocab)
    assert a.process is b.process and a.session != b.session
    assert a.consume_bytes(b"yes!")
    assert not a.consume_bytes(b"?")
    assert b.mask() == ref.mask()
    assert b.mask_bytes() == ref.mask().to_bytes()
    ref.consume_bytes(b"yes!")
    assert a.mask() == ref.mask() and a.is_accepting()
    a.rollback(1)
    ref.rollback(1)
    assert a.mask() == ref.mask() and not a.is_accepting()
    with pytest.raises(ValueError, match="cannot roll back 1 steps"):
        a.rollback(1)
    a.close()
    b.close()
    with pytest.raises(ValueError, match="closed"):
        a.mask()


@pytest.mark.parametrize("trust", [False, True])
def test_a_mask_after_a_consume_is_asked_for_with_it(trust):
    """mask, consume, mask, ...: a consume right after a mask sends the next mask request
    with it (the worker computes it meanwhile), so that mask() sends nothing: one round
    trip a token. A step that may change the state (consume, consume_bytes, rollback)
    drops it; others keep it. With trust_masks (backend "pypy"'s default), a consume of a
    token that mask allowed returns without waiting for its reply. Along random steps of
    every kind, the masks and the answers are the Matcher's."""
    vocab = small_vocab()
    for seed, g in enumerate(grammars()):
        rng, ref = random.Random(seed), Matcher(g, vocab)
        after_mask = ahead = False
        steps = 0  # consumed steps, for rollback
        with worker_matcher(g, vocab, trust_masks=trust) as m:
            assert m.trust_masks is trust
            for _ in range(60):
                op = rng.choice(["mask", "mask", "consume", "consume", "rollback", "consume_bytes", "accepting", "clone"])
                sent = m.process.requests
                if op == "mask":
                    assert m.mask() == ref.mask()
                    assert (m.process.requests == sent) == ahead
                    ahead = False
                elif op == "consume":
                    allowed = ref.mask().allowed()
                    t = rng.choice(allowed) if allowed and rng.random() < 0.8 else rng.randrange(len(vocab))
                    ok = ref.consume(t)
                    assert m.consume(t) == ok
                    steps += ok
                    ahead = after_mask
                elif op == "rollback":
                    if not steps:
                        continue
                    m.rollback(1)
                    ref.rollback(1)
                    steps -= 1
                    ahead = False
                elif op == "consume_bytes":
                    data = rng.choice([b"1", b"a", b"{", b'"', b"!"])
                    ok = ref.consume_bytes(data)
                    assert m.consume_bytes(data) == ok
                    steps += ok
                    ahead = False
                elif op == "accepting":
                    assert m.is_accepting() == ref.is_accepting()
                elif op == "clone":
                    with m.clone() as c:
                        assert c.mask() == ref.mask()
                after_mask = op == "mask"


def test_close_does_not_wait_for_its_reply():
    """A matcher's close is sent, and its reply read (and dropped) before the next reply
    of its process: the session is closed all the same."""
    vocab = small_vocab()
    g = Grammar.from_regex("[0-9]+")
    a, b = worker_matcher(g, vocab), worker_matcher(g, vocab)
    assert a.process is b.process
    session = a.session
    a.close()
    assert b.mask() == Matcher(g, vocab).mask()
    with pytest.raises(WorkerRemoteError, match="unknown session %d" % session):
        b.process.request({"op": "mask", "session": session}, 10)
    b.close()


def test_subprocess_lifecycle_through_the_client():
    """The client's consume_tokens is all or nothing (consume, then rollback), its clone a
    new session of the same process."""
    vocab = Vocabulary.from_bytes([b"a", b"b", b"c", b"</s>"], eos_token_id=3)
    with worker_matcher(Grammar.from_lark('start: "a" "b"*'), vocab) as m:
        assert not m.consume_tokens([0, 1, 2]) and m.mask().allowed() == [0]
        assert m.try_consume_tokens([0, 1, 2]) == 2 and m.validate_tokens([1, 3, 3]) == 2
        c = m.clone()
        assert c.process is m.process and c.session != m.session
        assert c.consume(3) and c.is_stopped() and c.stop_reason == "eos"
        assert not m.is_stopped() and m.mask().allowed() == [1, 3]
        m.reset()
        assert m.mask().allowed() == [0] and c.mask().allowed() == []
        c.close()


FAKE_REPLIES = """
import json, sys
REPLIES = %r
for line in sys.stdin:
    req = json.loads(line)
    op, rid = req["op"], req["id"]
    reply = {"ok": True, "id": rid}
    if op == "hello":
        reply.update(protocol=1, ops=["hello", "create", "mask", "consume", "validate", "clone", "stop_reason",
                                      "close"], grammar_kinds=["regex"])
    elif op == "create":
        reply.update(session=1)
    else:
        reply.update(REPLIES.get(op, {}))
    print(json.dumps(reply), flush=True)
"""


@pytest.mark.parametrize("op, reply, call, message", [
    ("validate", {"valid": 5}, lambda m: m.validate_tokens([0, 0]), "a valid count that is not in 0..2"),
    ("consume", {"consumed": True}, lambda m: m.try_consume_tokens([0]), "a consumed count that is not in 0..1"),
    ("clone", {"session": [2]}, lambda m: m.clone(), "a session id that is not a number or a string"),
    ("stop_reason", {"stop_reason": None}, lambda m: m.is_stopped(), "a stop_reason reply without a string"),
])
def test_lifecycle_replies_are_checked(op, reply, call, message):
    m = open_matcher(Grammar.from_regex("a"), Vocabulary.from_bytes([b"a"] * 3),
                     backend=cmd(FAKE_REPLIES % {op: reply}), reuse=False)
    with pytest.raises(WorkerGarbage, match=message):
        quickly(call, m)
    m.close()


def test_subprocess_typed_errors_keep_their_fields(gpt2):
    with pytest.raises(RegexError) as e:
        worker_matcher(_Source("regex", "[a-"), gpt2)
    assert e.value.offset == 0 and e.value.pattern == "[a-" and "offset 0" in str(e.value)
    text = "start: x\nx: 'a' (\n"
    with pytest.raises(GrammarError) as e:
        worker_matcher(_Source("lark", text), gpt2)
    try:
        Grammar.from_lark(text)
    except GrammarError as local:
        fields = (e.value.line, e.value.column, e.value.offset, str(e.value))
        assert fields == (local.line, local.column, local.offset, str(local))
    # the worker is still serving
    with worker_matcher(Grammar.from_regex("a+"), gpt2) as m:
        assert m.mask().allowed()[:1] == [64]


class _Source:
    """A stand-in for a Grammar that does not compile locally: what the client sends."""

    def __init__(self, kind, source):
        from refimpl.limits import DEFAULT_LIMITS

        self.kind, self.source, self.limits = kind, source, DEFAULT_LIMITS


def test_a_grammar_without_source_cannot_be_sent():
    g = Grammar.from_regex("ab")
    ir_grammar = Grammar(g.ir, "ir", "")
    with pytest.raises(WorkerUnsupported, match="kind 'ir' cannot be sent"):
        worker_matcher(ir_grammar, small_vocab())


SCHEMA = ('{"type": "object", "properties": {"n": {"type": "integer"}, '
          '"tags": {"type": "array", "items": {"type": "string"}}}, "required": ["n"]}')


def test_json_schema_through_the_client(gpt2):
    vocab = small_vocab()
    g = Grammar.from_json_schema(SCHEMA)
    for v in (vocab, gpt2):
        with worker_matcher(g, v) as m:
            walk_both(m, Matcher(g, v), random.Random(3), 10)
    # grammar options travel with the grammar spec
    w = Worker()
    local = Matcher(Grammar.from_json_schema(SCHEMA, whitespace_flexible=False), vocab)
    s = Session(w, _Source("json_schema", SCHEMA), inline(vocab), len(vocab))
    spec = {"kind": "json_schema", "text": SCHEMA, "options": {"whitespace_flexible": False}}
    reply = w.handle({"op": "create", "grammar": spec, "vocabulary": inline(vocab)})
    s.sid = reply["session"]
    walk_both(s, local, random.Random(4), 10)


def test_llguidance_top_level_grammar_through_the_client(gpt2):
    g = Grammar.from_llguidance({"grammars": [
        {"name": "main", "lark_grammar": 'start: "x=" @num ";"\n%ignore " "'},
        {"name": "num", "json_schema": {"type": "integer", "minimum": 3}}]})
    for v in (small_vocab(), gpt2):
        with worker_matcher(g, v) as m:
            walk_both(m, Matcher(g, v), random.Random(5), 10)


def test_a_json_schema_grammar_that_its_source_does_not_rebuild_is_not_sent():
    """Grammar.from_json_schema keeps a display of a dict schema (cut at 200 characters) and
    not its options: sending that source would check a different grammar. The client
    notices (unless the Grammar records `options`) and refuses, naming why."""
    vocab = small_vocab()
    big = Grammar.from_json_schema({"type": "object", "properties": {"k%d" % i: {"type": "integer"} for i in range(40)}})
    tight = Grammar.from_json_schema({"type": "array", "items": {"type": "string"}}, whitespace_flexible=False)
    for g, sendable in [(big, not big.source.endswith("...")), (tight, getattr(tight, "options", None) is not None)]:
        if sendable:  # the Grammar was changed to keep its whole source, or its options
            with worker_matcher(g, vocab) as m:
                assert m.mask() == Matcher(g, vocab).mask()
        else:
            with pytest.raises(WorkerUnsupported, match="does not rebuild the same grammar"):
                worker_matcher(g, vocab)
    small = Grammar.from_json_schema({"type": "array", "items": {"type": "string"}})  # its source is whole
    with worker_matcher(small, vocab) as m:
        assert m.mask() == Matcher(small, vocab).mask()


def test_backends_are_listed():
    backends = accel.available_backends()
    assert backends["python"] is None and backends["cmd:<command>"] is None
    assert "pypy" in backends


# -- workers that fail ----------------------------------------------------------------------


def cmd(code):
    return "cmd:%s -c %s" % (PYTHON, shlex.quote(textwrap.dedent(code)))


FAKE = """
import json, sys, time
MODE = %r
for line in sys.stdin:
    req = json.loads(line)
    op, rid = req["op"], req["id"]
    reply = {"ok": True, "id": rid}
    if op == "hello":
        reply.update(protocol=1, ops=["hello", "create", "mask", "close", "shutdown"], grammar_kinds=["regex"])
        if MODE == "refuse":
            reply["ops"].append("consume")
        if MODE in ("raw-cut", "raw-hang"):
            reply.update(mask_encodings=["base64", "flags"])
    elif op == "create":
        if MODE == "hang-create":
            time.sleep(60)
        reply.update(session=1)
    elif op == "mask" and MODE.startswith("raw"):  # 10 flags after the line: all, or 4 of them
        sys.stdout.buffer.write(json.dumps(dict(reply, encoding="flags", binary=10)).encode() + b"\\n")
        sys.stdout.buffer.write(b"\\x01" * (10 if MODE == "raw-unasked" else 4))
        sys.stdout.buffer.flush()
        if MODE == "raw-cut":
            sys.exit(5)
        if MODE == "raw-hang":
            time.sleep(60)
        continue
    elif op == "consume":
        reply.update(consumed=0)
    elif op == "mask" and MODE == "refuse":
        reply.update(mask="/wMAAA==")
    elif op == "mask":
        if MODE == "die":
            sys.stderr.write("engine exploded: out of widgets\\n"); sys.stderr.flush(); sys.exit(7)
        if MODE == "hang":
            time.sleep(60)
        if MODE == "wrong-id":
            reply["id"] = rid + 1
        if MODE == "short-mask":
            reply.update(mask="AAAA", vocab_size=3)
        else:
            reply.update(mask="AAAAAA==")
    elif op == "shutdown":
        print(json.dumps(reply), flush=True)
        break
    print(json.dumps(reply), flush=True)
"""


def quickly(fn, *args, **kw):
    t0 = time.monotonic()
    try:
        return fn(*args, **kw)
    finally:
        assert time.monotonic() - t0 < 10


def test_a_worker_that_exits_at_once():
    with pytest.raises(WorkerDied) as e:
        quickly(open_matcher, Grammar.from_regex("a"), small_vocab(), backend=cmd("import sys; sys.exit(3)"))
    assert e.value.returncode == 3 and "exited with code 3" in str(e.value) and '"op":"hello"' in str(e.value)


def test_a_worker_that_hangs_at_once():
    backend = cmd("import time; time.sleep(60)")
    with pytest.raises(WorkerTimeout, match="did not answer within 1 s"):
        quickly(open_matcher, Grammar.from_regex("a"), small_vocab(), backend=backend, startup_timeout=1, reuse=False)


def test_a_worker_that_answers_garbage():
    with pytest.raises(WorkerGarbage, match="'not json'"):
        quickly(open_matcher, Grammar.from_regex("a"), small_vocab(), backend=cmd("print('not json')"))


def test_a_worker_that_does_not_exist():
    with pytest.raises(WorkerError, match="cannot start worker"):
        open_matcher(Grammar.from_regex("a"), small_vocab(), backend="cmd:/nonexistent/engine --flag")


@pytest.mark.parametrize("mode, error, message", [
    ("die", WorkerDied, "exited with code 7.*engine exploded: out of widgets"),
    ("hang", WorkerTimeout, 'did not answer within 1 s .*"op":"mask"'),
    ("wrong-id", WorkerGarbage, "answers request id"),
    ("short-mask", WorkerGarbage, "a mask of 3 bytes for 10 tokens"),
    ("raw-unasked", WorkerGarbage, "raw bytes the request did not ask for"),
    ("raw-cut", WorkerDied, "exited with code 5 before answering"),
    ("raw-hang", WorkerTimeout, 'did not answer within 1 s .*"op":"mask"'),
])
def test_a_worker_that_fails_mid_session(mode, error, message):
    vocab = Vocabulary.from_bytes([b"a"] * 10)
    backend = cmd(FAKE % mode)
    m = open_matcher(Grammar.from_regex("a"), vocab, backend=backend, timeout=1)
    assert m.process.ops == {"hello", "create", "mask", "close", "shutdown"}
    with pytest.raises(error) as e:
        quickly(m.mask)
    assert __import__("re").search(message, str(e.value), __import__("re").S), str(e.value)
    assert m.process.proc.poll() is not None  # the process is gone (exited or killed)
    with pytest.raises(WorkerDied, match="is not running"):
        quickly(m.mask)
    with pytest.raises(WorkerUnsupported, match="does not implement 'consume'"):
        m.consume(0)
    # the next matcher of the same command gets a fresh process
    m2 = open_matcher(Grammar.from_regex("a"), vocab, backend=backend, timeout=1)
    assert m2.process is not m.process and m2.process.dead is None
    m2.process.close()


def test_a_consume_not_waited_for_is_checked_at_the_next_call():
    """With trust_masks, a consume of a token the last mask allowed returns True at once;
    a worker that then refuses it (its masks and consumes disagree) is garbage at the next
    call. Without, the consume waits and returns the refusal."""
    vocab = Vocabulary.from_bytes([b"a"] * 10)
    backend = cmd(FAKE % "refuse")
    with open_matcher(Grammar.from_regex("a"), vocab, backend=backend, timeout=5) as m:
        assert not m.trust_masks and len(m.mask()) == 10
        assert m.consume(3) is False
    m = open_matcher(Grammar.from_regex("a"), vocab, backend=backend, timeout=5, trust_masks=True)
    assert len(m.mask()) == 10 and m.consume(3) is True
    with pytest.raises(WorkerGarbage, match="refused token 3, which its mask allowed"):
        quickly(m.mask)
    assert m.process.dead is not None


def test_a_hanging_create_with_a_large_vocabulary_times_out():
    """The request (megabytes of inline tokens) is written by a helper thread, so a worker
    that stops reading cannot block the caller past the deadline either."""
    vocab = Vocabulary.from_bytes([b"%06d" % i for i in range(200_000)])
    with pytest.raises(WorkerTimeout, match="within 1 s"):
        quickly(open_matcher, Grammar.from_regex("a"), vocab, backend=cmd(FAKE % "hang-create"), create_timeout=1)


def test_a_worker_error_reply_without_a_type_is_a_remote_error():
    backend = cmd("""
        import json, sys
        for line in sys.stdin:
            req = json.loads(line)
            if req["op"] == "hello":
                print(json.dumps({"ok": True, "id": req["id"], "protocol": 1, "ops": ["hello", "create"]}), flush=True)
            else:
                print(json.dumps({"ok": False, "id": req["id"], "error": {"message": "no such thing"}}), flush=True)
    """)
    with pytest.raises(WorkerRemoteError, match="no such thing"):
        open_matcher(Grammar.from_regex("a"), small_vocab(), backend=backend)


# -- under PyPy -----------------------------------------------------------------------------

PYPY_REASON = pypy.unavailable_reason()


@pytest.mark.skipif(PYPY_REASON is not None, reason=str(PYPY_REASON))
def test_pypy_backend_masks_equal_the_matcher(gpt2):
    vocab = small_vocab()
    for g in grammars():
        with open_matcher(g, vocab, backend="pypy") as m:
            assert "PyPy" in m.engine["implementation"]
            walk_both(m, Matcher(g, vocab), random.Random(5), 10)
    g = Grammar.from_lark(LARK)
    with open_matcher(g, gpt2, backend="pypy") as m:
        walk_both(m, Matcher(g, gpt2), random.Random(6), 6)
    with pytest.raises(GrammarError):
        open_matcher(_Source("lark", "start: (\n"), gpt2, backend="pypy")


def test_pypy_unavailable_names_the_reason(monkeypatch, tmp_path):
    """The reason follows the environment of each call, whatever was asked before (it was
    once cached by executable: a "not found on PATH" computed first, e.g. where pypy3 is
    not installed, then hid the reason naming $MASKREF_PYPY)."""
    monkeypatch.delenv("MASKREF_PYPY", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert pypy.unavailable_reason().startswith("pypy: pypy3 not found on PATH")
    monkeypatch.setenv("MASKREF_PYPY", "/nonexistent/pypy3")
    reason = pypy.unavailable_reason()
    assert reason.startswith("pypy: MASKREF_PYPY=/nonexistent/pypy3")
    with pytest.raises(WorkerError, match="backend 'pypy' is not available"):
        open_matcher(Grammar.from_regex("a"), small_vocab(), backend="pypy")
