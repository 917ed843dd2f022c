"""A mask, step by step: what the engine did at each token, read from its tracing hook.

`explain(grammar, vocab, text=...)` runs a Matcher with a Tracer (refimpl/trace.py) over
a prefix, token by token, and keeps for each step (step 0 is the start, before any token):

- the token consumed and the text so far;
- per byte of the token, the lexer state before and after it as (lexeme, regex) pairs
  (the derivatives, printed by regex/printer.py), and the lexemes the byte made end;
- the part of the lazy lexer DFA built so far (states, transitions by byte class);
- the live Earley rows as items [A → α • β, i], their Leo (transitive) items, and
  which rows were reused (built before, by a walk, for the same lexeme);
- the mask: tokens allowed, EOS, a sample, and the walk's counts (nodes walked, subtrees
  skipped — by byte — and taken whole, lexemes scanned, rows built and reused, restarts,
  slices applied);
- why some refused tokens are refused: the trie subtree the walk skipped on their path
  gives the byte, the lexer state there and the reason;
- the forced bytes and tokens.

Everything here reads the engine's events and tables; nothing recomputes a mask.

>>> from refimpl import Grammar, Vocabulary
>>> vocab = Vocabulary.from_bytes([b"1", b"2", b"12", b".", b".5", b"x"], eos_token_id=None)
>>> ex = explain(Grammar.from_regex("[0-9]+(\\\\.[0-9]+)?"), vocab, text="12.", why=["x"])
>>> [(s.token_text, s.text, s.allowed) for s in ex.steps]
[(None, '', 3), ('12', '12', 5), ('.', '12.', 3)]
>>> ex.steps[2].refusals[0].why
'no lexeme reads the byte, and none may end before it'
"""
from __future__ import annotations

import builtins
import json
import operator
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from ..errors import VocabularyError
from ..frontends.grammar import Grammar
from ..masks.matcher import Matcher
from ..recognition.lexer import DEAD, GREEDY_ENDS, LAZY_ENDS
from ..tokens.vocab import Vocabulary
from ..trace import Consumed, MaskTrace, Scanned, Skipped, Tracer
from .names import of as display_names

SAMPLE = 12  # allowed tokens shown per step
REFUSALS = 8  # refused tokens explained per step, besides those asked for
DFA_STATES = 24  # lexer states drawn at most


def show(data: bytes) -> str:
    """A token's bytes as readable text (invalid UTF-8 as \\x escapes)."""
    return data.decode("utf-8", "backslashreplace")


def show_byte(b: int) -> str:
    return chr(b) if 0x21 <= b < 0x7F else "␠" if b == 0x20 else "\\x%02x" % b


@dataclass
class ByteView:
    """One byte of a step's token through the lexer (and the parser where lexemes end)."""

    byte: str
    before: List[Tuple[str, str]]  # the lexer state before it: (lexeme, regex) pairs
    after: List[Tuple[str, str]]
    after_state: int
    scanned: List[str]  # lexemes ended, as "NAME → row j (built|reused)"


@dataclass
class RowView:
    """A live Earley row."""

    index: int
    items: List[str]
    leo: List[str]  # "B: [A → α B •, i]", the row's transitive items
    accepting: bool
    reused: bool  # pushed by reusing a row built before (by a walk, or an earlier path)
    children: List[str]  # the rows the last walk pushed on it, by lexeme


@dataclass
class DfaView:
    """The lazy lexer DFA as built so far (at most DFA_STATES states drawn)."""

    states: List[Tuple[int, str, bool, bool]]  # (id, lexemes, accepting, start)
    edges: List[Tuple[int, int, str]]  # (from, to, byte class)
    current: int
    total_states: int
    transitions: int  # computed so far (dead ones included)
    edge_bytes: List[Tuple[int, int, Tuple[int, ...]]] = field(default_factory=list)  # the edges' bytes


@dataclass
class WalkView:
    """What the trie walk of the step's mask did."""

    nodes: int
    trie_nodes: int
    skipped: int  # subtrees skipped
    skipped_by_byte: List[Tuple[str, int]]  # most frequent first
    skipped_by_reason: List[Tuple[str, int]]
    whole: int  # subtrees taken whole
    scans: int  # lexemes scanned by advance/restart
    rows_built: int
    rows_reused: int
    restarts: int
    slices: List[str]  # patterns of the slices applied whole
    cached: bool


@dataclass
class Refusal:
    """Why a token is refused: after `offset` of its bytes, the byte where it died."""

    token: int
    text: str
    offset: int
    byte: str
    state: List[Tuple[str, str]]
    why: str


@dataclass
class StepView:
    index: int
    token: Optional[int]
    token_text: Optional[str]
    text: str
    bytes: List[ByteView]
    lexer: List[Tuple[str, str]]
    lexer_state: int
    dfa: DfaView
    rows: List[RowView]
    allowed: int
    vocab_size: int
    flags: builtins.bytes  # the mask: one 0/1 byte per token id (`bytes` is a field here)
    eos: bool
    sample: List[Tuple[int, str]]
    walk: WalkView
    refusals: List[Refusal]
    forced_bytes: str
    forced_tokens: List[Tuple[int, str]]


@dataclass
class Explanation:
    grammar: Grammar
    vocab: Vocabulary
    matcher: Matcher  # after the last step
    steps: List[StepView] = field(default_factory=list)
    traces: List[MaskTrace] = field(default_factory=list)  # each step's mask, as traced
    stopped: str = ""  # why the prefix was not consumed to its end ("" if it was)


def explain(
    grammar: Grammar,
    vocab: Vocabulary,
    text: str = "",
    tokens: Sequence[int] = (),
    why: Sequence[Union[str, int]] = (),
) -> Explanation:
    """Steps through `tokens`, or through `text` split into the longest allowed token at
    each step (as a model restricted to the mask might), and explains each mask. `why`:
    tokens (ids or exact texts) whose refusal to explain wherever they are refused."""
    m = Matcher(grammar, vocab)
    tracer = m.tracer = Tracer()
    asked = [token_id(vocab, w) for w in why]
    out = Explanation(grammar, vocab, m)
    data = text.encode("utf-8")
    done = b""
    reused_rows: Dict[int, bool] = {0: False}
    pending: List[int] = [token_id(vocab, t) for t in tokens]
    token: Optional[int] = None
    consumed: List[Consumed] = []
    if grammar.is_empty:  # every mask is empty: the one step shows it
        out.stopped = "the grammar's language is empty: no text matches it"
    while True:
        mask = m.mask()
        out.traces.append(tracer.masks[-1])
        out.steps.append(_step(m, tracer.masks[-1], len(out.steps), token, done, consumed, reused_rows, asked, mask.flags))
        if out.stopped:
            break
        if tokens:
            if not pending:
                break
            token = pending.pop(0)
            if not mask.flags[token]:
                out.stopped = "token %d (%r) is not allowed after step %d" % (
                    token, show(vocab.tokens[token]), len(out.steps) - 1)
                break
        else:
            if len(done) >= len(data):
                break
            token = _longest_allowed(m, mask.flags, data[len(done):])
            if token is None:
                out.stopped = "no allowed token begins %r" % show(data[len(done):len(done) + 20])
                break
        n = len(tracer.consumed)
        tracer.scans = []  # those of queries since (forced bytes, EOS): not of this token
        m.consume(token)
        consumed = tracer.consumed[n:]
        for event in consumed:
            for scan in event.scans:
                if scan.new_top != scan.top:  # a row was pushed (not an %ignore without one)
                    reused_rows[scan.new_top - 1] = scan.reused
        done += vocab.tokens[token] if vocab.is_grammar_token(token) else b""
    return out


_RULE = re.compile(r"\s*[?!]?[A-Za-z_][\w.-]*(?:\[[^\]\n]*\])?(?:\{[^}\n]*\})?\s*(?:::=|:(?!:))")


def grammar_summary(grammar: Grammar, width: int = 90) -> str:
    """The grammar in one line: a regex itself; a grammar's first rule (Lark's `name:`, a
    BNF's `name ::=`: not a comment or a directive); a schema's type and properties.

    >>> grammar_summary(Grammar.from_lark('// numbers\\n%ignore " "\\nstart: N+\\nN: /[0-9]/'))
    'start: N+'
    >>> grammar_summary(Grammar.from_json_schema({"title": "P", "properties": {"a": {}, "b": {}}}))
    "JSON schema 'P': properties a, b"
    """
    source = grammar.source
    if grammar.kind == "regex":
        line = source
    elif grammar.kind == "json_schema":
        line = _schema_summary(source)
    else:
        lines = [x.strip() for x in source.splitlines() if x.strip()]
        line = next((x for x in lines if _RULE.match(x)), lines[0] if lines else "")
    return line if len(line) <= width else line[:width - 1] + "…"


def _schema_summary(source: str) -> str:
    try:
        schema = json.loads(source)
    except ValueError:
        return " ".join(source.split())
    if not isinstance(schema, dict):
        return "JSON schema %s" % source
    out = "JSON schema"
    if isinstance(schema.get("title"), str):
        out += " %r" % schema["title"]
    kind = schema.get("type")
    if isinstance(kind, str):
        out += ": %s" % kind
    properties = schema.get("properties")
    if isinstance(properties, dict) and properties:
        out += "%s properties %s" % (" with" if isinstance(kind, str) else ":", ", ".join(properties))
    return out


def token_id(vocab: Vocabulary, w: Union[str, int]) -> int:
    """A token of `vocab` given by its id or its exact text; VocabularyError if none."""
    if not isinstance(w, str):
        t = operator.index(w)  # an int, or a numpy integer
        if not 0 <= t < len(vocab):
            raise VocabularyError("token id %d is not in the vocabulary (ids 0 to %d)" % (t, len(vocab) - 1))
        return t
    data = w.encode("utf-8")
    for t, tok in enumerate(vocab.tokens):
        if tok == data and vocab.is_grammar_token(t):
            return t
    raise VocabularyError("no token of the vocabulary is %r" % w)


def _longest_allowed(m: Matcher, flags: bytearray, rest: bytes) -> Optional[int]:
    """The longest allowed token that `rest` begins with (the lowest id among equals)."""
    trie = m.trie
    node, best = 0, None
    for b in rest:
        node = trie.child(node, b)
        if node < 0:
            break
        ok = [t for t in trie.tokens_at(node) if flags[t]]
        if ok:
            best = min(ok)
    return best


def _step(m: Matcher, trace: MaskTrace, index: int, token: Optional[int], text: bytes, consumed: List[Consumed],
          reused_rows: Dict[int, bool], asked: List[int], flags: bytearray) -> StepView:
    rec, vocab = m.recognizer, m.vocab
    allowed = [t for t in range(len(flags)) if flags[t]]
    stride = max(1, len(allowed) // SAMPLE)
    forced = m.forced_bytes()
    return StepView(
        index=index,
        token=token,
        token_text=None if token is None else show(vocab.tokens[token]),
        text=show(text),
        bytes=[_byte_view(m, e) for e in consumed],
        lexer=pairs(m, rec.state),
        lexer_state=rec.state,
        dfa=dfa_view(m, DFA_STATES),
        rows=_rows(m, reused_rows, trace.scans),
        allowed=len(allowed),
        vocab_size=len(flags),
        flags=bytes(flags),
        eos=any(flags[t] for t in vocab.eos_token_ids),
        sample=[(t, show(vocab.tokens[t])) for t in allowed[::stride][:SAMPLE]],
        walk=_walk_view(m, trace),
        refusals=_refusals(m, trace, flags, asked),
        forced_bytes=show(forced),
        forced_tokens=[(t, show(vocab.tokens[t])) for t in m.forced_tokens()],
    )


def pairs(m: Matcher, state: int, width: int = 300) -> List[Tuple[str, str]]:
    """A lexer state's (lexeme, regex) pairs, the lexemes by their readable names (names.py);
    none for the dead state."""
    if state == DEAD:
        return []
    rename = display_names(m.grammar)
    return [(rename(name), regex) for name, regex in m.recognizer.lexer.pairs(state, width)]


def _names(m: Matcher, lexemes: int) -> str:
    lexer, rename = m.recognizer.lexer, display_names(m.grammar)
    return "|".join(rename(lexer.names[i]) for i in range(len(lexer.names)) if lexemes >> i & 1)


def _scan_text(m: Matcher, scan: Scanned) -> str:
    names = _names(m, scan.lexemes)
    if scan.new_top == scan.top:
        return "%s (ignored: no row)" % names
    return "%s → row %d (%s)" % (names, scan.new_top - 1, "reused" if scan.reused else "built")


def _byte_view(m: Matcher, e: Consumed) -> ByteView:
    return ByteView(
        byte=show_byte(e.byte),
        before=pairs(m, e.before),
        after=pairs(m, e.after),
        after_state=e.after,
        scanned=[_scan_text(m, s) for s in e.scans],
    )


def _rows(m: Matcher, reused_rows: Dict[int, bool], scans: List[Scanned]) -> List[RowView]:
    parser = m.recognizer.parser
    symbols = parser.g.names
    rename = display_names(m.grammar)
    counts: Dict[int, Dict[str, List[int]]] = {}  # row -> lexemes -> [built, reused]
    for s in scans:
        if s.new_top != s.top:
            names = _names(m, s.lexemes)
            counts.setdefault(s.top - 1, {}).setdefault(names, [0, 0])[s.reused] += 1
    children = {j: ["%s → row %d: built %d, reused %d" % (names, j + 1, b, r) for names, (b, r) in sorted(c.items())]
                for j, c in counts.items()}
    rows = []
    for j in range(m.recognizer.top):
        row = parser.rows[j]
        leo = ["%s: %s" % (rename(symbols[sym]), parser.item_to_string(item, rename))
               for sym, item in sorted(row.leo.items()) if item is not None]
        rows.append(RowView(j, [parser.item_to_string(i, rename) for i in row.items], leo, row.accepting,
                            reused_rows.get(j, False), children.get(j, [])))
    return rows


def dfa_view(m: Matcher, limit: int) -> DfaView:
    """The lexer's lazy DFA as built so far: its first `limit` states (and the current
    one), their transitions to each other by byte class; the dead state is left out."""
    lexer = m.recognizer.lexer
    current = m.recognizer.state
    n = len(lexer.states)
    shown = list(range(1, min(n, limit + 1)))
    if current > 0 and current not in shown:
        shown[-1] = current
    states = []
    for s in shown:
        fresh, _ = lexer.states[s]
        label = ", ".join(name for name, _ in pairs(m, s, 40)) or "(nothing)"
        states.append((s, label, bool(lexer.ends[s] & (GREEDY_ENDS | LAZY_ENDS)), bool(fresh)))
    on = set(shown)
    edges: List[Tuple[int, int, Tuple[int, ...]]] = []
    table = lexer.table
    known = 0
    for s in range(1, n):
        by_target: Dict[int, List[int]] = {}
        for b in range(256):
            t = table[s << 8 | b]
            if t >= 0:
                known += 1
                if t > 0 and s in on and t in on:
                    by_target.setdefault(t, []).append(b)
        edges.extend((s, t, tuple(bs)) for t, bs in sorted(by_target.items()))
    return DfaView(states, [(a, b, byte_class(bs)) for a, b, bs in edges], current, n - 1, known, edges)


def byte_class(bs: Sequence[int], name: Callable[[int], str] = show_byte) -> str:
    """Sorted bytes as a character class: [0-9a-f], or one byte alone; each byte written
    by `name`."""
    runs: List[List[int]] = []
    for b in bs:
        if runs and runs[-1][1] == b - 1:
            runs[-1][1] = b
        else:
            runs.append([b, b])
    parts = [name(a) if a == z else "%s-%s" % (name(a), name(z)) for a, z in runs]
    return parts[0] if len(parts) == 1 and runs[0][0] == runs[0][1] else "[%s]" % "".join(parts)


def _walk_view(m: Matcher, trace: MaskTrace) -> WalkView:
    by_byte: Dict[str, int] = {}
    by_reason: Dict[str, int] = {}
    for s in trace.skips:
        by_byte[show_byte(s.byte)] = by_byte.get(show_byte(s.byte), 0) + 1
        by_reason[s.why] = by_reason.get(s.why, 0) + 1
    return WalkView(
        nodes=trace.nodes,
        trie_nodes=len(m.trie),
        skipped=len(trace.skips),
        skipped_by_byte=sorted(by_byte.items(), key=lambda kv: (-kv[1], kv[0])),
        skipped_by_reason=sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0])),
        whole=len(trace.wholes),
        scans=len(trace.scans),
        rows_built=sum(not s.reused for s in trace.scans if s.new_top != s.top),
        rows_reused=sum(s.reused for s in trace.scans),
        restarts=trace.restarts,
        slices=list(trace.slices),
        cached=trace.cached,
    )


def death(m: Matcher, trace: MaskTrace, token: int) -> Optional[Tuple[int, Skipped]]:
    """Where the walk refused a token: (bytes of it read before, the skip event) for the
    subtree skipped on its path, or None where no skip covers it (it is allowed, special,
    or was taken with a slice)."""
    data = m.vocab.tokens[token]
    skips = {(s.trie, s.node): s for s in trace.skips}
    for k, trie in enumerate(trace.tries):
        node = 0
        path = []
        for b in data:
            node = trie.child(node, b)  # type: ignore[attr-defined]
            if node < 0:
                break
            path.append(node)
        else:
            if token not in trie.tokens_at(node):  # type: ignore[attr-defined]
                continue
            for offset, n in enumerate(path):
                s = skips.get((k, n))
                if s is not None:
                    return offset, s
    return None


def _refusals(m: Matcher, trace: MaskTrace, flags: bytearray, asked: List[int]) -> List[Refusal]:
    """The refusals of the tokens asked for, then of a few near misses: refused tokens
    whose first byte some allowed token also begins with."""
    vocab = m.vocab
    firsts = {vocab.tokens[t][:1] for t in range(len(flags)) if flags[t] and vocab.is_grammar_token(t)}
    near = [t for t in range(len(flags)) if not flags[t] and vocab.is_grammar_token(t)
            and vocab.tokens[t][:1] in firsts and t not in asked]
    stride = max(1, len(near) // REFUSALS)
    found = (refusal(m, trace, t) for t in [t for t in asked if not flags[t]] + near[::stride][:REFUSALS])
    return [f for f in found if f is not None]


def refusal(m: Matcher, trace: MaskTrace, token: int) -> Optional[Refusal]:
    """Why the mask traced as `trace` refuses `token`: EOS or a special token, so; any
    other, where the walk skipped it (`death`). None where no walk event covers it (it is
    allowed, or the mask cache answered)."""
    vocab = m.vocab
    if not vocab.is_grammar_token(token):
        why = ("EOS: the input may not end here" if token in vocab.eos_token_ids
               else "a special token: read by id, and no token lexeme may take it here")
        return Refusal(token, show(vocab.tokens[token]), 0, "", [], why)
    found = death(m, trace, token)
    if found is None:
        return None
    offset, s = found
    return Refusal(token, show(vocab.tokens[token]), offset, show_byte(s.byte), pairs(m, s.state), s.why)
