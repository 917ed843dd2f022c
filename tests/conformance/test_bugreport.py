"""Bug reports that can be filed (conformance/bugreport.py): every peer bug of every peer
installed here, with a minimal case in the findings suite, becomes a standalone script
that uses only the peer's public API; run with this interpreter, it must still show the
bug. A peer that fixed one must be noticed: the test then fails and asks for the
difference to be marked fixed (its `fixed_in`), never skips it.

The peers CI installs (the `peers` extra: llguidance, kbnf, lm-format-enforcer) run here;
xgrammar, outlines-core and llama.cpp where they are installed (/work/venvs/peers)."""
import re
import subprocess
import sys

import pytest

from conformance import bugreport, filing
from conformance.__main__ import main
from conformance.bugreport import BugReportError, Case, resolve, script
from conformance.registry import get_engine
from conformance.vectors import read_vectors
from tests.support import cli
from tests.support.paths import ROOT


def with_case(engine_name):
    """The peer bugs of the engine that showed on a vector of conformance/suite/findings.jsonl
    when it was last surveyed (conformance/data/bugreports.json, docs/findings.md's table). One
    that no longer shows was fixed upstream (or its vector changed): the test fails. The
    others are skipped with their reason: no minimal case to file."""
    seen = filing.read_record()["peers"].get(engine_name, {})
    return {name for outcome in filing.OUTCOMES for name in seen.get(outcome, ())}


MASKREF_IMPORT = re.compile(r"^\s*(import|from)\s+(refimpl|conformance|maskref|accel|integrations)\b", re.M)

PEER_BUGS = [(e, k.name) for e in bugreport.PEERS if e in bugreport.DRIVERS
             for k in bugreport.peer_differences(e) if k.kind == "peer-bug"]

_CASES = {}


def cases_of(engine_name):
    """(the engine's peer-bug cases by name, its version), computed once per engine."""
    if engine_name not in _CASES:
        engine = get_engine(engine_name)
        reason = engine.unavailable_reason()
        if reason:
            _CASES[engine_name] = reason
        else:
            _CASES[engine_name] = (bugreport.peer_bug_cases(engine)[0], engine.version())
    found = _CASES[engine_name]
    if isinstance(found, str):
        pytest.skip("%s: %s" % (engine_name, found))
    return found


def run_script(text, tmp_path):
    path = tmp_path / "report.py"
    path.write_text(text, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    return proc.returncode, proc.stdout


def version_tuple(text):
    return tuple(int(p) for p in re.findall(r"[0-9]+", text)[:3])


@pytest.mark.parametrize("engine_name,name", PEER_BUGS)
def test_each_peer_bug_still_shows(engine_name, name, tmp_path):
    cases, version = cases_of(engine_name)
    difference = bugreport.peer_differences(engine_name)
    k = next(k for k in difference if k.name == name)
    if name not in cases:
        if k.fixed_in:
            return
        assert name not in with_case(engine_name), (
            "%s's %s no longer shows on its findings vector with %s: fixed upstream? Set fixed_in=%r on the known "
            "difference and say so in docs/findings.md" % (engine_name, name, version, version))
        pytest.skip("no minimal case of %s in conformance/suite/findings.jsonl" % name)
    text = script(cases[name], timeout=10)
    assert not MASKREF_IMPORT.search(text), "the script must use the peer's public API only"
    code, out = run_script(text, tmp_path)
    if k.fixed_in and version_tuple(version) >= version_tuple(k.fixed_in):
        assert code == 0 and "FIXED UPSTREAM" in out, out
        return
    assert code != 0 or "FIXED UPSTREAM" not in out, (
        "%s: %s is FIXED UPSTREAM in %s: set fixed_in=%r on the known difference and move it in docs/findings.md"
        "\n%s" % (engine_name, name, version, version, out))
    assert code == 1 and "BUG PRESENT" in out, out
    assert k.description in out and "required:" in out, out


def test_a_script_without_its_peer_says_so(tmp_path):
    """A case made by hand (no peer needed): the script compiles, imports nothing of maskref,
    prints what the grammar requires, and exits 2 where the peer is not installed."""
    vector = next(v for _, _, v in read_vectors(bugreport.FINDINGS_SUITE)
                  if v.id == "findings/xgrammar-six-fraction-digits/bytes/0")
    k = bugreport.peer_differences("xgrammar")[[d.name for d in bugreport.peer_differences("xgrammar")].index(
        "six-fraction-digits")]
    prefix = vector.path[:9]  # 1.123456: the seventh fraction digit comes next
    case = Case("xgrammar", "xgrammar 0.2.9", k, vector, prefix, wrongly_refused=list(range(48, 58)))
    text = script(case)
    compile(text, "report.py", "exec")
    assert not MASKREF_IMPORT.search(text)
    assert "SHOULD_ALLOW = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57]" in text
    assert "https://json-schema.org/draft/2020-12/json-schema-validation" in text  # its cites
    try:
        import xgrammar  # noqa: F401
    except ImportError:
        code, out = run_script(text, tmp_path)
        assert code == 2 and out.strip() == "xgrammar is not installed", out


def test_naming_a_finding():
    assert resolve("X2")[:2] == ("xgrammar", [bugreport.peer_differences("xgrammar")[
        [d.name for d in bugreport.peer_differences("xgrammar")].index("six-fraction-digits")]])
    assert resolve("six-fraction-digits")[0] == "xgrammar"
    engine, bugs, vectors = resolve("xgrammar-six-fraction-digits")
    assert engine == "xgrammar" and vectors == ["findings/xgrammar-six-fraction-digits/bytes/0"]
    assert all(k.kind == "peer-bug" for k in bugs)
    assert resolve("findings/lmfe-trailing-comma/bytes/0")[0] == "lm-format-enforcer"
    assert resolve("whole-string-pattern", "lm-format-enforcer")[0] == "lm-format-enforcer"
    assert resolve("whole-string-pattern", "lmfe")[0] == "lm-format-enforcer"  # the registry's aliases
    with pytest.raises(BugReportError, match="six-fraction-digits"):  # a typo: the close names
        resolve("six-fraction-digit")
    with pytest.raises(BugReportError, match="semantic difference"):
        resolve("json-whitespace", "xgrammar")
    with pytest.raises(BugReportError, match="several peers"):
        resolve("whole-string-pattern")
    with pytest.raises(BugReportError, match="no finding of llguidance"):
        resolve("X2", "llguidance")


def test_the_command_line(capsys, tmp_path):
    cli.fails(main, capsys, ["bugreport", "six-fraction-digit"], "six-fraction-digits")
    cli.fails(main, capsys, ["bugreport", "json-whitespace", "--engine", "xgrammar"], "semantic")
    cli.fails(main, capsys, ["bugreport", "lazy-after-greedy", "--engine", "refimpl"], "refimpl", "llguidance")
    pytest.importorskip("llguidance")
    out = tmp_path / "report.py"
    assert main(["bugreport", "L1", "--backend", "llguidance", "--out", str(out)]) == 2  # L1 is a semantic one
    assert main(["bugreport", "lazy-after-greedy", "--out", str(out)]) == 0
    code, printed = run_script(out.read_text(encoding="utf-8"), tmp_path)
    assert code == 1 and "BUG PRESENT in llguidance" in printed


def test_the_documented_example_is_what_bugreport_writes(capsys):
    """docs/conformance.md, "Filing a bug": its excerpt of a script is in the script
    bugreport writes now, line for line."""
    pytest.importorskip("llguidance")
    doc = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    section = doc[doc.index("### Filing a bug"):]
    excerpt = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert main(["bugreport", "lazy-after-greedy", "--engine", "llguidance"]) == 0
    written = capsys.readouterr().out.splitlines()
    for line in excerpt.splitlines():
        if line.strip() and line.strip() != "...":
            assert line in written, line
