"""Fuzz targets for the grammar texts: `Grammar.from_regex`, `from_lark`, `from_gbnf`,
`from_ebnf` (one target per dialect: xgrammar's, kbnf's) and `from_llguidance`.

An input's bytes are its text as UTF-8, read with `surrogateescape`: bytes that are not
UTF-8 become lone surrogates (U+DC80..U+DCFF), so the text holds code points no file
would, as a Python caller's str may. Each target keeps the property (hostile/property.py)
and, when the grammar compiles, checks it cheaply: on the 256 one-byte tokens
(`conformance.vectors.byte_vocabulary()`), the Matcher's mask equals `naive_mask` at the
start and along a short path of allowed bytes (`STEPS` of them, chosen from the text's
CRC, so a replay takes the same path).

A typed error must say where the problem is: a `GrammarError` with an offset inside its
text, a `RegexError` of the pattern given. A few problems belong to the whole grammar and
have no place in the text (a missing start rule; the top-level object's shape); they are
listed in `UNPOSITIONED`, and only those may come without an offset.

The seeds are the grammars of the tests and the docs: tests/data/grammar_cases.json
(GBNF, xgrammar, kbnf), tests/data/llguidance_lark_cases.json, the Rust regex crate's
cases (tests/data/rust-regex/cases.json), and the literal grammars passed to each entry
point in tests/regex/, tests/frontends/ and the docs' examples.
"""
from __future__ import annotations

import ast
import doctest
import json
import re
import zlib
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, Optional, Sequence

from refimpl.errors import GrammarError, RegexError

from ..masks import check_masks
from ..property import Violation, check
from . import Target

#: the allowed bytes consumed after the first mask, each followed by one more mask check
STEPS = 3

#: the GrammarErrors that belong to the whole grammar, not to a place in its text
UNPOSITIONED = re.compile("|".join([
    r"the start symbol '.*' derives no string",        # grammar/simplify.py: nothing productive
    r"rule 'start' is not defined",                    # lark: no start rule
    r"the grammar has no rule '.*' \(the start rule\)",  # GBNF, EBNF: no start rule (an empty text)
    r"the grammar has no start symbol",
    # llguidance's top-level object: its shape, named by field and grammar number
    r"the top-level grammar (must be|needs|field)",
    r"unknown field\(s\) in (the top-level grammar|grammar #)",
    r"empty grammars array",
    r"grammar #\d+",
    r"duplicate grammar name",
    # a JSON schema's error is placed by its JSON pointer, in the message
    r".*failed to compile JSON schema: .* at /",
]))

#: the repository holding tests/ and docs/ (a checkout; an installed package has no seeds)
ROOT = Path(__file__).resolve().parents[2]


def text_of(data: bytes) -> str:
    """The input as text: UTF-8, undecodable bytes as lone surrogates."""
    return data.decode("utf-8", "surrogateescape")


def data_of(text: str) -> bytes:
    """The bytes `text_of` reads back as `text` (a seed's encoding)."""
    return text.encode("utf-8", "surrogateescape")


# -- the property, and the masks ---------------------------------------------------------

def run_grammar(build: Callable[[str], Any], data: bytes) -> None:
    """Build a grammar from the input's text; check its errors or its masks (along
    allowed bytes the text's CRC picks: a replay takes the same path)."""
    text = text_of(data)
    grammar = check(lambda: _built(build, text))
    if grammar is not None:
        crc = zlib.crc32(data)
        check_masks(grammar, choices=[(crc >> (8 * i)) & 0xFF for i in range(4)], steps=STEPS + 1)


def _built(build: Callable[[str], Any], text: str) -> Any:
    """build(text), or None for a whole-grammar problem (UNPOSITIONED); a GrammarError's
    offset must lie in its text (a RegexError's pattern is the text given: _from_regex)."""
    try:
        return build(text)
    except GrammarError as e:
        if e.offset is None:
            if UNPOSITIONED.match(e.message):
                return None
            raise
        if not 0 <= e.offset <= len(e.text):
            raise Violation("GrammarError at offset %d of a text of %d characters: %s"
                            % (e.offset, len(e.text), e.message)) from None
        raise


# -- the targets -------------------------------------------------------------------------

def _from_regex(text: str) -> Any:
    from refimpl import Grammar

    try:
        return Grammar.from_regex(text)
    except RegexError as e:
        if e.pattern != text:
            raise Violation("RegexError of another pattern %r: %s" % (e.pattern, e.message)) from None
        raise


def _from_lark(text: str) -> Any:
    from refimpl import Grammar

    return Grammar.from_lark(text)


def _from_gbnf(text: str) -> Any:
    from refimpl import Grammar

    return Grammar.from_gbnf(text)


def _from_ebnf(dialect: str) -> Callable[[str], Any]:
    def build(text: str) -> Any:
        from refimpl import Grammar

        return Grammar.from_ebnf(text, dialect=dialect)
    return build


def _from_llguidance(text: str) -> Any:
    from refimpl import Grammar

    return Grammar.from_llguidance(text)


def _target(name: str, entry: str, build: Callable[[str], Any], seeds: Callable[[], Iterable[str]]) -> Target:
    return Target(name, entry, lambda data: run_grammar(build, data), lambda: _encoded(seeds))


def _encoded(seeds: Callable[[], Iterable[str]]) -> Iterator[bytes]:
    seen = set()
    for text in seeds():
        if text not in seen:
            seen.add(text)
            yield data_of(text)


# -- the seeds ---------------------------------------------------------------------------

def _json(relative: str) -> Any:
    path = ROOT / relative
    return json.loads(path.read_text("utf-8")) if path.exists() else {}


def _grammar_cases(fmt: str) -> Iterator[str]:
    data = _json("tests/data/grammar_cases.json")
    for case in data.get("cases", []) + data.get("compile_cases", []):
        if case["format"] == fmt:
            yield case["grammar"]


def _lark_cases(kind: str = "lark") -> Iterator[Any]:
    data = _json("tests/data/llguidance_lark_cases.json")
    for case in data.get("cases", []) + data.get("compile_cases", []):
        if case.get("grammar_kind", "lark") == kind:
            yield case["grammar"]


def literals(calls: Sequence[str], folders: Sequence[str]) -> Iterator[Any]:
    """The first argument of every call of a function named in `calls`, where it is a
    literal (or a module-level name bound to one), in the Python files under `folders`
    of tests/ and in the docs' examples (docs/*.md doctests)."""
    for folder in folders:
        for path in sorted((ROOT / folder).glob("**/*.py")):
            yield from _arguments(path.read_text("utf-8"), calls)
    for path in sorted((ROOT / "docs").glob("*.md")):
        examples = doctest.DocTestParser().get_examples(path.read_text("utf-8"))
        yield from _arguments("\n".join(e.source for e in examples), calls)


def _arguments(source: str, calls: Sequence[str]) -> Iterator[Any]:
    try:
        tree = ast.parse(source)
    except SyntaxError:  # docs' examples that are fragments
        return
    bound: Dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = _literal(node.value, {})
            if value is not None:
                bound[node.targets[0].id] = value
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and call.args and _called(call.func) in calls:
            value = _literal(call.args[0], bound)
            if value is not None:
                yield value


def _called(func: ast.expr) -> Optional[str]:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _literal(node: ast.expr, bound: Dict[str, Any]) -> Any:
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None
    return value if isinstance(value, (str, dict)) else None


def _texts(values: Iterable[Any]) -> Iterator[str]:
    return (v for v in values if isinstance(v, str))


def _regex_seeds() -> Iterator[str]:
    for case in _json("tests/data/rust-regex/cases.json").get("cases", []):
        yield case["regex"]
    yield from _texts(literals(("from_regex", "compile_pattern", "read_pattern"), ("tests/regex", "tests/masks")))


def _lark_seeds() -> Iterator[str]:
    yield from _lark_cases()
    yield from _texts(literals(("from_lark", "lark_to_ir"), ("tests/frontends/lark", "tests/masks")))


def _gbnf_seeds() -> Iterator[str]:
    yield from _grammar_cases("gbnf")
    yield from _texts(literals(("from_gbnf", "gbnf_to_ir"), ("tests/frontends/ebnf",)))


def _ebnf_seeds(dialect: str) -> Callable[[], Iterator[str]]:
    def seeds() -> Iterator[str]:
        yield from _grammar_cases(dialect)
        if dialect == "xgrammar":
            yield from _texts(literals(("from_ebnf", "ebnf_to_ir"), ("tests/frontends/ebnf",)))
    return seeds


def _llguidance_seeds() -> Iterator[str]:
    for value in literals(("from_llguidance", "top_level_to_ir"), ("tests/frontends/lark",)):
        yield value if isinstance(value, str) else json.dumps(value)
    for grammar in _lark_cases():
        yield json.dumps({"grammars": [{"lark_grammar": grammar}]})
    for schema in _lark_cases("json_schema"):
        yield json.dumps({"grammars": [{"json_schema": schema}]})


TARGETS = [
    _target("regex", "Grammar.from_regex", _from_regex, _regex_seeds),
    _target("lark", "Grammar.from_lark", _from_lark, _lark_seeds),
    _target("gbnf", "Grammar.from_gbnf", _from_gbnf, _gbnf_seeds),
    _target("ebnf-xgrammar", "Grammar.from_ebnf(dialect='xgrammar')", _from_ebnf("xgrammar"), _ebnf_seeds("xgrammar")),
    _target("ebnf-kbnf", "Grammar.from_ebnf(dialect='kbnf')", _from_ebnf("kbnf"), _ebnf_seeds("kbnf")),
    _target("llguidance", "Grammar.from_llguidance", _from_llguidance, _llguidance_seeds),
]
