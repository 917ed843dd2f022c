"""Captures: the text each capturing rule matched (llguidance's `capture` option).

A Lark rule written `name[capture]: ...` (or `name[capture="label"]: ...`) captures the
text it matches; `stop_capture="label"` captures the text of its `stop=` or `suffix=`.
`captures(grammar, steps)` lists (name, text) pairs for an input, as llguidance's
`LLMatcher.get_captures()` does (docs/lark.md, "Captures"):

* a capture is reported when its rule completes over lexemes that have *ended*: a lexeme
  ends at the first byte it cannot take, at the end of the output (EOS), or at once when
  no byte can extend it (a literal, a lazy lexeme). So `x[capture]: /[a-z]+/` is reported
  only once the next byte, or EOS, shows that the word is over;
* every completion counts, in the order the Earley rows are built: each level of a
  recursive rule, and also an alternative that later input rules out (a capture is never
  taken back); a rule that may match nothing gives b"" where it is predicted, before any
  longer match (`x[capture]: "c"?` on "c": ("x", b""), then ("x", b"c"));
* the text runs from the end of the lexeme before the rule to the end of its last lexeme:
  the %ignore text before its first lexeme is in it, a special token read by id gives its
  bytes, and the stop of a `stop=`/`suffix=` lexeme is not in it (its stop_capture has it);
* a pair equal to the latest pair of the same name is left out (llguidance's rule).

The captures are a function of the input: those of a prefix are a prefix of them, and a
rollback takes back the captures of the input it undoes (llguidance keeps them).

How: the grammar as its frontend built it (simplify inlines and merges rules, and so the
capturing rules) is compiled once per Grammar, and the input is replayed on a recogniser
of it without Leo items (Leo skips the completions in between); the items of each Earley
row, in the order they were added, are the completions. Grammars without captures
(every JSON schema, regex, GBNF or EBNF grammar) cost nothing: no replay.

>>> from refimpl import Grammar
>>> g = Grammar.from_lark('start: (word " ")* word\\nword[capture]: /[a-z]+/')
>>> captures(g, b"hi there")          # "there" may go on
[('word', b'hi')]
>>> captures(g, b"hi there", ended=True)
[('word', b'hi'), ('word', b'there')]
"""
from __future__ import annotations

import weakref
from typing import Dict, List, Optional, Sequence, Tuple, Union

from ..errors import MaskrefError
from ..frontends.grammar import Grammar
from ..grammar.ir import COMPLETE, GrammarIR
from ..grammar.simplify import productive_nonterminals
from ..recognition.lexer import DEAD
from ..recognition.recognizer import Recognizer
from ..regex import derivative
from ..tokens.special import TokenBinding
from ..tokens.vocab import Vocabulary
from ..trace import Tracer
from .reading import BY_ID, BYTES, ENDS_LEXEME, ENDS_OUTPUT, Reading

#: one capture: its name and the text it matched
Capture = Tuple[str, bytes]

#: what was consumed, step by step: bytes, or a token id (read as the Matcher reads it)
Steps = Union[bytes, Sequence[Union[bytes, int]]]


class CaptureError(MaskrefError, ValueError):
    """The input of `captures` is not one the grammar accepts (so nothing was captured)."""


class CaptureGrammar:
    """A grammar as its frontend built it, compiled for the replay, with its capture
    options by nonterminal and its stop lexemes' (body, stop) expressions."""

    def __init__(self, ir: GrammarIR) -> None:
        pruned = _productive_rules(ir)
        self.compiled = pruned.compile()
        self.es = ir.es
        self.captures = dict(ir.captures)
        self.stops = dict(ir.stops)
        #: the capturing nonterminals that may match nothing (b"" where predicted)
        nullable = self.compiled.nullable
        self.empty = {nt: names[0] for nt, names in self.captures.items() if names[0] is not None and nullable[nt]}
        #: a lexeme with a token budget: where it ends depends on token boundaries (the
        #: Matcher's), which the replay does not keep
        self.budgets = any(lx.max_tokens is not None for lx in ir.lexemes)


_GRAMMARS: "weakref.WeakKeyDictionary[Grammar, Optional[CaptureGrammar]]" = weakref.WeakKeyDictionary()


def capture_grammar(grammar: Grammar) -> Optional[CaptureGrammar]:
    """The CaptureGrammar of `grammar` (made once, kept while the grammar lives), or None
    when it captures nothing."""
    if grammar in _GRAMMARS:
        return _GRAMMARS[grammar]
    result = None
    if any("capture" in m or "stop_capture" in m for m in grammar.ir.metadata.values()):
        ir = _frontend_ir(grammar)
        result = CaptureGrammar(ir) if ir is not None and ir.captures else None
    _GRAMMARS[grammar] = result
    return result


def _frontend_ir(grammar: Grammar) -> Optional[GrammarIR]:
    """The GrammarIR the frontend built, read again from the grammar's source (only Lark
    and llguidance's grammar objects have captures)."""
    from ..frontends.lark import lark_to_ir, top_level_to_ir

    if grammar.kind == "lark":
        return lark_to_ir(grammar.source, limits=grammar.limits)
    if grammar.kind == "llguidance":
        return top_level_to_ir(grammar.source, grammar.limits)
    return None


def _productive_rules(ir: GrammarIR) -> GrammarIR:
    """`ir` without the rules that use an unproductive nonterminal, its numbering kept:
    as the Matcher's grammar (simplify removes them first), the replay's lexer never sees
    a lexeme that can only lead into a dead end."""
    productive = productive_nonterminals(ir.rules, [False] * len(ir.names))
    if all(productive):
        return ir
    kept = GrammarIR(ir.es, ir.limits)
    kept.copy_options(ir)
    kept.lexemes, kept.names, kept.start = list(ir.lexemes), list(ir.names), ir.start
    kept.rules = [(lhs, rhs) for lhs, rhs in ir.rules if all(s < 0 or productive[s] for s in rhs)]
    return kept


def captures(grammar: Grammar, steps: Steps, vocab: Optional[Vocabulary] = None, *,
             ended: bool = False) -> List[Capture]:
    """The captures of `grammar` after the input `steps`: bytes, or a list of bytes and
    token ids of `vocab` (each read as the Matcher reads it: by id, as EOS, or as its
    bytes); `ended`: the output has ended there (as after EOS).

    Raises CaptureError when the grammar refuses the input, or has `max_tokens=` budgets
    (not supported: a budget may end a lexeme between two tokens, which bytes do not show).
    """
    cg = capture_grammar(grammar)
    if cg is None:
        return []
    if cg.budgets:
        raise CaptureError("captures of a grammar with max_tokens= budgets are not supported")
    replay = _Replay(cg, grammar, vocab)
    for step in [steps] if isinstance(steps, bytes) else steps:
        if isinstance(step, int):
            replay.token(step)
        else:
            replay.text(step)
    replay.end(ended)
    return replay.captures()


class _Row:
    """Where a real Earley row's lexeme lies in the text: the row's text begins at the
    end of the row before (so the %ignore text before the lexeme is in it), the lexeme
    itself at `lexeme_start`; the scanned `lexemes` (a bit mask)."""

    __slots__ = ("start", "lexeme_start", "end", "lexemes")

    def __init__(self, start: int, lexeme_start: int, end: int, lexemes: int) -> None:
        self.start, self.lexeme_start, self.end, self.lexemes = start, lexeme_start, end, lexemes


class _Replay(Tracer):
    """The input replayed on a recogniser of the capture grammar; as its tracer, it hears
    each lexeme scanned and notes where the lexeme ended in the text."""

    def __init__(self, cg: CaptureGrammar, grammar: Grammar, vocab: Optional[Vocabulary]) -> None:
        super().__init__()
        self.cg = cg
        self.rec = Recognizer(cg.compiled, grammar.limits, leo=False)
        self.rec.tracer = self
        self.lexer = self.rec.lexer
        self.vocab = vocab
        self.binding = TokenBinding(cg.compiled, vocab) if vocab is not None else None
        self.out = bytearray()  # the text so far (a token read by id: its bytes)
        self.width = 0  # the bytes of the step being read: 1, a token's, 0 when ending
        self.rows: Dict[int, _Row] = {}  # real rows (not an %ignore's copy), by index
        self.last_row_end = 0
        self.last_end = 0  # where the last lexeme (or %ignore) ended
        self.done = False

    # -- the tracer's events ---------------------------------------------------------------

    def byte_consumed(self, byte: int, before: int, after: int, top: int, new_top: int) -> None:
        pass  # the events are not kept

    def lexeme_scanned(self, lexemes: int, top: int, new_top: int, reused: bool) -> None:
        """A lazy lexeme or a token ends with the step being read, others just before it."""
        end = len(self.out) + (self.width if lexemes & (self.lexer.lazy_mask | self.lexer.token_mask) else 0)
        if not lexemes & self.lexer.skip_mask:
            self.rows[top] = _Row(self.last_row_end, self.last_end, end, lexemes)
            self.last_row_end = end
        self.last_end = end

    # -- the input -------------------------------------------------------------------------

    def text(self, data: bytes) -> None:
        self.width = 1
        for b in data:
            if self.done or not self.rec.consume_byte(b):
                raise CaptureError("the grammar refuses byte %d (%r) after %r" % (b, bytes([b]), bytes(self.out)))
            self.out.append(b)

    def token(self, t: int) -> None:
        if self.vocab is None or self.done:
            raise CaptureError("token %d: token ids need a vocabulary (and no EOS before them)" % t)
        self.rec.tracer = None  # how the token is read: a query, whose scans are not the input's
        how = Reading(self.rec, self.binding, self.vocab).how(t)
        self.rec.tracer = self
        if how == BYTES:
            self.text(self.vocab.tokens[t])
            return
        self.width = len(self.vocab.tokens[t])
        if how == BY_ID and self.binding is not None:
            ok = self.rec.consume_token(self.binding.lexemes_with(t))
            self.out += self.vocab.tokens[t]
        elif how == ENDS_LEXEME:
            ok = self.rec.end_lexeme()
        elif how == ENDS_OUTPUT:
            ok, self.done = True, True
        else:
            ok = False
        if not ok:
            raise CaptureError("the grammar refuses token %d after %r" % (t, bytes(self.out)))

    def end(self, ended: bool) -> None:
        """End the pending lexeme where the output ends, or where no byte can extend it."""
        self.width = 0
        rec, lexer = self.rec, self.lexer
        state = rec.state
        if lexer.is_fresh(state):
            return
        if ended or self.done or all(lexer.step(state, b) == DEAD for b in range(256)):
            rec.end_lexeme()

    # -- reading the rows ------------------------------------------------------------------

    def captures(self) -> List[Capture]:
        """Every capture the rows hold, in order, each left out when equal to the latest
        one of its name."""
        out: List[Capture] = []
        latest: Dict[str, bytes] = {}
        for name, text in self._all():
            if latest.get(name) != text:
                latest[name] = text
                out.append((name, text))
        return out

    def _all(self) -> List[Capture]:
        g = self.rec.grammar
        parser = self.rec.parser
        shift, mask = parser.shift, parser.mask
        found: List[Capture] = []
        seen = bytearray()  # the visible text of the rows so far
        upto = {0: 0}  # real row -> len(seen) after it
        for j in range(self.rec.top):
            hidden = b""
            if j:
                if j not in self.rows:
                    continue  # a copy of the row below (an %ignore matched once): no new item
                text, hidden = self._split(self.rows[j])
                seen += text
                upto[j] = len(seen)
            for item in parser.rows[j].items:
                pos = item & mask
                sym = g.dot_symbol[pos]
                if sym == COMPLETE:
                    origin = item >> shift
                    names = self.cg.captures.get(g.lhs[pos])
                    if names is None or origin == j:
                        continue  # not a capture; an empty match, found where predicted
                    if names[1] is not None:
                        found.append((names[1], hidden))
                    if names[0] is not None:
                        found.append((names[0], bytes(seen[upto[origin]:])))
                elif sym in self.cg.empty:
                    found.append((self.cg.empty[sym], b""))
        return found

    def _split(self, row: _Row) -> Tuple[bytes, bytes]:
        """A row's text, and the stop its lexeme hides (b"" unless a stop=/suffix= lexeme):
        the shortest suffix of the lexeme that its stop matches, the rest its body."""
        text = bytes(self.out[row.start:row.end])
        for i, stop in self.cg.stops.items():
            if row.lexemes >> i & 1:
                body_expr, stop_expr = stop
                lexeme = bytes(self.out[row.lexeme_start:row.end])
                for p in range(len(lexeme), -1, -1):
                    if self._matches(stop_expr, lexeme[p:]) and self._matches(body_expr, lexeme[:p]):
                        cut = len(text) - (len(lexeme) - p)
                        return text[:cut], text[cut:]
        return text, b""

    def _matches(self, expr: int, data: bytes) -> bool:
        es = self.cg.es
        for b in data:
            expr = derivative(es, expr, b)
        return es.nullable(expr)
