"""Turn the Rust `regex` crate's TOML test data into full-match cases: cases.json.

    python3 tests/data/rust-regex/convert.py        # rewrites cases.json beside this file

The TOML files (testdata/, copied verbatim from the regex crate; see README.md) describe
*searches*: a regex, a haystack, and the spans of the matches a search reports. maskref's
engine answers a different question, the full match: is the whole haystack in the
language of the regex? This script keeps the cases whose full-match answer follows from the
reported spans, soundly:

* True  when some reported match span is exactly (0, len(haystack)): the regex matched the
  whole haystack (any `^ $ \\A \\z` at the two ends of the regex hold there trivially);
* False when the search reported no match at all: a full match would have been found;
* otherwise the case is dropped ("undetermined"). In particular a leftmost-first search
  reporting (0, k) with k < len proves nothing: a later alternative could span it all.

Cases are dropped outright when they test something a full match cannot express: regex
sets (a list of regexes), `bounds` (a search window whose outside is context), and a
configured `line-terminator` (it changes what `.` matches). regex-lite.toml is dropped as a
whole: it tests the regex-lite crate, whose semantics differ on purpose (ASCII-only `\\d \\w
\\s` and case folding, no byte mode). `compiles = false` cases are kept with expected
"error".

Each kept case records the regex as it must be given to maskref (the `case-insensitive`
and `unicode = false` options become a leading `(?i)` / `(?-u)` flag group), the haystack
(`unescape = true` haystacks are unescaped the way the regex-test crate does, with bstr's
rules), the expected answer, and a list of syntactic *features* of the regex that a
full-match engine may legitimately reject (word boundaries, anchors away from the two
ends, ...): the test decides which rejections it accepts.

Runs on Python 3.9+ (tomllib, or tomli when tomllib is missing); the test itself reads only
the JSON, so no TOML parser is needed to run the tests.
"""
from __future__ import annotations

import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "testdata")
OUTPUT = os.path.join(HERE, "cases.json")


def unescape(text: str) -> bytes:
    """bstr's `unescape_bytes`: \\\\ \\n \\r \\t \\0 \\xNN; any other escape stays as written."""
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        nxt = text[i + 1 : i + 2]
        simple = {"\\": b"\\", "n": b"\n", "r": b"\r", "t": b"\t", "0": b"\0"}
        if nxt in simple and nxt:
            out += simple[nxt]
            i += 2
        elif nxt == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", text[i + 2 : i + 4]):
            out.append(int(text[i + 2 : i + 4], 16))
            i += 4
        else:
            out += b"\\"
            i += 1
    return bytes(out)


def overall_span(match) -> list:
    """The overall span of one reported match, in any of regex-test's notations."""
    if isinstance(match, dict):  # {id = 0, span = [s, e]} or {id = 0, spans = [[s, e], ...]}
        return list(match["span"]) if "span" in match else list(match["spans"][0])
    if len(match) == 2 and all(isinstance(x, int) for x in match):  # [s, e]
        return list(match)
    return list(match[0])  # [[s, e], [group 1], ...] with captures


_LEADING_FLAGS = re.compile(r"(?:\(\?[A-Za-z-]*\))*")


def features(pattern: str) -> list:
    """Syntactic features of a Rust regex that a full-match engine may reject.

    word-boundary: \\b \\B \\< \\> (and \\b{...}) outside a class; inner-anchor: ^ $ \\A \\z
    anywhere but the very start (after leading flag groups) or the very end;
    multi-line / crlf / verbose: the m / R / x flags set somewhere.
    """
    found: set = set()
    start = _LEADING_FLAGS.match(pattern).end()
    n = len(pattern)
    depth = 0  # class nesting
    i = 0
    while i < n:
        c = pattern[i]
        if c == "\\":
            if depth == 0:
                found.update(_escape_features(pattern, i, start))
            i += 2
            continue
        if depth:
            i, depth = _in_class(pattern, i, depth)
            continue
        if c == "[":
            depth = 1
            i = _class_opened(pattern, i + 1)
            continue
        if c in "^$":
            if not ((c == "^" and i == start) or (c == "$" and i == n - 1)):
                found.add("inner-anchor")
        elif c == "(" and pattern.startswith("(?", i):
            found.update(_flag_features(pattern, i))
        i += 1
    return sorted(found)


def _escape_features(pattern: str, i: int, start: int) -> list:
    """The features of the escape at pattern[i] == "\\", outside a class."""
    nxt = pattern[i + 1 : i + 2]
    if nxt and nxt in "bB<>":
        return ["word-boundary"]
    if nxt and nxt in "Az" and not ((nxt == "A" and i == start) or (nxt == "z" and i + 2 == len(pattern))):
        return ["inner-anchor"]
    return []


def _class_opened(pattern: str, i: int) -> int:
    """Skip a leading `^` and a literal first `]` of a class whose `[` ends before i."""
    if pattern[i : i + 1] == "^":
        i += 1
    if pattern[i : i + 1] == "]":
        i += 1
    return i


def _in_class(pattern: str, i: int, depth: int) -> tuple:
    """Step over pattern[i] inside a class (not an escape): (next i, new nesting depth)."""
    c = pattern[i]
    if c == "[":
        if pattern.startswith("[:", i):
            close = pattern.find(":]", i + 2)
            if close >= 0:
                return close + 2, depth
        return _class_opened(pattern, i + 1), depth + 1
    if c == "]":
        depth -= 1
    return i + 1, depth


def _flag_features(pattern: str, i: int) -> list:
    """The flags m / R / x set by the group opening at pattern[i] == "(", as features."""
    m = re.match(r"\(\?([A-Za-z-]*)[:)]", pattern[i:])
    if not m:
        return []
    on = m.group(1).split("-")[0]
    return [name for flag, name in (("m", "multi-line"), ("R", "crlf"), ("x", "verbose")) if flag in on]


def _toml_module():
    # Imported here, not at the top: pytest's --doctest-modules imports this file, and
    # PyPy 3.9 has neither tomllib nor, usually, tomli.
    try:
        import tomllib  # Python 3.11+
    except ImportError:  # pragma: no cover
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib


def convert() -> dict:
    tomllib = _toml_module()
    files = []
    for root, _dirs, names in os.walk(TESTDATA):
        files += [os.path.join(root, f) for f in names if f.endswith(".toml")]
    cases = []
    counts = collections.Counter()
    for path in sorted(files):
        rel = os.path.relpath(path, TESTDATA).replace(os.sep, "/")
        with open(path, "rb") as f:
            tests = tomllib.load(f).get("test", [])
        if rel == "regex-lite.toml":
            counts["total"] += len(tests)
            counts["dropped: regex-lite semantics"] += len(tests)
            continue
        for index, t in enumerate(tests, 1):
            counts["total"] += 1
            name = t.get("name") or str(index)
            regex = t["regex"]
            if isinstance(regex, list):
                counts["dropped: regex set"] += 1
                continue
            if "bounds" in t:
                counts["dropped: bounds"] += 1
                continue
            if "line-terminator" in t:
                counts["dropped: line-terminator"] += 1
                continue
            haystack = t["haystack"]
            data = unescape(haystack) if t.get("unescape") else haystack.encode("utf-8")
            if not t.get("compiles", True):
                expected = "error"
            else:
                spans = [overall_span(m) for m in t["matches"]]
                if [0, len(data)] in spans:
                    expected = True
                elif not spans:
                    expected = False
                else:
                    counts["dropped: full match undetermined"] += 1
                    continue
            flags = ""
            if t.get("case-insensitive"):
                flags += "i"
            if not t.get("unicode", True):
                flags += "-u"
            pattern = "(?%s)%s" % (flags, regex) if flags else regex
            case = {"file": rel, "name": name, "regex": pattern}
            try:
                case["haystack"] = data.decode("utf-8")
            except UnicodeDecodeError:
                case["haystack_hex"] = data.hex()
            case["expected"] = expected
            case["features"] = features(regex)
            cases.append(case)
            counts["kept"] += 1
    return {"counts": dict(sorted(counts.items())), "cases": cases}


def main() -> None:
    result = convert()
    lines = ['{"source": "rust-lang/regex testdata/ (MIT OR Apache-2.0); see README.md",']
    lines.append(' "counts": %s,' % json.dumps(result["counts"], sort_keys=True))
    lines.append(' "cases": [')
    body = [json.dumps(c, ensure_ascii=False) for c in result["cases"]]
    lines.append(",\n".join(body))
    lines.append("]}")
    with open(OUTPUT, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    sys.stdout.write("%s\n" % json.dumps(result["counts"], sort_keys=True))


if __name__ == "__main__":
    main()
