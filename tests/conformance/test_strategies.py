"""The fuzzer's strategies (conformance/strategies.py) draw each construct of the Lark
grammars they are meant to (special tokens, token ids and ranges, lexeme options,
sub-grammars)."""
import re

import pytest

from refimpl import MaskrefError, Matcher


class _Found(Exception):
    pass


def _first(mode, condition):
    """The first (spec, vocabulary) the fuzzer's strategy draws, with a fixed seed, that
    satisfies `condition` and that refimpl compiles and binds to the vocabulary."""
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from conformance.strategies import examples

    @seed(0)
    @settings(database=None, max_examples=2000, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(examples(["lark"], mode))
    def probe(drawn):
        spec, vocab = drawn
        if condition(spec.source, vocab):
            try:
                Matcher(spec.compile(), vocab)
            except MaskrefError:
                return
            raise _Found(drawn)

    with pytest.raises(_Found) as found:
        probe()
    return found.value.args[0]


# constructs the Lark strategy must generate: (name, vocabulary mode, condition on the source)
STRATEGY_CONSTRUCTS = [
    ("special token by name", "special", lambda s, v: "<think>" in s or "<|" in s),
    ("EOS by name", "small", lambda s, v: "<eos>" in s),
    ("token id", "special", lambda s, v: re.search(r"<\[\d+\]>", s)),
    ("token range", "special", lambda s, v: re.search(r"<\[\d+-\d+\]>", s)),
    ("token list", "special", lambda s, v: re.search(r"<\[\d+,\d+\]>", s)),
    ("negated range", "special", lambda s, v: "<[^" in s),
    ("any token", "special", lambda s, v: "<[*]>" in s),
    ("lazy", "special", lambda s, v: "[lazy" in s),
    ("stop string", "special", lambda s, v: 'stop="c"' in s or 'stop="b"' in s),
    ("stop regex", "special", lambda s, v: "stop=/" in s),
    ("suffix", "special", lambda s, v: "suffix=" in s),
    ('stop=""', "special", lambda s, v: 'stop=""' in s),
    ("max_tokens", "special", lambda s, v: "max_tokens=" in s),
    ("temperature", "special", lambda s, v: "temperature=" in s),
    ("capture", "special", lambda s, v: "capture" in s),
    ("sub-grammar with its own %ignore", "special", lambda s, v: re.search(r"%lark \{[^}]*%ignore", s)),
    ("sub-grammar with a special token", "special", lambda s, v: re.search(r"%lark \{[^}]*<", s)),
    ("the special vocabulary in mixed mode", "mixed", lambda s, v: v.name == "special" and "<" in s),
]


@pytest.mark.parametrize("name,mode,condition", STRATEGY_CONSTRUCTS, ids=[c[0] for c in STRATEGY_CONSTRUCTS])
def test_strategies_generate_each_construct(name, mode, condition):
    spec, vocab = _first(mode, condition)
    assert condition(spec.source, vocab)
    m = Matcher(spec.compile(), vocab)
    assert len(m.mask()) >= 0  # the grammar binds and runs
