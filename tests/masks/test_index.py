"""The token index (refimpl/masks/index/) against its definition and against the Matcher.

The V2 construction, with every combination of its steps, gives the naive index's table;
the index's masks along random paths equal the trie walk's and `naive_mask`; the
`"index"` backend's masks equal the python backend's. Vocabularies hold tokens that split
UTF-8 characters, empty and duplicate tokens, an EOS and another special token.
"""
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Matcher, Vocabulary, naive_mask, open_matcher
from refimpl.masks.index import DEAD, NotRegular, Steps, build_index, naive_index
from tests.support.budget import examples
from tests.support.grammars import regex_grammar, regexes, token_lists

#: every combination of the switchable steps (step 4, processes, is tested apart), muting
#: at once or after the default number of states
ALL_COMBINATIONS = [Steps(*flags[:3], 1, flags[3], mute_after)
                    for flags in itertools.product([True, False], repeat=4) for mute_after in (1, Steps().mute_after)]


def vocabulary(tokens):
    """The tokens, a duplicate of the first, an empty token, an EOS and another special."""
    tokens = list(tokens) + [tokens[0], b"", b"<eos>", b"a"]
    return Vocabulary.from_bytes(tokens, eos_token_id=len(tokens) - 2, special_token_ids=[len(tokens) - 1])


@settings(max_examples=examples(120))
@given(regexes, token_lists, st.sampled_from(ALL_COMBINATIONS))
def test_v2_equals_the_naive_index(pattern, tokens, steps):
    g, vocab = regex_grammar(pattern), vocabulary(tokens)
    assert build_index(g, vocab, steps).canonical() == naive_index(g, vocab).canonical()


@settings(max_examples=examples(120))
@given(regexes, token_lists, st.lists(st.integers(0, 1000), max_size=6))
def test_index_masks_along_paths(pattern, tokens, choices):
    """At every step: the index's mask = the walk's = the definition; the next state of
    every token is the DFA's state after its bytes."""
    g, vocab = regex_grammar(pattern), vocabulary(tokens)
    index = build_index(g, vocab)
    walking = Matcher(g, vocab)
    indexed = Matcher(g, vocab, backend="index", index=index)
    state, path = index.start, []
    for choice in choices:
        mask = index.mask(state)
        assert mask == walking.mask() == indexed.mask() == naive_mask(g, vocab, path)
        for t in range(len(vocab)):
            expected = DEAD if t in vocab.special_token_ids or not vocab.tokens[t] else index.dfa.run(vocab.tokens[t], state)
            assert index.next_state(state, t) == expected
        tokens_allowed = [t for t in mask.allowed() if t not in vocab.eos_token_ids]
        if not tokens_allowed:
            assert index.is_final(state) == (vocab.eos_token_ids[0] in mask)
            break
        t = tokens_allowed[choice % len(tokens_allowed)]
        assert walking.consume(t) and indexed.consume(t)
        state, path = index.next_state(state, t), path + [t]


def test_parallel_roots_equal_one_process():
    vocab = vocabulary([b"http", b"s", b"://", b"a", b"ab.", b"b", b".c", b"om", b"/x", b"\xc3", b"\xa9"])
    g = Grammar.from_regex(r"(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})([\/\w \.-]*)*\/?")
    assert build_index(g, vocab, Steps(workers=2)).canonical() == naive_index(g, vocab).canonical()


def test_a_row_of_more_than_255_targets():
    """A state whose tokens lead to 300 states: its row is an array of numbers, not bytes
    (the switch once read the bytearray's raw bytes and raised ValueError); the same table
    as the naive index, and the masks of the walk along a path."""
    vocab = vocabulary([b"%d" % i for i in range(100, 400)] + [b"="])
    g = Grammar.from_regex("|".join("%d=%d" % (i, i) for i in range(100, 400)))
    index = build_index(g, vocab)
    assert max(len(row.targets) for row in index.rows.values()) == 300
    assert index.canonical() == naive_index(g, vocab).canonical()
    walking, indexed = Matcher(g, vocab), Matcher(g, vocab, backend="index")
    for t in (223, 300, 223):  # "323", "=", "323"
        assert indexed.mask().allowed() == walking.mask().allowed()
        assert walking.consume(t) and indexed.consume(t)
    assert indexed.mask().allowed() == walking.mask().allowed() == [vocab.eos_token_ids[0]]


def test_muted_literals_coarsen_the_classes():
    """Past the literal, the states' classes no longer split the letters; a partition gets
    its own class trie once `mute_after` states have asked for it (the root's serves before)."""
    from refimpl.masks.index import build
    from refimpl.masks.index.naive import index_dfa

    vocab = vocabulary([b"https", b"://", b"a", b"ab", b"h", b"t", b"p", b"x"])
    g = Grammar.from_regex(r"(https://)?[a-z]+")
    muted = build_index(g, vocab)
    body = muted.next_state(muted.next_state(muted.start, 0), 1)  # after "https://"
    fine = build._Builder(muted.dfa, vocab, Steps())
    root = fine.class_trie(muted.start)
    assert all(fine.class_trie(body) is root for _ in range(Steps().mute_after - 1))
    coarse = fine.class_trie(body)  # asked mute_after times: its own trie
    assert coarse is not root and len(coarse.reps) < len(root.reps)
    assert build._Builder(muted.dfa, vocab, Steps(mute_after=1)).class_trie(body).reps == coarse.reps
    unmuted = build._Builder(index_dfa(g), vocab, Steps(muted_literals=False))
    assert len(unmuted.class_trie(body).reps) == len(root.reps)


@pytest.mark.parametrize("pattern", [r"(?s-u:.)*", r"ab(?-u:[\x00-\xff])*", r"(a|(?s-u:.)*b)"])
def test_every_byte_string(pattern):
    """Σ*, every byte string, is ¬∅ in the expression store: it holds no byte set, yet
    refuses no byte, so step 1 (dead bytes) may not read its uncovered bytes as dead. Once
    the index allowed only EOS there (the fuzzer found it: `((?s-u:.))*`)."""
    g = Grammar.from_regex(pattern)
    vocab = vocabulary([b"a", b"ab", b"\xff", b"\n", b"b\x00"])
    for steps in ALL_COMBINATIONS:
        assert build_index(g, vocab, steps).canonical() == naive_index(g, vocab).canonical(), steps
    checked = 0
    for path in ([], [0], [1, 2, 3]):
        indexed, walking = Matcher(g, vocab, backend="index"), Matcher(g, vocab)
        if indexed.consume_tokens(path) and walking.consume_tokens(path):
            assert indexed.mask() == walking.mask() == naive_mask(g, vocab, path), path
            checked += 1
    assert checked >= 2


def test_empty_grammar_too():
    """`start: x | ""`: the index's start state is final although x needs a letter."""
    g = Grammar.from_lark('start: x | ""\nx: /[a-z]+/')
    vocab = vocabulary([b"a", b"bc", b"1"])
    index = build_index(g, vocab)
    assert index.is_final(index.start)
    assert index.mask(index.start) == naive_mask(g, vocab) == Matcher(g, vocab, backend="index").mask()


@pytest.mark.parametrize("text, why", [
    ('start: x x\nx: /[a-z]/', "more than one lexeme"),
    ('start: x y\nx: /[a-z]/\ny: /[0-9]/', "2 lexemes"),
    ('start: /[a-z]+/\n%ignore " "', "%ignore"),
    ('start: x\nx[lazy]: /[a-z]+/', "lazy"),
    ('start: x\nx[max_tokens=3]: /[a-z]+/', "max_tokens"),
    ('start: <[5]>', "token read by id"),
])
def test_not_regular(text, why):
    with pytest.raises(NotRegular, match=why):
        open_matcher(Grammar.from_lark(text), vocabulary([b"a", b"b"]), backend="index")


def test_consume_bytes_inside_a_token_falls_back_to_the_walk():
    """After consume_bytes a state may have no row (no token ends there): the walk answers."""
    g = Grammar.from_regex("(ab|cd)e")
    vocab = vocabulary([b"abe", b"cde", b"e", b"c"])
    m, p = Matcher(g, vocab, backend="index"), Matcher(g, vocab)
    assert m.consume_bytes(b"a") and p.consume_bytes(b"a")
    assert m.index is not None and m.index.state_of(m.recognizer.lexer.states[m.recognizer.state][1][0][1]) is None
    assert m.mask() == p.mask() and m.stats["trie_nodes_walked"] > 0


def test_gpt2_https_regex():
    """The headline regex on GPT-2: V2's table is the naive one, masks equal the walk's."""
    real_vocab = Vocabulary.load("gpt2")
    g = Grammar.from_regex(r"(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})([\/\w \.-]*)*\/?")
    index = build_index(g, real_vocab)
    assert index.canonical() == naive_index(Grammar.from_regex(g.source), real_vocab).canonical()  # a fresh ExprSet
    m, p = Matcher(g, real_vocab, backend="index", index=index), Matcher(g, real_vocab)
    for text in [b"https://", b"example.", b"com/a b"]:
        assert m.mask() == p.mask()
        assert m.consume_bytes(text) and p.consume_bytes(text)
    assert m.mask() == p.mask()


def test_state_limit():
    """A regex with many states: LimitError naming index_states, from both constructions."""
    from refimpl import LimitError, Limits

    g = Grammar.from_regex("[a-z]{1,300}", limits=Limits(index_states=100))
    vocab = vocabulary([b"a", b"bc"])
    for build in (build_index, naive_index):
        with pytest.raises(LimitError, match="index_states=100"):
            build(g, vocab)


def test_matchers_of_one_grammar_share_its_index():
    g = Grammar.from_regex("[a-z]+[0-9]?")
    vocab, other = vocabulary([b"ab", b"c", b"1"]), vocabulary([b"a", b"b"])
    first, second = Matcher(g, vocab, backend="index"), Matcher(g, vocab, backend="index")
    assert first.index is second.index
    assert Matcher(g, other, backend="index").index is not first.index
