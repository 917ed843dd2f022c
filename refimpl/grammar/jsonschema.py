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

>>> from refimpl.regex import ExprSet
>>> r = json_schema_to_ir({"type": "object", "properties": {"n": {"type": "integer"}},
...                        "required": ["n"], "additionalProperties": False})
>>> print(r.ir.to_text(), end="")  # doctest: +ELLIPSIS
json: json{}
json{}: "{" "\\"n\\"" ":" json/properties/n "}"
json/properties/n: integer
"""
from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Set, Tuple

from ..errors import GrammarError, LimitError, RegexError, SchemaError
from ..limits import DEFAULT_LIMITS, Limits
from ..regex import ExprSet, compile_pattern, is_empty
from ..regex import syntax as _syntax
from ..regex.compiler import compile_ast
from . import simplify as _simplify
from .ir import GrammarIR

__all__ = ["DEFAULT_OPTIONS", "IgnoredKeyword", "JsonSchemaIR", "json_schema_to_ir", "parse_json_text"]

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

_NUMBER_RE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WS_RE = re.compile(r"[ \t\n\r]*")


def parse_json_text(text: str) -> Any:
    """Parse JSON text without recursion (a 10,000-deep schema is fine); numbers with a
    fraction or an exponent become `Decimal`, so bounds like 0.1 stay exact.

    >>> parse_json_text('{"a": [1, 2.50, true, null]}')
    {'a': [1, Decimal('2.50'), True, None]}
    """
    decoder = json.JSONDecoder()
    pos = _WS_RE.match(text, 0).end()
    stack: List[Tuple[Any, Optional[str]]] = []  # (container, pending key of a dict)
    root: Any = None
    have_root = False

    def fail(message: str) -> SchemaError:
        return SchemaError("invalid JSON: %s at offset %d" % (message, pos))

    while True:
        if pos >= len(text):
            raise fail("unexpected end of text")
        c = text[pos]
        # read one value (or open a container)
        if c == "{" or c == "[":
            container: Any = {} if c == "{" else []
            pos = _WS_RE.match(text, pos + 1).end()
            close = "}" if c == "{" else "]"
            if pos < len(text) and text[pos] == close:
                value: Any = container
                pos += 1
            else:
                stack.append((container, None))
                if c == "{":
                    pos = _read_key(text, pos, stack, fail)
                continue
        elif c == '"':
            try:
                value, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
            except ValueError as e:
                raise fail(str(e)) from None
        else:
            m = _NUMBER_RE.match(text, pos)
            if m and m.end() > pos:
                tok = m.group()
                value = Decimal(tok) if ("." in tok or "e" in tok or "E" in tok) else int(tok)
                pos = m.end()
            elif text.startswith("true", pos):
                value, pos = True, pos + 4
            elif text.startswith("false", pos):
                value, pos = False, pos + 5
            elif text.startswith("null", pos):
                value, pos = None, pos + 4
            else:
                try:
                    decoder.raw_decode(text, pos)
                except ValueError as e:
                    raise fail(str(e).split(":")[0]) from None
                raise fail("unexpected character %r" % c)
        # store the value; close finished containers
        while True:
            pos = _WS_RE.match(text, pos).end()
            if not stack:
                root, have_root = value, True
                break
            container, key = stack[-1]
            if isinstance(container, dict):
                container[key] = value  # type: ignore[index]
            else:
                container.append(value)
            if pos < len(text) and text[pos] == ",":
                pos = _WS_RE.match(text, pos + 1).end()
                if isinstance(container, dict):
                    pos = _read_key(text, pos, stack, fail)
                break
            close = "}" if isinstance(container, dict) else "]"
            if pos < len(text) and text[pos] == close:
                stack.pop()
                value = container
                pos += 1
                continue
            raise fail("expected ',' or '%s'" % close)
        if have_root:
            if pos != len(text):
                raise fail("extra data after the JSON value")
            return root


def _read_key(text: str, pos: int, stack: List[Tuple[Any, Optional[str]]], fail: Any) -> int:
    """Read `"key" :` of an object member; the key goes on the top of the stack."""
    if pos >= len(text) or text[pos] != '"':
        raise fail("key must be a string")
    try:
        key, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
    except ValueError as e:
        raise fail(str(e)) from None
    pos = _WS_RE.match(text, pos).end()
    if pos >= len(text) or text[pos] != ":":
        raise fail("expected ':'")
    stack[-1] = (stack[-1][0], key)
    return _WS_RE.match(text, pos + 1).end()


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
    __slots__ = ("value", "pointer", "base")

    def __init__(self, value: Any, pointer: str, base: str) -> None:
        self.value = value
        self.pointer = pointer
        self.base = base


class _Index:
    """Every subschema as a node (an int): its value, JSON pointer and base URI; the
    resources (`$id`) and anchors `$ref` resolves against. Built without recursion."""

    def __init__(self, root: Any) -> None:
        self.nodes: List[_Node] = [_Node(True, "", ""), _Node(False, "", "")]
        self.node_of: Dict[int, int] = {}
        self.resources: Dict[str, int] = {}
        self.anchors: Dict[str, int] = {}
        self.keep: List[Any] = []  # synthesized schemas (their ids must stay unique)
        self.root = self.add(root, "", "")
        self.resources.setdefault("", self.root)

    def add(self, value: Any, pointer: str, base: str) -> int:
        """Index `value` (a schema) and the subschemas under it; its node."""
        first = self._register(value, pointer, base)
        stack = [first]
        while stack:
            n = stack.pop()
            node = self.nodes[n]
            v = node.value
            if not isinstance(v, dict):
                continue
            children: List[Tuple[Any, str]] = []
            for key, child in v.items():
                p = node.pointer + "/" + _escape_pointer(key)
                if key in _SCHEMA_VALUE:
                    if key == "items" and isinstance(child, list):
                        children.extend((c, "%s/%d" % (p, i)) for i, c in enumerate(child))
                    else:
                        children.append((child, p))
                elif key in _SCHEMA_MAP:
                    if isinstance(child, dict):
                        children.extend((c, p + "/" + _escape_pointer(k)) for k, c in child.items())
                elif key in _SCHEMA_LIST:
                    if isinstance(child, list):
                        children.extend((c, "%s/%d" % (p, i)) for i, c in enumerate(child))
                elif key == "dependencies" and isinstance(child, dict):
                    children.extend((c, p + "/" + _escape_pointer(k)) for k, c in child.items()
                                    if isinstance(c, (dict, bool)))
            for child, p in reversed(children):
                if isinstance(child, (dict, bool)) and (isinstance(child, bool) or id(child) not in self.node_of):
                    m = self._register(child, p, node.base)
                    if m > _FALSE:
                        stack.append(m)
        return first

    def _register(self, value: Any, pointer: str, base: str) -> int:
        if value is True:
            return _TRUE
        if value is False:
            return _FALSE
        if not isinstance(value, dict):
            raise SchemaError("schema must be an object or boolean, got %s" % _short(value), pointer)
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
        self.nodes.append(_Node(value, pointer, base))
        self.node_of[id(value)] = n
        return n

    def synth(self, value: Any, pointer: str, base: str) -> int:
        """A node for a schema made by the compiler (kept alive, so ids stay unique)."""
        if isinstance(value, bool):
            return _TRUE if value else _FALSE
        self.keep.append(value)
        return self.add(value, pointer, base)

    def node(self, value: Any) -> int:
        """The node of a (sub)schema value already indexed."""
        if value is True:
            return _TRUE
        if value is False:
            return _FALSE
        return self.node_of[id(value)]

    def resolve(self, ref: str, n: int, keyword: str = "$ref") -> int:
        """The node `ref` (in node n) points to; SchemaError for unknown references."""
        node = self.nodes[n]
        pointer = node.pointer + "/" + keyword
        target = _urljoin(node.base, ref)
        doc, _, frag = target.partition("#")
        frag = _unquote(frag)
        root = self.resources.get(doc)
        if root is None:
            raise SchemaError("unknown $ref '%s' (only references into this schema are "
                              "supported; remote schemas are not fetched)" % ref, pointer)
        if not frag:
            return root
        if not frag.startswith("/"):
            m = self.anchors.get(doc + "#" + frag)
            if m is None:
                raise SchemaError("unknown $ref '%s' (no anchor '%s')" % (ref, frag), pointer)
            return m
        value = self.nodes[root].value
        base = self.nodes[root].base
        path = self.nodes[root].pointer
        for token in frag.split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(value, dict) and token in value:
                value = value[token]
            elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
                value = value[int(token)]
            else:
                raise SchemaError("unknown $ref '%s' (nothing at that JSON pointer)" % ref, pointer)
            path += "/" + _escape_pointer(token)
            if isinstance(value, dict) and isinstance(value.get("$id"), str):
                base = _urljoin(base, value["$id"])
        if not isinstance(value, (dict, bool)):
            raise SchemaError("$ref '%s' does not point to a schema" % ref, pointer)
        if isinstance(value, dict) and id(value) in self.node_of:
            return self.node_of[id(value)]
        return self.add(value, path, base)


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
