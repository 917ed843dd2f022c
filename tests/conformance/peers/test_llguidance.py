"""llguidance as an engine under test (conformance/peers/llguidance/).

Where llguidance is installed (the `peers` extra; otherwise those tests are skipped with a
message): masks equal llguidance's (with no_forcing) on the real GPT-2 vocabulary along
random valid paths — at every step both engines give their full mask, compared bit for
bit, and a random allowed token is consumed by both; every disagreement is fixed or
written in docs/semantics.md —, the default suite differs only by known differences, and
each of llguidance's findings has its vector. Without it: each known difference's
predicate recognises its case and not a near miss.
"""
import os
import random

import pytest

from conformance.divergence import Divergence
from conformance.generate import SUITE_DIR
from conformance.peers import llguidance as llguidance_adapter
from conformance.peers.llguidance.differences import KNOWN_DIFFERENCES
from conformance.registry import get_engine
from conformance.runner import check_vector, run_suite
from conformance.vectors import GrammarSpec, byte_vocabulary, load_builtin, read_vectors, record
from refimpl import Grammar, Matcher, Vocabulary

try:
    import llguidance
except ImportError:  # the peers extra
    llguidance = None

needs_llguidance = pytest.mark.skipif(llguidance is None, reason="llguidance is not installed (pip install -e '.[peers]')")

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
    if llguidance is None:
        pytest.skip("llguidance is not installed (pip install -e '.[peers]')")
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


@needs_llguidance
def test_the_default_suite_differs_only_by_known_differences(tmp_path):
    backend = get_engine("llguidance")
    report = run_suite(backend, SUITE_DIR, str(tmp_path), quiet=True)
    assert not report.failures(), report.table()
    assert report.total()["agree"] > 0


@needs_llguidance
def test_known_differences_are_recognised(tmp_path):
    """A documented llguidance difference is reported as known, not as a disagreement."""
    backend = get_engine("llguidance")
    spec = GrammarSpec("lark", "start: A lz\nA: /a+/\nlz[lazy]: /[0-9]+/\n")
    vector = record(spec.compile(), spec, byte_vocabulary(), [ord("a"), ord("1")], "test/lazy")
    r = check_vector(backend, vector)
    assert r.status == "known" and r.known == ["lazy-after-greedy"]


# llguidance's known differences with special tokens, lexeme options, sub-grammars and JSON
# numbers: the suite has a minimal vector for each (docs/findings.md, L6-L13)
LLGUIDANCE_FINDINGS = {
    "findings/llguidance-stop-eos-primary/special/0": "stop-eos-primary-only",
    "findings/llguidance-eos-before-token-lexeme/bytes/0": "eos-before-token-lexeme",
    "findings/llguidance-first-token-lexeme/special/0": "token-read-by-first-lexeme",
    "findings/llguidance-marker-bytes/marker/0": "special-marker-bytes",
    "findings/llguidance-subgrammar-ignore/bytes/0": "subgrammar-ignore",
    "findings/llguidance-subgrammar-skip-panic/bytes/0": "subgrammar-skip-panic",
    "findings/llguidance-empty-first-lexeme/bytes/0": "empty-first-lexeme",
    "findings/llguidance-stop-eos-complete-lexeme/bytes/0": "stop-eos-after-complete-lexeme",
    "findings/llguidance-negative-fraction/bytes/0": "negative-fraction-trailing-zero",
    "findings/llguidance-negative-fraction/gpt2/0": "negative-fraction-trailing-zero",
    "findings/llguidance-bound-prefix/bytes/0": "bound-prefix-or-trailing-zero",
    "findings/llguidance-bound-prefix/bytes/1": "bound-prefix-or-trailing-zero",
    "findings/llguidance-bound-prefix/gpt2/0": "bound-prefix-or-trailing-zero",
    "findings/llguidance-bound-prefix/gpt2/1": "bound-prefix-or-trailing-zero",
    "findings/llguidance-regex-trailing-backslash/bytes/0": "regex-trailing-backslash",
    "findings/llguidance-escape-in-negated-class/bytes/0": "escape-in-negated-class",
    "findings/llguidance-ecma-dot/bytes/0": "ecma-dot-and-space",
    "findings/llguidance-ecma-dot/bytes/1": "ecma-dot-and-space",
    "findings/llguidance-ecma-space-partial/bytes/0": "ecma-dot-and-space",
    "findings/llguidance-email-quoted/bytes/0": "email-dot-string-only",
    "findings/llguidance-hostname-length/bytes/0": "hostname-any-length",
    "findings/llguidance-ipv6-ipv4-tail/bytes/0": "ipv6-without-ipv4-tail",
    "findings/llguidance-leap-day-and-second/bytes/0": "leap-day-and-second",
    "findings/llguidance-leap-day-and-second/bytes/1": "leap-day-and-second",
    "tokens/max-tokens-first-byte/special/0": "max-tokens-row-count",
    "tokens/max-tokens-row-start/bytes/0": "max-tokens-row-count",
    "tokens/max-tokens-dead/special/0": "max-tokens-dead",
}


@needs_llguidance
def test_llguidance_known_differences_on_their_vectors():
    backend = get_engine("llguidance")
    found = {}
    for _, _, v in read_vectors(SUITE_DIR):
        if v.id in LLGUIDANCE_FINDINGS:
            r = check_vector(backend, v)
            found[v.id] = r.status, [k for k in r.known if k != "after-eos"]
    assert found == {vid: ("known", [name]) for vid, name in LLGUIDANCE_FINDINGS.items()}


def _differences():
    return {k.name: k for k in KNOWN_DIFFERENCES}


def test_llguidance_predicates_are_exact():
    """Each new predicate explains its case and not a near miss: another token, another
    state, another grammar."""
    k = _differences()
    v = load_builtin("special")
    eot, eot2 = v.eos_token_ids
    stop = GrammarSpec("lark", 'start: x "!"\nx[stop=""]: /[a-z]+/\n')
    assert k["stop-eos-primary-only"].applies(Divergence(stop, v, [ord("a")], 1, [], [eot2]))
    assert not k["stop-eos-primary-only"].applies(Divergence(stop, v, [ord("a")], 1, [], [eot]))
    assert not k["stop-eos-primary-only"].applies(Divergence(stop, v, [ord("a")], 1, [], [eot2, ord("b")]))
    assert not k["stop-eos-primary-only"].applies(Divergence(stop, v, [], 0, [], [eot2]))
    first = GrammarSpec("lark", 'start: "1" x "!"\nx[max_tokens=2]: /[a-z]+/\n')
    letters = list(range(ord("a"), ord("z") + 1))
    aaa = v.tokens.index(b"aaa")
    assert k["max-tokens-row-count"].applies(Divergence(first, v, [ord("1"), aaa], 2, [], letters))
    assert not k["max-tokens-row-count"].applies(Divergence(first, v, [ord("1")], 1, [], letters))
    wide = GrammarSpec("lark", 'start: "1" x "!"\nx[max_tokens=5]: /[a-z]+/\n')
    assert not k["max-tokens-row-count"].applies(Divergence(wide, v, [ord("1"), aaa], 2, [], letters))
    dead = GrammarSpec("lark", 'start: "12" x "!"\nx[max_tokens=2]: /[a-z]+[0-9]/\n')
    ab, twelve = v.tokens.index(b"ab"), v.tokens.index(b"12")
    assert k["max-tokens-dead"].applies(Divergence(dead, v, [twelve, ab, ab], 3, [ord("!")], []))
    assert not k["max-tokens-dead"].applies(Divergence(dead, v, [twelve, ab], 2, [ord("!")], []))
    marker = GrammarSpec("lark", 'start: "a" <eos>\n')
    mv = Vocabulary.from_bytes([b"a", b"\xff[", b"\xff<", b"<eos>"], eos_token_id=3)
    assert k["special-marker-bytes"].applies(Divergence(marker, mv, [0], 1, [1], []))
    assert not k["special-marker-bytes"].applies(Divergence(marker, mv, [0], 1, [2], []))
    assert not k["special-marker-bytes"].applies(Divergence(marker, mv, [], 0, [1], []))
    ambiguous = GrammarSpec("lark", 'start: <think>? <[282-283]> "x"\n')
    think = v.tokens.index(b"<think>")
    assert k["token-read-by-first-lexeme"].applies(Divergence(ambiguous, v, [think], 1, [], [ord("x")]))
    assert not k["token-read-by-first-lexeme"].applies(Divergence(ambiguous, v, [think], 1, [ord("y")], []))
    assert not k["token-read-by-first-lexeme"].applies(Divergence(ambiguous, v, [], 0, [], [ord("x")]))
    eos_first = GrammarSpec("lark", 'start: "a" (<eos> "b")?\n')
    b = load_builtin("bytes")
    assert k["eos-before-token-lexeme"].applies(Divergence(eos_first, b, [ord("a"), 256], 2, [256], [ord("b")]))
    assert not k["eos-before-token-lexeme"].applies(Divergence(eos_first, b, [ord("a")], 1, [256], [ord("b")]))
    sub = GrammarSpec("lark", 'start: sub+ "!"\nsub: %lark {\nstart: "a"\n%ignore " "\n}\n')
    assert k["subgrammar-ignore"].applies(Divergence(sub, b, [ord("a")], 1, [ord(" ")], []))
    assert not k["subgrammar-ignore"].applies(Divergence(sub, b, [ord("a")], 1, [ord("b")], []))
    assert not k["subgrammar-ignore"].applies(Divergence(sub, b, [], 0, [ord(" ")], []))
    complete = GrammarSpec("lark", 'start: o "a"\no[stop=""]: "a"\n')
    extends = GrammarSpec("lark", 'start: o "a"\no[stop=""]: /a+/\n')
    assert k["stop-eos-after-complete-lexeme"].applies(Divergence(complete, b, [ord("a")], 1, [], [256]))
    assert not k["stop-eos-after-complete-lexeme"].applies(Divergence(extends, b, [ord("a")], 1, [], [256]))
    empty_first = GrammarSpec("lark", 'start: O "a"\nO: /[a-z]*/\n%ignore ","\n')
    assert k["empty-first-lexeme"].applies(Divergence(empty_first, b, [], 0, [ord(",")], []))
    assert not k["empty-first-lexeme"].applies(Divergence(empty_first, b, [], 0, [ord(";")], []))
    assert not k["empty-first-lexeme"].applies(Divergence(GrammarSpec("lark", 'start: O "a"\nO: /[a-z]+/\n'
                                                                      '%ignore ","\n'), b, [], 0, [ord(",")], []))
    bounded = GrammarSpec("json_schema", schema={"type": "number", "minimum": -1})
    text = [ord(c) for c in "-0.10"]
    assert k["negative-fraction-trailing-zero"].applies(Divergence(bounded, b, text, 5, [], [256]))
    assert not k["negative-fraction-trailing-zero"].applies(Divergence(bounded, b, text[:-1], 4, [], [256]))
    assert not k["negative-fraction-trailing-zero"].applies(
        Divergence(GrammarSpec("json_schema", schema={"type": "number"}), b, text, 5, [], [256]))
    capped = GrammarSpec("json_schema", schema={"type": "number", "maximum": 100.25, "exclusiveMinimum": 0.5})
    for written, token, explained in (("100.2", 256, True), ("100.25", ord("0"), True), ("0.510", 256, True),
                                      ("100.1", 256, False), ("100.20", 256, False), ("0.51", 256, False),
                                      ("100.2", ord("4"), False), ("10.2", 256, False), ("-100.2", 256, False)):
        text = [ord(c) for c in written]
        assert k["bound-prefix-or-trailing-zero"].applies(Divergence(capped, b, text, len(text), [], [token])) == \
            explained, (written, token)
    assert not k["bound-prefix-or-trailing-zero"].applies(Divergence(capped, b, [ord(c) for c in "100.2"], 5, [256], []))
    assert not k["bound-prefix-or-trailing-zero"].applies(
        Divergence(GrammarSpec("json_schema", schema={"type": "number", "maximum": 100}), b, [49, 48, 46, 50], 4, [],
                   [256]))
    accepted = "accepts a grammar refimpl refuses: RegexError (offset 2)"
    for source, explained in (("ab\\", True), ("a\\\\\\", True), ("a\\\\", False), ("a(", False)):
        regex = GrammarSpec("regex", source)
        assert k["regex-trailing-backslash"].applies(Divergence(regex, b, [], 0, [], [], error=accepted)) == explained
    assert not k["regex-trailing-backslash"].applies(Divergence(GrammarSpec("regex", "ab\\"), b, [], 0, [], [],
                                                                error="start: RuntimeError: x"))
    panic = "mask: RuntimeError: llguidance: panic: grammar stack empty for non-root grammar: {LexemeClass(1)}"
    assert k["subgrammar-skip-panic"].applies(Divergence(sub, b, [ord("a")], 1, [], [], error=panic))
    assert not k["subgrammar-skip-panic"].applies(Divergence(sub, b, [ord("a")], 1, [], [], error="mask: panic: x"))


def test_llguidance_hostname_hyphens():
    HOSTNAME_HYPHENS = KNOWN_DIFFERENCES.named("hostname-hyphens")

    b = load_builtin("bytes")
    host = GrammarSpec("json_schema", schema={"type": "string", "format": "hostname"})
    text = [ord(c) for c in '"ab']
    assert HOSTNAME_HYPHENS.applies(Divergence(host, b, text + [ord("-")], 4, [ord("-")], []))
    assert not HOSTNAME_HYPHENS.applies(Divergence(host, b, text, 3, [ord("-")], []))  # ab- is fine
    plain = GrammarSpec("json_schema", schema={"type": "string"})
    assert not HOSTNAME_HYPHENS.applies(Divergence(plain, b, text + [ord("-")], 4, [ord("-")], []))


def test_llguidance_escape_in_negated_class():
    ESCAPE_IN_NEGATED_CLASS = KNOWN_DIFFERENCES.named("escape-in-negated-class")

    b = load_builtin("bytes")
    no_backslash = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^[^\\\\]*$"})
    text = [ord(c) for c in '"a\\']  # "a and a backslash: an escape begins
    assert ESCAPE_IN_NEGATED_CLASS.applies(Divergence(no_backslash, b, text, 3, [ord("\\")], []))
    assert not ESCAPE_IN_NEGATED_CLASS.applies(Divergence(no_backslash, b, text, 3, [ord("n")], []))  # \n: not it
    assert not ESCAPE_IN_NEGATED_CLASS.applies(Divergence(no_backslash, b, text, 3, [ord("\\")], [ord("n")]))
    escaped = [ord(c) for c in '"\\\\']  # "\\ : the backslash escaped, another token after it
    assert not ESCAPE_IN_NEGATED_CLASS.applies(Divergence(no_backslash, b, escaped, 3, [ord("a")], []))
    other = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^[^x]*$"})
    assert not ESCAPE_IN_NEGATED_CLASS.applies(Divergence(other, b, text, 3, [ord("\\")], []))


def test_llguidance_ecma_dot_and_space():
    ECMA_CLASSES = KNOWN_DIFFERENCES.named("ecma-dot-and-space")

    b = load_builtin("bytes")
    dot = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^.{0,2}$"})
    escape = [ord(c) for c in '"\\']  # an escape begins
    assert ECMA_CLASSES.applies(Divergence(dot, b, escape, 2, [ord("r")], []))  # \r: CR
    assert not ECMA_CLASSES.applies(Divergence(dot, b, escape, 2, [ord("n")], []))  # \n: both leave it out
    ls = list(b'"\xe2\x80')  # U+2028 is E2 80 A8
    assert ECMA_CLASSES.applies(Divergence(dot, b, ls, 3, [0xA8], []))
    assert not ECMA_CLASSES.applies(Divergence(dot, b, ls, 3, [0xA7], []))
    space = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^\\s$"})
    assert ECMA_CLASSES.applies(Divergence(space, b, list(b'"\xef\xbb'), 3, [], [0xBF]))  # U+FEFF: ECMA only
    literal = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^a\\.b$"})
    assert not ECMA_CLASSES.applies(Divergence(literal, b, escape, 2, [ord("r")], []))


def test_llguidance_ecma_space_before_a_whole_character():
    """U+FEFF (EF BB BF) is ECMA's white space, not Rust's: refimpl alone allows its first
    byte where \\s may come, and nothing else starts with it there."""
    ECMA_CLASSES = KNOWN_DIFFERENCES.named("ecma-dot-and-space")

    b = load_builtin("bytes")
    space = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^[\\w\\s-]+$"})
    assert ECMA_CLASSES.applies(Divergence(space, b, [ord('"')], 1, [], [0xEF]))
    assert not ECMA_CLASSES.applies(Divergence(space, b, [ord('"')], 1, [], [0xE3]))  # U+3000: both
    assert not ECMA_CLASSES.applies(Divergence(space, b, [ord('"')], 1, [0xEF], []))  # the other way round
    words = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^[\\w-]+$"})
    assert not ECMA_CLASSES.applies(Divergence(words, b, [ord('"')], 1, [], [0xEF]))


def test_llguidance_email_dot_string_only():
    EMAIL = KNOWN_DIFFERENCES.named("email-dot-string-only")

    b = load_builtin("bytes")
    email = GrammarSpec("json_schema", schema={"properties": {"e": {"type": "string", "format": "email"}}})
    quote = [ord(c) for c in '{"e":"']
    assert EMAIL.applies(Divergence(email, b, quote, 6, [], [ord("\\")]))  # \" begins a quoted local part
    assert not EMAIL.applies(Divergence(email, b, quote, 6, [], [ord("a")]))  # llguidance takes a
    assert not EMAIL.applies(Divergence(email, b, quote, 6, [ord("\\")], []))
    literal = [ord(c) for c in '{"e":"a@[']
    assert EMAIL.applies(Divergence(email, b, literal, 9, [], [ord("I")]))  # IPv6:
    assert not EMAIL.applies(Divergence(email, b, literal, 9, [], [ord("1")]))  # IPv4: both
    plain = GrammarSpec("json_schema", schema={"properties": {"e": {"type": "string"}}})
    assert not EMAIL.applies(Divergence(plain, b, quote, 6, [], [ord("\\")]))


def test_llguidance_leap_day_and_second():
    LEAP = KNOWN_DIFFERENCES.named("leap-day-and-second")

    b = load_builtin("bytes")
    time = GrammarSpec("json_schema", schema={"type": "string", "format": "time"})
    leap = [ord(c) for c in '"08:38:60']
    assert LEAP.applies(Divergence(time, b, leap, 9, [ord("Z"), ord("z")], []))
    assert not LEAP.applies(Divergence(time, b, leap, 9, [ord("Z"), ord("x")], []))
    date = GrammarSpec("json_schema", schema={"type": "string", "format": "date", "maxLength": 10})
    feb = [ord(c) for c in '"2021-02-2']
    assert LEAP.applies(Divergence(date, b, feb, 10, [ord("9")], []))
    assert not LEAP.applies(Divergence(date, b, [ord(c) for c in '"2021-02-3'], 10, [ord("0")], []))
    other = GrammarSpec("json_schema", schema={"type": "string", "pattern": "^[0-9:]*$"})
    assert not LEAP.applies(Divergence(other, b, leap, 9, [ord("Z")], []))


def test_llguidance_hostname_any_length_and_ipv6_without_ipv4_tail():
    k = _differences()
    b = load_builtin("bytes")
    host = GrammarSpec("json_schema", schema={"type": "string", "format": "hostname"})
    long_name = [ord(c) for c in '"' + ("a" * 62 + ".") * 4 + "a"]  # 253 characters
    assert k["hostname-any-length"].applies(Divergence(host, b, long_name, 254, [ord("a")], []))
    assert k["hostname-any-length"].applies(Divergence(host, b, long_name, 254, [ord("."), ord("-")], []))
    assert not k["hostname-any-length"].applies(Divergence(host, b, long_name, 254, [ord("_")], []))
    ipv6 = GrammarSpec("json_schema", schema={"type": "string", "format": "ipv6"})
    one = [ord(c) for c in '"::1']
    assert k["ipv6-without-ipv4-tail"].applies(Divergence(ipv6, b, one, 4, [], [ord(".")]))
    assert not k["ipv6-without-ipv4-tail"].applies(Divergence(ipv6, b, one, 4, [], [ord(":")]))
    assert not k["hostname-any-length"].applies(Divergence(ipv6, b, one, 4, [], [ord(".")]))
    # the JSON-Schema-Test-Suite's `uri` (optional/format/uri): an IPv6 literal's IPv4 tail
    uri = GrammarSpec("json_schema", schema={"format": "uri"})
    literal = [ord(c) for c in '"ldap://[2001:db8::7']
    assert k["ipv6-without-ipv4-tail"].applies(Divergence(uri, b, literal, 20, [], [ord(".")]))
    assert not k["ipv6-without-ipv4-tail"].applies(Divergence(uri, b, literal, 20, [], [ord("]")]))
    host = [ord(c) for c in '"ldap://a']
    assert not k["ipv6-without-ipv4-tail"].applies(Divergence(uri, b, host, 9, [], [ord(".")]))


# strings on which llguidance's format regexes and maskref's differ, or nearly so
FORMAT_SAMPLES = {
    "email": ["a.b@c-d.e", '"a b"@c', "a@[IPv6:::1]", "a@[1.2.3.4]", "a@[1.2.3.256]", "a..b@c", "a@b-", "~@x"],
    "date": ["2020-02-29", "2021-02-29", "1900-02-29", "2020-02-30", "2020-04-31", "2020-13-01"],
    "time": ["23:59:60Z", "08:38:60Z", "08:38:60+08:39", "12:00:00.5z", "12:00:00", "24:00:00Z"],
    "date-time": ["2021-02-29t08:38:60Z", "2020-01-01T00:00:00+05:30", "2020-01-01 00:00:00Z"],
    "hostname": ["a-b.c", "ab--c", "xn--abc", ("a" * 62 + ".") * 4 + "ab", "a" * 64, "a."],
    "ipv6": ["::ffff:1.2.3.4", "::1.2.3.4", "1:2:3:4:5:6:7:8", "1::8", "1:2:3:4:5:6:7::", "::", "1:2::3::4"],
    "uri": ["http://[::ffff:1.2.3.4]/", "ldap://[2001:db8::7]/c=GB?objectClass?one", "http://[::1]:80/a",
            "http://[v1.x]/", "http://1.2.3.4/", "urn:oasis:names", "h2c:x", "http://a b", "http://[::1.2.3.4]"],
}


@needs_llguidance
@pytest.mark.parametrize("name", sorted(FORMAT_SAMPLES))
def test_llguidance_reading_of_formats_is_its_own(name):
    """reading.FORMATS (the predicates' reading of llguidance's formats) accepts exactly what
    llguidance does, on strings near the differences."""
    import json

    from conformance.peers.llguidance.reading import FORMATS, grammar_text, with_formats

    b = load_builtin("bytes")
    tok = llguidance_adapter.tokenizer(b)
    schema = {"type": "string", "format": name}
    read = Grammar.from_json_schema(with_formats(schema, FORMATS))
    for s in FORMAT_SAMPLES[name]:
        text = json.dumps(s).encode()
        m = llguidance.LLMatcher(tok, grammar_text(GrammarSpec("json_schema", schema=schema)))
        theirs = all(m.consume_token(x) for x in text) and m.consume_token(256) and not m.is_error()
        ours = Matcher(read, b).consume_tokens(list(text) + [256])
        assert theirs == ours, (name, s)


@needs_llguidance
def test_llguidance_on_grammars_refimpl_refuses():
    """The invalid group: llguidance refuses the Lark grammars (the parametric rules'
    errors among them); it reads a regex's trailing backslash away and two schemas with
    invalid keyword values, as declared."""
    backend = get_engine("llguidance")
    want = {"invalid/lark/param-condition-comma": ("agree", []), "invalid/lark/bad-regex": ("agree", []),
            "invalid/regex/trailing-backslash": ("known", ["regex-trailing-backslash"]),
            "invalid/json_schema/empty-all-of": ("known", ["lenient-schema-values"]),
            "invalid/json_schema/unknown-type": ("agree", [])}
    found = {v.id: (lambda r: (r.status, r.known))(check_vector(backend, v))
             for _, _, v in read_vectors(os.path.join(SUITE_DIR, "invalid.jsonl")) if v.id in want}
    assert found == want
