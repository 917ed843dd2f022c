"""The default suite: refimpl's masks for a fixed set of grammars, vocabularies and paths.

Each grammar comes with sample texts; for each vocabulary (the byte vocabulary and the
embedded GPT-2 one) a path spells each sample text with the longest allowed token at
every step (then EOS when the text is complete), and one more path picks random allowed
tokens (seeded). The samples are chosen so the paths visit strings, escapes, numbers,
keys, nesting, multi-byte UTF-8 (split across tokens in the byte vocabulary), lazy
lexemes, %ignore, slices (long string-safe runs) and EOS.

The `tokens` group (TOKENS) holds Lark grammars with token lexemes (special tokens by
name, `<[id]>`, ranges, negations, `<[*]>`) and lexeme options (stop, suffix, stop="",
max_tokens, lazy, temperature, capture), on the byte vocabulary, GPT-2 and the special
vocabulary (conformance/vectors.py); a sample is then a list of pieces: text to spell,
and tokens given by special-token text or id (`Tok`), EOS among them.

The `types` group (`type_vectors`) holds the JSON schemas of Python types
(conformance/python_types.py, docs/types.md) along their values' texts and refused
texts, with refimpl.typed's parse and to_json checked and recorded in the notes.

JSON-schema grammars are recorded only when refimpl has `Grammar.from_json_schema`;
re-running `python -m conformance generate` later adds them.
"""
from __future__ import annotations

import os
import random
from typing import Any, Dict, Iterator, List, Optional, Sequence, TextIO, Tuple, Union

from refimpl import Matcher, Vocabulary

from .vectors import GrammarSpec, Vector, load_builtin, record, write_vectors
from .vectors import refused as error_vector

SUITE_DIR = os.path.join(os.path.dirname(__file__), "suite")

# (name, pattern, sample texts, tags)
REGEXES: List[Tuple[str, str, List[str], List[str]]] = [
    ("digits", r"[0-9]+", ["2024"], ["numbers"]),
    ("number", r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?", ["-12.5e+3", "0"], ["numbers"]),
    ("string", r'"([^"\\]|\\.)*"', ['"say \\"hi\\" to Zoë"'], ["strings", "escapes", "utf8"]),
    ("long-string", r'"[^"\\\x00-\x1F]*"', ['"The quick brown fox jumps over the lazy dog"'], ["strings", "slices"]),
    ("choice", r"(yes|no|maybe)", ["maybe"], ["literals"]),
    ("words", r"[a-z ]{1,20}", ["hello big world"], ["repetition"]),
    ("greek", r"\p{Greek}+ ?\w*", ["αβγ δέλτα"], ["utf8", "unicode-classes"]),
    ("case-insensitive", r"(?i)hello( world)?", ["HeLLo World"], ["case"]),
    ("not-digits", r"[^0-9]*[0-9]", ["abc 9"], ["negated-class"]),
    ("not-lower", r"[^a-z]+", ["ABC 123!"], ["negated-class"]),
    ("accents", r"é+€?", ["éé€"], ["utf8"]),
    ("emoji", r"(😀|😃)+", ["😀😃"], ["utf8", "4-byte"]),
    ("date", r"\d{4}-\d{2}-\d{2}", ["2024-02-29"], ["numbers", "unicode-classes"]),
    ("email", r"[a-z0-9.]+@[a-z]+\.(com|org)", ["jane.doe@example.org"], ["literals"]),
    ("anything", r"(?s).{0,8}", ["a\nb"], ["eos"]),
    ("key-value", r'\{"[a-z]+": [0-9]+\}', ['{"age": 42}'], ["keys", "numbers"]),
    # the empty language (Rust's regex compiles it): no token, not even EOS (docs/semantics.md)
    ("empty-language", r"[^\s\S]", [""], ["empty-language"]),
]

JSON_LARK = r"""start: value
?value: object | array | string | SIGNED_NUMBER | "true" | "false" | "null"
array: "[" [value ("," value)*] "]"
object: "{" [pair ("," pair)*] "}"
pair: string ":" value
string: ESCAPED_STRING
%import common.ESCAPED_STRING
%import common.SIGNED_NUMBER
%import common.WS
%ignore WS
"""

PERMUTATION_LARK = """start: perm::0x0
perm::_: ""                   %if is_ones([0:3])
       | "a" perm::set_bit(0) %if bit_clear(0)
       | "b" perm::set_bit(1) %if bit_clear(1)
       | "c" perm::set_bit(2) %if bit_clear(2)
"""

# a JSON-like list of distinct colours
UNIQUE_LIST_LARK = r"""start: "[" ("\"red\"" rest::0x1 | "\"green\"" rest::0x2 | "\"blue\"" rest::0x4)? "]"
rest::_: ""
       | ", \"red\"" rest::set_bit(0)   %if bit_clear(0)
       | ", \"green\"" rest::set_bit(1) %if bit_clear(1)
       | ", \"blue\"" rest::set_bit(2)  %if bit_clear(2)
"""

LARK: List[Tuple[str, str, List[str], List[str]]] = [
    ("csv", 'start: item ("," item)*\nitem: NUMBER | WORD\n%import common.NUMBER\n%import common.WORD\n%ignore " "\n',
     ["12, apples,3"], ["ignore", "numbers"]),
    ("arithmetic", 'start: expr\nexpr: term (("+" | "-") term)*\nterm: factor (("*" | "/") factor)*\n'
                   'factor: NUMBER | "(" expr ")"\nNUMBER: /[0-9]+/\n%ignore /[ \\t]+/\n',
     ["(1 + 2) * 34 / (5-6)"], ["nesting", "numbers", "ignore"]),
    ("object", 'start: "{" pair ("," pair)* "}"\npair: KEY ":" VALUE\nKEY: /"[a-z]+"/\n'
               'VALUE: /[0-9]+/ | "true" | "false"\n',
     ['{"a":1,"bc":true}'], ["keys"]),
    ("lines", 'start: line+\nline: /[a-z]+/ "\\n"\n', ["ab\ncd\n"], ["eos"]),
    ("shared-prefix", 'start: A B | A C\nA: "ab"\nB: /c+/\nC: "cd"\n', ["abccc", "abcd"], ["lexing"]),
    ("lazy", 'start: text " done"\ntext[lazy]: /(.|\\n)*<end>/\n', ["hi <b>there</b><end> done"], ["lazy"]),
    ("json", JSON_LARK, ['{"name": "Zoë", "tags": ["a", [1, -2.5e3]], "ok": true, "n": null}'],
     ["nesting", "strings", "numbers", "keys", "utf8", "ignore"]),
    ("parens", 'start: p\np: "(" p* ")"\n', ["(()(()))"], ["nesting"]),
    ("keywords", 'start: (KW | NAME) (" " (KW | NAME))*\nKW: "if" | "then"\nNAME: /[a-z]+/\n', ["if iffy then x"],
     ["lexing"]),
    # parametric rules (llguidance's docs/parametric.md)
    ("permutation", PERMUTATION_LARK, ["cab", "bca"], ["parametric"]),
    ("unique-list", UNIQUE_LIST_LARK, ['["green", "red", "blue"]', "[]"], ["parametric", "strings"]),
    ("counted", 'start: lst::0x0\nlst::_: "a" lst::incr([0:2]) %if lt([0:2], 3)\n'
                '      | "b" lst::incr([2:4]) %if lt([2:4], 2)\n      | ""\n',
     ["abaab"], ["parametric", "repetition"]),
    ("length-limit", 'start: aa::0\naa::_: "a" aa::incr(_) %if lt(_, 12)\n      | bb::_\n'
                     'bb::_: "b" bb::incr(_) %if lt(_, 12)\n      | ""\n',
     ["aaaabbbbbbbb", "ab"], ["parametric", "repetition", "eos"]),
    # ignore_once: the %ignore regex is the whole span between two lexemes, matched once
    ("ignore-once", '%llguidance {"ignore_once": true}\nstart: WORD ("," WORD)*\nWORD: /[a-z]+/\n'
                    '%ignore /[ \\t]{1,3}/\n',
     ["ab ,cd,\t \tef"], ["ignore", "ignore-once"]),
    ("ignore-once-comment", '%llguidance {"ignore_once": true}\nstart: stmt+\nstmt: NAME "=" NUMBER ";"\n'
                            'NAME: /[a-z]+/\nNUMBER: /[0-9]+/\n%ignore / |\\n|#[a-z ]*\\n/\n',
     ["x = 1;\ny=22;# set y\nz =3;"], ["ignore", "ignore-once"]),
    # every derivation of start is infinite or needs a terminal that matches nothing
    ("empty-language", 'start: start "a" | "b" NONE\nNONE: /[^\\s\\S]/\n', [""], ["empty-language"]),
]

# (name, GBNF text, sample texts, tags): llama.cpp's grammar language (docs/ebnf.md), whose
# lexemes the compiler chooses; json.gbnf is llama.cpp's (MIT: conformance/data/README.md)
GBNF: List[Tuple[str, str, List[str], List[str]]] = [
    ("arithmetic", 'root ::= expr\nexpr ::= term (("+" | "-") term)*\nterm ::= factor (("*" | "/") factor)*\n'
                   'factor ::= [0-9]+ | "(" expr ")"\n', ["(1+23)*4-5"], ["recursion", "numbers"]),
    ("list", 'root ::= ("- " item "\\n")+\nitem ::= [^\\n]+\n', ["- milk\n- Zoë's eggs\n"], ["utf8", "repetition"]),
    ("cut-lexemes", 'root ::= x "b"\nx ::= [a-z]+ | "(" root ")"\n', ["(ab)b", "aab"], ["repetition"]),
    ("left-recursion", 'root ::= root "," item | item\nitem ::= "x" | "yy"\n', ["x,yy,x"], ["recursion"]),
    ("classes", 'root ::= [à-ÿ]{2,4} "\\u20AC"? [^a-z\\x00-\\x1F]*\n', ["éüß€ ABC😀"], ["utf8", "negated-class"]),
    ("json", "json.gbnf", ['{"name": "Zoë", "tags": ["a", 1.5e3, true, null]}', '{\n  "a": {}}'],
     ["keys", "strings", "numbers", "escapes"]),
    # every derivation of root is infinite: the empty language
    ("empty-language", 'root ::= root "a"\n', [""], ["empty-language"]),
    # `.` (any character) and rules ended by CRLF, one rule unused (issue 35's line coverage
    # of gbnf.py: no vector had either)
    ("any-char-crlf", 'root ::= . "a"\r\nb ::= "c"\r\n', ["éa", "xa"], ["utf8"]),
    # GBNF's three hex escapes, \x (2 digits), \u (4) and \U (8), in literals and class
    # ranges (issue 35's held-out sample, seed 45: no vector had \U)
    ("hex-escapes", 'root ::= "\\U0001F600" [\\U0001F300-\\U0001F5FF]+ "\\u00e9\\x41"\n', ["😀🌍🎉éA"],
     ["utf8", "escapes"]),
]


# (name, dialect, EBNF text, sample texts, tags): other engines' EBNF (docs/ebnf.md), read by
# Grammar.from_ebnf(text, dialect=...); names begin with the dialect. xgrammar's JSON
# grammar is its own (tests/python/test_grammar_matcher_ebnf.py, Apache-2.0:
# conformance/data/README.md): a string is a right-recursive rule, one character at a time
EBNF: List[Tuple[str, str, str, List[str], List[str]]] = [
    ("xgrammar-json", "xgrammar", "xgrammar_json.ebnf", ['[-1.5e3, {"é\\n": [true, null]}]'],
     ["recursion", "strings", "numbers", "escapes"]),
    # a lookahead assertion (= ...) ends the key rule; a rule body over two lines
    ("xgrammar-lookahead", "xgrammar", 'root ::= pair ("," pair)*\npair ::= key "=" value\nkey ::= [a-z_]+ (= "=")\n'
                                      'value ::= [0-9]+\n    | "\'" [^\'\\n]* "\'"\n',
     ["max_len=12,name='Zoë'"], ["lookahead", "utf8"]),
    # a lookahead ending the grammar's last rule, at the end of the text (issue 35's
    # held-out sample, seed 44: the check that a lookahead ends its rule read as an error)
    ("xgrammar-lookahead-last", "xgrammar", 'root ::= key "=" [0-9]+\nkey ::= [a-z_]+ (= "=")', ["max_len=12"],
     ["lookahead"]),
    # corners only valid grammars reach (issue 35's line coverage of xgrammar.py and
    # xgrammar_dispatch.py): `{n}`, an empty group, a dispatch with no excludes that does not
    # loop, and one with no tags at all (free text to the end)
    ("xgrammar-corners", "xgrammar", 'root ::= "a"{2} ( ) "b" TagDispatch(("<t>", c), excludes=(), '
                                     'loop_after_dispatch=false)\nc ::= "!"\n', ["aab hi<t>!"],
     ["repetition", "dispatch"]),
    ("xgrammar-empty-dispatch", "xgrammar", 'root ::= "x" TagDispatch()\n', ["xhello"], ["dispatch"]),
    ("xgrammar-substring", "xgrammar", 'root ::= "fox: " Substring("The quick ", "brown fox ", "jumps") "."\n',
     ["fox: brown fox jumps.", "fox: ."], ["substring"]),
    # escapes in classes and literals, {m,n} and xgrammar's {m,-1}; [^] is any character
    ("xgrammar-classes", "xgrammar", 'root ::= [\\[\\]\\-\\\\^]{1,3} "\\x41\\u00e9\\t"\n'
                                    '    [^\\n\\t ]{2,} [0-9]{0,-1} ([^]{1,2} "!")?\n',
     ["[]-A\u00e9\tx\u00e9!42", "\\^A\u00e9\t\U0001F600\u00e9\n\n!"], ["escapes", "repetition", "utf8"]),
    # kbnf's: rules end with ;, start rule `start`; a regex string's escapes are read first
    ("kbnf-regex", "kbnf", '(* a record: regex terminals, matched whole *)\nstart ::= field {", " field};\n'
                           'field ::= #"[a-z_]+" \'=\' (#"-?[0-9]+(\\\\.[0-9]+)?" | \'"\' #"[^\\"\\\\\\\\]*" \'"\');\n',
     ['x=1, name="Zoë", pi=-3.14'], ["regex", "strings", "numbers"]),
    ("kbnf-shortest", "kbnf", 'start ::= "<!--" #e"(?s:.)*-->" {" " word};\nword ::= #"[a-z]+";\n',
     ["<!-- a -- b\n --> ok go"], ["shortest", "regex"]),
    ("kbnf-excluding", "kbnf", 'start ::= "Q: " #ex"\\\\?" "?" #ex"[.!]" ("." | "!");\n',
     ["Q: Why not?Because it rains."], ["complement", "regex"]),
    ("kbnf-substrs", "kbnf", 'start ::= "fox: " #substrs"The quick brown fox" ".";\n',
     ["fox: quick brown.", "fox: ."], ["substring"]),
    # [x], {x}, `,`, single quotes, \u{..}, a rule defined twice (the alternatives of both)
    ("kbnf-recursive", "kbnf", "(* nested lists *)\nstart ::= list;\nlist ::= '[' [item {',', ' '? item}] ']';\n"
                               "item ::= #\"[0-9]+\" | list;\nitem ::= 'x\\u{e9}';\n",
     ["[1, [22,[]], xé]"], ["recursion", "nesting", "escapes"]),
    # a start rule that only calls itself: the empty language
    ("kbnf-empty-language", "kbnf", "start ::= start;\n", [""], ["empty-language"]),
]


#: the grammar texts that are copies of other engines' files (conformance/data/README.md),
#: shipped with the package so that `generate` works from an installed copy
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def _data_text(text: str) -> str:
    """The grammar text; a file name (`json.gbnf`, llama.cpp's; `xgrammar_json.ebnf`,
    xgrammar's) is read from DATA_DIR."""
    if "\n" in text or not text.endswith((".gbnf", ".ebnf")):
        return text
    with open(os.path.join(DATA_DIR, text), encoding="utf-8") as f:
        return f.read()


# (name, schema, options, sample texts, tags)
JSON_SCHEMAS: List[Tuple[str, Any, Dict[str, Any], List[str], List[str]]] = [
    ("person", {"type": "object",
                "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0},
                               "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3}},
                "required": ["name", "age"], "additionalProperties": False},
     {}, ['{"name": "Zoë", "age": 42, "tags": ["a", "b"]}', '{"name":"a\\u001fb","age":7}'],
     ["keys", "strings", "numbers", "utf8", "escapes"]),
    ("bounded-number", {"type": "number", "minimum": -10, "maximum": 100}, {}, ["-2.5", "99"], ["numbers"]),
    ("enum", {"enum": ["red", "green", 7, None]}, {}, ['"green"', "7"], ["literals"]),
    ("nested", {"type": "object",
                "properties": {"a": {"type": "object",
                                     "properties": {"b": {"type": "array", "items": {"type": "integer"}}},
                                     "required": ["b"]}},
                "required": ["a"]},
     {}, ['{"a": {"b": [1, 2, 3]}}'], ["nesting", "keys"]),
    ("any-of", {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "boolean"}]}, {}, ['"hi"', "true"],
     ["strings"]),
    ("pattern", {"type": "string", "pattern": "^[a-z]+-[0-9]{2}$"}, {}, ['"abc-12"'], ["strings"]),
    ("compact", {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "boolean"}}},
     {"whitespace_flexible": False}, ['{"x":1,"y":false}'], ["keys", "options"]),
    # JSON whitespace is matched once: a bounded whitespace_pattern is exact
    ("bounded-whitespace", {"type": "object",
                            "properties": {"name": {"type": "string"},
                                           "ids": {"type": "array", "items": {"type": "integer"}, "maxItems": 3}}},
     {"whitespace_pattern": "[ ]{1,2}"}, ['{"name": "Zoë",  "ids": [1,  2]}', '{ "ids":[7] }'],
     ["keys", "options", "whitespace"]),
    ("x-guidance-whitespace", {"type": "array", "items": {"type": "boolean"}, "maxItems": 4,
                               "x-guidance": {"whitespace_pattern": "\n[ ]{0,4}"}},
     {}, ['[\n  true,\n  false\n]'], ["options", "whitespace"]),
]

VOCABS = ("bytes", "gpt2")


class Tok:
    """A token of a sample, not spelled from text: a special token by its text (`<EOT>`
    stands for the vocabulary's first EOS), or an id."""

    def __init__(self, which: Union[str, int]) -> None:
        self.which = which

    def id(self, vocab: Vocabulary) -> int:
        if isinstance(self.which, int):
            return self.which
        if self.which == EOT_NAME:
            assert vocab.eos_token_id is not None
            return vocab.eos_token_id
        text = self.which.encode("utf-8")
        return next(t for t in sorted(vocab.special_token_ids) if vocab.tokens[t] == text)


#: in TOKENS' grammars and samples, the text of the vocabulary's first EOS token
EOT_NAME = "<EOT>"
EOS = Tok(EOT_NAME)

Sample = Union[str, Sequence[Union[str, Tok]]]

# Minimal cases of the disagreements in docs/findings.md, kept as vectors (refimpl's masks)
# so the peers' known differences stay checked: (name, spec, vocabularies, texts, tags).
MARKER_VOCAB = Vocabulary.from_bytes([b"a", b"\xff[", b"<eos>"], eos_token_id=2, name="marker")
EXCLUDE_VOCAB = Vocabulary.from_bytes([b"a", b"b", b"c", b"<eos>"], eos_token_id=3, name="exclude")
FINDINGS: List[Tuple[str, GrammarSpec, Sequence[Union[str, Vocabulary]], List[Sample], List[str]]] = [
    ("llguidance-lazy-after-greedy", GrammarSpec("lark", "start: A lz\nA: /a+/\nlz[lazy]: /[0-9]+/\n"),
     ("bytes",), ["a1"], ["lazy"]),
    ("llguidance-lazy-after-ignore", GrammarSpec("lark", 'start: "a" lz\nlz[lazy]: /[0-9]+/\n%ignore / +/\n'),
     ("bytes", "gpt2"), ["a 1"], ["lazy", "ignore"]),
    ("outlines-leftmost-first", GrammarSpec("regex", "(a*|b)"), ("bytes",), ["b"], ["alternation"]),
    ("outlines-delayed-match", GrammarSpec("regex", r"[0-9]+(\.[0-9]+)?"), ("bytes", "gpt2"), ["1.5"], ["numbers"]),
    ("outlines-any-of-number", GrammarSpec("json_schema", schema={"anyOf": [{"type": "integer"}, {"type": "number"}]}),
     ("bytes", "gpt2"), ["1.5"], ["numbers", "alternation"]),
    ("outlines-exponent", GrammarSpec("json_schema", schema={"type": "number"}), ("bytes", "gpt2"), ["1e5"], ["numbers"]),
    # llguidance with special tokens, lexeme options, sub-grammars; JSON numbers (L6-L13)
    ("llguidance-stop-eos-primary", GrammarSpec("lark", 'start: x "!"\nx[stop=""]: /[a-z]+/\n'), ("special",),
     [["ab", Tok("<|end_of_text|>"), "!"]], ["stop-eos"]),
    ("llguidance-eos-before-token-lexeme", GrammarSpec("lark", 'start: "a" (<eos> "b")?\n'), ("bytes",),
     [["a", EOS, "b"]], ["special-token", "eos"]),
    ("llguidance-first-token-lexeme", GrammarSpec("lark", 'start: <think>? <[282-283]> "x"\n'), ("special",),
     [[Tok("<think>"), "x"]], ["special-token", "token-range"]),
    ("llguidance-marker-bytes", GrammarSpec("lark", 'start: "a" <eos>\n'), (MARKER_VOCAB,), [["a", EOS]],
     ["special-token"]),
    ("llguidance-negative-fraction", GrammarSpec("json_schema", schema={"type": "number", "minimum": -1}),
     ("bytes", "gpt2"), ["-0.10"], ["numbers"]),
    ("llguidance-ecma-dot", GrammarSpec("json_schema", schema={"type": "string", "pattern": "^.{0,2}$"}),
     ("bytes",), ['"\\t"', '"\u2027"'], ["json-string", "pattern"]),
    ("llguidance-escape-in-negated-class", GrammarSpec("json_schema", schema={"type": "string", "pattern": '^[^\\\\"]*$'}),
     ("bytes",), ['"a\\nb"'], ["json-string", "pattern"]),
    ("llguidance-ecma-space-partial", GrammarSpec("json_schema", schema={"type": "string", "pattern": "^[\\w\\s-]+$"}),
     ("bytes",), ['"a b"'], ["json-string", "pattern"]),
    ("llguidance-email-quoted", GrammarSpec("json_schema", schema={"type": "string", "format": "email"}),
     ("bytes",), ['"a@b"'], ["json-string", "format"]),
    ("llguidance-hostname-length", GrammarSpec("json_schema", schema={"type": "string", "format": "hostname"}),
     ("bytes",), ['"%sa"' % (("a" * 62 + ".") * 4)], ["json-string", "format"]),
    ("llguidance-ipv6-ipv4-tail", GrammarSpec("json_schema", schema={"type": "string", "format": "ipv6"}),
     ("bytes",), ['"::1"'], ["json-string", "format"]),
    ("llguidance-leap-day-and-second", GrammarSpec("json_schema", schema={"type": "string", "format": "date-time"}),
     ("bytes",), ['"2021-02-28T23:59:59Z"', '"2020-01-01T08:38:60+08:39"'], ["json-string", "format"]),
    # llguidance 1.9.1: a number may not end on a prefix of a bound's digits, nor go on with zeros (L22)
    ("llguidance-bound-prefix", GrammarSpec("json_schema", schema={
        "type": "number", "maximum": 100.25, "exclusiveMinimum": 0.5}), ("bytes", "gpt2"), ["100.2", "0.510"],
     ["numbers"]),
    # llguidance 1.9.1: a regex's trailing lone backslash dropped (L23): no samples, an error vector
    ("llguidance-regex-trailing-backslash", GrammarSpec("regex", "ab\\"), ("bytes",), [], ["escapes"]),
    ("llguidance-subgrammar-skip-panic",
     GrammarSpec("lark", 'start: "a" "c"? sub\nsub: %lark {\nstart: "b"\n}\n%ignore " "\n'), ("bytes",), ["a b"],
     ["subgrammar", "ignore"]),
    ("llguidance-empty-first-lexeme", GrammarSpec("lark", 'start: O "a"\nO: /[a-z]*/\n%ignore ","\n'), ("bytes",),
     ["ba"], ["ignore"]),
    ("llguidance-stop-eos-complete-lexeme", GrammarSpec("lark", 'start: o "a"\no[stop=""]: "a"\n'), ("bytes",),
     [["a", EOS, "a"]], ["stop-eos"]),
    ("llguidance-subgrammar-ignore",
     GrammarSpec("lark", 'start: sub+ "!"\nsub: %lark {\nstart: "a"\n%ignore " "\n}\n'), ("bytes",), ["aa!"],
     ["subgrammar", "ignore"]),
    # xgrammar 0.2.8 (X1-X11), llama.cpp (N1, N5), kbnf 0.4.2 (K6, K7), lm-format-enforcer 0.11.3
    # (E1-E9), transformers-cfg 0.2.7 (T1-T9): each a peer bug of docs/findings.md
    ("xgrammar-length-bounded-string", GrammarSpec("json_schema", schema={"type": "string", "maxLength": 5}),
     ("bytes",), ['"a\\nb"'], ["json-string"]),
    ("xgrammar-six-fraction-digits", GrammarSpec("json_schema", schema={"type": "number", "minimum": 0, "maximum": 10}),
     ("bytes",), ["1.1234567"], ["numbers"]),
    ("xgrammar-negative-zero", GrammarSpec("json_schema", schema={"type": "integer"}), ("bytes",), ["-0"], ["numbers"]),
    ("xgrammar-surrogates", GrammarSpec("regex", "([^\\x00-\\x7F])*"), ("bytes",), ["\ud7ff"], ["utf8"]),
    ("xgrammar-pattern-escapes", GrammarSpec("json_schema", schema={"type": "string", "pattern": "^[^a-c]+$"}),
     ("bytes",), ['"d\\\\"'], ["json-string"]),
    ("xgrammar-unproductive-rule", GrammarSpec("ebnf", 'root ::= "a"* r2 "a" | "a"\nr2 ::= r2\n',
                                               options={"dialect": "xgrammar"}), ("special",), ["a"], ["rules"]),
    ("xgrammar-left-recursion-crash", GrammarSpec("gbnf", 'root ::= "a"\nr1 ::= r1{1,2}\n'), ("bytes",), ["a"],
     ["rules", "left-recursion"]),
    ("xgrammar-mask-omits-token", GrammarSpec("gbnf", 'root ::= root [^a] | ""\n'), ("gpt2",), ["bb"],
     ["left-recursion"]),
    ("xgrammar-allof-as-any", GrammarSpec("json_schema", schema={"allOf": [{"type": "object"}, {"type": "object"}]}),
     ("bytes",), ["{}"], ["json"]),
    ("xgrammar-pattern-keys", GrammarSpec("json_schema", schema={"type": "object", "patternProperties": {"^_": {}}}),
     ("bytes",), ['{"_a": 1}'], ["json"]),
    ("xgrammar-whole-string-pattern", GrammarSpec("json_schema", schema={"type": "string", "pattern": "^ab"}),
     ("bytes",), ['"abc"'], ["json-string"]),
    ("lmfe-max-length-zero", GrammarSpec("json_schema", schema={"type": "string", "maxLength": 0}), ("bytes",),
     ['""'], ["json-string"]),
    ("lmfe-enum-python-spelling", GrammarSpec("json_schema", schema={"enum": [True]}), ("bytes",), ["true"], ["json"]),
    ("llama-cpp-not-utf8", GrammarSpec("gbnf", "root ::= [^a]*\n"), ("bytes",), ["b"], ["utf8"]),
    ("llama-cpp-raw-control-characters", GrammarSpec("json_schema", schema={"type": "string"}), ("bytes",), ['"a"'],
     ["json-string"]),
    ("kbnf-no-answer", GrammarSpec("ebnf", "start ::= (start)?;\n", options={"dialect": "kbnf"}), ("bytes",), [""],
     ["rules"]),
    ("kbnf-empty-repetition-panic", GrammarSpec("ebnf", 'start ::= ""* "a";\n', options={"dialect": "kbnf"}),
     ("bytes",), ["a"], ["rules"]),
    ("lmfe-number-grammar", GrammarSpec("json_schema", schema={"type": "number"}), ("bytes",), ["0.5"], ["numbers"]),
    ("lmfe-control-characters", GrammarSpec("json_schema", schema={"type": "string"}), ("bytes",), ['"a"'],
     ["json-string"]),
    ("lmfe-non-string-const", GrammarSpec("json_schema", schema={"const": 0}), ("bytes",), ["0"], ["json"]),
    ("lmfe-trailing-comma", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
     ("bytes",), ['{"a": 1, "b": 2}'], ["json"]),
    ("lmfe-pattern-alphabet", GrammarSpec("json_schema", schema={"type": "string", "pattern": "^[^a-c]+$"}),
     ("special",), ['"|"'], ["json-string"]),
    ("lmfe-untyped-subschema", GrammarSpec("json_schema", schema={
        "type": "array", "items": {"properties": {"a": {"type": "string"}}}}), ("bytes",), ['[{"a": "x"}]'], ["json"]),
    ("lmfe-one-of-objects", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"d": {"oneOf": [{"type": "null"}, {"type": "string"}]}}}),
     ("bytes",), ['{"d": null}'], ["json"]),
    ("lmfe-ref-by-last-segment", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"next": {"$ref": "#"}}, "definitions": {"x": {"type": "string"}}}),
     ("bytes",), ['{"next": {}}'], ["json"]),
    ("lmfe-ref-beside-keywords", GrammarSpec("json_schema", schema={
        "type": "object", "$ref": "#/definitions/c", "properties": {"p": {"type": "integer"}},
        "definitions": {"c": {"type": "object", "properties": {"c": {"type": "integer"}}}}}),
     ("bytes",), ['{"c": 1}'], ["json"]),
    ("lmfe-all-of-last-part", GrammarSpec("json_schema", schema={
        "allOf": [{"$ref": "#/definitions/base"}, {"type": "object", "properties": {"b": {"type": "integer"}}}],
        "definitions": {"base": {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}}}),
     ("bytes",), ['{"a": 1, "b": 2}'], ["json"]),
    ("xgrammar-keywords-unread", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"v": {"type": "string"}, "r": {"enum": ["p", "l"]}},
        "dependencies": {"r": {"anyOf": [{"type": "object", "required": ["v"]},
                                         {"type": "object", "properties": {"r": {"const": "l"}}}]}}}),
     ("bytes",), ['{"r": "l"}'], ["json"]),
    # peer bugs that had no minimal case, for their bug reports (conformance/bugreport.py)
    ("llguidance-eos-after-eos-token-panic", GrammarSpec("lark", 'start: T1 <|end_of_text|> T1\nT1: /[a-c]+/\n'),
     ("special",), [["a", Tok("<|end_of_text|>"), "a"]], ["special-token", "eos"]),
    ("llguidance-guarded-empty-alternative",
     GrammarSpec("lark", 'start: "a" | p::0x1\np::_: "" %if is_ones([0:1]) | "a" p::set_bit(0) %if bit_clear(0)\n'),
     ("bytes",), [""], ["parametric"]),
    ("llguidance-hostname-hyphens", GrammarSpec("json_schema", schema={"type": "string", "format": "hostname"}),
     ("bytes",), ['"ab-c"'], ["json-string", "format"]),
    ("xgrammar-one-keyword-per-schema", GrammarSpec("json_schema", schema={"type": "string", "enum": [None, "a"]}),
     ("bytes",), ['"a"'], ["json"]),
    ("xgrammar-oneof-as-anyof", GrammarSpec("json_schema", schema={
        "oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]}), ("bytes",), ["1.5"], ["json", "numbers"]),
    ("xgrammar-untyped-keywords-unread", GrammarSpec("json_schema", schema={"minLength": 3}), ("bytes",), ['"abc"'],
     ["json"]),
    ("xgrammar-format-regexes", GrammarSpec("json_schema", schema={"type": "string", "format": "date"}), ("bytes",),
     ['"2024-02-28"'], ["json-string", "format"]),
    ("xgrammar-email-address-literal", GrammarSpec("json_schema", schema={"type": "string", "format": "email"}),
     ("bytes",), ['"a@b.cd"'], ["json-string", "format"]),
    ("xgrammar-required-outside-properties", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a", "b"]}), ("bytes",),
     ['{"a":1,"b":2}'], ["json"]),
    ("xgrammar-multipleof-unread", GrammarSpec("json_schema", schema={"type": "number", "multipleOf": 0.5}),
     ("bytes",), ["1.5"], ["numbers"]),
    # xgrammar 0.2.9 on MaskBench (X14, X15): its optional groups in a pattern, a `required` name
    # outside `properties` met with one-keyword-per-schema (Github_medium o57539), an object that
    # must begin with a named property (o85190), a pattern's length unread (Snowplow sp_331)
    ("xgrammar-optional-group-loops", GrammarSpec("json_schema", schema={"type": "string", "pattern": "^a(b+c)?$"}),
     ("bytes",), ['"abc"'], ["json-string"]),
    ("xgrammar-required-in-one-of", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "additionalProperties": False, "oneOf": [{"type": "object", "required": ["b"]}]}), ("bytes",),
     ['{"b":1}'], ["json"]),
    ("xgrammar-named-property-first", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"a": {"type": "integer"}}, "required": ["b"]}), ("bytes",),
     ['{"b":1}'], ["json"]),
    ("xgrammar-one-string-keyword", GrammarSpec("json_schema", schema={
        "type": "string", "pattern": "^a+$", "maxLength": 3}), ("bytes",), ['"aaa"'], ["json-string"]),
    # xgrammar 0.2.9 reads EOS only as the end, never as ExcludeToken's token (X16)
    ("xgrammar-exclude-token-eos", GrammarSpec("ebnf", 'root ::= "a" ExcludeToken(1) "b"\n',
                                               options={"dialect": "xgrammar"}), (EXCLUDE_VOCAB,),
     [["a", EOS, "b"]], ["xgrammar", "token-range", "eos"]),
    ("kbnf-complement-over-bytes", GrammarSpec("ebnf", "start ::= #e'(a|b)+c' #ex'ab' '\\n';\n",
                                               options={"dialect": "kbnf"}), ("bytes",), ["aaabac\ud7ff\n"], ["utf8"]),
    # kbnf 0.4.2 hangs on an unterminated comment, which it should refuse (K12): an error vector
    ("kbnf-unterminated-comment", GrammarSpec("ebnf", 'start ::= "a";\n(* unterminated\n', options={"dialect": "kbnf"}),
     ("bytes",), [], ["rules", "comment"]),
    ("lmfe-type-list", GrammarSpec("json_schema", schema={
        "type": ["object", "null"], "properties": {"a": {"type": "integer"}}, "required": ["a"]}), ("bytes",),
     ['{"a": 1}'], ["json"]),
    ("lmfe-mixed-enum", GrammarSpec("json_schema", schema={"type": "object", "properties": {"c": {"enum": ["red", 7]}}}),
     ("bytes",), ['{"c": 7}'], ["json"]),
    ("lmfe-pattern-with-length", GrammarSpec("json_schema", schema={"type": "object", "properties": {
        "s": {"type": "string", "pattern": "^a+$", "maxLength": 3}}}), ("bytes",), ['{"s": "aa"}'],
     ["json-string"]),
    ("lmfe-character-outside-alphabet", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"name": {"type": "string"}}}), ("bytes",), ['{"name": "Zo\u00eb"}'], ["json-string"]),
    # lm-format-enforcer 0.11.3: the boolean schema `true` as a subschema (E26); a literal item
    # counted more than once toward minItems (E27)
    ("lmfe-true-subschema", GrammarSpec("json_schema", schema={"type": "array", "items": True}), ("bytes",),
     ['[1, "a"]'], ["json"]),
    ("lmfe-literal-items-count", GrammarSpec("json_schema", schema={"type": "array", "minItems": 3}), ("bytes",),
     ["[true, 1, 2]"], ["json"]),
    ("tcfg-negated-range-end", GrammarSpec("gbnf", "root ::= [^a-z]+\n"), ("bytes",), ["A"], ["classes"]),
    ("tcfg-repetition-bounds", GrammarSpec("gbnf", 'root ::= "a"{0,2} "b"\n'), ("bytes",), ["b"], ["repetition"]),
    ("tcfg-eos-refused", GrammarSpec("gbnf", "root ::= [\\x00-\\x7F]+\n"), ("bytes",), ["a"], ["eos"]),
]


# Token lexemes and lexeme options (llguidance's), on the vocabularies named: (name,
# grammar, {vocabulary: samples}, tags). `<EOT>` in a grammar is the vocabulary's EOS text
# (<eos>, <|endoftext|>, <|eot_id|>).
ALL_VOCABS = ("bytes", "gpt2", "special")
STOP_EOS = 'start: x "!"\nx[stop=""]: /[a-z ]*/\n'
MAX_TOKENS_ROW = 'start: A x "!"\nA: /[0-9]+/\nx[max_tokens=2]: /[a-z]+/\n'
SUBGRAMMAR = ('start: "q" inner "!"\ninner[temperature=0.7]: %lark {\nstart: <think> W+ </think>\nW: /[a-z]+/\n'
              '%ignore " "\n}\n%ignore "-"\n')
TOKENS: List[Tuple[str, str, Dict[str, List[Sample]], List[str]]] = [
    # special tokens by name, read by id (token-first); EOS itself as a token lexeme
    ("chat-header", 'start: <|start_header_id|> ROLE <|end_header_id|> "\\n\\n" TEXT <|eot_id|>\n'
                    'ROLE: /[a-z]+/\nTEXT: /[^<]+/\n',
     {"special": [[Tok("<|start_header_id|>"), "assistant", Tok("<|end_header_id|>"), "\n\nhello world", EOS]]},
     ["special-token", "eos"]),
    ("eos-token", 'start: "Answer: " /[0-9]+/ <EOT>\n', {v: [["Answer: 42", EOS]] for v in ALL_VOCABS},
     ["special-token", "eos"]),
    ("think", "start: <think> THOUGHT </think> ANSWER\nTHOUGHT: /[a-z .]+/\nANSWER: /[0-9]+/\n",
     {"special": [[Tok("<think>"), "hello world.", Tok("</think>"), "123"]]}, ["special-token"]),
    # a special token's text as text, and the special token itself
    ("text-or-token", 'start: (<EOT> | "<EOT>") "!"\n', {v: [[EOS, "!"], ["<EOT>!"]] for v in ALL_VOCABS},
     ["special-token", "text"]),
    ("text-spells-special", 'start: "<|" /[a-z_]+/ "|>" <|python_tag|>\n',
     {"special": [["<|eot_id|>", Tok("<|python_tag|>")], ["<|python_tag|>", Tok("<|python_tag|>")]]},
     ["special-token", "text"]),
    # token ids, ranges, negation, any token
    ("token-id", 'start: "x" <[97]> "y"\n', {v: [["x", Tok(97), "y"]] for v in ALL_VOCABS}, ["token-range"]),
    ("token-ranges", 'start: (<[48-57]> | <[65-70,97-102]>)+ "."\n',
     {v: [[Tok(49), Tok(97), Tok(66), "."]] for v in ALL_VOCABS}, ["token-range"]),
    ("negated-range", 'start: "a" <[^97-122]> "b"\n',
     {"bytes": [["a", EOS, "b"], ["a", Tok(65), "b"]], "gpt2": [["a", EOS, "b"]],
      "special": [["a", Tok("<think>"), "b"], ["a", Tok(65), "b"]]}, ["token-range", "negation"]),
    ("any-token", 'start: "say " <[*]> <[*]> "!"\n',
     {"bytes": [["say ", EOS, Tok(33), "!"]], "gpt2": [["say ", EOS, Tok(0), "!"]],
      "special": [["say ", Tok("<think>"), Tok(97), "!"]]}, ["token-range"]),
    # %ignore before a special token; a sub-grammar with its own %ignore and special tokens
    ("ignore-before-special", 'start: WORD <EOT> WORD\nWORD: /[a-z]+/\n%ignore " "\n',
     {v: [["hello ", EOS, " world"]] for v in ALL_VOCABS}, ["special-token", "ignore"]),
    ("subgrammar-special", SUBGRAMMAR,
     {"special": [["q", Tok("<think>"), " hello world ", Tok("</think>"), "-!"]]},
     ["special-token", "subgrammar", "ignore"]),
    ("subgrammar-eos", 'start: "q" inner <EOT>\ninner: %lark {\nstart: W+\nW: /[a-z]+/\n%ignore " "\n}\n',
     {v: [["qhello world", EOS]] for v in ALL_VOCABS}, ["special-token", "subgrammar", "ignore"]),
    # rule options
    ("stop-string", 'start: "<" x ">"\nx[stop="END", stop_capture="s"]: /[a-zE ]*/\n',
     {v: [["<hello world END>"]] for v in ALL_VOCABS}, ["stop", "lazy"]),
    ("stop-regex", 'start: x "!"\nx[stop=/[0-9]+/]: /[a-z ]*/\n', {v: [["hello world1!"]] for v in ALL_VOCABS},
     ["stop", "lazy"]),
    ("suffix", 'start: "<|" x <|eot_id|>\nx[suffix="|>"]: /[a-z_]+/\n',
     {"special": [["<|python_tag|>", EOS]]}, ["suffix", "lazy", "special-token"]),
    ("suffix-text", 'start: "<b>" x "!"\nx[suffix="</b>"]: /[a-z ]*/\n', {v: [["<b>hello</b>!"]] for v in ALL_VOCABS},
     ["suffix", "lazy"]),
    # EOS ends a stop="" lexeme and is eaten; generation goes on
    ("stop-eos", STOP_EOS, {v: [["hello world", EOS, "!"]] for v in ALL_VOCABS}, ["stop-eos", "eos"]),
    ("stop-eos-last", 'start: "a" x\nx[stop=""]: /[a-z ]+/\n', {v: [["ahello"]] for v in ALL_VOCABS},
     ["stop-eos", "eos"]),
    # token budgets
    ("max-tokens", 'start: "say" x "."\nx[max_tokens=3]: /[a-z ]+/\n',
     {"bytes": ["say ab."], "gpt2": ["say ab.", "say hello world."], "special": ["say ab.", "say hello world."]},
     ["max-tokens"]),
    ("max-tokens-ignore", 'start: "say" x "."\nx[max_tokens=2]: /[a-z]+/\n%ignore " "\n',
     {"bytes": ["say ab."], "gpt2": ["say hello."], "special": ["say hello.", "say  aaaab."]}, ["max-tokens", "ignore"]),
    ("max-tokens-dead", 'start: "12" x "!"\nx[max_tokens=2]: /[a-z]+[0-9]/\n',
     {"bytes": ["12ab"], "special": ["12abab"]}, ["max-tokens", "dead-end"]),
    ("max-tokens-zero", 'start: "a" x "b"\nx[max_tokens=0]: /[a-z]+/\n', {v: ["ab"] for v in ALL_VOCABS},
     ["max-tokens"]),
    # where llguidance counts a budget's tokens per Earley row (known difference)
    ("max-tokens-first-byte", 'start: "1" x "!"\nx[max_tokens=2]: /[a-z]+/\n', {"special": ["1aaa!"]},
     ["max-tokens"]),
    ("max-tokens-row-start", MAX_TOKENS_ROW, {"bytes": ["1aa!"], "special": ["1aa!"]}, ["max-tokens"]),
    # lazy; temperature and capture change no mask
    ("lazy-special", "start: <think> x </think>\nx[lazy]: /[a-z .]*\\./\n",
     {"special": [[Tok("<think>"), "hello world.", Tok("</think>")]]}, ["lazy", "special-token"]),
    ("temperature-capture", 'start: "<" name ":" value ">"\nname[capture="n", temperature=0.3]: /[a-z]+/\n'
                            'value[capture]: /[0-9]+/\n',
     {v: ["<hello:123>"] for v in ALL_VOCABS}, ["metadata"]),
]


def spell(m: Matcher, vocab: Vocabulary, sample: Sample) -> List[int]:
    """The path spelling `sample` (a text, or a list of texts and `Tok`s): each text with
    the longest allowed token at every step, each Tok as that token; then EOS (twice
    when the first one ends a stop="" lexeme)."""
    path: List[int] = []
    for piece in [sample] if isinstance(sample, str) else sample:
        if isinstance(piece, Tok):
            t = piece.id(vocab)
            if not m.consume(t):
                raise ValueError("the sample %r does not allow token %d after %r" % (sample, t, path))
            path.append(t)
        else:
            path += _spell_text(m, vocab, piece)
    return _finish(m, vocab, path)


def _finish(m: Matcher, vocab: Vocabulary, path: List[int]) -> List[int]:
    """`path`, then EOS while the output may end and has not (an EOS that ends a
    stop="" lexeme is eaten, and a second one ends the output)."""
    for _ in range(2):
        if m.eos_consumed or not m.is_accepting() or vocab.eos_token_id is None:
            break
        assert m.consume(vocab.eos_token_id)
        path.append(vocab.eos_token_id)
    return path


def _spell_text(m: Matcher, vocab: Vocabulary, text: str) -> List[int]:
    """The longest allowed token at every step, until `text` is spelled."""
    path, rest = spell_prefix(m, vocab, text.encode("utf-8"))
    if rest:
        raise ValueError("the sample %r does not fit the grammar after %r" % (text, text.encode("utf-8")[:-len(rest)]))
    return path


def spell_prefix(m: Matcher, vocab: Vocabulary, data: bytes) -> Tuple[List[int], bytes]:
    """Spell as much of `data` as the grammar allows, with the longest allowed token at
    every step: (the path, consumed by m; the bytes left unspelled)."""
    path: List[int] = []
    trie = vocab.trie
    i = 0
    while i < len(data):
        allowed = m.mask()
        node, best = 0, None
        for k in range(i, len(data)):
            node = trie.child(node, data[k])
            if node < 0:
                break
            for t in trie.tokens_at(node):
                if t in allowed:
                    best = (t, k + 1)
                    break
        if best is None:
            break
        assert m.consume(best[0])
        path.append(best[0])
        i = best[1]
    return path, data[i:]


def random_path(m: Matcher, vocab: Vocabulary, rng: random.Random, max_len: int = 10) -> List[int]:
    path: List[int] = []
    for _ in range(max_len):
        allowed = [t for t in m.mask().allowed() if t not in vocab.eos_token_ids]
        if not allowed:
            break
        t = rng.choice(allowed)
        assert m.consume(t)
        path.append(t)
    return _finish(m, vocab, path)


def entries(kinds: Sequence[str]) -> Iterator[Tuple[str, str, GrammarSpec, List[str], List[str]]]:
    """(kind, name, spec, sample texts, tags) of the default suite."""
    if "regex" in kinds:
        for name, pattern, texts, tags in REGEXES:
            yield "regex", name, GrammarSpec("regex", pattern), texts, tags
    if "lark" in kinds:
        for name, text, texts, tags in LARK:
            yield "lark", name, GrammarSpec("lark", text), texts, tags
    if "json_schema" in kinds:
        for name, schema, options, texts, tags in JSON_SCHEMAS:
            yield "json_schema", name, GrammarSpec("json_schema", schema=schema, options=options), texts, tags
    if "gbnf" in kinds:
        for name, text, texts, tags in GBNF:
            yield "gbnf", name, GrammarSpec("gbnf", _data_text(text)), texts, tags
    if "ebnf" in kinds:
        for name, dialect, text, texts, tags in EBNF:
            yield "ebnf", name, GrammarSpec("ebnf", _data_text(text), options={"dialect": dialect}), texts, tags


GROUPS = ("regex", "lark", "json_schema", "gbnf", "ebnf", "tokens", "findings", "blindspots", "types")


def eot_text(vocab: Vocabulary) -> str:
    """The text of the vocabulary's first EOS token (what `<EOT>` stands for in TOKENS)."""
    assert vocab.eos_token_id is not None
    return vocab.tokens[vocab.eos_token_id].decode("utf-8")


def _with_eot(sample: Sample, eot: str) -> Sample:
    if isinstance(sample, str):
        return sample.replace(EOT_NAME, eot)
    return [p.replace(EOT_NAME, eot) if isinstance(p, str) else p for p in sample]


def token_vectors(seed: int = 0) -> Iterator[Vector]:
    """The `tokens` group: each TOKENS grammar on its vocabularies, along its samples and
    one random path."""
    for name, text, samples_by_vocab, tags in TOKENS:
        for vname, samples in samples_by_vocab.items():
            vocab = load_builtin(vname)
            eot = eot_text(vocab)
            spec = GrammarSpec("lark", text.replace(EOT_NAME, eot))
            grammar = spec.compile()
            for i, sample in enumerate(samples):
                sample = _with_eot(sample, eot)
                path = spell(Matcher(grammar, vocab), vocab, sample)
                yield record(grammar, spec, vocab, path, "tokens/%s/%s/%d" % (name, vname, i), tags + ["text"],
                             "generate", "spells %s" % _show(sample))
            rng = random.Random("tokens/%s/%s/%d" % (name, vname, seed))
            path = random_path(Matcher(grammar, vocab), vocab, rng, max_len=10 if vname != "gpt2" else 6)
            yield record(grammar, spec, vocab, path, "tokens/%s/%s/random" % (name, vname), tags + ["random"],
                         "generate")


def _show(sample: Sample) -> str:
    if isinstance(sample, str):
        return repr(sample)
    return " ".join(repr(p) if isinstance(p, str) else "<token %s>" % (p.which,) for p in sample)


#: grammars every engine must refuse (conformance/invalid.py): error vectors (added apart
#: from GROUPS' own line, hence the ignore: mypy typed GROUPS as a tuple of eight)
GROUPS += ("invalid",)  # type: ignore[assignment]
#: corpora written as vectors beside the default suite, not in it (`generate --only NAME
#: --out DIR`): the JSON-Schema-Test-Suite's schemas and instances
#: (conformance/json_schema_test_suite.py), read from the checkout's tests/data
CORPORA = ("json_schema_test_suite",)


def generate(kinds: Sequence[str] = GROUPS, vocabs: Sequence[str] = VOCABS,
             seed: int = 0) -> Dict[str, List[Vector]]:
    """The default suite's vectors, by group (a grammar kind, `tokens` or `findings`), or a
    corpus's (CORPORA)."""
    out: Dict[str, List[Vector]] = {}
    for kind, name, spec, texts, tags in entries(kinds):
        grammar = spec.compile()
        for vname in vocabs:
            vocab = load_builtin(vname)
            for i, text in enumerate(texts):
                path = spell(Matcher(grammar, vocab), vocab, text)
                vid = "%s/%s/%s/%d" % (kind, name, vname, i)
                out.setdefault(kind, []).append(
                    record(grammar, spec, vocab, path, vid, tags + ["text"], "generate", "spells %r" % text))
            rng = random.Random("%s/%s/%s/%d" % (kind, name, vname, seed))
            path = random_path(Matcher(grammar, vocab), vocab, rng, max_len=10 if vname == "bytes" else 6)
            vid = "%s/%s/%s/random" % (kind, name, vname)
            out.setdefault(kind, []).append(record(grammar, spec, vocab, path, vid, tags + ["random"], "generate"))
    if "invalid" in kinds:
        from .invalid import invalid_vectors

        out["invalid"] = list(invalid_vectors())
    if "tokens" in kinds:
        out["tokens"] = list(token_vectors(seed))
    if "findings" in kinds:
        out["findings"] = list(finding_vectors())
    if "blindspots" in kinds:
        out["blindspots"] = list(blindspot_vectors(seed))
    if "types" in kinds:
        out["types"] = list(type_vectors())
    if "json_schema_test_suite" in kinds:
        out["json_schema_test_suite"] = list(json_schema_test_suite_vectors())
    return out


def finding_vectors() -> Iterator[Vector]:
    """The `findings` group: each FINDINGS case on its vocabularies, along its samples; a
    case without samples is a grammar refimpl refuses (a peer reads it): an error vector."""
    for name, spec, vocabs, samples, tags in FINDINGS:
        if not samples:
            for v in vocabs:
                vocab = load_builtin(v) if isinstance(v, str) else v
                yield error_vector(spec, vocab, "findings/%s/%s/0" % (name, vocab.name), tags + ["finding"], "findings",
                              "docs/findings.md; a grammar refimpl refuses")
            continue
        grammar = spec.compile()
        for v in vocabs:
            vocab = load_builtin(v) if isinstance(v, str) else v
            for i, sample in enumerate(samples):
                path = spell(Matcher(grammar, vocab), vocab, sample)
                yield record(grammar, spec, vocab, path, "findings/%s/%s/%d" % (name, vocab.name, i),
                             tags + ["finding"], "findings", "docs/findings.md; spells %s" % _show(sample))


def main_generate(out_dir: str = SUITE_DIR, kinds: Optional[Sequence[str]] = None, stream: Optional[TextIO] = None) -> int:
    import sys

    stream = stream or sys.stdout
    kinds = list(kinds or GROUPS)
    os.makedirs(out_dir, exist_ok=True)
    by_kind = generate(kinds)
    for kind, vectors in by_kind.items():
        path = os.path.join(out_dir, "%s.jsonl" % kind)
        write_vectors(path, vectors)
        steps = sum(len(v.steps) for v in vectors)
        print("%-12s %4d vectors %5d steps  %s (%d KB)" % (kind, len(vectors), steps, path, os.path.getsize(path) // 1024),
              file=stream)
    return 0


# The blind spots mutation testing found (issue 20; docs/conformance.md, "Mutation testing";
# conformance/blindspots.py has the fuzzer's strategies for them): fixed vocabularies and
# samples whose pieces are spelled one by one, so an escape or a character is split where
# the sample says.


def _slice_runs() -> List[bytes]:
    """String-safe runs at the slicer's bounds ({1,10}, {1,30}), and the same with a
    backslash or a quote at the bound."""
    safe = b"abcdefghijklmnopqrstuvwxyz0123456789"
    out = []
    for n in (9, 10, 11, 29, 30, 31):
        out.append(safe[:n])
        out.append(safe[:n - 1] + b"\\")
        out.append(safe[:n - 1] + b'"')
    out += [b"\\" + safe[:9], b'"' + safe[:10], b" " * 10, b"\n" * 11]
    return out


#: printable ASCII, controls, pieces of JSON escapes, slice-boundary runs; EOS last
def _with_eos(tokens: List[bytes], name: str) -> Vocabulary:
    """The tokens, then EOS `<eos>`."""
    return Vocabulary.from_bytes(tokens + [b"<eos>"], eos_token_id=len(tokens), name=name)


ESCAPE_VOCAB = _with_eos(
    [bytes([b]) for b in range(0x20, 0x7F)] + [b"\t", b"\n", b"\x01", "é".encode(), b"\xc3", b"\xa9"]
    + [b"\\\\", b"\\u", b"\\u00", b"00", b"e9", b'\\"', b'"\\', b"\\n", b"\\/", b"\\ud83d", b"\\ude00",
       b'":', b'": "', b'"a', b"a\\", b'ab"', b'{"', b'"}', b"u00e9"]
    + _slice_runs(), "escapes")
#: special tokens among the ids, two EOS (`</s>` primary, then `<|end|>` at id 0), a
#: special token whose text is also an ordinary token's (`a`, `<s>`), an empty one
MULTI_EOS_VOCAB = Vocabulary.from_bytes(
    [b"<|end|>", b"a", b"b", b"<s>", b"ab", b"a", b" ", b"</s>", b"!", b"x", b"<s>", b"<", b"s", b">", b"0", b"1",
     b"<pad>", b"", b"c", b"abc", b'"', b'"<s>'],
    eos_token_id=[7, 0], special_token_ids=[3, 5, 16, 17], name="multi-eos")
#: every byte, then multi-byte characters whole, in pairs and split (case-fold partners:
#: s S ſ, k K K, ß ẞ, σ Σ ς, i İ ı), then EOS
UNICODE_VOCAB = _with_eos(
    [bytes([b]) for b in range(256)]
    + [c.encode() for c in ["ſ", "\u212a", "ß", "ẞ", "Σ", "σ", "ς", "İ", "ı", "é", "É", "ſt", "ss", "SS", "Kk",
                            "straße", "STRASSE", "\u00a0", "٣", "😀", "αβ", "ΑΒ", "Ωmega", "\u0080\u07ff"]]
    + ["😀".encode()[:2], "😀".encode()[2:], "ſ".encode()[1:] + b"s", "é".encode()[1:] + "é".encode()[:1]], "unicode")

#: tokens that end a lexeme and go on into the next one (`b a`, `ab ab`)
LEXEME_VOCAB = _with_eos([b"a", b"b", b" ", b"!", b"ab", b"ab ", b"b a", b"b ab", b"aab", b"b!", b"ab!", b"bb"], "lexemes")

ESCAPED_STRING = r'"([^"\\\x00-\x1F]|\\(["\\/bfnrt]|u[0-9a-fA-F]{4}))*"'
# (name, spec, vocabularies, samples: each a list of pieces spelled one by one, tags)
BLINDSPOTS: List[Tuple[str, GrammarSpec, Sequence[Union[str, Vocabulary]], List[Sample], List[str]]] = [
    # JSON escapes typed piece by piece; lengths count an escape as one character (a JSON
    # schema's strings take `\\u` for control characters only, as llguidance's do)
    ("escape-pieces", GrammarSpec("json_schema", schema={"type": "string", "maxLength": 3}), (ESCAPE_VOCAB,),
     [['"', "\\", "u", "00", "1f", "\\", "\\", "\\", '"', '"'], ['"a', "\\u00", "1", "f", "é", '"']],
     ["escapes", "json-string"]),
    ("escaped-keys", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {'a"b': {"type": "string"}, "\\": {"enum": ["é", '"']}},
        "required": ['a"b'], "additionalProperties": False}), (ESCAPE_VOCAB, "gpt2"),
     [['{"a', "\\", '"b": "', "\\u", "001f", '", "', "\\", "\\", '": "', "é", '"}']], ["escapes", "keys"]),
    ("escaped-string", GrammarSpec("regex", ESCAPED_STRING), (ESCAPE_VOCAB, "gpt2"),
     [['"', "\\ud83d", "\\ude00", "x\\", "/", "\\", "n", '"'], ['"ab', "\\", '""']],
     ["escapes", "utf16-surrogates"]),
    ("json-lark-escapes", GrammarSpec("lark", JSON_LARK), (ESCAPE_VOCAB,),
     [['{"k', '\\"', 'ey": ["abcdefghijklmnopqrstuvwxyz0123", "', "\\", "\\", "\\u00e9", '"]}']],
     ["escapes", "slices", "ignore"]),
    # the slicer's bounds: a run of 10 fits the {1,10} slice, one of 11 does not
    ("slice-bound-10", GrammarSpec("json_schema", schema={"type": "string", "maxLength": 10}), (ESCAPE_VOCAB, "gpt2"),
     [['"abcdefghi', 'j"'], ['"', "abcdefghij", '"']], ["slices", "json-string"]),
    ("slice-bound-30", GrammarSpec("regex", r'"[^"\\\x00-\x1F]{0,30}"'), (ESCAPE_VOCAB,),
     [['"', "abcdefghijklmnopqrstuvwxyz0123", '"'], ['"', "abcdefghijklmnopqrstuvwxyz01", "2", '"']],
     ["slices"]),
    ("slice-min-length", GrammarSpec("json_schema", schema={"type": "string", "minLength": 10, "maxLength": 11}),
     (ESCAPE_VOCAB,), [['"', "abcdefghi", "\\", '"', '"']], ["slices", "escapes"]),
    # two EOS ids and special tokens among ordinary ids; special texts as text
    ("two-eos", GrammarSpec("regex", "a+b?"), (MULTI_EOS_VOCAB,), [["ab", Tok(0)], ["a", Tok(7)]], ["eos"]),
    ("two-eos-stop", GrammarSpec("lark", 'start: "a" x "!"\nx[stop=""]: /[ab ]*/\n'), (MULTI_EOS_VOCAB,),
     [["ab", Tok(0), "!"], ["a b", Tok(7), "!"]], ["eos", "stop-eos"]),
    ("two-eos-tokens", GrammarSpec("lark", 'start: <s> "a"+ (<[0]> | <[16-17]>) "c"?\n'), (MULTI_EOS_VOCAB,),
     [[Tok(3), "aa", Tok(0)], [Tok(3), "a", Tok(16), "c"]], ["special-token", "token-range", "eos"]),
    ("special-text", GrammarSpec("json_schema", schema={"enum": ["a", "<s>", "x<pad>"]}), (MULTI_EOS_VOCAB, "special"),
     [['"<s>"'], ['"a"']], ["special-token", "text"]),
    # several lexemes ending on the same bytes
    ("same-ends", GrammarSpec("lark", 'start: (A | B | C) D*\nA: "ab"\nB: /a+b/\nC: /[ab]*b/\nD: /b+/\n'),
     ("bytes", "gpt2"), ["aabbb", "ab", "bab"], ["lexing"]),
    ("same-ends-lazy", GrammarSpec("lark", 'start: (A | c) " " (A | B)\nA: /a+b/\nc[lazy]: /[ab]*b/\nB: "abb"\n'),
     ("bytes", "gpt2"), ["ab abb", "b ab", "aab ab"], ["lexing", "lazy"]),
    ("same-ends-ignore", GrammarSpec("lark", 'start: X Y+\nX: /a+/\nY: /a*b/ | "ab"\n%ignore " "\n'),
     ("bytes", "gpt2"), ["aa ab b", "aaab"], ["lexing", "ignore"]),
    # Unicode: case folding and classes that differ only on multi-byte characters
    ("case-folding", GrammarSpec("regex", "(?i)(s|k|ß|σ)+"), (UNICODE_VOCAB,), ["\u017f\u212aẞΣςsK", "ss"],
     ["unicode", "case"]),
    ("unicode-ranges", GrammarSpec("regex", r"\p{Lu}\p{Ll}+ [\u{7f}-\u{81}\u{7ff}-\u{800}\u{ffff}-\u{10000}]+"),
     (UNICODE_VOCAB, "gpt2"), ["Ωmega \u0080\u07ff\U00010000\u0800"], ["unicode", "utf8"]),
    ("case-class", GrammarSpec("regex", r"(?i)[a-zé]+[^\p{L}]"), (UNICODE_VOCAB,), ["ÉtÉ9", "STRASSE٣"],
     ["unicode", "case", "negated-class"]),
    ("not-latin", GrammarSpec("regex", r"[^a-zé]+"), (UNICODE_VOCAB,), ["ÉSſ1STRAẞE"], ["unicode", "negated-class"]),
    ("word-digit-space", GrammarSpec("regex", r"\w+\s\d"), (UNICODE_VOCAB,), ["ſtraße\u00a0٣"], ["unicode"]),
    # a lazy lexeme that ends inside a token, the token going on into the next lexeme
    ("lazy-mid-token", GrammarSpec("lark", 'start: c " " A "!"?\nc[lazy]: /[ab]*b/\nA: /a+b/\n'), (LEXEME_VOCAB,),
     ["ab ab!", "b aab"], ["lexing", "lazy"]),
    # byte-mode classes ((?-u): one byte, not one character), repeated
    ("byte-mode", GrammarSpec("regex", r"x(?s-u:.)+|(?-u:[\x80-\xff]){2}"), ("bytes", UNICODE_VOCAB),
     ["xé", "x\xff", "é"], ["bytes", "repetition"]),
    # Σ* in byte mode (every byte string; ¬∅ in the expression store, which holds no byte
    # set): reached after a prefix; the token index once allowed only EOS there
    ("every-byte-string", GrammarSpec("regex", r"ab(?s-u:.)*"), ("bytes",), ["ab\xff\n", "abab"],
     ["bytes", "repetition"]),
    # the regex syntax's corners: POSIX classes, class set operations, (?R) and (?x)
    ("posix-classes", GrammarSpec("regex", r"[[:xdigit:]]+ [[:ascii:]&&[[:punct:]]]+[[:^alpha:]]?"), ("bytes", "gpt2"),
     ["0aF9 !~", "f ``\x7f"], ["classes"]),
    ("posix-ascii", GrammarSpec("regex", r"[[:ascii:]]+[[:cntrl:]]"), ("bytes",), ["a\x7f~\x7f"], ["classes"]),
    ("class-operations", GrammarSpec("regex", r"(?R:.)(?x: b { 1 , 2 } )[a-z&&[^aeiou]][\w--\d][a-f~~c-h]"),
     ("bytes", "gpt2"), ["\tbbzéa", "xbyéh"], ["classes", "syntax"]),
    ("short-property-anchors", GrammarSpec("regex", r"\A\pL\PLx\z"), ("bytes",), ["é1x"], ["classes", "syntax"]),
    # a negated list of token ranges, one inside another, starting at an even id
    ("negated-token-list", GrammarSpec("lark", 'start: "a" <[^100-122,104-105]> "b"\n'), ("bytes", "special"),
     [["a", Tok(65), "b"], ["a", Tok(99), "b"]], ["token-range", "negation"]),
    # a list of token ranges, the third inside the second: merged into it, never into the
    # first, and a token past the third found in the second (issue 35's mutation sample:
    # `out[-1]` made `out[0]` in special.py's merge)
    ("token-list-overlap", GrammarSpec("lark", 'start: "a" <[97-98,100-105,101-102]> "b"\n'), ("bytes",),
     [["a", Tok(104), "b"], ["a", Tok(100), "b"]], ["token-range"]),
    # arrays counting the items that match `contains` up to an odd maxContains (no vector had
    # maxContains; issue 35's mutation sample: the count's cap `mx + 1` made `mx ^ 1`)
    ("contains-counted", GrammarSpec("json_schema", schema={
        "type": "array", "contains": {"type": "integer"}, "minContains": 1, "maxContains": 3}),
     ("bytes", "gpt2"), ['[1,2,3,4.5]', '["a",1]'], ["arrays", "contains"]),
    # oneOf: object alternatives that overlap (an object with an integer `a` and a string
    # `b` matches both, so neither may take it), and alternatives told apart by a
    # property's container type (disjoint.py's proof through the array and object
    # profiles); issue 35's mutation sample
    ("one-of-overlap", GrammarSpec("json_schema", schema={"oneOf": [
        {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
        {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}]}),
     ("bytes", "gpt2"), ['{"a": 1, "b": 5}', '{"b": "x"}'], ["one-of", "objects"]),
    ("one-of-container-types", GrammarSpec("json_schema", schema={"oneOf": [
        {"type": "object", "properties": {"p": {"type": "array"}}, "required": ["p"]},
        {"type": "object", "properties": {"p": {"type": "object", "properties": {"q": {"type": "integer"}}}},
         "required": ["p"]}]}),
     ("bytes", "gpt2"), ['{"p": []}', '{"p": {"q": 1}}'], ["one-of", "objects"]),
    # multipleOf a decimal whose divisor keeps a factor of 10's (2.5: 7.5 and 12.5 are
    # multiples; issue 35's mutation sample: multiples.py's key of an integer-part state)
    ("multiple-of-fraction", GrammarSpec("json_schema", schema={"type": "number", "multipleOf": 2.5}),
     ("bytes", "gpt2"), ["7.5", "12.5", "10"], ["numbers", "multiple-of"]),
    # a rule of 16 or more literal alternatives, merged into one lexeme (simplify.py's
    # merge_literal_alternatives; no vector had one: issue 35's mutation sample)
    ("many-literals", GrammarSpec("lark", 'start: colour (", " colour)* "."\ncolour: ' + " | ".join(
        '"%s"' % w for w in "red orange yellow green blue indigo violet black white grey brown pink cyan magenta "
                            "olive navy teal".split()) + "\n"),
     ("bytes", "gpt2"), ["teal, red, navy.", "olive."], ["literals", "alternation"]),
    # a counted repetition of a rule, {m,n} and {m,} with m > 0 (repetition.py's general
    # case; no vector had one: issue 35's mutation sample)
    ("rule-repetition", GrammarSpec("lark", 'start: pair{2,3} "." | pair{4,} "!"\npair: "(" ("x" | pair) ")"\n'),
     ("bytes", "gpt2"), ["(x)((x))(x).", "(x)(x)(x)(x)(x)!"], ["repetition"]),
    # GBNF's negated token: any token but that one, and never an EOS (llama.cpp decides the
    # end of generation before the grammar; issue 35's mutation sample)
    ("gbnf-negated-token", GrammarSpec("gbnf", 'root ::= "a" !<[1]> "c"\n'),
     (_with_eos([b"a", b"b", b"c", b"x", b"y", b"xy"], "negated"),),
     [["a", Tok(3), "c"], ["a", Tok(5), "c"]], ["token-range", "negation", "eos"]),
    # xgrammar's Regex macro, its own dialect (xgrammar_regex.py): a non-capturing group, a
    # lookahead (ε), ASCII \\d, flags and json_string (no vector read it before issue 35)
    ("xgrammar-regex", GrammarSpec("ebnf", 'root ::= Regex("(?:ab)+\\\\d{2}(?=z)") "z" Regex("[a.]+", flags="i") "!" '
                                           'Regex("[^\\"]*", json_string=true)\n', options={"dialect": "xgrammar"}),
     ("bytes", "gpt2"), ["abab12zAa.!xy", "ab12za!"], ["regex", "xgrammar"]),
    # xgrammar's TagDispatch: its arguments are tuples (tag, rule); free text until a tag,
    # an exclude that ends the macro (issue 35's held-out sample: no vector read a tuple)
    ("xgrammar-tag-dispatch", GrammarSpec("ebnf", 'root ::= TagDispatch(("<call>", call), ("<c>", c), '
                                                  'excludes=("</a>",))\ncall ::= "(" [a-z]* ")"\nc ::= "!"\n',
                                          options={"dialect": "xgrammar"}),
     ("bytes", "gpt2"), ["hi <call>(x) then <c>! bye", "a <c>!"], ["xgrammar", "dispatch"]),
    # xgrammar's Regex macro: a named group (?<name>...) and class ranges, one before the
    # class's last character (issue 35's held-out sample)
    ("xgrammar-regex-groups", GrammarSpec("ebnf", 'root ::= Regex("(?<year>[0-9]{4})-[a-c]+") Regex("[x-z-]+")\n',
                                          options={"dialect": "xgrammar"}),
     ("bytes", "gpt2"), ["2024-bcay-z", "1999-ax"], ["regex", "xgrammar", "classes"]),
    # one lexeme, sentences of one or two of it: not regular by the lexer alone, so the
    # token index must decline it (issue 35's held-out sample: an index built for it)
    ("one-lexeme-twice", GrammarSpec("lark", 'start: x x?\nx: /[a-z]/\n'), ("bytes", "gpt2"), ["ab", "c"],
     ["index", "lexing"]),
    # the vocabulary's last id an ordinary token the grammar allows (`"<s>`), which an id of
    # -1 would name under Python's indexing: an id out of range must be refused (issue 35's
    # held-out sample: the token index's next_state took -1 as the last token)
    ("last-id-allowed", GrammarSpec("regex", r'(a|"<s>)+b?'), (MULTI_EOS_VOCAB,), [['"<s>', "a", "b"], ["a", '"<s>']],
     ["index", "token-id"]),
    # GBNF's <text>: a plain token named by its text, here `<x>`, not only a special one,
    # among tokens sorting before and after it (issue 35's held-out samples: seed 38, the
    # tokens sorting after the text taken too; seed 39, those before it, `<a>`)
    ("gbnf-token-text", GrammarSpec("gbnf", 'root ::= "a" <x> "c"\n'),
     (_with_eos([b"a", b"b", b"c", b"<x>", b"<y>", b"<xy>", b"<a>"], "text"),), [["a", Tok(3), "c"]],
     ["token-range", "text"]),
    # Lark's case-insensitive literals ("ab"i), once and repeated
    ("lark-case-insensitive", GrammarSpec("lark", 'start: "ab"i "-" ("xy"i)+\n'), ("bytes", "gpt2"),
     ["aB-xYXy", "AB-xy"], ["case", "literals"]),
    # multipleOf 12.5: whether "1" or "3" may go on to a multiple depends on the digits
    # still to come (12.5 is one, 32.5 is not; issue 35's held-out sample: multiples.py's
    # key of an integer-part state, 10^(g+k) made 10^(g xor k))
    ("multiple-of-twelve-and-a-half", GrammarSpec("json_schema", schema={"type": "number", "multipleOf": 12.5}),
     ("bytes", "gpt2"), ["325", "12.5", "37.5"], ["numbers", "multiple-of"]),
    # two texts of one grammar, run one after the other: with the mask cache (the worker's
    # --mask-cache, which the mutation campaigns of the caches group use), the second's
    # masks may come from the first's. A compacted key must follow completions within a row
    # (compaction.py's _reached): `x b x` then `( x b x )` told apart only there (issue 35's
    # seed-40 sample)
    ("cache-after-completion", GrammarSpec("lark", 'start: e\ne: t | e "a" t\nt: f | t "b" f\nf: "x" | "(" e ")"\n'),
     ("bytes",), ["xbx", "(xbx)"], ["mask-cache", "recursion"]),
    # multipleOf 1024: a minimal automaton of 161 states, of which only the remainder mod
    # c' = 1 goes through state elimination (issue 35's seed-40 sample: the whole automaton
    # eliminated, refused beyond Limits.eliminated_states)
    ("multiple-of-1024", GrammarSpec("json_schema", schema={"type": "integer", "multipleOf": 1024}),
     ("bytes",), ["10240", "-2048", "0"], ["numbers", "multiple-of"]),
    # kbnf comments between rules, not only before the first (issue 35's second held-out
    # sample, seed 39: a comment's end searched for from before its start)
    ("kbnf-comments", GrammarSpec("ebnf", '(* greeting *)\nstart ::= hi name;\n(* a name *)\nname ::= #"[a-z]+";\n'
                                          '(* hi *) hi ::= "hi ";\n', options={"dialect": "kbnf"}),
     ("bytes", "gpt2"), ["hi bob"], ["comments"]),
    # Lark's exact counted repetition x{n} of a terminal and of a rule (seed 39: `{` then a
    # number read as a template's arguments)
    ("exact-repetition", GrammarSpec("lark", 'start: D{3} "-" pair{2} "."\nD: /[0-9]/\npair: "(" D? ")"\n'),
     ("bytes", "gpt2"), ["123-()(4).", "907-(1)()."], ["repetition"]),
    # Lark string escapes: \xHH, \uHHHH and a surrogate pair read as one character (seed 39:
    # no Lark vector had a \x or \u escape)
    ("lark-string-escapes", GrammarSpec("lark", 'start: "\\x41\\u00e9" ("\\ud83d\\ude00" | "\\t")+ "."\n'),
     ("bytes", "gpt2"), ["A\u00e9\U0001F600\t.", "A\u00e9\t\t\U0001F600."], ["escapes", "unicode"]),
    # xgrammar's Regex macro, its escapes and classes: \xHH, \uHHHH, \u{H..}, \cX, class
    # escapes in a class (\d \W, \b a backspace) and negated (\D), hex ranges, a lazy count
    # with blanks, a Python named group, a negative lookahead holding a class, ^ and $
    # (issue 35's line coverage: xgrammar_regex.py's escapes and counts were never read)
    ("xgrammar-regex-escapes", GrammarSpec("ebnf", 'root ::= Regex("^\\\\x41\\\\u00e9\\\\u{1F600}\\\\cJ'
                                                   '[\\\\d\\\\W\\\\x30-\\\\x39\\\\b]\\\\D{1,2}?'
                                                   '\\\\w{ 2 , }(?P<n>a|b)(?!c[)])\\\\.\\\\t$") "!"\n',
                                           options={"dialect": "xgrammar"}),
     ("bytes", "gpt2"), ["A\u00e9\U0001F600\n5y_ab.\t!", "A\u00e9\U0001F600\n-yzwa.\t!"], ["regex", "xgrammar", "escapes"]),
    # xgrammar's Regex flags "is" (a dot outside a class that matches a newline, an escaped
    # dot, a dot in a class, folded case) and "i" alone (issue 35's line coverage)
    ("xgrammar-regex-flags", GrammarSpec("ebnf", 'root ::= Regex("a.[.]\\\\.b{2}", flags="is") Regex("x.", flags="i")\n',
                                         options={"dialect": "xgrammar"}),
     ("bytes", "gpt2"), ["A\n..bBX!", "a...bbx."], ["regex", "xgrammar", "flags"]),
    # kbnf's EBNF forms: `=` for `::=`, `,` between items, [optional] and {repeated}, a
    # postfix `?`, a rule defined twice (its alternatives), #e (shortest), #ex (excluding),
    # #substrs and \x, \u, \u{...} escapes (issue 35's line coverage: kbnf.py)
    ("kbnf-forms", GrammarSpec("ebnf", '(* c *) start = "a", [ "b" ], { "c" }, x? ;\n'
                                       'x ::= #e"[0-9]+" | #ex"q" | #substrs"hello" | "\\x41\\u00e9\\u{1F600}\\n";\n'
                                       'x ::= "z";\n', options={"dialect": "kbnf"}),
     ("bytes", "gpt2"), ["abcc7", "aell", "aA\u00e9\U0001F600\n"], ["kbnf", "repetition", "escapes"]),
    # kbnf's except!(rule, n) and except!("text"): any text up to n bytes without a string
    # of the rule, any text without the string; any!, one character (issue 35's line
    # coverage: kbnf.py; kbnf 0.4.2 reads neither except! nor any!)
    ("kbnf-except", GrammarSpec("ebnf", 'start ::= "<" except!(w, 3) ">" except!("ab") "." any! ;\nw ::= "x" | "yy";\n',
                                options={"dialect": "kbnf"}),
     ("bytes", "gpt2"), ["<ab>cd.z", "<q>bc.."], ["kbnf", "except"]),
    # llguidance's Lark extensions: %json in a rule, %regex with substring_words,
    # substring_chunks and substring_chars, a terminal `&` and `~` (intersection,
    # complement), a counted repetition `~ m..n` (issue 35's line coverage: substring.py)
    ("lark-substrings", GrammarSpec("lark", 'start: %json {"type": "integer"} " " W "!" N " " R " " C+ "-" S\n'
                                            'W: %regex {"substring_words": "the quick brown fox"}\n'
                                            'N: /[a-z]+/ & ~/[a-z]*x[a-z]*/\nR: "ab" ~ 2..3\n'
                                            'C: %regex {"substring_chunks": ["ab", "cd"]}\n'
                                            'S: %regex {"substring_chars": "xyz"}\n'),
     ("bytes", "gpt2"), ["12 quick brown!abc abab cdab-yz", "-3 fox!q ababab ab-x"], ["substring", "lark"]),
    # Lark's ?rule, !rule, aliases (-> name), [optional], a range "a".."f" and %import
    # (issue 35's line coverage: reader.py's aliases)
    ("lark-aliases", GrammarSpec("lark", '?start: item ("," item)* -> items\n!item: LETTER | DIGIT | pair\n'
                                         'pair: "(" [item] ")" -> p\nLETTER: "a".."f"\n%import common.DIGIT\n'),
     ("bytes", "gpt2"), ["a,(),(3)", "((f))"], ["lark", "alias"]),
    # xgrammar's token macros: Token(ids) and TokenTagDispatch((id, rule),
    # loop_after_dispatch=false): free tokens until the trigger token, then its rule once
    # (issue 35's line coverage: xgrammar.py's token macros and xgrammar_dispatch.py;
    # ExcludeToken left out: refimpl lets it take EOS, xgrammar 0.2.9 does not: X16, its own vector)
    ("xgrammar-token-dispatch", GrammarSpec("ebnf", 'root ::= "a" Token(3, 4) "b" TokenTagDispatch((5, c), '
                                                    'loop_after_dispatch=false)\nc ::= "!" Token(0, 1) "."\n',
                                            options={"dialect": "xgrammar"}),
     (_with_eos([b"a", b"b", b"c", b"x", b"y", b"<t>", b"!", b"."], "tokens"),),
     [["a", Tok(3), "b", "c", "c", Tok(5), "!", "a", "."], ["a", Tok(4), "b", Tok(5), "!", "b", "."]],
     ["xgrammar", "dispatch", "token-range"]),
    # xgrammar's Regex \s is ECMAScript's white space (U+00A0, U+2003, U+3000 among it), so
    # \S refuses them (found by issue 35's line coverage pass: refimpl had an ASCII \s)
    ("xgrammar-regex-space", GrammarSpec("ebnf", 'root ::= Regex("[a-z]+\\\\s[a-z]+\\\\S")\n',
                                         options={"dialect": "xgrammar"}),
     ("bytes", "gpt2"), ["ab\u00a0cd!", "a\u3000b\u00e9", "a\tb."], ["regex", "xgrammar", "unicode"]),
    # issue 35's third held-out sample (seed 40): xgrammar's TagDispatch with a tag that ends
    # another ("ab" and "b"): after "cab" only the longer tag's rule may follow (the state
    # "ab" hides the "b"; the mutant let "b" dispatch too)
    ("xgrammar-tag-suffix", GrammarSpec("ebnf", 'root ::= TagDispatch(("ab", x), ("b", y))\nx ::= "1"\ny ::= "2"\n',
                                        options={"dialect": "xgrammar"}),
     ("bytes",), ["cab1", "b2ab1"], ["xgrammar", "dispatch"]),
    # ... a Regex macro's repetition count of two digits, a non-ASCII character after it
    # (the mutant stopped reading the count at its first digit)
    ("xgrammar-regex-long-count", GrammarSpec("ebnf", 'root ::= Regex("[ab]{10}\u00e9")\n',
                                              options={"dialect": "xgrammar"}),
     ("bytes",), ["ababababab\u00e9"], ["regex", "xgrammar", "repetition"]),
    # ... Lark's `~` right after an atom in a terminal: a concatenation then a complement
    # (two letters, a then anything but b), not a counted repetition `~ m`
    ("lark-concat-complement", GrammarSpec("lark", 'start: T " " T\nT: /[a-c]{2}/ & "a" ~"b"\n'),
     ("bytes",), ["ac aa"], ["lark", "complement"]),
    # JSON Schema's `not` of an object: required, properties, minProperties and
    # dependentRequired, each negated by De Morgan (negation.py's object keywords; issue
    # 35's line coverage: no vector had a `not` of a container). Objects are closed (or
    # said open) where xgrammar's strict mode would close them.
    ("not-object", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
        "additionalProperties": False,
        "not": {"required": ["a"], "properties": {"a": {"minimum": 5}}, "additionalProperties": True,
                "minProperties": 2, "dependentRequired": {"b": ["a"]}}}),
     ("bytes",), ['{"a": 2, "b": "x"}', '{"a": 7}', '{"b": "x"}'], ["not", "objects"]),
    # ... of an array: prefixItems, contains with maxContains, maxItems negated
    ("not-array", GrammarSpec("json_schema", schema={
        "type": "array", "items": True, "not": {"prefixItems": [{"type": "string"}], "items": True,
                                                "contains": {"const": 1}, "maxContains": 2, "maxItems": 3}}),
     ("bytes",), ['[1, 1]', '["a", 2, 2]', '["a", 1, 1, 1]'], ["not", "arrays", "contains"]),
    # ... of applicators inside it (anyOf; oneOf: none or two of its kids)
    ("not-applicators", GrammarSpec("json_schema", schema={
        "type": "array", "items": True, "not": {"anyOf": [{"minItems": 2}, {"items": {"type": "string"}}],
                                                "oneOf": [{"maxItems": 0}, {"contains": {"const": 0}}]}}),
     ("bytes",), ['[1]', '[0]'], ["not", "arrays", "one-of"]),
    # ... of a property's value (a `not` below the root: an object, or any other type)
    ("not-property", GrammarSpec("json_schema", schema={
        "type": "object", "additionalProperties": False, "properties": {"p": {"not": {
            "type": "object", "properties": {"q": {"const": 1}}, "required": ["q"], "additionalProperties": True}}}}),
     ("bytes",), ['{"p": {"q": 2}}', '{"p": {}}', '{"p": 5}'], ["not", "objects"]),
    # ... of properties without required (only where the name is present) and of
    # dependentRequired; of prefixItems alone (only a non-empty array fails it); of an
    # exact oneOf (none, or two at once: [0]); of if/then/else (the else side too)
    ("not-properties", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
        "additionalProperties": False,
        "not": {"properties": {"a": {"minimum": 5}}, "dependentRequired": {"b": ["a"]}, "additionalProperties": True}}),
     ("bytes",), ['{"a": 2}', '{"b": "x"}'], ["not", "objects"]),
    ("not-prefix", GrammarSpec("json_schema", schema={
        "type": "array", "items": {"type": ["integer", "string"]},
        "not": {"prefixItems": [{"type": "string"}], "items": True}}),
     ("bytes",), ['[1, "a"]'], ["not", "arrays"]),
    ("not-one-of", GrammarSpec("json_schema", schema={
        "type": "array", "items": True, "not": {"oneOf": [{"maxItems": 1}, {"contains": {"const": 0}}]}}),
     ("bytes",), ['[0]', '[1, 2]'], ["not", "arrays", "one-of"]),
    ("not-if", GrammarSpec("json_schema", schema={
        "type": "array", "items": {"type": ["integer", "string"]},
        "not": {"if": {"minItems": 2}, "then": {"items": {"type": "integer"}}, "else": {"maxItems": 0}}}),
     ("bytes",), ['[1]', '[1, "a"]'], ["not", "arrays", "if"]),
    # if/then in an allOf, switched on a property's const (switch.py: the kids whose case
    # the context rules out are skipped); if/then/else of arrays and of objects (negations)
    ("if-then-switch", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"kind": {"enum": ["a", "b", "c"]}}, "required": ["kind"],
        "allOf": [{"if": {"properties": {"kind": {"const": "a"}}},
                   "then": {"properties": {"x": {"type": "integer"}}, "required": ["x"]}},
                  {"if": {"properties": {"kind": {"const": "b"}}}, "then": {"properties": {"x": {"type": "string"}}}}]}),
     ("bytes",), ['{"kind": "a", "x": 1}', '{"kind": "b", "x": "s"}', '{"kind": "c", "x": null}'], ["if", "objects"]),
    # ... on a property that is not required: absent, the `if` holds (its kid is never
    # skipped), present, one of the strings that fail the `if`
    ("if-then-optional", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"kind": {"enum": ["b", "c"]}},
        "allOf": [{"if": {"properties": {"kind": {"const": "a"}}}, "then": {"properties": {"x": {"type": "integer"}}}}]}),
     ("bytes",), ['{"x": 1}', '{"kind": "b", "x": "s"}'], ["if", "objects"]),
    ("if-else-array", GrammarSpec("json_schema", schema={
        "type": "array", "if": {"contains": {"type": "string"}}, "then": {"maxItems": 2},
        "else": {"items": {"type": "integer"}}}),
     ("bytes",), ['["a", 1]', '[1, 2, 3]'], ["if", "arrays", "contains"]),
    ("if-else-object", GrammarSpec("json_schema", schema={
        "type": "object", "if": {"required": ["a"]}, "then": {"properties": {"b": {"type": "integer"}}},
        "else": {"required": ["c"]}}),
     ("bytes",), ['{"b": 2, "a": 1}', '{"c": 1}'], ["if", "objects"]),
    # oneOf: overlapping arrays (exactly one: an array of two integers matches both);
    # objects told apart by a property's const/enum and arrays by their first item, each
    # kind without values of the other's type (no negation needed across types); integer
    # ranges told apart (scalars)
    ("one-of-arrays", GrammarSpec("json_schema", schema={"oneOf": [
        {"type": "array", "items": {"type": "integer"}}, {"type": "array", "minItems": 2}]}),
     ("bytes",), ['[1]', '["a", "b"]', '[]'], ["one-of", "arrays"]),
    ("one-of-discriminator", GrammarSpec("json_schema", schema={"oneOf": [
        {"type": "object", "properties": {"t": {"const": "x"}, "v": {"type": "integer"}}, "required": ["t"],
         "additionalProperties": False},
        {"type": "object", "properties": {"t": {"enum": ["y", "z"]}, "v": {"type": "string"}}, "required": ["t"],
         "additionalProperties": False},
        {"type": "array", "prefixItems": [{"const": 1}], "minItems": 1, "maxItems": 1, "items": True},
        {"type": "array", "prefixItems": [{"const": 2}], "items": True}]}),
     ("bytes",), ['{"t": "x", "v": 1}', '{"t": "z", "v": "q"}', '[1]', '[2, 3]'], ["one-of", "objects", "arrays"]),
    ("one-of-scalars", GrammarSpec("json_schema", schema={"oneOf": [
        {"type": "integer", "minimum": 5}, {"type": "integer", "maximum": 3, "minimum": 0}, {"type": "boolean"}]}),
     ("bytes",), ['7', '2', 'true'], ["one-of", "numbers"]),
    # dependentSchemas and dependentRequired (the dependent members first: a fixed order)
    ("dependencies", GrammarSpec("json_schema", schema={
        "type": "object", "dependentSchemas": {"a": {"required": ["b"]}}, "dependentRequired": {"c": ["d"]}}),
     ("bytes",), ['{"a": 1, "b": 2}', '{"d": 2, "c": 1}', '{}'], ["dependencies", "objects"]),
    # patternProperties, additionalProperties, propertyNames and a member count together;
    # unevaluatedProperties false after an allOf's properties
    ("pattern-properties", GrammarSpec("json_schema", schema={
        "type": "object", "patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": {"type": "string"},
        "propertyNames": {"maxLength": 3}, "minProperties": 1, "maxProperties": 2}),
     ("bytes",), ['{"x1": 1, "y": "s"}'], ["objects", "pattern-properties"]),
    ("unevaluated-properties", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"a": {"type": "integer"}}, "allOf": [{"properties": {"b": {"type": "boolean"}}}],
        "unevaluatedProperties": False}),
     ("bytes",), ['{"a": 1, "b": true}'], ["objects", "unevaluated"]),
    # unevaluatedItems after prefixItems in place and in an allOf, and contains (its
    # matches are evaluated); draft 2019's items as a list, with additionalItems
    ("unevaluated-items", GrammarSpec("json_schema", schema={
        "type": "array", "prefixItems": [{"type": "integer"}], "allOf": [{"prefixItems": [True, {"type": "string"}]}],
        "contains": {"const": 5}, "unevaluatedItems": {"type": "boolean"}}),
     ("bytes",), ['[1, "a", true, 5]', '[5]'], ["arrays", "unevaluated", "contains"]),
    ("unevaluated-items-scope", GrammarSpec("json_schema", schema={
        "type": "array", "prefixItems": [True, True, True],
        "allOf": [{"prefixItems": [True], "unevaluatedItems": {"type": "integer"}}]}),
     ("bytes",), ['["a", 1, 2]'], ["arrays", "unevaluated"]),
    ("items-list", GrammarSpec("json_schema", schema={
        "type": "array", "items": [{"type": "integer"}, {"type": "string"}], "additionalItems": {"type": "boolean"}}),
     ("bytes",), ['[1, "a", true]', '[2]'], ["arrays"]),
    # contains with minContains 0 (no item need match) and maxContains 1
    ("contains-optional", GrammarSpec("json_schema", schema={
        "type": "array", "items": {"type": "integer"}, "contains": {"minimum": 5}, "minContains": 0, "maxContains": 1}),
     ("bytes",), ['[1, 7, 2]', '[]'], ["arrays", "contains"]),
    # exclusive bounds of integers and numbers, a multipleOf within bounds
    ("exclusive-bounds", GrammarSpec("json_schema", schema={"type": "object", "properties": {
        "a": {"type": "integer", "exclusiveMinimum": -3, "exclusiveMaximum": 12},
        "b": {"type": "number", "exclusiveMinimum": 0.85, "maximum": 100},
        "c": {"type": "integer", "multipleOf": 7, "minimum": -20, "maximum": 30}}}),
     ("bytes",), ['{"a": -2, "b": 0.9, "c": -14}', '{"a": 11, "b": 100, "c": 28}', '{"b": 0.851}'], ["numbers"]),
    # draft 4's boolean exclusiveMinimum/exclusiveMaximum; a multipleOf too large for its
    # remainder automaton, enforced by listing its multiples within the bounds
    ("draft4-exclusive", GrammarSpec("json_schema", schema={"type": "object", "properties": {
        "a": {"type": "number", "minimum": 1, "exclusiveMinimum": True, "maximum": 5, "exclusiveMaximum": True},
        "b": {"type": "integer", "minimum": 1, "exclusiveMinimum": False}}}),
     ("bytes",), ['{"a": 1.5, "b": 1}', '{"a": 4.99}'], ["numbers"]),
    ("multiple-listed", GrammarSpec("json_schema", schema={"type": "integer", "multipleOf": 4099, "minimum": 0,
                                                           "maximum": 20000}),
     ("bytes",), ['8198', '16396'], ["numbers", "multiple-of"]),
    # more than 256 forced bytes, the last forced token one that may extend (`a` of `ab`)
    ("long-forced", GrammarSpec("regex", "a{300}b?"), (_with_eos([b"a", b"b", b"ab"], "ab"),), ["a" * 299, "a" * 300],
     ["forced"]),
    # two tokens of which one is a prefix of the other, longer than 256 bytes (the trie's build)
    ("long-shared-prefix", GrammarSpec("regex", "a+b?"), (_with_eos([b"a", b"b", b"a" * 300, b"a" * 300 + b"b"], "long"),),
     ["a" * 300 + "b", "a" * 301], ["trie"]),
    # a token budget spent while another lexeme is still alive: the spent one is dropped,
    # the other goes on (found by the second mutation sample, seed 1)
    ("max-tokens-drop-one", GrammarSpec("lark", 'start: x "!" | Y\nx[max_tokens=1]: /[a-z]+/\nY: /[a-z]+\\?/\n'),
     ("bytes", "gpt2"), ["ab?"], ["max-tokens", "lexing"]),
    # xgrammar's token budget (max_tokens) on a lexeme that is not the grammar's first
    ("xgrammar-max-tokens", GrammarSpec("ebnf", 'root ::= "b" [0-9]+ "-" x "!"\nx[max_tokens=2] ::= [a-z]+ | [a-z]+ "z"\n',
                                        options={"dialect": "xgrammar"}),
     ("bytes", "gpt2"), ["b12-ab!", "b1-z!"], ["max-tokens"]),
    # ... spent where the body cannot end: xgrammar's budget is relaxed (it ends at the
    # first boundary where it can), llguidance's would drop the lexeme
    ("xgrammar-max-tokens-relaxed", GrammarSpec("ebnf", 'root ::= "b" [0-9]+ "-" x "!"\nx[max_tokens=1] ::= "ab" | "abab"\n',
                                                options={"dialect": "xgrammar"}),
     ("bytes", "gpt2"), ["b1-ab!"], ["max-tokens"]),
    # a regular terminal that greedy lexing would change (kbnf's #"[a-z]+" before a rule
    # that may start with "z": the pattern may read on into it), so the compiler cuts it
    # into its automaton, one byte a lexeme (issue 35's sample seed 42: the automaton's
    # transitions left out)
    ("kbnf-pattern-cut", GrammarSpec("ebnf", 'start ::= #"[a-z]+" x;\nx ::= "(" x ")" | "z";\n',
                                     options={"dialect": "kbnf"}),
     ("bytes", "gpt2"), ["abz", "zz", "q((z))"], ["kbnf", "lexing"]),
    # lenient: a $dynamicRef whose dynamic anchor two resources define is skipped (its target
    # depends on the dynamic scope), not refused; a plain $anchor of the same name is no
    # dynamic anchor (issue 35's sample seed 42: the message of that refusal built with `<<`,
    # a TypeError instead; and the anchors' names compared with `<=`)
    ("lenient-dynamic-ref", GrammarSpec("json_schema", schema={
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/root",
        "$defs": {"a": {"$id": "a", "$dynamicAnchor": "item", "type": "integer"},
                  "b": {"$id": "b", "$dynamicAnchor": "item", "type": "string"},
                  "c": {"$id": "c", "$anchor": "item", "type": "null"}},
        "type": "array", "items": {"$dynamicRef": "a#item"}}, options={"lenient": True}),
     ("bytes",), ['[1, "a"]'], ["refs", "lenient"]),
    # lenient: what refimpl cannot enforce exactly is skipped, each keyword where it stands —
    # an unknown format, uniqueItems of objects (the refusals' own paths, which no vector
    # reads without lenient; llguidance enforces a large multipleOf, so none here)
    ("lenient-skips", GrammarSpec("json_schema", schema={"type": "object", "properties": {
        "b": {"type": "string", "format": "idn-email"},
        "c": {"type": "array", "items": {"type": "object"}, "uniqueItems": True}}, "required": ["b"]},
        options={"lenient": True}),
     ("bytes",), ['{"b": "x", "c": [{}, {}]}'], ["lenient"]),
    # more than 256 Earley rows: parentheses nested 270 deep, so that the compacted keys of
    # the mask cache (and forced_bytes) name parts of rows past 256 (issue 35's seed-40
    # sample: row numbers compared by identity, alike on CPython only up to 256)
    ("deep-rows", GrammarSpec("lark", 'start: e\ne: t | e "a" t\nt: f | t "b" f\nf: "x" | "(" e ")"\n'),
     ("bytes",), ["(" * 270 + "xbx" + ")" * 270], ["mask-cache", "recursion", "deep"]),
    # a state of the token index with more than 255 targets: a number, then the same again,
    # each number one token (seed 40: such a row is stored as an array of numbers, not bytes
    # — and refimpl's index could not build one: the array read the bytearray's raw bytes)
    ("index-wide-row", GrammarSpec("regex", "|".join("%d=%d" % (i, i) for i in range(100, 400))),
     (_with_eos([b"%d" % i for i in range(100, 400)] + [b"="], "numbers"),), ["323=323", "100=100"], ["index"]),
    # a pattern string with general \uXXXX escapes allowed: only strings of length bounds
    # take the escapes, a pattern keeps its characters (seed 41: a pattern read as any one
    # character under the option)
    ("pattern-general-escapes", GrammarSpec("json_schema", schema={"type": "string", "pattern": "^ab+$"},
                                            options={"json_allow_general_unicode_escapes": True}),
     ("bytes",), ['"abb"', '"ab"'], ["strings", "escapes"]),
    # maxProperties over three optional members: after two members the object ends (seed 41:
    # the layout's count after a member made count xor 1, so 2 members counted as 0)
    ("max-properties-optional", GrammarSpec("json_schema", schema={
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}},
        "additionalProperties": False, "maxProperties": 2}),
     ("bytes",), ['{"a":1,"b":2}', '{"b":2,"c":3}', '{"c":3}'], ["objects", "max-properties"]),
]


def blindspot_vectors(seed: int = 0) -> Iterator[Vector]:
    """The `blindspots` group: each BLINDSPOTS case on its vocabularies, along its samples
    (pieces spelled one by one) and one random path."""
    for name, spec, vocabs, samples, tags in BLINDSPOTS:
        grammar = spec.compile()
        for v in vocabs:
            vocab = load_builtin(v) if isinstance(v, str) else v
            for i, sample in enumerate(samples):
                path = spell(Matcher(grammar, vocab), vocab, sample)
                yield record(grammar, spec, vocab, path, "blindspots/%s/%s/%d" % (name, vocab.name, i),
                             tags + ["text"], "generate", "spells %s" % _show(sample))
            rng = random.Random("blindspots/%s/%s/%d" % (name, vocab.name, seed))
            path = random_path(Matcher(grammar, vocab), vocab, rng, max_len=10 if vocab.name != "gpt2" else 6)
            yield record(grammar, spec, vocab, path, "blindspots/%s/%s/random" % (name, vocab.name), tags + ["random"],
                         "generate")


#: the types on GPT-2 too (their first value): all samples are on the byte vocabulary
TYPES_ON_GPT2 = ("character", "dict")


def type_vectors() -> Iterator[Vector]:
    """The `types` group: for each conformance/python_types.py entry, json_schema vectors
    of `json_schema_of(T)` along the texts `to_json` writes of its values — each checked to
    parse back to an equal value that `to_json` writes as the same text, the value's repr
    in the note — then along the longest allowed prefix of each refused text (the grammar
    must refuse it, and parse too: its error in the note); the messages of to_json's refusals
    (python_types.UNWRITABLE) join the first vector's note. A change to the typed frontend
    (schema, parse, to_json) changes these lines or stops generation."""
    from refimpl.typed import ParseError, json_schema_of, parse, to_json

    from .python_types import TYPES, UNWRITABLE

    for name, t, description, values, refused, tags in TYPES:
        spec = GrammarSpec("json_schema", schema=json_schema_of(t))
        grammar = spec.compile()
        samples = []
        for i, value in enumerate(values):
            text = to_json(value)
            parsed = parse(t, text)
            if parsed != value or to_json(parsed) != text:
                raise ValueError("types/%s: %r parses to %r, written %r" % (name, text, parsed, to_json(parsed)))
            on_gpt2 = i == 0 and name in TYPES_ON_GPT2
            samples.append((text, True, "parse gives %r" % (parsed,), ("bytes", "gpt2") if on_gpt2 else ("bytes",)))
        for value in UNWRITABLE.get(name, ()):
            try:
                written = to_json(value)
            except ValueError as e:
                text, accepted, what, vocabs = samples[0]
                samples[0] = (text, accepted, "%s; to_json refuses %r: %s" % (what, value, e), vocabs)
            else:
                raise ValueError("types/%s: to_json writes %r as %r" % (name, value, written))
        for text in refused:
            try:
                parse(t, text)
            except ParseError as e:
                error = "parse refuses it: %s at byte %d (%s)" % (e.message, e.offset, e.path)
            else:
                raise ValueError("types/%s: parse accepts the refused text %r" % (name, text))
            samples.append((text, False, error, ("bytes",)))
        for i, (text, accepted, what, vocabs) in enumerate(samples):
            for vname in vocabs:
                vocab = load_builtin(vname)
                m = Matcher(grammar, vocab)
                if accepted:
                    path = spell(m, vocab, text)
                else:
                    path, rest = spell_prefix(m, vocab, text.encode("utf-8"))
                    if not rest and m.is_accepting():
                        raise ValueError("types/%s: the grammar accepts the refused text %r" % (name, text))
                note = "%s: %s %r; %s" % (description, "spells" if accepted else "refused", text, what)
                yield record(grammar, spec, vocab, path, "types/%s/%s/%d" % (name, vname, i),
                             tags + ["accepted" if accepted else "refused"], "generate", note)


def _suite_test_path(grammar: Any, vocab: Vocabulary, t: Any, vid: str) -> Tuple[List[int], str]:
    """A JSON-Schema-Test-Suite test's token path (conformance/json_schema_test_suite.py) and
    what it shows (the note's end)."""
    m = Matcher(grammar, vocab)
    data = t.text.encode("utf-8")
    path, rest = spell_prefix(m, vocab, data)
    whole = not rest and m.is_accepting()
    if whole and not t.valid:
        raise ValueError("%s: refimpl's grammar accepts the invalid instance %s" % (vid, t.text))
    if whole:
        return _finish(m, vocab, path), "valid, spelled"
    where = "complete, EOS refused" if not rest else "refused after %d of %d bytes" % (len(data) - len(rest), len(data))
    return path, "%s, %s%s" % ("invalid" if not t.valid else "valid", where,
                               "" if not t.valid else " (refimpl's false negative)")


def json_schema_test_suite_vectors(suite_dir: Optional[str] = None) -> Iterator[Vector]:
    """The `json_schema_test_suite` group (conformance/json_schema_test_suite.py): each
    schema of the corpus refimpl compiles, along its tests' paths that add a mask (`kept`),
    on the byte vocabulary, in the corpus's order."""
    from refimpl.errors import LimitError, SchemaError
    from refimpl.frontends.jsontext import dumps

    from .json_schema_test_suite import case_ids, cut, kept, read_tests

    vocab = load_builtin("bytes")
    tests = read_tests(suite_dir)
    ids = case_ids(tests)
    by_schema: Dict[str, List[int]] = {}
    for i, t in enumerate(tests):
        by_schema.setdefault(dumps(t.schema), []).append(i)
    chosen: Dict[str, Vector] = {}
    for indices in by_schema.values():
        spec = GrammarSpec("json_schema", schema=tests[indices[0]].schema)
        try:
            grammar = spec.compile()
        except (SchemaError, LimitError):
            continue
        vectors = []
        for i in indices:
            t = tests[i]
            path, what = _suite_test_path(grammar, vocab, t, ids[i])
            note = "JSON-Schema-Test-Suite %s: %s / %s: %s %r" % (t.file, t.group, t.test, what, cut(t.text))
            tags = ["json-schema-test-suite", "valid" if t.valid else "invalid"]
            vectors.append(record(grammar, spec, vocab, path, ids[i], tags, "generate", note))
        chosen.update((v.id, v) for v in kept(vectors))
    for vid in ids:
        if vid in chosen:
            yield chosen[vid]
