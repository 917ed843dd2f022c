"""JSON strings as regular expressions: a string schema is a regex over the *decoded*
string, and `Strings.quote` maps it to every JSON text that encodes one of those strings
(raw bytes and the escapes the options allow), which keeps every string keyword exact."""
from __future__ import annotations

import re
from typing import Dict, Optional, Tuple

from ...regex import ExprSet, compile_pattern
from ...regex.exprs import ALL_BYTES, AND, BYTES, CONCAT, NOT, OR, REPEAT

NEEDS_QUOTE = sum(1 << b for b in range(0x20)) | (1 << 0x22) | (1 << 0x5C) | (1 << 0x7F)
SHORT_ESCAPES = {0x22: '"', 0x5C: "\\", 0x08: "b", 0x0C: "f", 0x0A: "n", 0x0D: "r", 0x09: "t"}
HEX = "0123456789abcdef"


class Strings:
    """The regular expressions of JSON strings, for one ExprSet and set of allowed escapes.

    A string schema is a regex over the *decoded* string (`any_string`: every valid UTF-8
    text); `quote` maps it to the JSON texts that encode those strings.
    """

    def __init__(self, es: ExprSet, allowed_escapes: str) -> None:
        self.es = es
        self.allowed = allowed_escapes
        self.anychar = compile_pattern(es, "(?s:.)")
        self.any_string = es.star(self.anychar)  # Σ_u*: valid UTF-8
        self._quoted: Dict[int, int] = {}
        self._general_unit: Optional[int] = None
        self._general_literals: Dict[str, int] = {}
        self._general_chars: Dict[str, int] = {}
        self._escape = self._escapes_of(ALL_BYTES)

    # -- quoting --------------------------------------------------------------------------

    def _escapes_of(self, mask: int) -> int:
        """The escape sequences (after nothing: they start with a backslash) of the bytes
        of `mask` that JSON must escape, as llguidance's JsonQuote allows them: short
        escapes from `allowed`; with `u`, `\\u00XX` for control characters and DEL."""
        es = self.es
        short = 0
        lows = {"0": 0, "1": 0, "7": 0}
        for b in range(0x80):
            if not (mask >> b) & 1 or not (NEEDS_QUOTE >> b) & 1:
                continue
            letter = SHORT_ESCAPES.get(b)
            if letter is not None and letter in self.allowed:
                short |= 1 << ord(letter)
            if "u" in self.allowed and (b < 0x20 or b == 0x7F):
                hi, lo = HEX[b >> 4], HEX[b & 15]
                lows[hi] |= (1 << ord(lo)) | (1 << ord(lo.upper()))
        u_parts = [es.concat(es.literal(hi.encode()), es.byte_set(m)) for hi, m in lows.items() if m]
        alts = [es.byte_set(short)]
        if u_parts:
            alts.append(es.concat(es.literal(b"u00"), es.union(*u_parts)))
        rest = es.union(*alts)
        return es.NOTHING if rest == es.NOTHING else es.concat(es.literal(b"\\"), rest)

    def quote(self, e: int) -> int:
        """`"` + every JSON encoding of the decoded strings of `e` + `"`.

        A homomorphism on the expression: each byte set maps to its raw bytes and the
        escapes of the bytes that need one. Since decoding is a function (the escapes
        form a prefix code and raw bytes never start one), it commutes with `|`, `&`,
        concatenation and repetition; the complement maps to the complement within all
        encodings.
        """
        es = self.es
        memo = self._quoted
        for x in es.reachable(e):  # children first
            if x not in memo:
                memo[x] = self._quote_node(x, memo)
        q = es.literal(b'"')
        return es.concat(q, memo[e], q)

    def _quote_node(self, x: int, memo: Dict[int, int]) -> int:
        """The image of node x, its children's images being in `memo`."""
        es = self.es
        node = es.node(x)
        kind, kids = node.kind, node.children
        if x in (es.NOTHING, es.EPSILON):
            return x
        if kind == BYTES:
            raw = es.byte_set(node.mask & ~NEEDS_QUOTE)
            quoted = node.mask & NEEDS_QUOTE
            return es.union(raw, self._escapes_of(quoted)) if quoted else raw
        if kind == CONCAT:
            return es.concat(memo[kids[0]], memo[kids[1]])
        if kind == OR:
            return es.union(*[memo[k] for k in kids])
        if kind == AND:
            return es.intersection(*[memo[k] for k in kids])
        if kind == REPEAT:
            return es.repeat(memo[kids[0]], node.lo, node.hi)
        if kind == NOT:
            everything = self.all_encodings()
            return everything if kids[0] == es.NOTHING else es.intersection(everything, es.complement(memo[kids[0]]))
        raise AssertionError(kind)  # pragma: no cover

    def all_encodings(self) -> int:
        es = self.es
        return es.star(es.union(es.byte_set(ALL_BYTES & ~NEEDS_QUOTE), self._escape))

    # -- \\uXXXX escapes for any character (llguidance's general Unicode escapes) ----------

    def general_unit(self) -> int:
        """One encoded character when general `\\uXXXX` escapes are allowed."""
        if self._general_unit is None:
            self._general_unit = self._make_general_unit()
        return self._general_unit

    def _make_general_unit(self) -> int:
        short = "".join(re.escape(c) for c in "nrbtf\\\"" if c in self.allowed)
        parts = [r'[^"\\\x00-\x1F\x7F]']
        if short:
            parts.append(r"\\[%s]" % short)
        if "u" in self.allowed:
            parts.append(r"\\u(?:[0-9a-ce-fA-CE-F][0-9a-fA-F]{3}|[dD][0-7][0-9a-fA-F]{2}"
                         r"|[dD][89aAbB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})")
        return compile_pattern(self.es, "|".join(parts))

    def general_literal(self, s: str) -> int:
        """Every encoding of the string `s` with general escapes allowed (kept per string:
        one property name is excluded from the additional keys of many objects)."""
        got = self._general_literals.get(s)
        if got is None:
            got = self._general_literals[s] = self._general_literal(s)
        return got

    def _general_literal(self, s: str) -> int:
        chars = self._general_chars
        parts = []
        for ch in s:
            got = chars.get(ch)
            if got is None:
                got = chars[ch] = self._general_char(ch)
            parts.append(got)
        return self.es.concat(*parts)

    def _general_char(self, ch: str) -> int:
        """Every encoding of the character `ch` with general escapes allowed."""
        es = self.es
        cp = ord(ch)
        alts = []
        if not (cp < 0x20 or ch in '"\\' or cp == 0x7F):
            alts.append(es.literal(ch.encode("utf-8")))
        letter = SHORT_ESCAPES.get(cp)
        if letter is not None and letter in self.allowed:
            alts.append(es.literal(("\\" + letter).encode()))
        if "u" in self.allowed:
            units = [cp] if cp < 0x10000 else [0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)]
            alts.append(es.concat(*[
                es.concat(es.literal(b"\\u"), *[
                    compile_pattern(es, "(?i)%s" % h) if h.isalpha() else es.literal(h.encode())
                    for h in "%04x" % u]) for u in units]))
        return es.union(*alts)

    def length_only(self, e: int) -> Optional[Tuple[int, Optional[int]]]:
        """(lo, hi) if e is exactly `.{lo,hi}` (any characters, only the length bounded)."""
        es = self.es
        if e == self.any_string:
            return 0, None
        node = es.node(e)
        if node.kind == REPEAT and node.children[0] == self.anychar:
            return node.lo, node.hi
        for lo, hi in ((1, 1), (0, 1), (0, 0)):
            if e == es.repeat(self.anychar, lo, hi):
                return lo, hi
        return None
