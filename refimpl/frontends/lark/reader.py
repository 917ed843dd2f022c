"""Tokens -> the items of a grammar (ast.py): definitions, %ignore, %import, %llguidance.

Items are separated by newlines. Expressions are parsed by `Reader._expansions` with an
explicit stack of open groups (`_Frame`), so nesting depth costs no Python stack.

>>> from refimpl.limits import DEFAULT_LIMITS
>>> from refimpl.frontends.lark.scanner import scan
>>> text = 'start: "a" B\\n%ignore " "\\nB: /[0-9]+/'
>>> [type(item).__name__ for item in Reader(text, scan(text), DEFAULT_LIMITS).read_grammar()]
['Definition', 'Ignore', 'Definition']
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from ...errors import GrammarError, LimitError
from ...grammar.ir import TokenSpec, lark_string
from ...limits import Limits
from ..digits import grammar_int, is_digits
from .ast import (
    Alt,
    And,
    CharRange,
    Cond,
    Definition,
    GrammarRef,
    Ignore,
    Import,
    Item,
    Json,
    Literal,
    Name,
    NestedLark,
    Node,
    Not,
    Options,
    RegexLit,
    Repeat,
    RuleOptions,
    Seq,
    SpecialToken,
    Substring,
)
from .parametric import ParamSyntax
from .scanner import Token, line_col
from .substring import substring_chunks

#: nested `%lark { }` grammars may be at most this deep (llguidance's MAX_NESTING: the
#: outermost grammar is level 0, and level 30 is refused)
MAX_NESTING = 30

_ATOM_START = ("STRING", "REGEX", "RULE", "TERM", "SPECIAL", "GREF", "(", "[", "~")
#: rule options written `key=value` (besides `lazy` and `capture`, which may stand alone)
_VALUE_OPTIONS = ("stop", "suffix", "stop_capture", "max_tokens", "temperature")
#: options llguidance refuses on parametric rules, with its messages
_NOT_PARAMETRIC = {
    "stop": "stop-like is not supported for parametric rules",
    "suffix": "stop-like is not supported for parametric rules",
    "temperature": "temperature= is not supported for parametric rules",
    "max_tokens": "max_tokens= is not supported for parametric rules",
}


class _Frame:
    """An open group while parsing an expression: the alternatives, conjuncts and items
    gathered so far, the token that opened it and the `~`s waiting to apply to it."""

    __slots__ = ("kind", "open", "negations", "alternatives", "conjuncts", "items",
                 "offset", "alt_offset", "conj_offset", "cond")

    def __init__(self, kind: str, open_token: Token, negations: List[Token], offset: int) -> None:
        self.kind = kind
        self.open = open_token
        self.negations = negations
        self.alternatives: List[Node] = []
        self.conjuncts: List[Node] = []
        self.items: List[Node] = []
        self.offset = self.alt_offset = self.conj_offset = offset
        self.cond: Optional[Tuple[Tuple[Tuple[object, ...], ...], int]] = None  # `%if` of this alternative

    def end_conjunct(self, next_offset: int) -> None:
        items = self.items
        self.conjuncts.append(items[0] if len(items) == 1 else Seq(self.conj_offset, items))
        self.items = []
        self.conj_offset = next_offset

    def end_alternative(self, next_offset: int) -> None:
        self.end_conjunct(next_offset)
        parts = self.conjuncts
        node = parts[0] if len(parts) == 1 else And(self.alt_offset, parts)
        if self.cond is not None:
            node = Cond(self.alt_offset, node, self.cond[0], self.cond[1])
            self.cond = None
        self.alternatives.append(node)
        self.conjuncts = []
        self.alt_offset = next_offset

    def finish(self, offset: int) -> Node:
        self.end_alternative(offset)
        options = self.alternatives
        return options[0] if len(options) == 1 else Alt(self.offset, options)


class Reader:
    """Tokens -> a list of items: Definition, Ignore, Import, Options (ast.py).

    `namespace` is given to every name the expressions mention (None, or "common" when
    parsing the common library).
    """

    def __init__(self, text: str, tokens: List[Token], limits: Limits,
                 namespace: Optional[str] = None, nesting: int = 0) -> None:
        self.nesting = nesting  # how many %lark { } enclose these tokens
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

    def expect_name(self, message: str) -> Token:
        tok = self.peek()
        if tok.kind not in ("RULE", "TERM"):
            raise self.error("%s, found %s" % (message, tok.describe()), tok)
        return self.advance()

    # -- items --------------------------------------------------------------------------

    def read_grammar(self) -> List[Item]:
        """All items of the grammar, in order."""
        items: List[Item] = []
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

    def _item(self) -> Item:
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
            raise self.error("a %s cannot be parametric (%s::_); only rules can" % (what, name.value), tok)
        if tok.kind == "{":
            raise self.error("templates (%s{...}) are not supported" % name.value, tok)
        if tok.kind == ".":
            raise self.error(
                "%s priorities (%s.N) are not supported (llguidance: priority not supported yet)"
                % (what, name.value), tok,
            )

    def _rule(self) -> Definition:
        """`name [::_] [ [options] ] : expansions`."""
        name = self.advance()
        parametric = False
        if self.peek().kind == "::":
            self.advance()
            self.expect("_", "Expected token '_' after '%s::' (a parametric rule is written %s::_)"
                        % (name.value, name.value))
            parametric = True
        self._name_suffixes(name, "rule")
        options = self._rule_options(name.value, parametric) if self.peek().kind == "[" else None
        self.expect(":", "expected ':' after rule name '%s'" % name.value)
        body = self._expansions("lexeme" if options is not None and options.makes_lexeme() else "rule")
        return Definition("rule", name.value, name.offset, body, options, parametric)

    def _rule_options(self, rule: str, parametric: bool = False) -> RuleOptions:
        """`[lazy, stop=..., ...]`, with llguidance's checks and words (and its words for
        what a parametric rule may not have)."""
        self.advance()  # '['
        options = RuleOptions()
        while self.peek().kind != "]":
            key = self.expect("RULE", "expected an option name such as lazy")
            options.at[key.value] = key.offset
            if parametric and key.value in _NOT_PARAMETRIC:
                raise self.error(_NOT_PARAMETRIC[key.value], key)
            if key.value == "capture":
                if self.peek().kind == "=":
                    self.advance()
                    options.capture = self._option_string()
                else:
                    options.capture = options.capture or rule
            elif key.value == "lazy":
                self._lazy_option(options, key)
            elif key.value not in _VALUE_OPTIONS:
                raise self.error("Unknown attribute: %s (options are lazy, capture and %s)"
                                 % (key.value, ", ".join(_VALUE_OPTIONS)), key)
            else:
                self._value_option(options, key)
            if self.peek().kind != ",":
                break
            self.advance()
        self.expect("]", "expected ']' to close the rule options")
        return options

    def _lazy_option(self, options: RuleOptions, key: Token) -> None:
        """`lazy` is llguidance's `suffix=//`: nothing more after a stop, a conflict after
        `stop=""` (which is not lazy)."""
        if options.stop is None:
            options.lazy = True
        elif isinstance(options.stop, Literal) and options.stop.text == "":
            raise self.error("stop= and suffix= cannot be used together", key)

    def _value_option(self, options: RuleOptions, key: Token) -> None:
        """`key=value` for stop, suffix, stop_capture, max_tokens and temperature."""
        self.expect("=", "expected '=' after the option %s" % key.value)
        if key.value in ("stop", "suffix"):
            if options.stop is not None or options.lazy:
                raise self.error("Cannot have multiple stop/suffix conditions", key)
            if self.peek().kind not in _ATOM_START and self.peek().kind != "DIRECTIVE":
                raise self.error("expected a string or a regex after %s=" % key.value, self.peek())
            options.stop = self._value("lexeme")
            options.suffix = key.value == "suffix"
        elif key.value == "stop_capture":
            if options.stop_capture is not None:
                raise self.error("Cannot have multiple stop_capture names", key)
            options.stop_capture = self._option_string()
        else:
            tok = self.expect("NUMBER", "expected a number after %s=" % key.value)
            if key.value == "temperature":
                options.temperature = float(tok.value)
            elif not is_digits(tok.value):
                raise self.error("max_tokens must be a whole number, not %s" % tok.value, tok)
            else:
                options.max_tokens = self._count(tok.value, tok)

    def _option_string(self) -> str:
        tok = self.expect("STRING", "expected a string")
        text, flags = tok.value
        if flags:
            raise self.error("flags are not allowed in an option's string", tok)
        return text

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

    def _statement(self) -> Item:
        """%ignore, %import, %llguidance; the other directives are rejected."""
        tok = self.advance()
        word = tok.value[0]
        if word == "%ignore":
            return Ignore(tok.offset, self._expansions("ignore"))
        if word == "%import":
            return Import(tok.offset, self._import())
        if word == "%llguidance":
            return Options(tok.value[2], tok.value[1])
        if word in ("%override", "%declare"):
            raise self.error("%s is not supported" % word, tok)
        raise self.error(
            "expected a rule, a terminal or a statement, found '%s' (it may only appear in "
            "an expression)" % word, tok
        )

    def _import(self) -> List[Tuple[str, str, int]]:
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
            return self._import_list()
        raise self.error(
            "expected %import common.NAME or %import common (NAME, ...)", path[-1] if len(path) > 2 else None
        )

    def _import_list(self) -> List[Tuple[str, str, int]]:
        """`(A, B, ...)` after `%import common`."""
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

    # -- expressions --------------------------------------------------------------------

    def _expansions(self, context: str) -> Node:
        """The body of a definition, up to the end of its line (`|` lines continue it).

        `context` is "rule", "terminal", "ignore" or "lexeme" (the body of a rule with
        `lazy` or `stop=`, a terminal expression); it only changes error messages here. Groups `( )` and
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
            elif kind in ("(", "["):
                self.advance()
                frames.append(_Frame(kind, tok, negations, self.peek().offset))
                negations = []
            elif kind in _ATOM_START or (kind == "DIRECTIVE" and tok.value[0] in ("%json", "%regex", "%lark")):
                node = self._negate(self._value(context), negations)
                negations = []
                frame.items.append(self._postfix(node))
            elif negations:
                raise self.error("expected an expression after '~', found %s" % tok.describe(), tok)
            elif kind == "DIRECTIVE" and tok.value[0] == "%if":
                self._condition(frame, context)
            elif kind in (")", "]"):
                self._close_group(frames, tok)
            elif kind in ("|", "&"):
                self.advance()
                if kind == "|":
                    frame.end_alternative(self.peek().offset)
                else:
                    frame.end_conjunct(self.peek().offset)
            elif kind == "->":
                self._alias()
            elif kind == "NEWLINE" and self.peek(1).kind == "|":
                self.advance()
            elif kind in ("NEWLINE", "EOF"):
                if frame.kind != "top":
                    raise self.error(
                        "unclosed '%s': expected '%s'" % (frame.kind, ")" if frame.kind == "(" else "]"),
                        frame.open,
                    )
                return frame.finish(tok.offset)
            else:
                raise self._unexpected(tok)

    def _close_group(self, frames: List[_Frame], tok: Token) -> None:
        """`)` or `]` at `tok`: pop the innermost frame into an item of the one below."""
        frame = frames[-1]
        kind = tok.kind
        if frame.kind == "top":
            raise self.error("unmatched '%s'" % kind, tok)
        want = ")" if frame.kind == "(" else "]"
        if kind != want:
            raise self.error(
                "expected '%s' to close the '%s' at line %d, column %d, found '%s'"
                % (want, frame.kind, *line_col(self.text, frame.open.offset), kind), tok,
            )
        self.advance()
        frames.pop()
        node = frame.finish(tok.offset)
        if frame.kind == "[":
            node = Repeat(frame.open.offset, node, 0, 1)
        node = self._negate(node, frame.negations)
        frames[-1].items.append(self._postfix(node))

    def _condition(self, frame: _Frame, context: str) -> None:
        """`%if cond` at the end of an alternative of a rule (parametric.py)."""
        tok = self.advance()
        if context != "rule":
            raise self.error("'%if' is not supported in terminals", tok)
        frame.cond = (ParamSyntax(self).cond(), tok.offset)
        after = self.peek()
        if after.kind not in ("|", ")", "]", "NEWLINE", "EOF"):
            raise self.error("expected '|' or the end of the line after the %%if condition, found %s"
                             % after.describe(), after)

    def _alias(self) -> None:
        """`-> alias` (Lark's tree shaping): skipped, but it must end an alternative."""
        self.advance()
        self.expect_name("expected an alias name after '->'")
        after = self.peek()
        if after.kind not in ("|", ")", "]", "NEWLINE", "EOF") and not (
                after.kind == "DIRECTIVE" and after.value[0] == "%if"):
            raise self.error("expected '|' or the end of the line after the alias, found %s"
                             % after.describe(), after)

    def _unexpected(self, tok: Token) -> GrammarError:
        """The error for a token that cannot appear where an expression goes on."""
        kind = tok.kind
        if kind == "OP" or kind == "{":
            return self.error("the operator %s must follow an expression" % tok.describe(), tok)
        if kind == ":":
            return self.error("unexpected ':' (a definition must start on a new line)", tok)
        return self.error("unexpected %s in an expression" % tok.describe(), tok)

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
            return self._string(tok)
        if kind == "REGEX":
            pattern, flags = tok.value
            if "l" in flags:
                raise self.error("l-flag is not supported in regexes", tok)
            return RegexLit(tok.offset, pattern, flags, tok.offset + 1)
        if kind in ("RULE", "TERM"):
            nxt = self.peek()
            if nxt.kind == "::":
                if in_terminal:
                    raise self.error("name::param cannot be used in terminals (%s::...)" % tok.value, nxt)
                self.advance()
                return Name(tok.offset, tok.value, self.namespace, ParamSyntax(self).expr())
            if nxt.kind == "{" and self.peek(1).kind not in (",", "NUMBER"):
                raise self.error("templates (%s{...}) are not supported" % tok.value, nxt)
            return Name(tok.offset, tok.value, self.namespace)
        if kind in ("SPECIAL", "GREF"):
            what = "special tokens" if kind == "SPECIAL" else "grammar references"
            if in_terminal:
                raise self.error("%s (like %s) cannot be used in terminals" % (what, tok.value), tok)
            if kind == "GREF":
                return GrammarRef(tok.offset, tok.value[1:])
            return SpecialToken(tok.offset, self._token_spec(tok))
        word, value, json_offset = tok.value
        if word == "%lark":
            if in_terminal:
                raise self.error("nested %lark { ... } cannot be used in terminals", tok)
            return self._nested_lark(tok)
        if word == "%json":
            if in_terminal:
                raise self.error("%json literals cannot be used in terminals", tok)
            return Json(tok.offset, value)
        return Substring(tok.offset, substring_chunks(self.text, tok.offset, value))

    def _token_spec(self, tok: Token) -> TokenSpec:
        """`<|name|>` or `<name>` (a special token by its text), or llguidance's id forms:
        `<[5]>`, `<[1-3,7]>` (inclusive ranges), `<[^...]>` (every other id), `<[*]>`."""
        text = tok.value
        if not (text.startswith("<[") and text.endswith("]>")):
            return TokenSpec(text, name=text, offset=tok.offset, source=self.text)
        body = text[2:-2]
        negated = body.startswith("^")
        body = body[1:] if negated else body
        if body == "*":
            if negated:
                raise self.error("negated wildcard token <[^*]> is not supported", tok)
            return TokenSpec(text, any=True, offset=tok.offset, source=self.text)
        if "*" in body:
            raise self.error("wildcard token range '*' must not contain additional tokens", tok)
        ranges = []
        for part in body.split(","):
            ends = [e.strip() for e in part.split("-")]
            if len(ends) == 1 and not ends[0]:
                continue
            if len(ends) > 2 or not all(is_digits(e) for e in ends):
                raise self.error("invalid token range: %s (expected ids such as <[5]> or <[5-9,12]>)" % part, tok)
            lo, hi = self._count(ends[0], tok), self._count(ends[-1], tok)
            if lo > hi:
                raise self.error("invalid token range: %s" % part, tok)
            ranges.append((lo, hi))
        if not ranges:
            raise self.error("empty token range", tok)
        return TokenSpec(text, ranges=tuple(ranges), negated=negated, offset=tok.offset, source=self.text)

    def _nested_lark(self, tok: Token) -> NestedLark:
        """`%lark { items }` after its `%lark` token: the tokens up to the matching `}`
        are parsed as a grammar of their own (offsets stay those of the whole text). The
        nesting is bounded by MAX_NESTING, so the recursion here is too."""
        self.expect("{", "Expected '{' after %lark")
        depth, end = 1, self.pos
        while self.tokens[end].kind != "EOF":
            kind = self.tokens[end].kind
            depth += 1 if kind == "{" else -1 if kind == "}" else 0
            if depth == 0:
                break
            end += 1
        else:
            raise self.error("Unmatched %lark { ... }", tok)
        if self.nesting + 1 >= MAX_NESTING:
            raise self.error("lark grammar too deeply nested (at most %d levels of %%lark { })"
                             % (MAX_NESTING - 1), tok)
        close = self.tokens[end]
        inner = self.tokens[self.pos:end] + [Token("EOF", None, close.offset, close.offset)]
        items = Reader(self.text, inner, self.limits, self.namespace, self.nesting + 1).read_grammar()
        self.pos = end + 1
        return NestedLark(tok.offset, items)

    def _string(self, tok: Token) -> Node:
        """A string literal, or a range `"a".."z"` when '..' follows it."""
        text, flags = tok.value
        if self.peek().kind != "..":
            return Literal(tok.offset, text, flags == "i")
        self.advance()
        hi = self.expect("STRING", "expected a string after '..'")
        if flags or hi.value[1]:
            raise self.error("flags not allowed in this context (a range \"a\"..\"z\")", tok)
        if len(text) != 1:
            raise self.error("range start must be a single character", tok)
        if len(hi.value[0]) != 1:
            raise self.error("range end must be a single character", hi)
        if text > hi.value[0]:
            raise self.error("invalid range order: %s..%s" % (lark_string(text), lark_string(hi.value[0])), tok)
        return CharRange(tok.offset, text, hi.value[0])

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
            hi = lo
            if self.peek().kind == "..":
                self.advance()
                hi = self._integer()
            node = self._range(tok, node, lo, hi)
        elif tok.kind == "{":
            self.advance()
            lo, hi = self._braces()
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

    def _braces(self) -> Tuple[int, Optional[int]]:
        """The bounds of `{m}`, `{m,}`, `{,n}`, `{m,n}`, after the '{'."""
        lo = 0 if self.peek().kind == "," else self._integer()
        hi: Optional[int] = lo
        if self.peek().kind == ",":
            self.advance()
            hi = None if self.peek().kind == "}" else self._integer()
        self.expect("}", "expected '}' to close the repetition")
        return lo, hi

    def _integer(self) -> int:
        tok = self.expect("NUMBER", "expected a number")
        if not is_digits(tok.value.lstrip("+-")):
            raise self.error("expected an integer, found %s" % tok.value, tok)
        return (-1 if tok.value.startswith("-") else 1) * self._count(tok.value.lstrip("+-"), tok)

    def _count(self, text: str, tok: Token) -> int:
        """A count or an id written at `tok` (digits.grammar_int)."""
        try:
            return grammar_int(text)
        except ValueError as e:
            raise self.error(str(e), tok) from None

    def _range(self, op: Token, node: Node, lo: int, hi: Optional[int]) -> Node:
        """Check the bounds of a counted repetition (llguidance's messages)."""
        if hi is not None and hi < lo:
            raise self.error("range end must be >= start, got (%d, %d)" % (lo, hi), op)
        if lo < 0:
            raise self.error("range start must be >= 0, got %d" % lo, op)
        bound = self.limits.repeat_bound
        if lo > bound or (hi is not None and hi > bound):
            raise LimitError("repeat_bound", bound, "counted repetition at line %d, column %d"
                             % line_col(self.text, op.offset))
        return Repeat(op.offset, node, lo, hi)
