"""A token mask: the set of token ids allowed next.

>>> m = Mask(bytearray([0, 1, 1, 0, 0, 0, 0, 0, 0, 1]))
>>> 2 in m, 3 in m, len(m), m.allowed(), list(m)
(True, False, 3, [1, 2, 9], [1, 2, 9])
>>> m.to_bytes().hex()                    # bits 1, 2 and 9: little-endian 32-bit words
'06020000'
"""
from __future__ import annotations

import sys
from typing import Iterator, List, Union

from ..html import escape, strip

_PYPY = sys.implementation.name == "pypy"


class Mask:
    """Allowed token ids, as one flag byte per id of the vocabulary."""

    __slots__ = ("flags",)

    def __init__(self, flags: bytearray) -> None:
        self.flags = flags

    def __contains__(self, token_id: int) -> bool:
        return 0 <= token_id < len(self.flags) and self.flags[token_id] == 1

    def __len__(self) -> int:
        """The number of allowed ids."""
        return self.flags.count(1)

    def __iter__(self) -> Iterator[int]:
        """The allowed ids, ascending."""
        flags = self.flags
        i = flags.find(1)
        while i >= 0:
            yield i
            i = flags.find(1, i + 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mask) and self.flags == other.flags

    def __repr__(self) -> str:
        ids = self.allowed()
        shown = ", ".join(map(str, ids[:8])) + (", ..." if len(ids) > 8 else "")
        return "Mask(%d of %d: %s)" % (len(ids), len(self.flags), shown)

    def _repr_html_(self) -> str:
        """Jupyter: the count, a strip of the allowed ids, the first of them."""
        ids = self.allowed()
        shown = ", ".join(map(str, ids[:20])) + (", …" if len(ids) > 20 else "")
        return "<div><b>Mask</b>: %d of %d tokens allowed<br>%s<br><small>%s</small></div>" % (
            len(ids), len(self.flags), strip(self.flags), escape(shown))

    @property
    def vocab_size(self) -> int:
        return len(self.flags)

    def allowed(self) -> List[int]:
        """The allowed token ids, ascending (`list(mask)`)."""
        return list(self)

    def to_bytes(self) -> bytes:
        """The bitmask as llguidance and xgrammar lay it out: 32-bit little-endian words,
        token t at bit t % 32 of word t // 32."""
        return encode_mask(self.flags)

    @classmethod
    def from_bytes(cls, data: bytes, vocab_size: int) -> "Mask":
        """The inverse of `to_bytes`."""
        return cls(decode_mask(data, vocab_size))


def encode_mask(flags: Union[bytes, bytearray]) -> bytes:
    """One 0/1 flag byte per token -> the bitmask: 32-bit little-endian words, token t at
    bit t % 32 of word t // 32 (llguidance's and xgrammar's layout; `Mask.to_bytes`).

    Word by word little-endian is byte t // 8, bit t % 8: the bitmask is one little-endian
    bit string. Two implementations of it: whole-mask integer arithmetic (fast on
    CPython) and a plain byte loop (fast under PyPy's JIT, slow on CPython).

    >>> encode_mask(bytearray([0, 1, 1, 0, 0, 0, 0, 0, 0, 1])).hex()
    '06020000'
    """
    return _encode_by_loop(flags) if _PYPY else _encode_by_integers(flags)


def _encode_by_integers(flags: Union[bytes, bytearray]) -> bytes:
    # the flags of tokens 8k+i (i fixed) are the bytes of flags[i::8]; as one integer,
    # shifted left by i, each lands on bit i of byte k
    n = len(flags)
    nbytes = 4 * ((n + 31) // 32)
    padded = bytes(flags) + bytes(8 * nbytes - n)
    packed = 0
    for i in range(8):
        packed |= int.from_bytes(padded[i::8], "little") << i
    return packed.to_bytes(nbytes, "little")


def _encode_by_loop(flags: Union[bytes, bytearray]) -> bytes:
    n = len(flags)
    nbytes = 4 * ((n + 31) // 32)
    f = bytes(flags) + bytes(8 * nbytes - n)
    out = bytearray(nbytes)
    for k in range(nbytes):
        b = 8 * k
        out[k] = (f[b] | f[b + 1] << 1 | f[b + 2] << 2 | f[b + 3] << 3
                  | f[b + 4] << 4 | f[b + 5] << 5 | f[b + 6] << 6 | f[b + 7] << 7)
    return bytes(out)


def decode_mask(data: bytes, n_tokens: int) -> bytearray:
    """The inverse of `encode_mask`: the bitmask -> one 0/1 flag byte per token.

    >>> decode_mask(bytes.fromhex("06020000"), 10)
    bytearray(b'\\x00\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x01')
    """
    flags = _decode_by_loop(data) if _PYPY else _decode_by_integers(data)
    del flags[n_tokens:]
    return flags


def _decode_by_integers(data: bytes) -> bytearray:
    nbytes = len(data)
    packed = int.from_bytes(data, "little")
    ones = int.from_bytes(b"\x01" * nbytes, "little")
    flags = bytearray(8 * nbytes)
    for i in range(8):
        flags[i::8] = ((packed >> i) & ones).to_bytes(nbytes, "little")
    return flags


def _decode_by_loop(data: bytes) -> bytearray:
    flags = bytearray(8 * len(data))
    for k, byte in enumerate(data):
        if byte:
            b = 8 * k
            for i in range(8):
                flags[b + i] = (byte >> i) & 1
    return flags


_POPCOUNT = bytes(bin(b).count("1") for b in range(256))


def count_bits(data: bytes) -> int:
    """The number of bits set: the number of tokens a bitmask allows."""
    if _PYPY:
        table = _POPCOUNT
        total = 0
        for byte in data:
            total += table[byte]
        return total
    return bin(int.from_bytes(data, "little")).count("1")
