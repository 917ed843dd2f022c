"""xgrammar's regex dialect (the `Regex("...")` macro) read into a refimpl.regex.ast tree.

xgrammar compiles a `Regex` macro with its own parser (cpp/fsm_builder.cc,
`ParseRegexToIR`, `ParseRegexEscape`, `ParseCharacterClassLeaf`), an ECMAScript-like
dialect that is *not* Rust's (refimpl.regex.reader). The differences, each kept here:

* **Escapes.** `\\n \\t \\r \\f \\v \\a \\e \\0`; `\\xHH` exactly two hex digits;
  `\\uHHHH` exactly four; `\\u{H..}` one to six (at most U+10FFFF); `\\cX` a control
  character (the letter's code & 0x1F); any other escaped character is itself (`\\z` is
  `z`, `\\-` is `-`). `\\b` is a backspace inside a class; outside, `\\b \\B` (word
  boundaries), `\\p \\P` (Unicode properties), `\\k` and `\\1`..`\\9` (backreferences)
  are errors. A surrogate (`\\uD800`) is refused here: maskref's characters are
  Unicode scalar values (xgrammar would match its three-byte CESU form).
* **Classes.** `\\d \\w` are ASCII: `[0-9]`, `[0-9A-Za-z_]`; `\\s` is ECMAScript's white
  space, `[\\t-\\r ]` and U+00A0, U+1680, U+2000-200A, U+2028-2029, U+202F, U+205F,
  U+3000, U+FEFF (as xgrammar 0.2.9 matches it; so `\\S` refuses U+00A0, where an ASCII
  `\\s` would take it: issue 35's line coverage found it). In `[...]` the first unescaped `]`
  closes the class (`[]` and `[^]` are errors: empty), `[` is a plain character, there
  are no set operations or `[:alpha:]`, and a class escape next to `-` leaves the `-`
  literal. A negated class is every scalar value not in it.
* **`.`** is every code point, newlines included — unless the macro has a `flags`
  argument: then `.` outside classes is `[^\\n]` unless the flags hold `s`.
* **Flags.** Only a leading `(?i)` (or `flags="i"`): ASCII-only case folding (`Σ` does
  not match `σ`; Rust folds Unicode). `flags` holds `i`, `s` and `u` (a no-op: code
  points always); other inline flags `(?s)`, `(?x)`, `(?i:...)` are errors.
* **Groups.** `( )`, `(?: )`, `(?<name> )`, `(?P<name> )`; a lookahead `(?= )` /
  `(?! )` is dropped (it matches ε: xgrammar logs a warning and ignores it), a
  lookbehind is an error.
* **Anchors.** `^` and `$` mean nothing, wherever they are (xgrammar ignores them).
* **Quantifiers.** `* + ?` and `{n}`, `{n,}`, `{n,m}` (blanks allowed inside, at most nine
  digits, `{,m}` an error), a lazy `?` suffix ignored; a quantifier may follow another
  (`a**` is `(a*)*`); nothing to repeat (`+a`, `(*)`) is an error. Empty alternatives
  (`a|`, `(|a)`) and `()` are ε.
* **json_string=true** removes the control characters U+0000..U+001F, `"` and `\\\\` from
  every character the pattern matches: the language is intersected with their
  complement's star.

>>> from refimpl.regex import ast as syntax
>>> print(syntax.dump(translate("(?i)a\\\\d{2}")))
(concat [Aa] (repeat 2 2 [0-9]))
"""
from __future__ import annotations

from typing import List, Optional, Tuple, Union

from ...errors import RegexError
from ...regex import ast as syntax
from ...regex import unicode as uni
from .ast import ANY_CHAR

Ranges = Tuple[Tuple[int, int], ...]

_WORD: Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
#: ECMAScript's WhiteSpace and LineTerminator, as xgrammar reads \s (0.2.9 accepts each of
#: these, and no other code point of the BMP, for `Regex("\\s")`); \d and \w stay ASCII
_SPACE: Ranges = ((0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
                  (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF))
_CLASS_ESCAPES = {"d": ((0x30, 0x39),), "w": _WORD, "s": _SPACE}
_SINGLE_ESCAPES = {"n": 0x0A, "t": 0x09, "r": 0x0D, "f": 0x0C, "v": 0x0B, "a": 0x07, "e": 0x1B, "0": 0}
_HEX = "0123456789abcdefABCDEF"
_MAX_DIGITS = 9
#: what json_string=true leaves a character match
JSON_STRING_CHARS: Ranges = uni.difference(ANY_CHAR, ((0, 0x1F), (0x22, 0x22), (0x5C, 0x5C)))
FLAGS = "isu"

Entry = Union[syntax.Node, str]  # a node, or a marker: "(" (open group) or "|"


def _fold(ranges: Ranges) -> Ranges:
    """`ranges` with the other ASCII case of every ASCII letter in it."""
    extra = []
    for lo, hi in ranges:
        a, b = max(lo, 0x61), min(hi, 0x7A)
        if a <= b:
            extra.append((a - 0x20, b - 0x20))
        a, b = max(lo, 0x41), min(hi, 0x5A)
        if a <= b:
            extra.append((a + 0x20, b + 0x20))
    return uni.normalize(list(ranges) + extra)


def rewrite_flags(pattern: str, flags: str) -> str:
    """The pattern as xgrammar stores it for `flags` (RewriteRegexDots): without `s`, every
    `.` outside a class becomes `[^\\n]`; with `i`, a leading `(?i)` is added."""
    if "s" not in flags:
        out, escaped, in_class = [], False, False
        for c in pattern:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == "[":
                in_class = True
            elif c == "]" and in_class:
                in_class = False
            elif c == "." and not in_class:
                out.append("[^\\n]")
                continue
            out.append(c)
        pattern = "".join(out)
    if "i" in flags and not pattern.startswith("(?i)"):
        pattern = "(?i)" + pattern
    return pattern


class _Translator:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.fold = pattern.startswith("(?i)")
        self.base = 4 if self.fold else 0
        self.text = pattern[self.base:]

    def error(self, message: str, pos: int) -> RegexError:
        return RegexError(message, self.pattern, pos + self.base)

    def char(self, cp: int, offset: int) -> syntax.Node:
        if self.fold and (0x41 <= cp <= 0x5A or 0x61 <= cp <= 0x7A):
            return syntax.Class(_fold(((cp, cp),)), offset)
        return syntax.Literal(cp, False, offset)

    def ranges(self, ranges: Ranges, negated: bool, offset: int) -> syntax.Node:
        ranges = uni.normalize(ranges)
        if self.fold:
            ranges = _fold(ranges)
        return syntax.Class(uni.negate(ranges) if negated else ranges, offset)

    def escape(self, pos: int, in_class: bool) -> Tuple[Union[int, Tuple[Ranges, bool]], int]:
        """The escape at text[pos] == '\\\\': a code point or (ranges, negated), and the
        position after it."""
        t = self.text
        if pos + 1 >= len(t):
            raise self.error("Regex ends with a trailing backslash", pos)
        e = t[pos + 1]
        pos += 2
        if e in _SINGLE_ESCAPES:
            return _SINGLE_ESCAPES[e], pos
        if e == "b" and in_class:
            return 0x08, pos
        if e in "bB":
            raise self.error("Word boundary assertion \\%s is not supported in regex" % e, pos - 2)
        if e in "pP":
            raise self.error("Unicode property escape \\p / \\P is not supported in regex", pos - 2)
        if e == "k" or e in "123456789":
            raise self.error("Backreference \\%s is not supported in regex" % e, pos - 2)
        if e.lower() in _CLASS_ESCAPES:
            return (_CLASS_ESCAPES[e.lower()], e.isupper()), pos
        if e in "xu":
            return self.hex_escape(e, pos)
        if e == "c":
            letter = t[pos:pos + 1]
            if not (letter.isascii() and letter.isalpha()):
                raise self.error("\\c must be followed by a letter in regex", pos - 2)
            return ord(letter) & 0x1F, pos + 1
        return ord(e), pos

    def hex_escape(self, e: str, pos: int) -> Tuple[int, int]:
        """`\\xHH`, `\\u{H..}`, `\\uHHHH` with text[pos] just after the letter."""
        t = self.text
        if e == "x":
            digits = t[pos:pos + 2]
            if len(digits) < 2 or any(c not in _HEX for c in digits):
                raise self.error("\\x must be followed by two hexadecimal digits in regex", pos - 2)
            return self.scalar(int(digits, 16), pos - 2), pos + 2
        if e == "u" and t[pos:pos + 1] == "{":
            close = t.find("}", pos + 1)
            digits = t[pos + 1:close] if close >= 0 else ""
            if close < 0 or not 1 <= len(digits) <= 6 or any(c not in _HEX for c in digits):
                raise self.error("\\u{...} must contain one to six hexadecimal digits in regex", pos - 2)
            if int(digits, 16) > uni.MAX_CODE_POINT:
                raise self.error("\\u{...} escape is beyond the Unicode range in regex", pos - 2)
            return self.scalar(int(digits, 16), pos - 2), close + 1
        digits = t[pos:pos + 4]
        if len(digits) < 4 or any(c not in _HEX for c in digits):
            raise self.error("\\u must be followed by four hexadecimal digits in regex", pos - 2)
        return self.scalar(int(digits, 16), pos - 2), pos + 4

    def scalar(self, cp: int, pos: int) -> int:
        if uni.SURROGATE_LO <= cp <= uni.SURROGATE_HI:
            raise self.error("the surrogate U+%04X is not a Unicode scalar value (maskref matches scalar values)" % cp,
                             pos)
        return cp

    def class_end(self, pos: int) -> Optional[int]:
        """The index just after the `]` closing the class opened at text[pos] (None: unclosed)."""
        t = self.text
        pos += 1
        if t[pos:pos + 1] == "^":
            pos += 1
        while pos < len(t):
            if t[pos] == "\\":
                pos += 2
            elif t[pos] == "]":
                return pos + 1
            else:
                pos += 1
        return None

    def char_class(self, start: int, end: int) -> syntax.Node:
        t = self.text
        pos, stop = start + 1, end - 1
        negated = t[pos] == "^"
        if negated:
            pos += 1
        if pos == stop:
            raise self.error("Empty character class %s is not allowed in regex" % t[start:end], start)
        ranges: List[Tuple[int, int]] = []
        while pos < stop:
            unit, pos = self.escape(pos, True) if t[pos] == "\\" else (ord(t[pos]), pos + 1)
            if not isinstance(unit, int):
                rs, neg = unit
                ranges.extend(uni.negate(rs) if neg else rs)
                continue
            if t[pos] == "-" and pos + 1 < stop:
                high, pos = self.escape(pos + 1, True) if t[pos + 1] == "\\" else (ord(t[pos + 1]), pos + 2)
                if not isinstance(high, int):
                    raise self.error("Invalid character range endpoint in regex character class %s" % t[start:end],
                                     start)
                if high < unit:
                    raise self.error("Invalid character range (lower bound exceeds upper bound) in regex character "
                                     "class %s" % t[start:end], start)
                ranges.append((unit, high))
            else:
                ranges.append((unit, unit))
        return self.ranges(tuple(ranges), negated, start)

    def skip_lookahead(self, pos: int) -> int:
        """The index after the lookahead group opened at text[pos] (`(?=` or `(?!`)."""
        t, depth, j = self.text, 1, pos + 3
        while j < len(t) and depth > 0:
            if t[j] == "\\":
                j += 2
                continue
            if t[j] == "[":
                end = self.class_end(j)
                if end is None:
                    raise self.error("Unclosed '['", j)
                j = end
                continue
            depth += {"(": 1, ")": -1}.get(t[j], 0)
            j += 1
        if depth != 0:
            raise self.error("The parenthesis is not closed", pos)
        return j

    def repeat_bounds(self, pos: int) -> Tuple[int, Optional[int], int]:
        """`{n}`, `{n,}`, `{n,m}` at text[pos] == '{': (lo, hi, index of the closing '}')."""
        t = self.text

        def blanks(i: int) -> int:
            while t[i:i + 1] == " ":
                i += 1
            return i

        def number(i: int, what: str) -> Tuple[str, int]:
            j = i
            while t[j:j + 1].isdigit() and t[j:j + 1].isascii():
                j += 1
            if j == i:
                raise self.error("Invalid repetition count: expected %s" % what, pos)
            if j - i > _MAX_DIGITS:
                raise self.error("Invalid repetition count: the count %s is too large" % t[i:j], pos)
            return t[i:j], j

        digits, i = number(blanks(pos + 1), "a number after '{'")
        lo = int(digits)
        i = blanks(i)
        if t[i:i + 1] == "}":
            return lo, lo, i
        if t[i:i + 1] != ",":
            raise self.error("Invalid repetition count: expected ',' or '}' after the lower bound", pos)
        i = blanks(i + 1)
        if t[i:i + 1] == "}":
            return lo, None, i
        digits, i = number(i, "a number or '}' after ','")
        hi = int(digits)
        if hi < lo:
            raise self.error("Invalid repetition count: the lower bound %d is larger than the upper bound %d"
                             % (lo, hi), pos)
        i = blanks(i)
        if t[i:i + 1] != "}":
            raise self.error("Invalid repetition count: expected '}' after the upper bound", pos)
        return lo, hi, i

    def translate(self) -> syntax.Node:
        t = self.text
        stack: List[Tuple[Entry, int]] = []  # (node or marker, offset in text)
        i = 0
        while i < len(t):
            c = t[i]
            if c in "^$":
                i += 1
            elif c == "[":
                end = self.class_end(i)
                if end is None:
                    raise self.error("Unclosed '['", i)
                stack.append((self.char_class(i, end), i))
                i = end
            elif c == "]":
                raise self.error("Unmatched ']'", i)
            elif c in "+*?" or c == "{":
                i = self.quantify(stack, i)
            elif c == "(":
                i = self.open_group(stack, i)
            elif c == "|":
                stack.append(("|", i))
                i += 1
            elif c == ")":
                stack.append((self.close_group(stack, i), i))
                i += 1
            elif c == "\\":
                unit, j = self.escape(i, False)
                stack.append(((self.char(unit, i) if isinstance(unit, int)
                               else self.ranges(unit[0], unit[1], i)), i))
                i = j
            elif c == ".":
                stack.append((syntax.Class(ANY_CHAR, i), i))
                i += 1
            else:
                stack.append((self.char(ord(c), i), i))
                i += 1
        for entry, at in stack:
            if entry == "(":
                raise self.error("The parenthesis is not closed", at)
        return _alternatives(stack, 0)

    def quantify(self, stack: List[Tuple[Entry, int]], i: int) -> int:
        """Apply the quantifier at text[i] to the last node; the index after it."""
        c, t = self.text[i], self.text
        if not stack or isinstance(stack[-1][0], str):
            raise self.error("There is nothing to repeat before %s" % ("'%s'" % c if c != "{" else "the repetition"), i)
        node, at = stack.pop()
        if c == "{":
            lo, hi, i = self.repeat_bounds(i)
        else:
            lo, hi = (1 if c == "+" else 0), (1 if c == "?" else None)
        assert isinstance(node, syntax.Node)
        stack.append((syntax.Repeat(node, lo, hi, at), at))
        return i + (2 if t[i + 1:i + 2] == "?" else 1)

    def open_group(self, stack: List[Tuple[Entry, int]], i: int) -> int:
        t = self.text
        if t[i + 1:i + 2] != "?":
            stack.append(("(", i))
            return i + 1
        if i + 2 >= len(t):
            raise self.error("Group modifier is not finished", i)
        m = t[i + 2]
        if m == ":":
            stack.append(("(", i))
            return i + 3
        if m in "=!":
            end = self.skip_lookahead(i)
            stack.append((syntax.Empty(i), i))
            return end
        if m == "<" or (m == "P" and t[i + 3:i + 4] == "<"):
            name_start = i + 3 if m == "<" else i + 4
            if t[name_start:name_start + 1] in ("=", "!"):
                raise self.error("Lookbehind assertion is not supported in regex", i)
            j = name_start
            while j < len(t) and t[j].isascii() and (t[j].isalnum() or t[j] == "_"):
                j += 1
            if j == name_start or t[j:j + 1] != ">":
                raise self.error("Invalid named capturing group", i)
            stack.append(("(", i))
            return j + 1
        raise self.error("Unsupported group modifier '(?%s'" % m, i)

    def close_group(self, stack: List[Tuple[Entry, int]], i: int) -> syntax.Node:
        for k in range(len(stack) - 1, -1, -1):
            if stack[k][0] == "(":
                start = stack[k][1]
                node = _alternatives(stack[k + 1:], start)
                del stack[k:]
                return node
        raise self.error("Unmatched ')'", i)


def _alternatives(entries: List[Tuple[Entry, int]], offset: int) -> syntax.Node:
    """The node of a group's entries: sequences separated by "|" markers."""
    branches: List[List[syntax.Node]] = [[]]
    for entry, _ in entries:
        if entry == "|":
            branches.append([])
        else:
            assert isinstance(entry, syntax.Node)
            branches[-1].append(entry)
    nodes = [syntax.Empty(offset) if not b else b[0] if len(b) == 1 else syntax.Concat(tuple(b), offset)
             for b in branches]
    return nodes[0] if len(nodes) == 1 else syntax.Alternation(tuple(nodes), offset)


def translate(pattern: str, flags: Optional[str] = None, json_string: bool = False) -> syntax.Node:
    """The syntax tree of an xgrammar regex, as the `Regex(pattern, flags=..., json_string=...)`
    macro means it (RegexError with the offset in the pattern if xgrammar refuses it)."""
    if flags is not None:
        for f in flags:
            if f not in FLAGS:
                raise RegexError("regular-expression flag '%s' is not supported" % f, flags, flags.index(f))
        pattern = rewrite_flags(pattern, flags)
    tree = _Translator(pattern).translate()
    if json_string:
        tree = syntax.Intersection((tree, syntax.Repeat(syntax.Class(JSON_STRING_CHARS, 0), 0, None, 0)), 0)
    return tree
