"""The default suite: refimpl's masks for a fixed set of grammars, vocabularies and paths.

Each grammar comes with sample texts; for each vocabulary (the byte vocabulary and the
embedded GPT-2 one) a path spells each sample text with the longest allowed token at
every step (then EOS when the text is complete), and one more path picks random allowed
tokens (seeded). The samples are chosen so the paths visit strings, escapes, numbers,
keys, nesting, multi-byte UTF-8 (split across tokens in the byte vocabulary), lazy
lexemes, %ignore, slices (long string-safe runs) and EOS.

JSON-schema grammars are recorded only when refimpl has `Grammar.from_json_schema`;
re-running `python -m conformance generate` later adds them.
"""
from __future__ import annotations

import os
import random
from typing import Any, Dict, Iterator, List, Optional, Sequence, TextIO, Tuple

from refimpl import Matcher, Vocabulary

from .vectors import GrammarSpec, Vector, load_builtin, record, write_vectors

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
]

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

# Minimal cases of the disagreements in docs/findings.md, kept as vectors (refimpl's masks)
# so the peers' known differences stay checked: (name, spec, vocabularies, texts, tags).
FINDINGS: List[Tuple[str, GrammarSpec, Sequence[str], List[str], List[str]]] = [
    ("llguidance-lazy-after-greedy", GrammarSpec("lark", "start: A lz\nA: /a+/\nlz[lazy]: /[0-9]+/\n"),
     ("bytes",), ["a1"], ["lazy"]),
    ("llguidance-lazy-after-ignore", GrammarSpec("lark", 'start: "a" lz\nlz[lazy]: /[0-9]+/\n%ignore / +/\n'),
     ("bytes", "gpt2"), ["a 1"], ["lazy", "ignore"]),
    ("outlines-leftmost-first", GrammarSpec("regex", "(a*|b)"), ("bytes",), ["b"], ["alternation"]),
    ("outlines-delayed-match", GrammarSpec("regex", r"[0-9]+(\.[0-9]+)?"), ("bytes", "gpt2"), ["1.5"], ["numbers"]),
    ("outlines-any-of-number", GrammarSpec("json_schema", schema={"anyOf": [{"type": "integer"}, {"type": "number"}]}),
     ("bytes", "gpt2"), ["1.5"], ["numbers", "alternation"]),
    ("outlines-exponent", GrammarSpec("json_schema", schema={"type": "number"}), ("bytes", "gpt2"), ["1e5"], ["numbers"]),
]


def spell(m: Matcher, vocab: Vocabulary, text: str) -> List[int]:
    """The path spelling `text`: the longest allowed token at every step, then EOS."""
    data = text.encode("utf-8")
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
            raise ValueError("the sample %r does not fit the grammar after %r" % (text, data[:i]))
        assert m.consume(best[0])
        path.append(best[0])
        i = best[1]
    if m.is_accepting() and vocab.eos_token_id is not None:
        path.append(vocab.eos_token_id)
    return path


def random_path(m: Matcher, vocab: Vocabulary, rng: random.Random, max_len: int = 10) -> List[int]:
    path: List[int] = []
    for _ in range(max_len):
        allowed = [t for t in m.mask().allowed() if t not in vocab.eos_token_ids]
        if not allowed:
            break
        t = rng.choice(allowed)
        assert m.consume(t)
        path.append(t)
    if m.is_accepting() and vocab.eos_token_id is not None:
        path.append(vocab.eos_token_id)
    return path


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


def generate(kinds: Sequence[str] = ("regex", "lark", "json_schema", "findings"), vocabs: Sequence[str] = VOCABS,
             seed: int = 0) -> Dict[str, List[Vector]]:
    """The default suite's vectors, by grammar kind."""
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
    if "findings" in kinds:
        for name, spec, vnames, texts, tags in FINDINGS:
            grammar = spec.compile()
            for vname in vnames:
                vocab = load_builtin(vname)
                for i, text in enumerate(texts):
                    path = spell(Matcher(grammar, vocab), vocab, text)
                    vid = "findings/%s/%s/%d" % (name, vname, i)
                    out.setdefault("findings", []).append(
                        record(grammar, spec, vocab, path, vid, tags + ["finding"], "findings",
                               "docs/findings.md; spells %r" % text))
    return out


def main_generate(out_dir: str = SUITE_DIR, kinds: Optional[Sequence[str]] = None, stream: Optional[TextIO] = None) -> int:
    import sys

    stream = stream or sys.stdout
    kinds = list(kinds or ("regex", "lark", "json_schema", "findings"))
    os.makedirs(out_dir, exist_ok=True)
    by_kind = generate(kinds)
    for kind, vectors in by_kind.items():
        path = os.path.join(out_dir, "%s.jsonl" % kind)
        write_vectors(path, vectors)
        steps = sum(len(v.steps) for v in vectors)
        print("%-12s %4d vectors %5d steps  %s (%d KB)" % (kind, len(vectors), steps, path, os.path.getsize(path) // 1024),
              file=stream)
    return 0
