"""Bracketed classes: `[a-z]`, `[^"\\\\]`, `[\\w&&[^\\d]]`, `[[:alpha:]-]`.

A class is read into its final set — a `Class` of code points, or in byte mode a
`ByteClass` of bytes (the algebra of each mode is in charsets.py) — with Rust's rules:

* the items of a bracket are characters, ranges `a-z`, escapes (`\\d`, `\\p{Greek}`,
  `\\x{E9}`), POSIX classes `[:alpha:]` / `[:^alpha:]` and nested brackets, all unioned;
* `&&` (intersection), `--` (difference) and `~~` (symmetric difference) combine what
  is on their two sides, left to right, all at one precedence below the union;
* a bracket is case folded under `(?i)`, then negated if it starts with `^`;
* a `-` first, last or before another `-` is a literal, and so is a `]` right after `[`
  or `[^` (so `[]` is never empty: it is an unclosed class).

Brackets nest to any depth without recursion: open brackets are frames on a stack, and
errors point at the innermost open `[`.

>>> from refimpl.regex.ast import dump
>>> dump(BracketReader("[a-z&&[^aeiou]]").read_class(0, Flags())[0])
'[b-df-hj-np-tv-z]'
"""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

from ..errors import RegexError
from .ast import ByteClass, Class, Node
from .charsets import ASCII_CLASSES, ByteMasks, CodePointSets, perl_class
from .escapes import EscapeReader
from .flags import Flags


def class_node(s: Any, flags: Flags, offset: int) -> Node:
    """The node of a set of the mode: a `Class` of code points, or a `ByteClass` in byte mode."""
    return Class(s, offset) if flags.unicode else ByteClass(s, offset)


class _Bracket:
    """One open `[` of a (possibly nested) class: a union of items, then maybe an operator."""

    def __init__(self, offset: int, negated: bool) -> None:
        self.offset = offset
        self.negated = negated
        self.parts: List[Any] = []     # sets of the current union
        self.lhs: Any = None           # result so far, when an operator is pending
        self.op: Optional[str] = None  # "&&", "--" or "~~"
        self.literal_bracket = False   # started with a literal `]`: `[]` or `[^]`


class BracketReader(EscapeReader):
    """Reads bracketed classes (on top of the escapes they hold)."""

    def read_class(self, pos: int, flags: Flags) -> Tuple[Node, int]:
        """Read a bracketed class at p[pos] == '[' with a stack of open brackets.

        Rust semantics: items are unioned; `&&`, `--`, `~~` are left-associative with
        equal precedence and bind looser than the union; each bracket is case folded
        (under (?i)) and then negated; nested `[...]` and `[:name:]` are items.
        """
        p, n = self.p, self.n
        sets: Any = CodePointSets if flags.unicode else ByteMasks
        verbose = flags.verbose
        first, pos = self.open_bracket(pos, sets, verbose)
        stack = [first]
        while True:
            frame = stack[-1]
            if verbose:
                pos = self.skip_space(pos)
            if pos >= n:
                raise self.unclosed_class(frame)
            c = p[pos]
            if c == "[":
                got = self.ascii_class(pos, sets, flags)
                if got is not None:
                    frame.parts.append(got[0])
                    pos = got[1]
                else:
                    nested, pos = self.open_bracket(pos, sets, verbose)
                    stack.append(nested)
            elif c == "]":
                stack.pop()
                result = self.close_bracket(frame, sets, flags)
                pos += 1
                if not stack:
                    return class_node(result, flags, frame.offset), pos
                stack[-1].parts.append(result)
            elif c in "&-~" and p.startswith(c + c, pos):
                current = sets.union(frame.parts) if frame.parts else sets.empty
                if frame.op is not None:
                    current = self.combine(frame, current, sets, flags)
                frame.lhs, frame.op, frame.parts = current, c + c, []
                pos += 2
            else:
                item, pos = self.class_range(pos, sets, flags, frame)
                frame.parts.append(item)

    def open_bracket(self, pos: int, sets: Any, verbose: bool) -> Tuple[_Bracket, int]:
        """Rust `parse_set_class_open`: `[`, optional `^`, leading `-`s, a literal first `]`."""
        p, n = self.p, self.n
        start = pos

        def advance(i: int, frame: Optional[_Bracket] = None) -> int:
            """Step past p[i] (and spaces in verbose mode); the class must not end there."""
            i = self.skip_space(i + 1) if verbose else i + 1
            if i >= n:
                raise self.unclosed_class(frame) if frame else \
                    self.error("unclosed character class: expected ']'", start)
            return i

        pos = advance(pos)
        negated = p[pos] == "^"
        if negated:
            pos = advance(pos)
        frame = _Bracket(start, negated)
        while p[pos] == "-":  # any number of leading '-' are literals
            frame.parts.append(sets.single(0x2D, 0x2D))
            pos = advance(pos, frame)
        if not frame.parts and p[pos] == "]":  # a first ']' is a literal: `[]a]`
            frame.parts.append(sets.single(0x5D, 0x5D))
            frame.literal_bracket = True
            pos = advance(pos, frame)
        return frame, pos

    def unclosed_class(self, frame: _Bracket) -> RegexError:
        """The error for a class still open at the end: it points at the innermost `[`."""
        hint = ""
        if frame.literal_bracket:
            hint = " (a ']' right after '[' or '[^' is a literal ']', so an empty character " \
                   "class cannot be written; [^\\x00-\\x{10FFFF}] matches nothing)"
        return self.error("unclosed character class: expected ']'" + hint, frame.offset)

    def combine(self, frame: _Bracket, rhs: Any, sets: Any, flags: Flags) -> Any:
        """Apply the pending set operator; Rust folds both operands first under (?i)."""
        lhs = frame.lhs
        if flags.case_insensitive:
            lhs, rhs = sets.fold(lhs), sets.fold(rhs)
        return sets.combine(frame.op, lhs, rhs)

    def close_bracket(self, frame: _Bracket, sets: Any, flags: Flags) -> Any:
        """The set of a finished bracket: union, pending operator, fold, then negate."""
        result = sets.union(frame.parts) if frame.parts else sets.empty
        if frame.op is not None:
            result = self.combine(frame, result, sets, flags)
        if flags.case_insensitive:
            result = sets.fold(result)
        return sets.negate(result) if frame.negated else result

    def ascii_class(self, pos: int, sets: Any, flags: Flags) -> Optional[Tuple[Any, int]]:
        """`[:alpha:]` or `[:^alpha:]` in a class, else None (Rust: then it's a nested class)."""
        p = self.p
        if not p.startswith("[:", pos):
            return None
        i = pos + 2
        negated = p.startswith("^", i)
        if negated:
            i += 1
        colon = p.find(":", i)
        if colon < 0 or not p.startswith(":]", colon):
            return None
        ranges = ASCII_CLASSES.get(p[i:colon])
        if ranges is None:
            return None
        result = sets.ascii(ranges)
        if flags.case_insensitive:
            result = sets.fold(result)
        if negated:
            result = sets.negate(result)
        return result, colon + 2

    def class_range(self, pos: int, sets: Any, flags: Flags,
                    frame: _Bracket) -> Tuple[Any, int]:
        """One class item: a character, a range `a-z`, or an escape like `\\d` (Rust
        `parse_set_class_range`: `-` before `]` or `-` is a literal, not a range)."""
        p, n = self.p, self.n
        verbose = flags.verbose
        first, pos = self.class_primitive(pos, sets, flags)
        if verbose:
            pos = self.skip_space(pos)
        if pos >= n:
            raise self.unclosed_class(frame)
        if p[pos] != "-" or self.peek_space(pos, verbose) in ("]", "-"):
            return (first[1] if first[0] == "set" else sets.single(first[1], first[1])), pos
        pos = self.skip_space(pos + 1) if verbose else pos + 1
        if pos >= n:
            raise self.unclosed_class(frame)
        second, pos = self.class_primitive(pos, sets, flags)
        for prim in (first, second):
            if prim[0] != "char":
                raise self.error("invalid range boundary: it must be a single character, not "
                                 "a class", prim[2])
        lo, hi = first[1], second[1]
        if lo > hi:
            raise self.error("invalid character class range %s-%s: the start must be <= the end"
                             % (p[first[2]:first[3]], p[second[2]:second[3]]), first[2])
        return sets.single(lo, hi), pos

    def class_primitive(self, pos: int, sets: Any, flags: Flags) -> Tuple[tuple, int]:
        """One character or escape in a class: ("char", value, start, end) or ("set", ...)."""
        p = self.p
        if p[pos] != "\\":
            value = self.class_char(ord(p[pos]), False, pos, flags)
            return ("char", value, pos, pos + 1), pos + 1
        esc = self.read_escape(pos, in_class=True)
        if esc.kind == "char":
            value = self.class_char(esc.cp, esc.byte_escape, esc.start, flags)
            return ("char", value, esc.start, esc.end), esc.end
        if esc.kind == "perl":
            return ("set", perl_class(esc.letter, flags.unicode), esc.start, esc.end), esc.end
        return ("set", self.property_set(esc, flags), esc.start, esc.end), esc.end

    def class_char(self, cp: int, byte_escape: bool, pos: int, flags: Flags) -> int:
        """A class character's value: its code point, or its byte in byte mode."""
        if 0xD800 <= cp <= 0xDFFF:
            raise self.error("surrogate code point U+%04X is not a Unicode scalar value" % cp, pos)
        if flags.unicode or cp < 0x80 or byte_escape:
            return cp
        # Rust: "Unicode not allowed here" (a byte class cannot hold a multi-byte character).
        raise self.error("non-ASCII character %r in a byte-mode (?-u) class: Unicode is not "
                         "allowed here (write bytes as \\xHH)" % chr(cp), pos)
