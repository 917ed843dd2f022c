"""xgrammar's EBNF (docs/defining_structures/ebnf_grammar.md, cpp/grammar_parser.cc).

GBNF with more: rule bodies span lines (a rule name must begin its line), names may hold
`_` and `.`, literal escapes `\\xH...` (any number of digits), `\\e \\0 \\a \\v \\b \\f \\/ \\' \\?`,
class escapes of `^ $ \\ . * + ? ( ) [ ] { } | / -`, `[^]` (any character), `( )` (ε),
`{m}`, `{m,}`, `{m,n}` with any bounds, at most one repetition operator per element, the
macros `Token(ids...)` and `ExcludeToken(ids...)` (tokens read by id) and
`Substring("abc", "de", ...)` (any run of consecutive chunks), `Regex("...", flags=...,
json_string=...)` (xgrammar's own regex dialect, read by xgrammar_regex.py into a
`Pattern`), `TagDispatch(...)` and `TokenTagDispatch(...)` (xgrammar_dispatch.py), a
lookahead assertion `(= ...)` at the end of a rule, and rule options
`name[lazy, max_chars=N, max_tokens=N, capture, temperature=T, ...] ::=`
(xgrammar_options.py: `lazy` and `max_chars` change the language, `max_tokens` is a token
budget, the others are checked and change nothing).

What maskref does not take, with a GrammarError naming it: `lazy`, `max_chars` and
`max_tokens` on a body that is not regular, nested `max_chars`. A lookahead assertion is read and checked,
and does not change the language: xgrammar uses it as a hint for its token-mask cache
(the grammar's author asserts that what follows the rule begins so).

>>> rules = read_rules('root ::= "a" x+\\nx ::= [\\\\-b] (= "b")\\n')
>>> sorted(rules)
['root', 'x']
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from ...errors import GrammarError, RegexError
from ...grammar.ir import TokenSpec
from ...regex import unicode as uni
from .ast import ANY_CHAR, Alt, Chars, Literal, Node, Pattern, Ref, Repeat, Seq, Substring, Token, children
from .reader import Reader, alternatives, undefined_reference
from .xgrammar_dispatch import tag_dispatch, token_tag_dispatch
from .xgrammar_options import RuleOptions, apply_options, read_options
from .xgrammar_regex import translate

_NAME = re.compile(r"[A-Za-z_.\-][A-Za-z0-9_.\-]*")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "'": "'", "?": "?", "n": "\n", "r": "\r", "t": "\t", "b": "\b",
            "f": "\f", "a": "\a", "v": "\v", "0": "\0", "e": "\x1b"}
_CLASS_ESCAPES = "^$\\.*+?()[]{}|/-"
MAX_NESTING = 1000  # xgrammar's max_nest_layer
#: a macro argument: (kind, value, offset); kinds "str", "int", "bool", "id", "tuple"
Value = Tuple[str, Any, int]


class XgrammarParser(Reader):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.options: Dict[str, RuleOptions] = {}

    def at_rule_start(self) -> bool:
        """Does a rule definition (`name ::=`, `name[...] ::=`) start here?"""
        m = _NAME.match(self.text, self.pos)
        if not m:
            return False
        rest = self.text[m.end():]
        return re.match(r"[ \t]*(\[[^\n]*\][ \t]*)?::=", rest) is not None

    def rules(self) -> Dict[str, Node]:
        out: Dict[str, Node] = {}
        self.space()
        if self.pos >= len(self.text):
            raise self.error("the grammar has no rules")
        while self.pos < len(self.text):
            start = self.pos
            if not self.at_rule_start():
                raise self.error("expecting a rule definition (name ::= ...)")
            line_start = self.text.rfind("\n", 0, start) + 1
            if self.text[line_start:start].strip(" \t"):
                raise self.error("the rule name should be at the beginning of the line")
            name = _NAME.match(self.text, self.pos).group()  # type: ignore[union-attr]
            self.pos += len(name)
            while self.peek() in " \t":
                self.pos += 1
            if self.peek() == "[":
                self.options[name] = read_options(self, name)
                while self.peek() in " \t" and self.peek():
                    self.pos += 1
                if not self.text.startswith("::=", self.pos):
                    raise self.error("Expect ::= after the rule options")
            self.pos += 3
            self.space()
            body = self.choices()
            if name in out:
                raise self.error('Rule "%s" is defined multiple times' % name, start)
            out[name] = body
        return out

    def choices(self, closed_by_paren: bool = False) -> Node:
        """A rule body up to the next rule, or (`closed_by_paren`) a lookahead's body up to
        its `)` (explicit stack for groups)."""
        frames: List[Tuple[int, List[List[Node]]]] = [(self.pos, [[]])]
        while True:
            self.space()
            c = self.peek()
            alts = frames[-1][1]
            if c == ")" and (len(frames) > 1 or closed_by_paren):
                node = self._close(frames.pop())
                if not frames:  # the lookahead's own ')'
                    return node
                frames[-1][1][-1].append(self.quantified(node))
            elif c == "(" and self.peek(1) == "=":
                if len(frames) > 1 or closed_by_paren:
                    raise self.error("a lookahead assertion (= ...) may only end a rule")
                self.lookahead()
                self.space()
                if self.pos < len(self.text) and not self.at_rule_start():
                    raise self.error("a lookahead assertion (= ...) may only end a rule")
                return _node(frames[0])
            elif c == "(":
                if len(frames) > MAX_NESTING:
                    raise self.error("Nest layer exceeded the maximum limit")
                frames.append((self.pos, [[]]))
                self.pos += 1
            elif c == "|":
                self.pos += 1
                alts.append([])
            elif c in ("*", "+", "?", "{"):
                raise self.error("Expect element, but got %s" % c)
            elif c and (c in '"[' or _NAME.match(c)) and not self.at_rule_start():
                alts[-1].append(self.quantified(self.element()))
            elif len(frames) > 1 or closed_by_paren:
                raise self.error("Expect )" if c else "unexpected end of grammar: Expect )")
            else:
                if any(not seq for seq in alts):
                    raise self.error("Expect element, but got %s" % (repr(c) if c else "end of grammar"))
                return _node(frames[0])

    def _close(self, frame: Tuple[int, List[List[Node]]]) -> Node:
        """The node of a group at its `)` (`( )` is ε; an empty alternative is an error)."""
        if frame[1] == [[]]:
            self.pos += 1
            return Seq(frame[0], [])
        if any(not seq for seq in frame[1]):
            raise self.error("Expect element, but got )")
        self.pos += 1
        return _node(frame)

    def lookahead(self) -> None:
        """`(= sequence)`: parsed and checked, then dropped (it is a hint to xgrammar)."""
        self.pos += 2
        start = self.pos
        stack = [self.choices(closed_by_paren=True)]
        while stack:
            node = stack.pop()
            if isinstance(node, Alt):
                raise self.error("a lookahead assertion may not hold choices", start)
            if isinstance(node, (Substring, Token)):
                raise self.error("a lookahead assertion may not hold a macro", node.offset)
            stack.extend(children(node))

    def quantified(self, node: Node) -> Node:
        self.space()
        c, at = self.peek(), self.pos
        if c in ("*", "+", "?"):
            self.pos += 1
            node = Repeat(at, node, 1 if c == "+" else 0, 1 if c == "?" else None)
        elif c == "{":
            self.pos += 1
            lo, hi = self.bounds()
            node = Repeat(at, node, lo, hi)
        else:
            return node
        self.space()
        if self.peek() in ("*", "+", "?", "{"):
            raise self.error("Expect element, but got %s (two repetition operators in a row)" % self.peek())
        return node

    def bounds(self) -> Tuple[int, Optional[int]]:
        self.space()
        lo = self.integer("a lower bound")
        self.space()
        if self.peek() == "}":
            self.pos += 1
            return lo, lo
        if self.peek() != ",":
            raise self.error("Expect ',' or '}' in repetition range")
        self.pos += 1
        self.space()
        hi: Optional[int] = None
        if self.text.startswith("-1", self.pos):
            self.pos += 2
        elif self.peek() != "}":
            hi = self.integer("an upper bound")
            if hi < lo:
                raise self.error("Lower bound is larger than upper bound: %d > %d" % (lo, hi))
        self.space()
        if self.peek() != "}":
            raise self.error("Expect }")
        self.pos += 1
        return lo, hi

    def integer(self, what: str) -> int:
        value = self.digits()
        if value is None:
            raise self.error("Expect integer (%s), but got %r" % (what, self.peek()))
        return value

    def element(self) -> Node:
        start, c = self.pos, self.peek()
        if c == '"':
            return Literal(start, self.quoted(lambda: self.char(""), 'Expect " in string literal', newline_ends=True))
        if c == "[":
            return self.char_class()
        name = _NAME.match(self.text, self.pos).group()  # type: ignore[union-attr]
        self.pos += len(name)
        if name in ("Token", "ExcludeToken") and self.peek() == "(":
            return self.token_macro(name, start)
        if name == "Substring" and self.peek() == "(":
            return self.substring_macro(start)
        if name == "Regex" and self.peek() == "(":
            return self.regex_macro(start)
        if name in ("TagDispatch", "TokenTagDispatch") and self.peek() == "(":
            return self.dispatch_macro(name, start)
        return Ref(start, name)

    def char(self, extra: str) -> str:
        """One character of a literal (or a class, with its `extra` escapes)."""
        c = self.peek()
        if c != "\\":
            self.pos += 1
            return c
        e = self.peek(1)
        if e in _ESCAPES:
            self.pos += 2
            return _ESCAPES[e]
        if e in extra:
            self.pos += 2
            return e
        digits = {"x": None, "u": 4, "U": 8}.get(e, -1)
        if digits == -1:
            raise self.error("Invalid escape sequence \\%s" % e)
        m = re.compile(r"[0-9a-fA-F]+" if digits is None else r"[0-9a-fA-F]{%d}" % digits).match(self.text, self.pos + 2)
        if not m:
            raise self.error("Invalid escape sequence \\%s" % e)
        cp = int(m.group(), 16)
        if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            raise self.error("Invalid escape sequence: \\%s%s is not a Unicode scalar value" % (e, m.group()))
        self.pos = m.end()
        return chr(cp)

    def char_class(self) -> Node:
        start = self.pos
        self.pos += 1
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        chars: List[Tuple[str, bool]] = []  # (character, is an unescaped dash)
        while self.peek() != "]":
            c = self.peek()
            if not c:
                raise self.error("Unterminated character class", start)
            if c in "\r\n":
                raise self.error("Character class should not contain newline")
            if c == "\\" and self.peek(1) in "dDsSwW" and self.peek(1):
                raise self.error("Character class escape is not supported yet in EBNF")
            dash = c == "-"
            chars.append((self.char(_CLASS_ESCAPES), dash))
        self.pos += 1
        ranges: List[Tuple[int, int]] = []
        i = 0
        while i < len(chars):
            lo = ord(chars[i][0])
            if i + 2 < len(chars) and chars[i + 1][1]:
                hi = ord(chars[i + 2][0])
                if lo > hi:
                    raise self.error("Invalid character class: lower bound is larger than upper bound", start)
                ranges.append((lo, hi))
                i += 3
            else:
                ranges.append((lo, lo))
                i += 1
        merged = uni.normalize(ranges)
        return Chars(start, uni.intersection(uni.negate(merged), ANY_CHAR) if negated else merged)

    def macro_arguments(self) -> Tuple[List[Value], Dict[str, Value]]:
        """`(value, ..., name=value, ...)` at `(`: the positional and the named arguments.
        A value is a string, a decimal integer, `true`/`false`, a rule name or a tuple of
        values (trailing comma allowed), as ("str" | "int" | "bool" | "id" | "tuple", value,
        offset)."""
        self.pos += 1
        args: List[Value] = []
        named: Dict[str, Value] = {}
        self.space()
        if self.peek() == ")":
            self.pos += 1
            return args, named
        while True:
            self.space()
            m = _NAME.match(self.text, self.pos)
            if m and re.match(r"[ \t\r\n]*=", self.text[m.end():]):
                self.pos = self.text.index("=", m.end()) + 1
                named[m.group()] = self.macro_value()
            else:
                args.append(self.macro_value())
            self.space()
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() == ")":
                self.pos += 1
                return args, named
            else:
                raise self.error("Expect , or ) in macro arguments")

    def macro_value(self) -> Value:
        """One macro argument (an explicit stack for nested tuples)."""
        stack: List[Tuple[int, List[Value]]] = []
        while True:
            self.space()
            c, at = self.peek(), self.pos
            value: Optional[Value] = None
            if c == "(":
                if len(stack) > MAX_NESTING:
                    raise self.error("Nest layer exceeded the maximum limit")
                self.pos += 1
                stack.append((at, []))
                self.space()
                if self.peek() != ")":
                    continue
                self.pos += 1
                value = ("tuple", stack.pop()[1], at)
            elif c == '"':
                value = ("str", self.element().text, at)  # type: ignore[attr-defined]
            elif c.isdigit() and c.isascii():
                value = ("int", self.digits(), at)
            elif c and _NAME.match(c):
                name = _NAME.match(self.text, self.pos).group()  # type: ignore[union-attr]
                self.pos += len(name)
                value = ("bool", name == "true", at) if name in ("true", "false") else ("id", name, at)
            else:
                raise self.error("Expect string, integer, boolean, or tuple in macro argument")
            while True:  # close the tuples this value ends
                if not stack:
                    return value
                stack[-1][1].append(value)
                self.space()
                if self.peek() == ",":
                    self.pos += 1
                    self.space()
                    if self.peek() != ")":
                        break
                if self.peek() != ")":
                    raise self.error("Expect , or ) in tuple")
                self.pos += 1
                start, items = stack.pop()
                value = ("tuple", items, start)

    def regex_macro(self, start: int) -> Node:
        """`Regex("pattern", flags="is", json_string=true)`: xgrammar's regex dialect
        (xgrammar_regex.py)."""
        args, named = self.macro_arguments()
        if len(args) != 1:
            raise self.error("Regex expects exactly one string argument", start)
        if args[0][0] != "str":
            raise self.error("Regex pattern must be a string literal", start)
        for name in named:
            if name not in ("json_string", "flags"):
                raise self.error("Regex does not support the named argument %s" % name, start)
        json_string = named.get("json_string", ("bool", False, start))
        if json_string[0] != "bool":
            raise self.error("json_string must be a boolean", start)
        flags = named.get("flags")
        if flags is not None and flags[0] != "str":
            raise self.error("flags must be a string", start)
        try:
            tree = translate(args[0][1], None if flags is None else flags[1], json_string[1])
        except RegexError as e:
            where = "flags" if flags is not None and e.pattern is flags[1] else "the pattern"
            raise self.error("Regex(...): %s (offset %d of %s)" % (e.message, e.offset, where), start) from None
        return Pattern(start, tree)

    def dispatch_macro(self, name: str, start: int) -> Node:
        """`TagDispatch(("tag", rule), ..., loop_after_dispatch=true, excludes=("s", ...))` or
        `TokenTagDispatch((id, rule), ..., excludes=(ids))` (xgrammar_dispatch.py), checked
        as xgrammar checks them."""
        by_token = name == "TokenTagDispatch"
        args, named = self.macro_arguments()
        for key in named:
            if key not in ("loop_after_dispatch", "excludes"):
                raise self.error("Unknown named argument for %s: %s" % (name, key), start)
        pairs = self._dispatch_pairs(args, by_token)
        loop = named.get("loop_after_dispatch", ("bool", True, start))
        if loop[0] != "bool":
            raise self.error("loop_after_dispatch must be a boolean" + ("" if by_token else " literal"), loop[2])
        excludes = self._dispatch_excludes(named.get("excludes", ("tuple", [], start)), by_token)
        for tag, _, _ in pairs:
            for excluded in excludes:
                if by_token and tag == excluded:
                    raise self.error("Token trigger ID %d must not overlap with exclude token ID" % tag, start)
                if not by_token and tag.startswith(excluded):
                    raise self.error("Exclude string must not be a prefix of trigger string: %s" % excluded, start)
        if by_token:
            return token_tag_dispatch(start, self.text, self.pos, pairs, loop[1], excludes)
        return tag_dispatch(start, pairs, loop[1], excludes)

    def _dispatch_pairs(self, args: List[Value], by_token: bool) -> List[Tuple[Any, str, int]]:
        """The (tag or token id, rule name, offset of the name) pairs of a dispatch macro."""
        pairs = []
        for kind, value, at in args:
            if kind != "tuple" or (by_token and len(value) != 2):
                raise self.error("Each TokenTagDispatch element must be a pair (token_id, rule)" if by_token
                                 else "Each tag dispatch element must be a tuple", at)
            if len(value) != 2:
                raise self.error("Each tag dispatch element must be a pair (tag, rule)", at)
            (tag_kind, tag, tag_at), (rule_kind, rule, rule_at) = value
            if by_token and tag_kind != "int":
                raise self.error("Token trigger ID must be a non-negative integer", tag_at)
            if not by_token and (tag_kind != "str" or not tag):
                raise self.error("Tag must be a non-empty string literal", tag_at)
            if rule_kind != "id":
                raise self.error("Rule reference must be an identifier", rule_at)
            pairs.append((tag, rule, rule_at))
        return pairs

    def _dispatch_excludes(self, excludes: Value, by_token: bool) -> List[Any]:
        """The excluded strings (or token ids) of a dispatch macro."""
        kind, values, at = excludes
        if kind != "tuple":
            raise self.error("excludes must be a tuple", at)
        out = []
        for kind, value, at in values:
            if by_token and kind != "int":
                raise self.error("Exclude token ID must be a non-negative integer", at)
            if not by_token and (kind != "str" or not value):
                raise self.error("Exclude must be a non-empty string literal", at)
            out.append(value)
        return out

    def substring_macro(self, start: int) -> Node:
        """`Substring("abc", "de")`: any run of consecutive chunks (strings only, zero or
        more, no named arguments)."""
        self.pos += 1
        chunks: List[str] = []
        self.space()
        while self.peek() != ")":
            if self.peek() != '"':
                raise self.error("Substring() arguments must be strings")
            chunks.append(self.element().text)  # type: ignore[attr-defined]
            self.space()
            if self.peek() == ",":
                self.pos += 1
                self.space()
                if self.peek() == ")":
                    raise self.error("Expect a string after ',' in Substring()")
            elif self.peek() != ")":
                raise self.error("Expect , or ) in macro arguments")
        self.pos += 1
        return Substring(start, chunks)

    def token_macro(self, name: str, start: int) -> Node:
        """`Token(1, 2)`, `ExcludeToken(5)`: one token by id (or any other)."""
        self.pos += 1
        ids: List[int] = []
        while True:
            self.space()
            ids.append(self.integer("a token id"))
            self.space()
            if self.peek() == ",":
                self.pos += 1
                continue
            if self.peek() != ")":
                raise self.error("Expect , or ) in macro arguments")
            self.pos += 1
            break
        text = self.text[start:self.pos]
        return Token(start, TokenSpec(text, ranges=tuple((t, t) for t in ids), negated=name == "ExcludeToken",
                                      offset=start, source=self.text))


def _node(frame: Tuple[int, List[List[Node]]]) -> Node:
    return alternatives(*frame)


def read_rules(text: str, root: str = "root", metadata: Optional[Dict[str, Dict[str, object]]] = None
                ) -> Dict[str, Node]:
    """The rules of an xgrammar EBNF grammar, by name (GrammarError if malformed); the
    rules' options that change no mask go into `metadata`, if given."""
    parser = XgrammarParser(text)
    rules = parser.rules()
    undefined = undefined_reference(rules)
    if undefined is not None:
        raise GrammarError('Rule "%s" is not defined' % undefined[1].name, text, undefined[1].offset)
    if root not in rules:
        raise GrammarError('The root rule with name "%s" is not found' % root, text, 0)
    if parser.options:
        from .compiler import regular_rules

        apply_options(rules, parser.options, regular_rules(rules), text)
        if metadata is not None:
            metadata.update((name, o.metadata()) for name, o in parser.options.items() if o.metadata())
    return rules
