"""The grammar-case extractors of tools/grammar_cases/ on small hand-written test sources,
one per language: every case and compile case they extract is asserted exactly. The
inputs imitate the shapes of llama.cpp's, xgrammar's and kbnf's tests; they are not
copies of them."""
import json
import os
import subprocess
import sys

import pytest

from tools.grammar_cases import cpp, python, rust
from tools.grammar_cases.cases import Collector, features
from tools.grammar_cases.lexing import Undecodable

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _write(root, rel, text):
    path = os.path.join(str(root), rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def _collector():
    col = Collector()
    col.commit = COMMIT
    return col


def _case(fmt, source, grammar, root, **strings):
    """A finished case: passing and failing always present, the other kinds when given."""
    case = {"format": fmt, "source": source, "commit": COMMIT, "grammar": grammar, "root": root,
            "passing": strings.pop("passing", []), "failing": strings.pop("failing", [])}
    case.update(strings)
    return case


def _compiles(fmt, source, grammar, root, ok, stage, error=None, **extra):
    entry = {"format": fmt, "source": source, "commit": COMMIT, "grammar": grammar, "root": root,
             "stage": stage, "should_compile": ok, "error_contains": error}
    entry.update(extra)
    return entry


# -- C++: llama.cpp

LLAMA_INTEGRATION = r'''
static void test_build_grammar_fails(const std::string & grammar_str);

static void test_simple_grammar() {
    test_grammar(
        "two letters",
        R"""(root ::= "a" [b-c]+)""",
        {   // passing
            "ab",
            "a" "cc",
        },
        {   // failing
            "a",
            "\141d",
        });
    test_grammar("a token", R"(root ::= <[7]> "x")", {token(7) + "x"}, {"x"});
    test_grammar("wide", L"root ::= \"a\"", {}, {});
    test_schema("a schema", R"({"type": "string"})", {"\"s\""}, {"1"});
    std::string unclosed = "root ::= (\"a\"";
    test_build_grammar_fails(unclosed);
}

static void test_failure_missing_root() {
    const std::string grammar_str = R"(rot ::= "a")";
    llama_grammar_parser parsed_grammar;
    parsed_grammar.parse(grammar_str.c_str());
    assert(!parsed_grammar.rules.empty());
    assert(parsed_grammar.symbol_ids.find("root") == parsed_grammar.symbol_ids.end());
}
'''[1:]

LLAMA_PARSER = r'''
static void verify_failure(const char * grammar_str);

int main() {
    verify_parsing(R"(root ::= "a")", {
        {"root", 0},
    }, {});
    verify_failure(R"(root ::= "a)");
    verify_failure(U"root");
    return 0;
}
'''[1:]


def test_llama_cpp_integration_tests(tmp_path):
    col = _collector()
    rel = "tests/test-grammar-integration.cpp"
    cpp.extract_llama_integration(col, _write(tmp_path, rel, LLAMA_INTEGRATION), rel)
    assert col.finished_cases() == [
        _case("gbnf", f"{rel}:4 (two letters)", 'root ::= "a" [b-c]+', "root",
              passing=["ab", "acc"], failing=["a", "ad"]),
        _case("gbnf", f"{rel}:15 (a token)", 'root ::= <[7]> "x"', "root",
              passing=[[7, "x"]], failing=[["x"]], token_inputs=True),
    ]
    assert list(col.compile_cases.values()) == [
        _compiles("gbnf", f"{rel}:19 (test_build_grammar_fails)", 'root ::= ("a"', "root", False, "init"),
        _compiles("gbnf", f"{rel}:22 (test_failure_missing_root)", 'rot ::= "a"', None, True, "parse"),
        _compiles("gbnf", f"{rel}:22 (test_failure_missing_root)", 'rot ::= "a"', "root", False, "init",
                  note="parses, but has no rule named root"),
    ]
    assert col.skipped == {"llama.cpp test_grammar case not decodable (wide string literal)": 1,
                           "llama.cpp test_schema case (a JSON schema, not a grammar)": 1}


def test_llama_cpp_parser_tests_and_examples(tmp_path):
    col = _collector()
    rel = "tests/test-grammar-parser.cpp"
    cpp.extract_llama_parser(col, _write(tmp_path, rel, LLAMA_PARSER), rel)
    _write(tmp_path, "grammars/ab.gbnf", 'root ::= "a" | "b"\n')
    _write(tmp_path, "grammars/README.md", "not a grammar\n")
    cpp.extract_llama_examples(col, str(tmp_path))
    assert col.finished_cases() == []
    assert list(col.compile_cases.values()) == [
        _compiles("gbnf", f"{rel}:4 (verify_parsing)", 'root ::= "a"', None, True, "parse"),
        _compiles("gbnf", f"{rel}:7 (verify_failure)", 'root ::= "a', None, False, "parse"),
        _compiles("gbnf", "grammars/ab.gbnf", 'root ::= "a" | "b"\n', "root", True, "example",
                  note="example grammar shipped with llama.cpp (no strings are tested upstream)"),
    ]
    assert col.skipped == {"llama.cpp verify_failure case not decodable (wide string literal)": 1}


@pytest.mark.parametrize("body, value", [
    (r"a\tb\"\\", b'a\tb"\\'),
    (r"\101\0", b"A\0"),
    (r"\xe2\x82\xac", "€".encode()),
    (r"\u20ac\U0001F600", "€😀".encode()),
    ("é", "é".encode()),
])
def test_c_escapes(body, value):
    assert cpp.decode_c_escapes(body) == value


@pytest.mark.parametrize("body", [r"\x61d", r"\777", r"\ud800", r"\q"])
def test_c_escapes_not_certain(body):
    with pytest.raises(Undecodable):  # \x is greedy: \x61d is one escape, above 0xFF
        cpp.decode_c_escapes(body)


# -- Python: xgrammar

XGRAMMAR_TESTS = r'''
import pytest
import xgrammar as xgr
from xgrammar.testing import _get_matcher_from_grammar, _is_grammar_accept_string

ab_grammar = 'root ::= "a" "b"*'


@pytest.mark.parametrize("text, accepted", [("a", True), ("a" + "b" * 2, True), ("ba", False)])
def test_accept(text, accepted):
    assert _is_grammar_accept_string(ab_grammar, text) == accepted


def test_prefixes():
    grammar = 'root ::= "xy"'
    assert _is_grammar_accept_string(grammar, "x", require_termination=False)
    assert not _is_grammar_accept_string(grammar, "y", require_termination=False)
    assert not _is_grammar_accept_string(grammar, b"\xff")


def test_matcher():
    matcher = _get_matcher_from_grammar('root ::= "ab" | "abcd"')
    assert matcher.accept_string("ab")
    assert matcher.is_terminated()
    assert matcher.accept_string("c")
    assert not matcher.is_terminated()
    assert not matcher.accept_string("x")


def test_undefined_rule():
    with pytest.raises(RuntimeError, match="undefined"):
        xgr.Grammar.from_ebnf("root ::= missing")


@pytest.mark.skip(reason="not run")
def test_skipped():
    assert _is_grammar_accept_string('root ::= "z"', "z")


def test_unknown_grammar():
    grammar = make_grammar()
    assert _is_grammar_accept_string(grammar, "q")
'''[1:]


def test_xgrammar_tests(tmp_path):
    col = _collector()
    _write(tmp_path, "tests/python/test_sample.py", XGRAMMAR_TESTS)
    _write(tmp_path, "tests/python/helpers.py", "assert _is_grammar_accept_string('root ::= \"h\"', 'h')\n")
    python.extract_xgrammar(col, str(tmp_path))
    rel = "tests/python/test_sample.py"
    assert col.finished_cases() == [
        _case("xgrammar", f"{rel}:9 (test_accept)", 'root ::= "a" "b"*', "root", passing=["a", "abb"], failing=["ba"]),
        _case("xgrammar", f"{rel}:13 (test_prefixes)", 'root ::= "xy"', "root", prefixes=["x"], not_prefixes=["y"]),
        # a prefix that is not complete, then a complete one, then one that is not a prefix
        _case("xgrammar", f"{rel}:20 (test_matcher)", 'root ::= "ab" | "abcd"', "root",
              passing=["ab"], prefix_only=["abc"], prefixes=["abc"], not_prefixes=["abcx"]),
    ]
    assert list(col.compile_cases.values()) == [
        _compiles("xgrammar", f"{rel}:9 (test_accept)", 'root ::= "a" "b"*', "root", True, "from_ebnf"),
        _compiles("xgrammar", f"{rel}:13 (test_prefixes)", 'root ::= "xy"', "root", True, "from_ebnf"),
        _compiles("xgrammar", f"{rel}:20 (test_matcher)", 'root ::= "ab" | "abcd"', "root", True, "from_ebnf"),
        _compiles("xgrammar", f"{rel}:29 (test_undefined_rule)", "root ::= missing", "root", False, "from_ebnf",
                  "undefined", error_is_regex=True),
    ]
    assert col.skipped == {"xgrammar input given as bytes that are not UTF-8 (string left out)": 1,
                           "xgrammar test marked skip/xfail": 1}


def test_xgrammar_keeps_the_first_strings_of_an_exhaustive_test(tmp_path):
    col = _collector()
    _write(tmp_path, "tests/python/test_many.py", (
        "def test_many():\n"
        "    for n in range(150):\n"
        "        assert _is_grammar_accept_string('root ::= \"a\"*', 'a' * n)\n"))
    python.extract_xgrammar(col, str(tmp_path))
    (case,) = col.finished_cases()
    assert case["passing"] == ["a" * n for n in range(100)]
    assert col.skipped == {"xgrammar string beyond the first 100 of its kind in one test run": 50}


# -- Rust: kbnf and kbnf-syntax

KBNF_TESTS = r'''
#[cfg(test)]
mod tests {
    #[test]
    fn alternatives() {
        let input = "start::='ab'|'baba';";
        let mut engine = kbnf::engine::Engine::new(input, vocab()).unwrap();
        assert_eq!(engine.try_accept_new_bytes(b"a").unwrap(), AcceptTokenResult::Ongoing);
        assert_eq!(engine.try_accept_new_bytes(b"b").unwrap(), AcceptTokenResult::Finished);
        engine.reset();
        assert!(engine.try_accept_new_bytes(b"c") == Err(AcceptTokenError::Rejected));
        for i in 0..2 {
            let value = if i % 2 == 0 { "b" } else { "a" };
            let result = engine.try_accept_new_token(vocab.token_id(&Token(value.as_bytes())).unwrap()).unwrap();
            assert_eq!(result, AcceptTokenResult::Ongoing);
        }
    }

    #[test]
    #[should_panic]
    fn bad_grammar() {
        let input = "start::=";
        let mut engine = kbnf::engine::Engine::new(input, vocab()).unwrap();
        assert_eq!(engine.try_accept_new_bytes(b"x").unwrap(), AcceptTokenResult::Finished);
    }

    #[test]
    fn raw_bytes() {
        let input = r#"start::="\xff"|'é';"#;
        let mut engine = kbnf::engine::Engine::new(input, vocab()).unwrap();
        assert_eq!(engine.try_accept_new_bytes(b"\xff").unwrap(), AcceptTokenResult::Finished);
        engine.reset();
        assert_eq!(engine.try_accept_new_bytes("\u{e9}".as_bytes()).unwrap(), AcceptTokenResult::Finished);
    }
}
'''[1:]

KBNF_SYNTAX_TESTS = r'''
#[cfg(test)]
mod tests {
    #[test]
    fn simple() {
        let source = r#"start::='a';"#;
        let result = parse_expressions(source).unwrap();
    }
    #[test]
    #[should_panic]
    fn missing_semicolon() {
        let src = "start::='a'";
        parse_expressions(src).unwrap();
    }
    #[test]
    fn validates() {
        let source = "start::=b; b::='x';";
        let grammar = get_grammar(source).unwrap().validate_grammar("start", regex_config()).unwrap();
    }
    #[test]
    fn bad_escape() {
        let source = "start::='\q';";
        parse_expressions(source).unwrap();
    }
}
'''[1:]


def test_kbnf_engine_tests(tmp_path):
    col = _collector()
    rel = "tests/test.rs"
    rust.extract_kbnf_engine_tests(col, _write(tmp_path, rel, KBNF_TESTS), rel, None)
    assert col.finished_cases() == [
        _case("kbnf", f"{rel}:4 (alternatives)", "start::='ab'|'baba';", "start",
              passing=["ab"], prefix_only=["a", "b", "ba"], not_prefixes=["c"]),
        _case("kbnf", f"{rel}:27 (raw_bytes)", "start::=\"\\xff\"|'é';", "start", passing=["é"]),
    ]
    assert list(col.compile_cases.values()) == [
        _compiles("kbnf", f"{rel}:4 (alternatives)", "start::='ab'|'baba';", "start", True, "engine"),
        _compiles("kbnf", f"{rel}:27 (raw_bytes)", "start::=\"\\xff\"|'é';", "start", True, "engine"),
    ]
    assert col.skipped == {"kbnf input that is not UTF-8 (string left out)": 1}


def test_kbnf_syntax_tests(tmp_path):
    col = _collector()
    rel = "src/parser.rs"
    rust.extract_kbnf_syntax_tests(col, _write(tmp_path, rel, KBNF_SYNTAX_TESTS), rel, "legacy")
    assert col.finished_cases() == []
    assert list(col.compile_cases.values()) == [
        _compiles("kbnf", f"{rel}:4 (simple)", "start::='a';", None, True, "parse", note="legacy"),
        _compiles("kbnf", f"{rel}:10 (missing_semicolon)", "start::='a'", None, False, "parse", note="legacy"),
        _compiles("kbnf", f"{rel}:15 (validates)", "start::=b; b::='x';", "start", True, "validate", note="legacy"),
    ]
    assert col.skipped == {"kbnf-syntax case not decodable (unknown escape \\q)": 1}


def test_rust_string_literals():
    tokens = rust.rust_tokens(r'''let a = "x\ty\u{1F600}\
        z"; let b = b"\xff\n"; let c = r##"a "# b"##; let d = "\xff";''')
    assert [t.value for t in tokens if t.kind == "str"][:3] == ["x\ty😀z", b"\xff\n", 'a "# b']
    assert isinstance(tokens[-2].value, Undecodable)  # \x above 0x7F in a str literal


# -- what the extractors share

def test_contradicting_observations_leave_the_case_out():
    col = _collector()
    col.observe("gbnf", "t.cpp:1 (t)", 'root ::= "a"', "root", "passing", "a")
    col.observe("gbnf", "t.cpp:1 (t)", 'root ::= "a"', "root", "failing", "a")
    assert col.finished_cases() == []
    assert col.skipped == {"case whose observations contradict each other": 1}


def test_a_grammar_that_builds_is_kept_at_its_furthest_stage():
    col = _collector()
    col.compile("xgrammar", "a", 'root ::= "a"', "root", True, "from_ebnf")
    col.compile("xgrammar", "b", 'root ::= "a"', "root", True, "compile_grammar")
    col.compile("xgrammar", "c", 'root ::= "a"', "root", True, "parse")
    assert [(e["source"], e["stage"]) for e in col.compile_cases.values()] == [("b", "compile_grammar")]


def test_features():
    assert features("gbnf", 'root ::= <[7]> "{" x{2} "." [.] # {') == ["token", "repetition-range"]
    assert features("xgrammar", 'root[lazy] ::= TagDispatch(("a", b)) (= "c")') == ["lookahead", "rule-options", "macro"]
    assert features("kbnf", "start::=#e'a+' except!(b) (* any! *);") == ["early-end-regex", "except"]


# -- the command

def test_the_command_on_a_small_sources_dir(tmp_path):
    sources = tmp_path / "sources"
    for folder, rel, text in [
        ("llama.cpp", "tests/test-grammar-integration.cpp", LLAMA_INTEGRATION),
        ("llama.cpp", "tests/test-grammar-parser.cpp", LLAMA_PARSER),
        ("llama.cpp", "grammars/ab.gbnf", 'root ::= "a" | "b"\n'),
        ("xgrammar", "tests/python/test_sample.py", XGRAMMAR_TESTS),
        ("kbnf", "tests/test.rs", KBNF_TESTS),
        ("kbnf-legacy", "tests/test.rs", KBNF_TESTS),
        ("kbnf-syntax", "src/parser.rs", KBNF_SYNTAX_TESTS),
        ("kbnf-syntax", "src/grammar.rs", "fn main() {}\n"),
    ]:
        _write(sources, os.path.join(folder, rel), text)
        legacy = folder.endswith("legacy")  # another commit of the same repository: cases of their own
        _write(sources, os.path.join(folder, "COMMIT"), (COMMIT[::-1] if legacy else COMMIT) + "\n")
    out = tmp_path / "cases.json"
    command = [sys.executable, os.path.join(REPOSITORY, "tools", "extract_grammar_cases.py"), str(sources), str(out)]
    run = subprocess.run(command, capture_output=True, text=True, check=True)
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [(s["repo"], s["path"], s["license"], s["commit"]) for s in data["meta"]["sources"]] == [
        ("ggml-org/llama.cpp", "tests/test-grammar-integration.cpp", "MIT", COMMIT),
        ("ggml-org/llama.cpp", "tests/test-grammar-parser.cpp", "MIT", COMMIT),
        ("Dan-wanna-M/kbnf", "tests/test.rs", "MIT OR Apache-2.0", COMMIT),
        ("Dan-wanna-M/kbnf", "tests/test.rs", "MIT OR Apache-2.0", COMMIT[::-1]),
        ("Dan-wanna-M/kbnf-syntax", "src/parser.rs", "MIT", COMMIT),
        ("Dan-wanna-M/kbnf-syntax", "src/grammar.rs", "MIT", COMMIT),
        ("ggml-org/llama.cpp", "grammars/*.gbnf", "MIT", COMMIT),
        ("mlc-ai/xgrammar", "tests/python/test_*.py", "Apache-2.0", COMMIT),
    ]
    assert data["meta"]["generated_by"] == "tools/extract_grammar_cases.py"
    assert data["meta"]["skipped"]["kbnf input that is not UTF-8 (string left out)"] == 2
    assert [(c["source"], c["features"], c.get("note")) for c in data["cases"] if c["format"] != "xgrammar"] == [
        ("tests/test-grammar-integration.cpp:4 (two letters)", [], None),
        ("tests/test-grammar-integration.cpp:15 (a token)", ["token"], None),
        ("tests/test.rs:4 (alternatives)", [], None),
        ("tests/test.rs:27 (raw_bytes)", [], None),
        ("tests/test.rs:4 (alternatives)", [], "kbnf dialect before `except!` was removed "
                                                  "(kbnf commit c796ca5, kbnf-syntax e3e0f18, 2024-08-14)"),
        ("tests/test.rs:27 (raw_bytes)", [], "kbnf dialect before `except!` was removed "
                                               "(kbnf commit c796ca5, kbnf-syntax e3e0f18, 2024-08-14)"),
    ]
    # a grammar with strings is not repeated as a compile case that must pass
    assert {c["grammar"] for c in data["compile_cases"] if c["should_compile"]} == {
        'rot ::= "a"', 'root ::= "a"', 'root ::= "a" | "b"\n', "start::='a';", "start::=b; b::='x';"}
    assert "cases: 9" in run.stdout and "  gbnf      grammars/ab.gbnf" in run.stdout
    rerun = tmp_path / "again.json"
    subprocess.run(command[:-1] + [str(rerun)], capture_output=True, check=True)
    assert rerun.read_bytes() == out.read_bytes()


def test_the_command_without_arguments_prints_its_usage():
    command = [sys.executable, os.path.join(REPOSITORY, "tools", "extract_grammar_cases.py")]
    run = subprocess.run(command, capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr == "Usage:\n    python3 tools/extract_grammar_cases.py SOURCES_DIR [OUTPUT]\n"
