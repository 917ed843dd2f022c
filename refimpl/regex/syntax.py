"""Reading patterns (Rust `regex` syntax, as llguidance accepts it) into a small AST.

    read_pattern(r"[a-z]+(?:\\.[a-z]+)*")  ->  Concat((Repeat(Class, 1, None), Repeat(Concat, 0, None)))

The dialect is that of Rust's regex-syntax crate (the parser under llguidance and its
regex engine derivre), restricted to what a *full-match* language can mean:

* literals, escapes (`\\n \\t \\r \\f \\v \\a`, `\\xHH`, `\\x{H..}`, `\\uHHHH`, `\\u{H..}`,
  `\\UHHHHHHHH`, any escaped ASCII punctuation), `.`, classes `[...]` with ranges,
  negation, nesting, `&&` `--` `~~` set operations and `[:alpha:]` ASCII classes,
  `\\d \\w \\s \\D \\W \\S`, `\\p{..} \\P{..} \\pL`;
* groups `( )`, `(?: )`, `(?P<name> )`, `(?<name> )`, alternation `|`, quantifiers
  `* + ? {n} {n,} {n,m}` (a lazy `?` suffix is accepted and means nothing here);
* flags `i m s U u R x`, as `(?flags)` up to the end of the group or `(?flags:...)`;
  `(?-u)` is byte mode: `\\xHH` is then a raw byte and `.` any byte but `\\n`;
* `^`, `\\A` at the start and `$`, `\\z` at the end of the pattern: every match is a
  full match, so there they mean nothing; anywhere else they are an error, as are
  look-around, backreferences and word boundaries;
* with `extended=True` two operators that are not Rust syntax: infix `&` (intersection;
  binds tighter than `|`, looser than concatenation) and prefix `~` (complement of the
  following quantified atom: `~a*` is `~(a*)`).  They are what printer.py prints.

The AST is *semantic*: flags are resolved while reading, so there are no flag or group
nodes.  A group is just its contents; a class node holds its final set (case folding,
negation and set operations done); `(?i)` survives only as `Literal.fold`, which the
compiler applies.  Nodes are immutable values; equality and hashing ignore offsets.

Nothing here recurses on the input: groups and classes are read with explicit stacks,
and every walk over the AST (equality, hashing, repr, `dump`, the compiler) is iterative,
so 10,000 nested parentheses are fine.  Every error is a `RegexError` carrying the offset
of the offending character; a counted repetition above `limits.repeat_bound` raises
`LimitError`.
"""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from ..errors import LimitError, RegexError
from ..limits import DEFAULT_LIMITS, Limits
from . import unicode as uni

Ranges = Tuple[Tuple[int, int], ...]

ALL_BYTES = (1 << 256) - 1

__all__ = [
    "ALL_BYTES", "Alternation", "Anchor", "ByteClass", "ByteLiteral", "Class", "Complement",
    "Concat", "Empty", "Intersection", "Literal", "Node", "Repeat", "dump", "read_pattern",
]


# =============================================================================== the AST

class Node:
    """Base class of the AST nodes: immutable values, compared and hashed without recursion.

    Each subclass lists its constructor fields in `_fields` (`offset` last: the index in
    the pattern where the node starts, used only for messages) and which of them hold
    sub-nodes in `_node_fields`.  Two nodes are equal when their types and non-offset
    fields are equal, recursively.
    """

    __slots__ = ("_hash",)
    _hash: Optional[int]
    offset: int
    _fields: Tuple[str, ...] = ()
    _node_fields: Tuple[str, ...] = ()
    _defaults: Dict[str, Any] = {"offset": 0, "fold": False}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Fill the fields from positional and keyword arguments (`offset` defaults to 0)."""
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError("%s takes at most %d arguments" % (type(self).__name__, len(fields)))
        values = dict(zip(fields, args))
        for key, value in kwargs.items():
            if key not in fields or key in values:
                raise TypeError("%s: bad or repeated field %r" % (type(self).__name__, key))
            values[key] = value
        for name in fields:
            if name not in values:
                if name not in self._defaults:
                    raise TypeError("%s: missing field %r" % (type(self).__name__, name))
                values[name] = self._defaults[name]
            object.__setattr__(self, name, values[name])
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name: str, value: Any) -> None:
        """Nodes are immutable."""
        raise AttributeError("AST nodes are immutable")

    def children(self) -> Tuple["Node", ...]:
        """The direct sub-nodes, in order."""
        out: List[Node] = []
        for name in self._node_fields:
            value = getattr(self, name)
            if isinstance(value, Node):
                out.append(value)
            else:
                out.extend(value)
        return tuple(out)

    def _key(self) -> Tuple[Any, ...]:
        """The fields that are neither sub-nodes nor the offset."""
        return tuple(getattr(self, f) for f in self._fields
                     if f != "offset" and f not in self._node_fields)

    def __eq__(self, other: object) -> bool:
        """Structural equality (offsets ignored), on an explicit stack of node pairs."""
        if not isinstance(other, Node):
            return NotImplemented
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if type(a) is not type(b) or a._key() != b._key():
                return False
            ca, cb = a.children(), b.children()
            if len(ca) != len(cb):
                return False
            stack.extend(zip(ca, cb))
        return True

    def __hash__(self) -> int:
        """A hash consistent with `__eq__`, computed once per node, bottom-up without recursion."""
        if self._hash is not None:
            return self._hash
        h = 0
        stack: List[Node] = [self]  # post-order: children's hashes first, `self` last
        while stack:
            node = stack[-1]
            missing = [c for c in node.children() if c._hash is None]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            if node._hash is None:
                h = hash((type(node).__name__, node._key(),
                          tuple(c._hash for c in node.children())))
                object.__setattr__(node, "_hash", h)
        return h  # the last node hashed is `self`

    def __repr__(self) -> str:
        """`Type(field, ..., offset=n)`, expanded on an explicit stack."""
        out: List[str] = []
        stack: List[Any] = [self]  # strings to emit and nodes to expand
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            parts: List[Any] = [type(item).__name__, "("]
            for i, name in enumerate(item._fields):
                if i:
                    parts.append(", ")
                value = getattr(item, name)
                if name in item._node_fields and isinstance(value, tuple):
                    parts.append("(")
                    for j, child in enumerate(value):
                        parts.extend((", ", child) if j else (child,))
                    parts.append(",)" if len(value) == 1 else ")")
                elif name in item._node_fields:
                    parts.append(value)
                else:
                    parts.append("%s=%r" % (name, value) if name == "offset" else repr(value))
            parts.append(")")
            stack.extend(reversed(parts))
        return "".join(out)


class Empty(Node):
    """ε, the empty word: `()`, an empty alternative `a|`, the empty pattern."""
    __slots__ = _fields = ("offset",)


class Literal(Node):
    """One code point, matched as its UTF-8 bytes; `fold`: case-insensitively, `(?i)`."""
    __slots__ = _fields = ("cp", "fold", "offset")
    cp: int
    fold: bool


class ByteLiteral(Node):
    """One raw byte (>= 0x80): `\\xHH` in byte mode `(?-u)`."""
    __slots__ = _fields = ("byte", "offset")
    byte: int


class Class(Node):
    """One code point out of `ranges` (canonical inclusive pairs, no surrogates; () = ∅)."""
    __slots__ = _fields = ("ranges", "offset")
    ranges: Ranges


class ByteClass(Node):
    """One byte out of `mask` (bit b set = byte b): classes, `.` and `(?i)` in byte mode."""
    __slots__ = _fields = ("mask", "offset")
    mask: int


class Anchor(Node):
    """`^`, `$`, `\\A` or `\\z` (the `kind`) where it means nothing: at an end of the pattern."""
    __slots__ = _fields = ("kind", "offset")
    kind: str


class Concat(Node):
    """The items one after the other (at least two)."""
    __slots__ = _fields = ("items", "offset")
    _node_fields = ("items",)
    items: Tuple[Node, ...]


class Alternation(Node):
    """Any one of the items (at least two): `a|b`."""
    __slots__ = _fields = ("items", "offset")
    _node_fields = ("items",)
    items: Tuple[Node, ...]


class Intersection(Node):
    """Words matching every item (at least two): `a&b`, extended syntax only."""
    __slots__ = _fields = ("items", "offset")
    _node_fields = ("items",)
    items: Tuple[Node, ...]


class Complement(Node):
    """Every byte string the item does not match: `~a`, extended syntax only."""
    __slots__ = _fields = ("item", "offset")
    _node_fields = ("item",)
    item: Node


class Repeat(Node):
    """`item{lo,hi}`; `hi` None means unbounded (`*` is 0..None, `+` 1..None, `?` 0..1)."""
    __slots__ = _fields = ("item", "lo", "hi", "offset")
    _node_fields = ("item",)
    item: Node
    lo: int
    hi: Optional[int]


def _char_text(cp: int) -> str:
    """A code point as it appears in `dump`: itself when printable ASCII, else \\u{..}."""
    if 0x21 <= cp < 0x7F:
        return chr(cp)
    return "\\u{%X}" % cp


def _ranges_text(ranges: Ranges) -> str:
    """Ranges as class text for `dump`: `a-z0`."""
    parts = []
    for lo, hi in ranges:
        parts.append(_char_text(lo) if lo == hi else _char_text(lo) + "-" + _char_text(hi))
    return "".join(parts)


def _class_text(ranges: Ranges) -> str:
    """A Unicode class for `dump`: `any`, or `[...]`, shown negated when it holds both 0 and
    0x10FFFF."""
    if ranges == uni.ANY:
        return "any"
    negated = len(ranges) > 1 and ranges[0][0] == 0 and ranges[-1][1] == 0x10FFFF
    shown = uni.negate(ranges) if negated else ranges
    return "[%s%s]" % ("^" if negated else "", _ranges_text(shown))


def _mask_text(mask: int) -> str:
    """A byte class for `dump`: `bytes[\\x00-\\x09\\x0B]`."""
    pairs = []
    b = 0
    while b < 256:
        if (mask >> b) & 1:
            lo = b
            while b < 255 and (mask >> (b + 1)) & 1:
                b += 1
            pairs.append((lo, b))
        b += 1
    return "bytes[%s]" % "".join(
        "\\x%02X" % lo if lo == hi else "\\x%02X-\\x%02X" % (lo, hi) for lo, hi in pairs)


def dump(node: Node) -> str:
    """A compact, offset-free text of the tree, for tests and teaching.

    >>> dump(read_pattern("ab|c*"))
    "(alt (concat 'a' 'b') (repeat 0 inf 'c'))"
    >>> dump(read_pattern("(?i)x[^a]"))
    "(concat i'x' [^Aa])"
    """
    out: List[str] = []
    stack: List[Any] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        t = type(item)
        if t is Empty:
            out.append("empty")
        elif t is Literal:
            out.append(("i'%s'" if item.fold else "'%s'") % _char_text(item.cp))
        elif t is ByteLiteral:
            out.append("\\x%02X" % item.byte)
        elif t is Class:
            out.append(_class_text(item.ranges))
        elif t is ByteClass:
            out.append(_mask_text(item.mask))
        elif t is Anchor:
            out.append(item.kind)
        elif t is Complement:
            stack.extend((")", item.item, "(not "))
        elif t is Repeat:
            stack.extend((")", item.item, "(repeat %d %s " % (
                item.lo, "inf" if item.hi is None else item.hi)))
        else:
            name = {Concat: "concat", Alternation: "alt", Intersection: "and"}[t]
            parts: List[Any] = ["(" + name]
            for child in item.items:
                parts.extend((" ", child))
            parts.append(")")
            stack.extend(reversed(parts))
    return "".join(out)


# ====================================================================== character tables

# Rust regex-syntax `is_meta_character`: these may always be escaped.
_META = frozenset("\\.+*?()|[]{}^$#&-~")
_HEX = frozenset("0123456789abcdefABCDEF")
# One-letter escapes for control characters (Rust: \a \f \t \n \r \v; no \e, no \0).
_SPECIAL_ESCAPES = {"a": 0x07, "f": 0x0C, "t": 0x09, "n": 0x0A, "r": 0x0D, "v": 0x0B}
# The White_Space property (Rust's char::is_whitespace), for verbose mode and {n,m}.
_WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_FLAG_LETTERS = "imsUuRx"
_INVALID_ESCAPE_HINTS = {
    "Z": "; use \\z for the end of the text",
    "e": "; use \\x1B for the escape character",
    "h": "; use [ \\t] or \\s",
    "Q": "; escape each metacharacter with \\ instead",
}
_FLAG_HINTS = {
    "#": "; comments (?#...) are not supported",
    ">": "; atomic groups (?>...) are not supported",
    "|": "; branch reset groups (?|...) are not supported",
    "(": "; conditionals (?(...)...) are not supported",
}
_FLAG_HINTS.update((d, "; recursion (?%s) is not supported" % d) for d in "0123456789+")

# POSIX classes `[[:name:]]` (Rust regex-syntax `ascii_class`), always ASCII-only.
_ASCII_CLASSES: Dict[str, Ranges] = {
    "alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "ascii": ((0x00, 0x7F),),
    "blank": ((0x09, 0x09), (0x20, 0x20)),
    "cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "digit": ((0x30, 0x39),),
    "graph": ((0x21, 0x7E),),
    "lower": ((0x61, 0x7A),),
    "print": ((0x20, 0x7E),),
    "punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    "space": ((0x09, 0x0D), (0x20, 0x20)),
    "upper": ((0x41, 0x5A),),
    "word": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
    "xdigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}


def _is_escapable(c: str) -> bool:
    """Rust `is_escapeable_character`: metacharacters and ASCII other than [0-9A-Za-z<>]."""
    return c in _META or (c < "\x80" and not ("0" <= c <= "9" or "a" <= c.lower() <= "z")
                          and c not in "<>")


def _mask_of(ranges: Ranges) -> int:
    """The 256-bit byte mask of byte ranges."""
    mask = 0
    for lo, hi in ranges:
        mask |= ((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1)
    return mask


# ============================================================================ set algebra

class _CodePointSets:
    """Class algebra in Unicode mode: a set is a canonical `Ranges` of scalar values."""

    empty: Ranges = ()

    @staticmethod
    def single(lo: int, hi: int) -> Ranges:
        """The set lo..hi."""
        return uni.normalize(((lo, hi),))

    @staticmethod
    def union(sets: List[Ranges]) -> Ranges:
        """The union of a non-empty list of sets."""
        return sets[0] if len(sets) == 1 else uni.union(*sets)

    @staticmethod
    def combine(op: str, lhs: Ranges, rhs: Ranges) -> Ranges:
        """`lhs && rhs`, `lhs -- rhs` or `lhs ~~ rhs`."""
        if op == "&&":
            return uni.intersection(lhs, rhs)
        if op == "--":
            return uni.difference(lhs, rhs)
        return uni.symmetric_difference(lhs, rhs)

    negate = staticmethod(uni.negate)
    fold = staticmethod(uni.case_fold)

    @staticmethod
    def ascii(ranges: Ranges) -> Ranges:
        """An ASCII table as a set of this mode."""
        return ranges


class _ByteSets:
    """Class algebra in byte mode `(?-u)`: a set is a 256-bit int mask."""

    empty = 0

    @staticmethod
    def single(lo: int, hi: int) -> int:
        """The set lo..hi."""
        return _mask_of(((lo, hi),))

    @staticmethod
    def union(sets: List[int]) -> int:
        """The union of a list of sets."""
        mask = 0
        for s in sets:
            mask |= s
        return mask

    @staticmethod
    def combine(op: str, lhs: int, rhs: int) -> int:
        """`lhs && rhs`, `lhs -- rhs` or `lhs ~~ rhs`."""
        if op == "&&":
            return lhs & rhs
        if op == "--":
            return lhs & ~rhs
        return lhs ^ rhs

    @staticmethod
    def negate(mask: int) -> int:
        """Complement within the 256 bytes."""
        return ALL_BYTES ^ mask

    @staticmethod
    def fold(mask: int) -> int:
        """ASCII-only case folding, as Rust does in byte mode."""
        upper = (mask >> 0x41) & 0x3FFFFFF
        lower = (mask >> 0x61) & 0x3FFFFFF
        return mask | (upper << 0x61) | (lower << 0x41)

    ascii = staticmethod(_mask_of)


_PERL_UNICODE = {"d": uni.PERL_DIGIT, "s": uni.PERL_SPACE, "w": uni.PERL_WORD}
_PERL_ASCII = {"d": _ASCII_CLASSES["digit"], "s": _ASCII_CLASSES["space"],
               "w": _ASCII_CLASSES["word"]}
_NEGATED_CACHE: Dict[str, Ranges] = {}
_PROPERTY_CACHE: Dict[Tuple[str, Optional[str]], Ranges] = {}


def _perl_class(letter: str, unicode_mode: bool) -> Any:
    """`\\d \\s \\w` (lowercase letter) or their negations (uppercase), as a set of the mode."""
    base = letter.lower()
    if not unicode_mode:
        mask = _mask_of(_PERL_ASCII[base])
        return mask if letter == base else ALL_BYTES ^ mask
    if letter == base:
        return _PERL_UNICODE[base]
    got = _NEGATED_CACHE.get(base)
    if got is None:
        got = _NEGATED_CACHE[base] = uni.negate(_PERL_UNICODE[base])
    return got


def _dot(flags: "_Flags", offset: int) -> Node:
    """`.`: any scalar value (byte in byte mode) but `\\n` (and `\\r` with R), all with s."""
    excluded: Ranges = ()
    if not flags.dot_all:
        excluded = ((0x0A, 0x0A), (0x0D, 0x0D)) if flags.crlf else ((0x0A, 0x0A),)
    if flags.unicode:
        return Class(uni.negate(excluded), offset)
    return ByteClass(ALL_BYTES ^ _mask_of(excluded), offset)


# ================================================================================ reader

class _Flags(NamedTuple):
    """The flags in force (Rust: i m s U u R x); resolved into the nodes while reading."""
    case_insensitive: bool = False  # i
    multi_line: bool = False        # m: ^/$ at line ends; no effect at the pattern's ends
    dot_all: bool = False           # s
    swap_greed: bool = False        # U: no effect on the language
    unicode: bool = True            # u; (?-u) is byte mode
    crlf: bool = False              # R: `.` excludes \r too
    verbose: bool = False           # x: whitespace and # comments are ignored


_FLAG_NAMES = dict(zip(_FLAG_LETTERS, _Flags._fields))


class _Escape(NamedTuple):
    """An escape sequence as read: a character, a Perl or Unicode class, or an anchor."""
    kind: str                # "char", "perl", "property", "anchor"
    start: int               # offset of the backslash
    end: int                 # offset after the escape
    cp: int = 0              # "char": the code point
    byte_escape: bool = False  # "char": written \xHH (a raw byte in byte mode)
    letter: str = ""         # "perl": d s w D S W; "anchor": A z
    negated: bool = False    # "property": \P or !=
    name: str = ""           # "property": the name (or the whole text)
    value: Optional[str] = None  # "property": the value after = or :
    name_start: int = 0      # "property": offset of the name


_FLAGS_SENTINEL = object()  # a (?flags) directive in a concatenation: not an operand


class _Group:
    """One open group on the reader's stack (the whole pattern is the bottom one).

    A group is read as alternatives (`branches`), each the intersection of `operands`
    (extended syntax), each a concatenation of `items`; `wraps[i]` lists the offsets of
    the `~` operators applying to items[i], `nots` those waiting for the next item.
    """

    def __init__(self, offset: int, flags: _Flags, start: int) -> None:
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


class _ClassFrame:
    """One open `[` of a (possibly nested) class: a union of items, then maybe an operator."""

    def __init__(self, offset: int, negated: bool) -> None:
        self.offset = offset
        self.negated = negated
        self.parts: List[Any] = []     # sets of the current union
        self.lhs: Any = None           # result so far, when an operator is pending
        self.op: Optional[str] = None  # "&&", "--" or "~~"
        self.literal_bracket = False   # started with a literal `]`: `[]` or `[^]`


class _Reader:
    """A one-shot reader; `read()` returns the root node or raises RegexError."""

    def __init__(self, pattern: str, extended: bool, limits: Limits) -> None:
        self.p = pattern
        self.n = len(pattern)
        self.extended = extended
        self.limits = limits
        self.names: Dict[str, int] = {}
        self.saw_anchor = False

    def error(self, message: str, offset: int) -> RegexError:
        """A RegexError at `offset` of this pattern (to be raised by the caller)."""
        return RegexError(message, self.p, offset)

    # -- small scanners ---------------------------------------------------------------

    def skip_space(self, pos: int) -> int:
        """Verbose mode: skip whitespace and `#` comments (to the end of the line)."""
        p, n = self.p, self.n
        while pos < n:
            c = p[pos]
            if c in _WHITE_SPACE:
                pos += 1
            elif c == "#":
                end = p.find("\n", pos)
                pos = n if end < 0 else end + 1
            else:
                break
        return pos

    def peek_space(self, pos: int, verbose: bool) -> Optional[str]:
        """The character after p[pos], skipping whitespace in verbose mode; None at the end."""
        nxt = self.skip_space(pos + 1) if verbose else pos + 1
        return self.p[nxt] if nxt < self.n else None

    # -- the main loop -----------------------------------------------------------------

    def read(self) -> Node:
        """Read the whole pattern with an explicit stack of open groups."""
        groups = [_Group(0, _Flags(), 0)]
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
            group.push(_dot(flags, pos))
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
        flags, pos = self.read_flags(pos, group.flags)
        if p[pos] == ")":  # (?flags): in force up to the end of the enclosing group
            group.flags = flags
            group.items.append(_FLAGS_SENTINEL)
            group.wraps.append([])
            return pos + 1
        pos += 1  # the ':' of (?flags:...)
        groups.append(_Group(start, flags, pos))
        return pos

    def read_flags(self, pos: int, flags: _Flags) -> Tuple[_Flags, int]:
        """Read flags like `is-x` up to `:` or `)` (Rust `parse_flags` errors)."""
        p, n = self.p, self.n
        seen: Dict[str, int] = {}
        negation = -1
        last_was_negation = False
        changes: Dict[str, bool] = {}
        while p[pos] != ":" and p[pos] != ")":
            c = p[pos]
            if c == "-":
                if negation >= 0:
                    raise self.error("flag negation operator '-' repeated", pos)
                negation = pos
                last_was_negation = True
            else:
                if c not in _FLAG_NAMES:
                    raise self.error("unrecognized flag %r (flags are %s)%s" % (
                        c, " ".join(_FLAG_LETTERS), _FLAG_HINTS.get(c, "")), pos)
                if c in seen:
                    raise self.error("duplicate flag %r" % c, pos)
                seen[c] = pos
                changes[_FLAG_NAMES[c]] = negation < 0
                last_was_negation = False
            pos += 1
            if pos >= n:
                raise self.error("expected a flag, ':' or ')' but the pattern ended "
                                 "(unclosed group)", pos)
        if last_was_negation:
            raise self.error("dangling flag negation operator '-': expected a flag after it",
                             negation)
        return flags._replace(**changes), pos

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
        while pos < n and p[pos] in _WHITE_SPACE:
            pos += 1
        start = pos
        while pos < n and "0" <= p[pos] <= "9":
            pos += 1
        digits = p[start:pos]
        while pos < n and p[pos] in _WHITE_SPACE:
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

    def literal(self, cp: int, flags: _Flags, pos: int) -> Node:
        """A literal character under the flags in force."""
        if 0xD800 <= cp <= 0xDFFF:
            raise self.error("surrogate code point U+%04X is not a Unicode scalar value" % cp, pos)
        if flags.unicode:
            return Literal(cp, flags.case_insensitive, pos)
        # Rust byte mode: case folding is ASCII-only, and non-ASCII text is still UTF-8.
        if flags.case_insensitive and cp < 0x80 and chr(cp).isalpha():
            return ByteClass(_ByteSets.fold(1 << cp), pos)
        return Literal(cp, False, pos)

    def escape_node(self, esc: _Escape, flags: _Flags) -> Node:
        """The node of an escape sequence outside a class."""
        if esc.kind == "char":
            if esc.byte_escape and not flags.unicode and esc.cp >= 0x80:
                return ByteLiteral(esc.cp, esc.start)  # \xHH in byte mode: a raw byte
            return self.literal(esc.cp, flags, esc.start)
        if esc.kind == "anchor":
            self.saw_anchor = True
            return Anchor("\\" + esc.letter, esc.start)
        if esc.kind == "perl":
            s = _perl_class(esc.letter, flags.unicode)
            return Class(s, esc.start) if flags.unicode else ByteClass(s, esc.start)
        return Class(self.property_set(esc, flags), esc.start)

    def property_set(self, esc: _Escape, flags: _Flags) -> Ranges:
        """The set of `\\p{..}`/`\\P{..}`: folded under (?i), then negated (Rust order)."""
        if not flags.unicode:
            raise self.error("Unicode classes (\\p, \\P) are not allowed in byte mode (?-u)",
                             esc.start)
        key = (esc.name, esc.value)
        ranges = _PROPERTY_CACHE.get(key)
        if ranges is None:
            try:
                ranges = uni.property_ranges(esc.name, esc.value)
            except KeyError as e:
                what = e.args[0] if e.args else esc.name
                if esc.value is not None and what == esc.value:
                    msg = "unknown Unicode property value %r for %r" % (esc.value, esc.name)
                else:
                    msg = "unknown Unicode property %r" % (what,)
                raise self.error(msg, esc.name_start) from None
            _PROPERTY_CACHE[key] = ranges
        if flags.case_insensitive:
            ranges = uni.case_fold(ranges)
        return uni.negate(ranges) if esc.negated else ranges

    # -- escapes -------------------------------------------------------------------------

    def read_escape(self, pos: int, in_class: bool) -> _Escape:
        """Read the escape at p[pos] == '\\' (Rust `parse_escape`)."""
        p, n = self.p, self.n
        start = pos
        pos += 1
        if pos >= n:
            raise self.error("incomplete escape sequence: the pattern ends with '\\'", start)
        c = p[pos]
        if c == "0":
            raise self.error("invalid escape \\0: octal escapes are not supported "
                             "(write \\x00 for NUL)", start)
        if "1" <= c <= "9":
            raise self.error("backreferences are not supported (\\%s)" % c, start)
        if c in "xuU":
            return self.read_hex(start, pos)
        if c in "pP":
            return self.read_property(start, pos)
        if c in "dswDSW":
            return _Escape("perl", start, pos + 1, letter=c)
        pos += 1
        if _is_escapable(c):
            return _Escape("char", start, pos, cp=ord(c))
        if c in _SPECIAL_ESCAPES:
            return _Escape("char", start, pos, cp=_SPECIAL_ESCAPES[c])
        if c in "Az":
            if in_class:
                raise self.error("invalid escape sequence \\%s in a character class: anchors "
                                 "cannot appear there" % c, start)
            return _Escape("anchor", start, pos, letter=c)
        if c in "bB<>":
            hint = " (inside a class \\b is not a backspace; use \\x08)" if c == "b" and \
                in_class else ""
            raise self.error("word boundaries (\\%s) are not supported%s" % (c, hint), start)
        if c in "kg":
            raise self.error("backreferences are not supported (\\%s)" % c, start)
        raise self.error("invalid escape \\%s (unrecognized escape sequence)%s" % (
            c, _INVALID_ESCAPE_HINTS.get(c, "")), start)

    def read_hex(self, start: int, pos: int) -> _Escape:
        """`\\xHH`, `\\uHHHH`, `\\UHHHHHHHH` or the braced forms `\\x{H..}` (p[pos] is x/u/U)."""
        p, n = self.p, self.n
        letter = p[pos]
        pos += 1
        if pos >= n:
            raise self.error("incomplete escape sequence \\%s: expected hexadecimal digits"
                             % letter, pos)
        if p[pos] == "{":
            brace = pos
            pos += 1
            while pos < n and p[pos] != "}":
                if p[pos] not in _HEX:
                    raise self.error("invalid hexadecimal digit %r" % p[pos], pos)
                pos += 1
            if pos >= n:
                raise self.error("unclosed hexadecimal escape \\%s{...}: expected '}'"
                                 % letter, brace)
            digits = p[brace + 1:pos]
            if not digits:
                raise self.error("hexadecimal literal empty: \\%s{} needs at least one digit"
                                 % letter, brace)
            end = pos + 1
            byte_escape = False
        else:
            width = {"x": 2, "u": 4, "U": 8}[letter]
            digit_start = pos
            for _ in range(width):
                if pos >= n:
                    raise self.error("incomplete escape sequence \\%s: expected %d hexadecimal "
                                     "digits" % (letter, width), pos)
                if p[pos] not in _HEX:
                    raise self.error("invalid hexadecimal digit %r (\\%s takes exactly %d)"
                                     % (p[pos], letter, width), pos)
                pos += 1
            digits = p[digit_start:pos]
            brace = digit_start - 1
            end = pos
            byte_escape = letter == "x"
        stripped = digits.lstrip("0") or "0"
        value = int(stripped, 16) if len(stripped) <= 8 else 0x7FFFFFFFF
        if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            what = "a surrogate" if value <= 0xFFFF else "above U+10FFFF"
            raise self.error("hexadecimal literal is not a Unicode scalar value: %s is %s"
                             % (digits, what), brace + 1)
        return _Escape("char", start, end, cp=value, byte_escape=byte_escape)

    def read_property(self, start: int, pos: int) -> _Escape:
        """`\\pL`, `\\p{Name}`, `\\p{name=value}`, `\\p{name:value}`, `\\p{name!=value}`."""
        p, n = self.p, self.n
        negated = p[pos] == "P"
        pos += 1
        if pos >= n:
            raise self.error("incomplete escape sequence \\%s: expected a class name" % p[pos - 1],
                             pos)
        if p[pos] != "{":
            if p[pos] == "\\":
                raise self.error("invalid Unicode character class: expected a name after \\p",
                                 pos)
            return _Escape("property", start, pos + 1, negated=negated, name=p[pos],
                           name_start=pos)
        brace = pos
        end = p.find("}", pos)
        if end < 0:
            raise self.error("unclosed Unicode class name: expected '}'", brace)
        text = p[brace + 1:end]
        if not text.strip():
            raise self.error("empty Unicode class name in \\p{}", brace)
        value: Optional[str] = None
        name = text
        # Rust regex-syntax `parse_unicode_class`: "!=" first, then ':', then '='.
        for sep in ("!=", ":", "="):
            i = text.find(sep)
            if i >= 0:
                name, value = text[:i], text[i + len(sep):]
                if sep == "!=":
                    negated = not negated
                break
        return _Escape("property", start, end + 1, negated=negated, name=name, value=value,
                       name_start=brace + 1)

    # -- classes -------------------------------------------------------------------------

    def read_class(self, pos: int, flags: _Flags) -> Tuple[Node, int]:
        """Read a bracketed class at p[pos] == '[' with a stack of open brackets.

        Rust semantics: items are unioned; `&&`, `--`, `~~` are left-associative with
        equal precedence and bind looser than the union; each bracket is case folded
        (under (?i)) and then negated; nested `[...]` and `[:name:]` are items.
        """
        p, n = self.p, self.n
        sets: Any = _CodePointSets if flags.unicode else _ByteSets
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
                    node = Class(result, frame.offset) if flags.unicode else \
                        ByteClass(result, frame.offset)
                    return node, pos
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

    def open_bracket(self, pos: int, sets: Any, verbose: bool) -> Tuple[_ClassFrame, int]:
        """Rust `parse_set_class_open`: `[`, optional `^`, leading `-`s, a literal first `]`."""
        p, n = self.p, self.n
        start = pos

        def advance(i: int, frame: Optional[_ClassFrame] = None) -> int:
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
        frame = _ClassFrame(start, negated)
        while p[pos] == "-":  # any number of leading '-' are literals
            frame.parts.append(sets.single(0x2D, 0x2D))
            pos = advance(pos, frame)
        if not frame.parts and p[pos] == "]":  # a first ']' is a literal: `[]a]`
            frame.parts.append(sets.single(0x5D, 0x5D))
            frame.literal_bracket = True
            pos = advance(pos, frame)
        return frame, pos

    def unclosed_class(self, frame: _ClassFrame) -> RegexError:
        """The error for a class still open at the end: it points at the innermost `[`."""
        hint = ""
        if frame.literal_bracket:
            hint = " (a ']' right after '[' or '[^' is a literal ']', so an empty character " \
                   "class cannot be written; [^\\x00-\\x{10FFFF}] matches nothing)"
        return self.error("unclosed character class: expected ']'" + hint, frame.offset)

    def combine(self, frame: _ClassFrame, rhs: Any, sets: Any, flags: _Flags) -> Any:
        """Apply the pending set operator; Rust folds both operands first under (?i)."""
        lhs = frame.lhs
        if flags.case_insensitive:
            lhs, rhs = sets.fold(lhs), sets.fold(rhs)
        return sets.combine(frame.op, lhs, rhs)

    def close_bracket(self, frame: _ClassFrame, sets: Any, flags: _Flags) -> Any:
        """The set of a finished bracket: union, pending operator, fold, then negate."""
        result = sets.union(frame.parts) if frame.parts else sets.empty
        if frame.op is not None:
            result = self.combine(frame, result, sets, flags)
        if flags.case_insensitive:
            result = sets.fold(result)
        return sets.negate(result) if frame.negated else result

    def ascii_class(self, pos: int, sets: Any, flags: _Flags) -> Optional[Tuple[Any, int]]:
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
        ranges = _ASCII_CLASSES.get(p[i:colon])
        if ranges is None:
            return None
        result = sets.ascii(ranges)
        if flags.case_insensitive:
            result = sets.fold(result)
        if negated:
            result = sets.negate(result)
        return result, colon + 2

    def class_range(self, pos: int, sets: Any, flags: _Flags,
                    frame: _ClassFrame) -> Tuple[Any, int]:
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

    def class_primitive(self, pos: int, sets: Any, flags: _Flags) -> Tuple[tuple, int]:
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
            return ("set", _perl_class(esc.letter, flags.unicode), esc.start, esc.end), esc.end
        return ("set", self.property_set(esc, flags), esc.start, esc.end), esc.end

    def class_char(self, cp: int, byte_escape: bool, pos: int, flags: _Flags) -> int:
        """A class character's value: its code point, or its byte in byte mode."""
        if 0xD800 <= cp <= 0xDFFF:
            raise self.error("surrogate code point U+%04X is not a Unicode scalar value" % cp, pos)
        if flags.unicode or cp < 0x80 or byte_escape:
            return cp
        # Rust: "Unicode not allowed here" (a byte class cannot hold a multi-byte character).
        raise self.error("non-ASCII character %r in a byte-mode (?-u) class: Unicode is not "
                         "allowed here (write bytes as \\xHH)" % chr(cp), pos)


def read_pattern(pattern: str, *, extended: bool = False, limits: Limits = DEFAULT_LIMITS) -> Node:
    """Read `pattern` (Rust regex syntax; plus `&` and `~` if `extended`) into an AST.

    >>> dump(read_pattern("(?i:a)b{2,}"))
    "(concat i'a' (repeat 2 inf 'b'))"
    >>> dump(read_pattern("a&~b", extended=True))
    "(and 'a' (not 'b'))"
    """
    return _Reader(pattern, extended, limits).read()
