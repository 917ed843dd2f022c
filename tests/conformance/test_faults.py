"""The injected faults (conformance/faults.py): their helpers, and the default suite
catches most of them (`run`; tests/conformance/test_fuzz.py: `fuzz` finds each)."""
from conformance.faults import FAULTS, incomplete_tail, shorten_negated_ranges
from conformance.generate import SUITE_DIR
from conformance.registry import get_engine
from conformance.runner import check_vector, run_suite
from conformance.vectors import GrammarSpec, record
from refimpl import Vocabulary


def test_run_catches_most_faults(tmp_path, capsys):
    """Each fault against the default suite, stopping at its first disagreement."""
    caught = []
    for name in sorted(FAULTS):
        report = run_suite(get_engine("fault:" + name), SUITE_DIR, str(tmp_path), quiet=True, first=True)
        if report.disagreements:
            caught.append(name)
    with capsys.disabled():
        print("\nrun on the default suite catches %d of %d faults: %s" % (len(caught), len(FAULTS), ", ".join(caught)))
    assert len(caught) >= len(FAULTS) - 1


def test_fault_helpers():
    assert shorten_negated_ranges("x[^a-c]+[a-c][^0-9a-z]") == "x[^a-b]+[a-c][^0-9a-y]"
    assert [incomplete_tail(b) for b in (b"a", b"\xc3", b"a\xe2\x82", "é".encode(), b"\xf0\x9f\x98")] == [0, 1, 2, 0, 3]
    v = Vocabulary.from_bytes([b"a", b"\xc3", b"<eos>"], eos_token_id=2)
    spec = GrammarSpec("regex", "a+")
    vector = record(spec.compile(), spec, v, [0], "t")
    assert check_vector(get_engine("fault:utf8-split"), vector).status == "disagree"
