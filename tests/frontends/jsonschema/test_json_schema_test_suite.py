"""The JSON-Schema-Test-Suite (draft 2020-12), against maskref's JSON schema frontend and
llguidance's baseline on the same cases.

For every test, the grammar of the schema must accept the compact instance (byte by byte,
`Recognizer.consume_bytes` + `is_accepting`) iff the instance is valid. A schema that does
not compile (SchemaError: a keyword that cannot be enforced exactly, an unsatisfiable
schema, a remote $ref; or LimitError) counts as a compile error for each of its tests.

Targets: ZERO false positives (a grammar never accepts an invalid instance), and more
passes than llguidance's 929 on the 1,886 cases of its own baseline
(data/json_schema_suite_llguidance_baseline.json: its category per case). The suite's other
tests (data/json-schema-test-suite, not in the baseline) must have no false positive either.
"""
import collections
import json

import pytest

from refimpl import Grammar
from refimpl.errors import LimitError, SchemaError
from refimpl.frontends.jsonschema import dumps
from refimpl.recognition.recognizer import Recognizer
from tests.support.paths import DATA

DATA = DATA
BASELINE = json.loads((DATA / "json_schema_suite_llguidance_baseline.json").read_text(encoding="utf-8"))
SUITE = DATA / "json-schema-test-suite" / "tests" / "draft2020-12"
LLGUIDANCE_PASSES = BASELINE["meta"]["categories"]["pass"]  # 929

CATEGORIES = ("pass", "false_positive", "false_negative", "compile_error")


def suite_tests():
    """Every test of the suite folder: (file, group, test, schema, data, valid)."""
    out = []
    for path in sorted(SUITE.rglob("*.json")):
        name = path.relative_to(SUITE).as_posix()[:-5]
        for group in json.loads(path.read_text(encoding="utf-8")):
            for test in group["tests"]:
                out.append((name, group["description"], test["description"], group["schema"],
                            test["data"], test["valid"]))
    return out


class Runner:
    """Compiles each distinct schema once and classifies each (schema, instance, valid)."""

    def __init__(self):
        self.grammars = {}

    def grammar(self, schema):
        key = dumps(schema)
        if key not in self.grammars:
            try:
                self.grammars[key] = Grammar.from_json_schema(schema)
            except (SchemaError, LimitError) as e:
                self.grammars[key] = e
        return self.grammars[key]

    def classify(self, schema, instance: str, valid: bool) -> str:
        grammar = self.grammar(schema)
        if isinstance(grammar, Exception):
            return "compile_error"
        r = Recognizer(grammar.compiled)
        accepted = r.consume_bytes(instance.encode("utf-8")) and r.is_accepting()
        if accepted == valid:
            return "pass"
        return "false_positive" if accepted else "false_negative"


@pytest.fixture(scope="module")
def runner():
    return Runner()


def print_table(title, table, extra=None):
    print("\n" + title)
    header = "%-40s%10s%10s%10s%10s" % ("file", "pass", "false pos", "false neg", "compile")
    if extra:
        header += "   | llguidance: pass  fp  fn compile"
    print(header)
    total = collections.Counter()
    for name in sorted(table):
        total.update(table[name])
        line = "%-40s" % name + "".join("%10d" % table[name][c] for c in CATEGORIES)
        if extra:
            e = extra[name]
            line += "   | %4d %3d %3d %4d" % (e["pass"], e["false_positive"], e["false_negative"], e["compile_error"])
        print(line)
    print("%-40s" % "total" + "".join("%10d" % total[c] for c in CATEGORIES))
    return total


def llguidance_category(case) -> str:
    c = case["llg_baseline_category"]
    return "compile_error" if c.startswith("compile_error") or c == "skip_compile" else c


def test_suite_against_llguidance_baseline(runner):
    """The 1,886 cases of llguidance's baseline: zero false positives, more passes."""
    ours = collections.defaultdict(collections.Counter)
    theirs = collections.defaultdict(collections.Counter)
    false_positives = []
    only_llguidance = []
    for case in BASELINE["cases"]:
        got = runner.classify(case["schema"], case["input"], case["valid"])
        ours[case["file"]][got] += 1
        theirs[case["file"]][llguidance_category(case)] += 1
        if got == "false_positive":
            false_positives.append(case)
        if got != "pass" and case["llg_baseline_category"] == "pass":
            only_llguidance.append((case, got))
    total = print_table("JSON-Schema-Test-Suite, llguidance's 1,886 cases (maskref | llguidance)", ours, theirs)
    llg = collections.Counter(llguidance_category(c) for c in BASELINE["cases"])
    print("maskref:    %(pass)d pass, %(false_positive)d false positive, %(false_negative)d false negative, "
          "%(compile_error)d compile error" % total)
    print("llguidance: %(pass)d pass, %(false_positive)d false positive, %(false_negative)d false negative, "
          "%(compile_error)d compile error (skipped or failed)" % llg)
    print("llguidance passes, maskref does not (%d):" % len(only_llguidance))
    for case, got in only_llguidance:
        print("  %s: %s / %s / %s: %s" % (got, case["file"], case["group"], case["test"], case["input"][:60]))
    for case in false_positives:
        print("FALSE POSITIVE %s / %s / %s: %s" % (case["file"], case["group"], case["test"], case["input"][:80]))
    assert sum(total.values()) == len(BASELINE["cases"]) == 1886
    assert not false_positives
    assert total["pass"] > LLGUIDANCE_PASSES


def test_suite_tests_outside_the_baseline(runner):
    """The suite's other tests (optional ones mostly): no false positive either."""
    known = {(c["file"], c["group"], c["test"]) for c in BASELINE["cases"]}
    table = collections.defaultdict(collections.Counter)
    false_positives = []
    for name, group, test, schema, data, valid in suite_tests():
        if (name, group, test) in known:
            continue
        got = runner.classify(schema, dumps(data), valid)
        table[name][got] += 1
        if got == "false_positive":
            false_positives.append((name, group, test, dumps(data)))
    total = print_table("JSON-Schema-Test-Suite, the %d other tests" % sum(sum(c.values()) for c in table.values()),
                        table)
    assert total["pass"] > 0
    assert not false_positives, false_positives


def test_baseline_cases_are_the_suites():
    """The baseline's schemas, instances and labels are those of the suite files."""
    suite = {(name, group, test): (schema, data, valid) for name, group, test, schema, data, valid in suite_tests()}
    for case in BASELINE["cases"]:
        schema, data, valid = suite[(case["file"], case["group"], case["test"])]
        assert dumps(schema) == dumps(case["schema"])
        assert valid == case["valid"]
        assert json.loads(case["input"]) == data
