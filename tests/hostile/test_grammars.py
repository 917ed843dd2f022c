"""The grammar targets (hostile/targets/grammars.py): each has inputs that found bugs
(replayed by test_regressions.py) and seeds, and its checks catch what they are meant to."""
from pathlib import Path

import pytest

from hostile.property import Violation
from hostile.targets.grammars import TARGETS, data_of, literals, run_grammar, text_of
from refimpl import Grammar
from refimpl.errors import GrammarError

REGRESSIONS = Path(__file__).resolve().parents[2] / "hostile" / "regressions"
BY_NAME = {t.name: t for t in TARGETS}
NAMES = list(BY_NAME)
KEPT = sorted((name, path.name) for name in NAMES if (REGRESSIONS / name).is_dir()
              for path in (REGRESSIONS / name).iterdir())


def test_every_target_has_its_regressions_and_seeds():
    assert {name for name, _ in KEPT} == set(NAMES) - {"regex"}
    for target in TARGETS:
        seeds = list(target.seeds())
        assert len(seeds) >= 50, target.name
        assert len(set(seeds)) == len(seeds), target.name


def test_text_is_utf8_with_surrogateescape():
    assert text_of(b"a\xc3\xa9\xff") == "a\u00e9\udcff"
    assert data_of(text_of(b"a\xc3\xa9\xff")) == b"a\xc3\xa9\xff"


def test_seeds_come_from_the_tests_and_the_docs():
    calls = ("from_lark", "lark_to_ir")
    found = list(literals(calls, ("tests/frontends/lark",)))
    assert 'start: "a"+ "b"' in found  # docs/architecture.md's example
    assert any(isinstance(v, str) and "%ignore" in v for v in found)


@pytest.mark.parametrize("build", [
    lambda text: Grammar.from_lark(text),
    lambda text: (_ for _ in ()).throw(GrammarError("rule 'start' is not defined (no start rule found)")),
    lambda text: (_ for _ in ()).throw(GrammarError("bad", text, len(text))),
])
def test_a_grammar_or_a_placed_error_keeps_the_property(build):
    run_grammar(build, b'start: "a"+ "b"')


@pytest.mark.parametrize("build, message", [
    (lambda text: (_ for _ in ()).throw(GrammarError("bad")), "GrammarError without a position"),
    (lambda text: (_ for _ in ()).throw(GrammarError("bad", text, len(text) + 1)), "offset 4 of a text of 3"),
    (lambda text: {}[text], "KeyError"),
])
def test_misplaced_errors_and_crashes_are_violations(build, message):
    with pytest.raises(Violation, match=message):
        run_grammar(build, b"abc")


def test_a_wrong_mask_is_a_violation(monkeypatch):
    """The target compares the Matcher's masks with naive_mask: a Matcher that allows one
    token too many is caught."""
    from refimpl.masks import matcher

    mask = matcher.Matcher.mask

    def one_too_many(self):
        m = mask(self)
        m.flags[ord("z")] = 1
        return m

    monkeypatch.setattr(matcher.Matcher, "mask", one_too_many)
    with pytest.raises(Violation, match="Matcher allows b.az., the definition b.a."):
        run_grammar(lambda text: Grammar.from_lark(text), b'start: "a"')
