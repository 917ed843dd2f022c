"""The Matcher: token masks, consumption and rollback for one generation.

    m = Matcher(Grammar.from_regex("[0-9]+"), Vocabulary.load("gpt2"))
    m.mask()              the tokens allowed next (EOS iff the input may end here)
    m.consume(token)      False, and no change, when the token is not allowed
    m.rollback(n)         undo the last n consumed tokens
    m.clone(), m.reset()  an independent copy in the same state; back to the start
    m.is_stopped()        EOS was consumed, or no token at all is allowed (`stop_reason`)

The lifecycle and every method: docs/matcher.md. The state is the recogniser's (lexer
state, top); the mask is computed by the backend's trie walk (masks/walk.py), and is
always the full allowed set: no forcing shortcuts (docs/semantics.md). Forced bytes and
tokens are separate queries.

Tokens are read as the grammar asks, by the one rule of reading.py: by id where a token
lexeme (`<|eot_id|>`, `<[5-9]>`) may match the token here; otherwise EOS ends a `stop=""`
lexeme, or the output; otherwise a token is its bytes. Token budgets (`max_tokens=`) are
kept here, since only the Matcher sees where tokens begin.

>>> from refimpl import Grammar, Vocabulary
>>> m = Matcher(Grammar.from_regex("(yes|no)!"), Vocabulary.from_bytes([b"y", b"yes", b"no!", b"!", b"es"], eos_token_id=0))
>>> m.mask().allowed()            # token 0 is EOS: special, and the input may not end yet
[1, 2]
>>> m.consume(1), m.mask().allowed(), m.forced_bytes()
(True, [3], b'!')
>>> m.consume(3), m.mask().allowed(), m.is_accepting()
(True, [0], True)
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, Protocol, Sequence, Tuple

from ..errors import MaskrefError
from ..frontends.grammar import Grammar
from ..html import STYLE, escape, items, table
from ..limits import Limits
from ..recognition.earley import Closure
from ..recognition.lexer import DEAD
from ..recognition.recognizer import Recognizer
from ..tokens.special import TokenBinding
from ..tokens.trie import TokenTrie
from ..tokens.vocab import Vocabulary
from ..trace import Tracer
from .captures import Capture, captures
from .index import TokenIndex, shared_index
from .mask import Mask
from .maskcache import MaskCache
from .reading import BY_ID, BYTES, ENDS_LEXEME, ENDS_OUTPUT, REFUSED, Reading, eos_reading, token_lexemes
from .slicer import Plan, SliceOracle, Slicer, default_slices
from .walk import walk


class Step(NamedTuple):
    """A consumed step, as `rollback` undoes it."""

    token_id: Optional[int]  # None for consume_bytes
    before: int  # the recogniser's steps before it
    lexeme_tokens: int  # the pending lexeme's token count before it (token budgets)
    data: bytes = b""  # the bytes of a consume_bytes call (captures replay them)


FORCED_BYTES_CAP = 100_000

#: `stop_reason` while the matcher is not stopped, and its two reasons (docs/matcher.md)
NOT_STOPPED = ""
STOPPED_BY_EOS = "eos"  # an EOS token was consumed: the output has ended
NO_EXTENSION = "no extension"  # no token at all is allowed here (EOS was not consumed)


class MatcherLike(Protocol):
    """What `open_matcher` returns, whatever the backend: refimpl's Matcher, or a matcher
    whose state lives elsewhere (accel's WorkerMatcher). Semantics: docs/semantics.md."""

    @property
    def backend(self) -> str:
        """The backend's name, as given to open_matcher."""
        ...

    @property
    def vocab(self) -> Vocabulary:
        ...

    @property
    def stats(self) -> Mapping[str, Any]:
        """Counters of the engine (trie nodes walked, lexer states, rows, ...)."""
        ...

    def mask(self) -> Mask:
        """The tokens allowed next (and EOS iff the input may end here)."""
        ...

    def consume(self, token_id: int) -> bool:
        """Consume one token; False (and no change of state) if it is not allowed."""
        ...

    def consume_tokens(self, ids: Iterable[int]) -> bool:
        """Consume all the tokens, or none: False (and no change) if one is refused."""
        ...

    def try_consume_tokens(self, ids: Iterable[int]) -> int:
        """Consume tokens until one is refused; returns how many were consumed."""
        ...

    def validate_tokens(self, ids: Iterable[int]) -> int:
        """How many of the tokens (a prefix) would be consumed; the state is unchanged."""
        ...

    def consume_bytes(self, data: bytes) -> bool:
        """Consume raw bytes (one step for `rollback`); False and no change on failure."""
        ...

    def rollback(self, n_tokens: int) -> None:
        """Undo the last n consumed steps (tokens, EOS, or consume_bytes calls)."""
        ...

    def is_accepting(self) -> bool:
        """May the output end here (is EOS allowed)?"""
        ...

    def is_stopped(self) -> bool:
        """Will no token be consumed here (EOS was consumed, or the mask is empty)?"""
        ...

    @property
    def stop_reason(self) -> str:
        """Why the matcher is stopped: "eos", "no extension", or "" while not stopped."""
        ...

    def reset(self) -> None:
        """Back to the start, as freshly built."""
        ...

    def clone(self) -> Any:
        """An independent matcher in the same state (`copy.copy`, `copy.deepcopy` too)."""
        ...

    def forced_bytes(self) -> bytes:
        """The bytes every continuation must start with (empty where EOS is allowed)."""
        ...

    def forced_tokens(self) -> List[int]:
        """The tokens a tokenizer-agnostic fast-forward would emit now."""
        ...

    def close(self) -> None:
        """Release what the matcher holds (a worker's session); it is not used after."""
        ...

    def __enter__(self) -> Any:
        ...

    def __exit__(self, *exc: Any) -> None:
        ...


class Matcher:
    """One generation's matcher, its masks computed by refimpl's trie walk (masks/walk.py)
    or by another in-process walker with the same signature. Backends are chosen by name
    with `refimpl.open_matcher(grammar, vocab, backend=...)`, which passes the walker and
    the backend's Earley row build (`row_builder`: a faster equal of earley.closure, or
    None); `backend="index"` answers from a token index instead (regular grammars: index/).
    `mask_cache=True` keeps masks by (lexer state, compacted Earley sets): maskcache.py."""

    def __init__(
        self,
        grammar: Grammar,
        vocab: Vocabulary,
        *,
        backend: str = "python",
        walker: Optional[Callable[..., int]] = None,
        row_builder: Optional[Closure] = None,
        limits: Optional[Limits] = None,
        slices: Optional[Sequence[str]] = None,
        index: Optional[TokenIndex] = None,
        mask_cache: bool = False,
    ) -> None:
        if walker is None:
            if backend not in ("python", "index"):
                raise ValueError(
                    "Matcher(..., backend=%r): backends other than 'python' and 'index' are opened by "
                    "name with refimpl.open_matcher(grammar, vocab, backend=%r)" % (backend, backend)
                )
            walker = walk
        #: backend "index": the token index of a regular grammar (index/; NotRegular if it
        #: is not), the grammar's for this vocabulary unless one is given; a mask is then a
        #: lookup of its row
        self.index: Optional[TokenIndex] = None
        if backend == "index":
            self.index = index if index is not None else shared_index(grammar, vocab)
            slices = ()
        self._walk = walker
        self.grammar = grammar
        self.vocab = vocab
        self.backend = backend
        self.recognizer = Recognizer(grammar.compiled, limits or grammar.limits, token_boundaries=True,
                                     row_builder=row_builder)
        self.tokens = TokenBinding(grammar.compiled, vocab)
        self.lexeme_tokens = 0  # tokens that gave bytes to the pending lexeme (for budgets)
        self.trie = vocab.trie
        patterns = default_slices(vocab) if slices is None else tuple(slices)
        self.slicer = Slicer.of(vocab, patterns) if patterns else None
        self._slice_oracle = SliceOracle.of(self.slicer, self.recognizer.lexer) if self.slicer else None
        self._plans: Dict[int, Optional[Plan]] = {}  # lexer state -> the slicer's plan there (`_plan`)
        self.eos_consumed = False  # EOS consumed (stop_reason "eos")
        self._steps: List[Step] = []
        # what the last mask of the current state told (cleared by every move, `_moved`):
        # is it empty (no extension)? and a mask is_stopped() computed, for mask() to return
        self._empty: Optional[bool] = None
        self._pending: Optional[bytearray] = None
        self._last_mask = {"trie_nodes_walked": 0, "slices_applied": 0}  # counts of the last mask
        #: masks by (lexer state, compacted parser state), the grammar's: maskcache.py
        self.cache = MaskCache.of(grammar, vocab, (limits or grammar.limits).mask_cache_bytes) if mask_cache else None

    @property
    def tracer(self) -> Optional[Tracer]:
        """What hears the engine's events (trace.py): the recogniser's bytes and lexemes,
        and each mask's walk; None (the default) is off. Tracing needs refimpl's own walk."""
        return self.recognizer.tracer

    @tracer.setter
    def tracer(self, tracer: Optional[Tracer]) -> None:
        if tracer is not None and self._walk is not walk:
            raise ValueError("tracing needs refimpl's own trie walk (backend 'python'), not %r" % self.backend)
        self.recognizer.tracer = tracer

    # -- masks ----------------------------------------------------------------------------

    def mask(self) -> Mask:
        """The tokens allowed next (and EOS iff the input may end here)."""
        pending, self._pending = self._pending, None
        if pending is not None:  # computed by is_stopped() in this state
            return Mask(pending)
        flags = self._mask_flags()
        self._empty = flags.find(1) < 0
        return Mask(flags)

    def _mask_flags(self) -> bytearray:
        """The flags of `mask()`, computed."""
        n = len(self.vocab)
        walked = applied = 0
        if self.eos_consumed:
            flags = bytearray(n)
        else:
            rec = self.recognizer
            state, top = rec.state, rec.top
            tracer = rec.tracer
            if tracer is not None:
                tracer.mask_started(state, top)
            key = rec.future(state, top) if self.cache is not None else None
            cached = self.cache.get(key) if self.cache is not None else None
            if cached is not None:
                self._last_mask = {"trie_nodes_walked": 0, "slices_applied": 0}
                if tracer is not None:
                    tracer.mask_ended(0, cached=True)
                return bytearray(cached)
            indexed = self._indexed(state) if self.index is not None else None
            if indexed is not None:
                flags = indexed
            else:
                flags, walked, applied = self._walked(state, top, n)
            # the bytes are the walk's; the rest as `Reading.how` reads it
            if self.tokens:
                self.tokens.allow(flags, token_lexemes(rec, self.tokens, state, top))
            if eos_reading(rec, state, top) != REFUSED:
                for t in self.vocab.eos_token_ids:
                    flags[t] = 1
            if self.cache is not None:
                self.cache.put(key, bytes(flags))
            if tracer is not None:
                tracer.mask_ended(walked, cached=False)
        self._last_mask = {"trie_nodes_walked": walked, "slices_applied": applied}
        return flags

    def _walked(self, state: int, top: int, n: int) -> Tuple[bytearray, int, int]:
        """The tokens' flags by the trie walk (over the slices' tries where a slicer
        applies), the trie nodes walked and the slices applied."""
        rec = self.recognizer
        walked = 0
        tries: Sequence[TokenTrie]
        plan = self._plan(state)
        if plan is None:
            flags, tries, applied = bytearray(n), (self.trie,), 0
        else:
            flags, tries, applied = bytearray(plan.flags), plan.tries, plan.applied
        tracer = rec.tracer
        for trie in tries:
            if tracer is None:
                walked += self._walk(trie, rec.lexer, rec, state, top, flags)
            else:
                tracer.trie_walked(trie, self._applied_slices(state) if applied else ())
                walked += self._walk(trie, rec.lexer, rec, state, top, flags, tracer)
        return flags, walked, applied

    def _plan(self, state: int) -> Optional[Plan]:
        """The slicer's plan in lexer state `state` (Slicer.plan of the slices certainly
        allowed there), kept per state; None where the vocabulary's one trie is walked
        (no slicer, or slicing does not pay)."""
        try:
            return self._plans[state]
        except KeyError:
            plan = None
            if self.slicer is not None and self._slice_oracle is not None:
                plan = self.slicer.plan(self._slice_oracle.certain(state))
            self._plans[state] = plan
            return plan

    def _applied_slices(self, state: int) -> List[str]:
        """The patterns of the slices applied whole in `state` (for the tracer)."""
        assert self.slicer is not None and self._slice_oracle is not None
        return [piece.pattern or "" for piece, ok in zip(self.slicer.slices, self._slice_oracle.certain(state)) if ok]

    def _indexed(self, state: int) -> Optional[bytearray]:
        """The tokens' flags from the index's row for the lexer state; None where the
        index has no row for it (a state inside a token, after consume_bytes)."""
        assert self.index is not None
        if state == DEAD:
            return bytearray(len(self.vocab))
        fresh, pairs = self.recognizer.lexer.states[state]
        if len(pairs) != 1:
            return None
        at = self.index.start if fresh else self.index.state_of(pairs[0][1])
        return None if at is None else self.index.token_flags(at)

    def reading(self) -> Reading:
        """How each token is read in the current state (reading.py): the rule `consume`
        applies and the mask computes for all tokens at once; `allows(t)` checks one token
        (top-k's single-token checks)."""
        return Reading(self.recognizer, self.tokens, self.vocab)

    # -- consuming ------------------------------------------------------------------------

    def consume(self, token_id: int) -> bool:
        """Consume one token; False (and no change of state) if it is not allowed."""
        if self.eos_consumed or not 0 <= token_id < len(self.vocab):
            return False
        rec = self.recognizer
        step = Step(token_id, rec.bytes_consumed, self.lexeme_tokens)
        how = self.reading().how(token_id)
        if how == BYTES:
            return self._consume(token_id, self.vocab.tokens[token_id])
        if how == BY_ID:
            rec.consume_token(self.tokens.lexemes_with(token_id))
            self.lexeme_tokens = 0
        elif how == ENDS_LEXEME:
            rec.end_lexeme()
            self.lexeme_tokens = 0
        elif how == ENDS_OUTPUT:
            self.eos_consumed = True
        else:
            return False
        self._steps.append(step)
        self._moved()
        return True

    def consume_tokens(self, ids: Iterable[int]) -> bool:
        """Consume all the tokens, or none: False (and no change) if one is refused.
        (llguidance's `consume_tokens`; the longest accepted prefix: `try_consume_tokens`.)"""
        ids = list(ids)
        n = self.try_consume_tokens(ids)
        if n < len(ids):
            self.rollback(n)
            return False
        return True

    def try_consume_tokens(self, ids: Iterable[int]) -> int:
        """Consume tokens until one is refused; returns how many were consumed (the
        tokens before the refused one stay consumed)."""
        n = 0
        for t in ids:
            if not self.consume(t):
                break
            n += 1
        return n

    def validate_tokens(self, ids: Iterable[int]) -> int:
        """How many of the tokens, from the first, would be consumed (as
        `try_consume_tokens` counts them); the state is left unchanged."""
        n = self.try_consume_tokens(ids)
        self.rollback(n)
        return n

    def consume_bytes(self, data: bytes) -> bool:
        """Consume raw bytes (one step for `rollback`); False and no change on failure."""
        if self.eos_consumed:
            return False
        return self._consume(None, data)

    def _consume(self, token_id: Optional[int], data: bytes) -> bool:
        rec = self.recognizer
        step = Step(token_id, rec.bytes_consumed, self.lexeme_tokens, data if token_id is None else b"")
        top, ended = rec.top, rec.lexemes_ended
        if not rec.consume_bytes(data):
            return False
        rec.end_token()
        self._steps.append(step)
        self._moved()
        if rec.lexer.budgets:
            self._spend_budget(1 if rec.lexemes_ended != ended else self.lexeme_tokens + 1)
        rec.parser.forget_children(top - 1, rec.top - 1)
        return True

    def _spend_budget(self, n_tokens: int) -> None:
        """After a token, the pending lexeme has had bytes from `n_tokens` tokens: the
        lexemes whose max_tokens is spent are dropped, and if none is left the lexeme ends
        here (the state is dead if it cannot). As llguidance, the mask does not look ahead
        to a budget: it may allow a token after which the lexeme cannot end."""
        rec = self.recognizer
        if rec.lexer.is_fresh(rec.state):
            self.lexeme_tokens = 0
            return
        spent = rec.lexer.over_budget(rec.state, n_tokens)
        if spent:
            rec.end_lexeme(spent)
        self.lexeme_tokens = 0 if rec.lexer.is_fresh(rec.state) else n_tokens

    def rollback(self, n_tokens: int) -> None:
        """Undo the last n consumed steps (tokens, EOS, or consume_bytes calls)."""
        if not 0 <= n_tokens <= len(self._steps):
            raise ValueError("cannot roll back %d steps: %d consumed" % (n_tokens, len(self._steps)))
        rec = self.recognizer
        for _ in range(n_tokens):
            step = self._steps.pop()
            self.eos_consumed = False  # only the last step can have been EOS that stopped
            rec.rollback(rec.bytes_consumed - step.before)
            self.lexeme_tokens = step.lexeme_tokens
        if n_tokens:
            self._moved()

    def _moved(self) -> None:
        """The state changed: what the last mask told is no longer known."""
        self._empty = None
        self._pending = None

    def is_accepting(self) -> bool:
        """May the output end here (is EOS allowed)?"""
        return self.eos_consumed or self.recognizer.is_accepting()

    # -- the lifecycle --------------------------------------------------------------------

    def is_stopped(self) -> bool:
        """Will no token be consumed here? True once EOS was consumed, and where no token
        at all is allowed; `stop_reason` says which. Where EOS is not allowed, this
        computes the mask (kept for the next `mask()` in this state)."""
        return self.stop_reason != NOT_STOPPED

    @property
    def stop_reason(self) -> str:
        """Why the matcher is stopped: "eos" (an EOS token was consumed: the output has
        ended), "no extension" (no token at all is allowed here: the grammar is complete
        and the vocabulary has no EOS, or no token continues it), or "" while it is not
        stopped. A rollback to before the stop un-stops it."""
        if self.eos_consumed:
            return STOPPED_BY_EOS
        if self._empty is None:
            rec = self.recognizer
            if self.vocab.eos_token_ids and eos_reading(rec, rec.state, rec.top) != REFUSED:
                return NOT_STOPPED  # EOS is allowed: not empty, no walk needed
            mask = self.mask()
            if self.tracer is None:
                self._pending = mask.flags
        return NO_EXTENSION if self._empty else NOT_STOPPED

    def reset(self) -> None:
        """Back to the start, as freshly built: every step is rolled back (what the
        grammar shares stays warm)."""
        self.rollback(len(self._steps))

    #: what a Matcher shares with its clones: the grammar, the vocabulary and what is
    #: built from them (trie, slicer, token binding, index, mask cache). Every other
    #: attribute is the state of one generation, and a clone copies it.
    SHARED = frozenset(("grammar", "vocab", "backend", "_walk", "index", "tokens", "trie", "slicer",
                        "_slice_oracle", "_plans", "cache"))

    def clone(self) -> "Matcher":
        """An independent matcher in the same state: consuming or rolling back one does not
        move the other. It shares what does not change (`SHARED`) and copies the state;
        its tracer is off. `copy.copy(m)` and `copy.deepcopy(m)` are `m.clone()`."""
        new = object.__new__(type(self))
        for name, value in vars(self).items():
            setattr(new, name, value if name in self.SHARED else copy.copy(value))
        return new

    def __copy__(self) -> "Matcher":
        return self.clone()

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Matcher":
        return self.clone()

    # -- forcing --------------------------------------------------------------------------

    def forced_bytes(self) -> bytes:
        """The bytes every continuation must start with (empty where EOS is allowed, or a
        token read by id may come), at most FORCED_BYTES_CAP of them.

        Where the forced bytes come back to a state with the same future — equal lexer
        state and compacted parser state (compaction.py) — the bytes since then repeat
        forever: they are repeated up to the cap, not tried byte by byte again
        (`start: (A | B)+ A B` with A: "b", B: /b+/ is forced to b's without end)."""
        rec = self.recognizer
        state, top = rec.state, rec.top
        out = bytearray()
        seen: Dict[Tuple[object, ...], int] = {}  # future -> len(out) there
        while not self.eos_consumed and len(out) < FORCED_BYTES_CAP and self._reading(state, top).only_bytes():
            key = rec.future(state, top)
            if key in seen:
                cycle = out[seen[key]:]
                while len(out) < FORCED_BYTES_CAP:
                    out += cycle
                del out[FORCED_BYTES_CAP:]
                break
            seen[key] = len(out)
            only = -1
            for b in range(256):
                if rec.advance(state, top, b)[0] != DEAD:
                    if only >= 0:
                        only = -1
                        break
                    only = b
            if only < 0:
                break
            out.append(only)
            # again: the other bytes' trials may have pushed their rows where its rows go
            state, top = rec.advance(state, top, only)
        return bytes(out)

    def _reading(self, state: int, top: int) -> Reading:
        return Reading(self.recognizer, self.tokens, self.vocab, state, top)

    def forced_tokens(self) -> List[int]:
        """The tokens a tokenizer-agnostic fast-forward would emit now.

        The forced bytes, split greedily into the longest tokens; the last token is
        dropped when a longer token extending it might also be allowed (then the
        tokenisation is not forced). Where no byte may come and token lexemes allow
        exactly one token (`<|eot_id|>` alone), that token is forced.
        """
        forced = self.forced_bytes()
        trie = self.trie
        out: List[int] = []
        i = 0
        while i < len(forced):
            node, best, n = 0, None, 0
            for k in range(i, len(forced)):
                child = trie.child(node, forced[k])
                if child < 0:
                    break
                node = child
                if trie.tokens_at(node):
                    best, n = node, k + 1 - i
            if best is None:
                break
            if i + n == len(forced) and self._may_extend(best, forced):
                break
            out.append(trie.tokens_at(best)[0])
            i += n
        if not forced and self.tokens and not self.eos_consumed:
            only = self._only_token()
            if only is not None:
                out.append(only)
        return out

    def _only_token(self) -> Optional[int]:
        """The one token that may come next, if it is read by id and nothing else may."""
        rec, reading = self.recognizer, self.reading()
        if reading.eos != REFUSED or any(rec.advance(rec.state, rec.top, b)[0] != DEAD for b in range(256)):
            return None
        flags = bytearray(len(self.vocab))
        self.tokens.allow(flags, reading.by_id)
        return flags.find(1) if flags.count(1) == 1 else None

    def _may_extend(self, node: int, forced: bytes) -> bool:
        """Could a token longer than node's bytes, beyond the forced bytes, be allowed?"""
        rec, trie = self.recognizer, self.trie
        state, top = rec.state, rec.top
        for b in forced:
            state, top = rec.advance(state, top, b)
        child = node + 1
        possible = False
        while child < trie.end[node]:
            if rec.advance(state, top, trie.byte[child])[0] != DEAD:
                possible = True
                break
            child = trie.end[child]
        return possible

    # -- ending ---------------------------------------------------------------------------

    def close(self) -> None:
        """Nothing to release (the state is in this process); for the MatcherLike API."""

    def __enter__(self) -> "Matcher":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- pictures -------------------------------------------------------------------------

    def __repr__(self) -> str:
        """The backend, the grammar's kind, the steps consumed and the stop reason."""
        try:
            reason = self.stop_reason
        except MaskrefError as e:  # a limit hit by the mask is_stopped computes
            reason = "unknown (%s)" % type(e).__name__
        stopped = " stopped=%r" % reason if reason else ""
        return "<Matcher backend=%r grammar=%s steps=%d%s>" % (self.backend, self.grammar.kind, len(self._steps), stopped)

    def _repr_html_(self) -> str:
        """Jupyter: the lexer state as (lexeme, regex) pairs, the live Earley rows, and the
        mask with a sample of its tokens (`maskref explain` draws every step)."""
        rec = self.recognizer
        parser = rec.parser
        lexer = table(["lexeme", "regex"], rec.lexer.pairs(rec.state, 200)) if rec.state != DEAD else "dead"
        rows = "".join("<div>row %d%s%s</div>" % (j, " (accepting)" if parser.rows[j].accepting else "",
                                                  items([parser.item_to_string(i) for i in parser.rows[j].items]))
                       for j in range(rec.top))
        mask = self.mask()
        sample = ", ".join("%d:%r" % (t, self.vocab.tokens[t].decode("utf-8", "backslashreplace"))
                           for t in mask.allowed()[:20])
        return ("%s<div><b>Matcher</b> (%s backend)<details open><summary>lexer state %d</summary>%s</details>"
                "<details><summary>Earley rows: %d</summary>%s</details>%s<small>%s</small></div>"
                % (STYLE, escape(self.backend), rec.state, lexer, rec.top, rows, mask._repr_html_(), escape(sample)))

    # -- statistics -----------------------------------------------------------------------

    @property
    def stats(self) -> Dict[str, int]:
        """Counters: trie nodes walked and slices applied by the last mask; the lexer's
        states and transitions computed so far (the grammar's lexer: every Matcher of it
        counts); the parser's rows (live, built, reused) and the items of the current row."""
        rec = self.recognizer
        parser = rec.parser
        return dict(
            self._last_mask,
            lexer_states=len(rec.lexer.states),
            transitions_computed=rec.lexer.transitions_computed,
            rows=rec.top,
            items=len(parser.rows[rec.top - 1].items),  # in the current row
            rows_built=parser.rows_built,
            rows_reused=parser.rows_reused,
            mask_cache_hits=self.cache.hits if self.cache is not None else 0,
            mask_cache_misses=self.cache.misses if self.cache is not None else 0,
        )

    # -- captures -------------------------------------------------------------------------

    def captures(self) -> List[Capture]:
        """The text each capturing rule (`name[capture]: ...`) has matched so far, as
        (name, bytes) pairs in llguidance's order (masks/captures.py, docs/lark.md)."""
        return captures(self.grammar, [s.data if s.token_id is None else s.token_id for s in self._steps], self.vocab)
