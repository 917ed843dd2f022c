"""The matcher's lifecycle API (docs/matcher.md), on every backend that is here.

consume_tokens (all or nothing), try_consume_tokens (the longest accepted prefix),
validate_tokens (the state unchanged), reset (equal to a fresh matcher), clone and
copy.copy / copy.deepcopy (independent matchers), is_stopped and stop_reason (after EOS;
where no token at all is allowed), what happens after a stop, Mask as an iterable and
the reprs. The same tests run on refimpl's Matcher with the Python walker, the token index and the C
walker ("native"), and on the PyPy worker ("pypy"), each where available;
a property test checks that the three consume names agree with a step-by-step consume.
"""
import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel import native, pypy
from refimpl import Grammar, Mask, Matcher, Vocabulary, naive_mask, open_matcher
from refimpl.masks.matcher import NO_EXTENSION, NOT_STOPPED, STOPPED_BY_EOS
from tests.support.budget import examples
from tests.support.grammars import cfg_grammar, cfg_grammars, cfg_tokens, regex_grammar, regexes, token_lists, vocabulary

# a, b, ab, c, then EOS
VOCAB = Vocabulary.from_bytes([b"a", b"b", b"ab", b"c", b"</s>"], eos_token_id=4)
A, B, AB, C, EOS = range(5)
A_THEN_BS = "ab*"  # after "a": b or EOS, forever

BACKENDS = [
    pytest.param("python", id="python"),
    pytest.param("index", id="index"),  # the grammars below are regular
    pytest.param("native", id="native", marks=pytest.mark.skipif(
        native.unavailable_reason() is not None, reason=str(native.unavailable_reason()))),
    pytest.param("pypy", id="pypy", marks=pytest.mark.skipif(
        pypy.unavailable_reason() is not None, reason=str(pypy.unavailable_reason()))),
]


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture
def opened(backend):
    """open(pattern, vocab=VOCAB): a matcher for a regex on this backend; every
    matcher opened (and every clone registered with it) is closed at the end."""
    matchers = []

    def open_(source=A_THEN_BS, vocab=VOCAB):
        m = open_matcher(Grammar.from_regex(source), vocab, backend=backend)
        matchers.append(m)
        return m

    open_.matchers = matchers
    yield open_
    for m in matchers:
        m.close()


def state(m):
    """What every backend shows of a matcher's state."""
    return (m.mask().allowed(), m.is_accepting(), m.stop_reason, m.forced_bytes())


def inner_state(m):
    """refimpl's Matcher: its state itself (the recogniser's, the steps, budgets, EOS)."""
    rec = m.recognizer
    return (rec.state, rec.top, rec.bytes_consumed, list(m._steps), m.lexeme_tokens, m.stopped)


# -- consume_tokens, try_consume_tokens, validate_tokens ---------------------------------------


def test_consume_tokens_is_all_or_nothing(opened):
    m = opened()
    before = state(m)
    assert m.consume_tokens([A, B, C]) is False  # C is refused after "ab"
    assert state(m) == before
    assert m.consume_tokens([A, B, B]) is True
    assert state(m) == ([B, EOS], True, "", b"")
    assert m.consume_tokens([]) is True and m.consume_tokens([C]) is False


def test_try_consume_tokens_keeps_the_longest_accepted_prefix(opened):
    m, step = opened(), opened()
    assert m.try_consume_tokens([A, B, C, B]) == 2
    assert step.consume(A) and step.consume(B) and not step.consume(C)
    assert state(m) == state(step)
    assert m.try_consume_tokens(iter([C])) == 0 and state(m) == state(step)


def test_validate_tokens_leaves_the_state_unchanged(opened):
    m = opened()
    m.consume(A)
    before = state(m)
    assert m.validate_tokens([B, B, EOS, B]) == 3  # nothing after EOS
    assert state(m) == before
    assert m.validate_tokens([C]) == 0 and m.validate_tokens([]) == 0
    assert state(m) == before


def test_validate_tokens_leaves_refimpl_state_equal():
    m = Matcher(Grammar.from_lark('start: x "b"\nx[max_tokens=3]: /a+/'), VOCAB)
    m.consume(A)
    before = inner_state(m)
    assert m.validate_tokens([A, A, B]) == 3 and m.validate_tokens([A, A, A]) == 2
    assert inner_state(m) == before


# -- reset, clone, copy ---------------------------------------------------------------------


def test_reset_equals_a_fresh_matcher(opened):
    fresh, m = opened(), opened()
    m.consume_tokens([A, B, EOS])
    m.reset()
    assert state(m) == state(fresh)
    assert m.consume_tokens([A, B]) and fresh.consume_tokens([A, B]) and state(m) == state(fresh)


def test_reset_after_consume_bytes_and_on_a_fresh_matcher(opened):
    fresh, m = opened(), opened()
    m.reset()
    assert state(m) == state(fresh)
    assert m.consume_bytes(b"abb") and state(m) != state(fresh)
    m.reset()
    assert state(m) == state(fresh)
    with pytest.raises(ValueError):
        m.rollback(1)  # nothing left to undo


def test_reset_equals_a_fresh_refimpl_matcher():
    g = Grammar.from_regex(A_THEN_BS)
    m = Matcher(g, VOCAB)
    m.consume_tokens([A, B, EOS])
    m.reset()
    assert inner_state(m) == inner_state(Matcher(g, VOCAB))


@pytest.mark.parametrize("how", ["clone", "copy", "deepcopy"])
def test_a_clone_is_independent(opened, how):
    m = opened()
    m.consume(A)
    c = {"clone": lambda: m.clone(), "copy": lambda: copy.copy(m), "deepcopy": lambda: copy.deepcopy(m)}[how]()
    opened.matchers.append(c)
    assert type(c) is type(m) and c is not m
    assert state(c) == state(m)
    assert c.consume(EOS) and c.stop_reason == STOPPED_BY_EOS
    assert m.stop_reason == NOT_STOPPED and m.mask().allowed() == [B, EOS]
    assert m.consume(B) and m.consume(B)
    c.rollback(2)  # back to the start: the original has not moved
    assert c.mask().allowed() == [A, AB] and state(m) == ([B, EOS], True, "", b"")
    m.rollback(3)
    assert state(m) == state(c)


def test_a_clone_shares_the_grammar_and_copies_the_state():
    """Every attribute is either shared (Matcher.SHARED: what does not change) or a
    copy: a new attribute that holds state must not be shared by accident."""
    m = Matcher(Grammar.from_regex(A_THEN_BS), VOCAB, mask_cache=True)
    m.consume(A)
    m.is_stopped()
    for c in (m.clone(), copy.deepcopy(m)):
        assert set(vars(c)) == set(vars(m))
        for name, value in vars(m).items():
            if name in Matcher.SHARED:
                assert getattr(c, name) is value, name
            elif not isinstance(value, (int, str, bytes, tuple, frozenset, type(None))):
                assert getattr(c, name) is not value, name
        assert c.recognizer.parser is not m.recognizer.parser
        assert c.recognizer.lexer is m.recognizer.lexer and c.recognizer.grammar is m.recognizer.grammar
        assert inner_state(c) == inner_state(m)


def test_a_clone_has_no_tracer():
    from refimpl.trace import Tracer

    m = Matcher(Grammar.from_regex(A_THEN_BS), VOCAB)
    m.tracer = Tracer()
    assert m.clone().tracer is None and m.tracer is not None


def test_clones_of_a_private_worker_share_its_process():
    if pypy.unavailable_reason() is not None:
        pytest.skip(pypy.unavailable_reason())
    m = open_matcher(Grammar.from_regex(A_THEN_BS), VOCAB, backend="pypy", reuse=False)
    c = m.clone()
    m.close()
    assert c.process.dead is None and c.consume(A)  # the clone still has the process
    c.close()
    assert c.process.dead is not None


# -- stopping -------------------------------------------------------------------------------


def test_stop_reasons_and_what_happens_after_eos(opened):
    m = opened()
    assert not m.is_stopped() and m.stop_reason == NOT_STOPPED == ""
    assert m.consume_tokens([A, B]) and not m.is_stopped()
    assert m.consume(EOS)
    assert m.is_stopped() and m.stop_reason == STOPPED_BY_EOS == "eos"
    assert m.mask().allowed() == []  # nothing after EOS, not even EOS
    assert m.is_accepting() and m.forced_bytes() == b"" and m.forced_tokens() == []
    assert not m.consume(EOS) and not m.consume(B) and not m.consume_bytes(b"b")
    assert m.validate_tokens([EOS]) == 0 and not m.consume_tokens([B])
    assert m.stop_reason == STOPPED_BY_EOS
    m.rollback(1)  # over the EOS: no longer stopped
    assert not m.is_stopped() and m.mask().allowed() == [B, EOS]


def test_no_extension_where_the_grammar_is_complete_and_there_is_no_eos(opened):
    m = opened("ab", Vocabulary.from_bytes([b"a", b"b", b"ab"]))
    assert m.stop_reason == NOT_STOPPED
    assert m.consume(AB)
    assert m.is_stopped() and m.stop_reason == NO_EXTENSION == "no extension"
    assert m.is_accepting() and m.mask().allowed() == []
    m.rollback(1)
    assert m.stop_reason == NOT_STOPPED and m.mask().allowed() == [A, AB]


def test_no_extension_at_a_dead_end(opened):
    """After "a", only "b" continues, and no token is "b": stopped, not accepting."""
    m = opened("ab|ac", Vocabulary.from_bytes([b"a", b"ac", b"x", b"</s>"], eos_token_id=3))
    assert m.consume_bytes(b"ac") and m.stop_reason == "" and m.mask().allowed() == [3]
    m.rollback(1)
    assert m.consume(A) and m.mask().allowed() == []  # "c" alone is no token
    assert m.stop_reason == NO_EXTENSION and not m.is_accepting()
    m.rollback(1)
    assert m.stop_reason == NOT_STOPPED


def test_is_stopped_keeps_its_mask_for_the_state_only():
    """is_stopped() computes the mask where EOS is not allowed, and mask() returns it in
    the same state; after a move the mask is computed again."""
    g = Grammar.from_lark('start: "a" "b" "c"')
    vocab = Vocabulary.from_bytes([b"a", b"b", b"c", b"bc", b"</s>"], eos_token_id=4)
    m = Matcher(g, vocab)
    path = []
    for t in (0, 1, 2):
        assert not m.is_stopped()
        assert m.mask() == naive_mask(g, vocab, path)
        assert m.consume(t)
        path.append(t)
        assert not m.is_stopped() and m.mask() == naive_mask(g, vocab, path)
    assert m.consume(4) and m.is_stopped() and m.mask().allowed() == []
    m.rollback(2)
    assert m.is_stopped() is False and m.mask() == naive_mask(g, vocab, [0, 1])


# -- Mask, reprs ----------------------------------------------------------------------------


def test_mask_iterates_the_allowed_ids_ascending():
    flags = bytearray(70)
    for t in (69, 3, 31, 32, 0):
        flags[t] = 1
    mask = Mask(flags)
    assert list(mask) == [0, 3, 31, 32, 69] == mask.allowed() and len(mask) == 5
    assert list(Mask(bytearray(5))) == [] and len(Mask(bytearray(5))) == 0


def test_reprs():
    m = Matcher(Grammar.from_regex("a+"), VOCAB)
    assert repr(m) == "<Matcher backend='python' grammar=regex steps=0>"
    m.consume_tokens([A, A, EOS])
    assert repr(m) == "<Matcher backend='python' grammar=regex steps=3 stopped='eos'>"
    m = Matcher(Grammar.from_lark('start: "a"'), Vocabulary.from_bytes([b"a"]), backend="index")
    m.consume(0)
    assert repr(m) == "<Matcher backend='index' grammar=lark steps=1 stopped='no extension'>"
    assert repr(VOCAB) == "Vocabulary('custom', 5 tokens, eos=(4,))"


# -- the three consume names against a step-by-step consume ----------------------------------


def path_of(m, vocab, choices):
    """A token sequence mostly of allowed tokens, some not: a choice c picks the
    (c // 8)-th token of the vocabulary when c % 8 == 7, else the (c // 8)-th allowed one.
    Built on `m`, which is left after it."""
    seq = []
    for c in choices:
        allowed = m.mask().allowed()
        t = (c // 8) % len(vocab) if c % 8 == 7 or not allowed else allowed[(c // 8) % len(allowed)]
        seq.append(t)
        m.consume(t)
    return seq


def check_consume_names(grammar, vocab, choices, backend="python"):
    seq = path_of(Matcher(grammar, vocab), vocab, choices)
    step = open_matcher(grammar, vocab, backend=backend)
    n = 0
    for t in seq:
        if not step.consume(t):
            break
        n += 1
    fresh = open_matcher(grammar, vocab, backend=backend)
    start = inner_state(fresh)
    m = open_matcher(grammar, vocab, backend=backend)
    assert m.validate_tokens(seq) == n and inner_state(m) == start
    assert m.consume_tokens(seq) == (n == len(seq))
    assert inner_state(m) == (inner_state(step) if n == len(seq) else start)
    m.reset()
    assert m.try_consume_tokens(seq) == n
    assert inner_state(m) == inner_state(step) and m.mask() == step.mask()
    assert m.stop_reason == step.stop_reason
    c = m.clone()
    assert c.mask() == m.mask() and c.validate_tokens(seq) == m.validate_tokens(seq)


@settings(max_examples=examples(120), deadline=None)
@given(regexes, token_lists, st.lists(st.integers(0, 400), max_size=8))
def test_consume_names_agree_with_single_steps_on_regexes(pattern, tokens, choices):
    check_consume_names(regex_grammar(pattern), vocabulary(tokens), choices)


@settings(max_examples=examples(80), deadline=None)
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 400), max_size=8))
def test_consume_names_agree_with_single_steps_on_cfgs(ir, tokens, choices):
    check_consume_names(cfg_grammar(ir), vocabulary(tokens), choices)


@pytest.mark.skipif(native.unavailable_reason() is not None, reason=str(native.unavailable_reason()))
@settings(max_examples=examples(60), deadline=None)
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 400), max_size=8))
def test_consume_names_agree_on_the_native_backend(ir, tokens, choices):
    check_consume_names(cfg_grammar(ir), vocabulary(tokens), choices, backend="native")
