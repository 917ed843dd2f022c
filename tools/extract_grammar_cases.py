#!/usr/bin/env python3
"""Extract GBNF, xgrammar-EBNF and KBNF test cases into tests/data/grammar_cases.json.

Usage:
    python3 tools/extract_grammar_cases.py SOURCES_DIR [OUTPUT]

The script is run by hand (the JSON it writes is checked in); it reads local copies of
the engines' test files and never touches the network. SOURCES_DIR holds one directory
per source, each with a file COMMIT (the 40-hex commit the files were taken from) and the
files at their repository paths:

    llama.cpp/            ggml-org/llama.cpp (MIT)
        tests/test-grammar-integration.cpp, tests/test-grammar-parser.cpp, grammars/*.gbnf
    xgrammar/             mlc-ai/xgrammar (Apache-2.0)
        tests/python/test_*.py
    kbnf/                 Dan-wanna-M/kbnf (MIT OR Apache-2.0), the current dialect
        tests/test.rs
    kbnf-legacy/          the same repository before `except!` was removed (optional)
        tests/test.rs
    kbnf-syntax/          Dan-wanna-M/kbnf-syntax (MIT), kbnf's grammar parser
        src/parser.rs, src/grammar.rs
    kbnf-syntax-legacy/   the same repository before `except!` was removed (optional)
        src/parser.rs, src/grammar.rs

OUTPUT defaults to tests/data/grammar_cases.json next to this script's repository.
tests/data/README.md says which commits were used and how to fill SOURCES_DIR.

How each source is read (simple text processing; no compiler or interpreter of the
engines is needed):

* C++ (llama.cpp): a small lexer that decodes string literals exactly (C++ escapes and
  raw strings R"delim(...)delim"); then the calls `test_grammar(desc, grammar, {passing},
  {failing})`, `test_build_grammar_fails(...)`, `verify_parsing(...)`,
  `verify_failure(...)` and the two hand-written "missing root/reference" tests.
  `token(N)` in an input string is llama.cpp's encoding of a token id; such inputs are
  written as lists of parts (text and token ids), see `token_inputs`.
* Python (xgrammar): the `ast` module and a tiny symbolic interpreter of each test
  function: string constants and their `+`/`*`, names, loops over literal collections,
  `pytest.mark.parametrize` tables, `xgr.Grammar.from_ebnf`, `_is_grammar_accept_string`
  (with `require_termination`), `_get_matcher_from_grammar` + `accept_string` /
  `is_terminated`, `GrammarMatcher(compiled, terminate_without_stop_token=True)`, and
  `pytest.raises(..., match=...)` around a single statement that builds one grammar.
  Expressions over plain data (strings, numbers, lists, comprehensions,
  itertools.product, re) are evaluated by Python itself. Anything it does not understand
  makes the value unknown, and what a skipped statement may change becomes unknown;
  unknown values are never recorded.
* Rust (kbnf): a small lexer (raw strings r#"..."#, byte strings, escapes) and the
  statements of kbnf's engine tests: `Engine::new(grammar, ...)`, `try_accept_new_token`
  / `try_accept_new_bytes` with the asserted outcome (Ongoing, Finished, Rejected),
  `reset()`, and `for` loops over ranges; kbnf-syntax's parser and validator tests give
  compile cases (`#[should_panic]` means the grammar is rejected).

A string that cannot be decoded with certainty leaves its case out; the summary printed
at the end counts everything left out, by reason.
"""
from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from grammar_cases.cases import STRING_KINDS, Collector, features
from grammar_cases.cpp import extract_llama_examples, extract_llama_integration, extract_llama_parser
from grammar_cases.python import extract_xgrammar
from grammar_cases.lexing import Token, Undecodable, split_args, tokenize, utf8, utf8_text
from grammar_cases.sources import LEGACY_NOTE, add_source, read_text

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUTPUT = os.path.join(os.path.dirname(HERE), "tests", "data", "grammar_cases.json")

# ============================================================================ Rust (kbnf)

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
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        e = body[i + 1]
        if e in _RUST_ESCAPES:
            out += _RUST_ESCAPES[e].encode()
            i += 2
        elif e == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", body[i + 2:i + 4]):
            value = int(body[i + 2:i + 4], 16)
            if value > 0x7F and not is_bytes:
                return Undecodable("\\x above 0x7F in a str literal")
            out.append(value)
            i += 4
        elif e == "u" and not is_bytes:
            m = re.match(r"\{([0-9a-fA-F]{1,6})\}", body[i + 2:])
            if not m:
                return Undecodable("bad \\u escape")
            try:
                out += utf8(int(m.group(1), 16))
            except Undecodable as err:
                return err
            i += 2 + len(m.group())
        elif e == "\n":  # line continuation: skip the newline and leading whitespace
            i += 2
            while i < len(body) and body[i] in " \t\r\n":
                i += 1
        else:
            return Undecodable(f"unknown escape \\{e}")
    return bytes(out) if is_bytes else out.decode("utf-8")


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


# ============================================================================ main

EXTRACTORS: List[Tuple[str, str, Callable[[Collector, str, str, Optional[str]], None]]] = [
    ("llama.cpp", "tests/test-grammar-integration.cpp", lambda c, p, r, n: extract_llama_integration(c, p, r)),
    ("llama.cpp", "tests/test-grammar-parser.cpp", lambda c, p, r, n: extract_llama_parser(c, p, r)),
    ("kbnf", "tests/test.rs", extract_kbnf_engine_tests),
    ("kbnf-legacy", "tests/test.rs", extract_kbnf_engine_tests),
    ("kbnf-syntax", "src/parser.rs", extract_kbnf_syntax_tests),
    ("kbnf-syntax", "src/grammar.rs", extract_kbnf_syntax_tests),
    ("kbnf-syntax-legacy", "src/parser.rs", extract_kbnf_syntax_tests),
    ("kbnf-syntax-legacy", "src/grammar.rs", extract_kbnf_syntax_tests),
]


def extract(sources_dir: str) -> Dict[str, Any]:
    col = Collector()
    for name, rel, extractor in EXTRACTORS:
        folder = os.path.join(sources_dir, name)
        path = os.path.join(folder, rel)
        if not os.path.exists(path):
            if not name.endswith("legacy"):
                raise SystemExit(f"missing {path}")
            continue
        add_source(col, name, folder, rel)
        extractor(col, path, rel, LEGACY_NOTE if name.endswith("legacy") else None)
    llama = os.path.join(sources_dir, "llama.cpp")
    add_source(col, "llama.cpp", llama, "grammars/*.gbnf")
    extract_llama_examples(col, llama)
    xgrammar = os.path.join(sources_dir, "xgrammar")
    add_source(col, "xgrammar", xgrammar, "tests/python/test_*.py")
    extract_xgrammar(col, xgrammar)
    cases = col.finished_cases()
    with_strings = {(c["format"], c["grammar"], c["root"]) for c in cases}
    compile_cases = [c for c in col.compile_cases.values()  # a grammar with strings compiles: said once
                     if not (c["should_compile"] and (c["format"], c["grammar"], c["root"]) in with_strings)]
    for entry in cases + compile_cases:
        entry["features"] = features(entry["format"], entry["grammar"])
    return {
        "meta": {"sources": col.sources, "generated_by": "tools/extract_grammar_cases.py",
                 "skipped": dict(sorted(col.skipped.items()))},
        "cases": cases,
        "compile_cases": compile_cases,
    }


def summary(data: Dict[str, Any]) -> str:
    lines = []
    for key in ("cases", "compile_cases"):
        counts = Counter((e["format"], e["source"].split(":")[0]) for e in data[key])
        strings = Counter()  # type: Counter
        for e in data[key]:
            strings[e["format"]] += sum(len(e.get(k, ())) for k in STRING_KINDS)
        lines.append(f"{key}: {len(data[key])}")
        for (fmt, path), n in sorted(counts.items()):
            lines.append(f"  {fmt:9} {path:45} {n}")
        if key == "cases":
            lines.append("  strings per format: " + ", ".join(f"{f} {n}" for f, n in sorted(strings.items())))
    lines.append("left out:")
    for reason, n in data["meta"]["skipped"].items():
        lines.append(f"  {n:5}  {reason}")
    return "\n".join(lines)


def main(argv: List[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    data = extract(argv[1])
    output = argv[2] if len(argv) == 3 else DEFAULT_OUTPUT
    with open(output, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(summary(data))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
