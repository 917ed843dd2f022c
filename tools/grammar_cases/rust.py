"""kbnf's KBNF cases, from its Rust engine tests and kbnf-syntax's parser tests.

Reads tests/test.rs of a kbnf checkout and src/parser.rs, src/grammar.rs of a
kbnf-syntax checkout (and, when present, the same files of the legacy dialect with
`except!`, whose records carry a note). A small Rust lexer (`rust_tokens`) decodes string
literals exactly: raw strings r#"..."#, byte strings, escapes, line continuations. Then,
in each `#[test]` function:

* kbnf (`KbnfEngineRun`): `Engine::new(grammar, ...)` and the accepts that follow,
  `try_accept_new_token` / `try_accept_new_bytes`, with the outcome the test asserts
  (Ongoing: a prefix only, Finished: passing, Rejected: not a prefix; an `unwrap()`ed
  result alone: a prefix); `reset()`; `for` loops over ranges. Start rule `start`; an
  engine built is a compile case that must pass. `#[should_panic]` tests are left out.
* kbnf-syntax: the grammar in `let source = ...` (or `src`) parses (`parse_expressions`)
  or validates with a start symbol (`validate_grammar`), unless the test is
  `#[should_panic]`: compile cases.
"""
from __future__ import annotations

import re
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .cases import Collector
from .lexing import Token, Undecodable, split_args, tokenize, unescape, utf8, utf8_text
from .sources import read_text

_RUST_TOKEN = re.compile(r"""
    (?P<ws>\s+) | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<raw>b?r(?P<hashes>\#*)")
  | (?P<str>b?"(?:[^"\\]|\\.)*")
  | (?P<chr>b?'(?:[^'\\\n]|\\(?:[nrt0'"\\]|x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]{1,6}\}))')
  | (?P<lifetime>'\w+)
  | (?P<ident>[A-Za-z_]\w*!?) | (?P<num>\d\w*(?:\.\d\w*)?)
  | (?P<punct>::|==|!=|=>|->|\.\.|&&|\|\||.)
""", re.S | re.X)
_RUST_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", "0": "\0", "'": "'", '"': '"'}


def rust_tokens(src: str) -> List[Token]:
    """Tokens of Rust source; string literals carry their value (str, or bytes for b"")."""
    def raw(m: "re.Match[str]", end: int, line: int) -> Tuple[int, Any]:
        close = '"' + m.group("hashes")
        stop = src.find(close, end)
        body = src[end:stop]
        return stop + len(close), body.encode("utf-8") if m.group().startswith("b") else body

    return tokenize(src, _RUST_TOKEN, ("ws", "comment", "raw", "str", "chr", "lifetime", "ident", "num", "punct"), raw,
                    _rust_string_value)


def _rust_string_value(literal: str) -> Any:
    is_bytes = literal.startswith("b")
    body = literal[2:-1] if is_bytes else literal[1:-1]
    try:
        value = unescape(body, lambda text, i: _rust_escape(text, i, is_bytes))
    except Undecodable as e:
        return e
    return value if is_bytes else value.decode("utf-8")


def _rust_escape(body: str, i: int, is_bytes: bool) -> Tuple[bytes, int]:
    e = body[i + 1]
    if e in _RUST_ESCAPES:
        return _RUST_ESCAPES[e].encode(), i + 2
    if e == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", body[i + 2:i + 4]):
        value = int(body[i + 2:i + 4], 16)
        if value > 0x7F and not is_bytes:
            raise Undecodable("\\x above 0x7F in a str literal")
        return bytes([value]), i + 4
    if e == "u" and not is_bytes:
        m = re.match(r"\{([0-9a-fA-F]{1,6})\}", body[i + 2:])
        if not m:
            raise Undecodable("bad \\u escape")
        return utf8(int(m.group(1), 16)), i + 2 + len(m.group())
    if e == "\n":  # line continuation: skip the newline and leading whitespace
        i += 2
        while i < len(body) and body[i] in " \t\r\n":
            i += 1
        return b"", i
    raise Undecodable(f"unknown escape \\{e}")


def rust_test_functions(tokens: List[Token]) -> Iterator[Tuple[str, int, List[Token], bool]]:
    """(name, line, body tokens, should_panic) of each #[test] function."""
    i = 0
    while i < len(tokens) - 3:
        if [t.text for t in tokens[i:i + 4]] == ["#", "[", "test", "]"]:
            j, should_panic = i + 4, False
            while tokens[j].text == "#":  # more attributes
                should_panic = should_panic or tokens[j + 2].text == "should_panic"
                _, j = split_args(tokens, j + 1)
            if tokens[j].text == "fn":
                brace = j
                while tokens[brace].text != "{":
                    brace += 1
                _, end = split_args(tokens, brace)
                yield tokens[j + 1].text, tokens[j].line, tokens[brace + 1:end - 1], should_panic
                i = end
                continue
        i += 1


def rust_statements(body: List[Token]) -> Iterator[List[Token]]:
    """Top-level statements; a `for` or `if` statement is yielded whole (with its block)."""
    i = 0
    while i < len(body):
        j, depth = i, 0
        block_statement = body[i].text in ("for", "if", "while", "loop")
        while j < len(body):
            t = body[j].text
            depth += t in "([{" and body[j].kind == "punct"
            depth -= t in ")]}" and body[j].kind == "punct"
            j += 1
            if depth == 0 and (t == ";" or (block_statement and t == "}" and (j >= len(body) or body[j].text != "else"))):
                break
        yield body[i:j]
        i = j


class KbnfEngineRun:
    """Follows one kbnf engine through a test: what it has accepted, and the asserted
    outcome of each accept (Ongoing, Finished, Rejected)."""

    def __init__(self, col: Collector, source: str, note: Optional[str]) -> None:
        self.col, self.source, self.note = col, source, note
        self.grammar: Optional[str] = None
        self.consumed: Optional[bytes] = b""
        self.env: Dict[str, Any] = {}
        self.pending: Dict[str, bytes] = {}  # result variable -> the text it accepted
        self.unresolved: Optional[str] = None  # a result variable whose outcome is not known yet

    def run(self, body: List[Token]) -> None:
        for stmt in rust_statements(body):
            self.statement(stmt)
        for name in list(self.pending):
            self.flush(name)

    def statement(self, stmt: List[Token]) -> None:
        texts = [t.text for t in stmt]
        if texts[:1] == ["for"]:
            self.loop(stmt)
        elif texts[:1] in (["if"], ["while"], ["loop"]):
            self.consumed = None
        elif "Engine" in texts and "::" in texts and ("new" in texts or "with_config" in texts):
            name = texts[texts.index("(", texts.index("Engine")) + 1]
            self.grammar = self.env.get(name) if isinstance(self.env.get(name), str) else None
            self.consumed = b""
        elif "reset" in texts and texts[:3] == ["engine", ".", "reset"]:
            self.consumed = b""
        elif "try_accept_new_token" in texts or "try_accept_new_bytes" in texts:
            self.accept(stmt, texts)
        elif texts[:1] == ["let"] and "=" in texts:
            self.let(stmt, texts)
        elif texts[:1] in (["assert_eq!"], ["assert!"]):
            self.assert_result(texts)

    def let(self, stmt: List[Token], texts: List[str]) -> None:
        name = texts[2] if texts[1] == "mut" else texts[1]
        value = stmt[texts.index("=") + 1:-1]
        if len(value) == 1 and value[0].kind == "str":
            self.env[name] = value[0].value
        elif texts[texts.index("=") + 1:][:1] == ["if"]:  # let v = if i % 2 == 0 { "x" } else { "y" };
            m = re.fullmatch(r"if (\w+) % (\d+) == (\d+) \{ (\S+) \} else \{ (\S+) \} ;", " ".join(texts[texts.index("=") + 1:]))
            strings = [t for t in value if t.kind == "str"]
            if m and isinstance(self.env.get(m.group(1)), int) and len(strings) == 2:
                self.env[name] = strings[0 if self.env[m.group(1)] % int(m.group(2)) == int(m.group(3)) else 1].value

    def loop(self, stmt: List[Token]) -> None:
        texts = [t.text for t in stmt]
        m = re.match(r"for (\w+) in (\d+) \.\. (\d+) \{", " ".join(texts))
        if not m:
            self.consumed = None
            return
        body = stmt[texts.index("{") + 1:-1]
        for i in range(int(m.group(2)), int(m.group(3))):
            self.env[m.group(1)] = i
            for inner in rust_statements(body):
                self.statement(inner)

    def accept(self, stmt: List[Token], texts: List[str]) -> None:
        """An accept call, with its outcome if the statement asserts it. `let r = call;`
        leaves the outcome to a later assert on r; `.unwrap()` alone means it was accepted."""
        call = next(i for i, t in enumerate(texts) if t in ("try_accept_new_token", "try_accept_new_bytes"))
        args, after = split_args(stmt, call + 1)
        text = self.accepted_text(args[0] if args else [])
        if text is None or self.consumed is None or self.grammar is None or self.unresolved:
            self.consumed = None
            return
        seq = self.consumed + text
        if "Rejected" in texts:
            self.observe("not_prefixes", seq)
        elif "Ongoing" in texts or "Finished" in texts:
            self.observe("prefix_only" if "Ongoing" in texts else "passing", seq)
            self.consumed = seq
        elif texts[:1] == ["let"]:
            self.flush(texts[1])
            self.pending[texts[1]] = seq
            unwrapped = texts[after:after + 4] == [".", "unwrap", "(", ")"]
            if unwrapped:
                self.consumed = seq
            else:
                self.unresolved = texts[1]
        elif texts[after:after + 4] == [".", "unwrap", "(", ")"]:
            self.observe("prefixes", seq)
            self.consumed = seq
        else:  # outcome not asserted here
            self.consumed = None

    def accepted_text(self, arg: List[Token]) -> Optional[bytes]:
        """The bytes of the token or byte string an accept call is given."""
        texts = [t.text for t in arg]
        strings = [t.value for t in arg if t.kind == "str"]
        if len(strings) == 1:
            value = strings[0]
        elif not strings and "Token" in texts:
            value = self.env.get(texts[texts.index("Token") + 2])
        else:
            return None
        if isinstance(value, str):
            return value.encode("utf-8")
        return value if isinstance(value, bytes) else None

    def flush(self, name: str) -> None:
        """A result variable is bound again: an unasserted unwrap()ed result was accepted."""
        if name in self.pending and self.unresolved != name:
            self.observe("prefixes", self.pending.pop(name))

    def assert_result(self, texts: List[str]) -> None:
        names = [n for n in self.pending if n in texts[2:4]]
        if not names:
            return
        name = names[0]
        seq = self.pending.pop(name)
        if self.unresolved == name:  # the call was not unwrap()ed: the assert says what happened
            self.unresolved = None
            if "Rejected" in texts:
                self.observe("not_prefixes", seq)
                return
            self.consumed = seq
        if "Ongoing" in texts:
            self.observe("prefix_only", seq)
        elif "Finished" in texts:
            self.observe("passing", seq)
        else:
            self.observe("prefixes", seq)

    def observe(self, kind: str, seq: bytes) -> None:
        if self.grammar is None:
            return
        try:
            text = utf8_text(seq)
        except Undecodable:
            self.col.skip("kbnf input that is not UTF-8 (string left out)")
            return
        self.col.observe("kbnf", self.source, self.grammar, "start", kind, text, self.note)


def extract_kbnf_engine_tests(col: Collector, path: str, rel: str, note: Optional[str]) -> None:
    tokens = rust_tokens(read_text(path))
    for name, line, body, should_panic in rust_test_functions(tokens):
        if should_panic:
            continue
        run = KbnfEngineRun(col, f"{rel}:{line} ({name})", note)
        run.run(body)
        if run.grammar is not None:
            col.compile("kbnf", run.source, run.grammar, "start", True, "engine", note=note)


def extract_kbnf_syntax_tests(col: Collector, path: str, rel: str, note: Optional[str]) -> None:
    """Parser and validator tests: the grammar in `let source = ...` (or `src`) parses
    (parse_expressions) or validates with a start symbol (validate_grammar("S", ...)),
    unless the test is #[should_panic]."""
    tokens = rust_tokens(read_text(path))
    for name, line, body, should_panic in rust_test_functions(tokens):
        texts = [t.text for t in body]
        grammar = next((body[i + 3].value for i in range(len(body) - 3)
                        if texts[i] == "let" and texts[i + 1] in ("source", "src") and body[i + 3].kind == "str"), None)
        if grammar is None:
            continue
        if isinstance(grammar, Undecodable):
            col.skip(f"kbnf-syntax case not decodable ({grammar})")
            continue
        source = f"{rel}:{line} ({name})"
        if "validate_grammar" in texts:
            start = body[texts.index("validate_grammar") + 2]
            col.compile("kbnf", source, grammar, start.value, not should_panic, "validate", note=note)
        elif "parse_expressions" in texts:
            col.compile("kbnf", source, grammar, None, not should_panic, "parse", note=note)
