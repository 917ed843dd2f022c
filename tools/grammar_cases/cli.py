"""Extract GBNF, xgrammar-EBNF and KBNF test cases into tests/data/grammar_cases.json.

Usage:
    python3 tools/extract_grammar_cases.py SOURCES_DIR [OUTPUT]

The script is run by hand (the JSON it writes is checked in); it reads local copies of
the engines' test files and never touches the network. SOURCES_DIR holds one folder per
source, each with a file COMMIT (the 40-hex commit the files were taken from) and the
files at their repository paths (see `sources`):

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

OUTPUT defaults to tests/data/grammar_cases.json of this repository. The files are read
in a fixed order (`EXTRACTORS`, then llama.cpp's example grammars, then xgrammar's tests),
so that the same sources always give the same bytes; a summary of what was extracted
and what was left out, by reason, is printed at the end.
"""
from __future__ import annotations

import json
import os
import sys
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Tuple

from .cases import STRING_KINDS, Collector, features
from .cpp import extract_llama_examples, extract_llama_integration, extract_llama_parser
from .python import extract_xgrammar
from .rust import extract_kbnf_engine_tests, extract_kbnf_syntax_tests
from .sources import LEGACY_NOTE, add_source

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUTPUT = os.path.join(REPOSITORY, "tests", "data", "grammar_cases.json")

# (source folder, file, extractor(collector, path, file, note)), in the order they are read
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
    """The content of grammar_cases.json for the checkouts in `sources_dir`."""
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
    """What was extracted, per format and source file, and what was left out, by reason."""
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

