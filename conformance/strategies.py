"""Hypothesis strategies for differential fuzzing: grammars, vocabularies.

Everything generated is in the dialect maskref shares with llguidance (Rust regex syntax,
llguidance's Lark, with special tokens, token ranges, rule options and nested grammars),
or llama.cpp's GBNF and other engines' EBNF (one random structure printed in each), and
shrinks well: a failing regex shrinks toward one atom, a Lark grammar toward one short
rule, a vocabulary toward a few one-byte tokens, a GPT-2 slice toward a few ids.
The vocabulary is drawn first (`examples`), so a Lark grammar can name its special tokens
and ids. Token paths are drawn inside the test from the masks (fuzz.py).
"""
from __future__ import annotations

import functools
import json
import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from refimpl import Vocabulary
from refimpl.frontends.ebnf import DIALECTS

from .blindspots import blindspot_specs, escape_vocabularies, multi_eos_vocabularies, unicode_vocabularies
from .vectors import GrammarSpec, load_builtin

# ----------------------------------------------------------------------------- regexes

LITERALS = ["a", "b", "c", "ab", "x", "0", "1", "9", " ", ",", ":", '\\"', "\\{", "\\}", "\\.", "-", "é", "€", "😀", "α", "the"]
CLASSES = ["[a-c]", "[^a-c]", "[0-9]", "[^0-9]", '[^"]', ".", "\\d", "\\w", "\\s", "[ab]", "[é€]", "[a-zA-Z]",
           "\\p{Greek}", "[^\\x00-\\x7F]", "[^a-z ]", "(?s:.)"]

regex_atoms = st.one_of(st.sampled_from(LITERALS), st.sampled_from(CLASSES))


def _regex_extend(inner: SearchStrategy[str]) -> SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, inner).map(lambda t: t[0] + t[1]),
        st.tuples(inner, inner).map(lambda t: "(%s|%s)" % t),
        st.tuples(inner, st.sampled_from(["*", "+", "?", "{2}", "{1,3}", "{0,2}"])).map(lambda t: "(%s)%s" % t),
    )


regexes = st.tuples(st.sampled_from(["", "", "", "", "(?i)"]),
                    st.recursive(regex_atoms, _regex_extend, max_leaves=7)).map("".join)

# ----------------------------------------------------------------------------- Lark

TERMINAL_BODIES = ['"a"', '"b"', '"ab"', '"c"', '"0"', '" "', '"é"', '"if"',
                   "/[a-c]+/", "/b+/", "/[0-9]+/", "/a[bc]*c/", "/é+/", "/[^a-c]/", "/[a-z]+/", "/\\d/", "/(ab)+/"]
LAZY_BODIES = ["/a[bc]*c/", '"ab"', "/[0-9]+/", "/b+/"]
LITERAL_ITEMS = ['"a"', '"b"', '","']


IGNORES = [None, None, '" "', "/[ ,]+/"]
# with ignore_once the %ignore regex is the whole span between two lexemes: bounded ones
IGNORES_ONCE = ['" "', "/[ ,]{1,2}/", "/ |,,/", "/[ ]{2}/"]
IGNORE_ONCE = '%llguidance {"ignore_once": true}'

# parametric rule p::_ (llguidance's docs/parametric.md): a step consumes an item and moves
# the parameter within bits 0..3 (so at most 16 instances); an end alternative stops
PARAM_STEPS = ["p::set_bit(%(k)d) %%if bit_clear(%(k)d)", "p::incr([%(lo)d:%(hi)d]) %%if lt([%(lo)d:%(hi)d], %(n)d)",
               "p::set_bit(%(k)d)", "p::clear_bit(%(k)d) %%if bit_set(%(k)d)", "p::incr([%(lo)d:%(hi)d])",
               "p::_ %%if bit_count_lt(_, %(n)d)"]
PARAM_ENDS = ['""', '"" %%if is_ones([0:%(n)d])', '"" %%if bit_count_ge(_, %(n)d)', '%(item)s %%if bit_set(%(k)d)',
              '%(item)s %%if not(eq([0:2], %(n)d))']


def _param_rule(draw: st.DrawFn, items: SearchStrategy[str]) -> str:
    """p::_: one to three steps (item, then p with a moved parameter, under a condition)
    and one end alternative."""
    alternatives = []
    for _ in range(draw(st.integers(1, 3))):
        lo = draw(st.sampled_from([0, 2]))
        args = {"k": draw(st.integers(0, 3)), "lo": lo, "hi": lo + 2, "n": draw(st.integers(1, 3)), "item": draw(items)}
        alternatives.append("%s %s" % (args["item"], draw(st.sampled_from(PARAM_STEPS)) % args))
    args = {"k": draw(st.integers(0, 3)), "n": draw(st.integers(1, 3)), "item": draw(items)}
    end = draw(st.sampled_from(PARAM_ENDS)) % args
    alternatives.insert(draw(st.integers(0, len(alternatives))), end)
    return "p::_: " + " | ".join(alternatives)


# rule options (llguidance's): a rule o[...] whose body becomes one lexeme (or stays a rule,
# with temperature/capture on a plain body); bodies as a terminal's
RULE_OPTIONS = ["lazy", 'stop="c"', "stop=/[0-9]/", 'suffix="ab"', 'stop=""', "max_tokens=%(n)d", "temperature=0.5",
                'capture="c"', "capture", 'stop="b", stop_capture="s"', "lazy, max_tokens=%(n)d"]
OPTION_BODIES = TERMINAL_BODIES + ["/[a-z ]*/", "/[^!]*/"]


_SPECIAL_NAME = re.compile(r"<[^<>\s]+>")  # a special token's text the Lark syntax can name


def vocab_key(vocab: Optional[Vocabulary]) -> Tuple[Any, ...]:
    """What the grammar strategies read of a vocabulary (token_lexemes): its size, EOS and
    special ids and the special tokens' texts. Their strategies are kept by it (`_kept`):
    a strategy is drawn from once per vocabulary drawn, and hypothesis checks every new
    strategy object before it draws from it (a tenth of a fuzz campaign's time went
    there); an equal one draws the same values."""
    if vocab is None:
        return ()
    special = sorted(vocab.special_token_ids)
    return (len(vocab), tuple(vocab.eos_token_ids), tuple(special), tuple(vocab.tokens[t] for t in special))


_KEPT: Dict[Tuple[Any, ...], Any] = {}


def _kept(key: Tuple[Any, ...], make: Callable[[], Any]) -> Any:
    """make(), kept by key (at most 256 of them: then it starts again)."""
    got = _KEPT.get(key)
    if got is None:
        if len(_KEPT) > 256:
            _KEPT.clear()
        got = _KEPT[key] = make()
    return got


def token_lexemes(vocab: Optional[Vocabulary]) -> List[SearchStrategy[str]]:
    """Token lexemes for `vocab`: its special tokens by text (`<|eot_id|>`), `<[id]>`,
    `<[lo-hi]>`, `<[lo,hi]>`, `<[^lo-hi]>`, `<[^a-b,c-d]>` and `<[*]>`, over ids that matter (the first
    ones, EOS, the special tokens, the last one); none without a vocabulary."""
    if vocab is None:
        return []
    return _kept(("tokens",) + vocab_key(vocab), lambda: _token_lexemes(vocab))


def _token_lexemes(vocab: Vocabulary) -> List[SearchStrategy[str]]:
    n = len(vocab)
    names = sorted(vocab.tokens[t].decode("utf-8", "replace") for t in vocab.special_token_ids)
    names = [x for x in names if _SPECIAL_NAME.fullmatch(x)]
    ids = st.sampled_from(sorted({0, 1, 2, n - 1} | set(vocab.eos_token_ids) | set(vocab.special_token_ids)) if n > 2
                          else list(range(n)))
    pairs = st.tuples(ids, ids).map(sorted)
    out = [ids.map("<[%d]>".__mod__), pairs.map(lambda p: "<[%d-%d]>" % tuple(p)),
           pairs.map(lambda p: "<[%d,%d]>" % tuple(p)), pairs.map(lambda p: "<[^%d-%d]>" % tuple(p)), st.just("<[*]>"),
           # lists of ranges that overlap or nest, negated (issue 20: the merge before the complement)
           st.tuples(pairs, pairs).map(lambda q: "<[^%d-%d,%d-%d]>" % (tuple(q[0]) + tuple(q[1])))]
    if names:
        out.insert(0, st.sampled_from(names))
    return out


def _nested_lark(draw: st.DrawFn, tokens: List[SearchStrategy[str]]) -> str:
    """A nested grammar `%lark { ... }`: its own start (one to three items: a literal, its
    terminal W, a token lexeme), W, and maybe its own %ignore."""
    items = st.one_of(st.sampled_from(['"a"', '"b"', "W"]), *tokens)
    seq = [draw(items) + draw(st.sampled_from(["", "", "?", "*", "+"])) for _ in range(draw(st.integers(1, 3)))]
    lines = ["start: " + " ".join(seq), "W: " + draw(st.sampled_from(TERMINAL_BODIES))]
    ignore = draw(st.sampled_from(IGNORES))
    if ignore:
        lines.append("%ignore " + ignore)
    return "%lark {\n" + "\n".join(lines) + "\n}"


@st.composite
def lark_grammars(draw: st.DrawFn, vocab: Optional[Vocabulary] = None) -> str:
    """start, up to two more rules (s, t), up to three terminals (T0..T2), an optional lazy
    lexeme rule (lz), an optional rule with options (o[stop=...], [max_tokens=N], ...), an
    optional sub-grammar (sub: %lark { ... }, maybe with a temperature), an optional
    parametric rule (p::_, used as p::0x0 or p::0x1), token lexemes of `vocab` (special
    tokens, id ranges) as items, %ignore, optionally matched once (ignore_once); rule
    bodies refer only to what is defined, so shrinking drops unused definitions."""
    n_rules = draw(st.integers(0, 2))
    n_terms = draw(st.integers(0, 3))
    lazy = draw(st.booleans())
    param = draw(st.booleans())
    tokens = token_lexemes(vocab)
    n_tokens = draw(st.integers(0, 2)) if tokens else 0
    option = draw(st.booleans())
    sub = draw(st.booleans())
    lexemes = ["T%d" % i for i in range(n_terms)] + (["lz"] if lazy else []) + (["o"] if option else [])
    token_items = [draw(st.one_of(*tokens)) for _ in range(n_tokens)]
    names = (["s", "t"][:n_rules] + lexemes + (["sub"] if sub else []) + token_items
             + (["p::0x0", "p::0x1"] if param else []))
    items = st.sampled_from(LITERAL_ITEMS + names)

    def body() -> str:
        alternatives = []
        for _ in range(draw(st.integers(1, 3))):
            seq = [draw(items) + draw(st.sampled_from(["", "", "", "?", "*", "+"])) for _ in range(draw(st.integers(1, 3)))]
            alternatives.append(" ".join(seq))
        return " | ".join(alternatives)

    lines = ["start: " + body()]
    for name in ["s", "t"][:n_rules]:
        lines.append("%s: %s" % (name, body()))
    if param:
        lines.append(_param_rule(draw, st.sampled_from(LITERAL_ITEMS + lexemes)))
    for i in range(n_terms):
        lines.append("T%d: %s" % (i, draw(st.sampled_from(TERMINAL_BODIES))))
    if lazy:
        lines.append("lz[lazy]: %s" % draw(st.sampled_from(LAZY_BODIES)))
    if option:
        options = draw(st.sampled_from(RULE_OPTIONS)) % {"n": draw(st.integers(0, 3))}
        lines.append("o[%s]: %s" % (options, draw(st.sampled_from(OPTION_BODIES))))
    if sub:
        lines.append("sub%s: %s" % (draw(st.sampled_from(["", "[temperature=0.7]"])), _nested_lark(draw, tokens)))
    ignore = draw(st.sampled_from(IGNORES))
    if ignore and draw(st.booleans()):
        lines.insert(0, IGNORE_ONCE)
        ignore = draw(st.sampled_from(IGNORES_ONCE))
    if ignore:
        lines.append("%ignore " + ignore)
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- JSON schemas

KEYS = ["a", "b", "name", "x y", "é"]
scalar_schemas = st.one_of(
    st.just({"type": "integer"}),
    st.tuples(st.integers(-20, 20), st.integers(0, 200))
    .map(lambda t: {"type": "integer", "minimum": t[0], "maximum": t[0] + t[1]}),
    st.just({"type": "number"}),
    st.integers(-5, 5).map(lambda lo: {"type": "number", "minimum": lo}),
    st.just({"type": "string"}),
    st.tuples(st.integers(0, 3), st.integers(0, 6))
    .map(lambda t: {"type": "string", "minLength": t[0], "maxLength": t[0] + t[1]}),
    st.sampled_from(["^[a-z]+$", "^[0-9]{2,3}$", "^(ab|é)*$", "^[^a-c]+$"]).map(lambda p: {"type": "string", "pattern": p}),
    st.just({"type": "boolean"}),
    st.just({"type": "null"}),
    st.lists(st.sampled_from(["red", "é", 7, None, True, "a\"b", 1.5]), min_size=1, max_size=3, unique_by=json.dumps)
    .map(lambda e: {"enum": e}),
    st.sampled_from(["x", 0, False]).map(lambda c: {"const": c}),
)


def _schema_extend(inner: SearchStrategy[Any]) -> SearchStrategy[Any]:
    return st.one_of(
        st.tuples(inner, st.integers(0, 2), st.integers(0, 3)).map(
            lambda t: {"type": "array", "items": t[0], "minItems": t[1], "maxItems": t[1] + t[2]}),
        _objects(inner),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: {"anyOf": xs}),
    )


@st.composite
def _objects(draw: st.DrawFn, inner: SearchStrategy[Any]) -> Dict[str, Any]:
    props = draw(st.dictionaries(st.sampled_from(KEYS), inner, min_size=1, max_size=3))
    required = draw(st.lists(st.sampled_from(list(props)), unique=True, max_size=len(props)))
    out: Dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    if draw(st.booleans()):
        out["additionalProperties"] = False
    return out


json_schemas = st.recursive(scalar_schemas, _schema_extend, max_leaves=5)
# JSON whitespace is matched once, so a bounded whitespace_pattern is exact
JSON_OPTIONS: List[Dict[str, Any]] = [{}, {}, {}, {"whitespace_flexible": False}, {"whitespace_pattern": "[ ]{1,2}"},
                                       {"whitespace_pattern": "\\n[ ]{0,2}"}, {"whitespace_pattern": "[ \\t]?"}]
json_options = st.sampled_from(JSON_OPTIONS)

# ----------------------------------------------------------------------------- GBNF, EBNF
#
# A character grammar is drawn once, as a structure, and printed in a dialect: llama.cpp's
# GBNF, xgrammar's EBNF or kbnf's (docs/ebnf.md), so the same random grammar can be read by
# each frontend (tests/conformance/test_ebnf_vectors.py checks that they mean the same).
#
# Expressions are tuples: ("lit", text), ("cls", negated, ranges) (code point ranges;
# ("cls", True, ()) is any character), ("ref", rule index), ("grp", [alternatives]),
# ("seq", [expressions]) and ("rep", expression, postfix), the postfix as GBNF writes it.
# A grammar is a list of rules, each a list of alternatives; rule 0 is the start.

GBNF_LITERALS = ['"a"', '"b"', '"ab"', '"é"', '"ba"', '""', '"0"', '" "', '"\\""']
GBNF_CLASSES = ["[a-b]", "[^a]", "[a]", "[é-ê]", ".", "[0-9]", "[^\"\\x00-\\x1F]"]
POSTFIXES = ["", "", "*", "+", "?", "{1,2}", "{2}", "{0,1}"]
#: the EBNF dialects the fuzzer's `ebnf` kind draws: every dialect refimpl reads
EBNF_DIALECTS = tuple(DIALECTS)
CHAR_DIALECTS = ("gbnf",) + EBNF_DIALECTS

Expr = Tuple[Any, ...]
CharGrammar = List[List[Expr]]


def _gbnf_atom(text: str) -> Expr:
    """A literal or class written in GBNF, as an expression (read by refimpl's GBNF reader)."""
    from refimpl.frontends.ebnf.ast import Chars, Literal, Seq
    from refimpl.frontends.ebnf.gbnf import read_rules

    if text == ".":
        return ("cls", True, ())
    negated = text.startswith("[^")
    node = read_rules("root ::= " + ("[" + text[2:] if negated else text) + "\n")["root"]
    if isinstance(node, Seq) and len(node.items) == 1:
        node = node.items[0]
    if isinstance(node, Literal):
        return ("lit", node.text)
    if isinstance(node, Chars):
        return ("cls", negated, node.ranges)
    raise ValueError("not a GBNF literal or class: %r" % text)


@st.composite
def char_grammars(draw: st.DrawFn, literals: Sequence[str] = GBNF_LITERALS,
                  classes: Sequence[str] = GBNF_CLASSES) -> CharGrammar:
    """1 to 3 rules whose bodies mix literals, classes (both given in GBNF), references
    (recursion included), groups and repetitions: the shapes where the compiler's choice of
    lexemes matters (docs/ebnf.md)."""
    lits = [_gbnf_atom(x) for x in literals]
    clss = [_gbnf_atom(x) for x in classes]
    n = draw(st.integers(1, 3))

    def expr(depth: int) -> Expr:
        kind = draw(st.sampled_from(["lit", "cls", "ref", "grp", "seq"] if depth < 3 else ["lit", "cls", "ref"]))
        atom: Expr
        if kind == "lit":
            atom = draw(st.sampled_from(lits))
        elif kind == "cls":
            atom = draw(st.sampled_from(clss))
        elif kind == "ref":
            atom = ("ref", draw(st.integers(0, n - 1)))
        elif kind == "grp":
            atom = ("grp", [expr(depth + 1) for _ in range(draw(st.integers(1, 3)))])
        else:
            return ("seq", [expr(depth + 1) for _ in range(draw(st.integers(2, 3)))])
        postfix = draw(st.sampled_from(POSTFIXES))
        return ("rep", atom, postfix) if postfix else atom

    return [[expr(0) for _ in range(draw(st.integers(1, 3)))] for _ in range(n)]


def _escape(c: str, dialect: str, special: str) -> str:
    """One character of a literal or class: itself, or an escape the dialect reads
    (xgrammar's \\x takes any number of hex digits, so it gets \\u)."""
    cp = ord(c)
    if c in special or cp < 0x20 or cp == 0x7F:
        if c == "\\" or (c == '"' and dialect != "kbnf-regex"):
            return "\\" + c
        return ("\\u%04X" if dialect == "xgrammar" else "\\x%02X") % cp
    return c


def _literal(text: str, dialect: str) -> str:
    if dialect == "kbnf" and '"' in text and "'" not in text:  # kbnf's other quotes
        return "'" + "".join(_escape(c, dialect, "\\") for c in text) + "'"
    return '"' + "".join(_escape(c, dialect, '"\\') for c in text) + '"'


def _class(negated: bool, ranges: Sequence[Tuple[int, int]], dialect: str) -> str:
    """A class: [..] in GBNF and xgrammar (any character: . and [^]), a regex #"[..]" in kbnf."""
    if negated and not ranges:
        return {"gbnf": ".", "xgrammar": "[^]", "kbnf": '#"(?s:.)"'}[dialect]
    inner = dialect if dialect != "kbnf" else "kbnf-regex"
    special = "\\]-^[" + ("&~" if dialect == "kbnf" else "")
    items = "".join(_escape(chr(lo), inner, special) + ("-" + _escape(chr(hi), inner, special) if hi > lo else "")
                    for lo, hi in ranges)
    body = "[" + ("^" if negated else "") + items + "]"
    if dialect != "kbnf":
        return body
    return '#"' + body.replace("\\", "\\\\").replace('"', '\\"') + '"'  # the string's escapes come first


def rule_names(grammar: CharGrammar, dialect: str) -> List[str]:
    """The rules' names: the start rule is `root` (GBNF, xgrammar) or `start` (kbnf)."""
    return ["start" if dialect == "kbnf" else "root"] + ["r%d" % i for i in range(1, len(grammar))]


def print_char_grammar(grammar: CharGrammar, dialect: str) -> str:
    """The grammar in a dialect's syntax. kbnf has no {m,n}: x{2} is written `x x`,
    x{1,2} `x [x]`; a group's * and ? are written {..} and [..], an atom's x* and x?; the
    items of a nested sequence are separated by `,`.

    >>> g = [[("seq", [("lit", "a"), ("rep", ("cls", False, ((98, 99),)), "{1,2}")]), ("rep", ("ref", 0), "*")]]
    >>> print_char_grammar(g, "gbnf"), print_char_grammar(g, "kbnf")
    ('root ::= "a" [b-c]{1,2} | root*\\n', 'start ::= "a", #"[b-c]" [#"[b-c]"] | start*;\\n')
    """
    names = rule_names(grammar, dialect)

    def atom(e: Expr) -> str:
        if e[0] == "lit":
            return _literal(e[1], dialect)
        if e[0] == "cls":
            return _class(e[1], e[2], dialect)
        if e[0] == "ref":
            return names[e[1]]
        if e[0] == "grp":
            return "(" + " | ".join(expr(x) for x in e[1]) + ")"
        return "(" + expr(e) + ")"

    def expr(e: Expr) -> str:
        if e[0] == "seq":
            return (", " if dialect == "kbnf" else " ").join(expr(x) for x in e[1])
        if e[0] != "rep":
            return atom(e)
        inner, postfix = e[1], e[2]
        x = atom(inner)
        if dialect != "kbnf":
            return x + postfix
        if postfix in ("*", "?") and inner[0] == "grp":  # {..} and [..]
            return {"*": "{%s}", "?": "[%s]"}[postfix] % x[1:-1]
        return {"{0,1}": x + "?", "{2}": x + " " + x, "{1,2}": x + " [" + x + "]"}.get(postfix, x + postfix)

    end = ";\n" if dialect == "kbnf" else "\n"
    return "".join("%s ::= %s%s" % (name, " | ".join(expr(a) for a in alts), end) for name, alts in zip(names, grammar))


@st.composite
def gbnf_grammars(draw: st.DrawFn, literals: Sequence[str] = GBNF_LITERALS, classes: Sequence[str] = GBNF_CLASSES) -> str:
    """A GBNF grammar (`root` first): a `char_grammars` structure printed in GBNF."""
    return print_char_grammar(draw(char_grammars(literals, classes)), "gbnf")


def ebnf_specs(dialect: str, literals: Sequence[str] = GBNF_LITERALS,
               classes: Sequence[str] = GBNF_CLASSES) -> SearchStrategy[GrammarSpec]:
    """EBNF grammars in a dialect (xgrammar, kbnf): `char_grammars` printed in it."""
    return char_grammars(literals, classes).map(
        lambda g: GrammarSpec("ebnf", print_char_grammar(g, dialect), options={"dialect": dialect}))


# ----------------------------------------------------------------------------- grammars


def grammar_specs(kinds: Sequence[str], vocab: Optional[Vocabulary] = None) -> SearchStrategy[GrammarSpec]:
    """Grammars of the given kinds; Lark grammars may use `vocab`'s special tokens and ids
    (kept per kinds and `vocab_key`)."""
    return _kept(("specs", tuple(kinds)) + vocab_key(vocab), lambda: _grammar_specs(kinds, vocab))


def _grammar_specs(kinds: Sequence[str], vocab: Optional[Vocabulary] = None) -> SearchStrategy[GrammarSpec]:
    options = []
    if "regex" in kinds:
        options.append(regexes.map(lambda r: GrammarSpec("regex", r)))
    if "lark" in kinds:
        options.append(lark_grammars(vocab).map(lambda g: GrammarSpec("lark", g)))
    if "json_schema" in kinds:
        options.append(st.tuples(json_schemas, json_options).map(lambda t: GrammarSpec("json_schema", schema=t[0], options=t[1])))
    if "gbnf" in kinds:
        options.append(gbnf_grammars().map(lambda g: GrammarSpec("gbnf", g)))
    if "ebnf" in kinds:
        options.append(st.one_of(*[ebnf_specs(d) for d in EBNF_DIALECTS]))
    # the blind spots mutation testing found (conformance/blindspots.py): escape-heavy
    # JSON, Unicode-heavy classes, ambiguous lexeme ends
    options += blindspot_specs(kinds)
    if not options:
        raise ValueError("no grammar kinds to fuzz")
    return st.one_of(*options)


# ----------------------------------------------------------------------------- vocabularies

BYTE_PIECES = [b"a", b"b", b"c", b"0", b"1", b"9", b" ", b",", b'"', b"x", b"{", b":", b"\n",
               "é".encode(), "€".encode(), "😀".encode(),
               b"\xc3", b"\xa9", b"\xe2\x82", b"\xac", b"\xf0\x9f", b"\xff", b""]

small_token_lists = st.lists(st.lists(st.sampled_from(BYTE_PIECES), min_size=1, max_size=3).map(b"".join),
                             min_size=1, max_size=24)


def small_vocabulary(tokens: List[bytes], special: bool = True) -> Vocabulary:
    """The tokens, then EOS and (optionally) a special token whose text is 'a'."""
    tokens = list(tokens) + [b"<eos>"] + ([b"a"] if special else [])
    return Vocabulary.from_bytes(tokens, eos_token_id=len(tokens) - (2 if special else 1),
                                 special_token_ids=[len(tokens) - 1] if special else [], name="small")


small_vocabularies = st.tuples(small_token_lists, st.booleans()).map(lambda t: small_vocabulary(*t))


def gpt2_slice(start: int, size: int, with_bytes: bool) -> Vocabulary:
    """GPT-2's tokens start..start+size (renumbered from 0), optionally with its 256
    one-byte tokens, then EOS."""
    g = load_builtin("gpt2")
    ids = list(range(start, min(start + size, 50256)))
    if with_bytes:
        ids = sorted(set(ids) | set(_gpt2_singles()))
    tokens = [g.tokens[t] for t in ids] + [b"<|endoftext|>"]
    name = "gpt2[%d:%d]%s" % (start, start + size, "+bytes" if with_bytes else "")
    return Vocabulary.from_bytes(tokens, eos_token_id=len(tokens) - 1, name=name)


@functools.lru_cache(maxsize=1)
def _gpt2_singles() -> Tuple[int, ...]:
    """GPT-2's one-byte tokens."""
    g = load_builtin("gpt2")
    return tuple(t for t in range(50256) if len(g.tokens[t]) == 1)


gpt2_slices = st.builds(gpt2_slice, st.integers(0, 50000), st.integers(1, 300), st.booleans())

VOCAB_MODES = ("mixed", "small", "slices", "gpt2", "bytes", "special", "multi-eos", "escapes", "unicode")
#: the blind-spot vocabularies (conformance/blindspots.py), by mode
BLINDSPOT_VOCABS = {"multi-eos": multi_eos_vocabularies(), "escapes": escape_vocabularies(),
                    "unicode": unicode_vocabularies()}


def vocabularies(mode: str = "mixed") -> SearchStrategy[Vocabulary]:
    """small, slices (of GPT-2), the built-ins (gpt2, bytes, special: special tokens and
    two EOS), the blind spots' (multi-eos: several EOS ids and special tokens anywhere;
    escapes: pieces of JSON escapes and slice-boundary runs; unicode: multi-byte
    characters, whole and split), or mixed (all but the whole of GPT-2 and bytes)."""
    if mode == "small":
        return small_vocabularies
    if mode == "slices":
        return gpt2_slices
    if mode in ("gpt2", "bytes", "special"):
        return st.just(mode).map(load_builtin)
    if mode in BLINDSPOT_VOCABS:
        return BLINDSPOT_VOCABS[mode]
    if mode == "mixed":
        return st.one_of(small_vocabularies, gpt2_slices, st.just("special").map(load_builtin),
                         *BLINDSPOT_VOCABS.values())
    raise ValueError("unknown vocabulary mode %r (one of %s)" % (mode, ", ".join(VOCAB_MODES)))


def examples(kinds: Sequence[str], mode: str = "mixed") -> SearchStrategy[Tuple[GrammarSpec, Vocabulary]]:
    """A vocabulary, then a grammar that may name its special tokens and token ids."""
    return vocabularies(mode).flatmap(lambda v: st.tuples(grammar_specs(kinds, v), st.just(v)))
