"""xgrammar's EBNF: what its reader takes beyond GBNF, its errors, and the same language
as GBNF on their common part."""
import re
from typing import List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.strategies import gbnf_grammars
from refimpl import Grammar, Matcher, Vocabulary
from refimpl.errors import GrammarError
from tests.support.budget import examples
from tests.support.text_outcome import outcome


def xg(text: str, root: str = "root") -> Grammar:
    return Grammar.from_ebnf(text, dialect="xgrammar", root=root)


def test_beyond_gbnf():
    # a rule may span lines; names with _ and .; ( ) is ε; [^] is any character
    g = xg('root ::= a_b.c\n   "x" ( ) [^]\na_b.c ::= "\\x41\\e\\/" | ""')
    assert [outcome(g, t) for t in ("A\x1b/x\n", "x😀", "x")] == ["accept", "accept", "prefix_only"]
    # class escapes, and a dash as a range end
    g = xg('root ::= [\\^\\]\\--/]+')
    assert [outcome(g, t) for t in ("^]-./", "a")] == ["accept", "reject"]
    # repetition ranges, {m,} and the printed form {m, -1}
    g = xg('root ::= "a"{2,} "b"{0, -1} "c"{0}')
    assert [outcome(g, t) for t in ("aa", "aaabb", "a")] == ["accept", "accept", "prefix_only"]
    # a lookahead assertion is read and does not change the language
    g = xg('root ::= x "b" | x "c"\nx ::= "a" (= "b")')
    assert outcome(g, "ac") == "accept"
    # Substring(...)
    g = xg('root ::= Substring("abc", "de", "fg") "!"')
    assert [outcome(g, t) for t in ("abcde!", "defg!", "!", "ab!", "cde!")] == ["accept", "accept", "accept", "reject", "reject"]


def test_token_macros():
    v = Vocabulary([b"a", b"<|x|>", b"b", b"</s>"], eos_token_ids=[3], special_token_ids=[1])
    m = Matcher(xg("root ::= Token(1) ExcludeToken(1, 2)*"), v)
    assert m.mask().allowed() == [1]
    assert m.consume(1) and m.mask().allowed() == [0, 3]  # not 1 or 2; EOS: the end (or read by id)


@pytest.mark.parametrize("text, message, where", [
    ('root ::= "a"\nroot ::= "b"', 'Rule "root" is defined multiple times', (2, 1)),
    ('x ::= "a"', 'The root rule with name "root" is not found', (1, 1)),
    ('root ::= y', 'Rule "y" is not defined', (1, 10)),
    ('root ::= "a" x ::= "b"', "the rule name should be at the beginning of the line", (1, 14)),
    ('root ::= "a"++', "two repetition operators in a row", (1, 14)),
    ('root ::= [\\d]', "Character class escape is not supported yet", (1, 11)),
    ('root ::= "a" | ', "Expect element", (1, 16)),
    ('root ::= "a"{3,2}', "Lower bound is larger than upper bound: 3 > 2", (1, 17)),
    ('root ::= "a" (= "b" | "c")', "may not hold choices", (1, 16)),
    ('root ::= "a" (= "b") "c"', "may only end a rule", (1, 22)),
    ('root ::= x\nx[lazy] ::= "a" x?', "lazy rule 'x' must have a terminal-like body", (2, 3)),
    ('root[max_chars=3] ::= "a" Token(5)', "not supported yet: max_chars on rule 'root'", (1, 6)),
    ('root[max_chars=3] ::= "a" x\nx[max_chars=2] ::= "b"', "around the max_chars rule 'x'", (1, 6)),
    ('root ::= a\na[max_tokens=1] ::= "b" a | "b"', "not supported yet: max_tokens on rule 'a', whose body is not regular",
     (2, 3)),
    ('root[lazy, lazy] ::= "a"', "The rule option lazy is given twice", (1, 12)),
    ('root[temperature=-1] ::= "a"', "The temperature must be a finite non-negative number", (1, 5)),
    ('root[temperature=1e39] ::= "a"', "The temperature must be a finite non-negative number", (1, 5)),
    ('root[capture=""] ::= "a"', "The capture name must not be empty", (1, 5)),
    ('root[capture="a\\b"] ::= "a"', "without \\ or a line break", (1, 14)),
    ('root[capture_hidden_body_rule_id=1] ::= "a"', "must be specified together", (1, 5)),
    ('root[capture_hidden_stop_bytes=0] ::= "a"', "must be positive", (1, 5)),
    ('root[max_chars=2147483648] ::= "a"', "The rule attribute value is too large", (1, 5)),
    ('root[max_chars=12345678901] ::= "a"', "at most 10 digits", (1, 16)),
    ('root[lazy; capture] ::= "a"', "Expect , or ] in the rule options", (1, 10)),
    ('root[greedy] ::= "a"', "Expect a rule option", (1, 6)),
    ('root ::= TagDispatch(("t", r), excludes=("t",))\nr ::= "a"', "Exclude string must not be a prefix", (1, 10)),
    ('root ::= TagDispatch(("", r))\nr ::= "a"', "Tag must be a non-empty string literal", (1, 23)),
    ('root ::= TagDispatch(("t", "r"))', "Rule reference must be an identifier", (1, 28)),
    ('root ::= TagDispatch(("t", r), stop_eos=true)\nr ::= "a"', "Unknown named argument for TagDispatch: stop_eos",
     (1, 10)),
    ('root ::= TagDispatch(("t", r))', 'Rule "r" is not defined', (1, 28)),
    ('root ::= TokenTagDispatch((3, r), excludes=(3,))\nr ::= "a"', "must not overlap with exclude token ID", (1, 10)),
    ('root ::= TokenTagDispatch(("3", r))\nr ::= "a"', "Token trigger ID must be a non-negative integer", (1, 28)),
    ('root ::= "x" Regex("a\\\\b")', "Word boundary assertion \\b is not supported in regex (offset 1 of the pattern)",
     (1, 14)),
    ('root ::= Regex("a", flags="m")', "regular-expression flag 'm' is not supported", (1, 10)),
    ('root ::= Regex("a", "b")', "Regex expects exactly one string argument", (1, 10)),
    ('root ::= Regex("(?s).")', "Unsupported group modifier '(?s'", (1, 10)),
    ('root ::= Regex("\\\\uD800")', "not a Unicode scalar value", (1, 10)),
    ('root ::= "\\q"', "Invalid escape sequence \\q", (1, 11)),
    ('root ::= "a\udc80"', "lone surrogate U+DC80", (1, 12)),
    ('root ::= Token(%s)' % ("9" * 5000), "number too large", (1, 16)),
    ('root ::= "a"{\u00b2}', "Expect integer", (1, 14)),
])
def test_errors(text, message, where):
    with pytest.raises(GrammarError) as info:
        xg(text)
    assert message in info.value.message
    assert (info.value.line, info.value.column) == where


@settings(max_examples=examples(60), deadline=None)
@given(gbnf_grammars(literals=['"a"', '"b"', '"ab"', '"é"', '""'], classes=["[a-b]", "[^a]", "[é-ê]"]),
       st.lists(st.text("abé", max_size=5), min_size=1, max_size=6))
def test_same_language_as_gbnf_on_the_common_part(text: str, strings: List[str]):
    """A grammar both dialects read (one rule per line, no `_` in names, no `.`: a name
    character in xgrammar) means the same."""
    try:
        gbnf = Grammar.from_gbnf(text)
    except GrammarError:
        with pytest.raises(GrammarError):
            xg(text)
        return
    ebnf = xg(text)
    for s in strings:
        assert outcome(ebnf, s) == outcome(gbnf, s), (text, s)


# -- the Regex macro: xgrammar's regex dialect (refimpl/frontends/ebnf/xgrammar_regex.py) ----------

def regex(pattern: str, **options: str) -> Grammar:
    """root ::= Regex("pattern", options...), the pattern escaped for the EBNF string."""
    literal = pattern.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    extra = "".join(", %s=%s" % item for item in options.items())
    return xg('root ::= Regex("%s"%s)' % (literal, extra))


@pytest.mark.parametrize("pattern, options, accepted, rejected", [
    # escapes: \d \w \s are ASCII; \S takes U+00A0 and any non-ASCII; unknown escapes are the character
    (r"\d\w\s", {}, ["7_\v", "0a ", "0a\u00a0"], ["٣a ", "0é ", "0a\u200b"]),
    (r"\S\D\W", {}, ["é٣é", "aa-"], [" a-", "\u00a0a-", "a1-", "aa_"]),
    (r"\z\-\q\cJ\x41\u0042\u{1F600}\e\0", {}, ["z-q\nAB😀\x1b\x00"], ["z-q\nAB😀\x1b0"]),
    (r"[\b\d-]", {}, ["\b", "5", "-"], ["b", "a"]),
    # classes: the first ] closes; [ is literal; a class escape next to - leaves it literal
    (r"[[a]b", {}, ["[b", "ab"], ["[", "]b"]),
    (r"[\w-z]", {}, ["-", "z", "_"], ["y!"]),
    # . is any character (newlines too) unless flags are given
    (r"a.b", {}, ["a\nb", "a😀b"], ["ab"]),
    (r"a.b", {"flags": '""'}, ["a\rb", "a😀b"], ["a\nb"]),
    (r"a[.]b\.", {"flags": '"s"'}, ["a.b."], ["acb."]),
    (r"a.b", {"flags": '"s"'}, ["a\nb"], []),
    # (?i) and flags="i": ASCII-only folding, classes folded before negation
    (r"(?i)k[^a]", {}, ["KB", "kb"], ["KA", "Ka", "\u212ab"]),
    (r"Σk", {"flags": '"iu"'}, ["ΣK"], ["σk"]),
    # anchors anywhere mean nothing; a lookahead is ε; named groups; lazy suffixes
    (r"^a^b$c$", {}, ["abc"], ["a^b$c"]),
    (r"a(?=b)c(?!x)", {}, ["ac"], ["abc", "acx"]),
    (r"(?<n>a)(?P<m_2>b)+?c??", {}, ["ab", "abbc"], ["a"]),
    # quantifiers: blanks in {}, a quantifier on a quantifier, ε alternatives and groups
    (r"a{ 2 , 3 }b{2}", {}, ["aabb", "aaabb"], ["abb", "aaaabb"]),
    (r"(ab)**|", {}, ["", "abab"], ["a"]),
    (r"(|x)()y", {}, ["y", "xy"], ["xxy"]),
    (r"", {}, [""], ["a"]),
    # json_string: no control characters, no " and no \
    (r".*", {"json_string": "true"}, ["a'b é"], ['a"', "a\\", "\t", "\x7f\x1f"]),
    (r"[^a]+", {"json_string": "true", "flags": '"i"'}, ["bc\x7f"], ["bA", '"']),
])
def test_regex_dialect(pattern, options, accepted, rejected):
    g = regex(pattern, **options)
    for text in accepted:
        assert outcome(g, text) == "accept", text
    for text in rejected:
        assert outcome(g, text) != "accept", text


@pytest.mark.parametrize("pattern, message", [
    ("+a", "There is nothing to repeat before '+'"),
    ("(*)", "There is nothing to repeat before '*'"),
    ("a{,3}", "expected a number after '{'"),
    ("a{3,2}", "the lower bound 3 is larger than the upper bound 2"),
    ("a{1234567890}", "the count 1234567890 is too large"),
    ("a{2", "expected ',' or '}' after the lower bound"),
    ("(a", "The parenthesis is not closed"),
    ("a)", "Unmatched ')'"),
    ("a]", "Unmatched ']'"),
    ("[a", "Unclosed '['"),
    ("[]", "Empty character class"),
    ("[^]", "Empty character class"),
    ("[z-a]", "lower bound exceeds upper bound"),
    ("[a-\\d]", "Invalid character range endpoint"),
    ("a\\", "trailing backslash"),
    ("\\B", "Word boundary assertion \\B"),
    ("\\pL", "Unicode property escape"),
    ("(a)\\1", "Backreference \\1"),
    ("(?<!a)b", "Lookbehind assertion"),
    ("(?<a-b>a)", "Invalid named capturing group"),
    ("[[a]]", "Unmatched ']'"),
    ("(?", "Group modifier is not finished"),
    ("(?i:a)", "Unsupported group modifier '(?i'"),
    ("a(?i)b", "Unsupported group modifier '(?i'"),
    ("\\x4", "two hexadecimal digits"),
    ("\\u12", "four hexadecimal digits"),
    ("\\u{}", "one to six hexadecimal digits"),
    ("\\u{110000}", "beyond the Unicode range"),
    ("\\c1", "must be followed by a letter"),
])
def test_regex_errors(pattern, message):
    with pytest.raises(GrammarError) as info:
        regex(pattern)
    assert message in info.value.message and info.value.message.startswith("Regex(...): ")
    assert (info.value.line, info.value.column) == (1, 10)


def test_regex_macro_in_a_grammar():
    # a Regex is an element: sequences, alternatives, repetition, references
    g = xg('root ::= ("<" Regex("[a-z]+", flags="i") ">")+ | num\nnum ::= Regex("-?\\\\d+(\\\\.\\\\d+)?")')
    assert [outcome(g, t) for t in ("<aB><c>", "-3.25", "<a", "3.", "<1>")] == [
        "accept", "accept", "prefix_only", "prefix_only", "reject"]
    # large counted repetitions stay exact; an ε operand makes the lower bound free
    g = regex("(ab){200,}c|(x?){3,300}y")
    assert [outcome(g, t) for t in ("ab" * 200 + "c", "ab" * 199 + "c", "y", "x" * 300 + "y", "x" * 301 + "y")] == [
        "accept", "reject", "accept", "accept", "reject"]


def test_regex_deep_nesting():
    g = regex("(" * 5000 + "a" + ")" * 5000 + "|b")
    assert [outcome(g, t) for t in ("a", "b", "ab")] == ["accept", "accept", "reject"]


def _patterns():
    """Patterns both xgrammar's dialect and Python's `re` (DOTALL, ASCII) read the same way."""
    atoms = st.sampled_from(["a", "b", "é", ".", "[ab]", "[^a]", "[a-c]", r"\d", r"\w", r"\s", r"\S", r"\.", "()"])

    def extend(inner):
        quantified = st.tuples(inner, st.sampled_from(["*", "+", "?", "{2}", "{1,2}", "{0,}", "*?"])).map(
            lambda t: "(%s)%s" % t)
        return st.one_of(quantified, st.lists(inner, min_size=2, max_size=3).map("".join),
                         st.lists(inner, min_size=2, max_size=3).map(lambda xs: "(%s)" % "|".join(xs)))
    return st.recursive(atoms, extend, max_leaves=6)


@settings(max_examples=examples(80), deadline=None)
@given(_patterns(), st.lists(st.text("ab1 é.\n", max_size=5), min_size=1, max_size=8))
def test_regex_agrees_with_python_re_on_the_common_part(pattern, strings):
    g = regex(pattern)
    compiled = re.compile(pattern, re.DOTALL | re.ASCII)
    for s in strings:
        assert (outcome(g, s) == "accept") == (compiled.fullmatch(s) is not None), (pattern, s)


# -- rule options -------------------------------------------------------------------------------

def test_rule_options_from_the_docs():
    # lazy: the earliest completion (xgrammar's docs: `name` consumes exactly one letter)
    g = xg('root ::= "<" name ">" rest\nname[lazy] ::= [a-z]+\nrest ::= [a-z]+')
    assert [outcome(g, t) for t in ("<a>b", "<ab>c", "<a")] == ["accept", "reject", "prefix_only"]
    # max_chars counts code points; the body ends at the budget if it can
    g = xg('root ::= "<think>" reasoning "</think>" answer\nreasoning[max_chars=4] ::= [^]*\nanswer ::= [0-9]+')
    assert [outcome(g, t) for t in ("<think>中文ab</think>1", "<think>abcde</think>1", "<think></think>7")] == [
        "accept", "reject", "accept"]
    # ... and, if it cannot, goes on to its earliest end ("aab" ends it; "aa" does not)
    g = xg('root ::= v "!"\nv[max_chars=2] ::= "aaa" | "aab" [a-z]* | "a"')
    assert [outcome(g, t) for t in ("a!", "aaa!", "aab!", "aabc!")] == ["accept", "accept", "accept", "reject"]
    # a zero budget closes the rule at its entry if it can end there
    g = xg('root ::= v ">"\nv[max_chars=0] ::= [a-z]*')
    assert [outcome(g, t) for t in (">", "a>")] == ["accept", "reject"]
    # capture, temperature and the round-trip options change nothing
    g = xg('root[capture] ::= item ("," item)*\nitem[capture="number", temperature=0.7, stop_capture="m", '
           'capture_hidden_suffix_bytes=1, capture_hidden_body_rule_id=0, capture_hidden_marker_rule_id=1] ::= [0-9]+')
    assert [outcome(g, t) for t in ("1,22,333", "1,")] == ["accept", "prefix_only"]


def _brute(pattern: str, text: str, budget) -> bool:
    """Membership by definition: lazy (budget None) is L ∖ L·Σ⁺, max_chars=n is
    L ∖ (L ∩ Σ^{≥n})·Σ⁺: no proper prefix of at least 0 (lazy) or n code points in L."""
    compiled = re.compile(pattern, re.DOTALL | re.ASCII)
    least = 0 if budget is None else budget
    return compiled.fullmatch(text) is not None and not any(
        compiled.fullmatch(text[:k]) for k in range(least, len(text)))


@settings(max_examples=examples(60), deadline=None)
@given(_patterns(), st.sampled_from([None, 0, 1, 2, 3]), st.lists(st.text("ab1 é.\n", max_size=5), min_size=1, max_size=8))
def test_lazy_and_max_chars_by_definition(pattern, budget, strings):
    option = "lazy" if budget is None else "max_chars=%d" % budget
    literal = pattern.replace("\\", "\\\\").replace('"', '\\"')
    g = xg('root ::= "<" x ">"\nx[%s] ::= Regex("%s")' % (option, literal))
    for s in strings:
        assert (outcome(g, "<%s>" % s) == "accept") == _brute(pattern, s, budget), (pattern, option, s)


# -- TagDispatch and TokenTagDispatch -----------------------------------------------------------

def test_tag_dispatch():
    g = xg('root ::= TagDispatch(("<call>", call), ("<c>", c), excludes=("</a>",))\n'
           'call ::= "(" [a-z]* ")"\nc ::= "!"')
    assert [outcome(g, t) for t in ("", "hi <call>(x) then <c>! bye", "<c", "<call>", "a </a", "a </a>",
                                    "<call>(x", "<ca!")] == [
        "accept", "accept", "accept", "prefix_only", "accept", "reject", "prefix_only", "accept"]
    # without the loop, the macro ends after the first dispatched rule
    g = xg('root ::= TagDispatch(("<c>", c), loop_after_dispatch=false) "."\nc ::= "!"')
    assert [outcome(g, t) for t in ("ab.", "ab<c>!.", "ab<c>!x.")] == ["accept", "accept", "reject"]


def test_tag_dispatch_is_xgrammars_automaton():
    # "b" ends inside the state "ab" of the longer tag "abc": xgrammar does not see it
    g = xg('root ::= TagDispatch(("abc", r), ("b", r))\nr ::= "!"')
    assert [outcome(g, t) for t in ("abx", "ab", "xb!", "xb", "abc!", "bb", "b!")] == [
        "accept", "accept", "accept", "prefix_only", "accept", "reject", "accept"]
    # a tag ends where the text first holds one: "a" then "bc" is not read, "ab" comes first
    g = xg('root ::= TagDispatch(("ab", r), ("bc", r))\nr ::= "!"')
    assert [outcome(g, t) for t in ("abc!", "ab!", "bc!")] == ["reject", "accept", "accept"]
    # a tag that is a prefix of another: dispatch there, or go on along the longer one
    g = xg('root ::= TagDispatch(("<a", r), ("<ab", r))\nr ::= "!"')
    assert [outcome(g, t) for t in ("<a!", "<ab!", "<ax")] == ["accept", "accept", "reject"]


def _xgrammar_tag_dispatch(tags, excludes, loop, text):
    """xgrammar's TagDispatch, simulated: a trie of the tags and excludes with Aho–Corasick
    back edges and no output links (fsm_builder.cc, TrieFSMBuilder); every tag's rule is
    "!". Does the macro accept `text`?"""
    children, ends, excluded = [{}], {}, set()
    for i, p in enumerate(list(tags) + list(excludes)):
        node = 0
        for c in p:
            if c not in children[node]:
                children.append({})
                children[node][c] = len(children) - 1
            node = children[node][c]
        (ends.setdefault(node, []).append(i) if i < len(tags) else excluded.add(node))
    alphabet = set("ab!x")
    fail, delta, order = [0] * len(children), [dict() for _ in children], [0]
    for u in order:
        order.extend(children[u].values())
    for u in order:
        for c in alphabet:
            fallback = 0 if u == 0 else delta[fail[u]][c]
            if c in children[u]:
                fail[children[u][c]] = fallback
                delta[u][c] = children[u][c]
            else:
                delta[u][c] = fallback
    states = {("trie", 0)}
    for c in text:
        nxt = set()
        for kind, u in states:
            if kind == "trie" and u in ends:  # a whole tag: dispatch, or go on along the trie
                if c == "!":
                    nxt.add(("trie", 0) if loop else ("done", 0))
                target = children[u].get(c)
            elif kind == "trie":
                target = delta[u][c]
            else:
                target = None
            if target is not None and target not in excluded:
                nxt.add(("trie", target))
        states = nxt
    return any(kind == "done" or u not in ends for kind, u in states)


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(st.text("ab", min_size=1, max_size=3), min_size=0, max_size=3),
       st.lists(st.text("ab", min_size=1, max_size=3), max_size=2), st.booleans(),
       st.lists(st.text("ab!x", max_size=7), min_size=1, max_size=10))
def test_tag_dispatch_matches_xgrammars_automaton(tags, excludes, loop, texts):
    excludes = [x for x in excludes if not any(t.startswith(x) for t in tags)]
    pairs = "".join('("%s", r), ' % t for t in tags)
    ex = "(%s)" % "".join('"%s", ' % x for x in excludes)
    g = xg('root ::= TagDispatch(%sloop_after_dispatch=%s, excludes=%s)\nr ::= "!"' % (pairs, str(loop).lower(), ex))
    for text in texts:
        assert (outcome(g, text) == "accept") == _xgrammar_tag_dispatch(tags, excludes, loop, text), (tags, excludes, text)


def test_token_tag_dispatch():
    v = Vocabulary([b"a", b"<|x|>", b"<|y|>", b"<|z|>", b"</s>"], eos_token_ids=[4], special_token_ids=[1, 2, 3])
    m = Matcher(xg('root ::= TokenTagDispatch((1, r), excludes=(3,)) "a"\nr ::= Token(2)'), v)
    # free tokens: any but 1 (the trigger) and 3 (EOS too, read by id as ExcludeToken reads it)
    assert m.mask().allowed() == [0, 1, 2, 4]
    assert m.consume(2) and m.consume(1) and m.mask().allowed() == [2]
    assert m.consume(2) and m.mask().allowed() == [0, 1, 2, 4]
    m = Matcher(xg('root ::= TokenTagDispatch((1, r), loop_after_dispatch=false) "a"\nr ::= Token(2)'), v)
    assert m.consume(1) and m.consume(2) and m.mask().allowed() == [0]


# -- max_tokens: xgrammar's relaxed token budget --------------------------------------------

BUDGET_VOCAB = Vocabulary([b"a", b"b", b"ab", b"c", b"ba", b"bc", b"</s>"], eos_token_ids=[6])


@pytest.mark.parametrize("grammar, path, expected", [
    # masks xgrammar 0.2.8's GrammarMatcher gives (TokenizerInfo of these raw tokens)
    ('root ::= x "c"\nx[max_tokens=2] ::= [ab]+', [], ["a", "b", "ab", "ba", "bc"]),
    ('root ::= x "c"\nx[max_tokens=2] ::= [ab]+', ["a"], ["a", "b", "ab", "c", "ba", "bc"]),
    ('root ::= x "c"\nx[max_tokens=2] ::= [ab]+', ["a", "b"], ["c"]),
    ('root ::= x "c"\nx[max_tokens=2] ::= [ab]+', ["ab", "ab"], ["c"]),
    ('root ::= x "c"\nx[max_tokens=2] ::= [ab]+', ["b", "ba"], ["c"]),
    ('root ::= "b" x "c"\nx[max_tokens=1] ::= "ab" | "abab"', ["b"], ["a", "ab"]),
    ('root ::= "b" x "c"\nx[max_tokens=1] ::= "ab" | "abab"', ["ba"], ["b", "ba", "bc"]),  # relaxed
    ('root ::= "b" x "c"\nx[max_tokens=1] ::= "ab" | "abab"', ["ba", "b"], ["c"]),
    ('root ::= "b" x "c"\nx[max_tokens=1] ::= "ab" | "abab"', ["ba", "ba"], ["b", "bc"]),
    ('root ::= "b" x "c"\nx[max_tokens=1] ::= "ab" | "abab"', ["b", "ab"], ["c"]),
    # a zero budget is spent on entry (xgrammar's docs); xgrammar 0.2.8 keeps no budget at 0
    # and allows every token of [ab]* here and after "a" below (docs/ebnf.md)
    ('root ::= x "c"\nx[max_tokens=0] ::= [ab]*', [], ["c"]),
    ('root ::= x "c"\nx[max_tokens=0] ::= [ab]+', ["a"], ["c"]),
])
def test_max_tokens_is_a_relaxed_budget(grammar, path, expected):
    m = Matcher(xg(grammar), BUDGET_VOCAB)
    names = [t.decode() for t in BUDGET_VOCAB.tokens]
    for token in path:
        assert m.consume(names.index(token)), token
    assert [names[t] for t in m.mask().allowed()] == expected


def test_max_tokens_keeps_its_lexeme():
    """The budget is the rule's own lexeme: not merged into a run, never inlined into an
    enclosing regular rule, and refused where it would have to be cut."""
    g = xg('root ::= "<" y ">"\ny ::= "(" x ")"\nx[max_tokens=1] ::= [a-z]+')
    assert [lx.max_tokens for lx in g.ir.lexemes if lx.max_tokens is not None] == [1]
    assert all(lx.budget_relaxed for lx in g.ir.lexemes if lx.max_tokens is not None)
    with pytest.raises(GrammarError, match=r"a rule with max_tokens is one lexeme"):
        xg('root ::= x x "c"\nx[max_tokens=1] ::= [ab]+')


def test_options_that_change_no_mask_are_metadata():
    g = xg('root ::= "<" r ">"\nr[capture="x", lazy, temperature=0.5, stop_capture="s"] ::= [a-z]+')
    assert g.compiled.metadata == {"r": {"temperature": 0.5, "capture": "x", "stop_capture": "s"}}
    assert xg('root[capture] ::= "a"').compiled.metadata == {"root": {"capture": "root"}}


def test_regex_space_is_ecmascripts_white_space():
    # xgrammar 0.2.9's \s: U+0009-000D, space, U+00A0, U+1680, U+2000-200A, U+2028-2029,
    # U+202F, U+205F, U+3000, U+FEFF (every BMP code point it accepts); \d and \w stay ASCII
    spaces = "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
    g = xg('root ::= Regex("a\\\\sb")')
    assert [outcome(g, "a%sb" % c) for c in spaces] == ["accept"] * len(spaces)
    assert [outcome(g, "a%sb" % c) for c in "\x85\u180e\u200b\u2060x"] == ["reject"] * 5
    g = xg('root ::= Regex("a\\\\S[\\\\d\\\\w]")')
    assert [outcome(g, t) for t in ("a\u00a0b", "a\u3000b", "axb", "ax\u0663", "axé")] == [
        "reject", "reject", "accept", "reject", "reject"]
