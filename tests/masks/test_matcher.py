"""The Matcher's masks against the naive definition (refimpl/masks/oracle.py).

Random grammars (regexes and Lark), random small vocabularies — tokens that split UTF-8
characters, empty and duplicate tokens, specials — and random token paths guided by the
mask: at every step the walk's mask equals the naive one, every token in the mask is
consumed, every other token is refused, and rollback restores the earlier mask.
"""
import pytest
from hypothesis import assume, given, settings, strategies as st
from tests.support.budget import examples

from conformance.blindspots import ambiguous_lark_grammars
from refimpl import Grammar, LimitError, Matcher, Vocabulary, naive_mask, open_matcher
from refimpl.serving import backends
from refimpl.errors import GrammarError, RegexError
from refimpl.recognition.lexer import DEAD, LAZY_ENDS, MULTIBYTE
from refimpl.regex.exprs import ALL_BYTES

ALPHABET = ["a", "b", "ab", "0", "1", " ", ",", "[", "]", '"', "é", "\u00e9"[0], "€"]

pieces = st.sampled_from(["a", "b", "c", "0", "1", " ", ",", '"', "é", "€", "x"])
regexes = st.recursive(
    st.one_of(
        pieces.map(lambda c: c.replace('"', '\\"')),
        st.sampled_from(["[a-c]", "[0-9]", "[^a]", ".", "\\d", "[ab]+", "[é€]"]),
    ),
    lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda t: t[0] + t[1]),
        st.tuples(inner, inner).map(lambda t: "(%s|%s)" % t),
        st.tuples(inner, st.sampled_from(["*", "+", "?", "{2}", "{1,3}"])).map(lambda t: "(%s)%s" % t),
    ),
    max_leaves=6,
)

byte_pieces = st.one_of(
    pieces.map(lambda c: c.encode()),
    st.sampled_from([b"\xc3", b"\xa9", b"\xe2\x82", b"\xac", b"\xff", b""]),
)
token_lists = st.lists(
    st.lists(byte_pieces, min_size=1, max_size=3).map(b"".join), min_size=1, max_size=24
)


def regex_grammar(pattern):
    """The grammar of a generated pattern; patterns the engine rejects are skipped."""
    try:
        return Grammar.from_regex(pattern)
    except (RegexError, LimitError):
        assume(False)


def cfg_grammar(ir):
    """The grammar of a generated IR; skipped when, e.g., the start symbol derives nothing."""
    from refimpl.frontends.grammar import Grammar as G

    try:
        return G(ir, "ir", ir.to_text())
    except GrammarError:
        assume(False)


def vocabulary(tokens):
    """Tokens plus an EOS at the end and one other special token."""
    tokens = list(tokens) + [b"<eos>", b"a"]
    return Vocabulary.from_bytes(tokens, eos_token_id=len(tokens) - 2, special_token_ids=[len(tokens) - 1])


def lockstep(first, second, vocab, choices, same_stats=False):
    """Walk a random path with two matchers of one grammar: at every step the same mask
    (and stats, if asked). A choice c consumes the (c mod k)-th allowed token, or rolls
    one token back when c mod 5 == 4 (so that rows are reused after a rollback)."""
    depth = 0
    for choice in list(choices) + [None]:
        a, b = first.mask(), second.mask()
        assert a == b, choices
        assert not same_stats or first.stats == second.stats, choices
        if choice is None:
            break
        if choice % 5 == 4 and depth:
            first.rollback(1)
            second.rollback(1)
            depth -= 1
            continue
        tokens = [t for t in a.allowed() if t not in vocab.eos_token_ids]
        if not tokens:
            break
        t = tokens[choice % len(tokens)]
        assert first.consume(t) and second.consume(t)
        depth += 1


def check_path(grammar, vocab, choices):
    m = Matcher(grammar, vocab)
    path = []
    masks = []
    for choice in choices:
        mask = m.mask()
        assert mask == naive_mask(grammar, vocab, path), (grammar, path)
        allowed = mask.allowed()
        for t in range(len(vocab)):
            ok = m.consume(t)
            assert ok == (t in mask), (grammar, path, t)
            if ok:
                m.rollback(1)
                assert m.mask() == mask  # rollback restores exactly the earlier mask
        masks.append(mask)
        tokens = [t for t in allowed if t not in vocab.eos_token_ids]
        if not tokens:
            break
        t = tokens[choice % len(tokens)]
        assert m.consume(t)
        path.append(t)
    # roll the whole path back, step by step
    for i in range(len(path), 0, -1):
        m.rollback(1)
        assert m.mask() == masks[i - 1]


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


def native_if_built():
    try:
        import accel
    except ImportError:
        return []
    return ["native"] if accel.available_backends().get("native") is None else []


def test_restarts_are_kept_per_entry_not_per_top():
    """The walk keeps restart()'s answers per entry of its (depth, top) stack. Here the
    lexer state inside C is the same after "a" and after "b" (both rows allow C alone),
    and so is the top; only the row below differs, and with it what follows C. Answers
    kept per (state, top) would let "acq" and "bcp" through."""
    g = Grammar.from_lark('start: "a" C "p" | "b" C "q"\nC: /c+/')
    v = Vocabulary.from_bytes([b"acp", b"acq", b"bcp", b"bcq", b"acc", b"bccq"])
    for backend in ["python"] + native_if_built():
        with open_matcher(g, v, backend=backend) as m:
            assert m.mask().allowed() == [0, 3, 4, 5], backend


def test_the_walk_restarts_once_per_state():
    """Where a lexeme ends, the walk asks `restart` once per lexer state (and entry), and
    `advance` only where the next lexeme may start with the byte: after `{"a": 1, ` on
    GPT-2, most of the ~400 nodes where the number or the whitespace ends are refused by
    the first byte of the next lexeme, without a call of `advance`."""
    g = Grammar.from_json_schema({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}})
    m = Matcher(g, Vocabulary.load("gpt2"), slices=[])
    assert m.consume_bytes(b'{"a": 1, ')
    rec, calls = m.recognizer, {"advance": 0, "restart": 0}

    def counting(name, hook):
        def counted(*args):
            calls[name] += 1
            return hook(*args)
        return counted

    for name in calls:
        setattr(rec, name, counting(name, getattr(rec, name)))
    allowed = m.mask().allowed()
    assert allowed and all(m.vocab.tokens[t][:1] in b'" \t\n\r' for t in allowed)
    assert m.vocab.tokens.index(b'"') in allowed and m.stats["trie_nodes_walked"] > 300
    assert 0 < calls["restart"] <= 10 and 0 < calls["advance"] <= 10, calls


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


# Random context-free grammars over a few multi-byte lexemes (some lazy, with or without
# an %ignore lexeme): the walk scans lexemes, pushes, reuses and pops rows mid-trie.
LEXEME_PATTERNS = ["a", "ab", "[ab]+", "b+", "[0-9]+", "c", "a[bc]*c", "é"]
rule_bodies = st.one_of(
    st.just([]),
    st.lists(st.sampled_from(["L0", "L1", "L2", "L0", "L1", "L2", "S", "T"]), min_size=1, max_size=3),
)


@st.composite
def cfg_grammars(draw):
    from refimpl.grammar.ir import GrammarIR

    ir = GrammarIR()
    lexemes = []
    for i in range(3):
        pattern = draw(st.sampled_from(LEXEME_PATTERNS))
        lazy = draw(st.booleans()) and i == 2
        lexemes.append(ir.add_lexeme("L%d" % i, _compile(ir.es, pattern), lazy))
    names = {"S": ir.add_nonterminal("S"), "T": ir.add_nonterminal("T")}
    syms = dict(names, L0=lexemes[0], L1=lexemes[1], L2=lexemes[2])
    first = draw(st.tuples(st.sampled_from(["L0", "L1", "L2"]), st.sampled_from(["S", "T", "L0", "L2"])))
    ir.add_rule(names["S"], [syms[s] for s in first])  # so that S rarely derives only ε
    for name in ("S", "T"):
        for body in draw(st.lists(rule_bodies, min_size=1, max_size=3)):
            ir.add_rule(names[name], [syms[s] for s in body])
    ir.start = names["S"]
    if draw(st.booleans()):
        ir.ignore = _compile(ir.es, draw(st.sampled_from([" +", "[ ,]", " "])))
        ir.allow_initial_skip = draw(st.booleans())
    return ir


def _compile(es, pattern):
    from refimpl.regex import compile_pattern

    return compile_pattern(es, pattern)


cfg_tokens = st.lists(
    st.lists(
        st.sampled_from([b"a", b"b", b"c", b"ab", b"0", b"1", b" ", b",", b"\xc3", b"\xa9", b"\xc3\xa9"]), min_size=1, max_size=3
    ).map(b"".join),
    min_size=6,
    max_size=20,
)


@settings(max_examples=examples(200))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), max_size=6))
def test_cfg_masks_equal_the_naive_mask(ir, tokens, choices):
    g = cfg_grammar(ir)
    check_path(g, vocabulary(tokens), choices)


SAMPLE_CHARACTERS = [chr(c).encode() for c in (0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF,
                                                0x10000, 0x1F600, 0x10FFFF)]


def check_loops(grammar, vocab, choices):
    """Every lexer state a path reaches: its loop (Lexer.loop, from byte classes) is the
    set of bytes whose transition is the state itself."""
    m = Matcher(grammar, vocab)
    for choice in choices:
        allowed = [t for t in m.mask().allowed() if t not in vocab.eos_token_ids]
        if not allowed or not m.consume(allowed[choice % len(allowed)]):
            break
    lexer = m.recognizer.lexer
    for s in range(1, len(lexer.states)):
        loops = sum(1 << b for b in range(256) if lexer.step(s, b) == s)
        escapes = lexer.escapes[lexer.loop(s)]
        assert escapes & ALL_BYTES == ALL_BYTES & ~loops, lexer.describe(s)
        if not escapes & MULTIBYTE:  # every multi-byte character loops: these do
            for c in SAMPLE_CHARACTERS:
                t = s
                for b in c[:-1]:  # on the way: live, and no lazy lexeme ends
                    t = lexer.step(t, b)
                    assert t != DEAD and not lexer.ends[t] & LAZY_ENDS, (lexer.describe(s), c)
                assert lexer.step(t, c[-1]) == s, (lexer.describe(s), c)


@settings(max_examples=examples(100))
@given(regexes, token_lists, st.lists(st.integers(0, 1000), max_size=6))
def test_regex_loops(pattern, tokens, choices):
    check_loops(regex_grammar(pattern), vocabulary(tokens), choices)


@settings(max_examples=examples(100))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), max_size=6))
def test_cfg_loops(ir, tokens, choices):
    check_loops(cfg_grammar(ir), vocabulary(tokens), choices)


# Subtrees taken whole by their characters (tokens/subtrees.py): tokens of complete,
# cut-short and malformed UTF-8 against states where every character loops, or not.
UTF8_PIECES = [b"a", b"\"", b"\\", "é".encode(), "€".encode(), "😀".encode(), b"\xc3", b"\xe2\x82", b"\xf0\x9f",
               b"\x80", b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b" "]
utf8_tokens = st.lists(st.lists(st.sampled_from(UTF8_PIECES), min_size=1, max_size=4).map(b"".join),
                       min_size=4, max_size=30)
CHARACTER_LOOPS = ['"[^"\\\\]*"', "[^a]*", "(?s:.)*", r"\w*", "[^\u20ac]*x", "[a-z\u00e0-\u00ff]+", "(?s:.){0,3}",
                   r"(?-u:\xc3)(?s:.)*"]  # a raw byte, then characters: the trie's path is not


@settings(max_examples=examples(150))
@given(st.sampled_from(CHARACTER_LOOPS), utf8_tokens, st.lists(st.integers(0, 1000), max_size=5))
def test_character_loops_equal_the_naive_mask(pattern, tokens, choices):
    check_path(regex_grammar(pattern), vocabulary(tokens), choices)


def test_a_string_state_loops_on_every_character():
    m = Matcher(Grammar.from_regex('"[^"\\\\]*"'), Vocabulary.from_bytes([b'"', "é".encode()]))
    assert m.consume(0) and m.consume(1)
    lexer = m.recognizer.lexer
    escapes = lexer.escapes[lexer.loop(m.recognizer.state)]
    assert not escapes & MULTIBYTE and escapes >> ord('"') & 1 and escapes >> 0xC3 & 1


def test_a_lazy_lexeme_that_matches_inside_a_character_does_not_loop_by_characters():
    """`.*\\xe2?` leads back to itself after every character, but matches after the lead
    byte \\xe2 of "€": lazy, it would end there, so characters must not loop for it."""
    from refimpl.recognition.lexer import Lexer, _loops

    for pattern, lazy_loops in ((r"(?s:.)*(?-u:\xe2)?", False), (r"(?s:.)*", True)):
        g = Grammar.from_regex(pattern)
        es, e = Lexer.of(g.compiled).es, g.compiled.lexemes[0].expr
        assert bool(_loops(es, e, False) & MULTIBYTE) and bool(_loops(es, e, True) & MULTIBYTE) == lazy_loops


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
