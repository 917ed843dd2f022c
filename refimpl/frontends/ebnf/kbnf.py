"""kbnf's EBNF, "KBNF" (the crate docs of kbnf, its parser in kbnf-syntax src/parser.rs).

    start ::= "Name: " name (* a comment *) ;
    name = #"[A-Z][a-z]+" | #e"(.|\\n)*\\n\\n" | #ex"[0-9]" | #substrs"Koishi" ;

Rules end with `;` and are defined with `::=` or `=`; a rule defined twice means the
alternatives of both. Names are `[A-Za-z_][A-Za-z0-9_]*`; the start rule is `start`.
Alternation `|` binds loosest; items follow one another, with or without `,`; `( )`
groups, `[x]` is `x?`, `{x}` is `x*`, and an item takes at most one of `* + ?`. Comments
`(* ... *)` stand between rules. Strings in `'...'` or `"..."` (raw newlines allowed)
take the escapes `\\b \\f \\n \\r \\t \\0 \\/ \\' \\" \\\\`, `\\xHH`, `\\uHHHH` and `\\u{H...}`.

The terminals beyond strings, each a regular language (ast.py says how it is built):

* `#"R"` — the Rust regex R, matched whole; the string's escapes are read first, so a
  regex escape is written `\\\\d`;
* `#e"R"` — the shortest match of R (the terminal ends at its first match);
* `#ex"R"` — non-empty text in which no substring matches R;
* `#substrs"s"` — any substring of s, the empty one included;
* and, from kbnf before August 2024: `except!(X)` and `except!(X, n)` — non-empty text
  containing none of the strings X (a string, or a rule whose body is alternatives of
  strings), at most n bytes long — and `any!` — any one character (in kbnf-syntax for
  two weeks of May 2024; never in a kbnf release).

>>> rules = read_rules("start ::= 'a' | 'b' , 'c' | x;\\nx ::= #e'[0-9]+';")
>>> sorted(rules)
['start', 'x']
"""
from __future__ import annotations

import re
from typing import Dict, List, Tuple

from ...errors import RegexError
from ...limits import DEFAULT_LIMITS, Limits
from ...regex import ast as syntax
from ...regex.reader import read_pattern
from .ast import ANY_CHAR, Alt, Chars, Excluding, Literal, Node, Pattern, Ref, Repeat, Seq, Shortest, Substring
from .reader import Reader, alternatives, undefined_reference

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "0": "\0", "/": "/", "'": "'", '"': '"',
            "\\": "\\"}
_HEX = re.compile(r"[0-9A-Fa-f]+")
_SPACE = " \t\r\n"
_CLOSERS = {"(": ")", "[": "]", "{": "}"}
#: the string-like terminals, by prefix (longest first)
_PREFIXES = ("#substrs", "#ex", "#e", "#")


class KbnfParser(Reader):
    def __init__(self, text: str, limits: Limits) -> None:
        super().__init__(text)
        self.limits = limits
        self.excepted: List[Tuple[int, str]] = []  # except!(rule): (offset, rule name)

    def blank(self) -> None:
        while self.peek() and self.peek() in _SPACE:
            self.pos += 1

    def comments(self) -> None:
        """Blanks and `(* ... *)` comments (between rules)."""
        self.blank()
        while self.text.startswith("(*", self.pos):
            end = self.text.find("*)", self.pos + 2)
            if end < 0:
                raise self.error("unterminated comment: expected *)")
            self.pos = end + 2
            self.blank()

    def rules(self) -> Dict[str, Node]:
        bodies: Dict[str, List[Node]] = {}
        self.comments()
        if self.pos >= len(self.text):
            raise self.error("the grammar has no rules")
        while self.pos < len(self.text):
            m = _NAME.match(self.text, self.pos)
            if not m:
                raise self.error("expected a rule definition (name ::= ...;)")
            self.pos = m.end()
            self.blank()
            for sign in ("::=", "="):
                if self.text.startswith(sign, self.pos):
                    self.pos += len(sign)
                    break
            else:
                raise self.error("expected ::= or = after the rule name %r" % m.group())
            body = self.choices()
            if self.peek() != ";":
                raise self.error("expected ; at the end of the rule %r" % m.group())
            self.pos += 1
            bodies.setdefault(m.group(), []).append(body)
            self.comments()
        return {name: bs[0] if len(bs) == 1 else Alt(bs[0].offset, bs) for name, bs in bodies.items()}

    def choices(self) -> Node:
        """A rule body up to its `;` (open brackets are frames on an explicit stack)."""
        frames: List[Tuple[int, str, List[List[Node]]]] = [(self.pos, "", [[]])]
        while True:
            self.blank()
            c = self.peek()
            start, opener, alts = frames[-1]
            if c and c in "([{":
                frames.append((self.pos, c, [[]]))
                self.pos += 1
                continue
            if not c or c in "|,;)]}":
                if not alts[-1]:
                    raise self.error("expected an element, found %s" % (repr(c) if c else "the end of the grammar"))
                if c in ("", ";") and opener:
                    raise self.error("expected %s" % _CLOSERS[opener])
                if c in ("", ";"):
                    return alternatives(start, alts)
                self.pos += 1
                if c == "|":
                    alts.append([])
                elif c == ",":
                    self.blank()
                    if not self.peek() or self.peek() in "|,;)]}":
                        raise self.error("expected an element after ','")
                elif c != _CLOSERS.get(opener):
                    raise self.error("unexpected %r: expected %s" % (c, _CLOSERS[opener] if opener else "an element or ;"),
                                     self.pos - 1)
                else:
                    frames.pop()
                    node = alternatives(start, alts)
                    lo_hi = {"[": (0, 1), "{": (0, None)}.get(opener)
                    frames[-1][2][-1].append(self.postfix(Repeat(start, node, *lo_hi) if lo_hi else node))
                continue
            alts[-1].append(self.postfix(self.element()))

    def postfix(self, node: Node) -> Node:
        """An item and its optional `*`, `+` or `?` (one at most)."""
        self.blank()
        bounds = {"*": (0, None), "+": (1, None), "?": (0, 1)}.get(self.peek())
        if bounds is None:
            return node
        self.pos += 1
        return Repeat(node.offset, node, *bounds)

    def element(self) -> Node:
        start = self.pos
        if self.peek() and self.peek() in "'\"":  # ("" is in every string: the end of the text)
            return Literal(start, self.string())
        if self.peek() == "#":
            prefix = next((p for p in _PREFIXES if self.text.startswith(p, self.pos) and
                           self.text[self.pos + len(p):self.pos + len(p) + 1] in ("'", '"')), None)
            if prefix is None:
                raise self.error("expected a quote after #, #e, #ex or #substrs (a regex #\"...\", #e\"...\", "
                                 "#ex\"...\" or substrings #substrs\"...\")")
            self.pos += len(prefix)
            body = self.string()
            if prefix == "#substrs":
                return Substring(start, list(body))
            tree = self.regex(body, start)
            if prefix == "#e":
                return Shortest(start, Pattern(start, tree))
            return Excluding(start, Pattern(start, tree)) if prefix == "#ex" else Pattern(start, tree)
        m = _NAME.match(self.text, self.pos)
        if not m:
            raise self.error("expected an element (a string, a regex #\"...\", a rule name or a group)")
        self.pos = m.end()
        if m.group() == "any" and self.peek() == "!":
            self.pos += 1
            return Chars(start, ANY_CHAR)
        if m.group() == "except" and self.peek() == "!":
            return self.except_(start)
        return Ref(start, m.group())

    def string(self) -> str:
        """A quoted string here, its escapes read."""
        quote = self.peek()
        if not quote or quote not in "'\"":
            raise self.error("expected a string in '...' or \"...\"")
        self.pos += 1
        out: List[str] = []
        while True:
            c = self.peek()
            if not c:
                raise self.error("unterminated string: expected %s" % quote)
            self.pos += 1
            if c == quote:
                return "".join(out)
            out.append(self.escape() if c == "\\" else c)

    def escape(self) -> str:
        at = self.pos - 1
        c = self.peek()
        self.pos += 1
        if c in _ESCAPES:
            return _ESCAPES[c]
        if c == "x":
            digits = self.text[self.pos:self.pos + 2]
            if not re.fullmatch(r"[0-9A-Fa-f]{2}", digits):
                raise self.error("invalid escape: \\x takes two hex digits", at)
            self.pos += 2
            return chr(int(digits, 16))
        if c == "u":
            if self.peek() == "{":
                m = _HEX.match(self.text, self.pos + 1)
                if not m or len(m.group()) > 6 or self.text[m.end():m.end() + 1] != "}":
                    raise self.error("invalid escape: \\u{...} takes 1 to 6 hex digits", at)
                digits, self.pos = m.group(), m.end() + 1
            else:
                digits = self.text[self.pos:self.pos + 4]
                if not re.fullmatch(r"[0-9A-Fa-f]{4}", digits):
                    raise self.error("invalid escape: \\u takes four hex digits (or \\u{...})", at)
                self.pos += 4
            cp = int(digits, 16)
            if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
                raise self.error("invalid escape: U+%X is not a Unicode scalar value" % cp, at)
            return chr(cp)
        raise self.error("invalid escape %r (kbnf reads \\b \\f \\n \\r \\t \\0 \\/ \\' \\\" \\\\ \\xHH \\uHHHH \\u{H...})"
                         % ("\\" + c), at)

    def regex(self, pattern: str, offset: int) -> syntax.Node:
        try:
            return read_pattern(pattern, limits=self.limits)
        except RegexError as e:
            raise self.error("invalid regex %r: %s at offset %d of the regex" % (pattern, e.message, e.offset), offset) from None

    def except_(self, start: int) -> Node:
        """`except!(X)` or `except!(X, n)` after the name `except` (kbnf before 2024-08)."""
        self.pos += 1
        self.blank()
        if self.peek() != "(":
            raise self.error("expected ( after except!")
        self.pos += 1
        self.blank()
        at = self.pos
        if self.peek() and self.peek() in "'\"":
            text = self.string()
            if not text:
                raise self.error("except! needs a non-empty string", at)
            excepted: Node = Literal(at, text)
        else:
            m = _NAME.match(self.text, self.pos)
            if not m:
                raise self.error("expected a string or a rule name in except!(...)")
            self.pos = m.end()
            excepted = Ref(at, m.group())
            self.excepted.append((at, m.group()))
        self.blank()
        bound = None
        if self.peek() == ",":
            self.pos += 1
            self.blank()
            bound = self.digits()
            if bound is None:
                raise self.error("expected the number of bytes in except!(..., n)")
            self.blank()
        if self.peek() != ")":
            raise self.error("expected ) to close except!(")
        self.pos += 1
        return Excluding(start, excepted, bound)

    def check_excepted(self, rules: Dict[str, Node]) -> None:
        """The rule of `except!(rule)` must be alternatives of non-empty strings."""
        for at, name in self.excepted:
            body = rules.get(name)
            if body is None:
                continue  # reported as undefined
            options = body.options if isinstance(body, Alt) else [body]
            for option in options:
                while isinstance(option, Seq) and len(option.items) == 1:
                    option = option.items[0]
                if not (isinstance(option, Literal) and option.text):
                    raise self.error("except!(%s): the rule must be alternatives of non-empty strings" % name, at)


def read_rules(text: str, limits: Limits = DEFAULT_LIMITS) -> Dict[str, Node]:
    """The rules of a kbnf grammar (GrammarError with line and column if malformed)."""
    parser = KbnfParser(text, limits)
    rules = parser.rules()
    missing = undefined_reference(rules)
    if missing is not None:
        raise parser.error("undefined rule %r (used in %r)" % (missing[1].name, missing[0]), missing[1].offset)
    parser.check_excepted(rules)
    return rules

