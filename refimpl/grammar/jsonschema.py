"""JSON schema (draft 2020-12) → grammar IR: `json_schema_to_ir`, behind
`Grammar.from_json_schema(schema, **options)` and `%json {...}` in Lark grammars.

The schema means the same language as in llguidance (same options, same defaults, same
layout: properties in schema order, then additional properties; whitespace as an
%ignore lexeme of the JSON's own lexeme class), with one rule on top: **nothing is
silently ignored** — a keyword that cannot be enforced exactly raises `SchemaError`
naming it and its JSON pointer, unless `lenient=True`, in which case it is skipped and
listed in the result (`Grammar.ignored_keywords`). docs/jsonschema.md is the full story.

How a schema compiles (no recursion on the depth of the schema anywhere: every walk
keeps an explicit stack, and nonterminals are made lazily from a worklist):

* **Scalars are lexemes.** For a set of subschemas that must all hold (a *conjunction*:
  `allOf`, `$ref`, sibling keywords), the null / boolean / number / string values they
  allow are computed as ONE regular expression by regex algebra — `allOf` is `&`,
  `anyOf` is `|`, `not` is complement, `pattern` ∩ length bounds, `enum` a union of
  literals — and become one lexeme. Strings are regexes over the *decoded* text, quoted
  at the end by a homomorphism that maps each byte to its JSON encodings (`\\n`,
  `\\u000a`, ...), so every keyword stays exact.
* **Arrays and objects are rules.** A conjunction is flattened (`allOf`/`$ref` inline);
  a disjunction (`anyOf`, exact `oneOf`, `if`/`then`/`else`, `enum` of arrays or
  objects, `dependentRequired`/`dependentSchemas`) that matters for the container type
  is distributed into alternatives, one nonterminal each; a leaf conjunction is laid out
  as `[` items `]` or `{` properties `}`, each item or property value being the
  conjunction of the subschemas that apply to it. Recursion through `$ref` is recursion
  through nonterminals: that is why JSON goes through the context-free grammar.
* **Numbers** are kept exact by an invariant: every number regex accepts only texts
  whose value satisfies the schema, and always the canonical text of every such value
  (`-?(0|[1-9][0-9]*)` for integers; shortest plain decimal otherwise), so intersections,
  unions and complements (taken within canonical texts) never lose a value. Bounds
  compile to digit-by-digit regexes; `multipleOf` to a divisibility automaton.

>>> from refimpl import Grammar
>>> g = Grammar.from_json_schema({"type": "object", "properties": {"n": {"type": "integer"}},
...                               "required": ["n"], "additionalProperties": False})
>>> print(g.to_text(), end="")
json: "{" "\\"n\\"" ":" integer "}"
"""
from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Set, Tuple

from ..errors import GrammarError, LimitError, RegexError, SchemaError
from ..limits import DEFAULT_LIMITS, Limits
from ..regex import ExprSet, compile_pattern, derivative, is_empty
from ..regex import syntax as _syntax
from ..regex.compiler import compile_ast
from .simplify import repeat as _repeat
from .ir import GrammarIR
from .jsontext import JsonTextError, dumps, read_json

__all__ = ["DEFAULT_OPTIONS", "IgnoredKeyword", "JsonSchemaIR", "dumps", "json_schema_to_ir", "json_whitespace", "parse_json_text"]

# ================================================================================ options

#: llguidance's `x-guidance` options and their defaults (docs/json_schema.md there).
DEFAULT_OPTIONS: Dict[str, Any] = {
    "item_separator": ",",
    "key_separator": ":",
    "whitespace_flexible": True,
    "whitespace_pattern": None,
    "coerce_one_of": False,
    "lenient": False,
    "json_allowed_escapes": "nrbtf\\\"u",
    "json_allow_general_unicode_escapes": False,
}

_FLEXIBLE_WHITESPACE = r"[\x20\x0A\x0D\x09]+"


class IgnoredKeyword(NamedTuple):
    """A keyword skipped under `lenient=True`: what, where, and why it is not exact."""

    keyword: str
    pointer: str
    reason: str

    def __str__(self) -> str:
        return "%s at %s: %s" % (self.keyword, self.pointer or "/", self.reason)


class JsonSchemaIR(NamedTuple):
    """What `json_schema_to_ir` returns: the IR, the schema's start nonterminal (a rule
    body in the IR), the keywords skipped under `lenient`, and the options used."""

    ir: GrammarIR
    start: int
    ignored: List[IgnoredKeyword]
    options: Dict[str, Any]


def _merge_options(base: Dict[str, Any], extra: Any, where: str) -> None:
    """Check and merge one layer of options (`defaults`, `x-guidance`, `overrides`)."""
    if extra is None:
        return
    if not isinstance(extra, dict):
        raise SchemaError("%s must be an object" % (where or "options"), where)
    for key, value in extra.items():
        if key not in DEFAULT_OPTIONS:
            raise SchemaError(
                "unknown option '%s' (known: %s)" % (key, ", ".join(sorted(DEFAULT_OPTIONS))),
                where + "/" + _escape_pointer(key) if where else "",
            )
        if key in ("item_separator", "key_separator", "json_allowed_escapes"):
            ok = isinstance(value, str) or (value is None and key == "json_allowed_escapes")
        elif key == "whitespace_pattern":
            ok = value is None or isinstance(value, str)
        else:
            ok = isinstance(value, bool)
        if not ok:
            raise SchemaError("option '%s' has a value of the wrong type: %r" % (key, value),
                              where + "/" + key if where else "")
        if key == "json_allowed_escapes":
            if value is None:
                value = DEFAULT_OPTIONS[key]
            bad = [c for c in value if c not in "nrbtf\\\"u"]
            if bad:
                raise SchemaError("invalid escape character in allowed_escapes: %s" % bad[0],
                                  where + "/" + key if where else "")
        base[key] = value


# ====================================================================== JSON text (iterative)

def parse_json_text(text: str) -> Any:
    """A whole JSON text (see jsontext.read_json); SchemaError if it is not one.

    >>> parse_json_text('{"a": [1, 2.50, true, null]}')
    {'a': [1, Decimal('2.50'), True, None]}
    """
    try:
        value, end = read_json(text)
        if text[end:].strip(" \t\n\r"):
            raise JsonTextError("extra data after the JSON value", end)
    except JsonTextError as e:
        raise SchemaError("invalid JSON: %s at offset %d" % (e.message, e.offset)) from None
    return value


def _escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _short(value: Any, limit: int = 60) -> str:
    """A short display of a JSON value (never recursing into deep values)."""
    if isinstance(value, dict):
        text = "{%s}" % ", ".join(json.dumps(k, ensure_ascii=False) + ": ..." for k in list(value)[:4])
    elif isinstance(value, list):
        text = "[... %d items]" % len(value)
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = _number_text(value) if _is_number(value) else json.dumps(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ================================================================ JSON values and numbers


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)


def _json_type(v: Any) -> str:
    """The JSON type of a Python value: null, boolean, number, string, array, object."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if _is_number(v):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    raise SchemaError("not a JSON value: %r" % (v,))


def _decimal(v: Any) -> Decimal:
    """An exact Decimal for a schema number (floats by their shortest repr)."""
    if isinstance(v, Decimal):
        return v
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise SchemaError("numbers must be finite, got %r" % v)
        return Decimal(repr(v))
    return Decimal(v)


def _number_text(v: Any) -> str:
    """The canonical JSON text of a number: an integer without fraction, otherwise the
    shortest plain decimal (no exponent): 1.0 -> "1", 2.50 -> "2.5", 1e-3 -> "0.001"."""
    d = _decimal(v)
    if d == d.to_integral_value():
        return str(int(d))
    sign, digits, exp = d.normalize().as_tuple()
    s = "".join(map(str, digits))
    assert isinstance(exp, int) and exp < 0
    if len(s) <= -exp:
        s = "0." + "0" * (-exp - len(s)) + s
    else:
        s = s[:exp] + "." + s[exp:]
    return ("-" if sign else "") + s


# ========================================================================== schema index

#: keywords whose value is one schema / a map of schemas / a list of schemas
_SCHEMA_VALUE = ("additionalProperties", "items", "contains", "not", "if", "then", "else",
                 "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems",
                 "contentSchema")
_SCHEMA_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")

#: annotations and identifiers: accepted, no effect on the language
_ANNOTATIONS = frozenset((
    "$schema", "$id", "id", "$anchor", "$dynamicAnchor", "$defs", "definitions", "$comment",
    "$vocabulary", "title", "description", "default", "examples", "deprecated", "readOnly",
    "writeOnly", "contentMediaType", "contentEncoding", "contentSchema", "format_annotation",
))

#: every keyword draft 2020-12 (and the older drafts' leftovers) defines; anything else is
#: an unknown keyword, which JSON schema says to ignore (it is an annotation)
_KNOWN = frozenset((
    "$ref", "$dynamicRef", "$recursiveRef", "$recursiveAnchor", "allOf", "anyOf", "oneOf", "not",
    "if", "then", "else", "dependentSchemas", "dependencies", "prefixItems", "items",
    "additionalItems", "contains", "properties", "patternProperties", "additionalProperties",
    "propertyNames", "unevaluatedItems", "unevaluatedProperties", "type", "enum", "const",
    "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
    "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
    "maxProperties", "minProperties", "required", "dependentRequired", "format",
)) | _ANNOTATIONS

_TYPES = ("null", "boolean", "number", "string", "array", "object")
_TRUE, _FALSE = 0, 1  # node ids of the boolean schemas


class _Node:
    """A subschema: its value, where it is (parent node and the pointer tokens from it:
    pointers are made on demand, so a 10,000-deep schema does not store 10,000 long
    strings), and its base URI."""

    __slots__ = ("value", "parent", "token", "base")

    def __init__(self, value: Any, parent: int, token: str, base: str) -> None:
        self.value = value
        self.parent = parent
        self.token = token
        self.base = base


class _Index:
    """Every subschema as a node (an int): its value, JSON pointer and base URI; the
    resources (`$id`) and anchors `$ref` resolves against. Built without recursion."""

    def __init__(self, root: Any) -> None:
        self.nodes: List[_Node] = [_Node(True, -1, "", ""), _Node(False, -1, "", "")]
        self.node_of: Dict[int, int] = {}
        self.resources: Dict[str, int] = {}
        self.anchors: Dict[str, int] = {}
        self.keep: List[Any] = []  # synthesized schemas (their ids must stay unique)
        self.root = self.add(root, -1, "", "")
        self.resources.setdefault("", self.root)

    def pointer(self, n: int) -> str:
        """The JSON pointer of node n ("" for the root)."""
        parts = []
        while n >= 0 and self.nodes[n].token:
            parts.append(self.nodes[n].token)
            n = self.nodes[n].parent
        return "".join("/" + t for t in reversed(parts))

    def label(self, n: int, depth: int = 2) -> str:
        """The last few tokens of node n's pointer (a short name)."""
        parts = []
        while n >= 0 and self.nodes[n].token and len(parts) < depth:
            parts.append(self.nodes[n].token)
            n = self.nodes[n].parent
        more = "…" if n >= 0 and self.nodes[n].token else ""
        return more + "".join("/" + t for t in reversed(parts))

    def add(self, value: Any, parent: int, token: str, base: str) -> int:
        """Index `value` (a schema) and the subschemas under it; its node."""
        first = self._register(value, parent, token, base)
        stack = [first]
        while stack:
            n = stack.pop()
            node = self.nodes[n]
            v = node.value
            if not isinstance(v, dict):
                continue
            children: List[Tuple[Any, str]] = []
            for key, child in v.items():
                k = _escape_pointer(key)
                if key in _SCHEMA_VALUE:
                    if key == "items" and isinstance(child, list):
                        children.extend((c, "%s/%d" % (k, i)) for i, c in enumerate(child))
                    else:
                        children.append((child, k))
                elif key in _SCHEMA_MAP:
                    if not isinstance(child, dict):
                        raise SchemaError("%s must be an object" % key, self.pointer(n) + "/" + k)
                    children.extend((c, k + "/" + _escape_pointer(name)) for name, c in child.items())
                elif key in _SCHEMA_LIST:
                    if not isinstance(child, list):
                        raise SchemaError("%s must be an array" % key, self.pointer(n) + "/" + k)
                    children.extend((c, "%s/%d" % (k, i)) for i, c in enumerate(child))
                elif key == "dependencies" and isinstance(child, dict):
                    children.extend((c, k + "/" + _escape_pointer(name)) for name, c in child.items()
                                    if isinstance(c, (dict, bool)))
            for child, t in reversed(children):
                if not isinstance(child, (dict, bool)):
                    raise SchemaError("schema must be an object or boolean, got %s" % _short(child),
                                      self.pointer(n) + "/" + t)
                if isinstance(child, dict) and id(child) not in self.node_of:
                    stack.append(self._register(child, n, t, node.base))
        return first

    def _register(self, value: Any, parent: int, token: str, base: str) -> int:
        if value is True:
            return _TRUE
        if value is False:
            return _FALSE
        if not isinstance(value, dict):
            where = (self.pointer(parent) if parent >= 0 else "") + ("/" + token if token else "")
            raise SchemaError("schema must be an object or boolean, got %s" % _short(value), where)
        n = self.node_of.get(id(value))
        if n is not None:
            return n
        sid = value.get("$id")
        if isinstance(sid, str):
            base = _urljoin(base, sid)
            self.resources.setdefault(base, len(self.nodes))
        for key in ("$anchor", "$dynamicAnchor"):
            anchor = value.get(key)
            if isinstance(anchor, str):
                self.anchors.setdefault(base + "#" + anchor, len(self.nodes))
        n = len(self.nodes)
        self.nodes.append(_Node(value, parent, token, base))
        self.node_of[id(value)] = n
        return n

    def dynamic_anchors(self, name: str) -> Set[str]:
        """The resources that define `$dynamicAnchor: name`."""
        return {key.partition("#")[0] for key, n in self.anchors.items()
                if key.partition("#")[2] == name and isinstance(self.nodes[n].value, dict)
                and self.nodes[n].value.get("$dynamicAnchor") == name}

    def synth(self, value: Any, n: int, what: str) -> int:
        """A node for a schema made by the compiler for node n (kept alive, so ids stay
        unique; its pointer is n's, followed by `what`)."""
        if isinstance(value, bool):
            return _TRUE if value else _FALSE
        self.keep.append(value)
        return self.add(value, n, what, self.nodes[n].base)

    def resolve(self, ref: str, n: int, keyword: str = "$ref") -> int:
        """The node `ref` (in node n) points to; SchemaError for unknown references."""
        node = self.nodes[n]
        target = _urljoin(node.base, ref)
        doc, _, frag = target.partition("#")
        frag = _unquote(frag)
        root = self.resources.get(doc)
        if root is None:
            raise SchemaError("unknown $ref '%s' (only references into this schema are "
                              "supported; remote schemas are not fetched)" % ref, self.pointer(n) + "/" + keyword)
        if not frag:
            return root
        if not frag.startswith("/"):
            m = self.anchors.get(doc + "#" + frag)
            if m is None:
                raise SchemaError("unknown $ref '%s' (no anchor '%s')" % (ref, frag), self.pointer(n) + "/" + keyword)
            return m
        value = self.nodes[root].value
        base = self.nodes[root].base
        path = []
        for token in frag.split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(value, dict) and token in value:
                value = value[token]
            elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
                value = value[int(token)]
            else:
                raise SchemaError("unknown $ref '%s' (nothing at that JSON pointer)" % ref,
                                  self.pointer(n) + "/" + keyword)
            path.append(_escape_pointer(token))
            if isinstance(value, dict) and isinstance(value.get("$id"), str):
                base = _urljoin(base, value["$id"])
        if not isinstance(value, (dict, bool)):
            raise SchemaError("$ref '%s' does not point to a schema" % ref, self.pointer(n) + "/" + keyword)
        if isinstance(value, dict) and id(value) in self.node_of:
            return self.node_of[id(value)]
        return self.add(value, root, "/".join(path), base)


def _urljoin(base: str, ref: str) -> str:
    """RFC 3986 reference resolution, also for non-hierarchical schemes (urn:, tag:)."""
    from urllib.parse import urljoin, urlsplit

    if not base:
        return ref
    if ref.startswith("#"):
        return base.partition("#")[0] + ref
    if urlsplit(ref).scheme:
        return ref
    scheme = urlsplit(base).scheme
    if scheme and scheme not in ("http", "https", "file", "ftp"):
        # urljoin does not resolve against unknown schemes: do it as for a path
        joined = urljoin("http://x/" + base.partition(":")[2], ref)
        return scheme + ":" + joined[len("http://x/"):]
    return urljoin(base, ref)


def _unquote(s: str) -> str:
    from urllib.parse import unquote

    return unquote(s)


# ================================================================ regex building blocks

_NEEDS_QUOTE = sum(1 << b for b in range(0x20)) | (1 << 0x22) | (1 << 0x5C) | (1 << 0x7F)
_SHORT_ESCAPES = {0x22: '"', 0x5C: "\\", 0x08: "b", 0x0C: "f", 0x0A: "n", 0x0D: "r", 0x09: "t"}
_HEX = "0123456789abcdef"


class _Regexes:
    """The regular expressions JSON needs, built once per ExprSet and option set.

    Texts of scalar values: `null`, `true|false`, numbers (`D`: plain decimals, `E`: with
    an exponent), and strings — as regexes over the *decoded* string, quoted at the end.
    """

    def __init__(self, es: ExprSet, allowed_escapes: str) -> None:
        self.es = es
        self.allowed = allowed_escapes
        c = compile_pattern
        self.anychar = c(es, "(?s:.)")
        self.any_string = es.star(self.anychar)  # Σ_u*: valid UTF-8
        self.digit = es.byte_range(0x30, 0x39)
        self.digits = es.star(self.digit)
        self.nonzero = es.byte_range(0x31, 0x39)
        self.null = es.literal(b"null")
        self.true = es.literal(b"true")
        self.false = es.literal(b"false")
        self.uint = c(es, "0|[1-9][0-9]*")
        self.integer = c(es, "-?(?:0|[1-9][0-9]*)")
        self.opt_frac = c(es, r"(?:\.[0-9]+)?")
        self.decimal = c(es, r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")
        self.number = c(es, r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
        self.canonical = c(es, r"0|-?[1-9][0-9]*|-?(?:0|[1-9][0-9]*)\.[0-9]*[1-9]")
        self._quoted: Dict[int, int] = {}
        self._general_unit: Optional[int] = None
        self._escape = self._escapes_of(ALL_BYTES_MASK)

    # -- quoting --------------------------------------------------------------------------

    def _escapes_of(self, mask: int) -> int:
        """The escape sequences (after nothing: they start with a backslash) of the bytes
        of `mask` that JSON must escape, as llguidance's JsonQuote allows them: short
        escapes from `allowed`; with `u`, `\\u00XX` for control characters and DEL."""
        es = self.es
        short = 0
        lows = {"0": 0, "1": 0, "7": 0}
        for b in range(0x80):
            if not (mask >> b) & 1 or not (_NEEDS_QUOTE >> b) & 1:
                continue
            letter = _SHORT_ESCAPES.get(b)
            if letter is not None and letter in self.allowed:
                short |= 1 << ord(letter)
            if "u" in self.allowed and (b < 0x20 or b == 0x7F):
                hi, lo = _HEX[b >> 4], _HEX[b & 15]
                lows[hi] |= (1 << ord(lo)) | (1 << ord(lo.upper()))
        u_parts = [es.concat(es.literal(hi.encode()), es.byte_set(m)) for hi, m in lows.items() if m]
        alts = [es.byte_set(short)]
        if u_parts:
            alts.append(es.concat(es.literal(b"u00"), es.union(*u_parts)))
        rest = es.union(*alts)
        return es.NOTHING if rest == es.NOTHING else es.concat(es.literal(b"\\"), rest)

    def quote(self, e: int) -> int:
        """`"` + every JSON encoding of the decoded strings of `e` + `"`.

        A homomorphism on the expression: each byte set maps to its raw bytes and the
        escapes of the bytes that need one. Since decoding is a function (the escapes
        form a prefix code and raw bytes never start one), it commutes with `|`, `&`,
        concatenation and repetition; the complement maps to the complement within all
        encodings.
        """
        es = self.es
        memo = self._quoted
        stack = [(e, False)]
        nodes = es.nodes
        from ..regex.exprs import AND, BYTES, CONCAT, NOT, OR, REPEAT
        while stack:
            x, ready = stack.pop()
            if x in memo:
                continue
            node = nodes[x]
            kind = node[0]
            kids = es.children(x) if kind != NOT or node[1] != es.NOTHING else ()
            if not ready and any(k not in memo for k in kids):
                stack.append((x, True))
                stack.extend((k, False) for k in kids if k not in memo)
                continue
            if x in (es.NOTHING, es.EPSILON):
                r = x
            elif kind == BYTES:
                mask = node[1]
                raw = es.byte_set(mask & ~_NEEDS_QUOTE)
                quoted = mask & _NEEDS_QUOTE
                r = es.union(raw, self._escapes_of(quoted)) if quoted else raw
            elif kind == CONCAT:
                r = es.concat(memo[node[1]], memo[node[2]])
            elif kind == OR:
                r = es.union(*[memo[k] for k in node[1]])
            elif kind == AND:
                r = es.intersection(*[memo[k] for k in node[1]])
            elif kind == REPEAT:
                r = es.repeat(memo[node[1]], node[2], node[3])
            elif kind == NOT:
                everything = self.all_encodings()
                r = everything if node[1] == es.NOTHING else \
                    es.intersection(everything, es.complement(memo[node[1]]))
            else:  # pragma: no cover
                raise AssertionError(kind)
            memo[x] = r
        q = es.literal(b'"')
        return es.concat(q, memo[e], q)

    def all_encodings(self) -> int:
        es = self.es
        return es.star(es.union(es.byte_set(ALL_BYTES_MASK & ~_NEEDS_QUOTE), self._escape))

    # -- \\uXXXX escapes for any character (llguidance's general Unicode escapes) ----------

    def general_unit(self) -> int:
        """One encoded character when general `\\uXXXX` escapes are allowed."""
        if self._general_unit is None:
            self._general_unit = self._make_general_unit()
        return self._general_unit

    def _make_general_unit(self) -> int:
        short = "".join(re.escape(c) for c in "nrbtf\\\"" if c in self.allowed)
        parts = [r'[^"\\\x00-\x1F\x7F]']
        if short:
            parts.append(r"\\[%s]" % short)
        if "u" in self.allowed:
            parts.append(r"\\u(?:[0-9a-ce-fA-CE-F][0-9a-fA-F]{3}|[dD][0-7][0-9a-fA-F]{2}"
                         r"|[dD][89aAbB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})")
        return compile_pattern(self.es, "|".join(parts))

    def general_literal(self, s: str) -> int:
        """Every encoding of the string `s` with general escapes allowed."""
        es = self.es
        parts = []
        for ch in s:
            cp = ord(ch)
            alts = []
            if not (cp < 0x20 or ch in '"\\' or cp == 0x7F):
                alts.append(es.literal(ch.encode("utf-8")))
            letter = _SHORT_ESCAPES.get(cp)
            if letter is not None and letter in self.allowed:
                alts.append(es.literal(("\\" + letter).encode()))
            if "u" in self.allowed:
                units = [cp] if cp < 0x10000 else [0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)]
                alts.append(es.concat(*[
                    es.concat(es.literal(b"\\u"), *[
                        compile_pattern(es, "(?i)%s" % h) if h.isalpha() else es.literal(h.encode())
                        for h in "%04x" % u]) for u in units]))
            parts.append(es.union(*alts))
        return es.concat(*parts)

    # -- numbers --------------------------------------------------------------------------

    def lit(self, s: str) -> int:
        return self.es.literal(s.encode())

    def digit_range(self, lo: int, hi: int) -> int:
        return self.es.byte_range(0x30 + lo, 0x30 + hi) if lo <= hi else self.es.NOTHING

    def _same_length(self, s: str, greater: bool) -> int:
        """Digit strings of len(s) that are >= s (greater) or <= s, lexicographically."""
        es = self.es
        n = len(s)
        alts = [self.lit(s)]
        for i in range(n):
            d = int(s[i])
            rng = self.digit_range(d + 1, 9) if greater else self.digit_range(0, d - 1)
            if rng != es.NOTHING:
                alts.append(es.concat(self.lit(s[:i]), rng, es.repeat(self.digit, n - i - 1, n - i - 1)))
        return es.union(*alts)

    def _between_same_length(self, lo: str, hi: str) -> int:
        """Digit strings w with len(w) == len(lo) == len(hi) and lo <= w <= hi."""
        es = self.es
        n = len(lo)
        i = 0
        while i < n and lo[i] == hi[i]:
            i += 1
        if i == n:
            return self.lit(lo)
        rest = n - i - 1
        a, b = int(lo[i]), int(hi[i])
        return es.concat(self.lit(lo[:i]), es.union(
            es.concat(self.lit(lo[i]), self._same_length(lo[i + 1:], True)),
            es.concat(self.digit_range(a + 1, b - 1), es.repeat(self.digit, rest, rest)),
            es.concat(self.lit(hi[i]), self._same_length(hi[i + 1:], False)),
        ))

    def uint_range(self, lo: int, hi: Optional[int], limits: Limits) -> int:
        """Canonical texts (no leading zeros) of the integers lo..hi (hi None: unbounded)."""
        es = self.es
        if lo < 0:
            lo = 0
        if hi is not None and hi < lo:
            return es.NOTHING
        alts = []
        if lo == 0:
            alts.append(self.lit("0"))
            lo = 1
            if hi is not None and hi < 1:
                return alts[0]
        low_len = len(str(lo))
        high_len = len(str(hi)) if hi is not None else low_len
        if high_len > limits.repeat_bound:
            raise LimitError("repeat_bound", limits.repeat_bound, "digits of a numeric bound")
        for n in range(low_len, high_len + 1):
            a = max(lo, 10 ** (n - 1))
            b = 10 ** n - 1 if hi is None else min(hi, 10 ** n - 1)
            if a <= b:
                alts.append(self._between_same_length(str(a), str(b)))
        if hi is None:
            alts.append(es.concat(self.nonzero, es.repeat(self.digit, low_len, None)))
        return es.union(*alts)

    def _frac_at_least(self, f: str, inclusive: bool) -> int:
        """Fraction parts (ε or `.digits`) whose value is >= 0.f (> if not inclusive)."""
        es = self.es
        dot = self.lit(".")
        if not f:
            if inclusive:
                return self.opt_frac
            return es.concat(dot, self.digits, self.nonzero, self.digits)
        alts = []
        for i, ch in enumerate(f):
            d = int(ch)
            if d < 9:
                alts.append(es.concat(self.lit(f[:i]), self.digit_range(d + 1, 9), self.digits))
        tail = self.digits if inclusive else es.concat(self.digits, self.nonzero, self.digits)
        alts.append(es.concat(self.lit(f), tail))
        return es.concat(dot, es.union(*alts))

    def _frac_at_most(self, g: str, inclusive: bool) -> int:
        """Fraction parts (ε or `.digits`) whose value is <= 0.g (< if not inclusive)."""
        es = self.es
        dot = self.lit(".")
        zeros = es.plus(self.lit("0"))
        if not g:
            return es.union(es.EPSILON, es.concat(dot, zeros)) if inclusive else es.NOTHING
        alts = []
        for i, ch in enumerate(g):
            d = int(ch)
            if d > 0:
                alts.append(es.concat(self.lit(g[:i]), self.digit_range(0, d - 1), self.digits))
        for k in range(1, len(g)):
            alts.append(self.lit(g[:k]))
        if inclusive:
            alts.append(es.concat(self.lit(g), es.star(self.lit("0"))))
        return es.union(es.EPSILON, es.concat(dot, es.union(*alts)))

    def _nonnegative(self, lo: Decimal, lo_incl: bool, hi: Optional[Decimal], hi_incl: bool,
                     integer: bool, limits: Limits) -> int:
        """Texts without sign of the values v >= 0 with lo <(=) v <(=) hi."""
        es = self.es
        if integer:
            a = int(lo) if lo == int(lo) and lo_incl else int(lo) + 1
            if hi is None:
                return self.uint_range(a, None, limits)
            b = int(hi) if hi == int(hi) and not hi_incl else int(hi) + 1
            return self.uint_range(a, b - 1, limits)
        A, f = _split_decimal(lo)
        if hi is None:
            return es.union(es.concat(self.lit(str(A)), self._frac_at_least(f, lo_incl)),
                            es.concat(self.uint_range(A + 1, None, limits), self.opt_frac))
        B, g = _split_decimal(hi)
        if A == B:
            return es.concat(self.lit(str(A)), es.intersection(self._frac_at_least(f, lo_incl),
                                                               self._frac_at_most(g, hi_incl)))
        return es.union(
            es.concat(self.lit(str(A)), self._frac_at_least(f, lo_incl)),
            es.concat(self.uint_range(A + 1, B - 1, limits), self.opt_frac),
            es.concat(self.lit(str(B)), self._frac_at_most(g, hi_incl)),
        )

    def interval(self, lo: Optional[Decimal], lo_incl: bool, hi: Optional[Decimal], hi_incl: bool,
                 integer: bool, limits: Limits) -> int:
        """Plain decimal texts (integers only if `integer`) of the values in the interval.

        Every text of such a value is accepted (`1.50` as well as `1.5`); values are
        compared exactly (Decimal). `-0` (value 0) is accepted only where llguidance's
        range regexes accept it: integers with lo < 0 <= hi.
        """
        es = self.es
        if integer:  # integer bounds, inclusive (as llguidance normalizes them)
            if lo is not None:
                lo, lo_incl = Decimal(_ceil(lo) + (1 if not lo_incl and lo == _ceil(lo) else 0)), True
            if hi is not None:
                hi, hi_incl = Decimal(_floor(hi) - (1 if not hi_incl and hi == _floor(hi) else 0)), True
        if lo is not None and hi is not None and (lo > hi or (lo == hi and not (lo_incl and hi_incl))):
            return es.NOTHING
        parts = []
        if hi is None or hi > 0 or (hi == 0 and hi_incl):
            if lo is None or lo < 0:
                parts.append(self._nonnegative(Decimal(0), True, hi, hi_incl, integer, limits))
            else:
                parts.append(self._nonnegative(lo, lo_incl, hi, hi_incl, integer, limits))
        if lo is None or lo < 0:
            if hi is not None and hi < 0:
                nlo, nlo_incl = -hi, hi_incl
            else:  # -0 only for integer ranges [lo, hi] with lo < 0 <= hi (as llguidance)
                nlo, nlo_incl = Decimal(0), integer and lo is not None and hi is not None
            nhi = None if lo is None else -lo
            parts.append(es.concat(self.lit("-"), self._nonnegative(nlo, nlo_incl, nhi, lo_incl, integer, limits)))
        return es.union(*parts)

    def multiple_of(self, m: Decimal, integer: bool, max_states: int) -> Optional[int]:
        """Plain decimal texts whose value is a multiple of m > 0, with at most as many
        fraction digits as m has (integers only if `integer`); None when the
        divisibility automaton has more than `max_states` states (it is converted to a
        regex by state elimination)."""
        c, k = _coefficient(m)
        if integer:  # multiples of m among the integers: multiples of lcm(m, 1)
            c = c // _gcd(c, 10 ** k)
            k = 0
        n_states = c * (k + 3) + 2
        if n_states > max_states:
            return None
        return _multiple_regex(self.es, c, k, integer)


ALL_BYTES_MASK = (1 << 256) - 1


def _floor(d: Decimal) -> int:
    return int(d.to_integral_value(rounding="ROUND_FLOOR"))


def _ceil(d: Decimal) -> int:
    return int(d.to_integral_value(rounding="ROUND_CEILING"))


def _split_decimal(d: Decimal) -> Tuple[int, str]:
    """A non-negative decimal as (integer part, fraction digits without trailing 0s)."""
    i = int(d)
    frac = d - i
    if frac == 0:
        return i, ""
    s = format(frac.normalize(), "f")  # "0.0125"
    return i, s.split(".")[1].rstrip("0")


def _coefficient(m: Decimal) -> Tuple[int, int]:
    """m = c * 10^-k with c a positive integer and k >= 0 minimal."""
    sign, digits, exp = m.normalize().as_tuple()
    c = int("".join(map(str, digits)))
    assert isinstance(exp, int)
    if exp >= 0:
        return c * 10 ** exp, 0
    return c, -exp


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def _multiple_regex(es: ExprSet, c: int, k: int, integer: bool) -> int:
    """Texts `-?(0|[1-9][0-9]*)(\\.[0-9]{1,k})?` whose value x satisfies x * 10^k ≡ 0 mod c.

    At most k fraction digits, as llguidance (whose automaton wants exactly k): enough
    for the canonical text of every multiple of c * 10^-k, and no fraction at all when
    the divisor is an integer. The automaton reads the digits updating the remainder r
    of the number read so far; at the end the k - j fraction digits not written count
    as zeros: accept iff r * 10^(k-j) ≡ 0 mod c. Converted to a regex by state
    elimination. States: I(r) integer part, Z after a leading 0, D(r) just after '.',
    F(r, j) j >= 1 fraction digits read.
    """
    ids: Dict[Tuple[Any, ...], int] = {}
    edges: Dict[Tuple[int, int], int] = {}
    START, FINAL = 0, 1
    todo: List[Tuple[Any, ...]] = []
    fractions = k > 0 and not integer

    def state(key: Tuple[Any, ...]) -> int:
        s = ids.get(key)
        if s is None:
            s = ids[key] = len(ids) + 2
            todo.append(key)
        return s

    def edge(a: int, b: int, e: int) -> None:
        edges[(a, b)] = es.union(edges.get((a, b), es.NOTHING), e)

    def digit(d: int) -> int:
        return es.byte_set(1 << (0x30 + d))

    edge(START, state(("Z",)), digit(0))
    for d in range(1, 10):
        edge(START, state(("I", d % c)), digit(d))
    while todo:
        key = todo.pop()
        s = ids[key]
        kind = key[0]
        if kind == "I":
            r = key[1]
            if (r * 10 ** k) % c == 0:
                edge(s, FINAL, es.EPSILON)
            for d in range(10):
                edge(s, state(("I", (10 * r + d) % c)), digit(d))
            if fractions:
                edge(s, state(("D", r)), es.byte_set(1 << 0x2E))
        elif kind == "Z":
            edge(s, FINAL, es.EPSILON)
            if fractions:
                edge(s, state(("D", 0)), es.byte_set(1 << 0x2E))
        elif kind == "D":
            r = key[1]
            for d in range(10):
                edge(s, state(("F", (10 * r + d) % c, 1)), digit(d))
        else:  # F
            r, j = key[1], key[2]
            if (r * 10 ** (k - j)) % c == 0:
                edge(s, FINAL, es.EPSILON)
            if j < k:
                for d in range(10):
                    edge(s, state(("F", (10 * r + d) % c, j + 1)), digit(d))
    # state elimination (Brzozowski–McCluskey), states in order of fewest paths through
    n = len(ids) + 2
    out: List[Dict[int, int]] = [dict() for _ in range(n)]
    inc: List[Dict[int, int]] = [dict() for _ in range(n)]
    for (a, b), e in edges.items():
        out[a][b] = e
        inc[b][a] = e
    remaining = set(range(2, n))
    while remaining:
        q = min(remaining, key=lambda s: (len(inc[s]) - (s in inc[s])) * (len(out[s]) - (s in out[s])))
        remaining.discard(q)
        loop = out[q].pop(q, None)
        inc[q].pop(q, None)
        star = es.star(loop) if loop is not None else es.EPSILON
        for a, ea in list(inc[q].items()):
            for b, eb in list(out[q].items()):
                e = es.concat(ea, star, eb)
                new = es.union(out[a].get(b, es.NOTHING), e)
                out[a][b] = new
                inc[b][a] = new
        for a in inc[q]:
            out[a].pop(q, None)
        for b in out[q]:
            inc[b].pop(q, None)
        inc[q] = {}
        out[q] = {}
    body = out[START].get(FINAL, es.NOTHING)
    return es.concat(es.union(es.EPSILON, es.literal(b"-")), body)


# ================================================================= patterns and formats


_ECMA_SPACE = (r"\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}"
               r"\x{3000}\x{FEFF}")
_ECMA_CLASSES = {"d": "0-9", "w": "0-9a-zA-Z_", "s": _ECMA_SPACE}


def _ecma_to_rust(pattern: str) -> str:
    """JSON schema patterns are ECMA-262 regexes; rewrite what means something else in
    Rust syntax: `\\d`, `\\w` are ASCII (as llguidance's regex_to_lark "dw" does) and
    `\\s` is ECMA's white space (with U+FEFF, without U+0085); `.` excludes all four
    line terminators; inside a class, `[`, `&` and `~` are literal (Rust would read
    nested classes and set operations).

    >>> _ecma_to_rust(r"^\\d+[.\\w-]$")
    '^[0-9]+[.[0-9a-zA-Z_]-]$'
    """
    out = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            low = d.lower()
            if low in _ECMA_CLASSES:
                body = _ECMA_CLASSES[low]
                out.append("[%s%s]" % ("^" if d != low else "", body))
            else:
                out.append(c + d)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            elif c in "[&~":
                c = "\\" + c
        elif c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":  # ECMA: [] matches nothing, [^] anything
                if out[-1] == "^":
                    out[-1] = r"\x{0}-\x{10FFFF}]"
                else:
                    out.append(r"\x{0}&&[^\x{0}]]")
                in_class = False
                i += 1
            continue
        elif c == ".":
            c = r"[^\n\r\x{2028}\x{2029}]"
        out.append(c)
        i += 1
    return "".join(out)


def _search_expr(es: ExprSet, pattern: str, anything: int) -> int:
    """The strings in which `pattern` matches somewhere (ECMA-262 `test` semantics):
    `Σ* p Σ*`, where an anchor `^` (or `$`) at the start (end) of a branch drops the
    `Σ*` on its side. Raises RegexError for a malformed or unsupported pattern."""
    ast = _syntax.parse(_ecma_to_rust(pattern), limits=es.limits)
    Anchor, Alternation, Concat = _syntax.Anchor, _syntax.Alternation, _syntax.Concat
    values: List[int] = []
    stack: List[Tuple[Any, ...]] = [("eval", ast, True, True)]
    while stack:
        frame = stack.pop()
        if frame[0] == "alt":
            k = frame[1]
            args = values[len(values) - k:]
            del values[len(values) - k:]
            values.append(es.union(*args))
            continue
        if frame[0] == "cat":
            items = frame[1]
            last = values.pop()
            first = values.pop()
            middle = [compile_ast(es, x) for x in items[1:-1]]
            values.append(es.concat(first, *middle, last))
            continue
        _, node, s, e = frame
        if not s and not e:
            values.append(compile_ast(es, node))
            continue
        t = type(node)
        if t is Alternation:
            stack.append(("alt", len(node.items)))
            for item in reversed(node.items):
                stack.append(("eval", item, s, e))
        elif t is Concat and len(node.items) >= 2:
            stack.append(("cat", node.items))
            stack.append(("eval", node.items[-1], False, e))
            stack.append(("eval", node.items[0], s, False))
        elif t is Concat and len(node.items) == 1:
            stack.append(("eval", node.items[0], s, e))
        elif t is Anchor:
            if node.kind in ("^", "\\A"):
                s = False
            else:
                e = False
            values.append(anything if (s or e) else es.EPSILON)
        else:
            core = es.EPSILON if t is Concat else compile_ast(es, node)
            values.append(es.concat(anything if s else es.EPSILON, core, anything if e else es.EPSILON))
    return values[0]


_H16 = r"[0-9A-Fa-f]{1,4}"
_IPV4 = r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_LS32 = r"(?:%s:%s|%s)" % (_H16, _H16, _IPV4)
_IPV6 = "|".join([
    r"(?:%s:){6}%s" % (_H16, _LS32),
    r"::(?:%s:){5}%s" % (_H16, _LS32),
    r"(?:%s)?::(?:%s:){4}%s" % (_H16, _H16, _LS32),
    r"(?:(?:%s:){0,1}%s)?::(?:%s:){3}%s" % (_H16, _H16, _H16, _LS32),
    r"(?:(?:%s:){0,2}%s)?::(?:%s:){2}%s" % (_H16, _H16, _H16, _LS32),
    r"(?:(?:%s:){0,3}%s)?::%s:%s" % (_H16, _H16, _H16, _LS32),
    r"(?:(?:%s:){0,4}%s)?::%s" % (_H16, _H16, _LS32),
    r"(?:(?:%s:){0,5}%s)?::%s" % (_H16, _H16, _H16),
    r"(?:(?:%s:){0,6}%s)?::" % (_H16, _H16),
])
_LEAP_YEAR = r"(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
_DATE = (r"(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
         r"|02-(?:0[1-9]|1[0-9]|2[0-8]))|%s-02-29)" % _LEAP_YEAR)
_OFFSET = r"(?:[zZ]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
_TIME_NO_LEAP = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?" + _OFFSET
_DURATION = (r"P(?:(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)(?:T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?"
             r"|[0-9]+M(?:[0-9]+S)?|[0-9]+S))?|T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)|[0-9]+W)")
_ATEXT = r"[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]"
_EMAIL = (r"(?:%s+(?:\.%s+)*|\x22(?:[\x20\x21\x23-\x5B\x5D-\x7E]|\\[\x20-\x7E])*\x22)@"
          r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
          r"|\[(?:%s|IPv6:(?:%s))\])" % (_ATEXT, _ATEXT, _IPV4, _IPV6))
_A = "[A-Za-z0-9]"
_LDH = "[A-Za-z0-9-]"
# a label of 1..63 letters, digits and hyphens, not starting or ending with a hyphen, and
# without "--" in positions 3-4 (RFC 5891: reserved for A-labels such as xn--, whose
# Punycode a regular language cannot check)
_LABEL = "(?:{A}|{A}{A}|{A}{H}{A}|{A}{H}{H}{A}|{A}{H}(?:{A}{H}|-{A}){H}{{0,58}}{A})".format(A=_A, H=_LDH)
_HOSTNAME = r"%s(?:\.%s)*" % (_LABEL, _LABEL)

_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_UCSCHAR = (r"\x{A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}\x{10000}-\x{1FFFD}\x{20000}-\x{2FFFD}"
            r"\x{30000}-\x{3FFFD}\x{40000}-\x{4FFFD}\x{50000}-\x{5FFFD}\x{60000}-\x{6FFFD}\x{70000}-\x{7FFFD}"
            r"\x{80000}-\x{8FFFD}\x{90000}-\x{9FFFD}\x{A0000}-\x{AFFFD}\x{B0000}-\x{BFFFD}\x{C0000}-\x{CFFFD}"
            r"\x{D0000}-\x{DFFFD}\x{E1000}-\x{EFFFD}")
_IPRIVATE = r"\x{E000}-\x{F8FF}\x{F0000}-\x{FFFFD}\x{100000}-\x{10FFFD}"


def _uri_pattern(iri: bool, reference: bool) -> str:
    """RFC 3986 URI / URI-reference, or RFC 3987 IRI / IRI-reference, as a regex."""
    unres = _UNRESERVED + (_UCSCHAR if iri else "")
    pct = "%[0-9A-Fa-f]{2}"
    pchar = "(?:[%s%s:@]|%s)" % (unres, _SUB_DELIMS, pct)
    seg_nz_nc = "(?:[%s%s@]|%s)+" % (unres, _SUB_DELIMS, pct)
    userinfo = "(?:[%s%s:]|%s)*" % (unres, _SUB_DELIMS, pct)
    reg_name = "(?:[%s%s]|%s)*" % (unres, _SUB_DELIMS, pct)
    ip_future = r"v[0-9A-Fa-f]+\.[%s%s:]+" % (_UNRESERVED, _SUB_DELIMS)
    host = r"(?:\[(?:%s|%s)\]|%s|%s)" % (_IPV6, ip_future, _IPV4, reg_name)
    authority = "(?:%s@)?%s(?::[0-9]*)?" % (userinfo, host)
    abempty = "(?:/%s*)*" % pchar
    absolute = "/(?:%s+(?:/%s*)*)?" % (pchar, pchar)
    rootless = "%s+(?:/%s*)*" % (pchar, pchar)
    noscheme = "%s(?:/%s*)*" % (seg_nz_nc, pchar)
    query = r"(?:\?(?:%s|[/?%s])*)?" % (pchar, _IPRIVATE if iri else "")
    fragment = r"(?:#(?:%s|[/?])*)?" % pchar
    scheme = "[A-Za-z][A-Za-z0-9+\\-.]*"
    uri = "%s:(?://%s%s|%s|%s|)%s%s" % (scheme, authority, abempty, absolute, rootless, query, fragment)
    if not reference:
        return uri
    relative = "(?://%s%s|%s|%s|)%s%s" % (authority, abempty, absolute, noscheme, query, fragment)
    return "(?:%s)|(?:%s)" % (uri, relative)


def _uri_template() -> str:
    """RFC 6570 URI templates (level 4)."""
    pct = "%[0-9A-Fa-f]{2}"
    literal = r"(?:[\x21\x23\x24\x26\x28-\x3B\x3D\x3F-\x5B\x5D\x5F\x61-\x7A\x7E%s%s]|%s)" % (_UCSCHAR, _IPRIVATE, pct)
    varchar = "(?:[A-Za-z0-9_]|%s)" % pct
    varspec = r"%s(?:\.?%s)*(?::[1-9][0-9]{0,3}|\*)?" % (varchar, varchar)
    expression = r"\{[+#./;?&=,!@|]?%s(?:,%s)*\}" % (varspec, varspec)
    return "(?:%s|%s)*" % (literal, expression)


#: format name -> Rust regex of the decoded string (None: built by code)
_FORMATS: Dict[str, Optional[str]] = {
    "date": _DATE,
    "time": None,
    "date-time": None,
    "duration": _DURATION,
    "email": _EMAIL,
    "hostname": None,
    "ipv4": _IPV4,
    "ipv6": _IPV6,
    "uuid": r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}",
    "uri": _uri_pattern(False, False),
    "uri-reference": _uri_pattern(False, True),
    "iri": _uri_pattern(True, False),
    "iri-reference": _uri_pattern(True, True),
    "uri-template": _uri_template(),
    "json-pointer": r"(?:/(?:[^/~]|~[01])*)*",
    "relative-json-pointer": r"(?:0|[1-9][0-9]*)(?:#|(?:/(?:[^/~]|~[01])*)*)",
    "unknown": r"(?s:.*)",  # llguidance's: the format named "unknown" allows any string
}

#: formats that no regular language states exactly (why, for the error message)
_UNSUPPORTED_FORMATS = {
    "idn-hostname": "IDNA2008 labels need Punycode decoding and contextual rules",
    "idn-email": "internationalized domains need IDNA2008 checks",
    "regex": "regex syntax (balanced parentheses) is not a regular language",
}


def _format_expr(es: ExprSet, name: str) -> Optional[int]:
    """The decoded strings of a format, or None for a format not supported."""
    if name not in _FORMATS:
        return None
    pattern = _FORMATS[name]
    if pattern is not None:
        e = compile_pattern(es, pattern)
    elif name == "hostname":  # at most 253 characters in all (RFC 1123 with 1034)
        e = es.intersection(compile_pattern(es, _HOSTNAME), compile_pattern(es, "(?s:.{1,253})"))
    else:
        time = _time_expr(es)
        e = time if name == "time" else es.concat(compile_pattern(es, _DATE + "[tT]"), time)
    return e


def _time_expr(es: ExprSet) -> int:
    """RFC 3339 full-time. A leap second (:60) is valid only at 23:59 UTC, so its local
    time must equal 23:59 plus the offset: one branch per local minute."""
    frac = compile_pattern(es, r"(?:\.[0-9]+)?")
    branches = [compile_pattern(es, _TIME_NO_LEAP)]
    utc = 23 * 60 + 59
    for local in range(24 * 60):
        plus = (local - utc) % 1440
        minus = (utc - local) % 1440
        offsets = [es.literal(("+%02d:%02d" % divmod(plus, 60)).encode()),
                   es.literal(("-%02d:%02d" % divmod(minus, 60)).encode())]
        if local == utc:
            offsets.append(es.byte_set((1 << ord("z")) | (1 << ord("Z"))))
        branches.append(es.concat(es.literal(("%02d:%02d:60" % divmod(local, 60)).encode()), frac,
                                  es.union(*offsets)))
    return es.union(*branches)


# ============================================================================== compiler

NONE, PARTIAL, ALL = 0, 1, 2  # how much of a container type a subschema allows

_CONTAINER_KEYWORDS = {
    "array": ("items", "prefixItems", "additionalItems", "minItems", "maxItems", "contains",
              "uniqueItems", "unevaluatedItems"),
    "object": ("properties", "required", "additionalProperties", "patternProperties", "propertyNames",
               "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
               "dependencies", "unevaluatedProperties"),
}
_UNEVALUATED = {"array": "unevaluatedItems", "object": "unevaluatedProperties"}

Atom = Tuple[int, bool, Tuple[int, ...]]  # (node, negated, unevaluated-scope)


_NEGATION = "its negation (needed by not, if/else or oneOf) is not expressible"


class _Unsupported(Exception):
    """A keyword that cannot be enforced exactly (raised inside; reported by the caller)."""

    def __init__(self, keyword: str, pointer: str, reason: str) -> None:
        super().__init__(reason)
        self.keyword, self.pointer, self.reason = keyword, pointer, reason


def _trivial(value: Any) -> bool:
    """Is this schema `true` or a dict with no constraining keyword of its own?"""
    if value is True:
        return True
    if not isinstance(value, dict):
        return False
    return all(k in _ANNOTATIONS or k not in _KNOWN for k in value)


def _and(values: Sequence[int]) -> int:
    out = ALL
    for v in values:
        if v == NONE:
            return NONE
        if v == PARTIAL:
            out = PARTIAL
    return out


def _or(values: Sequence[int]) -> int:
    out = NONE
    for v in values:
        if v == ALL:
            return ALL
        if v == PARTIAL:
            out = PARTIAL
    return out


class _Scalars(NamedTuple):
    """The scalar values a schema allows: null?, which booleans, number texts, decoded
    strings (the last two as expressions)."""

    null: bool
    booleans: FrozenSet[bool]
    number: int
    string: int


class _Compiler:
    def __init__(self, ir: GrammarIR, index: _Index, options: Dict[str, Any], lexeme_class: int) -> None:
        self.ir = ir
        self.es = es = ir.es
        self.limits = ir.limits
        self.index = index
        self.nodes = index.nodes
        self.opts = options
        self.lenient = bool(options["lenient"])
        self.cls = lexeme_class
        self.rx = rx = _Regexes(es, options["json_allowed_escapes"])
        self.universe = _Scalars(True, frozenset((True, False)), rx.number, rx.any_string)
        self.nothing = _Scalars(False, frozenset(), es.NOTHING, es.NOTHING)
        self.ignored: List[IgnoredKeyword] = []
        self._ignored_keys: Set[Tuple[str, str]] = set()
        self._profiles: Dict[Tuple[int, str], int] = {}
        self._scalars: Dict[int, _Scalars] = {}
        self._negations: Dict[Tuple[int, str], int] = {}
        self._consts: Dict[int, int] = {}
        self._dependencies: Dict[Tuple[int, str, str, str], int] = {}
        self._patterns: Dict[str, int] = {}
        self._lexemes: Dict[Tuple[str, int], int] = {}
        self._key_exprs: Dict[Tuple[int, Tuple[str, ...], bool], int] = {}
        self._sep_items: Dict[int, int] = {}
        self.node_reasons: Dict[int, Tuple[str, str]] = {}
        self.value_nts: Dict[Tuple[Atom, ...], int] = {}
        self.container_nts: Dict[Tuple[Any, ...], int] = {}
        self.reasons: Dict[int, Tuple[str, str]] = {}
        self.required_of: Dict[int, List[Tuple[str, int, int]]] = {}
        self.value_atoms: Dict[int, Tuple[Atom, ...]] = {}
        self.todo: List[Tuple[Any, ...]] = []
        self.first_rule = len(ir.rules)
        self.first_name = len(ir.names)

    # -- reporting ------------------------------------------------------------------------

    def unsupported(self, keyword: str, pointer: str, reason: str) -> None:
        """A keyword that cannot be enforced exactly: SchemaError, or (lenient) noted."""
        if not self.lenient:
            raise SchemaError("%s cannot be enforced exactly: %s (pass lenient=True to ignore it)"
                              % (keyword, reason), pointer)
        if (keyword, pointer) not in self._ignored_keys:
            self._ignored_keys.add((keyword, pointer))
            self.ignored.append(IgnoredKeyword(keyword, pointer, reason))

    def ptr(self, n: int, keyword: str = "") -> str:
        p = self.index.pointer(n)
        return p + "/" + _escape_pointer(keyword) if keyword else p

    # -- lexemes ----------------------------------------------------------------------------

    def lexeme(self, name: str, expr: int) -> int:
        return self.ir.add_lexeme(name, expr, lexeme_class=self.cls)

    def literal(self, text: str) -> int:
        return self.lexeme(json.dumps(text, ensure_ascii=False), self.es.literal(text.encode("utf-8")))

    def separator(self, which: str) -> int:
        pattern = self.opts[which]
        key = (which, 0)
        sym = self._lexemes.get(key)
        if sym is None:
            try:
                expr = compile_pattern(self.es, pattern)
            except RegexError as e:
                raise SchemaError("invalid %s regex %r: %s" % (which, pattern, e.message), "/x-guidance/" + which) from None
            name = json.dumps(pattern) if self.es.literal(pattern.encode()) == expr else "/%s/" % pattern
            sym = self._lexemes[key] = self.lexeme(name, expr)
        return sym

    # -- in-place structure ---------------------------------------------------------------

    def value(self, n: int) -> Any:
        return self.nodes[n].value

    def child(self, n: int, value: Any) -> int:
        """The node of a subschema value found inside node n."""
        if value is True:
            return _TRUE
        if value is False:
            return _FALSE
        got = self.index.node_of.get(id(value))
        if got is None:
            raise SchemaError("schema must be an object or boolean, got %s" % _short(value), self.ptr(n))
        return got

    def ref_target(self, n: int, keyword: str) -> int:
        v = self.value(n)
        ref = v[keyword]
        if not isinstance(ref, str):
            raise SchemaError("%s must be a string, got %s" % (keyword, _short(ref)), self.ptr(n, keyword))
        target = self.index.resolve(ref, n, keyword)
        if keyword == "$dynamicRef":
            # dynamic only if the fragment names the $dynamicAnchor of the target; then
            # the outermost resource of the dynamic scope defining it wins, which is
            # static when one resource defines it
            tv = self.value(target)
            fragment = ref.partition("#")[2]
            anchor = tv.get("$dynamicAnchor") if isinstance(tv, dict) else None
            if anchor is not None and anchor == fragment and len(self.index.dynamic_anchors(anchor)) > 1:
                raise _Unsupported("$dynamicRef", self.ptr(n, keyword),
                                   "the dynamic anchor '%s' is defined in several schema resources, so the "
                                   "target depends on the dynamic scope" % anchor)
        return target

    def list_of(self, n: int, keyword: str) -> List[int]:
        items = self.value(n)[keyword]
        if not isinstance(items, list):
            raise SchemaError("%s must be an array" % keyword, self.ptr(n, keyword))
        if not items and keyword in ("allOf", "anyOf", "oneOf"):
            raise SchemaError("%s must be a non-empty array" % keyword, self.ptr(n, keyword))
        return [self.child(n, x) for x in items]

    def inplace(self, n: int) -> List[Tuple[str, List[int]]]:
        """The in-place applicators of node n: (keyword, subschema nodes), in key order."""
        v = self.value(n)
        if not isinstance(v, dict):
            return []
        out = []
        for key in v:
            if key in ("allOf", "anyOf", "oneOf"):
                out.append((key, self.list_of(n, key)))
            elif key == "not":
                out.append((key, [self.child(n, v[key])]))
            elif key in ("$ref", "$dynamicRef"):
                try:
                    out.append(("$ref", [self.ref_target(n, key)]))
                except _Unsupported as e:
                    self.unsupported(e.keyword, e.pointer, e.reason)
            elif key == "$recursiveRef":
                self.unsupported(key, self.ptr(n, key), "draft 2019-09 recursive references are not supported")
            elif key == "if":
                kids = [self.child(n, v["if"])]
                kids.append(self.child(n, v["then"]) if "then" in v else _TRUE)
                kids.append(self.child(n, v["else"]) if "else" in v else _TRUE)
                out.append(("if", kids))
        return out

    def types(self, n: int) -> Optional[Set[str]]:
        v = self.value(n)
        t = v.get("type") if isinstance(v, dict) else None
        if t is None:
            return None
        names = [t] if isinstance(t, str) else t
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
            raise SchemaError("type must be a string or an array of strings", self.ptr(n, "type"))
        for x in names:
            if x not in _TYPES and x != "integer":
                raise SchemaError("unknown type '%s'" % x, self.ptr(n, "type"))
        return set(names)

    def _fold(self, root: int, memo: Dict[Any, Any], key: Any, combine: Any, on_cycle: Any) -> Any:
        """Evaluate `combine(n, kids_value)` bottom-up over the in-place applicators of
        `root` (post-order, explicit stack). `key(n)` is the memo key; a node met again
        while in progress gets `on_cycle(n)`."""
        stack = [(root, False)]
        in_progress: Set[int] = set()
        while stack:
            n, ready = stack.pop()
            k = key(n)
            if k in memo:
                continue
            if not ready:
                if n in in_progress:
                    continue
                in_progress.add(n)
                stack.append((n, True))
                for _, kids in self.inplace(n):
                    for c in kids:
                        if key(c) not in memo and c not in in_progress:
                            stack.append((c, False))
                continue
            in_progress.discard(n)

            def get(c: int) -> Any:
                kc = key(c)
                if kc in memo:
                    return memo[kc]
                return on_cycle(c)

            memo[k] = combine(n, get)
        return memo[key(root)]

    # -- profiles: does a schema allow all, some or no arrays (objects)? ---------------------

    def profile(self, n: int, T: str) -> int:
        got = self._profiles.get((n, T))
        if got is not None:
            return got

        def combine(m: int, get: Any) -> int:
            v = self.value(m)
            if v is True:
                return ALL
            if v is False:
                return NONE
            parts = [self._own_profile(m, T)]
            for kw, kids in self.inplace(m):
                vals = [get(c) for c in kids]
                if kw in ("allOf", "$ref"):
                    parts.append(_and(vals))
                elif kw == "anyOf":
                    parts.append(_or(vals))
                elif kw == "oneOf":
                    if PARTIAL in vals:
                        parts.append(PARTIAL)
                    else:
                        parts.append(ALL if vals.count(ALL) == 1 else NONE)
                elif kw == "not":
                    parts.append(ALL - vals[0])
                else:  # if / then / else
                    i, t, e = vals
                    parts.append(t if i == ALL else e if i == NONE else (t if t == e and t != PARTIAL else PARTIAL))
            return _and(parts)

        return self._fold(n, self._profiles, lambda m: (m, T), combine, lambda m: PARTIAL)

    def _own_profile(self, n: int, T: str) -> int:
        v = self.value(n)
        types = self.types(n)
        if types is not None and T not in types:
            return NONE
        if "const" in v and _json_type(v["const"]) != T:
            return NONE
        if "enum" in v:
            values = v["enum"]
            if not isinstance(values, list):
                raise SchemaError("enum must be an array", self.ptr(n, "enum"))
            if not any(_json_type(x) == T for x in values):
                return NONE
            return PARTIAL
        if "const" in v:
            return PARTIAL
        for key in _CONTAINER_KEYWORDS[T]:
            if key not in v:
                continue
            x = v[key]
            if key in ("properties", "patternProperties", "dependentSchemas"):
                if isinstance(x, dict) and all(_trivial(s) for s in x.values()):
                    continue
            elif key == "prefixItems" or (key == "items" and isinstance(x, list)):
                if isinstance(x, list) and all(_trivial(s) for s in x):
                    continue
            elif key in ("required", "dependentRequired", "dependencies"):
                if not x:
                    continue
            elif key in ("minItems", "minProperties"):
                if x == 0:
                    continue
            elif key == "uniqueItems":
                if x is False:
                    continue
            elif key == "contains":
                if v.get("minContains", 1) == 0 and "maxContains" not in v and "unevaluatedItems" not in v:
                    continue
            elif key in ("maxItems", "maxProperties"):
                pass
            elif key == "additionalItems":
                if not isinstance(v.get("items"), list) or _trivial(x):
                    continue
            elif _trivial(x):
                continue
            return PARTIAL
        return ALL

    def atoms_profile(self, atoms: Sequence[Atom], T: str) -> int:
        return _and([(ALL - self.profile(n, T)) if neg else self.profile(n, T) for n, neg, _ in atoms])

    # -- scalars: the null / boolean / number / string values of a schema, exactly ---------

    def s_and(self, a: _Scalars, b: _Scalars) -> _Scalars:
        return _Scalars(a.null and b.null, a.booleans & b.booleans,
                        self._x_and(a.number, b.number, self.rx.number),
                        self._x_and(a.string, b.string, self.rx.any_string))

    def s_or(self, a: _Scalars, b: _Scalars) -> _Scalars:
        es = self.es
        return _Scalars(a.null or b.null, a.booleans | b.booleans,
                        self.rx.number if self.rx.number in (a.number, b.number) else es.union(a.number, b.number),
                        self.rx.any_string if self.rx.any_string in (a.string, b.string) else es.union(a.string, b.string))

    def s_not(self, a: _Scalars) -> _Scalars:
        es, rx = self.es, self.rx
        if a.number == es.NOTHING:
            number = rx.number
        elif a.number == rx.number:
            number = es.NOTHING
        else:  # within canonical texts, so that no value of `a` comes back in another form
            number = self._x_and(rx.canonical, es.complement(a.number), None)
        if a.string == es.NOTHING:
            string = rx.any_string
        elif a.string == rx.any_string:
            string = es.NOTHING
        else:
            string = self._x_and(rx.any_string, es.complement(a.string), None)
        return _Scalars(not a.null, frozenset((True, False)) - a.booleans, number, string)

    def _x_and(self, a: int, b: int, universe: Optional[int]) -> int:
        es = self.es
        if a == b or b == universe:
            return a
        if a == universe:
            return b
        if es.NOTHING in (a, b):
            return es.NOTHING
        return es.intersection(a, b)

    def scalars(self, n: int) -> _Scalars:
        got = self._scalars.get(n)
        if got is not None:
            return got

        def on_cycle(m: int) -> _Scalars:
            raise SchemaError("circular in-place references (a subschema that applies to the same "
                              "value as itself through $ref/allOf/anyOf...) have no meaning", self.ptr(m))

        def combine(m: int, get: Any) -> _Scalars:
            v = self.value(m)
            if v is True:
                return self.universe
            if v is False:
                return self.nothing
            s = self._own_scalars(m)
            for kw, kids in self.inplace(m):
                vals = [get(c) for c in kids]
                if kw in ("allOf", "$ref"):
                    for x in vals:
                        s = self.s_and(s, x)
                elif kw == "anyOf":
                    acc = vals[0]
                    for x in vals[1:]:
                        acc = self.s_or(acc, x)
                    s = self.s_and(s, acc)
                elif kw == "oneOf":
                    s = self.s_and(s, self._exactly_one(vals))
                elif kw == "not":
                    s = self.s_and(s, self.s_not(vals[0]))
                else:
                    i, t, e = vals
                    s = self.s_and(s, self.s_or(self.s_and(i, t), self.s_and(self.s_not(i), e)))
            return s

        return self._fold(n, self._scalars, lambda m: m, combine, on_cycle)

    def _exactly_one(self, vals: List[_Scalars]) -> _Scalars:
        out = self.nothing
        for i, x in enumerate(vals):
            others = self.nothing
            for j, y in enumerate(vals):
                if j != i:
                    others = self.s_or(others, y)
            out = self.s_or(out, self.s_and(x, self.s_not(others)))
        return out

    def _own_scalars(self, n: int) -> _Scalars:
        """The scalars node n allows by its own keywords (not its applicators)."""
        v = self.value(n)
        es, rx = self.es, self.rx
        types = self.types(n)
        integer_only = types is not None and "integer" in types and "number" not in types
        null = types is None or "null" in types
        booleans = frozenset((True, False)) if types is None or "boolean" in types else frozenset()
        if types is None or "number" in types:
            number = rx.number
        elif "integer" in types:
            number = rx.integer
        else:
            number = es.NOTHING
        string = rx.any_string if types is None or "string" in types else es.NOTHING
        if number != es.NOTHING:
            number = self._x_and(number, self._own_number(n, v, integer_only), rx.number)
        if string != es.NOTHING:
            string = self._x_and(string, self._own_string(n, v), rx.any_string)
        s = _Scalars(null, booleans, number, string)
        if "const" in v:
            s = self.s_and(s, self._literal_scalars(n, [v["const"]]))
        if "enum" in v:
            values = v["enum"]
            if not isinstance(values, list):
                raise SchemaError("enum must be an array", self.ptr(n, "enum"))
            s = self.s_and(s, self._literal_scalars(n, values))
        return s

    def _literal_scalars(self, n: int, values: List[Any]) -> _Scalars:
        """The scalars among enum/const values (arrays and objects are rules)."""
        es = self.es
        null = False
        booleans: Set[bool] = set()
        numbers: Set[str] = set()
        strings: Set[bytes] = set()
        for x in values:
            if x is None:
                null = True
            elif isinstance(x, bool):
                booleans.add(x)
            elif _is_number(x):
                numbers.add(_number_text(x))
            elif isinstance(x, str):
                strings.add(x.encode("utf-8"))
        return _Scalars(null, frozenset(booleans), _literal_union(es, [t.encode() for t in numbers]),
                        _literal_union(es, list(strings)))

    def _number(self, n: int, v: Dict[str, Any], key: str) -> Optional[Decimal]:
        if key not in v:
            return None
        x = v[key]
        if not _is_number(x):
            raise SchemaError("%s must be a number, got %s" % (key, _short(x)), self.ptr(n, key))
        return _decimal(x)

    def _count(self, n: int, v: Dict[str, Any], key: str) -> Optional[int]:
        """A non-negative integer keyword (2.0 counts as 2)."""
        if key not in v:
            return None
        x = v[key]
        if _is_number(x) and _decimal(x) >= 0 and _decimal(x) == int(_decimal(x)):
            return int(_decimal(x))
        raise SchemaError("%s must be a non-negative integer, got %s" % (key, _short(x)), self.ptr(n, key))

    def _own_number(self, n: int, v: Dict[str, Any], integer_only: bool) -> int:
        es, rx = self.es, self.rx
        lo, lo_incl = self._number(n, v, "minimum"), True
        hi, hi_incl = self._number(n, v, "maximum"), True
        for key, is_lo in (("exclusiveMinimum", True), ("exclusiveMaximum", False)):
            if key not in v:
                continue
            x = v[key]
            if isinstance(x, bool):  # draft 4: a flag on minimum / maximum
                if x:
                    if is_lo:
                        lo_incl = False
                    else:
                        hi_incl = False
                continue
            d = self._number(n, v, key)
            assert d is not None
            if is_lo and (lo is None or d >= lo):
                lo, lo_incl = d, False
            if not is_lo and (hi is None or d <= hi):
                hi, hi_incl = d, False
        result = rx.number
        if lo is not None or hi is not None:
            if lo is not None and hi is not None and (lo > hi or (lo == hi and not (lo_incl and hi_incl))):
                self.node_reasons.setdefault(n, (
                    "%s (%s) is greater than %s (%s)" % ("minimum" if lo_incl else "exclusiveMinimum", _number_text(lo),
                                                          "maximum" if hi_incl else "exclusiveMaximum", _number_text(hi))
                    if lo > hi else "the interval %s%s, %s%s is empty" % (
                        "[" if lo_incl else "(", _number_text(lo), _number_text(hi), "]" if hi_incl else ")"),
                    self.ptr(n)))
                return es.NOTHING
            result = rx.interval(lo, lo_incl, hi, hi_incl, integer_only, self.limits)
            if integer_only and result == es.NOTHING:
                self.node_reasons.setdefault(n, ("integer interval %s%s, %s%s contains no integer values" % (
                    "[" if lo_incl else "(", _number_text(lo) if lo is not None else "-inf",
                    _number_text(hi) if hi is not None else "inf", "]" if hi_incl else ")"), self.ptr(n)))
        if "multipleOf" in v:
            m = self._number(n, v, "multipleOf")
            assert m is not None
            if m <= 0:
                raise SchemaError("multipleOf must be greater than 0", self.ptr(n, "multipleOf"))
            mult = rx.multiple_of(m, integer_only, _MAX_MULTIPLE_OF_STATES)
            if mult is None and lo is not None and hi is not None:
                mult = self._multiples_in(m, lo, hi, integer_only)
            if mult is None:
                self.unsupported("multipleOf", self.ptr(n, "multipleOf"),
                                 "divisibility by %s needs an automaton of more than %d states"
                                 % (_number_text(m), _MAX_MULTIPLE_OF_STATES))
            else:
                result = self._x_and(result, mult, rx.number)
        return result

    def _multiples_in(self, m: Decimal, lo: Decimal, hi: Decimal, integer: bool) -> Optional[int]:
        """The canonical texts of the multiples of m in [lo, hi], when there are few."""
        first = (lo / m).to_integral_value(rounding="ROUND_CEILING")
        last = (hi / m).to_integral_value(rounding="ROUND_FLOOR")
        if last - first > _MAX_MULTIPLE_OF_STATES:
            return None
        texts = []
        k = first
        while k <= last:
            x = k * m
            if not integer or x == int(x):
                texts.append(_number_text(x).encode())
            k += 1
        return _literal_union(self.es, texts)

    def _own_string(self, n: int, v: Dict[str, Any]) -> int:
        es, rx = self.es, self.rx
        result = rx.any_string
        lo = self._count(n, v, "minLength")
        hi = self._count(n, v, "maxLength")
        if lo or hi is not None:
            lo = lo or 0
            if hi is not None and lo > hi:
                self.node_reasons.setdefault(n, ("minLength (%d) is greater than maxLength (%d)" % (lo, hi), self.ptr(n)))
                return es.NOTHING
            for bound in (lo, hi):
                if bound is not None and bound > self.limits.repeat_bound:
                    raise LimitError("repeat_bound", self.limits.repeat_bound, "string length bound")
            result = es.repeat(rx.anychar, lo, hi)
        if "pattern" in v:
            pattern = v["pattern"]
            if not isinstance(pattern, str):
                raise SchemaError("pattern must be a string", self.ptr(n, "pattern"))
            e = self.pattern(pattern, n, "pattern")
            if e is not None:
                result = self._x_and(result, e, rx.any_string)
        if "format" in v:
            name = v["format"]
            if not isinstance(name, str):
                raise SchemaError("format must be a string", self.ptr(n, "format"))
            e = _format_expr(es, name)
            if e is None:
                reason = _UNSUPPORTED_FORMATS.get(name, "unknown format")
                self.unsupported("format", self.ptr(n, "format"), "format '%s': %s" % (name, reason))
            else:
                result = self._x_and(result, e, rx.any_string)
        return result

    def pattern(self, pattern: str, n: int, keyword: str) -> Optional[int]:
        """Strings in which the ECMA-262 `pattern` matches (None: unsupported, lenient)."""
        got = self._patterns.get(pattern)
        if got is not None:
            return got
        try:
            e = _search_expr(self.es, pattern, self.rx.any_string)
        except RegexError as err:
            self.unsupported(keyword, self.ptr(n, keyword), "pattern /%s/: %s" % (pattern, err.message))
            return None
        self._patterns[pattern] = e
        return e

    def matches(self, e: int, text: str) -> bool:
        """Does the decoded string `text` belong to the language of `e`?"""
        es = self.es
        for b in text.encode("utf-8"):
            e = derivative(es, e, b)
            if e == es.NOTHING:
                return False
        return es.nullable(e)

    # -- synthesized subschemas: constants and negations ----------------------------------

    def synth(self, value: Any, n: int, what: str) -> int:
        return self.index.synth(value, n, what)

    def const_node(self, value: Any, n: int) -> int:
        """A schema whose only instance is the array or object `value` (built without
        recursion): exact length / exact properties, each item or member a const."""
        got = self._consts.get(id(value))
        if got is not None:
            return got
        built: Dict[int, Any] = {}
        stack = [(value, False)]
        while stack:
            x, ready = stack.pop()
            if id(x) in built:
                continue
            kids = list(x.values()) if isinstance(x, dict) else x
            if not ready:
                stack.append((x, True))
                stack.extend((k, False) for k in kids if isinstance(k, (list, dict)) and id(k) not in built)
                continue

            def sub(k: Any) -> Any:
                return built[id(k)] if isinstance(k, (list, dict)) else {"const": k}

            if isinstance(x, list):
                built[id(x)] = {"type": "array", "prefixItems": [sub(k) for k in x], "items": False,
                                "minItems": len(x)}
            else:
                built[id(x)] = {"type": "object", "properties": {k: sub(c) for k, c in x.items()},
                                "required": list(x), "additionalProperties": False}
        m = self.synth(built[id(value)], n, "const")
        self._consts[id(value)] = m
        return m

    def neg_node(self, n: int, T: str) -> int:
        """A schema for the T-values (arrays or objects) that do NOT satisfy node n, by De
        Morgan over n's keywords; _Unsupported for a keyword whose negation is not
        expressible (additionalProperties, patternProperties, propertyNames,
        uniqueItems, unevaluated*, items after prefixItems)."""
        got = self._negations.get((n, T))
        if got is not None:
            return got
        v = self.value(n)
        parts: List[Any] = []
        node_value = self.value
        if isinstance(v, dict):
            for key, x in v.items():
                p = self.ptr(n, key)
                if key == "allOf":
                    parts.extend({"not": node_value(c)} for c in self.list_of(n, key))
                elif key == "anyOf":
                    parts.append({"allOf": [{"not": node_value(c)} for c in self.list_of(n, key)]})
                elif key == "oneOf":
                    kids = [node_value(c) for c in self.list_of(n, key)]
                    parts.append({"allOf": [{"not": k} for k in kids]})
                    parts.extend({"allOf": [a, b]} for i, a in enumerate(kids) for b in kids[i + 1:])
                elif key == "not":
                    parts.append(x)
                elif key in ("$ref", "$dynamicRef"):
                    parts.append({"not": node_value(self.ref_target(n, key))})
                elif key == "if":
                    i, t, e = x, v.get("then", True), v.get("else", True)
                    parts.append({"allOf": [i, {"not": t}]})
                    parts.append({"allOf": [{"not": i}, {"not": e}]})
                elif key in ("enum", "const"):
                    values = [x] if key == "const" else x
                    mine = [y for y in values if _json_type(y) == T]
                    if not mine:
                        return self._neg_done(n, T, True)
                    parts.append({"allOf": [{"not": node_value(self.const_node(y, n))} for y in mine]})
                elif key == "$recursiveRef":
                    raise _Unsupported(key, p, "draft 2019-09 recursive references are not supported")
                elif T == "array":
                    self._neg_array(n, v, key, x, parts)
                elif T == "object":
                    self._neg_object(n, v, key, x, parts)
        if v is False:
            return self._neg_done(n, T, True)
        types = self.types(n) if isinstance(v, dict) else None
        if types is not None and T not in types:
            return self._neg_done(n, T, True)
        if not parts:
            return self._neg_done(n, T, False)
        m = self.synth({"type": T, "anyOf": parts}, n, "not")
        self._negations[(n, T)] = m
        return m

    def _neg_done(self, n: int, T: str, everything: bool) -> int:
        m = self.synth({"type": T} if everything else False, n, "not")
        self._negations[(n, T)] = m
        return m

    def _neg_array(self, n: int, v: Dict[str, Any], key: str, x: Any, parts: List[Any]) -> None:
        p = self.ptr(n, key)
        if key == "minItems":
            k = self._count(n, v, key)
            if k:
                parts.append({"maxItems": k - 1})
        elif key == "maxItems":
            parts.append({"minItems": self._count(n, v, key) + 1})  # type: ignore[operator]
        elif key == "prefixItems" or (key == "items" and isinstance(x, list)):
            for i, s in enumerate(x):
                if not _trivial(s):
                    parts.append({"minItems": i + 1, "prefixItems": [True] * i + [{"not": s}]})
        elif key == "items":
            prefix = v.get("prefixItems", [])
            if _trivial(x):
                return
            if prefix:
                raise _Unsupported(key, p, "its negation (needed by not, if/else or oneOf) after prefixItems is not expressible")
            parts.append({"contains": {"not": x}})
        elif key == "additionalItems":
            if isinstance(v.get("items"), list) and not _trivial(x):
                raise _Unsupported(key, p, _NEGATION)
        elif key == "contains":
            lo = self._count(n, v, "minContains")
            hi = self._count(n, v, "maxContains")
            lo = 1 if lo is None else lo
            if lo > 0:
                parts.append({"contains": x, "minContains": 0, "maxContains": lo - 1})
            if hi is not None:
                parts.append({"contains": x, "minContains": hi + 1})
        elif key == "uniqueItems":
            if x is True:
                raise _Unsupported(key, p, _NEGATION)
        elif key == "unevaluatedItems":
            if not _trivial(x):
                raise _Unsupported(key, p, _NEGATION)

    def _neg_object(self, n: int, v: Dict[str, Any], key: str, x: Any, parts: List[Any]) -> None:
        p = self.ptr(n, key)
        if key == "minProperties":
            k = self._count(n, v, key)
            if k:
                parts.append({"maxProperties": k - 1})
        elif key == "maxProperties":
            parts.append({"minProperties": self._count(n, v, key) + 1})  # type: ignore[operator]
        elif key == "required":
            if not isinstance(x, list):
                raise SchemaError("required must be an array of strings", p)
            parts.extend({"properties": {name: False}} for name in x)
        elif key == "properties":
            if not isinstance(x, dict):
                raise SchemaError("properties must be an object", p)
            for name, s in x.items():
                if not _trivial(s):
                    parts.append({"required": [name], "properties": {name: {"not": s}}})
        elif key in ("dependentRequired", "dependentSchemas", "dependencies"):
            if not isinstance(x, dict):
                raise SchemaError("%s must be an object" % key, p)
            for name, dep in x.items():
                if isinstance(dep, list):
                    parts.append({"required": [name], "anyOf": [{"properties": {b: False}} for b in dep]})
                else:
                    parts.append({"required": [name], "not": dep})
        elif key in ("additionalProperties", "patternProperties", "propertyNames", "unevaluatedProperties"):
            if key == "patternProperties" and isinstance(x, dict) and all(_trivial(s) for s in x.values()):
                return
            if key != "patternProperties" and _trivial(x):
                return
            raise _Unsupported(key, p, _NEGATION)

    # -- conjunctions of subschemas -> nonterminals -----------------------------------------

    def value_nt(self, atoms: Sequence[Atom]) -> int:
        """The nonterminal of the JSON values satisfying every atom (made on first use).
        Atoms that constrain nothing (`true`, `{}`, annotations only) are left out, so
        that every "any value" is one nonterminal."""
        key = tuple(a for a in dict.fromkeys(atoms) if a[1] or not _trivial(self.value(a[0])))
        nt = self.value_nts.get(key)
        if nt is None:
            nt = self.value_nts[key] = self.ir.add_nonterminal(self._name("json", key))
            self.value_atoms[nt] = key
            self.todo.append(("value", key, nt))
        return nt

    def container_nt(self, T: str, atoms: Tuple[Atom, ...], choices: FrozenSet[Any]) -> int:
        key = (T, atoms, choices)
        nt = self.container_nts.get(key)
        if nt is None:
            label = "json[]" if T == "array" else "json{}"
            if choices:
                label += "#%d" % len(self.container_nts)
            nt = self.container_nts[key] = self.ir.add_nonterminal(self._name(label, atoms))
            self.todo.append(("container", key, nt))
        return nt

    def _name(self, prefix: str, atoms: Sequence[Atom]) -> str:
        if not atoms:
            return prefix + "(any)"
        ptrs = [("!" if neg else "") + self.index.label(n) for n, neg, _ in atoms[:3] if n > _FALSE]
        label = prefix + "&".join(p for p in ptrs if p)
        return label if len(label) <= 60 else label[:58] + "…" + label[-1]

    def run(self, root: int) -> int:
        start = self.value_nt(((root, False, ()),))
        while self.todo:
            job = self.todo.pop()
            if job[0] == "value":
                self._compile_value(job[1], job[2])
            else:
                self._compile_container(job[1], job[2])
        return start

    def _compile_value(self, atoms: Tuple[Atom, ...], nt: int) -> None:
        es, rx = self.es, self.rx
        s = self.universe
        for n, neg, _ in atoms:
            x = self.scalars(n)
            s = self.s_and(s, self.s_not(x) if neg else x)
        alts = []
        if s.null:
            alts.append(rx.null)
        for b in sorted(s.booleans, reverse=True):
            alts.append(rx.true if b else rx.false)
        if s.number != es.NOTHING and not _empty(es, s.number):
            alts.append(s.number)
        if s.string != es.NOTHING and not _empty(es, s.string):
            alts.append(self.string_lexeme_expr(s.string))
        if alts:
            expr = es.union(*alts)
            self.ir.add_rule(nt, (self.lexeme(self._scalar_name(s), expr),))
        for T in ("array", "object"):
            if self.atoms_profile(atoms, T) != NONE:
                self.ir.add_rule(nt, (self.container_nt(T, atoms, frozenset()),))

    def _scalar_name(self, s: _Scalars) -> str:
        es, rx = self.es, self.rx
        parts = []
        if s.null:
            parts.append("null")
        if s.booleans:
            parts.append("boolean" if len(s.booleans) == 2 else "true" if True in s.booleans else "false")
        if s.number != es.NOTHING:
            parts.append("number" if s.number == rx.number else "integer" if s.number == rx.integer else "number'")
        if s.string != es.NOTHING:
            parts.append("string" if s.string == rx.any_string else "string'")
        return "|".join(parts)

    def string_lexeme_expr(self, decoded: int) -> int:
        """The JSON texts of the decoded strings `decoded`: quoted, or with general
        \\uXXXX escapes when the option asks for them and only length is constrained."""
        es, rx = self.es, self.rx
        if self.opts["json_allow_general_unicode_escapes"]:
            bounds = _length_only(es, decoded, rx)
            if bounds is not None:
                q = es.literal(b'"')
                return es.concat(q, es.repeat(rx.general_unit(), bounds[0], bounds[1]), q)
        return rx.quote(decoded)

    # -- containers: flatten a conjunction, distribute disjunctions, lay out a leaf --------

    def _compile_container(self, key: Tuple[Any, ...], nt: int) -> None:
        T, atoms, choices = key
        flat = self._flatten(T, atoms, choices)
        if isinstance(flat, tuple) and flat[0] == "unsat":
            self.reasons.setdefault(nt, (flat[1], flat[2]))
            return
        out, props, reqs, groups = flat
        if groups:
            gid, options = groups[0]
            for i, _ in options:
                self.ir.add_rule(nt, (self.container_nt(T, atoms, choices | {(gid, i)}),))
            return
        if T == "array":
            self._array(out, nt)
        else:
            self._object(out, props, reqs, nt)

    def _scope_with(self, n: int, T: str, scope: Tuple[int, ...]) -> Tuple[int, ...]:
        """The unevaluated-scope for the in-place subschemas of node n."""
        v = self.value(n)
        kw = _UNEVALUATED[T]
        if isinstance(v, dict) and kw in v and not _trivial(v[kw]):
            return tuple(sorted(set(scope) | {n}))
        return scope

    def _flatten(self, T: str, atoms: Tuple[Atom, ...], choices: FrozenSet[Any]) -> Any:
        """Expand allOf / $ref / not / chosen alternatives depth-first in key order (the
        order properties are laid out in, as llguidance does); returns (plain atoms,
        property order, required order, undecided disjunctions) or ("unsat", why, where)."""
        chosen = dict(choices)
        out: List[Atom] = []
        seen: Set[Atom] = set()
        props: List[str] = []
        reqs: List[str] = []
        groups: List[Tuple[Any, List[Tuple[int, List[Atom]]]]] = []
        stack: List[Tuple[Any, ...]] = [("atom", a) for a in reversed(atoms)]
        while stack:
            task = stack.pop()
            if task[0] == "atom":
                atom = task[1]
                if atom in seen:
                    continue
                seen.add(atom)
                n, neg, scope = atom
                if neg:
                    p = self.profile(n, T)
                    if p == ALL:
                        return ("unsat", "'not' excludes every %s" % T, self.ptr(n))
                    if p == PARTIAL:
                        try:
                            m = self.neg_node(n, T)
                        except _Unsupported as e:
                            self.unsupported(e.keyword, e.pointer, e.reason)
                            continue
                        stack.append(("atom", (m, False, ())))
                    continue
                v = self.value(n)
                if v is True:
                    continue
                if v is False:
                    return ("unsat", "the schema is false", self.ptr(n))
                types = self.types(n)
                if types is not None and T not in types:
                    return ("unsat", "type %s excludes %s" % ("/".join(sorted(types)), T), self.ptr(n, "type"))
                out.append(atom)
                inner = self._scope_with(n, T, scope)
                for k in reversed(list(v)):
                    stack.append(("key", atom, k, inner))
                continue
            _, atom, k, inner = task
            n = atom[0]
            v = self.value(n)
            x = v[k]
            if k == "properties" and T == "object":
                if not isinstance(x, dict):
                    raise SchemaError("properties must be an object", self.ptr(n, k))
                props.extend(x)
            elif k == "required" and T == "object":
                if not isinstance(x, list) or not all(isinstance(s, str) for s in x):
                    raise SchemaError("required must be an array of strings", self.ptr(n, k))
                reqs.extend(x)
            elif k == "allOf":
                stack.extend(("atom", (c, False, inner)) for c in reversed(self.list_of(n, k)))
            elif k in ("$ref", "$dynamicRef"):
                try:
                    stack.append(("atom", (self.ref_target(n, k), False, inner)))
                except _Unsupported as e:
                    self.unsupported(e.keyword, e.pointer, e.reason)
            elif k == "$recursiveRef":
                self.unsupported(k, self.ptr(n, k), "draft 2019-09 recursive references are not supported")
            elif k == "not":
                stack.append(("atom", (self.child(n, x), True, ())))
            elif k in ("anyOf", "oneOf", "if", "enum", "const") or (
                    T == "object" and k in ("dependentRequired", "dependentSchemas", "dependencies")):
                subs = list(x) if k in ("dependentRequired", "dependentSchemas", "dependencies") else [None]
                if k in ("dependentRequired", "dependentSchemas", "dependencies") and not isinstance(x, dict):
                    raise SchemaError("%s must be an object" % k, self.ptr(n, k))
                for sub in subs:
                    gid = (n, k, sub)
                    options = self._group_options(n, k, sub, T, inner)
                    if gid in chosen:
                        stack.extend(("atom", a) for a in reversed(options[chosen[gid]]))
                        continue
                    profs = [self.atoms_profile(o, T) for o in options]
                    live = [i for i, p in enumerate(profs) if p != NONE]
                    if not live:
                        what = "no value of %s" % k if k in ("enum", "const") else "no alternative of %s" % k
                        return ("unsat", "%s is an %s" % (what, T), self.ptr(n, k))
                    if len(live) == 1:
                        stack.extend(("atom", a) for a in reversed(options[live[0]]))
                    elif not inner and any(profs[i] == ALL for i in live):
                        continue
                    else:
                        groups.append((gid, [(i, options[i]) for i in live]))
        return out, props, reqs, groups

    def _group_options(self, n: int, k: str, sub: Optional[str], T: str, inner: Tuple[int, ...]) -> List[List[Atom]]:
        """The alternatives of a disjunction, each a list of atoms that must all hold."""
        v = self.value(n)
        if k == "anyOf":
            return [[(c, False, inner)] for c in self.list_of(n, k)]
        if k == "oneOf":
            # exactly one: option i is kids[i] and the negation of every other kid; only
            # when a negation is not expressible does coerce_one_of (or lenient) fall
            # back to anyOf, as llguidance always does with that option
            kids = self.list_of(n, k)
            try:
                for c in kids:
                    if self.profile(c, T) == PARTIAL:
                        self.neg_node(c, T)
                return [[(c, False, inner)] + [(d, True, ()) for j, d in enumerate(kids) if j != i]
                        for i, c in enumerate(kids)]
            except _Unsupported as e:
                if not (self.opts["coerce_one_of"] or self.lenient):
                    raise SchemaError(
                        "oneOf cannot be enforced exactly: its alternatives may overlap and %s "
                        "(set coerce_one_of to treat it as anyOf, or lenient=True)" % e.reason,
                        e.pointer) from None
                where = self.ptr(n, k)
                if (k, where) not in self._ignored_keys:
                    self._ignored_keys.add((k, where))
                    self.ignored.append(IgnoredKeyword(k, where, "treated as anyOf (coerce_one_of): %s" % e.reason))
            return [[(c, False, inner)] for c in kids]
        if k == "if":
            i = self.child(n, v["if"])
            yes: List[Atom] = [(i, False, inner)]
            no: List[Atom] = [(i, True, ())]
            if "then" in v:
                yes.append((self.child(n, v["then"]), False, inner))
            if "else" in v:
                no.append((self.child(n, v["else"]), False, inner))
            return [yes, no]
        if k in ("enum", "const"):
            values = [v[k]] if k == "const" else v[k]
            if not isinstance(values, list):
                raise SchemaError("enum must be an array", self.ptr(n, k))
            return [[(self.const_node(x, n), False, ())] for x in values if _json_type(x) == T]
        # dependentRequired / dependentSchemas / dependencies, for property `sub`
        dep = v[k][sub]
        absent = self._dep_node(n, k, sub, {"properties": {sub: False}}, "absent")
        if isinstance(dep, list):
            if not all(isinstance(s, str) for s in dep):
                raise SchemaError("%s values must be arrays of strings" % k, self.ptr(n, k))
            # the dependents first: a fixed order must pick one, and an object tends to
            # have its base members before the ones that require them
            present = self._dep_node(n, k, sub, {"required": [d for d in dep if d != sub] + [sub]}, "present")
            return [[(absent, False, inner)], [(present, False, inner)]]
        present = self._dep_node(n, k, sub, {"required": [sub]}, "present")
        return [[(absent, False, inner)], [(present, False, inner), (self.child(n, dep), False, inner)]]

    def _dep_node(self, n: int, k: str, sub: str, value: Dict[str, Any], what: str) -> int:
        key = (n, k, sub, what)
        got = self._dependencies.get(key)
        if got is None:
            got = self._dependencies[key] = self.synth(value, n, k + "/" + _escape_pointer(sub))
        return got

    def _array(self, atoms: List[Atom], nt: int) -> None:
        lo, hi = 0, None
        shapes: List[Tuple[Atom, List[int], Optional[int]]] = []
        counted: List[Tuple[int, int, Optional[int]]] = []
        contains_of: Dict[int, List[int]] = {}
        for atom in atoms:
            n = atom[0]
            v = self.value(n)
            items = v.get("items")
            if isinstance(items, list):
                prefix = [self.child(n, x) for x in items]
                rest = self.child(n, v["additionalItems"]) if "additionalItems" in v else None
            else:
                prefix = self.list_of(n, "prefixItems") if "prefixItems" in v else []
                rest = self.child(n, items) if "items" in v else None
            shapes.append((atom, prefix, rest))
            a = self._count(n, v, "minItems")
            b = self._count(n, v, "maxItems")
            if a is not None:
                lo = max(lo, a)
            if b is not None:
                hi = b if hi is None else min(hi, b)
            if "contains" in v:
                c = self.child(n, v["contains"])
                contains_of.setdefault(n, []).append(c)
                mn = self._count(n, v, "minContains")
                mx = self._count(n, v, "maxContains")
                mn = 1 if mn is None else mn
                if mn > 0 or mx is not None:
                    counted.append((c, mn, mx))
        for atom in atoms:
            v = self.value(atom[0])
            if v.get("uniqueItems") is True and (hi is None or hi > 1):
                self.unsupported("uniqueItems", self.ptr(atom[0], "uniqueItems"),
                                 "the items of an array being distinct is not a context-free property")
        if hi is not None and lo > hi:
            self.reasons.setdefault(nt, ("minItems (%d) is greater than maxItems (%d)" % (lo, hi), self.ptr(atoms[0][0]) if atoms else ""))
            return
        L = max([len(p) for _, p, _ in shapes] + [0])
        # unevaluatedItems: items no subschema of its scope evaluated must satisfy it
        late: List[Tuple[int, int]] = []  # (first unevaluated position, extra constraint)
        for atom, _, _ in shapes:
            n = atom[0]
            v = self.value(n)
            if "unevaluatedItems" not in v or _trivial(v["unevaluatedItems"]):
                continue
            scope = [(b, p, r) for b, p, r in shapes if b[0] == n or n in b[2]]
            if any(r is not None or (b[0] != n and "unevaluatedItems" in self.value(b[0])) for b, p, r in scope):
                continue
            first = max([len(p) for _, p, _ in scope] + [0])
            u = self.value(self.child(n, v["unevaluatedItems"]))
            cs = [self.value(c) for b, _, _ in scope for c in contains_of.get(b[0], [])]
            late.append((first, self.child(n, v["unevaluatedItems"]) if not cs else
                         self.synth({"anyOf": [u] + cs}, n, "unevaluatedItems")))

        def position(i: Optional[int]) -> List[Atom]:  # None: the tail (i >= L)
            out: List[Atom] = []
            for _, prefix, rest in shapes:
                if i is not None and i < len(prefix):
                    out.append((prefix[i], False, ()))
                elif rest is not None:
                    out.append((rest, False, ()))
            for first, c in late:
                if i is None or i >= first:
                    out.append((c, False, ()))
            return out

        sep = self.separator("item_separator")
        open_, close = self.literal("["), self.literal("]")
        if counted:
            self._array_counted(nt, position, L, lo, hi, counted, sep, open_, close)
            return
        items = [self.value_nt(position(i)) for i in range(L)]
        tail = self.value_nt(position(None))
        sep_tail = self._sep_items.get(tail)
        if sep_tail is None:  # `, item`: one per item schema, shared by the arrays using it
            sep_tail = self._sep_items[tail] = self.ir.add_nonterminal(self.ir.names[nt] + ",*")
            self.ir.add_rule(sep_tail, (sep, tail))
        rest: Dict[int, Optional[Tuple[int, ...]]] = {}
        for k in range(max(L, 1), 0, -1):  # rest[k]: the items from position k on, each after sep
            if k >= L:
                a = max(0, lo - k)
                b = None if hi is None else hi - k
                rest[k] = None if b is not None and b < a else (_repeat(self.ir, sep_tail, a, b),)
                continue
            here = self.ir.add_nonterminal("%s@%d" % (self.ir.names[nt], k))
            if k >= lo and (hi is None or k <= hi):
                self.ir.add_rule(here, ())
            nxt = rest[k + 1]
            if (hi is None or k < hi) and nxt is not None:
                self.ir.add_rule(here, (sep, items[k]) + nxt)
            rest[k] = (here,)
        if lo == 0:
            self.ir.add_rule(nt, (open_, close))
        first = items[0] if L > 0 else tail
        if (hi is None or hi >= 1) and rest[1] is not None:
            self.ir.add_rule(nt, (open_, first) + rest[1] + (close,))  # type: ignore[operator]

    def _array_counted(self, nt: int, position: Any, L: int, lo: int, hi: Optional[int],
                       counted: List[Tuple[int, int, Optional[int]]], sep: int, open_: int, close: int) -> None:
        """Arrays with contains / minContains / maxContains: states count the items that
        match each `contains` schema (every item either matches it or matches its `not`)."""
        J = len(counted)
        if J > 4:
            self.unsupported("contains", self.ptr(counted[0][0]), "more than 4 contains constraints on one array")
            counted = counted[:4]
            J = 4
        caps = [(mx + 1) if mx is not None else mn for _, mn, mx in counted]
        saturate = max(L, lo)
        item_nts: Dict[Tuple[Optional[int], int], int] = {}

        def item(i: int, mask: int) -> int:
            cls = i if i < L else None
            got = item_nts.get((cls, mask))
            if got is None:
                atoms = position(cls) + [(c, not (mask >> j) & 1, ()) for j, (c, _, _) in enumerate(counted)]
                got = item_nts[(cls, mask)] = self.value_nt(atoms)
            return got

        def accept(i: int, counts: Tuple[int, ...]) -> bool:
            return i >= lo and all(counts[j] >= mn and (mx is None or counts[j] <= mx)
                                   for j, (_, mn, mx) in enumerate(counted))

        def advance(i: int, counts: Tuple[int, ...], mask: int) -> Optional[Tuple[int, Tuple[int, ...]]]:
            new = []
            for j, (_, mn, mx) in enumerate(counted):
                c = counts[j] + ((mask >> j) & 1)
                if mx is not None and c > mx:
                    return None
                new.append(min(c, caps[j]))
            i += 1
            if hi is None:
                i = min(i, saturate)
            return i, tuple(new)

        states: Dict[Tuple[int, Tuple[int, ...]], int] = {}
        todo: List[Tuple[int, Tuple[int, ...]]] = []

        def state(key: Tuple[int, Tuple[int, ...]]) -> int:
            got = states.get(key)
            if got is None:
                got = states[key] = self.ir.add_nonterminal("%s@%d%s" % (self.ir.names[nt], key[0], list(key[1])))
                todo.append(key)
            return got

        zeros = tuple(0 for _ in counted)
        if accept(0, zeros):
            self.ir.add_rule(nt, (open_, close))
        if hi is None or hi >= 1:
            for mask in range(1 << J):
                nxt = advance(0, zeros, mask)
                if nxt is not None:
                    self.ir.add_rule(nt, (open_, item(0, mask), state(nxt), close))
        while todo:
            i, counts = todo.pop()
            s = states[(i, counts)]
            if accept(i, counts):
                self.ir.add_rule(s, ())
            if hi is None or i < hi:
                for mask in range(1 << J):
                    nxt = advance(i, counts, mask)
                    if nxt is not None:
                        self.ir.add_rule(s, (sep, item(i, mask), state(nxt)))

    def _object(self, atoms: List[Atom], props: List[str], reqs: List[str], nt: int) -> None:
        es, rx = self.es, self.rx
        lo, hi = 0, None
        info = []  # per atom: (atom, properties, patterns, additional, names regex)
        pattern_ids: Dict[str, int] = {}
        pattern_exprs: List[int] = []
        for atom in atoms:
            n = atom[0]
            v = self.value(n)
            properties = v.get("properties", {})
            if not isinstance(properties, dict):
                raise SchemaError("properties must be an object", self.ptr(n, "properties"))
            patterns: List[Tuple[int, int]] = []  # (pattern id, schema node)
            pp = v.get("patternProperties", {})
            if not isinstance(pp, dict):
                raise SchemaError("patternProperties must be an object", self.ptr(n, "patternProperties"))
            for pat, s in pp.items():
                if pat not in pattern_ids:
                    e = self.pattern(pat, n, "patternProperties")
                    if e is None:
                        continue
                    pattern_ids[pat] = len(pattern_exprs)
                    pattern_exprs.append(e)
                patterns.append((pattern_ids[pat], self.child(n, s)))
            additional = self.child(n, v["additionalProperties"]) if "additionalProperties" in v else None
            names = self.scalars(self.child(n, v["propertyNames"])).string if "propertyNames" in v else None
            info.append((atom, {k: self.child(n, s) for k, s in properties.items()}, patterns, additional, names))
            a = self._count(n, v, "minProperties")
            b = self._count(n, v, "maxProperties")
            if a is not None:
                lo = max(lo, a)
            if b is not None:
                hi = b if hi is None else min(hi, b)
        where = atoms[0][0] if atoms else self.index.root  # a node: its pointer only on error
        required = list(dict.fromkeys(reqs))
        named = list(dict.fromkeys(props + required))
        if hi is not None and lo > hi:
            self.reasons.setdefault(nt, ("minProperties (%d) is greater than maxProperties (%d)" % (lo, hi), self.ptr(where)))
            return
        if hi is not None and len(required) > hi:
            self.reasons.setdefault(nt, ("required > maxProperties (%d required, maxProperties %d)"
                                         % (len(required), hi), self.ptr(where)))
            return
        # unevaluatedProperties: which subschemas' annotations each one sees
        late = []  # (U node, its schema node, the scope's info entries)
        for entry in info:
            n = entry[0][0]
            v = self.value(n)
            if "unevaluatedProperties" not in v or _trivial(v["unevaluatedProperties"]):
                continue
            scope = [e for e in info if e[0][0] == n or n in e[0][2]]
            if any(e[3] is not None or (e[0][0] != n and "unevaluatedProperties" in self.value(e[0][0]))
                   for e in scope):
                continue  # additionalProperties (or a nested unevaluated*) evaluates every key
            late.append((n, self.child(n, v["unevaluatedProperties"]), scope))

        def value_for(name: Optional[str], matched: FrozenSet[int]) -> List[int]:
            """The schemas a member must satisfy: named `name`, or (name None) a key matching
            exactly the patterns `matched` and no named property."""
            out: List[int] = []
            for atom, properties, patterns, additional, names in info:
                hits = [s for pid, s in patterns if (pid in matched if name is None else
                                                     self.matches(pattern_exprs[pid], name))]
                if name is not None and name in properties:
                    out.append(properties[name])
                    out.extend(hits)
                elif hits:
                    out.extend(hits)
                elif additional is not None:
                    out.append(additional)
                if name is not None and names is not None and not self.matches(names, name):
                    out.append(_FALSE)
            for u, schema, scope in late:
                seen = False
                for atom, properties, patterns, additional, names in scope:
                    if name is not None and name in properties:
                        seen = True
                    elif any((pid in matched) if name is None else self.matches(pattern_exprs[pid], name)
                             for pid, _ in patterns):
                        seen = True
                if not seen:
                    out.append(schema)
            return out

        colon = self.separator("key_separator")
        sep = self.separator("item_separator")
        entries = []
        for name in named:
            value = value_for(name, frozenset())
            key = self.literal(json.dumps(name, ensure_ascii=False))
            vnt = self.value_nt([(s, False, ()) for s in value])
            entries.append((name, key, vnt, name in required))
        self.required_of[nt] = [(name, vnt, where) for name, _, vnt, req in entries if req]
        # the other members: keys split by the patterns they match
        names_rx = [e[4] for e in info if e[4] is not None]
        base = rx.any_string
        if named:
            base = self._x_and(base, es.complement(_literal_union(es, [s.encode("utf-8") for s in named])), None)
        for x in names_rx:
            base = self._x_and(base, x, rx.any_string)
        regions: List[Tuple[int, FrozenSet[int]]] = []
        stack: List[Tuple[int, int, FrozenSet[int]]] = [(0, base, frozenset())]
        while stack:
            i, expr, matched = stack.pop()
            if expr == es.NOTHING or _empty(es, expr):
                continue
            if i == len(pattern_exprs):
                regions.append((expr, matched))
                continue
            p = pattern_exprs[i]
            stack.append((i + 1, self._x_and(expr, es.complement(p), None), matched))
            stack.append((i + 1, self._x_and(expr, p, rx.any_string), matched | {i}))
        pair: Optional[int] = None
        for expr, matched in regions:
            value = value_for(None, matched)
            if _FALSE in value:
                continue
            if pair is None:
                pair = self.ir.add_nonterminal(self.ir.names[nt] + ":*")
            simple = not pattern_exprs and not names_rx
            key = self.lexeme("string" if expr == rx.any_string else "key'", self._key_expr(expr, named, simple))
            self.ir.add_rule(pair, (key, colon, self.value_nt([(s, False, ()) for s in value])))
        # the layout: named members in order (optional ones optional), then the others;
        # states (i, count, after-a-member) count the members when min/maxProperties ask
        cap = hi if hi is not None else lo
        states: Dict[Tuple[int, int, bool], int] = {}
        todo: List[Tuple[int, int, bool]] = []

        def state(key: Tuple[int, int, bool]) -> int:
            got = states.get(key)
            if got is None:
                got = states[key] = self.ir.add_nonterminal("%s@%d%s" % (
                    self.ir.names[nt], key[0], "+" if key[2] else ""))
                todo.append(key)
            return got

        sep_pair: List[int] = []
        self.ir.add_rule(nt, (self.literal("{"), state((0, 0, False)), self.literal("}")))
        while todo:
            i, count, after = todo.pop()
            s = states[(i, count, after)]
            if i == len(entries):
                a = max(0, lo - count)
                b = None if hi is None else hi - count
                if b is not None and b < a:
                    continue
                if pair is None or b == 0:
                    if a == 0:
                        self.ir.add_rule(s, ())
                    continue
                if not sep_pair:
                    sep_pair.append(self.ir.add_nonterminal(self.ir.names[nt] + ",*"))
                    self.ir.add_rule(sep_pair[0], (sep, pair))
                more = sep_pair[0]
                if after:
                    self.ir.add_rule(s, (_repeat(self.ir, more, a, b),))
                else:
                    if a == 0:
                        self.ir.add_rule(s, ())
                    self.ir.add_rule(s, (pair, _repeat(self.ir, more, max(a - 1, 0),
                                                                None if b is None else b - 1)))
                continue
            name, key, vnt, req = entries[i]
            if hi is None or count < hi:
                nxt = state((i + 1, min(count + 1, cap) if hi is None else count + 1, True))
                self.ir.add_rule(s, ((sep,) if after else ()) + (key, colon, vnt, nxt))
            if not req:
                self.ir.add_rule(s, (state((i + 1, count, after)),))

    def _key_expr(self, decoded: int, named: List[str], simple: bool) -> int:
        """The lexeme of the keys of additional members. As in llguidance, when the
        object has named properties the keys may use general \\uXXXX escapes (then every
        encoding of a named property is excluded, which keeps it exact)."""
        key = (decoded, tuple(named), simple)
        got = self._key_exprs.get(key)
        if got is None:
            got = self._key_exprs[key] = self._make_key_expr(decoded, named, simple)
        return got

    def _make_key_expr(self, decoded: int, named: List[str], simple: bool) -> int:
        es, rx = self.es, self.rx
        if simple and (named or self.opts["json_allow_general_unicode_escapes"]) and "u" in self.opts["json_allowed_escapes"]:
            q = es.literal(b'"')
            general = es.concat(q, es.star(rx.general_unit()), q)
            if not named:
                return general
            taken = es.union(*[es.concat(q, rx.general_literal(s), q) for s in named])
            return es.intersection(general, es.complement(taken))
        return self.string_lexeme_expr(decoded)

    # -- the first token in a class of its own -------------------------------------------

    def entry(self, start: int, entry_class: int) -> int:
        """A copy of `start` whose first lexemes are in `entry_class` (one without
        %ignore): llguidance skips a nested grammar's whitespace only after a token of
        that grammar, never before its first token, and maskref's lexer allows a class's
        %ignore wherever a lexeme of the class may come — so the first token of an
        embedded JSON value gets a class that skips nothing. Every JSON value starts with
        a lexeme (a scalar, `{` or `[`): only first symbols are rewritten."""
        ir = self.ir
        by_lhs: Dict[int, List[Tuple[int, ...]]] = {}
        for lhs, rhs in ir.rules[self.first_rule:]:
            by_lhs.setdefault(lhs, []).append(rhs)
        copies: Dict[int, int] = {}
        todo = [start]
        copies[start] = ir.add_nonterminal(ir.names[start] + "^")
        while todo:
            nt = todo.pop()
            for rhs in by_lhs.get(nt, ()):
                if not rhs:
                    ir.add_rule(copies[nt], rhs)
                    continue
                first = rhs[0]
                if first < 0:
                    lexeme = ir.lexemes[~first]
                    new = ir.add_lexeme(lexeme.name, lexeme.expr, lexeme.lazy, entry_class)
                else:
                    new = copies.get(first)
                    if new is None:
                        new = copies[first] = ir.add_nonterminal(ir.names[first] + "^")
                        todo.append(first)
                ir.add_rule(copies[nt], (new,) + rhs[1:])
        return copies[start]

    # -- unsatisfiable schemas ------------------------------------------------------------

    def check(self, start: int) -> None:
        """SchemaError if the schema allows no value at all, with the likeliest reason."""
        rules = self.ir.rules[self.first_rule:]
        productive = _productive(rules, len(self.ir.names), self.first_name)
        if productive[start]:
            return
        by_lhs: Dict[int, List[Tuple[int, ...]]] = {}
        for lhs, rhs in rules:
            by_lhs.setdefault(lhs, []).append(rhs)
        seen = {start}
        queue = [start]
        for nt in queue:
            for name, vnt, where in self.required_of.get(nt, ()):
                if not productive[vnt]:
                    raise SchemaError("Unsatisfiable schema: required property '%s' is unsatisfiable" % name,
                                      self.ptr(where))
            if nt in self.reasons:
                message, where = self.reasons[nt]
                raise SchemaError("Unsatisfiable schema: " + message, where)
            if nt in self.value_atoms:
                reason = self._value_reason(self.value_atoms[nt])
                if reason is not None and not any(not productive[s] for rhs in by_lhs.get(nt, ()) for s in rhs if s >= 0):
                    raise SchemaError("Unsatisfiable schema: " + reason[0], reason[1])
            for rhs in by_lhs.get(nt, ()):
                for s in rhs:
                    if s >= 0 and not productive[s] and s not in seen:
                        seen.add(s)
                        queue.append(s)
        for nt in queue:
            if nt in self.value_atoms:
                reason = self._value_reason(self.value_atoms[nt])
                if reason is not None:
                    raise SchemaError("Unsatisfiable schema: " + reason[0], reason[1])
        raise SchemaError("Unsatisfiable schema: no JSON value satisfies it", self.ptr(self.index.root))

    def _value_reason(self, atoms: Tuple[Atom, ...]) -> Optional[Tuple[str, str]]:
        """Why no scalar satisfies these atoms: a recorded reason of a subschema applying
        in place, or bounds that contradict across allOf."""
        closure: List[int] = []
        seen: Set[int] = set()
        stack = [n for n, neg, _ in reversed(atoms) if not neg]
        while stack and len(closure) < 1000:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            closure.append(n)
            for kw, kids in self.inplace(n):
                if kw in ("allOf", "$ref"):
                    stack.extend(reversed(kids))
        for n in closure:
            if n in self.node_reasons:
                return self.node_reasons[n]
            v = self.value(n)
            if v is False:
                return "the schema is false", self.ptr(n)
            if not isinstance(v, dict):
                continue
            if v.get("enum") == []:
                return "enum is empty", self.ptr(n, "enum")
            if "not" in v and _trivial(v["not"]):
                return "'not' excludes every value", self.ptr(n, "not")
            for kw in ("anyOf", "oneOf"):
                if isinstance(v.get(kw), list) and all(x is False for x in v[kw]):
                    return "all options in %s are unsatisfiable" % kw, self.ptr(n, kw)
        lo: Optional[Tuple[Decimal, str]] = None
        hi: Optional[Tuple[Decimal, str]] = None
        for n in closure:
            v = self.value(n)
            if not isinstance(v, dict):
                continue
            for key in ("minimum", "exclusiveMinimum"):
                if _is_number(v.get(key)) and (lo is None or _decimal(v[key]) > lo[0]):
                    lo = (_decimal(v[key]), key)
            for key in ("maximum", "exclusiveMaximum"):
                if _is_number(v.get(key)) and (hi is None or _decimal(v[key]) < hi[0]):
                    hi = (_decimal(v[key]), key)
        if lo is not None and hi is not None and lo[0] > hi[0]:
            return ("%s (%s) is greater than %s (%s)" % (lo[1], _number_text(lo[0]), hi[1], _number_text(hi[0])),
                    self.ptr(closure[0]))
        return None


#: multipleOf compiles to a divisibility automaton of about c*(k+3) states for
#: m = c*10^-k; state elimination turns it into a regex, which is practical up to here
#: (this is a bound on what is supported, not on work: larger ones raise SchemaError)
_MAX_MULTIPLE_OF_STATES = 400


def _productive(rules: Sequence[Tuple[int, Tuple[int, ...]]], n_names: int, first: int) -> List[bool]:
    """Which nonterminals derive some lexeme string, for the rules of one JSON part
    (its nonterminals are those from `first` on; earlier ones count as productive)."""
    productive = [i < first for i in range(n_names)]
    waiting: Dict[int, List[int]] = {}
    missing = []
    queue = []
    for r, (lhs, rhs) in enumerate(rules):
        need = [s for s in rhs if s >= 0 and not productive[s]]
        missing.append(len(need))
        for s in need:
            waiting.setdefault(s, []).append(r)
        if not need and not productive[lhs]:
            productive[lhs] = True
            queue.append(lhs)
    while queue:
        s = queue.pop()
        for r in waiting.pop(s, ()):
            missing[r] -= 1
            lhs = rules[r][0]
            if missing[r] == 0 and not productive[lhs]:
                productive[lhs] = True
                queue.append(lhs)
    return productive


def _empty(es: ExprSet, e: int) -> bool:
    """Is L(e) known to be empty? (Unknown, when fuel runs out, counts as non-empty.)"""
    return e == es.NOTHING or is_empty(es, e) is True


def _length_only(es: ExprSet, e: int, rx: _Regexes) -> Optional[Tuple[int, Optional[int]]]:
    """(lo, hi) if e is exactly `.{lo,hi}` (any characters, only the length bounded)."""
    from ..regex.exprs import REPEAT

    if e == rx.any_string:
        return 0, None
    node = es.nodes[e]
    if node[0] == REPEAT and node[1] == rx.anychar:
        return node[2], node[3]
    for bounds in ((1, 1), (0, 1), (0, 0)):
        if e == es.repeat(rx.anychar, *bounds):
            return bounds
    return None


def _literal_union(es: ExprSet, words: Sequence[bytes]) -> int:
    """The finite language `words`, as a trie-shaped expression (shared suffixes merge by
    hash-consing), so that a 100,000-word enum is cheap to build and to lex."""
    if not words:
        return es.NOTHING
    trie: Dict[Any, Any] = {}
    for w in set(words):
        node = trie
        for b in w:
            node = node.setdefault(b, {})
        node[None] = True
    done: Dict[int, int] = {}
    stack = [(trie, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in done:
            continue
        kids = [c for k, c in node.items() if k is not None]
        if not ready:
            stack.append((node, True))
            stack.extend((c, False) for c in kids)
            continue
        by_tail: Dict[int, int] = {}
        for b, c in node.items():
            if b is not None:
                t = done[id(c)]
                by_tail[t] = by_tail.get(t, 0) | (1 << b)
        alts = [es.concat(es.byte_set(mask), t) for t, mask in by_tail.items()]
        if None in node:
            alts.append(es.EPSILON)
        done[id(node)] = es.union(*alts)
    return done[id(trie)]


# =========================================================================== entry points


def _whitespace(es: ExprSet, options: Dict[str, Any]) -> Optional[int]:
    """The %ignore expression for JSON whitespace, or None (compact JSON).

    llguidance matches `whitespace_pattern` at most once between two lexemes; maskref's
    %ignore may repeat, which is the same language when the pattern is closed under
    concatenation (as `[ \\t\\n\\r]+` is). Other patterns raise SchemaError.
    """
    pattern = options["whitespace_pattern"]
    if pattern is None:
        return compile_pattern(es, _FLEXIBLE_WHITESPACE) if options["whitespace_flexible"] else None
    try:
        w = compile_pattern(es, pattern)
    except RegexError as e:
        raise SchemaError("invalid whitespace_pattern %r: %s" % (pattern, e.message), "/x-guidance/whitespace_pattern") from None
    from ..regex import is_contained

    if is_contained(es, es.concat(w, w), w) is not True:
        raise SchemaError("whitespace_pattern %r is matched at most once between tokens by llguidance, which only "
                          "maskref's %%ignore matches when the pattern is closed under repetition (w w ⊆ w), as "
                          "[ \\t\\n\\r]+ is" % pattern, "/x-guidance/whitespace_pattern")
    return w


def json_whitespace(es: ExprSet, schema: Any, **options: Any) -> Optional[int]:
    """The %ignore expression the schema's options give JSON whitespace (None: none)."""
    _, opts = _prepare(schema, None, None, options)
    return _whitespace(es, opts)


def _prepare(schema: Any, defaults: Optional[Dict[str, Any]], overrides: Optional[Dict[str, Any]],
             options: Dict[str, Any]) -> Tuple[Any, Dict[str, Any]]:
    if isinstance(schema, bytes):
        schema = schema.decode("utf-8")
    if isinstance(schema, str):
        schema = parse_json_text(schema)
    opts = dict(DEFAULT_OPTIONS)
    _merge_options(opts, defaults, "")
    _merge_options(opts, options, "")
    if isinstance(schema, dict) and "x-guidance" in schema:
        _merge_options(opts, schema["x-guidance"], "/x-guidance")
    _merge_options(opts, overrides, "")
    if opts["lenient"]:
        opts["coerce_one_of"] = True  # as in llguidance
    return schema, opts


def json_schema_to_ir(schema: Any, *, ir: Optional[GrammarIR] = None, lexeme_class: int = 0,
                      entry_class: Optional[int] = None, limits: Limits = DEFAULT_LIMITS,
                      defaults: Optional[Dict[str, Any]] = None, overrides: Optional[Dict[str, Any]] = None,
                      **options: Any) -> JsonSchemaIR:
    """Compile a JSON schema (a dict, or JSON text) into `ir` (a new GrammarIR if None,
    whose start symbol is then set); the JSON's lexemes get `lexeme_class`, whose %ignore
    becomes the JSON whitespace. With `entry_class` (a class without %ignore), the first
    token of the value gets that class, so no JSON whitespace may come before it (for a
    JSON value embedded in a larger grammar, as llguidance's nested grammars).

    Options (llguidance's `x-guidance`): item_separator, key_separator,
    whitespace_flexible, whitespace_pattern, coerce_one_of, lenient,
    json_allowed_escapes, json_allow_general_unicode_escapes — applied in the order
    `defaults`, keyword arguments, the schema's top-level "x-guidance", `overrides`.

    Raises SchemaError (malformed, unsatisfiable, or a keyword that cannot be enforced
    exactly unless lenient) and LimitError.

    >>> r = json_schema_to_ir({"enum": ["red", "green", 7]})
    >>> print(r.ir.to_text(), end="")
    json: number'|string'
    """
    schema, opts = _prepare(schema, defaults, overrides, options)
    own = ir is None
    if ir is None:
        ir = GrammarIR(ExprSet(limits), limits)
    ws = _whitespace(ir.es, opts)
    if ws is not None:
        if ir.ignores.get(lexeme_class, ws) != ws:
            raise GrammarError("lexeme class %d already has another %%ignore" % lexeme_class)
        ir.ignores[lexeme_class] = ws
    index = _Index(schema)
    compiler = _Compiler(ir, index, opts, lexeme_class)
    start = compiler.run(index.root)
    compiler.check(start)
    if entry_class is not None and ws is not None:
        if entry_class in ir.ignores:
            raise GrammarError("the entry class %d of a JSON value must have no %%ignore" % entry_class)
        start = compiler.entry(start, entry_class)
    if own:
        ir.start = start
    return JsonSchemaIR(ir, start, compiler.ignored, opts)
