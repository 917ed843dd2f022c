"""The slow tail of real schemas (issue 17, part 6): the benchmark script on a small corpus
laid out as SchemaStore's, and work counts of the fixes that are not JSON-schema ones
(the GBNF lexing check's walks kept across rounds of cuts). The JSON-schema fixes have
their own tests: test_jsonschema_disjoint.py, test_jsonschema_numbers.py,
test_jsonschema_bounds.py."""
import json
import os

from benchmarks import schemastore
from refimpl import Grammar
from refimpl.frontends.ebnf import gbnf_to_ir, lexing
from refimpl.frontends.ebnf.compiler import compile_rules
from refimpl.frontends.ebnf.gbnf import read_rules
from tests.support.paths import DATA


def _write(root, path, value):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(value if isinstance(value, str) else json.dumps(value))


def test_benchmark_on_a_small_corpus(tmp_path):
    root = str(tmp_path / "corpus")
    _write(root, "src/schemas/json/point.json", {"type": "object", "properties": {"x": {"type": "integer"}},
                                                 "required": ["x"], "additionalProperties": False})
    _write(root, "src/test/point/ok.json", {"x": 12})
    _write(root, "src/negative_test/point/bad.json", {"x": "twelve"})
    _write(root, "src/schemas/json/unique.json", {"type": "array", "uniqueItems": True})
    deps = {"p%d" % i: {"properties": {"t": {"const": i}}} for i in range(12)}
    _write(root, "src/schemas/json/product.json", {"type": "object", "dependencies": deps})
    _write(root, "src/schemas/json/broken.json", "{not json")
    run = schemastore.measure(root, timeout=20, profile=1, progress=False)
    by = {r["stem"]: r for r in run["schemas"]}
    assert by["point"]["compile"]["outcome"] == "ok"
    assert by["unique"]["compile"]["outcome"].startswith("SchemaError:uniqueItems")
    assert by["product"]["compile"]["outcome"] == "LimitError:schema_alternatives"
    assert by["broken"]["compile"]["outcome"] == "not JSON"
    inst = {os.path.basename(i["path"]): i for i in by["point"]["instances"]}
    assert inst["ok.json"]["accepted"] and inst["ok.json"]["read"] == len(b'{"x": 12}')
    assert not inst["bad.json"]["accepted"] and inst["bad.json"]["read"] == len(b'{"x": ')
    text = schemastore.report(run, 3)
    assert "| LimitError:schema_alternatives | 1 |" in text and "| consume µs/byte" in text
    assert by["product"]["compile"]["top"]  # the profile of the slowest compile names functions


def test_lexing_walks_are_kept_across_rounds():
    """llama.cpp's c.gbnf takes several rounds of cuts; a round walks only the (lexeme,
    other lexeme, following) triples no earlier round walked (without the cache: 0
    reused)."""
    data = os.path.join(DATA, "grammar_cases.json")
    with open(data, encoding="utf-8") as f:
        c_gbnf = next(c["grammar"] for c in json.load(f)["compile_cases"] if c["source"] == "grammars/c.gbnf")
    check = lexing.Conflicts()
    ir = compile_rules(read_rules(c_gbnf), "root", c_gbnf, conflicts=check)
    assert check.rounds >= 3
    assert check.reused > check.made // 2, (check.made, check.reused)
    assert ir.to_text() == gbnf_to_ir(c_gbnf).to_text()  # the same grammar as a compile of its own


def test_emptiness_is_breadth_first():
    """refimpl/regex/relevance.is_empty searches breadth first: `format: uri` within
    1..65536 characters (sourcery_yaml_schema: 4 s of depth-first search in simplify's
    emptiness checks) shows a witness within 300 states; depth first followed the
    length counter down one path and ran out of fuel (None)."""
    from refimpl.regex import is_empty

    g = Grammar.from_json_schema({"type": "string", "format": "uri", "minLength": 1, "maxLength": 65536})
    es = g.ir.es
    checked = 0
    for lexeme in g.ir.lexemes:
        if es.has_boolean[lexeme.expr]:
            es.caches[is_empty].clear()
            assert is_empty(es, lexeme.expr, 300) is False, lexeme.name
            checked += 1
    assert checked == 1
