"""llama.cpp's GBNF cases, from its C++ grammar tests and its example grammars.

Reads tests/test-grammar-integration.cpp, tests/test-grammar-parser.cpp and
grammars/*.gbnf of a llama.cpp checkout. A small C++ lexer (`cpp_tokens`) decodes string
literals exactly: C++ escapes, adjacent literals, raw strings R"delim(...)delim"; a wide
literal or an escape whose value is not certain makes its case undecodable. Then:

* `test_grammar(desc, grammar, {passing}, {failing})` gives a case. `token(N)` in an
  input string is llama.cpp's encoding of a token id; such inputs are written as lists
  of parts (text and token ids), see `token_inputs` in tests/data/README.md.
* `test_build_grammar_fails(grammar)` (a literal, or a `std::string` assigned one) gives
  a compile case that must fail; so do the hand-written tests that parse a `grammar_str`
  and assert that its rules are empty (it does not parse) or that it has no rule named
  root (it parses, which is a compile case of its own, but does not build).
* `verify_parsing(...)` / `verify_failure(...)` of the parser test give parse cases.
* each grammars/*.gbnf is a compile case that must build (no upstream test checks it).

`test_schema` cases are JSON schemas, not grammars: they are counted as left out.
"""
from __future__ import annotations

import os
import re
from typing import Any, Iterator, List, Tuple

from .cases import Collector
from .lexing import Token, Undecodable, split_args, tokenize, unescape, utf8, utf8_text
from .sources import read_text

_CPP_TOKEN = re.compile(r"""
    (?P<ws>\s+) | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<raw>(?P<rpre>u8|u|U|L)?R"(?P<delim>[^()\\\s]{0,16})\()
  | (?P<str>(?P<spre>u8|u|U|L)?"(?:[^"\\\n]|\\.)*")
  | (?P<chr>'(?:[^'\\\n]|\\.)*')
  | (?P<ident>[A-Za-z_]\w*) | (?P<num>\d[\w.']*)
  | (?P<punct>::|->|==|!=|&&|\|\||<=|>=|\+\+|--|.)
""", re.S | re.X)

_C_SIMPLE_ESCAPES = {"'": 0x27, '"': 0x22, "?": 0x3F, "\\": 0x5C, "a": 7, "b": 8, "f": 12,
                     "n": 10, "r": 13, "t": 9, "v": 11}


def cpp_tokens(src: str) -> List[Token]:
    """Tokens of C++ source; string literals carry their decoded value (bytes), or the
    Undecodable exception explaining why not."""
    def raw(m: "re.Match[str]", end: int, line: int) -> Tuple[int, Any]:
        close = ")" + m.group("delim") + '"'
        stop = src.find(close, end)
        if stop < 0:
            raise ValueError(f"unterminated raw string at line {line}")
        value = src[end:stop].encode("utf-8") if m.group("rpre") in (None, "u8") else Undecodable("wide raw string")
        return stop + len(close), value

    return tokenize(src, _CPP_TOKEN, ("ws", "comment", "raw", "str", "chr", "ident", "num", "punct"), raw,
                    _cpp_string_value)


def _cpp_string_value(literal: str) -> Any:
    prefix, body = literal.split('"', 1)
    if prefix not in ("", "u8"):
        return Undecodable("wide string literal")
    try:
        return decode_c_escapes(body[:-1])
    except Undecodable as e:
        return e


def decode_c_escapes(body: str) -> bytes:
    """The bytes of a C/C++ narrow string literal's body (UTF-8 source and execution set)."""
    return unescape(body, _c_escape)


def _c_escape(body: str, i: int) -> Tuple[bytes, int]:
    e = body[i + 1]
    if e in _C_SIMPLE_ESCAPES:
        return bytes([_C_SIMPLE_ESCAPES[e]]), i + 2
    if e in "01234567":
        m = re.match(r"[0-7]{1,3}", body[i + 1:])
        assert m is not None
        value = int(m.group(), 8)
        if value > 0xFF:
            raise Undecodable("octal escape above 0xFF")
        return bytes([value]), i + 1 + len(m.group())
    if e == "x":
        m = re.match(r"[0-9a-fA-F]+", body[i + 2:])
        if not m or int(m.group(), 16) > 0xFF:
            raise Undecodable("hex escape missing or above 0xFF")
        return bytes([int(m.group(), 16)]), i + 2 + len(m.group())
    if e in "uU":
        n = 4 if e == "u" else 8
        digits = body[i + 2:i + 2 + n]
        if not re.fullmatch(r"[0-9a-fA-F]{%d}" % n, digits):
            raise Undecodable("bad universal character name")
        return utf8(int(digits, 16)), i + 2 + n
    raise Undecodable(f"unknown escape \\{e}")


def cpp_value(tokens: List[Token]) -> Any:
    """The value of an argument: str, a list of parts (str / token id) for inputs that
    contain `token(N)`, or a list of those for a brace list. Raises Undecodable for a
    literal that cannot be decoded, and ValueError for any other expression."""
    if tokens and tokens[0].text == "{" and tokens[-1].text == "}":
        items, _ = split_args(tokens + [Token("punct", ";", 0)], 0)
        return [cpp_value(item) for item in items]
    parts: List[Any] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.kind == "str":
            if isinstance(t.value, Undecodable):
                raise t.value
            raw = t.value
            while i + 1 < len(tokens) and tokens[i + 1].kind == "str":  # adjacent literals concatenate
                i += 1
                if isinstance(tokens[i].value, Undecodable):
                    raise tokens[i].value
                raw += tokens[i].value
            parts.append(utf8_text(raw))
            i += 1
        elif t.text == "token" and [x.text for x in tokens[i + 1:i + 2]] == ["("]:
            args, i = split_args(tokens, i + 1)
            if len(args) != 1 or len(args[0]) != 1 or args[0][0].kind != "num":
                raise ValueError("token() of a non-literal")
            parts.append(int(args[0][0].text))
        else:
            raise ValueError(f"unsupported expression {t.text!r} at line {t.line}")
        if i < len(tokens):
            if tokens[i].text != "+":
                raise ValueError(f"unsupported operator {tokens[i].text!r} at line {tokens[i].line}")
            i += 1
    if len(parts) == 1 and isinstance(parts[0], str):
        return parts[0]
    merged: List[Any] = []
    for p in parts:
        if merged and isinstance(p, str) and isinstance(merged[-1], str):
            merged[-1] += p
        else:
            merged.append(p)
    return merged


def _calls(tokens: List[Token], name: str) -> Iterator[Tuple[int, List[List[Token]]]]:
    """(index, arguments) of each call of `name` (not its declaration)."""
    for i, t in enumerate(tokens):
        if t.text == name and i + 1 < len(tokens) and tokens[i + 1].text == "(":
            if i > 0 and tokens[i - 1].text in ("void", "bool", "*", "&"):
                continue
            args, _ = split_args(tokens, i + 1)
            yield i, args


def extract_llama_integration(col: Collector, path: str, rel: str) -> None:
    tokens = cpp_tokens(read_text(path))
    for i, args in _calls(tokens, "test_grammar"):
        line = tokens[i].line
        try:
            desc, grammar, passing, failing = (cpp_value(a) for a in args)
        except (Undecodable, ValueError) as e:
            col.skip(f"llama.cpp test_grammar case not decodable ({e})")
            continue
        source = f"{rel}:{line} ({desc})"
        tokenised = any(isinstance(s, list) for s in passing + failing)
        for kind, strings in (("passing", passing), ("failing", failing)):
            for s in strings:
                col.observe("gbnf", source, grammar, "root", kind, _parts(s) if tokenised else s)
    col.skip("llama.cpp test_schema case (a JSON schema, not a grammar)", sum(1 for _ in _calls(tokens, "test_schema")))
    _llama_build_failures(col, tokens, rel)
    _llama_parser_checks(col, tokens, rel)


def _parts(s: Any) -> List[Any]:
    return s if isinstance(s, list) else [s]


def _llama_build_failures(col: Collector, tokens: List[Token], rel: str) -> None:
    """`test_build_grammar_fails(x)` with x a literal or a `std::string x = literal;`."""
    for i, args in _calls(tokens, "test_build_grammar_fails"):
        arg = args[0]
        if len(arg) == 1 and arg[0].kind == "ident":
            arg = _last_assignment(tokens[:i], arg[0].text)
        try:
            grammar = cpp_value(arg)
        except (Undecodable, ValueError) as e:
            col.skip(f"llama.cpp build-failure case not decodable ({e})")
            continue
        col.compile("gbnf", f"{rel}:{tokens[i].line} (test_build_grammar_fails)", grammar, "root", False, "init")


def _last_assignment(tokens: List[Token], name: str) -> List[Token]:
    for j in range(len(tokens) - 2, -1, -1):
        if tokens[j].text == name and tokens[j + 1].text == "=":
            k = j + 2
            while tokens[k].text != ";":
                k += 1
            return tokens[j + 2:k]
    raise KeyError(name)


def _llama_parser_checks(col: Collector, tokens: List[Token], rel: str) -> None:
    """The hand-written tests: a grammar_str parsed with llama_grammar_parser, then
    `assert(parsed_grammar.rules.empty())` (the parse fails) or the rules are non-empty
    but there is no root symbol (llama_grammar_init fails)."""
    for start, end, name in _functions(tokens):
        body = " ".join(t.text for t in tokens[start:end])
        if "parsed_grammar . parse ( grammar_str" not in body:
            continue
        grammar = cpp_value(_last_assignment(tokens[:end], "grammar_str"))
        source = f"{rel}:{tokens[start].line} ({name})"
        if "assert ( parsed_grammar . rules . empty ( ) )" in body:
            col.compile("gbnf", source, grammar, None, False, "parse")
        elif 'symbol_ids . find ( "root" ) == parsed_grammar . symbol_ids . end ( )' in body:
            col.compile("gbnf", source, grammar, None, True, "parse")
            col.compile("gbnf", source, grammar, "root", False, "init", note="parses, but has no rule named root")


def _functions(tokens: List[Token]) -> Iterator[Tuple[int, int, str]]:
    """(body start, body end, name) of each top-level `static void name() { ... }`."""
    for i in range(len(tokens) - 4):
        if tokens[i].text == "void" and tokens[i + 1].kind == "ident" and tokens[i + 2].text == "(" \
                and tokens[i + 3].text == ")" and tokens[i + 4].text == "{":
            _, end = split_args(tokens, i + 4)
            yield i + 4, end, tokens[i + 1].text


def extract_llama_parser(col: Collector, path: str, rel: str) -> None:
    tokens = cpp_tokens(read_text(path))
    for name, ok in (("verify_parsing", True), ("verify_failure", False)):
        for i, args in _calls(tokens, name):
            try:
                grammar = cpp_value(args[0])
            except (Undecodable, ValueError) as e:
                col.skip(f"llama.cpp {name} case not decodable ({e})")
                continue
            if isinstance(grammar, str):
                col.compile("gbnf", f"{rel}:{tokens[i].line} ({name})", grammar, None, ok, "parse")


def extract_llama_examples(col: Collector, root: str) -> None:
    folder = os.path.join(root, "grammars")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".gbnf"):
            col.compile("gbnf", f"grammars/{name}", read_text(os.path.join(folder, name)), "root", True, "example",
                        note="example grammar shipped with llama.cpp (no strings are tested upstream)")
