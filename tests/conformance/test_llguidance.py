"""Masks equal llguidance's (with no_forcing) on the real GPT-2 vocabulary.

Runs when llguidance is installed (the `peers` extra); otherwise skipped with a message.
Random valid paths: at every step both engines give their full mask, compared bit for
bit, and a random allowed token is consumed by both. Every disagreement is fixed or
written in docs/semantics.md.
"""
import random

import pytest

from refimpl import Grammar, Matcher, Vocabulary

llguidance = pytest.importorskip("llguidance", reason="llguidance is not installed (pip install -e '.[peers]')")

from conformance.peers import llguidance as llguidance_adapter  # noqa: E402

REGEXES = [
    "[0-9]+",
    "[a-z ]{1,20}",
    '"([^"\\\\]|\\\\.)*"',
    "(yes|no|maybe)",
    "-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?",
    "[^\"]*",
    "\\p{Greek}+ ?\\w*",
    "(?i)hello( world)?",
]

LARK = [
    'start: item ("," item)*\nitem: NUMBER | WORD\n%import common.NUMBER\n%import common.WORD\n%ignore " "',
    'start: expr\nexpr: term (("+" | "-") term)*\nterm: factor (("*" | "/") factor)*\n'
    'factor: NUMBER | "(" expr ")"\nNUMBER: /[0-9]+/\n%ignore /[ \\t]+/',
    'start: "{" pair ("," pair)* "}"\npair: KEY ":" VALUE\nKEY: /"[a-z]+"/\nVALUE: /[0-9]+/ | "true" | "false"',
    'start: line+\nline: /[a-z]+/ "\\n"',
    'start: A B | A C\nA: "ab"\nB: /c+/\nC: "cd"',
    'start: text "<end>"\ntext[lazy]: /(.|\\n)*/',
    '%llguidance {"ignore_once": true}\nstart: WORD ("," WORD)*\nWORD: /[a-z]+/\n%ignore /[ \\t]{1,3}/',
]


@pytest.fixture(scope="module")
def gpt2():
    v = Vocabulary.load("gpt2")
    return v, llguidance_adapter.tokenizer(v, slices=[])


def compare_along_random_paths(vocab, tok, kind, source, steps=12, paths=3):
    grammar = Grammar.from_regex(source) if kind == "regex" else Grammar.from_lark(source)
    rng = random.Random(source)
    for _ in range(paths):
        ours = Matcher(grammar, vocab)
        theirs = llguidance_adapter.matcher(tok, kind, source)
        for _ in range(steps):
            mask = ours.mask()
            their_bits = theirs.compute_bitmask()
            if mask.to_bytes() != their_bits[: len(mask.to_bytes())]:
                only_ours = [t for t in mask.allowed() if not (their_bits[t >> 3] >> (t & 7)) & 1]
                only_theirs = [t for t in range(len(vocab)) if (their_bits[t >> 3] >> (t & 7)) & 1 and t not in mask]
                pytest.fail(
                    "%s %r after %r: only maskref allows %r; only llguidance allows %r"
                    % (kind, source, vocab.decode(ours_path(ours)), [vocab.tokens[t] for t in only_ours[:10]],
                       [vocab.tokens[t] for t in only_theirs[:10]])
                )
            choices = [t for t in mask.allowed() if t not in vocab.eos_token_ids]
            if not choices:
                break
            t = rng.choice(choices)
            assert ours.consume(t)
            assert theirs.consume_token(t)


def ours_path(m):
    return [s.token_id for s in m._steps if s.token_id is not None]


@pytest.mark.parametrize("pattern", REGEXES)
def test_regex_masks_equal_llguidance(gpt2, pattern):
    compare_along_random_paths(*gpt2, "regex", pattern)


@pytest.mark.parametrize("text", LARK)
def test_lark_masks_equal_llguidance(gpt2, text):
    compare_along_random_paths(*gpt2, "lark", text)
