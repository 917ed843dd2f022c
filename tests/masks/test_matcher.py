"""The Matcher's masks against the naive definition (refimpl/masks/oracle.py).

Random grammars (regexes and Lark), random small vocabularies — tokens that split UTF-8
characters, empty and duplicate tokens, specials — and random token paths guided by the
mask: at every step the walk's mask equals the naive one, every token in the mask is
consumed, every other token is refused, and rollback restores the earlier mask.
"""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.blindspots import ambiguous_lark_grammars
from refimpl import Grammar, Matcher, Vocabulary, open_matcher
from refimpl.serving import backends
from tests.support.budget import examples
from tests.support.grammars import (
    cfg_grammar,
    cfg_grammars,
    cfg_tokens,
    check_path,
    regex_grammar,
    regexes,
    token_lists,
    vocabulary,
)


@settings(max_examples=examples(150))
@given(regexes, token_lists, st.lists(st.integers(0, 1000), max_size=6))
def test_regex_masks_equal_the_naive_mask(pattern, tokens, choices):
    g = regex_grammar(pattern)
    check_path(g, vocabulary(tokens), choices)


def test_gpt2_spot_checks():
    v = Vocabulary.load("gpt2")
    m = Matcher(Grammar.from_regex("[0-9]+"), v)
    mask = m.mask()
    assert all(v.tokens[t].isdigit() for t in mask.allowed())
    assert v.eos_token_id not in mask
    assert m.consume(v.tokens.index(b"12"))
    assert v.eos_token_id in m.mask()
    assert not m.consume(v.tokens.index(b" the"))


def test_utf8_splitting_tokens():
    v = Vocabulary.from_bytes([b"\xc3", b"\xa9", b"\xc3\xa9", b"e", b"\xe2"], eos_token_id=3)
    m = Matcher(Grammar.from_regex("é+"), Vocabulary.from_bytes(v.tokens + [b"<eos>"], eos_token_id=5))
    assert m.mask().allowed() == [0, 2]  # the first byte of é, or all of it; not \xe2
    assert m.consume(0)
    assert m.mask().allowed() == [1]
    assert not m.is_accepting()


def test_empty_duplicate_and_special_tokens():
    v = Vocabulary.from_bytes([b"", b"a", b"a", b"<s>", b"b"], eos_token_id=3, special_token_ids=[4])
    m = Matcher(Grammar.from_regex("a*"), v)
    assert m.mask().allowed() == [1, 2, 3]  # no empty token, both "a" ids, EOS; "b" is special
    assert not m.consume(0) and not m.consume(4)
    assert m.consume(3) and m.mask().allowed() == []  # after EOS nothing
    m.rollback(1)
    assert m.mask().allowed() == [1, 2, 3]


def test_mask_bytes_layout():
    v = Vocabulary.from_bytes([b"x"] * 40 + [b"a"], eos_token_id=0)
    mask = Matcher(Grammar.from_regex("a"), v).mask()
    assert mask.allowed() == [40]
    assert mask.to_bytes() == bytes([0, 0, 0, 0, 0, 1, 0, 0])


def test_forced_bytes_and_tokens():
    v = Vocabulary.load("gpt2")
    m = Matcher(Grammar.from_regex('\\{"name": "[a-z]+"\\}'), v)
    forced_bytes = m.forced_bytes()
    assert forced_bytes == b'{"name": "'
    forced = m.forced_tokens()
    assert forced and forced_bytes.startswith(v.decode(forced))
    # no token of the path could be replaced by a longer allowed one
    for t in forced:
        mask = m.mask()
        longer = [u for u in mask.allowed() if len(v.tokens[u]) > len(v.tokens[t]) and v.tokens[u].startswith(v.tokens[t])]
        assert t in mask and not longer, (v.tokens[t], [v.tokens[u] for u in longer])
        assert m.consume(t)
    assert forced_bytes == v.decode(forced) + m.forced_bytes()
    m2 = Matcher(Grammar.from_regex("ab(c|cd)"), Vocabulary.from_bytes([b"a", b"ab", b"abc", b"abcd", b"c"]))
    assert m2.forced_bytes() == b"abc"
    # "abc" is the longest token in the forced bytes, but "abcd" may come instead: nothing
    # is forced (forcing "ab" would rule out the one-token spelling "abcd")
    assert m2.forced_tokens() == []


def test_stats():
    m = Matcher(Grammar.from_regex("[0-9]+"), Vocabulary.load("gpt2"))
    m.mask()
    for key in ("trie_nodes_walked", "lexer_states", "transitions_computed", "rows", "items"):
        assert m.stats[key] > 0, key


def test_backends_are_opened_by_name():
    g, v = Grammar.from_regex("a+"), Vocabulary.from_bytes([b"a", b"aa", b"b"])
    with open_matcher(g, v) as m:
        assert isinstance(m, Matcher) and m.backend == "python" and m.mask().allowed() == [0, 1]
    with pytest.raises(ValueError, match=r"open_matcher\(grammar, vocab, backend='pypy'\)"):
        Matcher(g, v, backend="pypy")
    with pytest.raises(ValueError, match="backend 'nonesuch' is not available here"):
        open_matcher(g, v, backend="nonesuch")


def test_a_backend_plugin_that_fails_to_load_is_named(monkeypatch):
    """A broken plugin does not break refimpl, and asking for a backend says why it failed."""
    import importlib.metadata

    class BrokenPlugin:
        name = "broken"

        def load(self):
            raise ImportError("no module named 'broken_accel'")

    class Found:
        def select(self, group):
            return [BrokenPlugin()] if group == backends.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(importlib.metadata, "entry_points", Found)
    monkeypatch.setattr(backends, "PLUGIN_ERRORS", {})
    with pytest.raises(ValueError, match=r"plugins that failed to load: broken: ImportError: no module named 'broken_accel'"):
        open_matcher(Grammar.from_regex("a"), Vocabulary.from_bytes([b"a"]), backend="gpu")


@settings(max_examples=examples(200))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), max_size=6))
def test_cfg_masks_equal_the_naive_mask(ir, tokens, choices):
    g = cfg_grammar(ir)
    check_path(g, vocabulary(tokens), choices)


def naive_forced_bytes(grammar, prefix, cap):
    """The definition: while the text so far may not end, and exactly one byte may follow
    it, that byte — asked of a fresh recogniser each time (refimpl/masks/oracle.py's way)."""
    from refimpl.recognition.recognizer import Recognizer

    def reads(text):
        r = Recognizer(grammar.compiled)
        return r if r.consume_bytes(text) else None

    out = b""
    while len(out) < cap and not reads(prefix + out).is_accepting():
        live = [b for b in range(256) if reads(prefix + out + bytes([b]))]
        if len(live) != 1:
            break
        out += bytes(live)
    return out


FORCING_GRAMMARS = [
    # a lazy lexeme ends on the forced byte while every other byte restarts the greedy one
    # (the trials of the other bytes push their rows where the forced path's row is)
    'start: G B2 | l "y" "z"\nG: /a/\nl[lazy]: /ab/\nB2: "b"\n',
    'start: (A | B)+ A B\nA: "b"\nB: /b+/\n',  # the greedy lexer never ends: forced forever
    'start: "(" start ")" | "x"\n',
    'start: ("ab" | "abc") "d"\n',
]


@settings(max_examples=examples(120), deadline=None)
@given(st.one_of(st.sampled_from(FORCING_GRAMMARS), ambiguous_lark_grammars()), st.data())
def test_forced_bytes_are_the_definitions(source, data):
    """Matcher.forced_bytes (one trial per byte on the live recogniser, cycles repeated)
    against the definition on fresh recognisers, after a random prefix of allowed bytes."""
    import refimpl.masks.matcher as matcher_module

    g = Grammar.from_lark(source)
    m = Matcher(g, Vocabulary.load("bytes"))
    prefix = b""
    for _ in range(data.draw(st.integers(0, 6))):
        allowed = [t for t in m.mask().allowed() if t < 256]
        if not allowed:
            break
        t = data.draw(st.sampled_from(allowed))
        assert m.consume(t)
        prefix += bytes([t])
    cap = 40
    old, matcher_module.FORCED_BYTES_CAP = matcher_module.FORCED_BYTES_CAP, cap
    try:
        got = m.forced_bytes()
    finally:
        matcher_module.FORCED_BYTES_CAP = old
    assert got == naive_forced_bytes(g, prefix, cap), (source, prefix)


def test_forced_bytes_without_end_repeat_their_cycle():
    """Forced forever: found to repeat after a byte, not tried 256 x 100,000 times."""
    import refimpl.masks.matcher as matcher_module

    m = Matcher(Grammar.from_lark(FORCING_GRAMMARS[1]), Vocabulary.load("bytes"))
    assert m.consume(ord("b"))
    calls = []
    advance = m.recognizer.advance
    m.recognizer.advance = lambda *a: calls.append(a) or advance(*a)
    assert m.forced_bytes() == b"b" * matcher_module.FORCED_BYTES_CAP
    assert len(calls) <= 3 * 257
