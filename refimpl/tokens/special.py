"""Token lexemes bound to a vocabulary: which token ids each `<...>` of a grammar matches.

A grammar names tokens without knowing the vocabulary (`<|eot_id|>`, `<[128000-128010]>`,
`<[^5]>`, `<[*]>`: a `TokenSpec`); a Matcher binds it when it is created, and a name the
vocabulary lacks is an error then, not a mask that silently allows nothing.

>>> from refimpl import Grammar, Vocabulary
>>> v = Vocabulary([b"a", b"<|eot|>", b"b", b"</s>"], eos_token_ids=[3], special_token_ids=[1])
>>> b = TokenBinding(Grammar.from_lark('start: "a" (<|eot|> | <[^0-1]>)').compiled, v)
>>> [(v.tokens[t], b.lexemes_with(t) != 0) for t in range(4)]
[(b'a', False), (b'<|eot|>', True), (b'b', True), (b'</s>', True)]
>>> TokenBinding(Grammar.from_lark("start: <think>").compiled, v)
Traceback (most recent call last):
  ...
refimpl.errors.GrammarError: unknown special token <think>: the vocabulary's special tokens are <|eot|>, </s> at line 1, column 8
start: <think>
       ^
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Dict, List, Tuple

from ..errors import GrammarError
from ..grammar.ir import CompiledGrammar, TokenSpec
from .vocab import Vocabulary

Ranges = Tuple[Tuple[int, int], ...]  # sorted, disjoint, inclusive


def token_ids(spec: TokenSpec, vocab: Vocabulary) -> Ranges:
    """The ids `spec` stands for in `vocab`, as sorted disjoint inclusive ranges; an
    unknown name or an id out of range is a GrammarError (at its place in the grammar's
    text, when the spec knows it)."""
    try:
        return _token_ids(spec, vocab)
    except GrammarError as e:
        if spec.source and spec.offset >= 0:
            raise GrammarError(e.message, spec.source, spec.offset) from None
        raise


def _token_ids(spec: TokenSpec, vocab: Vocabulary) -> Ranges:
    n = vocab.padding_ids.start  # padding ids are no tokens: no token lexeme matches them
    if spec.any:
        ids: Ranges = ((0, n - 1),)
    elif spec.name is not None:
        ids = _merge([(t, t) for t in _by_text(spec, spec.name, vocab)])
    else:
        for _, hi in spec.ranges:
            if hi >= n:
                padded = ", padded to %d" % len(vocab) if vocab.padding_ids else ""
                raise GrammarError("token range end too large in %s: %d (the vocabulary has %d tokens%s)"
                                   % (spec.text, hi, n, padded))
        ids = _merge(list(spec.ranges))
    ids = _complement(ids, n) if spec.negated else ids
    if spec.no_eos and vocab.eos_token_ids:
        eos = _merge([(t, t) for t in vocab.eos_token_ids])
        ids = _complement(_merge(list(_complement(ids, n)) + list(eos)), n)
    return ids


def _by_text(spec: TokenSpec, name: str, vocab: Vocabulary) -> List[int]:
    """The special tokens whose text is `name`; with `text_too`, else the plain tokens."""
    text = name.encode("utf-8")
    ids = sorted(t for t in vocab.special_token_ids if vocab.tokens[t] == text)
    if not ids and spec.text_too:
        ids = [t for t, b in enumerate(vocab.tokens) if b == text]
    if not ids:
        names = ", ".join(vocab.tokens[t].decode("utf-8", "replace") for t in sorted(vocab.special_token_ids))
        what = "token" if spec.text_too else "special token"
        raise GrammarError("unknown %s %s: the vocabulary's special tokens are %s" % (what, name, names or "(none)"))
    return ids


def _complement(ranges: Ranges, n: int) -> Ranges:
    out, current = [], 0
    for lo, hi in ranges:
        if lo > current:
            out.append((current, lo - 1))
        current = hi + 1
    if current < n:
        out.append((current, n - 1))
    return tuple(out)


def _merge(ranges: List[Tuple[int, int]]) -> Ranges:
    out: List[Tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


class TokenBinding:
    """Per token lexeme of a compiled grammar, the token ids it matches in a vocabulary."""

    def __init__(self, grammar: CompiledGrammar, vocab: Vocabulary) -> None:
        self.ranges: Dict[int, Ranges] = {
            i: token_ids(lx.tokens, vocab) for i, lx in enumerate(grammar.lexemes) if lx.tokens is not None
        }
        self._starts = {i: [lo for lo, _ in r] for i, r in self.ranges.items()}

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def lexemes_with(self, token_id: int) -> int:
        """The token lexemes (a bit mask) that match token `token_id`."""
        found = 0
        for i, ranges in self.ranges.items():
            k = bisect_right(self._starts[i], token_id) - 1
            if k >= 0 and token_id <= ranges[k][1]:
                found |= 1 << i
        return found

    def allow(self, flags: bytearray, lexemes: int) -> None:
        """Set the flag of every token that one of `lexemes` (a bit mask) matches."""
        for i, ranges in self.ranges.items():
            if (lexemes >> i) & 1:
                for lo, hi in ranges:
                    flags[lo:hi + 1] = b"\x01" * (hi + 1 - lo)
