"""A token mask: the set of token ids allowed next.

>>> m = Mask(bytearray([0, 1, 1, 0, 0, 0, 0, 0, 0, 1]))
>>> 2 in m, 3 in m, len(m), m.allowed()
(True, False, 3, [1, 2, 9])
>>> m.to_bytes().hex()                    # bits 1, 2 and 9: little-endian 32-bit words
'06020000'
"""
from __future__ import annotations

from typing import List


class Mask:
    """Allowed token ids, as one flag byte per id of the vocabulary."""

    __slots__ = ("flags",)

    def __init__(self, flags: bytearray) -> None:
        self.flags = flags

    def __contains__(self, token_id: int) -> bool:
        return 0 <= token_id < len(self.flags) and self.flags[token_id] == 1

    def __len__(self) -> int:
        return self.flags.count(1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mask) and self.flags == other.flags

    def __repr__(self) -> str:
        ids = self.allowed()
        shown = ", ".join(map(str, ids[:8])) + (", ..." if len(ids) > 8 else "")
        return "Mask(%d of %d: %s)" % (len(ids), len(self.flags), shown)

    @property
    def vocab_size(self) -> int:
        return len(self.flags)

    def allowed(self) -> List[int]:
        """The allowed token ids, ascending."""
        flags = self.flags
        out = []
        i = flags.find(1)
        while i >= 0:
            out.append(i)
            i = flags.find(1, i + 1)
        return out

    def to_bytes(self) -> bytes:
        """The bitmask as llguidance and xgrammar lay it out: 32-bit little-endian words,
        token t at bit t % 32 of word t // 32."""
        out = bytearray(4 * ((len(self.flags) + 31) // 32))
        for t in self.allowed():
            out[t >> 3] |= 1 << (t & 7)
        return bytes(out)
