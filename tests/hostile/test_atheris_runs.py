"""Each target under atheris for a short deterministic run — the `ci` profile,
`python -m hostile run TARGET --profile ci`: libFuzzer's -runs=300 -seed=1, in a child
process, as a campaign runs it — finds nothing: no input of the run breaks the property.
Skips where atheris is absent (PyPy; CPython without the `fuzz` extra); .ci/run installs
it and names it in MASKREF_REQUIRE_MODULES, so there these tests must run.
Measured on a shared 2-core machine: a few seconds per target."""
import json

import pytest

from hostile.lookup import registry
from tests.support.cli import run_module

pytest.importorskip("atheris")
TARGETS = sorted(registry())


@pytest.mark.parametrize("name", TARGETS)
def test_a_short_run_finds_nothing(name, tmp_path):
    results = tmp_path / "results.jsonl"
    code, stderr = run_module("hostile", "run", name, "--profile", "ci", "--quiet", "--results", str(results),
                              "--findings", str(tmp_path / "findings"))
    assert "Traceback" not in stderr, stderr
    [record] = [json.loads(line) for line in results.read_text().splitlines()]
    assert record["findings"] == [], "%s: the ci run found inputs breaking the property (findings in %s): %s" % (
        name, tmp_path / "findings", json.dumps(record["findings"], indent=1))
    assert code == 0, stderr
    assert record["executed"] >= 300 and record["cov"] > 0
