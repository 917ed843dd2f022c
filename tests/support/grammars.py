"""Random grammars, vocabularies and token paths: the strategies and fixtures the mask
tests share (tests/masks/, tests/decoding/, tests/showing/, tests/accel/).

    regexes, regex_grammar        random patterns, and their grammars (skipped when refused)
    cfg_grammars, cfg_grammar     random context-free IRs over multi-byte lexemes
    token_lists, cfg_tokens       random small vocabularies (UTF-8 splits, empty tokens)
    vocabulary(tokens)            the tokens plus EOS and one other special token
    lockstep(a, b, ...)           two matchers along one random path: the same masks
    work(stats)                   a matcher's stats, rows pushed counted whether built or reused
    check_path(grammar, vocab, choices)   a random path: every mask the naive one, consume agrees
    JSONISH                       a JSON-like Lark grammar (keys, strings, numbers, nesting)
"""
from hypothesis import assume
from hypothesis import strategies as st

from refimpl import Grammar, LimitError, Matcher, Vocabulary, naive_mask
from refimpl.errors import GrammarError, RegexError

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


def work(stats):
    """A matcher's stats with its rows built and reused as one count, the rows it pushed:
    the matchers of one grammar share the rows they build (earley.py's RowTree), so which
    of two matchers builds a row and which reuses it depends on which went first."""
    out = dict(stats)
    out["rows_pushed"] = out.pop("rows_built") + out.pop("rows_reused")
    return out


def lockstep(first, second, vocab, choices, same_stats=False, check=None):
    """Walk a random path with two matchers of one grammar: at every step the same mask
    (and stats, if asked; and `check(first, second)`, if given). A choice c consumes the
    (c mod k)-th allowed token, or rolls one token back when c mod 5 == 4 (so that rows are
    reused after a rollback)."""
    depth = 0
    for choice in list(choices) + [None]:
        a, b = first.mask(), second.mask()
        assert a == b, choices
        assert not same_stats or work(first.stats) == work(second.stats), choices
        if check is not None:
            check(first, second)
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


JSONISH = r"""
start: "{" pair ("," pair)* "}"
pair: KEY ":" value
value: STRING | NUMBER | "true" | "false" | "null" | "[" (value ("," value)*)? "]" | start
KEY: /"[a-z_]+"/
STRING: /"([^"\\\x00-\x1F\x7F]|\\["\\\/bfnrt])*"/
NUMBER: /-?(0|[1-9][0-9]*)(\.[0-9]+)?/
%ignore /[ \t\n\r]+/
"""
