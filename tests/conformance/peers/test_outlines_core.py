"""outlines-core as an engine under test (conformance/peers/outlines_core/): it refuses what
it cannot run before touching outlines-core, and, where it is installed, the default suite
differs from it only by its known differences."""
import pytest

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
