"""Special tokens: token lexemes and the Matcher's reading rule (refimpl/tokens/special.py,
refimpl/masks/matcher.py; docs/semantics.md, "Special tokens").

A grammar names tokens without a vocabulary (`<|eot|>`, `<think>`, `<[5]>`, `<[1-3,7]>`,
`<[^...]>`, `<[*]>`); a Matcher binds them to ids when it is created. A token is read as the
grammar asks: by id where a token lexeme may match it, else EOS ends a `stop=""` lexeme or
the output, else the token is its bytes. So a special token's text never matches grammar
text, and a text token may be matched by id.

Checked with exact ids on a hand-made vocabulary, against `naive_mask` on random grammars
and token paths (the Python walker and the native C walker), the C walker and the PyPy
worker against the Python walker, and llguidance 1.9.1 where it is installed.
"""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel import native
from conformance.peers import llguidance as adapter
from refimpl import Grammar, GrammarError, Matcher, Vocabulary, naive_mask, open_matcher
from tests.support.budget import examples
from tests.support.grammars import work
from tests.support.special import (
    EOS,
    EOT,
    SPECIAL,
    TEXT_EOT,
    THINK,
    TOKENS,
    WIDER,
    allowed_after,
    build,
    check_consume_agrees,
    grammar_of,
    ids,
    llg_grammar,
    matcher_after,
    special_grammars,
    texts,
    tid,
)

# -- backends -------------------------------------------------------------------------------

def _available(name):
    import accel

    reason = accel.available_backends().get(name, "not registered")
    if reason is not None:
        pytest.skip("backend %s: %s" % (name, reason))
    return name


@pytest.fixture(params=["python", "native", "pypy"])
def backend(request):
    return _available(request.param)


@pytest.fixture(params=["native", "pypy"])
def accelerated(request):
    """A backend other than the reference walk."""
    return _available(request.param)


# -- binding --------------------------------------------------------------------------------

ALL = list(range(len(TOKENS)))


#: token lexemes and the ids they bind to in SPECIAL
BINDINGS = [
    ("<|eot|>", [EOT]),
    ("<think>", [THINK]),
    ("</s>", [EOS]),
    ("<[5]>", [EOS]),
    ("<[18]>", [TEXT_EOT]),
    ("<[1-3,7]>", [1, 2, 3, 7]),
    ("<[7,1-3]>", [1, 2, 3, 7]),
    ("<[0-1,1-2,2]>", [0, 1, 2]),
    ("<[^1-3,7]>", [t for t in ALL if t not in (1, 2, 3, 7)]),
    ("<[^0]>", ALL[1:]),
    ("<[23]>", [23]),
    ("<[*]>", ALL),
]


@pytest.mark.parametrize("spec, expected", BINDINGS)
def test_a_token_lexeme_binds_to_exact_ids(spec, expected):
    assert allowed_after("start: %s" % spec) == expected


def test_every_backend_binds_the_same_ids(backend):
    """(One test per backend, not per grammar: a process backend starts once.)"""
    for spec, expected in BINDINGS:
        with open_matcher(Grammar.from_lark("start: %s" % spec), SPECIAL, backend=backend) as m:
            assert m.mask().allowed() == expected, spec
            for t in ALL:
                assert m.consume(t) == (t in expected), (spec, t)
                if t in expected:
                    assert m.is_accepting()
                    m.rollback(1)


def test_every_special_token_with_the_text_is_bound():
    assert allowed_after("start: <think>", vocab=WIDER) == [THINK, 25]
    assert allowed_after("start: <[*]>", vocab=WIDER) == list(range(len(WIDER)))  # the empty token too, by id


UNBOUND = [
    ('start: "a" <|foo|>', r"unknown special token <\|foo\|>: the vocabulary's special tokens are <\|eot\|>, <think>, </s>"),
    ("start: <[24]>", r"token range end too large in <\[24\]>: 24 \(the vocabulary has 24 tokens\)"),
    ("start: <[1,30-31]>", r"token range end too large in <\[1,30-31\]>: 31"),
    ("start: <[^0-24]>", r"token range end too large in <\[\^0-24\]>"),
    ('start: "a" sub\nsub: %lark {\nstart: <|bar|>\n}', r"unknown special token <\|bar\|>"),
]


def test_unknown_tokens_are_errors_when_a_matcher_is_created(backend):
    for source, message in UNBOUND:
        grammar = Grammar.from_lark(source)  # a grammar knows no vocabulary: no error yet
        with pytest.raises(GrammarError, match=message):
            open_matcher(grammar, SPECIAL, backend=backend)


@pytest.mark.parametrize("build, where", [
    (lambda: Grammar.from_lark('start: "a"\n  | <[99]>'), (2, 5)),
    (lambda: Grammar.from_gbnf('root ::= ("a"\n  | <[99]>)'), (2, 5)),
    (lambda: Grammar.from_ebnf('root ::= "a"\n  | Token(99)'), (2, 5)),
    (lambda: Grammar.from_ebnf('root ::= TokenTagDispatch((99, r))\nr ::= "a"'), (1, 10)),
    # an llguidance object: the place is in its Lark grammar, not in the object's JSON
    (lambda: Grammar.from_llguidance({"grammars": [{"lark_grammar": 'start: "a"\n  | <[99]>'}]}), (2, 5)),
])
def test_binding_errors_show_their_place_in_the_grammar_text(build, where):
    with pytest.raises(GrammarError, match="token range end too large") as e:
        Matcher(build(), SPECIAL)
    assert (e.value.line, e.value.column) == where


def test_a_text_token_is_no_special_token_name():
    """`<|eot|>` binds special tokens only: a vocabulary where the text is only a text token
    has no such special token."""
    text_only = Vocabulary([b"a", b"<|eot|>", b"</s>"], eos_token_ids=[2])
    with pytest.raises(GrammarError, match=r"unknown special token <\|eot\|>: the vocabulary's special tokens are </s>"):
        Matcher(Grammar.from_lark("start: <|eot|>"), text_only)
    with pytest.raises(GrammarError, match=r"special tokens are \(none\)"):
        Matcher(Grammar.from_lark("start: <|eot|>"), Vocabulary([b"a"]))


@pytest.mark.parametrize("source, message, where", [
    ("start: <[3-1]>", "invalid token range: 3-1", (1, 8)),
    ("start: <[^*]>", r"negated wildcard token <\[\^\*\]> is not supported", (1, 8)),
    ("start: <[*,1]>", "wildcard token range '\\*' must not contain additional tokens", (1, 8)),
    ("start: <[]>", "empty token range", (1, 8)),
    ('start: "a"\n  | <[a]>', r"invalid token range: a \(expected ids such as <\[5\]> or <\[5-9,12\]>\)", (2, 5)),
    ("start: X\nX: <|eot|>", r"special tokens \(like <\|eot\|>\) cannot be used in terminals", (2, 4)),
    ("start: x\nx[lazy]: <think>", r"special tokens \(like <think>\) cannot be used in terminals", (2, 10)),
])
def test_malformed_token_lexemes_are_grammar_errors(source, message, where):
    with pytest.raises(GrammarError, match=message) as e:
        Grammar.from_lark(source)
    assert (e.value.line, e.value.column) == where


def test_a_special_token_never_matches_as_text():
    assert allowed_after('start: "<|eot|>"') == ids("<|") + [TEXT_EOT]
    assert allowed_after('start: "<|eot|>"', ids("<|")) == ids("eot")
    assert allowed_after('start: "<|eot|>"', ids("<|", "eot")) == ids("|>")
    assert allowed_after('start: "<|eot|>"', [TEXT_EOT]) == [EOS]
    # a regex that matches the specials' texts matches their text tokens only
    assert allowed_after("start: /[<|>a-z]+/") == ids("a", "b", "ab", "x", "abab", "<|", "eot", "|>") + [TEXT_EOT] + ids(
        "aa", "ba", "c")
    m = matcher_after('start: <|eot|> "x"')
    assert m.mask().allowed() == [EOT]
    assert not m.consume(TEXT_EOT) and not m.consume(tid("<|")) and not m.consume_bytes(b"<|eot|>")


def test_a_text_token_may_be_matched_by_id():
    assert allowed_after('start: <[0]> "b"') == [0]  # "ab" would be text: no text matches <[0]>
    assert allowed_after('start: <[0]> "b"', [0]) == ids("b")
    assert not Matcher(Grammar.from_lark('start: <[0]> "b"'), SPECIAL).consume_bytes(b"a")
    assert allowed_after('start: <[18]> "x"') == [TEXT_EOT]
    assert allowed_after('start: <[18]> "x"', [TEXT_EOT]) == ids("x")


# -- the reading rule -----------------------------------------------------------------------


def test_a_token_is_read_by_id_first():
    """Where a token lexeme may match the token, it is read by id, not as its text."""
    source = 'start: <[0]> "x" | "a" "b"'
    assert allowed_after(source) == ids("a", "ab")
    assert allowed_after(source, ids("a")) == ids("x")  # not "b": "a" was read as <[0]>
    assert allowed_after(source, ids("ab")) == [EOS]  # "ab" is text
    assert allowed_after('start: <[0]>? "a" "b"', ids("a")) == ids("a", "ab")


def test_eos_as_a_token_lexeme():
    for source in ('start: "a" </s> "b"', 'start: "a" <[5]> "b"'):
        assert allowed_after(source) == ids("a")
        m = matcher_after(source, ids("a"))
        assert m.mask().allowed() == [EOS] and not m.is_accepting()
        m = matcher_after(source, ids("a", "</s>"))
        assert not m.eos_consumed and m.mask().allowed() == ids("b")
        m = matcher_after(source, ids("a", "</s>", "b"))
        assert m.mask().allowed() == [EOS] and m.consume(EOS) and m.eos_consumed and m.mask().allowed() == []
    # where </s> may come and the output may end, EOS is read as the token lexeme first
    m = matcher_after('start: "a" </s>?', ids("a"))
    assert m.is_accepting() and m.consume(EOS) and not m.eos_consumed
    assert m.mask().allowed() == [EOS] and m.consume(EOS) and m.eos_consumed


def test_ignored_text_before_a_token_lexeme():
    source = 'start: "a" <|eot|> "b"\n%ignore " "'
    assert allowed_after(source) == ids("a")
    assert allowed_after(source, ids("a")) == [EOT] + ids(" ")
    assert allowed_after(source, ids("a", " ", " ")) == [EOT] + ids(" ")
    assert allowed_after(source, ids("a", " ") + [EOT]) == ids("b", " ")


def test_a_token_lexeme_ends_the_pending_lexeme():
    assert allowed_after("start: /a+/ <|eot|>", ids("a")) == ids("a") + [EOT] + ids("aa")
    assert allowed_after("start: /a+/ <|eot|>", ids("a", "aa") + [EOT]) == [EOS]
    assert allowed_after("start: /a+c/ <|eot|>", ids("a")) == ids("a", "aa", "c")  # "a" cannot end here
    assert allowed_after("start: /[ab]+/ <|eot|> /[ab]+/", ids("ab") + [EOT]) == ids("a", "b", "ab", "abab", "aa", "ba")


def test_a_lazy_lexeme_before_a_token_lexeme():
    source = "start: x <|eot|>\nx[lazy]: /a+/"
    assert allowed_after(source) == ids("a")  # not "aa": the lazy lexeme ends at the first "a"
    assert allowed_after(source, ids("a")) == [EOT]
    assert allowed_after(source, ids("a") + [EOT]) == [EOS]


def test_rollback_across_token_reads():
    """EOS three ways: it ends the stop="" lexeme, it is the token lexeme </s>, it stops."""
    source = 'start: "a" <|eot|> x "b" </s>\nx[stop=""]: /a+/\n%ignore " "'
    path = ids("a", " ") + [EOT] + ids("a", "aa") + [EOS] + ids("b") + [EOS, EOS]
    m = Matcher(Grammar.from_lark(source), SPECIAL)
    masks = []
    for t in path:
        masks.append(m.mask())
        assert m.consume(t), texts(masks[-1].allowed())
    assert m.eos_consumed and m.mask().allowed() == []
    for mask in reversed(masks):
        m.rollback(1)
        assert m.mask() == mask
    assert m.consume_tokens(path)
    m.rollback(len(path) - 2)
    assert m.mask() == masks[2] and not m.eos_consumed
    matcher_after(source, path)  # every step against naive_mask


# -- random grammars and paths: the masks equal naive_mask, on every walker ------------------

def walk_against_naive(source, vocab, choices, backends=()):
    """A path through the masks: a choice c consumes the (c mod k)-th allowed token (EOS
    included: it may end a stop="" lexeme or the output), or, when c mod 7 = 6, rolls one
    back. At every step the mask is naive_mask's, consume agrees with it, and the matchers
    of `backends` give the same mask and stats."""
    grammar = grammar_of(source)
    m = Matcher(grammar, vocab)
    others = [open_matcher(grammar, vocab, backend=b) for b in backends]
    path, masks = [], []
    for c in list(choices) + [None]:
        mask = m.mask()
        assert mask == naive_mask(grammar, vocab, path), (source, path)
        for other in others:
            assert other.mask() == mask and work(other.stats) == work(m.stats), (other.backend, source, path)
        if c is None:
            break
        if c % 7 == 6 and path:
            path.pop()
            before = masks.pop()
            for x in [m] + others:
                x.rollback(1)
                assert x.mask() == before
            continue
        for x in [m] + others:  # the same calls on every matcher: their stats agree too
            check_consume_agrees(x, mask)
        if not mask.allowed():
            break
        t = mask.allowed()[c % len(mask.allowed())]
        assert all(x.consume(t) for x in [m] + others)
        path.append(t)
        masks.append(mask)


NATIVE = [] if native.unavailable_reason() else ["native"]


@settings(max_examples=examples(80))
@given(special_grammars(), st.lists(st.integers(0, 1000), max_size=8))
def test_masks_equal_the_naive_mask(source, choices):
    walk_against_naive(source, WIDER, choices, NATIVE)


# -- fixed grammars: every backend, and llguidance --------------------------------------------

#: grammars with token lexemes and lexeme options on which maskref and llguidance agree
AGREE = [
    "start: <|eot|>",
    'start: "a" <think> "b"',
    'start: <[0]> "x" | "a" "b"',
    'start: <[1-3,7]>+ "E"',
    'start: "a" <[^0-4]> "b"',
    'start: <[*]> "b"',
    'start: "a" </s> "b"',
    'start: "a" <[5]> "b"',
    'start: "a" </s>? "b"?',
    "start: /a+/ <|eot|>",
    "start: /[ab]+/ <|eot|> /[ab]+/",
    'start: "a" <|eot|> "b"\n%ignore " "',
    "start: x <|eot|>\nx[lazy]: /a+/",
    'start: "<|eot|>" | <|eot|> "x"',
    'start: x "b"\nx[suffix="E"]: /a+/',
    'start: x "b"\nx[suffix=/E+|x/]: /[ab]*/',
    'start: x "x" | <think>\nx[stop="E"]: /[ab]+/',
    'start: x "b"\nx[stop="E"]: /a+/',
    'start: x "b"\nx[stop=/E+|x/]: /[ab]*/ | "a" "Eb"',
    'start: x "E"\nx[stop=""]: /a+/',
    'start: x\nx[stop=""]: /[ab]+/',
    'start: x <|eot|> "b"\nx[stop=""]: /[aé]+/',
    'start: x "b"\nx[max_tokens=2]: /a+/',
    'start: x <|eot|>\nx[max_tokens=3]: /[ab]+/',  # (with é, a budget may end within a character: 10)
    'start: <think> x "b"\nx[max_tokens=2]: /a+/',
    "start: x | Y\nx[max_tokens=1]: /a+/\nY: /a+b/",
    'start: "a" x "b"\nx[max_tokens=0]: /a+/',
    'start: x "b"\nx[temperature=0.5]: "a" "a"\n%ignore " "',
    'start: "a" sub <|eot|>\nsub: %lark {\nstart: /[ab]+/ <think> "x"\n%ignore "-"\n}\n%ignore " "',
    {"grammars": [{"lark_grammar": 'start: @sub <|eot|> "x"'},
                  {"name": "sub", "lark_grammar": 'start: "a" <[0-1]> y\ny[stop=""]: /b+/\n%ignore " "'}]},
]

#: (grammar, path, maskref's mask after it, llguidance 1.9.1's): where the two differ,
#: asserted as each engine behaves (docs/semantics.md, "Known differences from llguidance")
DIFFERENCES = [
    # 9: llguidance counts the token that ended the previous lexeme at its last byte (no
    # byte of it went to x) ...
    ('start: "b" x "b"\nx[max_tokens=2]: /a+/', ["b", "a"], ["a", "b", "ab", "aa"], ["b"]),
    # ... and does not count the token in which a greedy lexeme ended (its "a" went to x)
    ('start: B x "b"\nB: /b+/\nx[max_tokens=2]: /a+/', ["ba", "a"], ["b"], ["a", "b", "ab", "aa"]),
    # 10: a spent budget where the lexeme cannot end: maskref's state is dead, llguidance
    # ends the lexeme anyway (and accepts "ab", which the grammar does not)
    ('start: x "b"\nx[max_tokens=1]: /a+c/', ["a"], [], ["b"]),
    # 16: a stop= text that what follows is forced to begin
    # with is, in llguidance, not hidden but read again as the start of what follows (its
    # handle_hidden_bytes); maskref hides it and then wants the "b" of the grammar
    ('start: x "b"\nx[stop="b"]: /a+/', ["a", "b"], ["b"], ["</s>"]),
    # 17: stop="" on a match that cannot grow. llguidance has
    # ended the lexeme at once, so EOS may not end it; maskref keeps it pending, and EOS may
    ('start: x "b"\nx[stop=""]: "a"', ["a"], ["b", "</s>"], ["b"]),
    # 18: a token that two allowed token lexemes match is read
    # as both by maskref, as the first in the grammar by llguidance ("b" if the two
    # alternatives are swapped)
    ('start: <[1-3]> "a" | <|eot|> "b"', ["<|eot|>"], ["a", "b"], ["a"]),
    # 19: EOS where a stop="" lexeme is pending and a token
    # lexeme matching EOS may follow it: maskref reads it as the token lexeme (reading rule
    # 1), llguidance as the end of the stop="" lexeme (rule 2), so </s> is still to come
    ('start: x </s> "b"\nx[stop=""]: /a+/', ["a", "</s>"], ["b"], ["</s>"]),
    # 20: llguidance makes one lexeme of a stop="" lexeme and
    # another with the same regex (lexerspec.rs does not compare stop=""), the first
    # written deciding whether EOS may end both
    ('start: "b" x "c" | /a+/ "c"\nx[stop=""]: /a+/', ["a"], ["a", "aa", "c"], ["a", "</s>", "aa", "c"]),
    ('start: /a+/ "c" | "b" x "c"\nx[stop=""]: /a+/', ["b", "a"], ["a", "</s>", "aa", "c"], ["a", "aa", "c"]),
]


def test_backends_give_the_python_masks(accelerated):
    """The native walker and the PyPy worker, along random paths with rollbacks."""
    for source in AGREE + [d[0] for d in DIFFERENCES]:
        grammar = build(source)
        rng = random.Random(repr(source))
        ref, other = Matcher(grammar, SPECIAL), open_matcher(grammar, SPECIAL, backend=accelerated)
        for _ in range(3):
            depth = 0
            for _ in range(10):
                mask = ref.mask()
                assert other.mask() == mask and other.is_accepting() == ref.is_accepting(), (source, depth)
                if depth and rng.random() < 0.2:
                    ref.rollback(1)
                    other.rollback(1)
                    depth -= 1
                    continue
                if not mask.allowed():
                    break
                t = rng.choice(mask.allowed())
                assert ref.consume(t) and other.consume(t)
                depth += 1
            ref.rollback(depth)
            other.rollback(depth)
        other.close()


@pytest.fixture(scope="module")
def llg():
    llguidance = pytest.importorskip("llguidance", reason="llguidance is not installed (pip install -e '.[peers]')")
    return llguidance, adapter.tokenizer(SPECIAL, slices=[])


def their_matcher(llg, source):
    """llguidance's matcher (forcing off) for a Lark grammar or a top-level grammar object."""
    llguidance, tok = llg
    if isinstance(source, str):
        return adapter.matcher(tok, "lark", source)
    m = llguidance.LLMatcher(tok, llg_grammar(source), log_level=0)
    assert not m.is_error(), m.get_error()
    return m


def their_allowed(m):
    bits = m.compute_bitmask()
    return [t for t in ALL if (bits[t >> 3] >> (t & 7)) & 1]


@pytest.mark.parametrize("source", AGREE, ids=repr)
def test_masks_equal_llguidance(llg, source):
    """Along random paths (EOS included where it does not stop maskref), while neither
    engine has stopped (llguidance stops by itself where only EOS may follow)."""
    grammar = build(source)
    rng = random.Random(repr(source))
    compared = 0
    for _ in range(6):
        ours, theirs = Matcher(grammar, SPECIAL), their_matcher(llg, source)
        path = []
        while len(path) < 10 and not ours.eos_consumed and not theirs.is_stopped():
            mask = ours.mask().allowed()
            assert texts(mask) == texts(their_allowed(theirs)), (source, texts(path))
            compared += 1
            if not mask:
                break
            t = rng.choice(mask)
            assert ours.consume(t) and theirs.consume_token(t), (source, texts(path), TOKENS[t])
            path.append(t)
    assert compared >= 6


@pytest.mark.parametrize("source, path, ours, theirs", DIFFERENCES, ids=[repr(d[0]) for d in DIFFERENCES])
def test_differences_from_llguidance(llg, source, path, ours, theirs):
    assert texts(allowed_after(source, ids(*path))) == [t.encode() for t in ours]
    m = their_matcher(llg, source)
    assert all(m.consume_token(t) for t in ids(*path))
    assert texts(their_allowed(m)) == [t.encode() for t in theirs]
