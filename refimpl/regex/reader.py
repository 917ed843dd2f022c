"""Reading a pattern (Rust `regex` syntax, as llguidance accepts it) into its syntax tree.

    read_pattern(r"[a-z]+(?:\\.[a-z]+)*")  ->  Concat((Repeat(Class, 1, None), Repeat(Concat, 0, None)))

The dialect is that of Rust's regex-syntax crate (under llguidance and its regex engine
derivre), restricted to what a *full-match* language can mean:

* literals, escapes (escapes.py), `.`, bracketed classes (brackets.py),
  `\\d \\w \\s \\D \\W \\S`, `\\p{..} \\P{..} \\pL`;
* groups `( )`, `(?: )`, `(?P<name> )`, `(?<name> )`, alternation `|`, quantifiers
  `* + ? {n} {n,} {n,m}` (a lazy `?` suffix is accepted and means nothing here);
* flags `i m s U u R x` (flags.py), as `(?flags)` up to the end of the group or
  `(?flags:...)`; `(?-u)` is byte mode: `\\xHH` is then a raw byte and `.` any byte but `\\n`;
* `^`, `\\A` at the start and `$`, `\\z` at the end of the pattern: every match is a
  full match, so there they mean nothing; anywhere else they are an error, as are
  look-around, backreferences and word boundaries;
* with `extended=True` two operators that are not Rust syntax: infix `&` (intersection;
  binds tighter than `|`, looser than concatenation) and prefix `~` (complement of the
  following quantified atom: `~a*` is `~(a*)`).  They are what printer.py prints.

The reader is built in layers, each a class on the one before: escapes.py (the text,
its errors, escapes), brackets.py (classes), and here the rest.  The tree it builds
(ast.py) is *semantic*: flags are resolved while reading, so there are no flag or group
nodes.  Nothing here recurses on the input: groups and classes are read with explicit
stacks, so 10,000 nested parentheses are fine.  Every error is a `RegexError` carrying
the offset of the offending character; a counted repetition above `limits.repeat_bound`
raises `LimitError`.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ..errors import LimitError
from ..limits import DEFAULT_LIMITS, Limits
from .ast import (
    Alternation,
    Anchor,
    ByteClass,
    ByteLiteral,
    Class,
    Complement,
    Concat,
    Empty,
    Intersection,
    Literal,
    Node,
    Repeat,
)
from .brackets import BracketReader, class_node
from .charsets import ByteMasks, dot, perl_class
from .escapes import WHITE_SPACE, Escape
from .flags import Flags, read_flags

__all__ = ["read_pattern"]

_FLAGS_SENTINEL = object()  # a (?flags) directive in a concatenation: not an operand


class _Group:
    """One open group on the reader's stack (the whole pattern is the bottom one).

    A group is read as alternatives (`branches`), each the intersection of `operands`
    (extended syntax), each a concatenation of `items`; `wraps[i]` lists the offsets of
    the `~` operators applying to items[i], `nots` those waiting for the next item.
    """

    def __init__(self, offset: int, flags: Flags, start: int) -> None:
        self.offset = offset          # of the `(`
        self.flags = flags
        self.branches: List[Node] = []
        self.operands: List[Node] = []
        self.last_and = -1            # offset of the last `&`
        self.items: List[Any] = []
        self.wraps: List[List[int]] = []
        self.nots: List[int] = []
        self.start = start            # offset where the current concatenation starts

    def push(self, node: Node) -> None:
        """Append an operand to the current concatenation (taking pending `~`s)."""
        self.items.append(node)
        self.wraps.append(self.nots)
        self.nots = []


class _Reader(BracketReader):
    """A one-shot reader; `read()` returns the root node or raises RegexError."""

    def __init__(self, pattern: str, extended: bool, limits: Limits) -> None:
        super().__init__(pattern)
        self.extended = extended
        self.limits = limits
        self.names: Dict[str, int] = {}
        self.saw_anchor = False

    # -- the main loop -----------------------------------------------------------------

    def read(self) -> Node:
        """Read the whole pattern with an explicit stack of open groups."""
        groups = [_Group(0, Flags(), 0)]
        pos = 0
        while True:
            if groups[-1].flags.verbose:
                pos = self.skip_space(pos)
            if pos >= self.n:
                break
            pos = self.step(groups, pos)
        if len(groups) > 1:
            raise self.error("unclosed group: expected ')' to close this '('", groups[-1].offset)
        root = self.finish_group(groups[0])
        if root is None:
            root = Empty(0)
        if self.saw_anchor:
            self.check_anchors(root)
        return root

    def step(self, groups: List[_Group], pos: int) -> int:
        """Read the operator or atom at p[pos] into the innermost group; the offset after it."""
        p = self.p
        group = groups[-1]
        c = p[pos]
        if c == "(":
            return self.open_group(groups, pos)
        if c == ")":
            if len(groups) == 1:
                raise self.error("unopened group: this ')' has no matching '('", pos)
            groups.pop()
            node = self.finish_group(group)
            groups[-1].push(node if node is not None else Empty(group.offset))
            return pos + 1
        if c == "|":
            self.finish_branch(group)
            group.start = pos + 1
            return pos + 1
        if c == "&" and self.extended:
            node = self.finish_concat(group)
            if node is None:
                raise self.error("intersection '&' without a left operand", pos)
            group.operands.append(node)
            group.last_and = pos
            group.start = pos + 1
            return pos + 1
        if c == "~" and self.extended:
            group.nots.append(pos)
            return pos + 1
        if c in "*+?":
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            self.check_operand(group, pos, c)
            pos += 1
            if pos < self.n and p[pos] == "?":  # lazy: same language
                pos += 1
            self.repeat_last(group, lo, hi)
            return pos
        if c == "{":
            return self.counted_repetition(group, pos)
        return self.atom(group, pos)

    def atom(self, group: _Group, pos: int) -> int:
        """Read a class, `.`, an anchor, an escape or a literal at p[pos]; the offset after it."""
        c = self.p[pos]
        flags = group.flags
        if c == "[":
            node, pos = self.read_class(pos, flags)
            group.push(node)
            return pos
        if c == ".":
            group.push(class_node(dot(flags), flags, pos))
        elif c == "^" or c == "$":
            self.saw_anchor = True
            group.push(Anchor(c, pos))
        elif c == "\\":
            esc = self.read_escape(pos, in_class=False)
            group.push(self.escape_node(esc, flags))
            return esc.end
        else:
            group.push(self.literal(ord(c), flags, pos))
        return pos + 1

    # -- groups, alternation, intersection, concatenation ---------------------------------

    def finish_concat(self, group: _Group) -> Optional[Node]:
        """The current concatenation as a node (None if it has no operand); then reset it."""
        if group.nots:
            raise self.error("complement '~' without an operand", group.nots[0])
        parts: List[Node] = []
        real = False
        for node, wraps in zip(group.items, group.wraps):
            if node is _FLAGS_SENTINEL:
                continue
            real = True
            for offset in reversed(wraps):
                node = Complement(node, offset)
            if type(node) is not Empty:  # ε is the identity of concatenation
                parts.append(node)
        start = group.start
        group.items, group.wraps = [], []
        if not real:
            return None
        if not parts:
            return Empty(start)
        if len(parts) == 1:
            return parts[0]
        return Concat(tuple(parts), parts[0].offset)

    def finish_branch(self, group: _Group) -> None:
        """Close the current alternative (at `|`, `)` or the end) into `group.branches`."""
        node = self.finish_concat(group)
        if group.operands:
            if node is None:
                raise self.error("intersection '&' without a right operand", group.last_and)
            node = Intersection(tuple(group.operands) + (node,), group.operands[0].offset)
            group.operands = []
        group.branches.append(node if node is not None else Empty(group.start))

    def finish_group(self, group: _Group) -> Optional[Node]:
        """The node of a whole group: its alternatives (None for an empty group)."""
        self.finish_branch(group)
        branches = group.branches
        if len(branches) == 1:
            only = branches[0]
            return None if type(only) is Empty else only
        return Alternation(tuple(branches), branches[0].offset)

    def open_group(self, groups: List[_Group], pos: int) -> int:
        """Read `(`, `(?:`, `(?flags)`, `(?flags:`, `(?P<name>` or `(?<name>`."""
        p, n = self.p, self.n
        group = groups[-1]
        start = pos
        pos += 1
        if group.flags.verbose:
            pos = self.skip_space(pos)
        # Rust regex-syntax `is_lookaround_prefix` is checked first, so `(?<=` is not a name.
        for prefix in ("?=", "?!", "?<=", "?<!"):
            if p.startswith(prefix, pos):
                raise self.error(
                    "look-around is not supported: (%s...) is look-%s" % (
                        prefix, "behind" if "<" in prefix else "ahead"), start)
        if p.startswith("?P=", pos):
            raise self.error("backreferences are not supported: (?P=name)", start)
        if p.startswith("?P>", pos):
            raise self.error("recursion is not supported: (?P>name)", start)
        if p.startswith("?P<", pos) or p.startswith("?<", pos):
            pos = self.capture_name(pos + (3 if p[pos + 1] == "P" else 2))
            groups.append(_Group(start, group.flags, pos))
            return pos
        if not p.startswith("?", pos):
            groups.append(_Group(start, group.flags, pos))
            return pos
        pos += 1
        if pos >= n:
            raise self.error("unclosed group: expected flags, ':' or ')' after '(?'", start)
        if p[pos] == ")":
            raise self.error("empty flag group '(?)': expected flags such as (?i)", pos)
        flags, pos = read_flags(p, pos, group.flags)
        if p[pos] == ")":  # (?flags): in force up to the end of the enclosing group
            group.flags = flags
            group.items.append(_FLAGS_SENTINEL)
            group.wraps.append([])
            return pos + 1
        pos += 1  # the ':' of (?flags:...)
        groups.append(_Group(start, flags, pos))
        return pos


    def capture_name(self, pos: int) -> int:
        """Check a group name starting at `pos`; return the offset after its `>`."""
        p, n = self.p, self.n
        start = pos
        while pos < n and p[pos] != ">":
            c = p[pos]
            # Rust `is_capture_char`: a letter or _ first, then also digits . [ ]
            ok = c == "_" or c.isalpha() or (pos > start and (c.isalnum() or c in ".[]"))
            if not ok:
                raise self.error("invalid character %r in a capture group name" % c, pos)
            pos += 1
        if pos >= n:
            raise self.error("unclosed capture group name: expected '>'", pos)
        name = p[start:pos]
        if not name:
            raise self.error("empty capture group name", pos)
        if name in self.names:
            raise self.error("duplicate capture group name %r" % name, start)
        self.names[name] = start
        return pos + 1

    # -- quantifiers ---------------------------------------------------------------------

    def check_operand(self, group: _Group, pos: int, text: str) -> None:
        """A quantifier needs an operand right before it (not a flag directive, not `~`)."""
        if group.nots or not group.items or group.items[-1] is _FLAGS_SENTINEL:
            raise self.error("quantifier %r without an operand (nothing to repeat)" % text, pos)

    def repeat_last(self, group: _Group, lo: int, hi: Optional[int]) -> None:
        """Wrap the last item of the concatenation in a repetition."""
        bound = self.limits.repeat_bound
        if lo > bound or (hi is not None and hi > bound):
            raise LimitError("repeat_bound", bound, "counted repetition {%d%s}" % (
                lo, "" if hi == lo else "," + ("" if hi is None else str(hi))))
        item = group.items[-1]
        group.items[-1] = Repeat(item, lo, hi, item.offset)

    def decimal(self, pos: int) -> Tuple[Optional[int], int, int]:
        """Rust `parse_decimal`: digits, whitespace around them skipped (even without x).

        Returns (value or None if no digits, offset of the digits, offset after).
        """
        p, n = self.p, self.n
        while pos < n and p[pos] in WHITE_SPACE:
            pos += 1
        start = pos
        while pos < n and "0" <= p[pos] <= "9":
            pos += 1
        digits = p[start:pos]
        while pos < n and p[pos] in WHITE_SPACE:
            pos += 1
        if not digits:
            return None, start, pos
        if len(digits) > 12:  # surely above any repeat_bound; avoid int() of huge text
            bound = self.limits.repeat_bound
            raise LimitError("repeat_bound", bound, "counted repetition of %d digits" % len(digits))
        return int(digits), start, pos

    def counted_repetition(self, group: _Group, pos: int) -> int:
        """Read `{n}`, `{n,}` or `{n,m}` (Rust: `{` always starts a quantifier)."""
        p, n = self.p, self.n
        start = pos
        self.check_operand(group, pos, "{")
        verbose = group.flags.verbose
        unclosed = "unclosed counted repetition: expected '}'"
        expects = "repetition quantifier expects a valid decimal"
        pos = self.skip_space(pos + 1) if verbose else pos + 1
        if pos >= n:
            raise self.error(unclosed, start)
        lo, lo_at, pos = self.decimal(pos)
        if pos >= n:
            raise self.error(unclosed, start)
        if p[pos] == ",":
            pos = self.skip_space(pos + 1) if verbose else pos + 1
            if pos >= n:
                raise self.error(unclosed, start)
            if lo is None:
                raise self.error(expects + " (the minimum is required: {0,m})", lo_at)
            if p[pos] == "}":
                hi: Optional[int] = None
            else:
                hi, hi_at, pos = self.decimal(pos)
                if hi is None:
                    raise self.error(expects, hi_at)
        else:
            if lo is None:
                raise self.error(expects, lo_at)
            hi = lo
        if pos >= n or p[pos] != "}":
            raise self.error(unclosed, start)
        pos += 1
        if pos < n and p[pos] == "?":  # lazy
            pos += 1
        if hi is not None and lo > hi:
            raise self.error("invalid repetition count range {%d,%d}: the minimum must be "
                             "<= the maximum" % (lo, hi), start)
        self.repeat_last(group, lo, hi)
        return pos

    # -- anchors -------------------------------------------------------------------------

    def check_anchors(self, root: Node) -> None:
        """Anchors must be at the start/end, as derivre accepts them (through `|`, groups).

        A node is "at the start" if it is the root, the first item of a concatenation at
        the start, or an alternative (or operand of & or ~) of a node at the start; never
        inside a repetition.  Likewise for the end.
        """
        stack: List[Tuple[Node, bool, bool]] = [(root, True, True)]
        while stack:
            node, at_start, at_end = stack.pop()
            if isinstance(node, Anchor):
                if node.kind in ("^", "\\A") and not at_start:
                    raise self.error(
                        "anchors are only supported at the ends of the pattern: '%s' is not at "
                        "the start (every match is a full match)" % node.kind, node.offset)
                if node.kind in ("$", "\\z") and not at_end:
                    raise self.error(
                        "anchors are only supported at the ends of the pattern: '%s' is not at "
                        "the end (every match is a full match)" % node.kind, node.offset)
            elif isinstance(node, Concat):
                last = len(node.items) - 1
                for i, child in enumerate(node.items):
                    stack.append((child, at_start and i == 0, at_end and i == last))
            elif isinstance(node, (Alternation, Intersection)):
                for child in node.items:
                    stack.append((child, at_start, at_end))
            elif isinstance(node, Complement):
                stack.append((node.item, at_start, at_end))
            elif isinstance(node, Repeat):
                stack.append((node.item, False, False))

    # -- atoms ---------------------------------------------------------------------------

    def literal(self, cp: int, flags: Flags, pos: int) -> Node:
        """A literal character under the flags in force."""
        if 0xD800 <= cp <= 0xDFFF:
            raise self.error("surrogate code point U+%04X is not a Unicode scalar value" % cp, pos)
        if flags.unicode:
            return Literal(cp, flags.case_insensitive, pos)
        # Rust byte mode: case folding is ASCII-only, and non-ASCII text is still UTF-8.
        if flags.case_insensitive and cp < 0x80 and chr(cp).isalpha():
            return ByteClass(ByteMasks.fold(1 << cp), pos)
        return Literal(cp, False, pos)

    def escape_node(self, esc: Escape, flags: Flags) -> Node:
        """The node of an escape sequence outside a class."""
        if esc.kind == "char":
            if esc.byte_escape and not flags.unicode and esc.cp >= 0x80:
                return ByteLiteral(esc.cp, esc.start)  # \xHH in byte mode: a raw byte
            return self.literal(esc.cp, flags, esc.start)
        if esc.kind == "anchor":
            self.saw_anchor = True
            return Anchor("\\" + esc.letter, esc.start)
        if esc.kind == "perl":
            return class_node(perl_class(esc.letter, flags.unicode), flags, esc.start)
        return Class(self.property_set(esc, flags), esc.start)


def read_pattern(pattern: str, *, extended: bool = False, limits: Limits = DEFAULT_LIMITS) -> Node:
    """Read `pattern` (Rust regex syntax; plus `&` and `~` if `extended`) into its syntax tree.

    >>> from refimpl.regex.ast import dump
    >>> dump(read_pattern("(?i:a)b{2,}"))
    "(concat i'a' (repeat 2 inf 'b'))"
    >>> dump(read_pattern("a&~b", extended=True))
    "(and 'a' (not 'b'))"
    """
    return _Reader(pattern, extended, limits).read()
