"""Invalid grammars: the `invalid` group of the default suite, grammars every engine of
their dialect must refuse (error vectors: docs/conformance.md, "Vectors").

Each is a plain syntax error of its format — an unclosed group, a missing `::=`, an
undefined rule, a keyword's value of the wrong type —, not an extension of the dialect
that a peer may legitimately read. refimpl refuses each; the error it raises (its class
and position) is recorded when the group is generated (`vectors.refused`), never written
by hand, so that an engine built on refimpl (a `cmd:` worker running a mutated copy,
tools/mutation.py) that refuses with another error, or at another position, disagrees.

Where a peer reads one of these grammars after all, that is either a finding declared
as a known difference of the peer (conformance/peers/<peer>/differences.py), or, when
the peer's dialect allows it, the grammar is left out of this list (docs/conformance.md
says which).
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Tuple

from .vectors import GrammarSpec, Vector, byte_vocabulary, refused

#: (name, the grammar, what is wrong with it): by grammar kind; the vector's id is
#: invalid/<kind>/<name> (an ebnf grammar's kind is its dialect: invalid/kbnf/<name>)
REGEX: List[Tuple[str, str, str]] = [
    ("unclosed-group", "a(b", "a group opened and never closed"),
    ("unopened-group", "ab)", "a ')' that closes no group"),
    ("unclosed-class", "[a-z", "a class opened and never closed"),
    ("reversed-range", "[z-a]", "a class range whose end comes before its start"),
    ("reversed-repetition", "a{3,1}", "a counted repetition whose maximum is below its minimum"),
    ("unclosed-repetition", "a{2", "a counted repetition without its '}'"),
    ("nothing-to-repeat", "*a", "a repetition operator with nothing before it"),
    ("repeat-alternation", "a|*", "a repetition operator at the start of an alternative"),
    ("trailing-backslash", "ab\\", "a backslash that escapes nothing"),
    ("unknown-escape", "a\\qb", "an escape that is no escape of the syntax"),
    ("bad-hex-escape", "\\xZZ", "a hexadecimal escape without hexadecimal digits"),
    ("unknown-property", "\\p{Vowel}", "a Unicode property that does not exist"),
    ("unclosed-flags", "(?i", "a flag group opened and never closed"),
    ("unknown-flag", "(?Q)a", "a flag that does not exist"),
    ("unclosed-group-name", "(?P<name", "a named group whose name is not closed"),
    ("empty-group-name", "(?P<>a)", "a named group with an empty name"),
    ("duplicate-group-name", "(?P<x>a)(?P<x>b)", "two groups of the same name"),
    ("class-range-of-class", "[a-\\d]", "a class range that ends in a class"),
]

LARK: List[Tuple[str, str, str]] = [
    ("unclosed-string", 'start: "ab\n', "a string literal that does not end"),
    ("unclosed-regex", "start: /ab\n", "a regex literal that does not end"),
    ("trailing-backslash", 'start: "ab\\', "a string literal that ends the grammar with a backslash"),
    ("bad-regex", "start: /a(/\n", "a regex literal that is no regex (reported at its offset in the grammar)"),
    ("bad-regex-terminal", 'start: "x" A\nA: /[a-/\n', "a terminal's regex that is no regex"),
    ("undefined-rule", 'start: "a" item\n', "a rule that is never defined"),
    ("undefined-terminal", 'start: "a" ITEM\n', "a terminal that is never defined"),
    ("no-start", 'item: "a"\n', "no rule `start`"),
    ("missing-colon", 'start "a"\n', "a rule without ':'"),
    ("unclosed-paren", 'start: ("a" | "b"\n', "a group opened and never closed"),
    ("unopened-paren", 'start: "a" | "b")\n', "a ')' that closes no group"),
    ("unclosed-bracket", 'start: ["a" "b"\n', "an optional group opened and never closed"),
    ("terminal-uses-rule", 'start: A\nA: "x" b\nb: "y"\n', "a terminal whose definition names a rule"),
    ("recursive-terminal", 'start: A\nA: "a" A | "b"\n', "a terminal defined by itself"),
    ("unknown-directive", '%frobnicate x\nstart: "a"\n', "a directive that does not exist"),
    ("unknown-rule-option", 'start: x\nx[colour=1]: "a"\n', "a rule option that does not exist"),
    ("bad-max-tokens", 'start: x\nx[max_tokens=many]: /a+/\n', "a max_tokens that is not a number"),
    ("unknown-import", '%import common.NO_SUCH_TERMINAL\nstart: NO_SUCH_TERMINAL\n',
     "an import of a terminal the common library does not have"),
    ("reversed-repetition", 'start: "a"{3,1}\n', "a counted repetition whose maximum is below its minimum"),
    ("reversed-token-range", 'start: <[9-2]>\n', "a token range whose end comes before its start"),
    # parametric rules (refimpl/frontends/lark/parametric.py)
    ("param-condition-comma", 'start: x::0\nx::_: "a" %if and(bit_clear(0) bit_clear(1))\n      | "b"\n',
     "and(c, c) without the ',' between its conditions"),
    ("param-unused", 'start: x::1\nx::_: "a"\n', "a parametric rule whose body does not use its parameter"),
    ("param-needed", 'start: x\nx: "a" y::_\ny::_: "b" %if bit_clear(0)\n',
     "a rule that is not parametric but uses a parameter"),
    ("param-start", 'start::_: "a" %if bit_clear(0)\n', "a parametric start rule (no parameter is given)"),
    ("param-unknown-condition", 'start: x::0\nx::_: "a" %if sunny(0)\n', "a condition that does not exist"),
    ("param-unclosed-condition", 'start: x::0\nx::_: "a" %if not(bit_clear(0)\n', "not(c without its ')'"),
    ("param-unknown-expression", 'start: x::0\nx::_: "a" x::grow(1) %if bit_clear(0) | "b"\n',
     "a parameter expression that does not exist"),
    # issue 35's line coverage: errors of reader.py that no vector reached
    ("range-not-single", 'start: "ab".."z"\n', "a range whose start is not a single character"),
]

GBNF: List[Tuple[str, str, str]] = [
    ("unclosed-literal", 'root ::= "ab\n', "a literal that does not end"),
    ("missing-define", 'root "a"\n', "a rule without '::='"),
    # issue 35's held-out sample (seed 41), in place of undefined-rule (reader.py's
    # undefined_reference, which kbnf's undefined-rule reads too; the raise around it only
    # words the message): a character above '|' between items (the mutant read it as the
    # alternation bar)
    ("stray-character", 'root ::= "a" ~ "b"\n', "a character that begins no item, between two items"),
    ("no-root", 'item ::= "a"\n', "no rule `root`"),
    ("unclosed-group", 'root ::= ("a" | "b"\n', "a group opened and never closed"),
    ("unopened-group", 'root ::= "a" | "b")\n', "a ')' that closes no group"),
    ("unclosed-class", 'root ::= [a-z\n', "a character class opened and never closed"),
    ("nothing-to-repeat", 'root ::= * "a"\n', "a repetition operator with nothing before it"),
    ("reversed-repetition", 'root ::= "a"{3,1}\n', "a counted repetition whose maximum is below its minimum"),
    ("unclosed-repetition", 'root ::= "a"{2\n', "a counted repetition without its '}'"),
    ("bad-escape", 'root ::= "\\q"\n', "an escape that GBNF does not have"),
    ("bad-hex-escape", 'root ::= "\\xZZ"\n', "a hexadecimal escape without hexadecimal digits"),
    # issue 35's line coverage: an error of gbnf.py that no vector reached
    ("repetition-not-integer", 'root ::= "a"{x}\n', "a counted repetition whose count is no integer"),
    # issue 35's line coverage (gbnf.py, d4fcb70): errors no vector reached, one each
    ("undefined-rule", 'root ::= "a" item\n', "a rule that is never defined"),
    ("missing-rule-name", '::= "a"\n', "a rule definition without its name"),
    ("class-ends-in-range", 'root ::= [a-', "a character class that ends the grammar after a range's '-'"),
    ("bang-without-token", 'root ::= !a\n', "a '!' not followed by a token <...>"),
    ("token-id-not-integer", 'root ::= <[x]>\n', "a token <[...]> whose id is no integer"),
    ("unclosed-token-id", 'root ::= <[5x\n', "a token <[5 without its ']>'"),
    ("unclosed-token", 'root ::= <abc\n', "a token <... without its '>'"),
    ("repetition-not-closed", 'root ::= "a"{2,3 x}\n', "a counted repetition whose bounds are followed by no '}'"),
]

XGRAMMAR: List[Tuple[str, str, str]] = [
    ("unclosed-literal", 'root ::= "ab\n', "a literal that does not end"),
    ("missing-define", 'root "a"\n', "a rule without '::='"),
    ("undefined-rule", 'root ::= "a" item\n', "a rule that is never defined"),
    ("no-root", 'item ::= "a"\n', "no rule `root`"),
    ("unclosed-group", 'root ::= ("a" | "b"\n', "a group opened and never closed"),
    ("unopened-group", 'root ::= "a" | "b")\n', "a ')' that closes no group"),
    ("unclosed-class", 'root ::= [a-z\n', "a character class opened and never closed"),
    ("nothing-to-repeat", 'root ::= * "a"\n', "a repetition operator with nothing before it"),
    ("reversed-repetition", 'root ::= "a"{3,1}\n', "a counted repetition whose maximum is below its minimum"),
    ("bad-escape", 'root ::= "\\q"\n', "an escape that the dialect does not have"),
    ("bad-escape-then-hex", 'root ::= "\\qa{-1}"\n', "an escape that the dialect does not have, hex digits after it"),
    ("unclosed-lookahead", 'root ::= "a" (= "b"\n', "a lookahead assertion opened and never closed"),
    ("unknown-function", 'root ::= Frobnicate("a")\n', "a macro that does not exist"),
    ("regex-bad-count", 'root ::= Regex("a{x}")\n', "a Regex macro whose repetition count is no number"),
    # issue 35's held-out sample (seed 41), in place of regex-bad-upper-count (the same check
    # as regex-bad-count): a tuple argument of a macro closed by a character that is not ')'
    # (the mutant took any character above ')' for it)
    ("tuple-not-closed", 'root ::= TagDispatch(("<c>", c])\nc ::= "!"\n', "a macro's tuple argument ended by ']'"),
    # issue 35's held-out sample (seed 45): TokenTagDispatch's trigger among its excludes
    # (the mutant made the error's message a TypeError), and TagDispatch's counterpart
    ("token-trigger-excluded", 'root ::= TokenTagDispatch((5, c), excludes=(5,))\nc ::= "!"\n',
     "a TokenTagDispatch trigger id that is also excluded"),
    ("exclude-prefixes-trigger", 'root ::= TagDispatch(("<call>", c), excludes=("<ca",))\nc ::= "!"\n',
     "a TagDispatch exclude that is a prefix of a trigger"),
    ("regex-reversed-count", 'root ::= Regex("a{3,1}")\n', "a Regex macro whose repetition's maximum is below its minimum"),
    ("regex-count-separator", 'root ::= Regex("a{2+}")\n', "a Regex macro whose repetition bounds are not separated by ','"),
    # issue 35's line coverage: errors of xgrammar.py that no vector reached
    ("rule-not-at-line-start", 'root ::= "a" item ::= "b"\n', "a rule that does not begin its line"),
    ("rule-defined-twice", 'root ::= "a"\nroot ::= "b"\n', "a rule defined twice"),
    ("lookahead-not-last", 'root ::= "a" (= "b") "c"\n', "a lookahead assertion that does not end its rule"),
    ("two-repetitions", 'root ::= "a"*+\n', "two repetition operators in a row"),
    ("reversed-class-range", 'root ::= [z-a]\n', "a character class range whose lower bound is above its upper"),
    # issue 35's line coverage (xgrammar.py, reader.py, d4fcb70): errors no vector reached,
    # one each
    ("no-rules", '# only a comment\n', "a grammar without any rule"),
    ("options-then-text", 'root[lazy]] ::= "a"\n', "rule options followed by something other than '::='"),
    ("lookahead-in-group", 'root ::= ("a" (= "b"))\n', "a lookahead assertion inside a group"),
    ("nesting-too-deep", 'root ::= ' + '(' * 1001 + '"a"' + ')' * 1001 + '\n', "groups nested deeper than 1000"),
    ("empty-alternative", 'root ::= "a" |\n', "an alternative with no element, at the end of a rule"),
    ("empty-alternative-in-group", 'root ::= ("a" | )\n', "an alternative with no element, in a group"),
    ("lookahead-choices", 'root ::= "a" (= "b" | "c")\n', "a lookahead assertion that holds choices"),
    ("lookahead-macro", 'root ::= "a" (= Substring("b"))\n', "a lookahead assertion that holds a macro"),
    ("repetition-no-comma", 'root ::= "a"{2 3}\n', "a counted repetition whose bounds are not separated by ','"),
    ("unclosed-repetition", 'root ::= "a"{2,3\n', "a counted repetition without its '}'"),
    ("repetition-not-integer", 'root ::= "a"{x}\n', "a counted repetition whose count is no integer"),
    ("bad-hex-escape", 'root ::= "\\xZZ"\n', "a hexadecimal escape without hexadecimal digits"),
    ("class-ends-grammar", 'root ::= [a-z', "a character class that the end of the grammar leaves open"),
    ("class-escape-in-class", 'root ::= [a\\d]\n', "a class escape \\d inside a character class"),
    ("number-too-long", 'root ::= Token(1234567890123456789)\n', "a token id of more than 18 digits"),
    ("macro-arguments-no-comma", 'root ::= Regex("a" "b")\n', "macro arguments not separated by ','"),
    ("macro-nesting-too-deep", 'root ::= TagDispatch(' + '(' * 1002 + ')' * 1002 + ')\n',
     "a macro argument's tuples nested deeper than 1000"),
    ("macro-bad-value", 'root ::= Regex(+)\n', "a macro argument that is no string, integer, boolean or tuple"),
    ("regex-no-argument", 'root ::= Regex()\n', "a Regex macro without its pattern"),
    ("regex-not-string", 'root ::= Regex(1)\n', "a Regex macro whose pattern is a number"),
    ("regex-unknown-argument", 'root ::= Regex("a", colour=1)\n', "a Regex macro's named argument that does not exist"),
    ("regex-json-string-not-bool", 'root ::= Regex("a", json_string=1)\n', "a Regex macro's json_string that is no boolean"),
    ("regex-flags-not-string", 'root ::= Regex("a", flags=1)\n', "a Regex macro's flags that are no string"),
    ("dispatch-unknown-argument", 'root ::= TagDispatch(("a", c), colour=1)\nc ::= "!"\n',
     "a TagDispatch named argument that does not exist"),
    ("dispatch-loop-not-bool", 'root ::= TagDispatch(("a", c), loop_after_dispatch=1)\nc ::= "!"\n',
     "a TagDispatch loop_after_dispatch that is no boolean"),
    ("dispatch-element-not-tuple", 'root ::= TagDispatch("a")\n', "a TagDispatch element that is no tuple"),
    ("dispatch-element-not-pair", 'root ::= TagDispatch(("a", c, c))\nc ::= "!"\n', "a TagDispatch element of three values"),
    ("token-dispatch-id-not-integer", 'root ::= TokenTagDispatch(("a", c))\nc ::= "!"\n',
     "a TokenTagDispatch trigger that is a string, not a token id"),
    ("dispatch-empty-tag", 'root ::= TagDispatch(("", c))\nc ::= "!"\n', "a TagDispatch tag that is the empty string"),
    ("dispatch-rule-not-name", 'root ::= TagDispatch(("a", "c"))\nc ::= "!"\n', "a TagDispatch rule given as a string"),
    ("dispatch-excludes-not-tuple", 'root ::= TagDispatch(("a", c), excludes="x")\nc ::= "!"\n',
     "a TagDispatch excludes that is no tuple"),
    ("token-dispatch-exclude-not-integer", 'root ::= TokenTagDispatch((5, c), excludes=("x",))\nc ::= "!"\n',
     "a TokenTagDispatch exclude that is a string, not a token id"),
    ("dispatch-exclude-not-string", 'root ::= TagDispatch(("a", c), excludes=(1,))\nc ::= "!"\n',
     "a TagDispatch exclude that is a number"),
    ("substring-not-string", 'root ::= Substring(a)\n', "a Substring macro's argument that is no string"),
    ("substring-trailing-comma", 'root ::= Substring("a",)\n', "a Substring macro's ',' followed by no string"),
    ("substring-no-comma", 'root ::= Substring("a" "b")\n', "Substring macro arguments not separated by ','"),
    ("token-no-comma", 'root ::= Token(1 2)\n', "Token macro ids not separated by ','"),
]

KBNF: List[Tuple[str, str, str]] = [
    ("missing-semicolon", 'start ::= "a"\n', "a rule without its ';'"),
    ("unclosed-literal", 'start ::= "ab;\n', "a literal that does not end"),
    ("missing-define", 'start "a";\n', "a rule without '::='"),
    ("undefined-rule", 'start ::= "a" item;\n', "a nonterminal that is never defined"),
    ("no-start", 'item ::= "a";\n', "no rule `start`"),
    ("unclosed-group", 'start ::= ("a" | "b";\n', "a group opened and never closed"),
    ("unclosed-option", 'start ::= ["a";\n', "an option [x] opened and never closed"),
    ("bad-regex", 'start ::= #"a(";\n', "a regex terminal that is no regex"),
    ("surrogate-escape", 'start ::= "\\uD800";\n', "a \\u escape of a UTF-16 surrogate, which is no Unicode scalar value"),
    ("unclosed-regex", 'start ::= #"a;\n', "a regex terminal that does not end"),
    # issue 35's line coverage: errors of kbnf.py that no vector reached
    ("hash-without-quote", 'start ::= #x"a";\n', "a # not followed by a regex's quote"),
    # ... followed by four hex digits (seed 42: a letter below `u` read as \u's escape)
    ("bad-escape", 'start ::= "\\q0041";\n', "an escape that kbnf does not have, before four hex digits"),
    # issue 35's third held-out sample (seed 40), in place of unclosed-repeat (the same check
    # as unclosed-option and unclosed-group): except! without its parenthesis, a character
    # below '(' after it (the mutant skipped it)
    ("except-without-paren", 'start ::= except! "ab";\n', "except! without the '(' of its argument"),
    # issue 35's line coverage (kbnf.py, d4fcb70): errors no vector reached, one each
    ("no-rules", '(* only a comment *)\n', "a grammar without any rule"),
    ("rule-name-not-name", '1 ::= "a";\n', "a rule whose name is a number"),
    ("empty-alternative", 'start ::= "a" | ;\n', "an alternative with no element"),
    ("comma-without-element", 'start ::= "a", ;\n', "a ',' followed by no element"),
    ("mismatched-bracket", 'start ::= ("a"];\n', "a group opened by '(' and closed by ']'"),
    ("stray-character", 'start ::= "a" @;\n', "a character that begins no element"),
    ("bad-hex-escape", 'start ::= "\\x4";\n', "a \\x escape with one hex digit (it takes two)"),
    ("bad-braced-escape", 'start ::= "\\u{1234567}";\n', "a \\u{...} escape of seven hex digits (at most six)"),
    ("short-unicode-escape", 'start ::= "\\u12";\n', "a \\u escape of two hex digits (it takes four)"),
    ("except-empty-string", 'start ::= except!("");\n', "except! of the empty string"),
    ("except-not-string-or-name", 'start ::= except!(+);\n', "except! of something that is no string or rule name"),
    ("except-bound-not-number", 'start ::= except!("a", x);\n', "except!(..., n) whose n is no number"),
    ("except-unclosed", 'start ::= except!("a" x);\n', "except!( without its ')'"),
    ("except-rule-not-strings", 'start ::= except!(x);\nx ::= #"a";\n', "except!(rule) whose rule is a regex, not strings"),
]

JSON_SCHEMA: List[Tuple[str, Any, str]] = [
    ("unknown-type", {"type": "strin"}, "a type that JSON Schema does not have"),
    ("type-not-a-name", {"type": 5}, "a type that is a number"),
    ("types-not-names", {"type": ["string", 5]}, "a list of types with a number among them"),
    ("negative-min-length", {"type": "string", "minLength": -1}, "a negative minLength"),
    ("fractional-max-length", {"type": "string", "maxLength": 2.5}, "a maxLength that is no integer"),
    ("text-max-items", {"type": "array", "maxItems": "3"}, "a maxItems that is a string"),
    ("text-minimum", {"type": "number", "minimum": "1"}, "a minimum that is a string"),
    ("zero-multiple-of", {"type": "integer", "multipleOf": 0}, "a multipleOf that is not positive"),
    ("negative-multiple-of", {"type": "number", "multipleOf": -2}, "a negative multipleOf"),
    ("unclosed-pattern-group", {"type": "string", "pattern": "a(b"}, "a pattern that is no ECMA regex: '(' unclosed"),
    ("pattern-nothing-to-repeat", {"type": "string", "pattern": "*a"}, "a pattern that is no ECMA regex: '*' first"),
    ("pattern-not-text", {"type": "string", "pattern": 5}, "a pattern that is a number"),
    ("missing-ref", {"$ref": "#/$defs/missing", "$defs": {"present": {"type": "string"}}},
     "a $ref to a definition that does not exist"),
    ("ref-not-text", {"$ref": 5}, "a $ref that is a number"),
    ("properties-not-object", {"type": "object", "properties": ["a", "b"]}, "properties given as a list"),
    ("property-schema-not-schema", {"type": "object", "properties": {"a": 5}}, "a property whose schema is a number"),
    ("required-not-list", {"type": "object", "required": "a"}, "required given as a string"),
    ("enum-not-list", {"enum": "a"}, "enum given as a string"),
    ("items-not-schema", {"type": "array", "items": 5}, "items whose schema is a number"),
    ("empty-all-of", {"allOf": []}, "an allOf with no schema (it must have at least one)"),
    ("any-of-not-list", {"anyOf": {"type": "string"}}, "an anyOf that is an object"),
    ("additional-properties-not-schema", {"type": "object", "additionalProperties": 5},
     "additionalProperties whose schema is a number"),
    ("dependency-not-schema", {"type": "object", "dependencies": {"a": 5}},
     "a dependencies value that is neither a list of names nor a schema"),
    ("schema-not-object", 5, "a schema that is a number (a schema is an object or a boolean)"),
    # issue 35's line coverage (in place of negative-min-properties and unclosed-pattern-class,
    # the same checks as negative-min-length and unclosed-pattern-group): an in-place
    # applicator's list and an enum met first by an exact oneOf's alternatives
    ("all-of-not-list", {"allOf": {"type": "string"}}, "an allOf that is an object"),
    ("enum-in-one-of-not-list", {"oneOf": [{"type": "array", "enum": "a"}, {"type": "array"}]},
     "an enum given as a string, in an alternative of a oneOf"),
]

#: the tables above: (vector kind, grammar kind, dialect option or None, table)
TABLES: List[Tuple[str, str, Optional[str], List[Tuple[str, Any, str]]]] = [
    ("regex", "regex", None, REGEX), ("lark", "lark", None, LARK), ("gbnf", "gbnf", None, GBNF),
    ("xgrammar", "ebnf", "xgrammar", XGRAMMAR), ("kbnf", "ebnf", "kbnf", KBNF),
    ("json_schema", "json_schema", None, JSON_SCHEMA),
]


def spec_of(kind: str, dialect: Optional[str], grammar: Any) -> GrammarSpec:
    """The grammar spec of a table's entry."""
    if kind == "json_schema":
        return GrammarSpec(kind, schema=grammar)
    options: Optional[Dict[str, Any]] = {"dialect": dialect} if dialect else None
    return GrammarSpec(kind, grammar, options=options)


def invalid_vectors() -> Iterator[Vector]:
    """The `invalid` group: one error vector per grammar of the tables, on the byte
    vocabulary (a refusal does not depend on the vocabulary), refimpl's error recorded."""
    vocab = byte_vocabulary()
    for name, kind, dialect, table in TABLES:
        for short, grammar, note in table:
            yield refused(spec_of(kind, dialect, grammar), vocab, "invalid/%s/%s" % (name, short), ["invalid", name],
                          "generate", note)
