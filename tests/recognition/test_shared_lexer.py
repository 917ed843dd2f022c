"""The lexer is the grammar's: every Matcher of one Grammar shares its states and table
(Lexer.of), also from several threads.

Safety (docs/architecture.md): a lexer state and an expression are added under a lock,
and published — in the lexer's index and table, in the ExprSet's id map — only once every
per-state array holds them; reads take no lock (under the GIL, an item read is atomic).
The tests run matchers of one grammar in threads with a tiny switch interval and compare
every mask with a grammar of its own, run alone.
"""
import sys
import threading

import pytest

from refimpl import Grammar, Matcher, Vocabulary, open_matcher
from tests.support.grammars import JSONISH

TEXTS = [b'{"a": [1, 2.5, {"b": null}], "c": "x y"}', b'{"t": [true, false, {"k": -3}]}', b'{"deep": [[[[["z"]]]]]}']


def test_matchers_of_one_grammar_share_the_lexer():
    g, vocab = Grammar.from_lark(JSONISH), Vocabulary.load("gpt2")
    first = Matcher(g, vocab)
    assert first.consume_bytes(TEXTS[0][:12])
    first.mask()
    computed = first.stats["transitions_computed"]
    second = Matcher(g, vocab)
    assert second.recognizer.lexer is first.recognizer.lexer
    assert second.consume_bytes(TEXTS[0][:12])
    assert second.mask() == first.mask()
    assert second.stats["transitions_computed"] == computed  # nothing left to compute


def _masks(g, vocab, text, backend, cache=False):
    """The mask after each byte of the text (one Matcher)."""
    m = open_matcher(g, vocab, backend=backend, mask_cache=cache)
    out = []
    for i in range(len(text)):
        out.append(m.mask().to_bytes())
        assert m.consume_bytes(text[i:i + 1])
    return out


@pytest.mark.parametrize("cache", [False, True])  # with the cache, its masks are shared too
@pytest.mark.parametrize("backend", ["python", "native"])
def test_threads_share_a_grammar(backend, cache):
    import accel

    if accel.available_backends().get(backend) is not None:
        pytest.skip(accel.available_backends()[backend])
    vocab = Vocabulary.load("gpt2")
    expected = [_masks(Grammar.from_lark(JSONISH), vocab, t, backend) for t in TEXTS]  # each alone
    shared = Grammar.from_lark(JSONISH)
    results, errors = {}, []

    def run(k):
        try:
            results[k] = _masks(shared, vocab, TEXTS[k % len(TEXTS)], backend, cache)
        except Exception as e:  # reported below
            errors.append(e)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=run, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors
    for k in range(6):
        assert results[k] == expected[k % len(TEXTS)]
