"""Each target under atheris for a short deterministic run — the `ci` profile,
`python -m hostile run TARGET --profile ci`: 16 of its seeds, then libFuzzer's -runs=100
-seed=1, in a child process, as a campaign runs it — finds nothing: no input of the run
breaks the property. An input over the time bound (libFuzzer's timeout) is not a failure
here, since these machines are shared and noisy (no timed tests): it is printed, and
measured by the campaigns (docs/hostile.md).
Skips where atheris is absent (PyPy; CPython without the `fuzz` extra); .ci/run installs
it and names it in MASKREF_REQUIRE_MODULES, so there these tests must run."""
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
    slow = [f for f in record["findings"] if f["signature"] == "libFuzzer: timeout"]
    if slow:
        print("%s: an input over the time bound (not failed here): %s" % (name, json.dumps(slow)))
    broken = [f for f in record["findings"] if f not in slow]
    assert broken == [], "%s: the ci run found inputs breaking the property (findings in %s): %s" % (
        name, tmp_path / "findings", json.dumps(broken, indent=1))
    assert code == (1 if slow else 0), stderr
    assert record["executed"] >= 100 and record["cov"] > 0
