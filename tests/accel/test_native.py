"""The "native" backend (accel/_native.c) against the reference walk (refimpl/masks/walk.py).

The C walker must be the Python walker, only faster: identical masks, the same number of
trie nodes walked, and the same calls into the lexer and the parser — so the Matchers'
whole `stats` (lexer states, transitions computed, rows built and reused) agree too. Checked
on random grammars, vocabularies and token paths (the strategies of test_matcher.py),
with and without slices, on the real GPT-2 and Tekken vocabularies, and on adversarial
inputs, where it must raise an exception and never crash the interpreter.

When the extension is not built (no C compiler at install time) this module is skipped —
unless MASKREF_REQUIRE_NATIVE=1 (CI on CPython), where a missing extension is a failure.
Build it with `pip install -e .` (or `python setup.py build_ext --inplace`).

Safety runs by hand (not part of the normal run):
    PYTHONMALLOC=debug python -X dev -m pytest tests/accel/test_native.py -p no:cacheprovider -o addopts=""
"""
import os
import sys
from array import array

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from accel import native  # noqa: E402
from refimpl import Grammar, Matcher, Vocabulary, open_matcher  # noqa: E402
from refimpl.errors import LimitError  # noqa: E402
from refimpl.limits import Limits  # noqa: E402
from refimpl.masks.walk import walk as python_walk  # noqa: E402
from refimpl.recognition.earley import closure  # noqa: E402
from refimpl.recognition.lexer import words as lexer_words  # noqa: E402
from refimpl.tokens.trie import TokenTrie  # noqa: E402

if native.unavailable_reason() is not None:
    if os.environ.get("MASKREF_REQUIRE_NATIVE") == "1":
        pytest.fail("%s — and MASKREF_REQUIRE_NATIVE=1 requires it" % native.unavailable_reason(), pytrace=False)
    pytest.skip(native.unavailable_reason() + " (build it: pip install -e .)", allow_module_level=True)

from accel import _native  # noqa: E402
from tests.support.budget import examples  # noqa: E402
from tests.support.grammars import (  # noqa: E402
    JSONISH,  # noqa: E402
    cfg_grammar,
    cfg_grammars,
    cfg_tokens,
    lockstep,
    regex_grammar,
    regexes,
    token_lists,
    vocabulary,
    work,
)
from tests.support.paths import DATA

native_walk = _native.walk
ERRORS = (TypeError, ValueError, IndexError, KeyError, BufferError)


def test_registered_as_a_backend():
    import accel

    assert accel.available_backends()["native"] is None
    m = open_matcher(Grammar.from_regex("a+"), Vocabulary.from_bytes([b"a", b"aa", b"b"]), backend="native")
    assert isinstance(m, Matcher) and m._walk is native_walk and m.mask().allowed() == [0, 1]


# -- random grammars, vocabularies and paths ---------------------------------------------

slice_lists = st.one_of(
    st.none(),  # the default: JSON_SLICES
    st.just([]),
    st.lists(st.sampled_from(["[a-c]+", "[0-9]", '[^"]{1,3}', " +", "(?s:.)", "[ab]"]), min_size=1, max_size=3),
)


def compare_path(grammar, vocab, choices, slices):
    """A random path (test_matcher.lockstep) with both backends: the same masks and stats."""
    py = open_matcher(grammar, vocab, backend="python", slices=slices)
    nat = open_matcher(grammar, vocab, backend="native", slices=slices)
    lockstep(py, nat, vocab, choices, same_stats=True)


@settings(max_examples=examples(150))
@given(regexes, token_lists, st.lists(st.integers(0, 1000), max_size=6), slice_lists)
def test_regex_paths_equal_the_python_walk(pattern, tokens, choices, slices):
    g = regex_grammar(pattern)
    compare_path(g, vocabulary(tokens), choices, slices)


@settings(max_examples=examples(200))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), max_size=8), slice_lists)
def test_cfg_paths_equal_the_python_walk(ir, tokens, choices, slices):
    g = cfg_grammar(ir)
    compare_path(g, vocabulary(tokens), choices, slices)


# -- the real vocabularies ---------------------------------------------------------------

DATA = DATA / "vocab"


@pytest.fixture(scope="module", params=["gpt2", "tekken"])
def real_vocab(request):
    if request.param == "gpt2":
        return Vocabulary.load("gpt2")
    return Vocabulary.load(str(DATA / "mistral_nemo_tekken.json.gz"))


@pytest.mark.parametrize("pattern", ['[^"]*', "[0-9]+", r'"[^"\\\x00-\x1F\x7F]*"'])
@pytest.mark.parametrize("slices", [[], None])
def test_real_vocab_regexes(real_vocab, pattern, slices):
    g = Grammar.from_regex(pattern)
    py = open_matcher(g, real_vocab, backend="python", slices=slices)
    nat = open_matcher(g, real_vocab, backend="native", slices=slices)
    for prefix in (b"", b'"', b'"ab'):
        if not (py.consume_bytes(prefix) and nat.consume_bytes(prefix)):
            continue
        mask = nat.mask()
        assert py.mask() == mask
        assert work(py.stats) == work(nat.stats)
        assert mask.allowed()
        py.rollback(1 if prefix else 0)
        nat.rollback(1 if prefix else 0)


@pytest.mark.parametrize(
    "prefix", [b"", b"{", b'{"ke', b'{"key": "val', b'{"key": [1, 2', b'{"key": tr', b'{"a": {"b": -1.5 ', b'{"a": 1}']
)
@pytest.mark.parametrize("slices", [[], None])
def test_real_vocab_json(real_vocab, prefix, slices):
    g = Grammar.from_lark(JSONISH)
    py = open_matcher(g, real_vocab, backend="python", slices=slices)
    nat = open_matcher(g, real_vocab, backend="native", slices=slices)
    assert py.consume_bytes(prefix) and nat.consume_bytes(prefix)
    assert py.mask() == nat.mask()
    assert work(py.stats) == work(nat.stats)


def test_real_vocab_json_path():
    """A path of GPT-2 tokens through a JSON-like grammar: pushes, pops and reused rows."""
    v = Vocabulary.load("gpt2")
    g = Grammar.from_lark(JSONISH)
    compare_path(g, v, [7, 123, 4, 45, 999, 3, 77, 4, 4, 12, 500, 31], slices=None)


# -- the recogniser's short path, taken in C ----------------------------------------------
#
# Where the Recognizer's `advance`/`restart` would only place a row pushed before (or scan
# an %ignore that pushes nothing), the C walk does it without calling them
# (`Recognizer.short_path`): the same rows placed in the same places, the same counts.


def counting_hooks(rec):
    """A list that the recogniser's `advance` and `restart` append their arguments to when
    called (the walks read the hooks as attributes of the recogniser)."""
    calls = []
    advance, restart = rec.advance, rec.restart
    rec.advance = lambda s, top, b: calls.append((s, top, b)) or advance(s, top, b)
    rec.restart = lambda s, top: calls.append((s, top)) or restart(s, top)
    return calls


def same_recognizers(py, nat):
    """The same rows placed (by identity: the matchers of one grammar share their rows,
    earley.py's RowTree), above the top too, and the same lexemes ended."""
    a, b = py.recognizer, nat.recognizer
    assert [id(r) for r in a.parser.rows] == [id(r) for r in b.parser.rows]
    assert a.lexemes_ended == b.lexemes_ended


def test_short_path_calls_no_hook_on_a_repeated_mask():
    """A second mask in one state (every row it pushes was pushed by the first): the
    Python walk calls the hooks dozens of times, the C walk not once — the same mask,
    stats and rows."""
    v = Vocabulary.load("gpt2")
    g = Grammar.from_lark(JSONISH)
    py = open_matcher(g, v, backend="python", slices=[])
    nat = open_matcher(g, v, backend="native", slices=[])
    for prefix in (b'{"key": [1, 2', b'{"key": "ab", ', b'{"a": {"b": -1.5 '):
        assert py.consume_bytes(prefix) and nat.consume_bytes(prefix)
        assert py.mask() == nat.mask()
        py_calls, nat_calls = counting_hooks(py.recognizer), counting_hooks(nat.recognizer)
        flags = []
        for fn, m in ((python_walk, py), (native_walk, nat)):
            rec = m.recognizer
            flags.append(bytearray(len(v)))
            fn(v.trie, rec.lexer, rec, rec.state, rec.top, flags[-1])
        assert flags[0] == flags[1]
        assert work(py.stats) == work(nat.stats)
        same_recognizers(py, nat)
        assert py_calls and nat_calls == [], (py_calls, nat_calls)
        py.reset()
        nat.reset()
        del py.recognizer.advance, py.recognizer.restart, nat.recognizer.advance, nat.recognizer.restart


def test_short_path_off_while_tracing():
    """`short_path()` is None while a tracer listens: the tracer hears of every scan."""
    from refimpl.recognition.recognizer import Recognizer
    from refimpl.trace import Tracer

    rec = Recognizer(Grammar.from_lark(JSONISH).compiled)
    rows, greedy, lazy, skips, once, hidden = rec.short_path()
    assert rows is rec.parser.rows and greedy is rec.lexer.greedy_accepting and skips == rec.lexer.skip_mask
    rec.tracer = Tracer()
    assert rec.short_path() is None


# Lark grammars where recognizer.py leaves the short path, or takes its rarer branches: an
# %ignore matched once (a copy of the row pushed), a hidden stop (the hook's), lazy lexemes
# (a second scan in one advance), an %ignore that pushes nothing.
SHORT_PATH_GRAMMARS = [
    '%llguidance {"ignore_once": true}\nstart: "A" (x ",")* x "!"\nx: /[a-b]+/\n%ignore /[ ]{1,2}/',
    'start: (x ".")+\nx[stop="END"]: /[a-b ]*/',
    'start: (x y)+\nx[lazy]: /[ab]*b/\ny: "," | " " | "a"',
    'start: (x | "," | y)+\nx[lazy]: /a+/\ny: /[ab]+/\n%ignore /[ ]+/',
    'start: x (("," | ", ") x)*\nx: /[a-b]+/ | "END"\n%ignore / /',
]
short_path_tokens = st.lists(
    st.sampled_from(["A", "!", ",", " ", "  ", ", ", "a", "b", "ab", "ba", "bb", "END", "EN", "D", ".", "a.", "b,", "A ",
                     "b END", "a,b", "ab."]).map(str.encode),
    min_size=1, max_size=16,
)


@pytest.mark.parametrize("source", SHORT_PATH_GRAMMARS)
@settings(max_examples=examples(60))
@given(tokens=short_path_tokens, choices=st.lists(st.integers(0, 1000), max_size=8), slices=slice_lists)
def test_short_path_paths_equal_the_python_walk(source, tokens, choices, slices):
    g = Grammar.from_lark(source)
    vocab = vocabulary(tokens)
    py = open_matcher(g, vocab, backend="python", slices=slices)
    nat = open_matcher(g, vocab, backend="native", slices=slices)
    lockstep(py, nat, vocab, choices, same_stats=True, check=same_recognizers)


@settings(max_examples=examples(100))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), max_size=8))
def test_cfg_short_path_places_the_same_rows(ir, tokens, choices):
    g = cfg_grammar(ir)
    vocab = vocabulary(tokens)
    py = open_matcher(g, vocab, backend="python", slices=[])
    nat = open_matcher(g, vocab, backend="native", slices=[])
    for choice in list(choices) + [None]:
        mask = py.mask()
        assert mask == nat.mask()
        same_recognizers(py, nat)
        allowed = [t for t in mask.allowed() if t not in vocab.eos_token_ids]
        if choice is None or not allowed:
            break
        t = allowed[choice % len(allowed)]
        assert py.consume(t) and nat.consume(t)


def test_short_path_hooks_that_misbehave():
    """A `short_path()` that answers garbage or raises, a `short_path_taken` that raises:
    the error propagates, and a walk that raises still hands its counts back."""
    v = Vocabulary.load("gpt2")
    g = Grammar.from_lark(JSONISH)
    m = open_matcher(g, v, backend="native", slices=[])
    assert m.consume_bytes(b'{"key": [1, 2')
    m.mask()
    rec = m.recognizer
    for garbage in ("x", (1, 2), (rec.parser.rows, [], [], 0, 0, "0"), ([], [], [], 0, 0)):
        rec.short_path = lambda garbage=garbage: garbage
        with pytest.raises(TypeError):
            m.mask()
    rec.short_path = lambda: 1 / 0
    with pytest.raises(ZeroDivisionError):
        m.mask()
    del rec.short_path
    rec.short_path_taken = lambda reused, ended: [][0]
    with pytest.raises(IndexError):
        m.mask()


class StandInRow:
    __slots__ = ("name", "children", "lexer_start")

    def __init__(self, name, lexer_start, children=None):
        self.name, self.lexer_start, self.children = name, lexer_start, children or {}


def stand_in_recognizer(lexer):
    """recognizer.py's Recognizer (its advance, restart, scan and short path) over the
    stand-in lexer ab_lexer() and a few rows pushed before: [ab]+ (lexeme 0, greedy in
    state 2) and c (lexeme 1, lazy in state 3), each lexeme's row after it known."""
    from types import SimpleNamespace

    from refimpl.recognition.recognizer import Recognizer

    lexer.greedy_accepting, lexer.lazy_accepting = [0, 0, 1, 0], [0, 0, 0, 2]
    lexer.skip_mask = lexer.once_skip_mask = 0
    lexer.step = lambda s, b: lexer.table[s << 8 | b] if lexer.table[s << 8 | b] >= 0 else lexer.fill(s, b)
    after_ab_c = StandInRow("ab c", 1)
    root = StandInRow("", 1, {1: StandInRow("ab", 1, {2: after_ab_c}), 2: StandInRow("c", 1)})
    rec = Recognizer.__new__(Recognizer)
    rec.lexer, rec.parser = lexer, SimpleNamespace(rows=[root], rows_reused=0)
    rec.tracer, rec.hidden_mask, rec.lexemes_ended = None, 0, 0
    rec._short_parts = rec._push_parts = None  # short_path's and push_path's, made on first use
    return rec


def test_short_path_against_recognizer_lines():
    """The C short path against recognizer.py's own lines on hand-made rows: a restart, an
    advance that restarts and then ends a lazy lexeme (two rows placed), a lazy end
    alone. The same bits, rows, counts and transitions filled; no hook called from C."""
    runs = []
    for fn in (python_walk, native_walk):
        lexer = ab_lexer()
        rec = stand_in_recognizer(lexer)
        calls = counting_hooks(rec)
        allowed = bytearray(8)
        walked = fn(small_trie(), lexer, rec, 1, 1, allowed)
        runs.append((walked, bytes(allowed), lexer.fills, [r.name for r in rec.parser.rows], rec.parser.rows_reused,
                     rec.lexemes_ended, calls))
    py, nat = runs
    assert py[:6] == nat[:6]
    assert py[3] == ["", "c", "ab c"] and py[4] == py[5] == 4  # rows placed: once by restart, three times by advance
    assert py[6] and nat[6] == []


def test_short_path_counts_handed_back_when_the_walk_raises():
    """A walk that raises after the short path was taken: the exception propagates, and
    the counts so far reach the recogniser, as recognizer.py's lines would have counted."""

    class Boom(Exception):
        pass

    trie = TokenTrie(Vocabulary.from_bytes([b"abc", b"abd"]))
    counts = []
    for fn in (python_walk, native_walk):
        lexer = ab_lexer()

        def fill(s, b, fill=lexer.fill):
            if (s, b) == (1, 100):  # "abd": d after the restart
                raise Boom()
            return fill(s, b)

        lexer.fill = fill
        rec = stand_in_recognizer(lexer)
        with pytest.raises(Boom):
            fn(trie, lexer, rec, 1, 1, bytearray(2))
        counts.append((rec.parser.rows_reused, rec.lexemes_ended, [r.name for r in rec.parser.rows]))
    assert counts[0] == counts[1] == (3, 3, ["", "ab", "ab c"])


def test_short_path_keeps_no_reference():
    """Repeated masks on the short path leave no memory behind (rows, keys, counts)."""
    import tracemalloc

    v = Vocabulary.load("gpt2")
    m = open_matcher(Grammar.from_lark(JSONISH), v, backend="native", slices=[])
    assert m.consume_bytes(b'{"key": [1, 2')
    rows = m.recognizer.parser.rows
    m.mask()
    counts = [sys.getrefcount(r) for r in rows]
    tracemalloc.start()
    try:
        for _ in range(20):
            m.mask()
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(200):
            m.mask()
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert [sys.getrefcount(r) for r in rows] == counts
    assert grown < 30_000, grown


# -- direct calls, adversarial inputs -----------------------------------------------------

TOKENS = [b"a", b"ab", b"abc", b"b", b"ba", b"c", b"ab"]  # "ab" twice: trie.multi


def small_trie():
    return TokenTrie(Vocabulary.from_bytes(TOKENS))


def words(masks):
    """Sets (ints) as the lexer's escape_words: WORDS 64-bit words each."""
    return array("Q", [w for m in masks for w in lexer_words(m)])


class TableLexer:
    """A stand-in lexer: states 0 (dead) .. k-1, the table filled on demand from `moves`;
    no state loops unless `loops` (state -> the bytes that loop) says so."""

    def __init__(self, k, moves, ends, loops=None):
        self.table = array("i", [-1] * (256 * k))
        self.ends = bytearray(ends)
        self.moves = moves  # (state, byte) -> state
        self.fills = []
        loops = loops or {}
        self.escapes = [2**257 - 1] + [2**257 - 1 & ~loops[s] for s in sorted(loops)]
        self.escape_words = words(self.escapes)
        self.loop_of = array("i", [-1 if s in loops else 0 for s in range(k)])
        self.loop_ids = {s: i + 1 for i, s in enumerate(sorted(loops))}

    def loop(self, s):
        self.loop_of[s] = self.loop_ids[s]
        return self.loop_of[s]

    def fill(self, s, b):
        self.fills.append((s, b))
        t = self.moves.get((s, b), 0)
        self.table[s << 8 | b] = t
        return t


class Hooks:
    """A stand-in parser: `advance` as given; `restart` as given, else the start state 1."""

    def __init__(self, advance, restart=None):
        self.advance = advance
        self.restart = restart if restart is not None else (lambda s, top: (1, top))


def ab_lexer():
    """[ab]+ then c ends a lexeme (state 2 accepts greedily; a lazy end in state 3)."""
    moves = {(1, 97): 2, (1, 98): 2, (2, 97): 2, (2, 98): 2, (1, 99): 3}
    return TableLexer(4, moves, [0, 0, 1, 2])


def both(trie, make_lexer, advance, state=1, top=1, n=8):
    """Run both walkers on fresh lexers: (nodes, allowed, fills) for each."""
    out = []
    for fn in (python_walk, native_walk):
        lexer = make_lexer()
        allowed = bytearray(n)
        walked = fn(trie, lexer, Hooks(advance), state, top, allowed)
        out.append((walked, bytes(allowed), lexer.fills))
    return out


def test_direct_walk_equals_python():
    trie = small_trie()
    for answer in ((2, 1), (0, 1), (1, 2), (3, 7)):
        runs = []
        for fn in (python_walk, native_walk):
            calls = []

            def advance(s, top, b, calls=calls, answer=answer):
                calls.append((s, top, b))
                return answer[0] if b != 99 else 0, top + answer[1]

            lexer, allowed = ab_lexer(), bytearray(8)
            runs.append((fn(trie, lexer, Hooks(advance), 1, 5, allowed), bytes(allowed), lexer.fills, calls))
        assert runs[0] == runs[1]
        assert runs[0][3]  # advance was called
    # keyword arguments, as for the Python function
    allowed = bytearray(8)
    walked = native_walk(trie=trie, lexer=ab_lexer(), parser=Hooks(lambda s, t, b: (0, t)), state=1, top=1, allowed=allowed)
    assert (walked, allowed) == both(trie, ab_lexer, lambda s, t, b: (0, t))[0][:2]


def test_subtrees_taken_whole():
    """State 2 loops on a and b: the subtree of "ab" (bytes a, b) is taken whole — its
    tokens allowed, no transition filled below it; "ac" is walked (c leaves 2: dead)."""
    tokens = [b"a", b"aa", b"ab", b"aba", b"abb", b"ac", b"abba"]
    trie = TokenTrie(Vocabulary.from_bytes(tokens))
    moves = {(1, 97): 2, (2, 97): 2, (2, 98): 2}

    def make():
        return TableLexer(3, moves, [0, 0, 0], loops={2: 1 << 97 | 1 << 98})

    for walked, allowed, fills in both(trie, make, lambda s, t, b: (0, t)):
        assert [t for t in range(len(tokens)) if allowed[t]] == [0, 1, 2, 3, 4, 6]
        assert fills == [(1, 97), (2, 97), (2, 99)] and walked == len(trie) - 1


def test_fill_exception_propagates():
    class Boom(Exception):
        pass

    lexer = ab_lexer()

    def fill(s, b):
        raise Boom("no derivative today")

    lexer.fill = fill
    allowed = bytearray(8)
    with pytest.raises(Boom):
        native_walk(small_trie(), lexer, Hooks(lambda s, t, b: (0, t)), 1, 1, allowed)
    # no buffer export left behind: everything can still be resized
    lexer.table.append(0)
    lexer.ends.append(0)
    allowed.append(0)


@pytest.mark.parametrize("garbage", [None, "x", 3, (1,), (1, 2, 3), [1, 2], ("a", 1), (1, "x"), (1.0, 1), (1, None)])
def test_advance_garbage_is_a_type_error(garbage):
    lexer = ab_lexer()
    with pytest.raises(TypeError):
        native_walk(small_trie(), lexer, Hooks(lambda s, t, b: garbage), 1, 1, bytearray(8))
    lexer.table.append(0)


@pytest.mark.parametrize("state", [-1, 2**40, 10**30, 2**23])
def test_advance_out_of_range_state(state):
    with pytest.raises(ValueError):
        native_walk(small_trie(), ab_lexer(), Hooks(lambda s, t, b: (state, t)), 1, 1, bytearray(8))


def test_advance_state_beyond_the_lexer():
    """A state the lexer does not have: its table row counts as "not computed" (fill is
    asked), and its ends entry is missing: IndexError (walk.py: IndexError too)."""
    trie = TokenTrie(Vocabulary.from_bytes([b"c", b"ca"]))
    lexer = ab_lexer()
    lexer.fill = lambda s, b: 0 if s == 1000 else TableLexer.fill(lexer, s, b)
    with pytest.raises(IndexError):
        native_walk(trie, lexer, Hooks(lambda s, t, b: (1000, t)), 2, 1, bytearray(8))
    assert lexer.fills == [(2, 99), (1, 99)]  # c: dead in 2, then read from the restart (1)


@pytest.mark.parametrize("bad", [-2, 2**40, "1", 2**31])
def test_fill_garbage(bad):
    lexer = ab_lexer()
    lexer.fill = lambda s, b: bad
    with pytest.raises((TypeError, ValueError, IndexError)):
        native_walk(small_trie(), lexer, Hooks(lambda s, t, b: (0, t)), 1, 1, bytearray(8))


def test_allowed_too_short():
    for n in (0, 1, 3):
        with pytest.raises(IndexError):
            native_walk(small_trie(), ab_lexer(), Hooks(lambda s, t, b: (0, t)), 1, 1, bytearray(n))


def test_allowed_not_a_writable_buffer():
    for allowed in (bytes(8), [0] * 8, None, array("i", [0] * 8), memoryview(bytearray(16))[::2]):
        with pytest.raises((TypeError, BufferError)):
            native_walk(small_trie(), ab_lexer(), Hooks(lambda s, t, b: (0, t)), 1, 1, allowed)


def test_token_ids_beyond_allowed():
    trie = small_trie()
    trie.token = array("i", [t if t < 0 else t + 1000 for t in trie.token])
    with pytest.raises(IndexError):
        native_walk(trie, ab_lexer(), Hooks(lambda s, t, b: (0, t)), 1, 1, bytearray(8))
    trie = small_trie()
    node = next(iter(trie.multi))
    for ids, error in (((1, 10**6), IndexError), ((1, -1), IndexError), ((1, 2**70), (IndexError, OverflowError)),
                       (("x",), TypeError), (5, TypeError)):
        trie.multi = {node: ids}
        with pytest.raises(error):
            native_walk(trie, ab_lexer(), Hooks(lambda s, t, b: (0, t)), 1, 1, bytearray(8))
    trie.multi = {}
    with pytest.raises(KeyError):
        native_walk(trie, ab_lexer(), Hooks(lambda s, t, b: (0, t)), 1, 1, bytearray(8))


@pytest.mark.parametrize("name, value", [
    ("end", lambda t: array("i", [0] * len(t))),            # end[n] <= n: walk.py loops forever
    ("end", lambda t: array("i", [10**6] * len(t))),        # beyond the trie
    ("depth", lambda t: array("H", [0] * len(t))),
    ("depth", lambda t: array("H", [60000] * len(t))),      # deeper than max_depth
    ("max_depth", lambda t: -1),
    ("max_depth", lambda t: 10**6),
    ("max_depth", lambda t: "3"),
    ("token", lambda t: array("i", [0])),                   # shorter than the trie
    ("end", lambda t: array("l", [0] * len(t))),            # wrong item size
    ("end", lambda t: list(t.end)),                         # not a buffer
    ("byte", lambda t: array("H", t.byte)),
    ("depth", lambda t: bytearray(len(t))),
])
def test_malformed_trie(name, value):
    trie = small_trie()
    setattr(trie, name, value(trie))
    # a lexer where everything is dead: the walk skips subtrees (and reads end[n])
    lexer = TableLexer(2, {}, [0, 0])
    with pytest.raises((ValueError, TypeError, IndexError)):
        native_walk(trie, lexer, Hooks(lambda s, t, b: (0, t)), 1, 1, bytearray(8))


def test_missing_attributes_and_bad_arguments():
    trie, lexer = small_trie(), ab_lexer()
    with pytest.raises(AttributeError):
        native_walk(object(), lexer, Hooks(lambda s, t, b: (0, t)), 1, 1, bytearray(8))
    with pytest.raises(AttributeError):
        native_walk(trie, object(), Hooks(lambda s, t, b: (0, t)), 1, 1, bytearray(8))
    with pytest.raises(TypeError):
        native_walk(trie, lexer, Hooks(None), 1, 1, bytearray(8))
    with pytest.raises(TypeError):
        native_walk(trie, lexer, Hooks(lambda s, t, b: (0, t)), "1", 1, bytearray(8))
    with pytest.raises(TypeError):
        native_walk(trie, lexer, Hooks(lambda s, t, b: (0, t)), 1, None, bytearray(8))
    with pytest.raises(ValueError):
        native_walk(trie, lexer, Hooks(lambda s, t, b: (0, t)), -1, 1, bytearray(8))
    with pytest.raises(TypeError):
        native_walk(trie, lexer, Hooks(lambda s, t, b: (0, t)), 1, 1)
    lexer.table = array("q", lexer.table)
    with pytest.raises(TypeError):
        native_walk(trie, lexer, Hooks(lambda s, t, b: (0, t)), 1, 1, bytearray(8))


def test_keyword_arguments():
    """walk() by keyword, or mixed, is walk() by position (six positional arguments take
    the short way through the C argument parsing); too many, unknown or repeated ones are
    a TypeError."""
    trie = small_trie()
    hooks = Hooks(lambda s, t, b: (0, t))
    answers = []
    for args, kwargs in [((trie, ab_lexer(), hooks, 1, 1, bytearray(8)), {}),
                         ((), dict(trie=trie, lexer=ab_lexer(), parser=hooks, state=1, top=1, allowed=bytearray(8))),
                         ((trie, ab_lexer(), hooks), dict(state=1, top=1, allowed=bytearray(8)))]:
        allowed = args[5] if len(args) == 6 else kwargs["allowed"]
        answers.append((native_walk(*args, **kwargs), bytes(allowed)))
    assert answers[0] == answers[1] == answers[2] and any(answers[0][1])
    for args, kwargs in [((trie, ab_lexer(), hooks, 1, 1, bytearray(8), 0), {}),
                         ((trie, ab_lexer(), hooks, 1, 1, bytearray(8)), dict(other=1)),
                         ((trie, ab_lexer(), hooks, 1, 1), dict(state=1, allowed=bytearray(8)))]:
        with pytest.raises(TypeError):
            native_walk(*args, **kwargs)


def test_callbacks_that_grow_the_lexer():
    """fill and advance append states (the real lexer does): the arrays move in memory,
    and the walk must follow them. Same answers as walk.py."""

    class GrowingLexer(TableLexer):
        def fill(self, s, b):
            self.table.extend(array("i", [-1] * (256 * 500)))  # a reallocation, surely
            self.ends.extend(bytes(500))
            return super().fill(s, b)

    def make():
        return GrowingLexer(4, {(1, 97): 2, (1, 98): 2, (2, 97): 2, (2, 98): 2, (1, 99): 3}, [0, 0, 1, 2])

    def advance(s, top, b):
        return (2 if b == 97 else 0), top + 1

    py, nat = both(small_trie(), make, advance)
    assert py == nat


def test_callbacks_that_resize_held_buffers():
    """The trie's arrays and `allowed` stay exported during the walk: resizing them from a
    callback raises BufferError in the callback, which propagates."""
    trie, allowed = small_trie(), bytearray(8)
    for victim in (allowed, trie.byte, trie.end):
        lexer = ab_lexer()
        lexer.fill = lambda s, b, victim=victim: victim.append(0)
        with pytest.raises(BufferError):
            native_walk(trie, lexer, Hooks(lambda s, t, b: (0, t)), 1, 1, allowed)


def test_callback_that_shrinks_the_lexer():
    lexer = ab_lexer()

    def advance(s, top, b):
        del lexer.ends[:]
        del lexer.table[:]
        return 2, top

    with pytest.raises(IndexError):
        native_walk(small_trie(), lexer, Hooks(advance), 1, 1, bytearray(8))


def test_reentrant_walk():
    trie, lexer = small_trie(), ab_lexer()
    inner = []

    def advance(s, top, b):
        inner.append(native_walk(trie, lexer, Hooks(lambda s, t, b: (0, t)), 1, top, bytearray(8)))
        return 2, top + 1

    expected = python_walk(trie, ab_lexer(), Hooks(lambda s, t, b: (2, t + 1)), 1, 1, bytearray(8))
    assert native_walk(trie, lexer, Hooks(advance), 1, 1, bytearray(8)) == expected
    assert inner


def test_reference_counts():
    """Every callback result is released: the objects returned keep their counts."""
    result = (2, 10**15)  # a fresh tuple and a big int: no caching hides a leak
    big_state = int("700")
    lexer = TableLexer(701, {(1, 97): 700, (700, 98): 0}, [0] * 700 + [1])
    lexer.fill = lambda s, b: big_state if (s, b) == (1, 97) else 0
    before = sys.getrefcount(result), sys.getrefcount(big_state), sys.getrefcount(result[1])
    for _ in range(50):
        native_walk(small_trie(), lexer, Hooks(lambda s, t, b: result), 1, 1, bytearray(8))
    assert (sys.getrefcount(result), sys.getrefcount(big_state), sys.getrefcount(result[1])) == before


def test_no_leak_on_error_paths():
    trie = small_trie()

    def once():
        for advance in (lambda s, t, b: None, lambda s, t, b: (1, "x"), lambda s, t, b: 1 / 0):
            try:
                native_walk(trie, ab_lexer(), Hooks(advance), 1, 1, bytearray(8))
            except (TypeError, ZeroDivisionError):
                pass
        try:
            native_walk(trie, ab_lexer(), Hooks(lambda s, t, b: (0, t)), 1, 1, bytearray(1))
        except IndexError:
            pass

    import tracemalloc  # CPython only; on PyPy this module is skipped before

    tracemalloc.start()
    try:
        for _ in range(500):  # warm up caches (and tracemalloc's own tables)
            once()
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(3000):
            once()
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert grown < 30_000, grown  # one object leaked per call would be > 100 kB


# Random tries and lexers, some mangled: the native walk returns or raises one of the
# expected errors, and whenever it returns, walk.py returns the same.
INTERESTING = [-(2**31), -3, -2, -1, 0, 1, 2, 3, 5, 9, 255, 256, 2**16 - 1, 2**31 - 1]


@st.composite
def random_walks(draw):
    words = st.binary(min_size=1, max_size=4).map(lambda b: bytes(x % 4 + 97 for x in b))
    tokens = draw(st.lists(words, min_size=1, max_size=10))
    trie = TokenTrie(Vocabulary.from_bytes(tokens))
    for _ in range(draw(st.integers(0, 2))):
        name = draw(st.sampled_from(["byte", "depth", "end", "token"]))
        arr = getattr(trie, name)
        i = draw(st.integers(0, len(arr) - 1))
        lo, hi = {"B": (0, 255), "H": (0, 65535)}.get(arr.typecode, (-(2**31), 2**31 - 1))
        arr[i] = min(max(draw(st.sampled_from(INTERESTING)), lo), hi)
    k = draw(st.integers(1, 4))  # lexer states 0 (dead) .. k-1, and a few beyond
    states = st.sampled_from(list(range(k)) * 8 + [k, k + 7, -1, 2**23])
    table = [-1] * (256 * k)
    for s in range(k):
        for b in b"abcd":  # the bytes of the tokens
            table[s << 8 | b] = draw(st.one_of(st.just(-1), states))
    ends = draw(st.lists(st.integers(0, 3), min_size=k, max_size=k))
    if draw(st.integers(0, 19)) == 0:
        ends = ends[:-1]
    fills = draw(st.lists(states, min_size=1, max_size=4))
    byte_sets = st.sets(st.sampled_from(b"abcd"), max_size=4).map(lambda bs: sum(1 << b for b in bs))
    loops = (draw(st.lists(st.sampled_from([-1, 0, 1, 2]), min_size=k, max_size=k)),  # loop_of
             [2**257 - 1] + draw(st.lists(byte_sets, min_size=2, max_size=2)),     # escapes
             draw(st.lists(st.sampled_from([0, 1, 2, 5]), min_size=1, max_size=3)))  # loop()'s answers
    advances = draw(st.lists(st.tuples(states, st.sampled_from([1, 2, -5])), min_size=1, max_size=4))
    restarts = draw(st.lists(st.tuples(states, st.sampled_from([1, 2, -5])), min_size=1, max_size=4))
    state = draw(st.integers(0, k - 1))
    return trie, table, ends, fills, loops, advances, restarts, state


class ScriptedLexer:
    def __init__(self, table, ends, fills, loops):
        self.table, self.ends = array("i", table), bytearray(ends)
        self.answers, self.calls = list(fills), []
        loop_of, self.escapes, self.loop_answers = loops
        self.loop_of, self.escape_words = array("i", loop_of), words(self.escapes)

    def loop(self, s):
        self.calls.append(s)
        i = self.loop_answers[len(self.calls) % len(self.loop_answers)]
        if 0 <= s < len(self.loop_of):
            self.loop_of[s] = i
        return i

    def fill(self, s, b):
        self.calls.append((s, b))
        t = self.answers[len(self.calls) % len(self.answers)]
        if 0 <= (s << 8 | b) < len(self.table):
            self.table[s << 8 | b] = t
        return t


@settings(max_examples=examples(300))
@given(random_walks())
def test_random_mangled_walks(case):
    trie, table, ends, fills, loops, advances, restarts, state = case
    results = []
    for fn in (native_walk, python_walk):
        lexer = ScriptedLexer(table, ends, fills, loops)
        calls = []

        def advance(s, top, b, calls=calls):
            calls.append((s, top, b))
            return advances[len(calls) % len(advances)]

        def restart(s, top, calls=calls):
            calls.append((s, top))
            return restarts[len(calls) % len(restarts)]

        allowed = bytearray(12)
        try:
            walked = fn(trie, lexer, Hooks(advance, restart), state, 1, allowed)
        except ERRORS as e:
            results.append(None)
            event("%s raised %s" % (fn.__module__, type(e).__name__))
            if fn is native_walk:
                return  # walk.py might loop forever here (end[n] <= n): not run
            continue
        event("%s returned" % fn.__module__)
        results.append((walked, bytes(allowed), lexer.calls, calls))
    # where the two differ on purpose: walk.py reads past the table (IndexError) where the
    # C walk asks `fill`; and walk.py's negative indices wrap around
    if results[1] is not None:
        assert results[0] == results[1]


# -- the Earley row build in C (`closure`) ---------------------------------------------------
#
# earley.py's `closure` is the definition; _native.closure must give the same answer (the
# same items in the same order, waiting lists, allowed mask, accepting flag), or None
# where it leaves the row to `closure` (a row past the items_per_row limit, unusual types).


def checking_closure(answers):
    """A parser's `row_builder` that builds each row both ways and checks that they agree."""

    def fast(tables, rows, j, seeds, transitive):
        got = _native.closure(tables, rows, j, list(seeds), transitive)
        try:
            want = closure(tables, rows, j, seeds, transitive)
        except LimitError:
            assert got is None
            raise
        assert got == want and [type(x) for x in got] == [list, dict, int, bool]
        answers.append(got)
        return got

    return fast


@settings(max_examples=examples(150))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), max_size=8), st.booleans())
def test_closure_equals_earley_closure(ir, tokens, choices, leo):
    """On random grammars and paths, every row the parser builds (with or without Leo
    items), built by both; and a native matcher on its own tree of rows (a grammar of its
    own, so that it builds them with the C closure) against a Python one: the same masks
    and stats."""
    vocab = vocabulary(tokens)
    answers = []
    py = Matcher(cfg_grammar(ir), vocab, slices=[], row_builder=checking_closure(answers))
    nat = open_matcher(cfg_grammar(ir), vocab, backend="native", slices=[])
    assert nat.recognizer.parser.row_builder is _native.closure
    assert open_matcher(cfg_grammar(ir), vocab, backend="python").recognizer.parser.row_builder is None
    py.recognizer.parser.leo = nat.recognizer.parser.leo = leo
    lockstep(py, nat, vocab, choices, same_stats=True)
    event("rows built: %s" % ("none" if not answers else "some"))


def test_closure_on_the_json_array():
    """The benchmark's workload (benchmarks/mask_cache.py): a fresh native matcher, which
    builds its rows with the C closure, against a fresh Python one, step by step."""
    from benchmarks.mask_cache import ARRAY, document, greedy_tokens

    v = Vocabulary.load("gpt2")
    tokens = greedy_tokens(v, document(6))
    answers = []
    py = Matcher(Grammar.from_json_schema(ARRAY), v, row_builder=checking_closure(answers))
    nat = open_matcher(Grammar.from_json_schema(ARRAY), v, backend="native")
    for t in tokens:
        assert py.mask() == nat.mask() and work(py.stats) == work(nat.stats)
        assert py.consume(t) and nat.consume(t)
    assert len(answers) > 50 and nat.recognizer.parser.rows_built == py.recognizer.parser.rows_built


def test_closure_leaves_the_limit_to_python():
    """A row past items_per_row: the C closure answers None, `closure` raises LimitError."""
    for backend in ("python", "native"):  # row 0 has 2 items, row 1 (after "a") 5
        g = Grammar.from_lark('start: "a" y\ny: "b" | "c" | "d" | "e"', limits=Limits(items_per_row=4))
        m = open_matcher(g, Vocabulary.from_bytes([b"a", b"b"]), backend=backend)
        assert m.consume(0)  # "a", its lexeme not ended yet
        with pytest.raises(LimitError, match="items_per_row"):
            m.mask()  # "b" ends it: row 1
    m = open_matcher(Grammar.from_lark('start: "a" y\ny: "b" | "c" | "d" | "e"'), Vocabulary.from_bytes([b"a"]),
                     backend="native")
    p = m.recognizer.parser
    tables = p.tables[:7] + (4,) + p.tables[8:]
    seeds = p.seeds(p.rows[0], p.rows[0].allowed)
    assert _native.closure(tables, p.rows, 1, seeds, p._transitive) is None
    assert len(_native.closure(p.tables, p.rows, 1, seeds, p._transitive)[0]) == 5


@pytest.mark.parametrize("args", [
    (), (1, 2, 3, 4), (None, [], 0, [], None), ((1,) * 9, [], 0, [], None), ([], [], 0, [1], None),
    ((["x"], [0], [[]], [False], 0, 1, 1, 10, 0), [], 0, [0], None),
    (([0], [0], [[]], [False], 0, 1, 1, 10, 0), [], 0, [0], None),
    (([-1], [0], [[]], [False], 1, 1, 1, 10, 0), [], 1, [0], None),
    (([-1], [0], [[]], [False], 1, 1, 1, 10, 0), [], 0, [2 ** 70], None),
    (([-1], [0], [[]], [False], 1, 1, 1, 10, 0), [], 3, [2], lambda k, s: "x"),
    (([-1], [0], [[]], [False], 1, 1, 1, 10, 0), [], 3, [2], lambda k, s: 1 / 0),
])
def test_closure_garbage(args):
    """Malformed arguments: a TypeError or ZeroDivisionError, or None (left to Python), never a crash."""
    try:
        r = _native.closure(*args)
    except (TypeError, ZeroDivisionError):
        return
    assert r is None or r == closure(*args)


def test_rows_limit_left_to_python():
    """A new row past the `rows` limit: the C push path leaves it to the hook, which
    raises the same LimitError as the Python walk, after the same rows."""
    source = 'start: x x x\nx: "a" | "b"\n%ignore " "'
    seen = []
    for backend in ("python", "native"):
        g = Grammar.from_lark(source, limits=Limits(rows=3))
        m = open_matcher(g, Vocabulary.from_bytes([b"a", b"b", b" ", b"ab"]), backend=backend)
        assert m.consume(0) and m.consume(1)  # "a" "b": the third lexeme would be row 3
        with pytest.raises(LimitError, match="rows"):
            m.mask()
        seen.append(work(m.stats))
    assert seen[0] == seen[1]


# The push path's rows are made in C (accel/_native.c's `row_new`, mirroring Row.__init__
# and LexedRow.__init__), counted in the tree in C (`tree_grown`: RowTree.grown), Leo's memo
# read in C before `transitive` is called, and a once-%ignore's start read from
# lexer.without's memo: the trees that a native and a Python matcher grow apart must be
# equal, row for row and slot for slot.

ROW_SLOTS = ("items", "waiting", "allowed", "accepting", "leo", "lexer_start")


def tree_rows(tree):
    """The rows of a tree of rows, root first, children in the order they were added:
    (path of child keys, type, the slots' values)."""
    out, stack = [], [((), tree.root)]
    while stack:
        path, row = stack.pop()
        out.append((path, type(row).__name__, tuple(getattr(row, s) for s in ROW_SLOTS)))
        stack.extend((path + (k,), child) for k, child in reversed(list(row.children.items())))
    return out


def counting(f, name, counts):
    """`f`, counting its calls in counts[name]."""
    def counted(*args):
        counts[name] += 1
        return f(*args)
    return counted


def grown_apart(source_or_schema, vocab, tokens):
    """A Python and a native matcher, each on its own compiled grammar (its own tree of
    rows), in lockstep over `tokens`; their recognisers, and how many times each called
    Python's `_transitive` and `lexer.without`."""
    make = Grammar.from_json_schema if isinstance(source_or_schema, dict) else Grammar.from_lark
    py = open_matcher(make(source_or_schema), vocab, backend="python")
    nat = open_matcher(make(source_or_schema), vocab, backend="native")
    calls = []
    for m in (py, nat):
        counts = {"_transitive": 0, "without": 0}
        calls.append(counts)
        for owner, name in ((m.recognizer.parser, "_transitive"), (m.recognizer.lexer, "without")):
            setattr(owner, name, counting(getattr(owner, name), name, counts))
    for t in tokens:
        assert py.mask() == nat.mask() and work(py.stats) == work(nat.stats)
        assert py.consume(t) and nat.consume(t)
    return py.recognizer, nat.recognizer, calls


def test_rows_made_in_c_equal_python_rows():
    """The JSON array (Leo items: `transitive` and its memo), and a grammar with an %ignore
    matched once (copies of rows, lexer.without): the same trees, the same counts, and
    fewer calls of Python's `_transitive` and `without` from the C walk (their memos read
    in C)."""
    from benchmarks.mask_cache import ARRAY, document, greedy_tokens

    v = Vocabulary.load("gpt2")
    py, nat, calls = grown_apart(ARRAY, v, greedy_tokens(v, document(4)))
    rows = tree_rows(nat.parser.tree)
    assert len(rows) > 40 and tree_rows(py.parser.tree) == rows
    assert (py.parser.tree.items, py.parser.tree.full) == (nat.parser.tree.items, nat.parser.tree.full)
    assert any(row[2][4] for row in rows)  # some Leo memo filled
    assert calls[1]["_transitive"] < calls[0]["_transitive"]

    source = SHORT_PATH_GRAMMARS[0]  # "A" (x ",")* x "!", x: /[a-b]+/, %ignore /[ ]{1,2}/ once
    vocab = vocabulary([b"A", b" ", b"a", b",", b"b ", b" b", b"!"])
    tokens = [0, 1, 2, 3, 1, 4, 3, 5, 1, 3, 2, 6]  # "A a, b , b ,a!"
    py, nat, calls = grown_apart(source, vocab, tokens)
    rows = tree_rows(nat.parser.tree)
    assert any(path and path[-1] & nat.lexer.once_skip_mask for path, _, _ in rows)  # copies
    assert tree_rows(py.parser.tree) == rows
    assert (py.parser.tree.items, py.parser.tree.full) == (nat.parser.tree.items, nat.parser.tree.full)
    assert nat.parser.rows_built == py.parser.rows_built > 5
    assert calls[1]["without"] < calls[0]["without"]


def test_tree_full_counted_in_c(monkeypatch):
    """RowTree.grown past SHARED_ITEMS marks the tree full: the C count (which reads the
    SHARED_ITEMS that push_path hands over) does as the Python one."""
    from benchmarks.mask_cache import ARRAY, document, greedy_tokens
    from refimpl.recognition import earley, recognizer

    monkeypatch.setattr(earley, "SHARED_ITEMS", 40)
    monkeypatch.setattr(recognizer, "SHARED_ITEMS", 40)
    v = Vocabulary.load("gpt2")
    py, nat, _ = grown_apart(ARRAY, v, greedy_tokens(v, document(2)))
    assert nat.parser.tree.full and py.parser.tree.full
    assert py.parser.tree.items == nat.parser.tree.items > 40


def test_row_fields_not_slots_read_through_getattr():
    """The C walk reads and writes a row's fields at their slots' offsets, found once per
    row class; a class whose field is a property instead (here `children` and
    `lexer_start`) has those read and written through getattr and setattr, and rows of
    two classes in one tree (the root a LexedRow, the rows pushed after it of the
    subclass) switch between the two. The same masks, trees and counts as Python."""
    from benchmarks.mask_cache import ARRAY, document, greedy_tokens
    from refimpl.recognition.recognizer import LexedRow

    class PropertyRow(LexedRow):
        @property
        def children(self):
            return self._kids

        @children.setter
        def children(self, value):
            self._kids = value

        @property
        def lexer_start(self):
            return self._start

        @lexer_start.setter
        def lexer_start(self, value):
            self._start = value

    v = Vocabulary.load("gpt2")
    matchers = [open_matcher(Grammar.from_json_schema(ARRAY), v, backend=b) for b in ("python", "native")]
    for m in matchers:
        m.recognizer.parser.row = PropertyRow
    py, nat = matchers
    for t in greedy_tokens(v, document(3)):
        assert py.mask() == nat.mask() and work(py.stats) == work(nat.stats)
        assert py.consume(t) and nat.consume(t)
    rows = tree_rows(nat.recognizer.parser.tree)
    assert {kind for _, kind, _ in rows} == {"LexedRow", "PropertyRow"}
    assert tree_rows(py.recognizer.parser.tree) == rows
