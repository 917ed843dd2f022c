"""llama.cpp's GBNF, parsed as llama.cpp's grammar parser reads it (src/llama-grammar.cpp).

    root ::= "1. " move (" " move)* "\\n"     a rule: name ::= alternatives, ended by a newline
    move ::= [a-h] [1-8] | "O-O"            | alternatives; "..." literals; [...] classes
    ws   ::= ([ \\t] | "\\n" ws)?             ( ) groups; * + ? {m} {m,} {m,n}; . any char
    think ::= <think> !</think>* </think>     tokens by text or id (<[5]>), ! for "any other"

The details that decide what parses, as llama.cpp has them:

* Names are letters, digits and `-` (llama.cpp's `is_word_char`: no `_`).
* A rule ends at a newline, except inside `( )` and right after `|`; `#` starts a comment
  (to the end of the line) wherever a space may be.
* Escapes in literals and classes: `\\xHH`, `\\uHHHH`, `\\UHHHHHHHH`, `\\t \\r \\n`, and `\\\\ \\" \\[
  \\] \\-` for themselves; any other escape is an error. In a class, `a-z` is a range
  unless `-` comes right before `]`.
* A postfix operator applies to the item just before it (a literal as a whole); several
  nest (`x*?` is `(x*)?`). In `{m,n}`, m may be at most 2000; an n above 2000 means no upper
  bound (llama.cpp's MAX_REPETITION_THRESHOLD).
* Every referenced rule must be defined; `root` is the start (`gbnf_to_ir(..., root=)`).
* A token element never matches an EOS id: llama.cpp decides end-of-generation tokens
  before the grammar sees them (EOS is allowed where the grammar may end).

Where maskref refuses what llama.cpp accepts, with a GrammarError saying so: an empty
class `[]` or `[^]` (llama.cpp reads it as the empty string), `{m,n}` with m > n, and a
rule defined twice (llama.cpp silently keeps the last definition).

No recursion on the nesting depth: open groups are frames on an explicit stack.

>>> rules = read_rules('root ::= "a" [b-d]* | ( "x" )+\\n')
>>> sorted(rules)
['root']
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ...errors import GrammarError
from ...grammar.ir import TokenSpec
from ...regex import unicode as uni
from ..digits import is_digits
from .ast import ANY_CHAR, Chars, Literal, Node, Ref, Repeat, Token
from .reader import Reader, alternatives, undefined_reference

MAX_REPETITION = 2000  # llama.cpp's MAX_REPETITION_THRESHOLD
_SIMPLE_ESCAPES = {"t": "\t", "r": "\r", "n": "\n", "\\": "\\", '"': '"', "[": "[", "]": "]", "-": "-"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def _is_word(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or ("0" <= c <= "9") or c == "-"


class _Frame:
    """An open group: its alternatives so far (each a list of items) and where it opened."""

    __slots__ = ("offset", "alternatives")

    def __init__(self, offset: int) -> None:
        self.offset = offset
        self.alternatives: List[List[Node]] = [[]]

    def node(self) -> Node:
        return alternatives(self.offset, self.alternatives)


class GbnfParser(Reader):
    def rules(self) -> Dict[str, Node]:
        out: Dict[str, Node] = {}
        self.space(True)
        while self.pos < len(self.text):
            start = self.pos
            name = self.name()
            self.space(False)
            if not self.text.startswith("::=", self.pos):
                raise self.error("expecting ::= after the rule name '%s'" % name)
            self.pos += 3
            self.space(True)
            body = self.alternates()
            if name in out:
                raise self.error("rule '%s' is defined twice (llama.cpp would keep the last definition)" % name, start)
            out[name] = body
            if self.peek() == "\r":
                self.pos += 2 if self.peek(1) == "\n" else 1
            elif self.peek() == "\n":
                self.pos += 1
            elif self.pos < len(self.text):
                raise self.error("expecting newline or end of grammar, found %r" % self.peek())
            self.space(True)
        return out

    def name(self) -> str:
        start = self.pos
        while _is_word(self.peek()):
            self.pos += 1
        if self.pos == start:
            raise self.error("expecting a rule name (letters, digits and '-')")
        return self.text[start:self.pos]

    def alternates(self) -> Node:
        """A rule's body: alternatives of sequences, with groups on an explicit stack."""
        frames = [_Frame(self.pos)]
        while True:
            nested = len(frames) > 1
            c = self.peek()
            items = frames[-1].alternatives[-1]
            if c == "(":
                frames.append(_Frame(self.pos))
                self.pos += 1
                self.space(True)
            elif c == ")" and nested:
                node = frames.pop().node()
                self.pos += 1
                self.space(len(frames) > 1)
                frames[-1].alternatives[-1].append(node)
            elif c == "|":
                frames[-1].alternatives.append([])
                self.pos += 1
                self.space(True)
            elif c in ("*", "+", "?", "{"):
                self.postfix(items, nested)
                self.space(nested)
            elif c == '"' or c == "[" or c == "<" or c == "!" or c == "." or _is_word(c):
                items.append(self.atom())
                self.space(nested)
            elif nested:
                raise self.error("expecting ')' to close the group opened here", frames[-1].offset)
            else:
                return frames[0].node()

    def atom(self) -> Node:
        start, c = self.pos, self.peek()
        if c == '"':
            return Literal(start, self.quoted(self.char, "unexpected end of grammar in a literal"))
        if c == "[":
            return self.char_class()
        if c in "<!":
            return self.token()
        if c == ".":
            self.pos += 1
            return Chars(start, ANY_CHAR)
        return Ref(start, self.name())

    def char(self) -> str:
        """One character of a literal or class, escapes decoded."""
        c = self.peek()
        if c != "\\":
            self.pos += 1
            return c
        e = self.peek(1)
        if e in _HEX_ESCAPES:
            digits = self.text[self.pos + 2:self.pos + 2 + _HEX_ESCAPES[e]]
            if len(digits) != _HEX_ESCAPES[e] or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise self.error("expecting %d hex digits after \\%s" % (_HEX_ESCAPES[e], e))
            cp = int(digits, 16)
            if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
                raise self.error("\\%s%s is not a Unicode scalar value" % (e, digits))
            self.pos += 2 + len(digits)
            return chr(cp)
        if e in _SIMPLE_ESCAPES:
            self.pos += 2
            return _SIMPLE_ESCAPES[e]
        raise self.error("unknown escape \\%s" % e if e else "unexpected end of grammar after '\\'")

    def char_class(self) -> Node:
        start = self.pos
        self.pos += 1
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        ranges: List[Tuple[int, int]] = []
        while self.peek() != "]":
            if not self.peek():
                raise self.error("unexpected end of grammar in a character class", start)
            lo = ord(self.char())
            hi = lo
            if self.peek() == "-" and self.peek(1) != "]":
                self.pos += 1
                if not self.peek():
                    raise self.error("unexpected end of grammar in a character class", start)
                hi = ord(self.char())
            if hi < lo:
                raise self.error("invalid range %s-%s in a character class" % (chr(lo), chr(hi)), start)
            ranges.append((lo, hi))
        self.pos += 1
        if not ranges:
            raise self.error("empty character class (llama.cpp reads [] and [^] as the empty string)", start)
        merged = uni.normalize(ranges)
        return Chars(start, uni.intersection(uni.negate(merged), ANY_CHAR) if negated else merged)

    def token(self) -> Node:
        """`<[id]>`, `<text>` (the token whose text it is), and `!` before either."""
        start = self.pos
        negated = self.peek() == "!"
        if negated:
            self.pos += 1
        if self.peek() != "<":
            raise self.error("expecting '<' after '!'")
        open_at = self.pos
        if self.peek(1) == "[":
            self.pos += 2
            token_id = self.digits()
            if token_id is None:
                raise self.error("expecting a token id in <[...]>")
            if self.text[self.pos:self.pos + 2] != "]>":
                raise self.error("expecting ']>' to end the token <[%d]>" % token_id)
            self.pos += 2
            return Token(start, TokenSpec(self.text[start:self.pos], ranges=((token_id, token_id),), negated=negated,
                                          no_eos=True, offset=start, source=self.text))
        end = self.text.find(">", open_at)
        if end < 0:
            raise self.error("expecting '>' to end the token", open_at)
        self.pos = end + 1
        text = self.text[open_at:self.pos]
        return Token(start, TokenSpec(self.text[start:self.pos], name=text, negated=negated, text_too=True, no_eos=True,
                                      offset=start, source=self.text))

    def postfix(self, items: List[Node], nested: bool) -> None:
        """Apply `*`, `+`, `?` or `{...}` to the last item."""
        at, c = self.pos, self.peek()
        if not items:
            raise self.error("expecting an item before %s" % c)
        self.pos += 1
        if c == "*":
            lo, hi = 0, None  # type: Tuple[int, Optional[int]]
        elif c == "+":
            lo, hi = 1, None
        elif c == "?":
            lo, hi = 0, 1
        else:
            lo, hi = self.bounds(nested)
        items[-1] = Repeat(at, items[-1], lo, hi)

    def bounds(self, nested: bool) -> Tuple[int, Optional[int]]:
        """`{m}`, `{m,}`, `{m,n}` after the `{` (spaces between the parts; newlines too
        inside a group)."""
        self.space(nested)
        lo = self.integer()
        self.space(nested)
        hi: Optional[int] = lo
        if self.peek() == ",":
            self.pos += 1
            self.space(nested)
            hi = self.integer() if is_digits(self.peek()) else None
            self.space(nested)
        elif self.peek() != "}":
            raise self.error("expecting ',' or '}' in a repetition")
        if self.peek() != "}":
            raise self.error("expecting '}' to end the repetition")
        self.pos += 1
        if lo > MAX_REPETITION:
            raise self.error("number of repetitions exceeds sane defaults (%d; llama.cpp allows %d)" % (lo, MAX_REPETITION))
        if hi is not None and hi > MAX_REPETITION:
            hi = None  # llama.cpp: a maximum above the threshold means no maximum
        if hi is not None and hi < lo:
            raise self.error("invalid repetition {%d,%d}: the minimum is above the maximum" % (lo, hi))
        return lo, hi

    def integer(self) -> int:
        value = self.digits()
        if value is None:
            raise self.error("expecting an integer")
        return value


def read_rules(text: str) -> Dict[str, Node]:
    """The rules of a GBNF grammar, by name (GrammarError if malformed)."""
    rules = GbnfParser(text).rules()
    undefined = undefined_reference(rules)
    if undefined is not None:
        name, ref = undefined
        raise GrammarError("undefined rule '%s' (in the rule '%s')" % (ref.name, name), text, ref.offset)
    return rules
