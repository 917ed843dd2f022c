"""tools/suite_coverage.py: the lines of each mutation group the default suite runs."""
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("suite_coverage", ROOT / "tools" / "suite_coverage.py")
suite_coverage = importlib.util.module_from_spec(spec)
sys.modules["suite_coverage"] = suite_coverage
spec.loader.exec_module(suite_coverage)
FIGURES = ROOT / "results" / "coverage" / "frontends.json"
COMMAND = "python tools/suite_coverage.py --groups frontends --out results/coverage/frontends.json " \
          "--docs docs/conformance.md"


def test_doctests():
    import doctest

    assert doctest.testmod(suite_coverage).failed == 0


def test_the_checked_in_figures_are_of_todays_suite_and_in_the_docs():
    """The figures are stale as soon as the suite changes (its digest); the docs' table is
    made from them."""
    figures = json.loads(FIGURES.read_text())
    assert figures["suite"] == suite_coverage.suite_digest(), "stale: " + COMMAND
    block = suite_coverage.mutation.block(ROOT / "docs" / "conformance.md", "frontends", "coverage")
    assert block == suite_coverage.table(figures["groups"]), "stale: " + COMMAND


def test_a_measurement_on_a_small_suite(tmp_path):
    """One Lark vector with a token range: special.py runs (the token range's ids), a
    Lark-only line of it (a GBNF `<text>` token's lookup of plain tokens) does not."""
    from conformance.vectors import GrammarSpec, byte_vocabulary, record, write_vectors

    spec = GrammarSpec("lark", 'start: "a" <[98-99]>\n')
    suite = tmp_path / "suite.jsonl"
    write_vectors(str(suite), [record(spec.compile(), spec, byte_vocabulary(), [97, 98], "tiny/0")])
    figures = suite_coverage.measure({"special": ("refimpl/tokens/special.py",)}, str(suite))
    special = figures["special"]["files"]["refimpl/tokens/special.py"]
    assert 0 < special["executed"] < special["statements"] == figures["special"]["statements"]
    source = (ROOT / "refimpl" / "tokens" / "special.py").read_text().splitlines()
    plain = next(i for i, line in enumerate(source, 1) if "if b == text]" in line)
    assert any(int(r.split("-")[0]) <= plain <= int(r.split("-")[-1]) for r in special["missing"]), special
