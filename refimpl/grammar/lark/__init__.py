"""The Lark frontend: llguidance's dialect of Lark, compiled to a GrammarIR.

    text --_scan--> tokens --_Parser--> definitions (one small AST per rule / terminal)
         --_Compiler--> GrammarIR: each terminal becomes ONE regex expression (a lexeme),
                        each rule becomes plain BNF rules over lexemes and nonterminals

The dialect, as llguidance's docs/syntax.md and its lexer/parser/compiler define it:

* `name: ...` (lowercase) is a rule, `NAME: ...` (uppercase) a terminal; `-` may appear in
  names after the first character; `_name`, `?name` (inline) and `!name` are rules like
  any other (the prefixes only shape Lark's parse trees, not the language). `start` is
  the start rule. Definitions end at the end of the line, except that a line starting
  with `|` continues the alternatives.
* Expressions: `"literal"` (JSON string escapes plus `\\xHH`; suffix `i` for case
  insensitive), `"a".."z"` (a character range), `/regex/flags` (Rust regex syntax; flags
  out of `imsux`), names, `( )`, `[ ]` (optional), postfix `?`, `*`, `+`, `{m}`, `{m,}`,
  `{,n}`, `{m,n}`, `~m`, `~m..n` (only one postfix operator per atom), concatenation,
  `|`, and `-> alias` (ignored). In terminals, also `&` (intersection: binds tighter than
  `|`, looser than concatenation) and prefix `~` (complement: binds tighter than the
  postfix operators, so `~A+` is `(~A)+`). In a rule, `~atom` is a terminal expression.
* `%ignore <terminal expression>` (several: their union), `%import common.NAME [-> ALIAS]`,
  `%import common (A, B)`, `%llguidance {json}` (options), `%json {schema}` (a JSON
  schema, compiled by jsonschema.py), `%regex {"substring_words": ...}` and friends.
* `name[lazy]: <terminal expression>` makes the body one *lazy* lexeme.
* `//` and `#` start comments.

Terminals and rules are compiled only when reachable from `start` (or from `%ignore`),
as llguidance does: an unused rule may mention an undefined name without error.

Rejected with a GrammarError naming the feature: special tokens `<...>`, grammar
references `@name`, nested `%lark {}`, rule options other than `lazy` (`max_tokens`,
`temperature`, `stop`, `suffix`, `capture`, `stop_capture`), parametric rules
(`name::_`, `%if`), templates, priorities (`NAME.2`; llguidance rejects them too),
`%override`, `%declare`, imports other than `common`, and the `ignore_once` option.
Where we differ from llguidance on purpose: a regex literal may not span lines, numbers
in `~1..3` need no spaces, and comment lines may sit between a rule and its `| ...`
continuation lines.

No function here recurses on the nesting depth of the input: the expression parser keeps
an explicit stack of open groups, and the compilers fold the AST with explicit stacks.

>>> ir = parse_lark('''
... start: greeting+ NAME
... greeting: "hi" | "hello"i
... NAME: /[a-z]+/
... %ignore " "
... ''')
>>> print(ir.to_text())
start: greeting+ NAME
greeting: "hi"
 | "hello"i
greeting+: greeting+ greeting
 | greeting
<BLANKLINE>
"""
from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..errors import GrammarError, LimitError, RegexError, SchemaError
from ..limits import DEFAULT_LIMITS, Limits
from ..regex import ExprSet, compile_pattern
from ..regex import unicode as _unicode
from . import simplify as _simplify
from .ir import GrammarIR
from .jsontext import JsonTextError, read_json

__all__ = ["parse_lark", "COMMON_TERMINALS"]

# =============================================================================== tokens
#
# Token kinds: RULE, TERM (names), STRING, REGEX, NUMBER, OP (+ * ?), SPECIAL (<...>),
# GREF (@name), DIRECTIVE (%ignore, %json, ...), NEWLINE, EOF, and punctuation, whose
# kind is its own text (":", "::", "=", ",", ".", "..", "->", "(", ")", "{", "}", "[",
# "]", "~", "|", "&", "_", "!").


class Token:
    """One token: its kind, its value, and where it sits in the grammar text."""

    __slots__ = ("kind", "value", "offset", "end")

    def __init__(self, kind: str, value: Any, offset: int, end: int) -> None:
        self.kind = kind
        self.value = value
        self.offset = offset
        self.end = end

    def describe(self) -> str:
        """The token as an error message names it."""
        if self.kind == "NEWLINE":
            return "the end of the line"
        if self.kind == "EOF":
            return "the end of the grammar"
        if self.kind == "RULE":
            return "rule name '%s'" % self.value
        if self.kind == "TERM":
            return "terminal name '%s'" % self.value
        if self.kind == "STRING":
            return "string %s" % _quote(self.value[0])
        if self.kind == "REGEX":
            return "regex /%s/" % self.value[0]
        if self.kind == "NUMBER":
            return "number %s" % self.value
        if self.kind in ("SPECIAL", "GREF", "OP"):
            return "'%s'" % self.value
        if self.kind == "DIRECTIVE":
            return "'%s'" % self.value[0]
        return "'%s'" % self.kind


_NAME_RE = re.compile(r"[_a-zA-Z](?:[_a-zA-Z0-9]|-(?!>))*")
_RULE_NAME_RE = re.compile(r"_?[a-z][_a-z0-9-]*\Z")
_TERM_NAME_RE = re.compile(r"_?[A-Z][_A-Z0-9-]*\Z")
_NUMBER_RE = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_SPECIAL_RE = re.compile(r"<[^<>\s]+>")
_GREF_RE = re.compile(r"@[a-zA-Z0-9_-]+")
_DIRECTIVE_RE = re.compile(r"%[a-z]+")
_REGEX_FLAGS = "imslux"
_DIRECTIVES = (
    "%ignore", "%import", "%override", "%declare", "%json", "%regex", "%llguidance",
    "%if", "%lark",
)
_JSON_DIRECTIVES = ("%json", "%regex", "%llguidance")
_PUNCTUATION = ("::", "..", "->", ":", "=", ",", ".", "(", ")", "{", "}", "[", "]", "~",
                "|", "&", "!")
_STRING_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
                   "r": "\r", "t": "\t"}


def _scan(text: str) -> List[Token]:
    """Split grammar text into tokens (the last one is EOF).

    Spaces, tabs and comments (`//` or `#` to the end of the line) separate tokens. A
    newline, with any blank or comment lines after it, is one NEWLINE token: newlines end
    definitions. `%json`, `%regex` and `%llguidance` are followed by a JSON value, read
    here and kept in the DIRECTIVE token.
    """
    tokens: List[Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t":
            i += 1
        elif c == "#" or text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif c == "\n" or text.startswith("\r\n", i):
            start = i
            while i < n:  # newlines, blank lines and comment lines: one token
                if text[i] in " \t\n":
                    i += 1
                elif text.startswith("\r\n", i):
                    i += 2
                elif text[i] == "#" or text.startswith("//", i):
                    while i < n and text[i] != "\n":
                        i += 1
                else:
                    break
            tokens.append(Token("NEWLINE", None, start, i))
        elif c == '"':
            value, flags, end = _scan_string(text, i)
            tokens.append(Token("STRING", (value, flags), i, end))
            i = end
        elif c == "/":
            pattern, flags, end = _scan_regex(text, i)
            tokens.append(Token("REGEX", (pattern, flags), i, end))
            i = end
        elif c == "%":
            m = _DIRECTIVE_RE.match(text, i)
            word = m.group() if m else "%"
            if word not in _DIRECTIVES:
                raise GrammarError(
                    "unknown directive '%s' (expected one of %s)" % (word, ", ".join(_DIRECTIVES)),
                    text, i,
                )
            end = i + len(word)
            if word in _JSON_DIRECTIVES:
                j = end
                while j < n and text[j] in " \t\r\n":
                    j += 1
                value, end = _read_json(text, j, word)
                tokens.append(Token("DIRECTIVE", (word, value, j), i, end))
            else:
                tokens.append(Token("DIRECTIVE", (word, None, end), i, end))
            i = end
        elif c == "<":
            m = _SPECIAL_RE.match(text, i)
            if not m:
                raise GrammarError("unexpected '<': expected a special token like <|end|>", text, i)
            tokens.append(Token("SPECIAL", m.group(), i, m.end()))
            i = m.end()
        elif c == "@":
            m = _GREF_RE.match(text, i)
            if not m:
                raise GrammarError("unexpected '@': expected a grammar reference like @name", text, i)
            tokens.append(Token("GREF", m.group(), i, m.end()))
            i = m.end()
        elif "0" <= c <= "9" or (c in "+-" and i + 1 < n and "0" <= text[i + 1] <= "9"):
            m = _NUMBER_RE.match(text, i)
            assert m is not None
            tokens.append(Token("NUMBER", m.group(), i, m.end()))
            i = m.end()
        elif c in "+*?":
            tokens.append(Token("OP", c, i, i + 1))
            i += 1
        elif c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z"):
            m = _NAME_RE.match(text, i)
            assert m is not None
            name = m.group()
            if name == "_":
                kind = "_"
            elif _RULE_NAME_RE.match(name):
                kind = "RULE"
            elif _TERM_NAME_RE.match(name):
                kind = "TERM"
            else:
                raise GrammarError(
                    "invalid name '%s': rule names are lowercase (name), terminal names "
                    "uppercase (NAME)" % name, text, i,
                )
            tokens.append(Token(kind, name, i, m.end()))
            i = m.end()
        else:
            for p in _PUNCTUATION:
                if text.startswith(p, i):
                    tokens.append(Token(p, p, i, i + len(p)))
                    i += len(p)
                    break
            else:
                raise GrammarError("unexpected character %r" % c, text, i)
    tokens.append(Token("EOF", None, n, n))
    return tokens


def _scan_string(text: str, i: int) -> Tuple[str, str, int]:
    """A string literal at text[i] == '"': (its value, its flags, the offset after it).

    The escapes are JSON's (`\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX`, surrogate pairs
    combined) plus `\\xHH`; raw control characters are not allowed inside (as in JSON).
    The flag `i` may follow the closing quote.
    """
    n = len(text)
    out: List[str] = []
    j = i + 1
    while True:
        if j >= n or text[j] == "\n":
            raise GrammarError("unclosed string: expected '\"' before the end of the line", text, i)
        c = text[j]
        if c == '"':
            j += 1
            break
        if c == "\\":
            e = text[j + 1] if j + 1 < n else ""
            if e in _STRING_ESCAPES:
                out.append(_STRING_ESCAPES[e])
                j += 2
            elif e == "x":
                digits = text[j + 2:j + 4]
                if len(digits) != 2 or not all(d in "0123456789abcdefABCDEF" for d in digits):
                    raise GrammarError("invalid escape in string: expected two hex digits after \\x", text, j)
                out.append(chr(int(digits, 16)))
                j += 4
            elif e == "u":
                code, j2 = _unicode_escape(text, j)
                if 0xD800 <= code <= 0xDBFF and text.startswith("\\u", j2):
                    low, j3 = _unicode_escape(text, j2)
                    if 0xDC00 <= low <= 0xDFFF:
                        code, j2 = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00), j3
                if 0xD800 <= code <= 0xDFFF:
                    raise GrammarError("invalid escape in string: lone surrogate \\u%04x" % code, text, j)
                out.append(chr(code))
                j = j2
            else:
                raise GrammarError(
                    "invalid escape in string: \\%s (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r "
                    "\\t \\uXXXX \\xHH)" % e, text, j,
                )
        elif ord(c) < 0x20 or c == "\x7f":
            raise GrammarError(
                "control character %r in string: write it as an escape" % c, text, j
            )
        else:
            out.append(c)
            j += 1
    flags = ""
    if j < n and text[j] == "i":
        flags, j = "i", j + 1
    return "".join(out), flags, j


def _unicode_escape(text: str, j: int) -> Tuple[int, int]:
    """The code unit of `\\uXXXX` at text[j], and the offset after it."""
    digits = text[j + 2:j + 6]
    if len(digits) != 4 or not all(d in "0123456789abcdefABCDEF" for d in digits):
        raise GrammarError("invalid escape in string: expected four hex digits after \\u", text, j)
    return int(digits, 16), j + 6


def _scan_regex(text: str, i: int) -> Tuple[str, str, int]:
    """A regex literal `/.../flags` at text[i]: (the pattern text, flags, offset after).

    The pattern is the raw text between the slashes, handed to the regex compiler as is;
    `\\/` stands for a slash. Unlike llguidance we stop at a raw newline (so a missing
    closing slash is reported where it is), which no sensible grammar relies on.
    """
    n = len(text)
    j = i + 1
    while True:
        if j >= n or text[j] == "\n":
            raise GrammarError("unclosed regex: expected '/' before the end of the line", text, i)
        if text[j] == "\\" and j + 1 < n and text[j + 1] != "\n":
            j += 2
        elif text[j] == "/":
            break
        else:
            j += 1
    pattern = text[i + 1:j]
    j += 1
    k = j
    while k < n and text[k] in _REGEX_FLAGS:
        k += 1
    return pattern, text[j:k], k


# =========================================================================== JSON values

def _read_json(text: str, i: int, what: str) -> Tuple[Any, int]:
    """The JSON value starting at text[i], and the offset after it (jsontext.read_json)."""
    try:
        value, end = read_json(text, i)
    except JsonTextError as e:
        raise GrammarError("invalid JSON after %s: %s" % (what, e.message), text, e.offset) from None
    return value, end


# ================================================================================= AST


class Node:
    """An expression of a rule or terminal body; `offset` points into the grammar text."""

    __slots__ = ("offset",)


class Alt(Node):
    """a | b | ..."""

    __slots__ = ("options",)

    def __init__(self, offset: int, options: List[Node]) -> None:
        self.offset, self.options = offset, options


class And(Node):
    """a & b & ... (terminals only)."""

    __slots__ = ("parts",)

    def __init__(self, offset: int, parts: List[Node]) -> None:
        self.offset, self.parts = offset, parts


class Seq(Node):
    """a b ... (possibly empty: ε)."""

    __slots__ = ("items",)

    def __init__(self, offset: int, items: List[Node]) -> None:
        self.offset, self.items = offset, items


class Repeat(Node):
    """node{lo,hi}; hi None for unbounded. `x?`, `x*`, `x+`, `[x]` are repeats too."""

    __slots__ = ("node", "lo", "hi")

    def __init__(self, offset: int, node: Node, lo: int, hi: Optional[int]) -> None:
        self.offset, self.node, self.lo, self.hi = offset, node, lo, hi


class Not(Node):
    """~node: the complement (terminal expressions only)."""

    __slots__ = ("node",)

    def __init__(self, offset: int, node: Node) -> None:
        self.offset, self.node = offset, node


class Literal(Node):
    """"text" or "text"i."""

    __slots__ = ("text", "ci")

    def __init__(self, offset: int, text: str, ci: bool) -> None:
        self.offset, self.text, self.ci = offset, text, ci


class CharRange(Node):
    """"a".."z": one character between two (inclusive)."""

    __slots__ = ("lo", "hi")

    def __init__(self, offset: int, lo: str, hi: str) -> None:
        self.offset, self.lo, self.hi = offset, lo, hi


class RegexLit(Node):
    """/pattern/flags; `pattern_offset` is where the pattern starts in the grammar text."""

    __slots__ = ("pattern", "flags", "pattern_offset")

    def __init__(self, offset: int, pattern: str, flags: str, pattern_offset: int) -> None:
        self.offset, self.pattern, self.flags, self.pattern_offset = offset, pattern, flags, pattern_offset


class Substring(Node):
    """%regex {"substring_...": ...}: any run of consecutive chunks."""

    __slots__ = ("chunks",)

    def __init__(self, offset: int, chunks: List[str]) -> None:
        self.offset, self.chunks = offset, chunks


class Name(Node):
    """A reference to a rule or terminal; `namespace` is None, or "common" for imports."""

    __slots__ = ("name", "namespace")

    def __init__(self, offset: int, name: str, namespace: Optional[str]) -> None:
        self.offset, self.name, self.namespace = offset, name, namespace


class Json(Node):
    """%json {schema} (a nonterminal; compiled by _compile_json)."""

    __slots__ = ("schema",)

    def __init__(self, offset: int, schema: Any) -> None:
        self.offset, self.schema = offset, schema


class Definition:
    """`name: body` — kind is "rule" or "terminal"; `lazy` for `name[lazy]:`."""

    __slots__ = ("kind", "name", "offset", "body", "lazy")

    def __init__(self, kind: str, name: str, offset: int, body: Node, lazy: bool = False) -> None:
        self.kind, self.name, self.offset, self.body, self.lazy = kind, name, offset, body, lazy


# ============================================================================== parser

_ATOM_START = ("STRING", "REGEX", "RULE", "TERM", "SPECIAL", "GREF", "(", "[", "~")
_UNSUPPORTED_OPTIONS = {
    "max_tokens": "the rule option max_tokens is not supported",
    "temperature": "the rule option temperature is not supported",
    "stop": "the rule option stop is not supported (lazy lexemes are: name[lazy]: ...)",
    "suffix": "the rule option suffix is not supported (lazy lexemes are: name[lazy]: ...)",
    "capture": "the rule option capture is not supported",
    "stop_capture": "the rule option stop_capture is not supported",
}


class _Frame:
    """An open group while parsing an expression: the alternatives, conjuncts and items
    gathered so far, the token that opened it and the `~`s waiting to apply to it."""

    __slots__ = ("kind", "open", "negations", "alternatives", "conjuncts", "items",
                 "offset", "alt_offset", "conj_offset")

    def __init__(self, kind: str, open_token: Token, negations: List[Token], offset: int) -> None:
        self.kind = kind
        self.open = open_token
        self.negations = negations
        self.alternatives: List[Node] = []
        self.conjuncts: List[Node] = []
        self.items: List[Node] = []
        self.offset = self.alt_offset = self.conj_offset = offset

    def end_conjunct(self, next_offset: int) -> None:
        items = self.items
        self.conjuncts.append(items[0] if len(items) == 1 else Seq(self.conj_offset, items))
        self.items = []
        self.conj_offset = next_offset

    def end_alternative(self, next_offset: int) -> None:
        self.end_conjunct(next_offset)
        parts = self.conjuncts
        self.alternatives.append(parts[0] if len(parts) == 1 else And(self.alt_offset, parts))
        self.conjuncts = []
        self.alt_offset = next_offset

    def finish(self, offset: int) -> Node:
        self.end_alternative(offset)
        options = self.alternatives
        return options[0] if len(options) == 1 else Alt(self.offset, options)


class _Parser:
    """Tokens -> a list of items: Definition, ("ignore", offset, body),
    ("import", offset, [(common name, local name, offset)]), ("options", offset, dict).

    Items are separated by newlines. Expressions are parsed by `_expansions` with an
    explicit stack of open groups, so nesting depth costs no Python stack.
    """

    def __init__(self, text: str, tokens: List[Token], limits: Limits,
                 namespace: Optional[str] = None) -> None:
        self.text = text
        self.tokens = tokens
        self.pos = 0
        self.limits = limits
        self.namespace = namespace

    # -- token helpers ------------------------------------------------------------------

    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.pos + k, len(self.tokens) - 1)]

    def advance(self) -> Token:
        tok = self.tokens[self.pos]
        if tok.kind != "EOF":
            self.pos += 1
        return tok

    def error(self, message: str, tok: Optional[Token] = None) -> GrammarError:
        return GrammarError(message, self.text, (tok or self.peek()).offset)

    def expect(self, kind: str, message: str) -> Token:
        """The next token, which must be of `kind`; else "<message>, found <token>"."""
        tok = self.peek()
        if tok.kind != kind:
            raise self.error("%s, found %s" % (message, tok.describe()), tok)
        return self.advance()

    # -- items --------------------------------------------------------------------------

    def parse_grammar(self) -> List[Any]:
        """All items of the grammar, in order."""
        items: List[Any] = []
        while True:
            while self.peek().kind == "NEWLINE":
                self.advance()
            if self.peek().kind == "EOF":
                return items
            items.append(self._item())
            tok = self.peek()
            if tok.kind not in ("NEWLINE", "EOF"):
                raise self.error(
                    "expected the end of the line after the definition, found %s" % tok.describe(), tok
                )

    def _item(self) -> Any:
        tok = self.peek()
        if tok.kind in ("!",) or (tok.kind == "OP" and tok.value == "?"):
            # `!name` and `?name` (and `!?name`): Lark's tree-shaping prefixes
            self.advance()
            if self.peek().kind == "OP" and self.peek().value == "?" and tok.kind == "!":
                self.advance()
            nxt = self.peek()
            if nxt.kind != "RULE" or nxt.offset != self.tokens[self.pos - 1].end:
                raise self.error("expected a rule name right after '%s'" % tok.value, nxt)
            return self._rule()
        if tok.kind == "RULE":
            return self._rule()
        if tok.kind == "TERM":
            return self._terminal()
        if tok.kind == "DIRECTIVE":
            return self._statement()
        raise self.error(
            "expected a rule, a terminal or a statement (%%ignore, %%import, ...), found %s"
            % tok.describe(), tok
        )

    def _name_suffixes(self, name: Token, what: str) -> None:
        """Reject what may follow a name before its ':' that we do not support."""
        tok = self.peek()
        if tok.kind == "::":
            raise self.error("parametric rules (%s::_) are not supported" % name.value, tok)
        if tok.kind == "{":
            raise self.error("templates (%s{...}) are not supported" % name.value, tok)
        if tok.kind == ".":
            raise self.error(
                "%s priorities (%s.N) are not supported (llguidance: priority not supported yet)"
                % (what, name.value), tok,
            )

    def _rule(self) -> Definition:
        """`name [ [options] ] : expansions`."""
        name = self.advance()
        self._name_suffixes(name, "rule")
        lazy = False
        if self.peek().kind == "[":
            lazy = self._rule_options()
        self.expect(":", "expected ':' after rule name '%s'" % name.value)
        body = self._expansions("lazy" if lazy else "rule")
        return Definition("rule", name.value, name.offset, body, lazy)

    def _rule_options(self) -> bool:
        """`[lazy]`, and llguidance's other options, which we reject by name."""
        self.advance()
        lazy = False
        while self.peek().kind != "]":
            key = self.expect("RULE", "expected an option name such as lazy")
            if key.value == "lazy":
                lazy = True
            elif key.value in _UNSUPPORTED_OPTIONS:
                raise self.error(_UNSUPPORTED_OPTIONS[key.value], key)
            else:
                raise self.error("Unknown attribute: %s (the only supported option is lazy)" % key.value, key)
            if self.peek().kind != ",":
                break
            self.advance()
        self.expect("]", "expected ']' to close the rule options")
        return lazy

    def _terminal(self) -> Definition:
        """`NAME : expansions`."""
        name = self.advance()
        self._name_suffixes(name, "terminal")
        if self.peek().kind == "[":
            raise self.error(
                "expected ':' after terminal name '%s' (options such as [lazy] are written "
                "on lowercase rules: name[lazy]: ...)" % name.value
            )
        self.expect(":", "expected ':' after terminal name '%s'" % name.value)
        return Definition("terminal", name.value, name.offset, self._expansions("terminal"))

    def _statement(self) -> Any:
        """%ignore, %import, %llguidance; the other directives are rejected."""
        tok = self.advance()
        word = tok.value[0]
        if word == "%ignore":
            return ("ignore", tok.offset, self._expansions("ignore"))
        if word == "%import":
            return ("import", tok.offset, self._import(tok))
        if word == "%llguidance":
            return ("options", tok.value[2], tok.value[1])
        if word in ("%override", "%declare"):
            raise self.error("%s is not supported" % word, tok)
        raise self.error(
            "expected a rule, a terminal or a statement, found '%s' (it may only appear in "
            "an expression)" % word, tok
        )

    def _import(self, keyword: Token) -> List[Tuple[str, str, int]]:
        """`%import common.NAME [-> ALIAS]` or `%import common (A, B, ...)`."""
        path: List[Token] = []
        if self.peek().kind in (".", ".."):
            raise self.error("relative imports are not supported: only %import common.NAME is")
        while True:
            path.append(self.expect_name("expected a module or terminal name after %import"))
            if self.peek().kind != ".":
                break
            self.advance()
        if path[0].value != "common":
            raise self.error(
                "%%import of '%s' is not supported: only the built-in common terminals "
                "(%%import common.NAME)" % ".".join(t.value for t in path), path[0],
            )
        if len(path) == 2:
            local = path[1]
            if self.peek().kind == "->":
                self.advance()
                local = self.expect_name("expected a name after '->'")
            return [(path[1].value, local.value, path[1].offset)]
        if len(path) == 1 and self.peek().kind == "(":
            self.advance()
            names = []
            while True:
                t = self.expect_name("expected a terminal name in the import list")
                names.append((t.value, t.value, t.offset))
                if self.peek().kind != ",":
                    break
                self.advance()
            self.expect(")", "expected ')' to close the import list")
            return names
        raise self.error(
            "expected %import common.NAME or %import common (NAME, ...)", path[-1] if len(path) > 2 else None
        )

    def expect_name(self, message: str) -> Token:
        tok = self.peek()
        if tok.kind not in ("RULE", "TERM"):
            raise self.error("%s, found %s" % (message, tok.describe()), tok)
        return self.advance()

    # -- expressions --------------------------------------------------------------------

    def _expansions(self, context: str) -> Node:
        """The body of a definition, up to the end of its line (`|` lines continue it).

        `context` is "rule", "terminal", "ignore" or "lazy" (a [lazy] rule's body is a
        terminal expression); it only changes error messages here. Groups `( )` and
        `[ ]` push a frame on an explicit stack and pop it at the closing bracket.
        """
        start = self.peek()
        frames = [_Frame("top", start, [], start.offset)]
        negations: List[Token] = []  # prefix '~'s waiting for their atom
        while True:
            tok = self.peek()
            frame = frames[-1]
            kind = tok.kind
            if kind == "~":
                negations.append(self.advance())
                continue
            if kind in ("(", "["):
                self.advance()
                frames.append(_Frame(kind, tok, negations, self.peek().offset))
                negations = []
                continue
            if kind in _ATOM_START or (kind == "DIRECTIVE" and tok.value[0] in ("%json", "%regex", "%lark")):
                node = self._negate(self._value(context), negations)
                negations = []
                frame.items.append(self._postfix(node))
                continue
            if negations:
                raise self.error("expected an expression after '~', found %s" % tok.describe(), tok)
            if kind in (")", "]"):
                if frame.kind == "top":
                    raise self.error("unmatched '%s'" % kind, tok)
                want = ")" if frame.kind == "(" else "]"
                if kind != want:
                    raise self.error(
                        "expected '%s' to close the '%s' at line %d, column %d, found '%s'"
                        % (want, frame.kind, *_line_col(self.text, frame.open.offset), kind), tok,
                    )
                self.advance()
                frames.pop()
                node = frame.finish(tok.offset)
                if frame.kind == "[":
                    node = Repeat(frame.open.offset, node, 0, 1)
                node = self._negate(node, frame.negations)
                frames[-1].items.append(self._postfix(node))
                continue
            if kind == "|":
                self.advance()
                frame.end_alternative(self.peek().offset)
                continue
            if kind == "&":
                self.advance()
                frame.end_conjunct(self.peek().offset)
                continue
            if kind == "->":
                self.advance()
                self.expect_name("expected an alias name after '->'")
                after = self.peek()
                if after.kind not in ("|", ")", "]", "NEWLINE", "EOF"):
                    raise self.error("expected '|' or the end of the line after the alias, found %s"
                                     % after.describe(), after)
                continue
            if kind == "NEWLINE" and self.peek(1).kind == "|":
                self.advance()
                continue
            if kind in ("NEWLINE", "EOF"):
                if frame.kind != "top":
                    raise self.error(
                        "unclosed '%s': expected '%s'" % (frame.kind, ")" if frame.kind == "(" else "]"),
                        frame.open,
                    )
                return frame.finish(tok.offset)
            if kind == "DIRECTIVE" and tok.value[0] == "%if":
                raise self.error("conditions (%if) of parametric rules are not supported", tok)
            if kind == "OP" or kind == "{":
                raise self.error("the operator %s must follow an expression" % tok.describe(), tok)
            if kind == ":":
                raise self.error("unexpected ':' (a definition must start on a new line)", tok)
            raise self.error("unexpected %s in an expression" % tok.describe(), tok)

    def _negate(self, node: Node, negations: Sequence[Token]) -> Node:
        for tok in reversed(negations):
            node = Not(tok.offset, node)
        return node

    def _value(self, context: str) -> Node:
        """One atom that is not a group: literal, range, regex, name, %json, %regex ..."""
        tok = self.advance()
        kind = tok.kind
        in_terminal = context != "rule"
        if kind == "STRING":
            text, flags = tok.value
            if self.peek().kind == "..":
                self.advance()
                hi = self.expect("STRING", "expected a string after '..'")
                if flags or hi.value[1]:
                    raise self.error("flags not allowed in this context (a range \"a\"..\"z\")", tok)
                if len(text) != 1:
                    raise self.error("range start must be a single character", tok)
                if len(hi.value[0]) != 1:
                    raise self.error("range end must be a single character", hi)
                if text > hi.value[0]:
                    raise self.error("invalid range order: %s..%s" % (_quote(text), _quote(hi.value[0])), tok)
                return CharRange(tok.offset, text, hi.value[0])
            return Literal(tok.offset, text, flags == "i")
        if kind == "REGEX":
            pattern, flags = tok.value
            if "l" in flags:
                raise self.error("l-flag is not supported in regexes", tok)
            return RegexLit(tok.offset, pattern, flags, tok.offset + 1)
        if kind in ("RULE", "TERM"):
            nxt = self.peek()
            if nxt.kind == "::":
                raise self.error("parametric rules (%s::...) are not supported" % tok.value, nxt)
            if nxt.kind == "{" and self.peek(1).kind not in (",", "NUMBER"):
                raise self.error("templates (%s{...}) are not supported" % tok.value, nxt)
            return Name(tok.offset, tok.value, self.namespace)
        if kind == "SPECIAL":
            if in_terminal:
                raise self.error("special tokens (like %s) cannot be used in terminals" % tok.value, tok)
            raise self.error("special tokens (like %s) are not supported" % tok.value, tok)
        if kind == "GREF":
            if in_terminal:
                raise self.error("grammar references (like %s) cannot be used in terminals" % tok.value, tok)
            raise self.error("grammar references (like %s) are not supported" % tok.value, tok)
        word, value, json_offset = tok.value
        if word == "%lark":
            raise self.error("nested %lark { ... } grammars are not supported", tok)
        if word == "%json":
            if in_terminal:
                raise self.error("%json literals cannot be used in terminals", tok)
            return Json(tok.offset, value)
        return Substring(tok.offset, _substring_chunks(self.text, tok.offset, value))

    def _postfix(self, node: Node) -> Node:
        """At most one of: `?`, `*`, `+`, `~m`, `~m..n`, `{m}`, `{m,}`, `{,n}`, `{m,n}`."""
        tok = self.peek()
        if tok.kind == "OP":
            self.advance()
            lo, hi = {"?": (0, 1), "*": (0, None), "+": (1, None)}[tok.value]
            node = Repeat(tok.offset, node, lo, hi)
        elif tok.kind == "~" and self.peek(1).kind == "NUMBER":
            self.advance()
            lo = self._integer()
            hi: Optional[int] = lo
            if self.peek().kind == "..":
                self.advance()
                hi = self._integer()
            node = self._range(tok, node, lo, hi)
        elif tok.kind == "{":
            self.advance()
            lo = 0 if self.peek().kind == "," else self._integer()
            hi = lo
            if self.peek().kind == ",":
                self.advance()
                hi = None if self.peek().kind == "}" else self._integer()
            self.expect("}", "expected '}' to close the repetition")
            if hi == 0:
                raise self.error("the upper bound of a repetition cannot be 0 (End number in range cannot be 0)", tok)
            node = self._range(tok, node, lo, hi)
        else:
            return node
        after = self.peek()
        if after.kind in ("OP", "{"):
            raise self.error(
                "a second repetition operator %s: only one may follow an atom; use "
                "parentheses, as in (x*)?" % after.describe(), after
            )
        return node

    def _integer(self) -> int:
        tok = self.expect("NUMBER", "expected a number")
        try:
            return int(tok.value)
        except ValueError:
            raise self.error("expected an integer, found %s" % tok.value, tok) from None

    def _range(self, op: Token, node: Node, lo: int, hi: Optional[int]) -> Node:
        """Check the bounds of a counted repetition (llguidance's messages)."""
        if hi is not None and hi < lo:
            raise self.error("range end must be >= start, got (%d, %d)" % (lo, hi), op)
        if lo < 0:
            raise self.error("range start must be >= 0, got %d" % lo, op)
        bound = self.limits.repeat_bound
        if lo > bound or (hi is not None and hi > bound):
            raise LimitError("repeat_bound", bound, "counted repetition at line %d, column %d"
                             % _line_col(self.text, op.offset))
        return Repeat(op.offset, node, lo, hi)


def _line_col(text: str, offset: int) -> Tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


# ==================================================================== %regex substrings


def _substring_chunks(text: str, offset: int, spec: Any) -> List[str]:
    """The chunk list of `%regex {...}`: exactly one of substring_chunks (a list of
    strings), substring_words (a string cut into words, spaces and other runs) or
    substring_chars (a string cut into characters)."""
    def fail(message: str) -> GrammarError:
        return GrammarError("failed to parse %%regex: %s" % message, text, offset)

    if not isinstance(spec, dict):
        raise fail("expected a JSON object")
    for key in spec:
        if key not in ("substring_chunks", "substring_words", "substring_chars"):
            raise fail("unknown field %r" % key)
    if not spec:
        raise GrammarError("no fields set on %regex", text, offset)
    if len(spec) > 1:
        raise GrammarError("only one field can be set on %%regex; got %s" % sorted(spec), text, offset)
    (key, value), = spec.items()
    if key == "substring_chunks":
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            raise fail("substring_chunks must be a list of strings")
        return list(value)
    if not isinstance(value, str):
        raise fail("%s must be a string" % key)
    if key == "substring_chars":
        return list(value)
    return _chunk_into_words(value)


_WORD_CLASSES: Dict[str, Any] = {}


def _char_class(ch: str) -> int:
    """0 whitespace (White_Space), 1 word (Alphabetic, Numeric or '_'), 2 other — Rust's
    char::is_whitespace / is_alphanumeric, from the regex engine's pinned Unicode tables."""
    if not _WORD_CLASSES:
        _WORD_CLASSES["space"] = _unicode.property_ranges("White_Space")
        _WORD_CLASSES["word"] = _unicode.union(
            _unicode.property_ranges("Alphabetic"), _unicode.property_ranges("N")
        )
    cp = ord(ch)
    if _unicode.contains(_WORD_CLASSES["space"], cp):
        return 0
    if ch == "_" or _unicode.contains(_WORD_CLASSES["word"], cp):
        return 1
    return 2


def _chunk_into_words(s: str) -> List[str]:
    """Cut s where the character class (whitespace / word / other) changes."""
    chunks: List[str] = []
    start = 0
    for i in range(1, len(s)):
        if _char_class(s[i]) != _char_class(s[i - 1]):
            chunks.append(s[start:i])
            start = i
    if s:
        chunks.append(s[start:])
    return chunks


def _substring_expr(es: ExprSet, chunks: Sequence[str]) -> int:
    """The expression for "any run chunks[i:j], i <= j", via the suffix automaton.

    The suffix automaton of the chunk sequence (Blumer et al. 1985) is the smallest DFA
    whose paths from the start spell exactly the runs of consecutive chunks; reading each
    state as "ε | chunk₁·next₁ | chunk₂·next₂ ...", from the longest states down (a
    transition always goes to a state with a longer longest path), gives the expression
    without recursion.
    """
    length = [0]
    link = [-1]
    trans: List[Dict[str, int]] = [{}]
    last = 0
    for c in chunks:
        cur = len(length)
        length.append(length[last] + 1)
        link.append(-1)
        trans.append({})
        p = last
        while p != -1 and c not in trans[p]:
            trans[p][c] = cur
            p = link[p]
        if p == -1:
            link[cur] = 0
        else:
            q = trans[p][c]
            if length[p] + 1 == length[q]:
                link[cur] = q
            else:
                clone = len(length)
                length.append(length[p] + 1)
                link.append(link[q])
                trans.append(dict(trans[q]))
                while p != -1 and trans[p].get(c) == q:
                    trans[p][c] = clone
                    p = link[p]
                link[q] = clone
                link[cur] = clone
        last = cur
    expr = [es.EPSILON] * len(length)
    for state in sorted(range(len(length)), key=lambda s: -length[s]):
        options = [es.concat(es.literal(c.encode("utf-8")), expr[t]) for c, t in trans[state].items()]
        expr[state] = es.union(es.EPSILON, *options)
    return expr[0]


# ===================================================================== common terminals
#
# `%import common.NAME` offers the terminals of llguidance's common library (itself after
# Lark's common.lark), with the same languages. We write them in the dialect itself;
# names not in COMMON_TERMINALS are not importable (llguidance has no _STRING_INNER etc.).

COMMON_TERMINALS = (
    "DIGIT", "HEXDIGIT", "INT", "SIGNED_INT", "DECIMAL", "_EXP", "FLOAT", "SIGNED_FLOAT",
    "NUMBER", "SIGNED_NUMBER", "ESCAPED_STRING", "LCASE_LETTER", "UCASE_LETTER", "LETTER",
    "WORD", "CNAME", "WS_INLINE", "WS", "CR", "LF", "NEWLINE", "SH_COMMENT", "CPP_COMMENT",
    "C_COMMENT", "SQL_COMMENT",
)

_COMMON_GRAMMAR = r'''
DIGIT: "0".."9"
HEXDIGIT: "a".."f" | "A".."F" | DIGIT
INT: DIGIT+
SIGNED_INT: ["+" | "-"] INT
DECIMAL: INT "." INT? | "." INT
_EXP: ("e" | "E") SIGNED_INT
FLOAT: INT _EXP | DECIMAL _EXP?
SIGNED_FLOAT: ["+" | "-"] FLOAT
NUMBER: FLOAT | INT
SIGNED_NUMBER: ["+" | "-"] NUMBER

// a double-quoted string: any character but a quote or backslash, or a backslash and
// any character but a newline
ESCAPED_STRING: "\"" (/[^"\\]/ | "\\" /./)* "\""

LCASE_LETTER: "a".."z"
UCASE_LETTER: "A".."Z"
LETTER: UCASE_LETTER | LCASE_LETTER
WORD: LETTER+
CNAME: ("_" | LETTER) ("_" | LETTER | DIGIT)*

WS_INLINE: (" " | "\t")+
WS: (" " | "\t" | "\f" | "\r" | "\n")+
CR: "\r"
LF: "\n"
NEWLINE: (CR? LF)+

SH_COMMENT: "#" /[^\n]*/
CPP_COMMENT: "//" /[^\n]*/
// "/*", then any text without "*/" in it, then "*/"  (& and ~ at work)
C_COMMENT: "/*" (/(?s:.)*/ & ~/(?s:.)*\*\/(?s:.)*/) "*/"
SQL_COMMENT: "--" /[^\n]*/
'''

_COMMON_DEFINITIONS: Dict[str, Definition] = {}


def _common_definitions() -> Dict[str, Definition]:
    """The parsed common library (parsed once; the AST is never mutated)."""
    if not _COMMON_DEFINITIONS:
        parser = _Parser(_COMMON_GRAMMAR, _scan(_COMMON_GRAMMAR), DEFAULT_LIMITS, namespace="common")
        for item in parser.parse_grammar():
            _COMMON_DEFINITIONS[item.name] = item
    return _COMMON_DEFINITIONS


# ============================================================================ compiler


def _quote(s: str) -> str:
    """A string literal as the grammar would write it."""
    return json.dumps(s, ensure_ascii=False)


def _case_insensitive_literal(es: ExprSet, s: str) -> int:
    """"s"i: the literal under Unicode simple case folding, as (?i) does in a regex."""
    return compile_pattern(es, "(?i)" + "".join("\\x{%x}" % ord(ch) for ch in s))


def _compile_json(ir: GrammarIR, schema: Any, text: str, offset: int) -> int:
    """The symbol for an inline JSON schema, `%json {...}` (refimpl/grammar/jsonschema.py).

    Options come from the schema's "x-guidance" (llguidance's defaults otherwise). The
    JSON's lexemes get a lexeme class of their own, so its whitespace (%ignore) is
    allowed only inside the JSON, after its first token, as in llguidance; %json parts
    with the same whitespace share one class (llguidance merges classes with equal
    skips).
    """
    from .jsonschema import json_schema_to_ir, json_whitespace

    classes = _JSON_CLASSES.setdefault(id(ir), {})

    def lexeme_class(ws: Optional[int]) -> int:
        """The class of the %json parts whose whitespace is `ws` (None: no %ignore)."""
        got = classes.get(ws)
        if got is None:
            used = {lx.lexeme_class for lx in ir.lexemes} | set(ir.ignores) | set(classes.values()) | {0}
            got = classes[ws] = max(used) + 1
        return got

    try:
        ws = json_whitespace(ir.es, schema)
        # the JSON's tokens, and its first token in a class without %ignore (shared with
        # the %json parts that have no whitespace), so that, as in llguidance, JSON
        # whitespace may come after a token of the JSON but not before its first one
        return json_schema_to_ir(schema, ir=ir, lexeme_class=lexeme_class(ws),
                                 entry_class=lexeme_class(None)).start
    except SchemaError as e:
        raise GrammarError("failed to compile JSON schema: %s" % e, text, offset) from None


#: per GrammarIR under construction (by id, dropped when parse_lark returns): the
#: lexeme class of the %json parts for each whitespace expression
_JSON_CLASSES: Dict[int, Dict[Optional[int], int]] = {}


class _Compiler:
    """Definitions -> GrammarIR.

    Terminal expressions fold into one regex expression each (`_terminal`); rule bodies
    fold into symbol sequences (`_sequence`), nested groups and repetitions becoming fresh
    nonterminals through simplify.py's EBNF helpers. Both folds use explicit stacks.
    """

    def __init__(self, text: str, items: List[Any], es: ExprSet, limits: Limits) -> None:
        self.text = text
        self.items = items
        self.ir = GrammarIR(es, limits)
        self.es = es
        self.rules: Dict[str, Definition] = {}
        self.terminals: Dict[str, Definition] = {}
        self.terminal_exprs: Dict[Tuple[Optional[str], str], int] = {}
        self.nonterminals: Dict[str, int] = {}
        self.todo: List[str] = []  # rules whose nonterminal exists but whose body is not compiled

    def error(self, message: str, offset: Optional[int]) -> GrammarError:
        return GrammarError(message, self.text, offset)

    # -- top level ----------------------------------------------------------------------

    def compile(self) -> GrammarIR:
        """Collect definitions, then compile `start` and all it reaches, and %ignore."""
        ignores: List[Node] = []
        options: Dict[str, Any] = {}
        common = _common_definitions()
        for item in self.items:
            if isinstance(item, Definition):
                table = self.rules if item.kind == "rule" else self.terminals
                if item.name in table:
                    raise self.error("duplicate %s: '%s'" % (item.kind, item.name), item.offset)
                table[item.name] = item
            elif item[0] == "ignore":
                ignores.append(item[2])
            elif item[0] == "import":
                for name, local, offset in item[2]:
                    if name not in COMMON_TERMINALS:
                        raise self.error(
                            "Unknown common terminal 'common.%s'; available: %s"
                            % (name, ", ".join(COMMON_TERMINALS)), offset,
                        )
                    if local in self.terminals:
                        raise self.error("duplicate terminal: '%s' (imported)" % local, offset)
                    self.terminals[local] = Definition(
                        "terminal", local, offset, Name(offset, name, "common")
                    )
                    assert name in common
            else:
                self._options(item[1], item[2], options)
        if "start" not in self.rules:
            raise GrammarError("rule 'start' is not defined (no start rule found)")
        ir = self.ir
        ir.start = self._nonterminal("start")
        while self.todo:
            self._rule(self.rules[self.todo.pop()])
        if ignores:
            ir.ignore = self.es.union(*[self._terminal(node, "%ignore") for node in ignores])
        return ir

    def _options(self, offset: int, value: Any, merged: Dict[str, Any]) -> None:
        """%llguidance {...}: options merge across declarations; each must be a boolean.

        no_forcing is accepted and ignored (maskref's masks never force);
        allow_initial_skip and allow_invalid_utf8 set the IR's flags; ignore_once: true is
        not supported; anything else is an error naming the option.
        """
        if not isinstance(value, dict):
            raise self.error("failed to parse %llguidance declaration: expected a JSON object", offset)
        for key, v in value.items():
            if key not in ("no_forcing", "allow_initial_skip", "allow_invalid_utf8", "ignore_once"):
                raise self.error(
                    "unknown %%llguidance option '%s' (supported: no_forcing, allow_initial_skip, "
                    "allow_invalid_utf8)" % key, offset,
                )
            if not isinstance(v, bool):
                raise self.error(
                    "failed to parse %%llguidance declaration: '%s' must be true or false" % key, offset
                )
            if key == "ignore_once" and v:
                raise self.error("the %llguidance option ignore_once is not supported", offset)
            merged[key] = v
        self.ir.allow_initial_skip = bool(merged.get("allow_initial_skip", False))
        self.ir.allow_invalid_utf8 = bool(merged.get("allow_invalid_utf8", False))

    def _nonterminal(self, name: str) -> int:
        """The nonterminal of rule `name`, queueing its body the first time."""
        nt = self.nonterminals.get(name)
        if nt is None:
            nt = self.nonterminals[name] = self.ir.add_nonterminal(name)
            self.todo.append(name)
        return nt

    def _rule(self, definition: Definition) -> None:
        """Add the BNF rules of one rule definition: one per top-level alternative."""
        nt = self.nonterminals[definition.name]
        body = definition.body
        if definition.lazy:
            expr = self._terminal(body, "the [lazy] rule '%s'" % definition.name)
            name = "%s[lazy]" % definition.name
            self.ir.add_rule(nt, (self.ir.add_lexeme(name, expr, lazy=True),))
            return
        for option in body.options if isinstance(body, Alt) else [body]:
            self.ir.add_rule(nt, self._sequence(option))

    # -- terminal expressions -> one regex expression ------------------------------------

    def _terminal(self, root: Node, where: str) -> int:
        """Fold a terminal expression into a regex expression (post-order, explicit stack).

        A name expands to its terminal's body the first time (then the result is
        memoised); a name met again while its own body is being folded is a cycle:
        "terminal X is recursive".
        """
        es = self.es
        values: List[int] = []
        in_progress: Dict[Tuple[Optional[str], str], int] = {}
        stack: List[Tuple[Node, int]] = [(root, -1)]
        while stack:
            node, n = stack.pop()
            if n < 0:  # first visit: push the children (or compute a leaf)
                kids = self._terminal_children(node, where, in_progress)
                if kids is None:
                    values.append(self._terminal_leaf(node, where))
                else:
                    stack.append((node, len(kids)))
                    stack.extend((kid, -1) for kid in reversed(kids))
                continue
            args = values[len(values) - n:]
            del values[len(values) - n:]
            if isinstance(node, Alt):
                value = es.union(*args)
            elif isinstance(node, And):
                value = es.intersection(*args)
            elif isinstance(node, Seq):
                value = es.concat(*args)
            elif isinstance(node, Repeat):
                value = es.repeat(args[0], node.lo, node.hi)
            elif isinstance(node, Not):
                value = es.complement(args[0])
            else:  # a Name whose definition was just folded
                assert isinstance(node, Name)
                key = (node.namespace, node.name)
                del in_progress[key]
                self.terminal_exprs[key] = value = args[0]
            values.append(value)
        return values[0]

    def _terminal_children(self, node: Node, where: str,
                           in_progress: Dict[Tuple[Optional[str], str], int]) -> Optional[List[Node]]:
        """The sub-expressions to fold first, or None for a leaf."""
        if isinstance(node, Alt):
            return node.options
        if isinstance(node, And):
            return node.parts
        if isinstance(node, Seq):
            return node.items
        if isinstance(node, (Repeat, Not)):
            return [node.node]
        if isinstance(node, Name):
            key = (node.namespace, node.name)
            if key in self.terminal_exprs:
                return None
            if key in in_progress:
                raise self.error("terminal %s is recursive (terminals are regular expressions; "
                                 "use a rule for recursion)" % node.name, node.offset)
            definition = self._terminal_definition(node, where)
            in_progress[key] = node.offset
            return [definition.body]
        return None

    def _terminal_definition(self, node: Name, where: str) -> Definition:
        """The definition a name stands for inside a terminal expression."""
        if node.namespace == "common":
            return _common_definitions()[node.name]
        definition = self.terminals.get(node.name)
        if definition is not None:
            return definition
        if node.name in self.rules:
            raise self.error(
                "rule '%s' cannot be used in %s: terminal expressions may only use terminals "
                "(rename the rule to uppercase to make it a terminal)" % (node.name, where),
                node.offset,
            )
        raise self.error("undefined symbol '%s' (unknown name)" % node.name, node.offset)

    def _terminal_leaf(self, node: Node, where: str) -> int:
        """The expression of a leaf: a literal, range, regex, substring or known name."""
        es = self.es
        if isinstance(node, Name):
            return self.terminal_exprs[(node.namespace, node.name)]
        if isinstance(node, Literal):
            if node.ci:
                return _case_insensitive_literal(es, node.text)
            return es.literal(node.text.encode("utf-8"))
        if isinstance(node, CharRange):
            return compile_pattern(es, "[\\x{%x}-\\x{%x}]" % (ord(node.lo), ord(node.hi)))
        if isinstance(node, RegexLit):
            prefix = "(?%s)" % node.flags if node.flags else ""
            try:
                return compile_pattern(es, prefix + node.pattern)
            except RegexError as e:
                offset = node.pattern_offset + max(0, e.offset - len(prefix))
                raise self.error("invalid regex /%s/: %s" % (node.pattern, e.message), offset) from None
        if isinstance(node, Substring):
            return _substring_expr(es, node.chunks)
        if isinstance(node, Json):
            raise self.error("%%json cannot be used in %s" % where, node.offset)
        raise AssertionError("unexpected node %r" % node)

    # -- rule expressions -> symbol sequences ---------------------------------------------

    def _sequence(self, root: Node) -> Tuple[int, ...]:
        """Fold a rule expression into a sequence of symbols (post-order, explicit stack).

        Terminal-like leaves (literals, regexes, ranges, terminal names, `~x`) become
        lexemes; rule names become nonterminals; a group with several alternatives becomes
        a fresh nonterminal; repetitions use the EBNF helpers; "" is ε.
        """
        values: List[Tuple[int, ...]] = []
        stack: List[Tuple[Node, int]] = [(root, -1)]
        while stack:
            node, n = stack.pop()
            if n < 0:
                if isinstance(node, Alt):
                    kids: Optional[List[Node]] = node.options
                elif isinstance(node, Seq):
                    kids = node.items
                elif isinstance(node, Repeat):
                    kids = [node.node]
                elif isinstance(node, And):
                    raise self.error(
                        "& is only supported for terminals, not rules; try renaming the rule "
                        "to UPPERCASE", node.offset,
                    )
                else:
                    kids = None
                if kids is None:
                    values.append(self._rule_leaf(node))
                else:
                    stack.append((node, len(kids)))
                    stack.extend((kid, -1) for kid in reversed(kids))
                continue
            args = values[len(values) - n:]
            del values[len(values) - n:]
            if isinstance(node, Seq):
                values.append(tuple(sym for seq in args for sym in seq))
            elif isinstance(node, Alt):
                values.append(self._group(args))
            else:
                assert isinstance(node, Repeat)
                values.append(self._repeat(args[0], node.lo, node.hi))
        return values[0]

    def _rule_leaf(self, node: Node) -> Tuple[int, ...]:
        """The symbols of a leaf in a rule."""
        ir = self.ir
        if isinstance(node, Name):
            if node.namespace is None and node.name in self.rules:
                return (self._nonterminal(node.name),)
            if node.namespace is None and node.name not in self.terminals:
                raise self.error("undefined symbol '%s' (unknown name)" % node.name, node.offset)
            return (ir.add_lexeme(node.name, self._terminal(node, "a terminal")),)
        if isinstance(node, Literal) and node.text == "":
            return ()
        if isinstance(node, Json):
            return (_compile_json(ir, node.schema, self.text, node.offset),)
        return (ir.add_lexeme(_display(node), self._terminal(node, "a terminal")),)

    def _group(self, options: List[Tuple[int, ...]]) -> Tuple[int, ...]:
        """`(a | b c)` inside a rule: one fresh nonterminal per distinct set of options."""
        distinct = list(dict.fromkeys(options))
        if len(distinct) == 1:
            return distinct[0]
        ir = self.ir
        label = "(%s)" % " | ".join(" ".join(ir.symbol_name(s) for s in seq) or '""' for seq in distinct)
        nt, created = ir.derived_nonterminal(("|",) + tuple(distinct), _shorten(label))
        if created:
            for seq in distinct:
                ir.add_rule(nt, seq)
        return (nt,)

    def _single(self, seq: Tuple[int, ...]) -> int:
        """One symbol for a sequence: itself if of length 1, else a fresh `(a b)`."""
        if len(seq) == 1:
            return seq[0]
        ir = self.ir
        label = "(%s)" % " ".join(ir.symbol_name(s) for s in seq)
        nt, created = ir.derived_nonterminal(("()",) + seq, _shorten(label))
        if created:
            ir.add_rule(nt, seq)
        return nt

    def _repeat(self, seq: Tuple[int, ...], lo: int, hi: Optional[int]) -> Tuple[int, ...]:
        """seq{lo,hi} as symbols (ε repeated, or repeated zero times, is ε)."""
        if not seq or hi == 0:
            return ()
        return (_simplify.repeat(self.ir, self._single(seq), lo, hi),)


def _shorten(label: str, limit: int = 60) -> str:
    """Names of fresh nonterminals stay readable: long ones are cut with '…'."""
    return label if len(label) <= limit else label[:limit - 2] + "…" + label[-1]


def _display(node: Node) -> str:
    """The display name of a lexeme written inline in a rule."""
    if isinstance(node, Literal):
        return _quote(node.text) + ("i" if node.ci else "")
    if isinstance(node, CharRange):
        return "%s..%s" % (_quote(node.lo), _quote(node.hi))
    if isinstance(node, RegexLit):
        return "/%s/%s" % (node.pattern, node.flags)
    if isinstance(node, Substring):
        return "%%regex{%s}" % _shorten(json.dumps(node.chunks, ensure_ascii=False), 30)
    if isinstance(node, Not):
        inner = node.node
        if isinstance(inner, (Literal, CharRange, RegexLit, Name)):
            return "~" + (inner.name if isinstance(inner, Name) else _display(inner))
        return "~(...)"
    return "(...)"


# ========================================================================== entry point


def parse_lark(text: str, *, es: Optional[ExprSet] = None,
               limits: Limits = DEFAULT_LIMITS) -> GrammarIR:
    """Compile a grammar in llguidance's Lark dialect into a GrammarIR (not simplified:
    run `simplify.simplify` on the result before compiling it for the parser).

    Raises GrammarError (with line, column and a caret line) for malformed or unsupported
    grammars, and LimitError when a limit (repeat_bound, grammar_size, expressions) is hit.

    >>> ir = parse_lark('start: "a"{2,3} B\\nB: /[0-9]+/ & ~"13"')
    >>> print(ir.to_text(), end="")
    start: "a"{2,3} B
    "a"{2,3}: "a"{2} "a"?
    "a"{2}: "a" "a"
    "a"?: "a"
     | ""
    """
    if es is None:
        es = ExprSet(limits)
    tokens = _scan(text)
    items = _Parser(text, tokens, limits).parse_grammar()
    compiler = _Compiler(text, items, es, limits)
    try:
        return compiler.compile()
    finally:
        _JSON_CLASSES.pop(id(compiler.ir), None)
