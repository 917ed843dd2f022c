"""Known differences (conformance/differences.py): declared over their predicates into a
peer's list, in order; classify reports the first that explains a divergence, or one per
differing token, and never lets a crashing predicate hide a disagreement; the difference
several peers share, `after-eos`."""
import pytest

from conformance.differences import AFTER_EOS, KnownDifferences, classify
from conformance.divergence import Divergence
from conformance.vectors import GrammarSpec, load_builtin

B = load_builtin("bytes")
A_B = GrammarSpec("regex", "[ab]")


def divergence(only_engine=(), only_refimpl=()):
    return Divergence(A_B, B, [], 0, list(only_engine), list(only_refimpl))


def test_declaring_over_a_predicate():
    known = KnownDifferences(AFTER_EOS)

    @known.declare("extra-x", "peer-bug", "the peer allows x", ends_path=True)
    def extra_x(d):
        return d.only_engine == [ord("x")]

    @known.declare("missing-b", "semantic", "the peer refuses b")
    def missing_b(d):
        return d.only_refimpl == [ord("b")]

    assert [k.name for k in known] == ["after-eos", "extra-x", "missing-b"]  # the order of declaration
    assert extra_x(divergence([ord("x")]))  # the predicate itself is kept
    x = known.named("extra-x")
    assert (x.kind, x.description, x.applies, x.ends_path) == ("peer-bug", "the peer allows x", extra_x, True)
    with pytest.raises(KeyError):
        known.named("nothing")
    with pytest.raises(AssertionError):
        known.declare("extra-x", "semantic", "declared twice")


def test_replacing_a_predicate_for_a_configuration():
    known = KnownDifferences(AFTER_EOS)
    known.declare("extra-x", "peer-bug", "the peer allows x", ends_path=True)(lambda d: d.only_engine == [ord("x")])
    original = known.named("extra-x").applies
    configured = known.replacing({original: lambda d: d.only_engine == [ord("y")]})
    assert [k.name for k in configured] == ["after-eos", "extra-x"] and configured[0] is AFTER_EOS
    y = configured.named("extra-x")
    assert (y.kind, y.description, y.ends_path) == ("peer-bug", "the peer allows x", True)
    assert y.applies(divergence([ord("y")])) and not y.applies(divergence([ord("x")]))
    assert known.named("extra-x").applies is original  # the list replaced from is unchanged


def test_classify_takes_the_first_that_explains_or_one_per_token():
    known = KnownDifferences()
    known.declare("crashes", "peer-bug", "a predicate that raises")(lambda d: 1 // 0)
    known.declare("extra-x", "peer-bug", "x")(lambda d: d.only_engine == [ord("x")] and not d.only_refimpl)
    known.declare("missing-b", "semantic", "b")(lambda d: d.only_refimpl == [ord("b")] and not d.only_engine)
    known.declare("any-extra", "semantic", "any extra token")(lambda d: bool(d.only_engine) and not d.only_refimpl)
    assert classify(known, divergence([ord("x")])).name == "extra-x"  # two explain it: the first declared
    assert classify(known, divergence([ord("y")])).name == "any-extra"
    # none explains the whole divergence, but each token has its own: the first of them
    assert classify(known, divergence([ord("x")], [ord("b")])).name == "extra-x"
    assert classify(known, divergence([], [ord("b"), ord("c")])) is None  # c is explained by none
    assert classify(known, divergence([], [ord("c")])) is None  # the crash explains nothing


def test_after_eos_means_the_output_ended():
    """An EOS that ended a stop="" lexeme does not end the output (after-eos does not apply)."""
    v = load_builtin("special")
    spec = GrammarSpec("lark", 'start: x "!"\nx[stop=""]: /[a-z]+/\n')
    eos = v.eos_token_id
    eaten = Divergence(spec, v, [ord("a"), eos], 2, [eos], [])
    ended = Divergence(spec, v, [ord("a"), eos, ord("!"), eos], 4, [eos], [])
    assert not eaten.after_eos and ended.after_eos
    assert AFTER_EOS.applies(ended) and not AFTER_EOS.applies(eaten)
