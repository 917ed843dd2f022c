r"""The slicer: skip whole sub-tries when the current lexeme allows all their tokens.

Inside a JSON string almost every token is allowed, and the walk visits the whole trie to
find that out. The slicer (llguidance's idea) splits the vocabulary into *slices* by
regexes: each token goes to the first slice whose regex matches all of it, the rest form
a final slice. Every slice has its own trie and a precomputed mask of its tokens. At mask
time, a slice whose tokens are *certainly all allowed* contributes its precomputed mask
and its trie is not walked; the other slices (always the final one) are walked as usual.

"Certainly all allowed" is decided exactly, by the derivative engine
(`relevance.prefixes_contain`): some live lexeme of the current lexer state must have
every word of the slice's regex as a prefix of one of its words. Then reading any token
of the slice keeps that lexeme alive, so the lexer never dies and no lexeme ends inside
the token: the token is allowed. A state with a live lazy lexeme is never sliced (a lazy
lexeme could end inside the token). The question is asked once per (slice, lexer state)
and cached; when its fuel runs out the answer is "walk" — slower, never wrong.

>>> from refimpl import Grammar, Matcher, Vocabulary
>>> v = Vocabulary.load("gpt2")
>>> string = Grammar.from_regex(r'"[^"\\\x00-\x1F\x7F]*"')
>>> sliced, plain = Matcher(string, v), Matcher(string, v, slices=[])
>>> sliced.consume_bytes(b'"') and plain.consume_bytes(b'"')
True
>>> sliced.mask() == plain.mask()
True
>>> sliced.stats["slices_applied"], plain.stats["trie_nodes_walked"] // sliced.stats["trie_nodes_walked"] > 10
(3, True)
"""
from __future__ import annotations

import functools
import weakref
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..recognition.lexer import Lexer
from ..regex import ExprSet, LazyDFA, compile_pattern
from ..regex.relevance import is_contained, prefixes_contain
from ..tokens.trie import TokenTrie
from ..tokens.vocab import Vocabulary

#: llguidance's JSON slices: whitespace, then string-safe text of up to 10 and 30
#: characters, and of any length.
JSON_SLICES = (
    r"[\x20\x0A\x0D\x09]+",
    r'[^"\\\x00-\x1F\x7F]{1,10}',
    r'[^"\\\x00-\x1F\x7F]{1,30}',
    r'[^"\\\x00-\x1F\x7F]+',
)

#: the least vocabulary the default slices are used on (`default_slices`)
MIN_VOCAB = 4096


def default_slices(vocab: Vocabulary) -> Tuple[str, ...]:
    """The slices of a Matcher not told any: JSON_SLICES, on a vocabulary of at least
    MIN_VOCAB tokens; none on a smaller one, whose whole trie costs less to walk than
    slicing costs to prepare. (Measured on the first 300, 1,000 and 4,000 tokens of GPT-2,
    inside a string: a fresh grammar's first mask, compiling included, took 19-54 ms
    sliced — the slices built for the vocabulary, a containment proof for each slice in
    each new lexer state — against 1.4-26 ms walked whole, and each later mask saved
    0.06-0.43 ms: slicing paid after 40 to 200 masks, more than a fuzz example makes.)
    A list of slices given to the Matcher is used on any vocabulary.

    >>> len(default_slices(Vocabulary.load("gpt2"))), default_slices(Vocabulary.from_bytes([b"a"]))
    (4, ())
    """
    return JSON_SLICES if len(vocab) >= MIN_VOCAB else ()



class Slice:
    """One slice: its regex, its tokens' trie, and their mask as an int of 0/1 bytes."""

    def __init__(self, pattern: Optional[str], vocab: Vocabulary, token_ids: List[int]) -> None:
        self.pattern = pattern  # None for the final slice (the tokens no regex took)
        self.trie = TokenTrie(vocab, token_ids)
        flags = bytearray(len(vocab))
        for t in token_ids:
            flags[t] = 1
        self.flags = int.from_bytes(flags, "little")
        self.n_tokens = len(token_ids)


#: the least share of the vocabulary the certain slices must hold for slicing to pay
MIN_SHARE = 1 / 8


class Plan(NamedTuple):
    """Slicing in one combination of certain slices (Slicer.plan)."""

    flags: bytes
    tries: List[TokenTrie]
    applied: int


class Slicer:
    """The slices of one vocabulary (built once per vocabulary and list of patterns)."""

    def __init__(self, vocab: Vocabulary, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        es = ExprSet()
        dfas = [LazyDFA(es, compile_pattern(es, p)) for p in self.patterns]
        members: List[List[int]] = [[] for _ in range(len(dfas) + 1)]
        for t, data in enumerate(vocab.tokens):
            if not vocab.is_grammar_token(t):
                continue
            k = next((i for i, dfa in enumerate(dfas) if dfa.matches(data)), len(dfas))
            members[k].append(t)
        self.slices = [Slice(p, vocab, ids) for p, ids in zip(self.patterns, members)]
        self.final = Slice(None, vocab, members[-1])
        self.n_vocab = len(vocab)
        self._plans: Dict[Tuple[bool, ...], Optional[Plan]] = {}

    def plan(self, certain: Tuple[bool, ...]) -> Optional["Plan"]:
        """What slicing gives where the slices flagged in `certain` are certainly allowed:
        their tokens' flags (one byte per token id), the tries still to walk (the other
        slices' and the final one), and how many slices are applied. None where it does
        not pay — the certain slices hold less than MIN_SHARE of the vocabulary: walking
        the vocabulary's one trie then costs less than copying flags for every token and
        walking several tries (whose subtrees the walk takes whole where the lexer state
        loops, tokens/subtrees.py). Kept per combination (at most 2^slices of them)."""
        if certain not in self._plans:
            applied = [piece for piece, ok in zip(self.slices, certain) if ok]
            plan = None
            if sum(piece.n_tokens for piece in applied) >= MIN_SHARE * self.n_vocab:
                union = 0
                for piece in applied:
                    union |= piece.flags
                tries = [self.final.trie] + [piece.trie for piece, ok in zip(self.slices, certain) if not ok]
                plan = Plan(union.to_bytes(self.n_vocab, "little"), tries, len(applied))
            self._plans[certain] = plan
        return self._plans[certain]

    @classmethod
    def of(cls, vocab: Vocabulary, patterns: Sequence[str]) -> "Slicer":
        """The vocabulary's slicer for these patterns (cached per vocabulary, for its lifetime)."""
        cache = _SLICERS.setdefault(vocab, {})
        key = tuple(patterns)
        if key not in cache:
            cache[key] = cls(vocab, key)
        return cache[key]


_SLICERS: "weakref.WeakKeyDictionary[Vocabulary, Dict[Tuple[str, ...], Slicer]]" = weakref.WeakKeyDictionary()


@functools.lru_cache(maxsize=64)
def larger_slices(patterns: Tuple[str, ...]) -> Tuple[Tuple[int, ...], ...]:
    """For each slice, the slices whose language holds its own (`{1,10}` is in `{1,30}`
    and in `+`), the largest first: where a lexeme keeps every token of a larger slice
    alive, it keeps slice i's too, and the search for i (seconds for a lexeme of
    `\\p{Letter}` keys) is not made. A relation of the patterns alone, so it is proved once
    per list of patterns, in an ExprSet of its own — not once per grammar, where its
    containment proofs were most of a small grammar's first mask. (Tuples: it is shared.)

    >>> larger_slices(JSON_SLICES)
    ((), (3, 2), (3,), ())
    """
    es = ExprSet()
    exprs = [compile_pattern(es, p) for p in patterns]
    larger = [[j for j, b in enumerate(exprs) if j != i and is_contained(es, a, b) is True]
              for i, a in enumerate(exprs)]
    return tuple(tuple(sorted(js, key=lambda j: len(larger[j]))) for js in larger)


class SliceOracle:
    """Per grammar: which slices a lexer state certainly allows (cached per state)."""

    @classmethod
    def of(cls, slicer: Slicer, lexer: Lexer) -> "SliceOracle":
        """The oracle of the slicer's patterns over the lexer, shared by every Matcher of
        the grammar (the lexer is the grammar's; its states' answers do not change)."""
        key = ("slices",) + tuple(slicer.patterns)
        oracle = lexer.derived.get(key)
        if not isinstance(oracle, SliceOracle):
            oracle = lexer.derived.setdefault(key, cls(slicer, lexer))
        assert isinstance(oracle, SliceOracle)
        return oracle

    def __init__(self, slicer: Slicer, lexer: Lexer) -> None:
        self.lexer = lexer
        es = lexer.es
        self.exprs = [compile_pattern(es, p) for p in slicer.patterns]  # one per slice but the final
        self.larger = larger_slices(slicer.patterns)
        self._cache: Dict[int, Tuple[bool, ...]] = {}

    def certain(self, state: int) -> Tuple[bool, ...]:
        """For each slice: is every one of its tokens allowed in lexer state `state`?"""
        answer = self._cache.get(state)
        if answer is None:
            lexer = self.lexer
            fresh, pairs = lexer.states[state]
            if lexer.possible[state] & lexer.lazy_mask:
                answer = tuple(False for _ in self.exprs)
            else:
                answer = tuple(self._certain(i, [lexeme_expr for _, lexeme_expr in pairs]) for i in range(len(self.exprs)))
            self._cache[state] = answer
        return answer

    def _certain(self, i: int, lexemes: List[int]) -> bool:
        """Does one of the live lexemes keep every token of slice i alive?"""
        es = self.lexer.es
        return any(any(prefixes_contain(es, self.exprs[j], x) is True for j in self.larger[i])
                   or prefixes_contain(es, self.exprs[i], x) is True for x in lexemes)
