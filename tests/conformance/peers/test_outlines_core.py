"""outlines-core as an engine under test (conformance/peers/outlines_core/): it refuses what
it cannot run before touching outlines-core, and, where it is installed, the default suite
differs from it only by its known differences."""
import pytest

from conformance.divergence import Divergence
from conformance.generate import SUITE_DIR
from conformance.registry import get_engine
from conformance.runner import run_suite
from conformance.vectors import GrammarSpec, NotSupported, load_builtin


def test_special_tokens_and_two_eos_ids_are_not_supported():
    """A Lark grammar with special tokens and options, and a vocabulary with two EOS ids,
    are NotSupported, installed or not."""
    engine = get_engine("outlines-core")
    v = load_builtin("special")
    with pytest.raises(NotSupported):
        engine.start(GrammarSpec("lark", 'start: <think> x </think>\nx[stop=""]: /[a-z]+/\n'), v)
    with pytest.raises(NotSupported):
        engine.start(GrammarSpec("regex", "a+"), v)


def test_the_default_suite_differs_only_by_known_differences(tmp_path):
    engine = get_engine("outlines-core")
    if engine.unavailable_reason():
        pytest.skip(engine.unavailable_reason())
    report = run_suite(engine, SUITE_DIR, str(tmp_path), quiet=True)
    assert not report.failures(), report.table()
    assert report.total()["agree"] > 0


def test_no_answer_on_generic_values():
    """A vector outlines-core did not finish in time, on a schema whose regex is long (its
    Index build is what takes the time; the regex needs outlines-core to be written)."""
    from conformance.peers.outlines_core.differences import KNOWN_DIFFERENCES

    k = KNOWN_DIFFERENCES.named("no-answer-on-generic-values")
    b = load_builtin("bytes")
    timeout = "PeerTimeout: the vector was not done within 30 s"
    union = GrammarSpec("json_schema", schema={"type": ["array", "object"]})
    assert not k.applies(Divergence(union, b, [], 0, [], [ord("1")]))  # no timeout
    assert not k.applies(Divergence(GrammarSpec("regex", "a+"), b, [], 0, [], [], error=timeout))
    if get_engine("outlines-core").unavailable_reason():
        pytest.skip("outlines-core is not installed: its regex cannot be written")
    assert k.applies(Divergence(union, b, [], 0, [], [], error=timeout))
    small = GrammarSpec("json_schema", schema={"type": "object"})  # 6,900 characters: its Index in seconds
    assert not k.applies(Divergence(small, b, [], 0, [], [], error=timeout))
