"""lm-format-enforcer's known differences in the JSON values it writes (E1-E8, E10):
numbers, strings (control characters, escapes, its alphabets, lengths, leading
whitespace), a non-string const and a oneOf it cannot write (its parser raises: see
raised.py), commas, arrays under anyOf, enums."""
from __future__ import annotations

import json
from typing import Any, Callable, List, Tuple

from refimpl.errors import GrammarError

from ....differences import KnownDifferences
from ....divergence import Divergence, compiled
from ....readings.json_schemas import schemas
from ....readings.json_text import respelling_explains
from ....vectors import GrammarSpec
from ..reading import (
    WHITESPACE,
    alive,
    decoded_text,
    dispatch_flags,
    drop_string_leads,
    explains,
    first_array_item,
    json_reading,
    reading_lark,
    string_reading,
    string_so_far,
    token_string,
    tokenizer_alphabet,
)
from .raised import parser_raised

KNOWN_DIFFERENCES = KnownDifferences()


# -------------------------------------------------------------------------------------- numbers


_NUMBER_CHARS = "-+.0123456789eE"
#: JSON numbers (RFC 8259), the integers among them, and lm-format-enforcer's numbers
#: (NumberParsingState.get_allowed_characters; checked against the enforcer character by
#: character, up to 7 characters of -0159.eE+): a fraction may be empty before an exponent
#: (0.e5, 1.e5), integers take exponents (0e1, 1e5), and -0, even as an integer, takes a
#: fraction (-0.5, -0.e5)
JSON_NUMBER = "-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"
JSON_INTEGER = "-?(0|[1-9][0-9]*)"
_EXP = "[eE][+-]?[0-9]+"
LMFE_NUMBER = "-?(0|[1-9][0-9]*)((\\.[0-9]*)?%s|\\.[0-9]+)?" % _EXP
LMFE_INTEGER = "(0|-?[1-9][0-9]*)(%s)?|-0((\\.[0-9]*)?%s|\\.[0-9]+)?" % (_EXP, _EXP)


def _number_prefix(regex: str, text: str) -> bool:
    return alive(GrammarSpec("regex", regex), text.encode()) is not None


def _number_run(text: str) -> str:
    """The number the text ends inside: its longest suffix of number characters that
    begins with a digit or a minus sign (empty if none)."""
    i = len(text)
    while i > 0 and text[i - 1] in _NUMBER_CHARS:
        i -= 1
    run = text[i:]
    while run and run[0] not in "-0123456789":
        run = run[1:]
    return run


def _has_integers(schema: Any) -> bool:
    """Does some subschema have type integer?"""
    for node in schemas(schema):
        kind = node.get("type")
        if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
            return True
    return False


@KNOWN_DIFFERENCES.declare(
    "number-grammar", "peer-bug",
    "lm-format-enforcer's numbers are not JSON's: a fraction may be empty before an exponent (0.e5, "
    "1.e5), and integers take exponents (0e1, 1e5) and, after -0, a fraction (-0.5)",
    cites=('RFC 8259 (JSON) §6 Numbers (number = [ minus ] int [ frac ] [ exp ]; frac = decimal-point 1*DIGIT) '
           '(https://www.rfc-editor.org/rfc/rfc8259)'))
def number_grammar(d: Divergence) -> bool:
    """Only lm-format-enforcer allows the differing tokens; the text ends inside a number,
    each token is all number characters, and the number it makes is a prefix of
    lm-format-enforcer's numbers but not of JSON's, or (where the schema has integers) of
    its integers but not of JSON's. (Every prefix of a JSON number is one of its numbers:
    there is no difference the other way.)"""
    if d.grammar.kind != "json_schema" or d.error is not None or d.refused is not None or d.after_eos:
        return False
    run = _number_run(decoded_text(d.text()))
    if not run or d.only_refimpl or not d.only_engine:
        return False
    integers = _has_integers(d.grammar.schema)
    for t in d.only_engine:
        s = token_string(d.vocab.tokens[t]) if t not in d.vocab.eos_token_ids else ""
        if not s or any(c not in _NUMBER_CHARS for c in s):
            return False
        number = run + s
        if not ((_number_prefix(LMFE_NUMBER, number) and not _number_prefix(JSON_NUMBER, number))
                or (integers and _number_prefix(LMFE_INTEGER, number) and not _number_prefix(JSON_INTEGER, number))):
            return False
    return True


# -------------------------------------------------------------------------------------- strings


def dispatched_reading(schema: Any, general_escapes: bool = False) -> GrammarSpec:
    """lm-format-enforcer's reading of the schema (reading_lark) as get_parser dispatches
    it (dispatch_flags), where refimpl compiles that, else without them: the reading the
    differences of its strings act on, so that a token on which a dispatch difference
    acts too (a key of a `oneOf` option read as any object) is read as it reads it."""
    flags = dispatch_flags(schema)
    if flags:
        spec = GrammarSpec("lark", reading_lark(schema, general_escapes, **flags))
        try:
            compiled(spec)
            return spec
        except GrammarError:
            pass
    return GrammarSpec("lark", reading_lark(schema, general_escapes))


def _allowed_with(d: Divergence, find: Callable[[str], bool], replace: Callable[[str], str]) -> bool:
    """Only lm-format-enforcer allows the differing tokens; each one's string satisfies
    `find`, and refimpl on lm-format-enforcer's reading (dispatched_reading) allows it
    rewritten by `replace`."""
    if d.grammar.kind != "json_schema" or d.only_refimpl or not d.only_engine or d.grammar.options:
        return False
    if d.error is not None or d.refused is not None or d.after_eos:
        return False
    text = decoded_text(d.text()).encode("utf-8")
    spec = dispatched_reading(d.grammar.schema)
    for t in d.only_engine:
        s = token_string(d.vocab.tokens[t])
        if not find(s) or alive(spec, text + replace(s).encode("utf-8")) is None:
            return False
    return True


@KNOWN_DIFFERENCES.declare(
    "control-characters-in-strings", "peer-bug",
    "lm-format-enforcer allows raw control characters U+0000-U+001F inside JSON strings (JSON "
    "requires them escaped)",
    cites=('RFC 8259 (JSON) §7 Strings: control characters U+0000-U+001F must be escaped; any character may be '
           'escaped (https://www.rfc-editor.org/rfc/rfc8259)'))
def control_characters(d: Divergence) -> bool:
    """Tokens holding U+0000-U+001F, allowed by refimpl's reading with each written as
    JSON's escape `\\u00XX`: the same character in the string's value, so a pattern, an
    enum or a length reads it as lm-format-enforcer does (`^[\\w\\s-]+$` takes a raw
    vertical tab; outside a string the escape is no JSON either)."""
    return _allowed_with(d, lambda s: any(c < " " for c in s),
                         lambda s: "".join("\\u%04x" % ord(c) if c < " " else c for c in s))


@KNOWN_DIFFERENCES.declare(
    "json-string-spelling", "semantic",
    "lm-format-enforcer's JSON strings allow a raw U+007F, the escape \\/ and every \\uXXXX, as "
    "JSON does; maskref (as llguidance) wants DEL escaped, and its default escapes leave out \\/ "
    "and \\u except for control characters and DEL")
def json_string_spelling(d: Divergence) -> bool:
    """Only lm-format-enforcer allows the differing tokens, and its reading with general
    `\\uXXXX` escapes allows each once raw DELs are `\\u007f` and `\\/` is `/`."""
    if d.grammar.kind != "json_schema" or d.grammar.options:
        return False
    reading = compiled(dispatched_reading(d.grammar.schema, general_escapes=True))
    return respelling_explains(d, reading, lambda text, data: (decoded_text(text) + token_string(data)).encode("utf-8"))


@KNOWN_DIFFERENCES.declare(
    "quote-inside-token", "peer-bug",
    "lm-format-enforcer never allows a token that closes a free-text JSON string and goes on (`.\",` "
    "after `{\"name\": \"`): its free-text token list leaves out tokens with a quote before their "
    "end, and its walk explores only tokens that begin with the quote",
    cites=('RFC 8259 (JSON) §7 Strings: control characters U+0000-U+001F must be escaped; any character may be '
           'escaped (https://www.rfc-editor.org/rfc/rfc8259)'))
def quote_inside_token(d: Divergence) -> bool:
    """Only refimpl allows the differing tokens; each has a quote after its first character
    and before its last, and refimpl's reading of lm-format-enforcer allows it: a token
    that ends a free string and goes on is never in lm-format-enforcer's free-text list
    (JsonFreetextTokenCache) and its walk explores only tokens that begin with the quote."""
    if d.grammar.kind != "json_schema" or d.only_engine or not d.only_refimpl:
        return False
    reading = json_reading(d)
    if reading is None or d.error is not None or d.refused is not None or d.after_eos:
        return False
    return all('"' in token_string(d.vocab.tokens[t])[1:-1] and reading(t) for t in d.only_refimpl)


@KNOWN_DIFFERENCES.declare(
    "escaped-length", "peer-bug",
    "lm-format-enforcer counts a string's maxLength in characters of its escaped text (`\\\\` is "
    "two), JSON Schema in characters of the string: a token with escapes is refused where the "
    "string would still fit",
    cites=("JSON Schema 2020-12 Validation §6.3.1 maxLength: characters of the string's value, escapes decoded "
           '(https://json-schema.org/draft/2020-12/json-schema-validation)'))
def escaped_length(d: Divergence) -> bool:
    """Only refimpl allows the differing tokens, under a maxLength; each holds an escape
    (so it is longer as text than as the string's characters), and refimpl's reading of
    lm-format-enforcer allows it."""
    if d.grammar.kind != "json_schema" or d.only_engine or not d.only_refimpl:
        return False
    if '"maxLength"' not in d.grammar.source:
        return False
    reading = json_reading(d)
    if reading is None or d.error is not None or d.refused is not None or d.after_eos:
        return False
    return all("\\" in token_string(d.vocab.tokens[t]) and reading(t) for t in d.only_refimpl)


@KNOWN_DIFFERENCES.declare(
    "pattern-alphabet", "peer-bug",
    "lm-format-enforcer builds a string pattern's RegexParser with its default alphabet (printable "
    "ASCII without | ~ \\) before the enforcer sets the tokenizer's: `[^a-c]+` never produces `|`, "
    "`~`, a backslash or any non-ASCII character",
    cites=('JSON Schema 2020-12 Validation §6.3.3 pattern: an ECMA-262 regex over the string\'s value, "not '
           'implicitly anchored" (https://json-schema.org/draft/2020-12/json-schema-validation)'))
def pattern_alphabet(d: Divergence) -> bool:
    """In a schema with a string pattern, only refimpl allows the differing tokens, and each
    puts into a string a character outside lm-format-enforcer's default alphabet."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    if not any("pattern" in s for s in schemas(d.grammar.schema)):
        return False
    from lmformatenforcer.consts import COMPLETE_ALPHABET

    text = decoded_text(d.text())
    for t in d.only_refimpl:
        string = string_so_far(text + token_string(d.vocab.tokens[t]))
        if string is None or all(c in COMPLETE_ALPHABET for c in string):
            return False
    return True


@KNOWN_DIFFERENCES.declare(
    "min-length-alphabet", "peer-bug",
    "in a token that opens a JSON string under a minLength, lm-format-enforcer takes, until that length, "
    "only its default alphabet (printable ASCII without | ~ \\): JsonSchemaParser keeps `alphabet_without_quotes` "
    "from the config it was built with, before the enforcer sets the tokenizer's, so `\"—` is "
    "refused as the start of {\"type\": \"string\", \"minLength\": 1}",
    cites=('JSON Schema 2020-12 Validation §6.3.2 minLength '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)'))
def min_length_alphabet(d: Divergence) -> bool:
    """In a schema with a minLength, outside strings, only refimpl allows the differing
    tokens, and each opens a string and puts into it, among its first minLength
    characters, a character outside lm-format-enforcer's default alphabet (its walk reads
    such a token character by character; once the string is open it uses its free-text
    token list, which is right)."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    bounds = [s["minLength"] for s in schemas(d.grammar.schema) if isinstance(s.get("minLength"), int)]
    if not bounds or d.after_eos:
        return False
    from lmformatenforcer.consts import COMPLETE_ALPHABET

    text = decoded_text(d.text())
    if string_so_far(text) is not None:
        return False  # inside a string lm-format-enforcer takes its free-text token list, which has them
    for t in d.only_refimpl:
        string = string_so_far(text + token_string(d.vocab.tokens[t]))
        if string is None or all(c in COMPLETE_ALPHABET for c in string[:max(bounds)]):
            return False
    return True


# ------------------------------------------------------------- a const, a oneOf it cannot write


@KNOWN_DIFFERENCES.declare(
    "non-string-const", "peer-bug",
    "lm-format-enforcer cannot write a `const` that is not a string ({\"const\": 0}): its string "
    "parser is given the value, raises, and the enforcer allows only EOS",
    ends_path=True,
    cites=('JSON Schema 2020-12 Validation §6.1.3 const (any JSON value) '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)'))
def non_string_const(d: Divergence) -> bool:
    """lm-format-enforcer's parser raised (the session's note) and it allows EOS only, on a
    schema with a `const` that is not a string."""
    if d.error or d.refused is not None or not d.note or not d.note.startswith("parser-error"):
        return False
    if not any("const" in s and not isinstance(s["const"], str) for s in schemas(d.grammar.schema)):
        return False
    return parser_raised(d, "")


@KNOWN_DIFFERENCES.declare(
    "one-of-merge", "peer-bug",
    "lm-format-enforcer cannot write an object schema with properties and a oneOf whose options "
    "have none (`{\"properties\": {...}, \"oneOf\": [{\"$ref\": ...}]}`): _merge_object_schemas "
    "raises TypeError on the option's missing properties, and the enforcer allows only EOS",
    ends_path=True,
    cites='JSON Schema 2020-12 Core §10.2.1.3 oneOf (https://json-schema.org/draft/2020-12/json-schema-core)')
def one_of_merge(d: Divergence) -> bool:
    """lm-format-enforcer's parser raised the TypeError of its _merge_object_schemas (the
    session's note) and allows EOS only, on a schema where an object with properties has
    a oneOf option without them (a `$ref`, say)."""
    if d.error or d.refused is not None or not d.note or not d.note.startswith("parser-error"):
        return False
    if "TypeError: argument of type 'NoneType' is not iterable" not in d.note:
        return False
    if not any(isinstance(s.get("properties"), dict) and s["properties"] and isinstance(s.get("oneOf"), list)
               and any(not isinstance(o, dict) or "properties" not in o for o in s["oneOf"])
               for s in schemas(d.grammar.schema)):
        return False
    return bool(d.only_refimpl) and all(t in d.vocab.eos_token_ids for t in d.only_engine)


# ----------------------------------------------------------------------- strings, arrays, enums


@KNOWN_DIFFERENCES.declare(
    "character-outside-alphabet", "peer-bug",
    "a character that begins no token (é split over two tokens of a byte vocabulary), once in a "
    "JSON string, ends lm-format-enforcer's JSON: no parser on its stack accepts it, and only "
    "whitespace and EOS are allowed after it",
    ends_path=True,
    cites=('RFC 8259 (JSON) §7 Strings: control characters U+0000-U+001F must be escaped; any character may be '
           'escaped (https://www.rfc-editor.org/rfc/rfc8259)'))
def outside_alphabet(d: Divergence) -> bool:
    """The text ends inside a JSON string holding a character that begins no token, and
    lm-format-enforcer then allows only whitespace and EOS, refusing what refimpl allows."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or not d.only_refimpl:
        return False
    string = string_so_far(decoded_text(d.text()))
    if string is None or all(c in tokenizer_alphabet(d.vocab) for c in string):
        return False
    return all(t in d.vocab.eos_token_ids or not d.vocab.tokens[t].strip() for t in d.only_engine)


@KNOWN_DIFFERENCES.declare(
    "trailing-comma", "peer-bug",
    "lm-format-enforcer lets an object close right after a comma ({\"age\": 42,}) when its "
    "remaining properties are optional: invalid JSON",
    ends_path=True,
    cites='RFC 8259 (JSON) §4 Objects (no comma after the last member) (https://www.rfc-editor.org/rfc/rfc8259)')
def trailing_comma(d: Divergence) -> bool:
    """The text ends (but for whitespace) in a comma outside strings, and every token only
    lm-format-enforcer allows closes the object or array there (none only refimpl allows)."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_refimpl or not d.only_engine:
        return False
    text = decoded_text(d.text())
    if not text.rstrip().endswith(",") or string_so_far(text) is not None:
        return False
    return all(d.vocab.tokens[t].lstrip()[:1] in (b"}", b"]") for t in d.only_engine)


@KNOWN_DIFFERENCES.declare(
    "string-leading-whitespace", "peer-bug",
    "lm-format-enforcer leaves the whitespace that follows a string's opening quote out of the string: "
    "it is not counted against minLength/maxLength nor read by the pattern (`\" ` is still empty: "
    "{\"type\": \"string\", \"maxLength\": 1} then allows a second character and refuses the closing quote, "
    "`^[^a-c]+$` refuses it)",
    cites=('JSON Schema 2020-12 Validation §6.3.1-6.3.3 (whitespace inside quotes is part of the string) '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)'))
def leading_whitespace(d: Divergence) -> bool:
    """The text or a differing token puts whitespace right after a string's opening quote,
    and refimpl on lm-format-enforcer's reading explains the differing tokens only with
    that whitespace left out of the string."""
    if d.grammar.kind != "json_schema" or d.grammar.options:
        return False
    text = decoded_text(d.text())
    if not all(drop_string_leads(text + token_string(d.vocab.tokens[t])) != text + token_string(d.vocab.tokens[t])
               for t in d.differing()):
        return False
    return (explains(d, string_reading(d, d.grammar.schema, leads=True))
            and not explains(d, string_reading(d, d.grammar.schema, leads=False)))


def _without_max_length_zero(schema: Any) -> Any:
    out = json.loads(json.dumps(schema))
    for node in schemas(out):
        if node.get("maxLength") == 0:
            del node["maxLength"]
    return out


@KNOWN_DIFFERENCES.declare(
    "max-length-zero", "peer-bug",
    "lm-format-enforcer's free-text shortcut reads a string's maxLength 0 as no bound "
    "(JsonSchemaParser.shortcut_key: `max_length or sys.maxsize`): {\"type\": \"string\", \"maxLength\": 0} "
    "takes any string",
    cites=('JSON Schema 2020-12 Validation §6.3.1 maxLength '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)'))
def max_length_zero(d: Divergence) -> bool:
    """The schema has a maxLength of 0, and refimpl on lm-format-enforcer's reading
    explains the differing tokens only with it left out."""
    if d.grammar.kind != "json_schema" or not any(s.get("maxLength") == 0 for s in schemas(d.grammar.schema)):
        return False
    return (explains(d, string_reading(d, _without_max_length_zero(d.grammar.schema), leads=True))
            and not explains(d, string_reading(d, d.grammar.schema, leads=True)))


def _array_options(schema: Any) -> List[Any]:
    """For each anyOf with two or more array options, the last one's items schema."""
    out = []
    for node in schemas(schema):
        options = node.get("anyOf")
        if isinstance(options, list):
            arrays = [o for o in options if isinstance(o, dict) and o.get("type") == "array"]
            if len(arrays) >= 2:
                out.append(arrays[-1].get("items", {}))
    return out


@KNOWN_DIFFERENCES.declare(
    "array-union", "peer-bug",
    "in an anyOf of two or more array schemas, each option's list parser pushes its item parser onto "
    "the one shared stack at `[` (ListParsingState.add_character, `context.active_parser`): the "
    "last option's item parser is on top and takes the first item, so `[]` of "
    "{\"anyOf\": [{\"type\": \"array\", \"maxItems\": 0}, {\"type\": \"array\", \"minItems\": 1}]} and a "
    "first item the earlier options' items take but the last's do not are refused",
    cites=('JSON Schema 2020-12 Core §10.2.1.2 anyOf and §10.3.1.2 items '
           '(https://json-schema.org/draft/2020-12/json-schema-core)'))
def array_union(d: Divergence) -> bool:
    """The text ends inside an array's first item, the schema has an anyOf of two or more
    array schemas, and refimpl on that item, read as an item of the last of them,
    explains every differing token (none is EOS): lm-format-enforcer's array options push
    their item parsers onto one shared stack, the last option's on top, and that one takes
    the item's characters."""
    if d.grammar.kind != "json_schema" or d.grammar.options or d.error or d.refused is not None or d.after_eos:
        return False
    item = first_array_item(decoded_text(d.text()))
    if item is None or not d.differing() or any(t in d.vocab.eos_token_ids for t in d.differing()):
        return False
    for items in _array_options(d.grammar.schema):
        spec = GrammarSpec("lark", reading_lark(items))
        if all((alive(spec, (item + token_string(d.vocab.tokens[t])).encode("utf-8")) is not None)
               == (t in d.only_engine) for t in d.differing()):
            return True
    return False


@KNOWN_DIFFERENCES.declare(
    "string-alphabet", "semantic",
    "where lm-format-enforcer walks a JSON string character by character (a string under anyOf, with an "
    "enum or a pattern, a token that opens it), it offers only its alphabet, the characters that begin "
    "some token: a token holding, after its first character, a character that begins no token is refused "
    "(`\" 裏` of GPT-2 under {\"anyOf\": [{\"type\": \"string\"}, ...]})")
def string_alphabet(d: Divergence) -> bool:
    """Only refimpl allows the differing tokens; each puts into a JSON string, after its
    first character, a character that begins no token, and refimpl's reading of
    lm-format-enforcer allows it (lm-format-enforcer's walk offers a string only the
    characters of its tokenizer alphabet; its free-text token list, used for a lone
    string without enum or pattern, has them)."""
    if d.grammar.kind != "json_schema" or d.only_engine or not d.only_refimpl or d.after_eos:
        return False
    reading = json_reading(d)
    if reading is None or d.error is not None or d.refused is not None:
        return False
    text, letters = decoded_text(d.text()), tokenizer_alphabet(d.vocab)
    for t in d.only_refimpl:
        if t in d.vocab.eos_token_ids or not reading(t):
            return False
        s = token_string(d.vocab.tokens[t])
        if not any(c not in letters and string_so_far(text + s[:i]) is not None for i, c in enumerate(s) if i):
            return False
    return True


def _enum_words(schema: Any) -> Tuple[List[str], List[str]]:
    """The values of the enums lm-format-enforcer writes with Python's str() (all of them
    int, float or bool, which Python counts as int) where that differs from JSON: as it
    writes them (True) and as JSON does (true)."""
    lmfe: List[str] = []
    spelled: List[str] = []
    for node in schemas(schema):
        values = node.get("enum")
        if isinstance(values, list) and values and all(isinstance(v, (int, float)) for v in values):
            if any(str(v) != json.dumps(v) for v in values):
                lmfe += [str(v) for v in values]
                spelled += [json.dumps(v) for v in values]
    return lmfe, spelled


_WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-"


@KNOWN_DIFFERENCES.declare(
    "enum-python-spelling", "peer-bug",
    "lm-format-enforcer writes an enum whose values are all numbers or booleans as Python's str() of "
    "each (`isinstance(True, int)`): {\"enum\": [true]} is written `True`, never `true`",
    cites=('JSON Schema 2020-12 Validation §6.1.2 enum '
           '(https://json-schema.org/draft/2020-12/json-schema-validation); RFC 8259 (JSON) §3 Values (true, '
           'false, null in lowercase) (https://www.rfc-editor.org/rfc/rfc8259)'))
def enum_python(d: Divergence) -> bool:
    """The schema has an enum of numbers and booleans, and each differing token continues
    the word the text ends in (letters, digits, . + -) with word characters (after
    whitespace, where the text ends in no word): into a
    prefix of a value as Python spells it (True) but not as JSON does, where only
    lm-format-enforcer allows it, and the other way round where only refimpl does."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.after_eos:
        return False
    lmfe, spelled = _enum_words(d.grammar.schema)
    if not lmfe or not d.differing():
        return False
    text = decoded_text(d.text())
    i = len(text)
    while i > 0 and text[i - 1] in _WORD:
        i -= 1
    for t in d.differing():
        s = token_string(d.vocab.tokens[t]) if t not in d.vocab.eos_token_ids else ""
        if i == len(text):
            s = s.lstrip(WHITESPACE)  # a token that begins the value may begin with whitespace
        if not s or any(c not in _WORD for c in s):
            return False
        word = text[i:] + s
        python = any(w.startswith(word) for w in lmfe)
        json_ = any(w.startswith(word) for w in spelled)
        if python == json_ or python != (t in d.only_engine):
            return False
    return True
