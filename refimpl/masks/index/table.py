"""Step 6 of the V2 index: the compressed table, a bitset mask per state.

Per state the index keeps its few targets and, per token, which of them it leads to — one
byte per token (`k + 1` for `targets[k]`, 0 for refused) while a state has at most 255
targets — and the allowed tokens as one packed bitmask (mask.py's layout: 32-bit
little-endian words), made from the bytes by one translation. A mask is one decode of the
stored bitmask; the next state of a token is two indexings.

>>> from refimpl import Grammar, Vocabulary
>>> from refimpl.masks.index import build_index
>>> vocab = Vocabulary.from_bytes([b"<eos>", b"1", b"12", b"a", b"."], eos_token_id=0)
>>> index = build_index(Grammar.from_regex("[0-9]+"), vocab)
>>> index.mask(index.start).allowed()          # no EOS: nothing matched yet
[1, 2]
>>> s = index.next_state(index.start, 2)
>>> index.mask(s).allowed(), index.is_final(s), index.next_state(s, 3) == DEAD
([0, 1, 2], True, True)
"""
from __future__ import annotations

from array import array
from typing import Dict, NamedTuple, Optional, Sequence, Tuple, Union

from ...errors import LimitError
from ...regex.dfa import DEAD, LazyDFA
from ..mask import Mask, decode_mask, encode_mask
from .prefix import Transitions

#: byte -> 1 if it is not 0: a row's target numbers -> allowed flags
_ALLOWED = bytes([0] + [1] * 255)


class Row(NamedTuple):
    """One state's row: its targets, per token the number of its target, the bitmask."""

    targets: Tuple[int, ...]
    of: Union[bytes, "array[int]"]  # token -> k + 1 for targets[k], 0: refused
    allowed: bytes  # packed bitmask


def check_size(rows: Dict[int, Row], limit: int) -> None:
    """LimitError once an index would have more than `limit` states."""
    if len(rows) >= limit:
        raise LimitError("index_states", limit, "states of one token index")


def make_row(out: Transitions) -> Row:
    """A row from a walk's answer (prefix.walk_prefixes)."""
    of: Union[bytes, "array[int]"]
    if isinstance(out.of, bytearray):
        of = bytes(out.of)
        flags = of.translate(_ALLOWED)
    else:
        of = out.of
        flags = bytes(1 if k else 0 for k in of)
    return Row(tuple(out.targets), of, encode_mask(flags))


class TokenIndex:
    """DFA state -> allowed tokens and next states, for a regular grammar and a vocabulary.

    States are those of `dfa` reachable from `start` by tokens; `rows` has each. EOS is
    allowed in exactly the final states (as the Matcher's: the input may end there)."""

    def __init__(self, dfa: LazyDFA, start: int, rows: Dict[int, Row], n_tokens: int,
                 eos_token_ids: Sequence[int]) -> None:
        self.dfa = dfa
        self.start = start
        self.rows = rows
        self.n_tokens = n_tokens
        self.eos_token_ids = tuple(eos_token_ids)

    def __len__(self) -> int:
        """The number of states."""
        return len(self.rows)

    def state_of(self, expr: int) -> Optional[int]:
        """The state of a regex expression (a lexer's derivative), if the index has it."""
        s = self.dfa.index.get(expr)
        return s if s is not None and s in self.rows else None

    def is_final(self, state: int) -> bool:
        return bool(self.dfa.accepting[state])

    def token_flags(self, state: int) -> bytearray:
        """One 0/1 flag per token allowed from `state`, EOS not included."""
        row = self.rows.get(state)
        return bytearray(self.n_tokens) if row is None else decode_mask(row.allowed, self.n_tokens)

    def mask(self, state: int) -> Mask:
        """The tokens allowed in `state`, EOS included where the input may end."""
        flags = self.token_flags(state)
        if state != DEAD and self.is_final(state):
            for t in self.eos_token_ids:
                flags[t] = 1
        return Mask(flags)

    def next_state(self, state: int, token: int) -> int:
        """The state after `token` from `state`; DEAD if it is not allowed (EOS included:
        it ends the output, there is no state after it)."""
        row = self.rows.get(state)
        if row is None or not 0 <= token < self.n_tokens:
            return DEAD
        k = row.of[token]
        return row.targets[k - 1] if k else DEAD

    def canonical(self) -> Tuple[Tuple[bytes, Tuple[Tuple[int, bytes], ...]], ...]:
        """The table with the states renumbered in a fixed order — breadth-first from the
        start, a state's targets by their lowest token — so that two indexes of one
        language and vocabulary are equal however they were built (for tests). Per state:
        the bitmask, and per target its number and the bitmask of the tokens that go there."""
        number = {self.start: 0}
        order = [self.start]
        out = []
        for s in order:
            row = self.rows[s]
            groups = []
            for k, target in enumerate(row.targets, 1):
                if isinstance(row.of, bytes):
                    flags = row.of.translate(bytes(1 if i == k else 0 for i in range(256)))
                else:
                    flags = bytes(1 if x == k else 0 for x in row.of)
                groups.append((flags.find(1), target, encode_mask(flags)))
            numbered = []
            for _, target, bits in sorted(groups):
                if target not in number:
                    number[target] = len(order)
                    order.append(target)
                numbered.append((number[target], bits))
            out.append((row.allowed, tuple(numbered)))
        return tuple(out)
