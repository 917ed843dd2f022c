"""Special tokens and token lexemes: a hand-made vocabulary, matchers checked against the
naive mask at every step, and random grammars mixing text, token lexemes, lexeme options
and sub-grammars (tests/tokens/test_special.py and the tests that read tokens by id).
Also `build` (a Lark grammar or llguidance's top-level grammar object) and `llg_grammar`
(the same for llguidance, forcing off)."""
import json

from hypothesis import assume
from hypothesis import strategies as st

from refimpl import Grammar, GrammarError, LimitError, Matcher, Vocabulary, naive_mask


def build(source):
    return Grammar.from_lark(source) if isinstance(source, str) else Grammar.from_llguidance(source)


def llg_grammar(source) -> str:
    """llguidance's grammar text for a source: forcing off in the start grammar."""
    head = '%llguidance {"no_forcing": true}\n'
    if isinstance(source, str):
        return head + source
    obj = json.loads(json.dumps(source))
    if "lark_grammar" in obj["grammars"][0]:
        obj["grammars"][0]["lark_grammar"] = head + obj["grammars"][0]["lark_grammar"]
    return json.dumps(obj)


#: text tokens (multi-byte, UTF-8 splitting, spelling a special token's text), two special
#: tokens and EOS; llguidance reads the same vocabulary (no empty token)
TOKENS = [b"a", b"b", b"<|eot|>", b"<think>", b"ab", b"</s>", b"x", b" ", b"E", b"aE", b"abab", b"\xc3",
          b"\xa9", b"\xc3\xa9", b"a\xc3", b"<|", b"eot", b"|>", b"<|eot|>", b"-", b"Eb", b"aa", b"ba", b"c"]
EOT, THINK, EOS, TEXT_EOT = 2, 3, 5, 18
SPECIAL = Vocabulary(TOKENS, eos_token_ids=[EOS], special_token_ids=[EOT, THINK])
#: the same, plus an empty token and a second special token spelled <think>
WIDER = Vocabulary(TOKENS + [b"", b"<think>"], eos_token_ids=[EOS], special_token_ids=[EOT, THINK, 25])


def tid(text):
    """The id of a token by its text (the first one: special ids come before text ids)."""
    return TOKENS.index(text.encode("utf-8") if isinstance(text, str) else text)


def ids(*texts):
    return [tid(t) for t in texts]


def texts(allowed):
    return [TOKENS[t] for t in allowed]


def check_consume_agrees(m, mask):
    """Every token is consumed iff the mask allows it; a rollback restores the mask."""
    for t in range(len(m.vocab)):
        ok = m.consume(t)
        assert ok == (t in mask), (t, m.vocab.tokens[t], mask.allowed())
        if ok:
            m.rollback(1)
            assert m.mask() == mask


def matcher_after(source, path=(), vocab=SPECIAL):
    """A Matcher that has consumed `path`; before each token and at the end, its mask is
    naive_mask's and consume agrees with it."""
    grammar = build(source)
    m = Matcher(grammar, vocab)
    for i in range(len(path) + 1):
        mask = m.mask()
        assert mask == naive_mask(grammar, vocab, path[:i]), (source, path[:i])
        check_consume_agrees(m, mask)
        if i < len(path):
            assert m.consume(path[i]), (source, path[: i + 1])
    return m


def allowed_after(source, path=(), vocab=SPECIAL):
    return matcher_after(source, path, vocab).mask().allowed()


TEXT_ITEMS = ['"a"', '"b"', '"ab"', "/a+/", "/[ab]+/", '"é"', "/é+/", '"E"', '"x"', "/[<|>a-z]+/"]
TOKEN_ITEMS = ["<|eot|>", "<think>", "</s>", "<[0]>", "<[1-3,7]>", "<[^0-4]>", "<[*]>", "<[5]>", "<[18]>"]
#: rules whose options make them lexemes, by name
OPTION_RULES = {
    "lz": ["lz[lazy]: /a+/", "lz[lazy]: /[ab]*b/"],
    "st": ['st[stop="b"]: /a*/', "st[stop=/E+|x/]: /[ab]+/", 'st[suffix="E"]: /a+/', "st[suffix=/b|é/, capture]: /a*/"],
    "se": ['se[stop=""]: /a+/', 'se[stop=""]: /[ab]+/', 'se[stop=""]: /é+/'],
    "mt": ["mt[max_tokens=%d]: /a+/", "mt[max_tokens=%d]: /[ab]+b/", "mt[max_tokens=%d]: /(ab)+/",
           "mt[max_tokens=%d]: /[aé]+/"],
}
SUB_IGNORES = ['"-"', '/[- ]+/']


def _sequences(draw, names):
    """One to three items (text, token lexemes, names), each maybe with ?, * or +."""
    items = st.one_of(st.sampled_from(TEXT_ITEMS), st.sampled_from(TOKEN_ITEMS), st.sampled_from(names))
    sequence = [draw(items) + draw(st.sampled_from(["", "", "?", "*", "+"])) for _ in range(draw(st.integers(1, 3)))]
    return " ".join(sequence)


@st.composite
def special_grammars(draw):
    """A Lark grammar, or a top-level grammar object, mixing text lexemes, token lexemes,
    rules with lexeme options, %ignore and a sub-grammar with its own %ignore (a nested
    `%lark { }` or `@sub`), itself with token lexemes and a stop="" lexeme."""
    names = sorted(draw(st.sets(st.sampled_from(sorted(OPTION_RULES) + ["sub"]), max_size=3)))
    alternatives = [_sequences(draw, names or ['"a"']) for _ in range(draw(st.integers(1, 2)))]
    unused = [name for name in names if name not in " ".join(alternatives).split()]
    lines = ["start: " + " | ".join([" ".join([alternatives[0]] + unused)] + alternatives[1:])]
    for name in names:
        if name in OPTION_RULES:
            rule = draw(st.sampled_from(OPTION_RULES[name]))
            lines.append(rule % draw(st.integers(0, 3)) if "%d" in rule else rule)
    if draw(st.booleans()):
        lines.append('%ignore " "')
    if "sub" not in names:
        return "\n".join(lines)
    inner = ["start: " + _sequences(draw, ["y"]), 'y[stop=""]: /b+/', "%ignore " + draw(st.sampled_from(SUB_IGNORES))]
    if draw(st.booleans()):
        return "\n".join(lines + ["sub: %lark {"] + inner + ["}"])
    lines[0] = lines[0].replace("sub", "@sub")
    return {"grammars": [{"lark_grammar": "\n".join(lines)}, {"name": "sub", "lark_grammar": "\n".join(inner)}]}


def grammar_of(source):
    try:
        return build(source)
    except (GrammarError, LimitError):
        assume(False)
