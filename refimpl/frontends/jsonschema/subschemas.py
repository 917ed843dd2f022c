"""The subschemas of a schema: every subschema as a node (an int) with its value, JSON
pointer and base URI, and the resources (`$id`) and anchors `$ref` resolves against.
Built without recursion, so 10,000-deep schemas are fine.

`SUBSCHEMA_KEYWORDS` names the keywords whose values hold subschemas; anything that walks
a schema's subschemas (here, and the conformance suite's readings of schemas) reads them
from it.

>>> s = Subschemas({"$defs": {"a": {"type": "integer"}}, "items": {"$ref": "#/$defs/a"}})
>>> n = s.resolve("#/$defs/a", s.root)
>>> s.pointer(n), s.nodes[n].value
('/$defs/a', {'type': 'integer'})
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, NamedTuple, Optional, Set, Tuple
from urllib.parse import unquote, urlsplit
from urllib.parse import urljoin as _urllib_join

from ...errors import SchemaError
from .values import escape_pointer, is_number, short, to_decimal


class SubschemaKeywords(NamedTuple):
    """The keywords whose values hold subschemas, by the shape of the value."""

    #: the value is one subschema (`items` may also be a list: drafts before 2020-12)
    single: Tuple[str, ...]
    #: the value is a list of subschemas
    listed: Tuple[str, ...]
    #: the value is an object whose values are subschemas (`dependencies`, drafts
    #: before 2019-09: also arrays of property names, which are not)
    named: Tuple[str, ...]


#: every keyword whose value holds subschemas (drafts 4 to 2020-12)
SUBSCHEMA_KEYWORDS = SubschemaKeywords(
    single=("additionalProperties", "items", "contains", "not", "if", "then", "else", "propertyNames",
            "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema"),
    listed=("allOf", "anyOf", "oneOf", "prefixItems", "items"),
    named=("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"),
)

#: annotations and identifiers: accepted, no effect on the language
ANNOTATIONS = frozenset((
    "$schema", "$id", "id", "$anchor", "$dynamicAnchor", "$defs", "definitions", "$comment",
    "$vocabulary", "title", "description", "default", "examples", "deprecated", "readOnly",
    "writeOnly", "contentMediaType", "contentEncoding", "contentSchema", "format_annotation",
))

#: every keyword draft 2020-12 (and the older drafts' leftovers) defines; anything else is
#: an unknown keyword, which JSON schema says to ignore (it is an annotation)
KNOWN = frozenset((
    "$ref", "$dynamicRef", "$recursiveRef", "$recursiveAnchor", "allOf", "anyOf", "oneOf", "not",
    "if", "then", "else", "dependentSchemas", "dependencies", "prefixItems", "items",
    "additionalItems", "contains", "properties", "patternProperties", "additionalProperties",
    "propertyNames", "unevaluatedItems", "unevaluatedProperties", "type", "enum", "const",
    "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
    "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
    "maxProperties", "minProperties", "required", "dependentRequired", "format",
)) | ANNOTATIONS

TYPES = ("null", "boolean", "number", "string", "array", "object")
#: keywords whose strings an instance's text must match (see Subschemas._check_matched_strings)
MATCHED = ("const", "enum", "required", "dependentRequired", "dependencies")
_SURROGATE = re.compile("[\ud800-\udfff]")
TRUE, FALSE = 0, 1  # node ids of the boolean schemas


class Node:
    """A subschema: its value, where it is (parent node and the pointer tokens from it:
    pointers are made on demand, so a 10,000-deep schema does not store 10,000 long
    strings), and its base URI."""

    __slots__ = ("value", "parent", "token", "base")

    def __init__(self, value: Any, parent: int, token: str, base: str) -> None:
        self.value = value
        self.parent = parent
        self.token = token
        self.base = base


class Subschemas:
    """Every subschema of one schema as a node (an int): its value, JSON pointer and base
    URI; the resources (`$id`) and anchors `$ref` resolves against. Built without
    recursion. Nodes 0 and 1 are the schemas `true` and `false`."""

    def __init__(self, root: Any) -> None:
        self.nodes: List[Node] = [Node(True, -1, "", ""), Node(False, -1, "", "")]
        self.node_of: Dict[int, int] = {}
        self.resources: Dict[str, int] = {}
        self.anchors: Dict[str, int] = {}
        self.keep: List[Any] = []  # synthesized schemas (their ids must stay unique)
        self._consts: Dict[int, int] = {}  # id of a const/enum value -> its const_node
        self.root = self.add(root, -1, "", "")
        self.resources.setdefault("", self.root)

    def pointer(self, n: int, keyword: str = "") -> str:
        """The JSON pointer of node n ("" for the root), or of its `keyword`."""
        parts = [escape_pointer(keyword)] if keyword else []
        while n >= 0 and self.nodes[n].token:
            parts.append(self.nodes[n].token)
            n = self.nodes[n].parent
        return "".join("/" + t for t in reversed(parts))

    def label(self, n: int, depth: int = 2) -> str:
        """The last few tokens of node n's pointer (a short name)."""
        parts: List[str] = []
        while n >= 0 and self.nodes[n].token and len(parts) < depth:
            parts.append(self.nodes[n].token)
            n = self.nodes[n].parent
        more = "…" if n >= 0 and self.nodes[n].token else ""
        return more + "".join("/" + t for t in reversed(parts))

    def add(self, value: Any, parent: int, token: str, base: str) -> int:
        """Add `value` (a schema) and the subschemas under it; its node."""
        first = self._register(value, parent, token, base)
        stack = [first]
        while stack:
            n = stack.pop()
            node = self.nodes[n]
            v = node.value
            if not isinstance(v, dict):
                continue
            self._check_matched_strings(n, v)
            children: List[Tuple[Any, str]] = []
            for key, child in v.items():
                k = escape_pointer(key)
                if key == "items" and isinstance(child, list):
                    children.extend((c, "%s/%d" % (k, i)) for i, c in enumerate(child))
                elif key in SUBSCHEMA_KEYWORDS.single:
                    children.append((child, k))
                elif key == "dependencies":  # its values may be arrays of names: those are not schemas
                    if isinstance(child, dict):
                        children.extend((c, k + "/" + escape_pointer(name)) for name, c in child.items()
                                        if not isinstance(c, list))
                elif key in SUBSCHEMA_KEYWORDS.named:
                    if not isinstance(child, dict):
                        raise SchemaError("%s must be an object" % key, self.pointer(n, key))
                    children.extend((c, k + "/" + escape_pointer(name)) for name, c in child.items())
                elif key in SUBSCHEMA_KEYWORDS.listed:
                    if not isinstance(child, list):
                        raise SchemaError("%s must be an array" % key, self.pointer(n, key))
                    children.extend((c, "%s/%d" % (k, i)) for i, c in enumerate(child))
            for child, t in reversed(children):
                if not isinstance(child, (dict, bool)):
                    raise SchemaError("schema must be an object or boolean, got %s" % short(child),
                                      self.pointer(n) + "/" + t)
                if isinstance(child, dict) and id(child) not in self.node_of:
                    stack.append(self._register(child, n, t, node.base))
        return first

    def _check_matched_strings(self, n: int, v: Dict[str, Any]) -> None:
        """The strings an instance's text must match (in const, enum, required,
        dependentRequired, dependencies and property names) must be Unicode scalar
        values: a lone surrogate (JSON can write "\\ud800") is in no UTF-8 text, and
        maskref does not match JSON escapes of one — a SchemaError, not a crash."""
        stack: List[Tuple[Any, str]] = [(v[k], "/" + k) for k in MATCHED if k in v]
        properties = v.get("properties")
        if isinstance(properties, dict):
            stack.extend((name, "/properties") for name in properties)
        while stack:
            x, where = stack.pop()
            if isinstance(x, str):
                if _SURROGATE.search(x):
                    shown = x.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
                    raise SchemaError('the string "%s" holds a lone surrogate, which no UTF-8 text can: maskref '
                                      "does not match it" % shown, self.pointer(n) + where)
            elif isinstance(x, list):
                stack.extend((y, where) for y in x)
            elif isinstance(x, dict):
                stack.extend((k, where) for k in x)
                stack.extend((y, where) for y in x.values())

    def _register(self, value: Any, parent: int, token: str, base: str) -> int:
        if value is True:
            return TRUE
        if value is False:
            return FALSE
        if not isinstance(value, dict):
            where = (self.pointer(parent) if parent >= 0 else "") + ("/" + token if token else "")
            raise SchemaError("schema must be an object or boolean, got %s" % short(value), where)
        n = self.node_of.get(id(value))
        if n is not None:
            return n
        sid = value.get("$id")
        if isinstance(sid, str):
            base = urljoin(base, sid)
            self.resources.setdefault(base, len(self.nodes))
        for key in ("$anchor", "$dynamicAnchor"):
            anchor = value.get(key)
            if isinstance(anchor, str):
                self.anchors.setdefault(base + "#" + anchor, len(self.nodes))
        n = len(self.nodes)
        self.nodes.append(Node(value, parent, token, base))
        self.node_of[id(value)] = n
        return n

    def dynamic_anchors(self, name: str) -> Set[str]:
        """The resources that define `$dynamicAnchor: name`."""
        return {key.partition("#")[0] for key, n in self.anchors.items()
                if key.partition("#")[2] == name and isinstance(self.nodes[n].value, dict)
                and self.nodes[n].value.get("$dynamicAnchor") == name}

    def resolve(self, ref: str, n: int, keyword: str = "$ref") -> int:
        """The node `ref` (in node n) points to; SchemaError for unknown references."""
        node = self.nodes[n]
        target = urljoin(node.base, ref)
        doc, _, frag = target.partition("#")
        frag = unquote(frag)
        root = self.resources.get(doc)
        if root is None:
            raise SchemaError("unknown $ref '%s' (only references into this schema are "
                              "supported; remote schemas are not fetched)" % ref, self.pointer(n, keyword))
        if not frag:
            return root
        if not frag.startswith("/"):
            m = self.anchors.get(doc + "#" + frag)
            if m is None:
                raise SchemaError("unknown $ref '%s' (no anchor '%s')" % (ref, frag), self.pointer(n, keyword))
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
                                  self.pointer(n, keyword))
            path.append(escape_pointer(token))
            if isinstance(value, dict) and isinstance(value.get("$id"), str):
                base = urljoin(base, value["$id"])
        if not isinstance(value, (dict, bool)):
            raise SchemaError("$ref '%s' does not point to a schema" % ref, self.pointer(n, keyword))
        if isinstance(value, dict) and id(value) in self.node_of:
            return self.node_of[id(value)]
        return self.add(value, root, "/".join(path), base)

    # -- reading a node -----------------------------------------------------------------

    def value(self, n: int) -> Any:
        """The schema of node n: a dict, True or False."""
        return self.nodes[n].value

    def child(self, n: int, value: Any) -> int:
        """The node of a subschema value found inside node n."""
        if value is True:
            return TRUE
        if value is False:
            return FALSE
        got = self.node_of.get(id(value))
        if got is None:
            raise SchemaError("schema must be an object or boolean, got %s" % short(value), self.pointer(n))
        return got

    def list_of(self, n: int, keyword: str) -> List[int]:
        """The nodes of the subschemas listed by `keyword` of node n (allOf, anyOf and
        oneOf must not be empty)."""
        items = self.nodes[n].value[keyword]
        if not isinstance(items, list):
            raise SchemaError("%s must be an array" % keyword, self.pointer(n, keyword))
        if not items and keyword in ("allOf", "anyOf", "oneOf"):
            raise SchemaError("%s must be a non-empty array" % keyword, self.pointer(n, keyword))
        return [self.child(n, x) for x in items]

    def types(self, n: int) -> Optional[Set[str]]:
        """The names in node n's `type` (None: no `type`)."""
        v = self.nodes[n].value
        t = v.get("type") if isinstance(v, dict) else None
        if t is None:
            return None
        names = [t] if isinstance(t, str) else t
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
            raise SchemaError("type must be a string or an array of strings", self.pointer(n, "type"))
        for x in names:
            if x not in TYPES and x != "integer":
                raise SchemaError("unknown type '%s'" % x, self.pointer(n, "type"))
        return set(names)

    def count(self, n: int, keyword: str) -> Optional[int]:
        """A non-negative integer keyword of node n (2.0 counts as 2); None if absent."""
        v = self.nodes[n].value
        if keyword not in v:
            return None
        x = v[keyword]
        if is_number(x) and to_decimal(x) >= 0 and to_decimal(x) == int(to_decimal(x)):
            return int(to_decimal(x))
        raise SchemaError("%s must be a non-negative integer, got %s" % (keyword, short(x)), self.pointer(n, keyword))

    def flag(self, n: int, keyword: str) -> bool:
        """A boolean keyword of node n (`uniqueItems`); False if absent."""
        x = self.nodes[n].value.get(keyword, False)
        if isinstance(x, bool):
            return x
        raise SchemaError("%s must be a boolean, got %s" % (keyword, short(x)), self.pointer(n, keyword))

    # -- subschemas made by the compiler --------------------------------------------------

    def synth(self, value: Any, n: int, what: str) -> int:
        """A node for a schema made by the compiler for node n (kept alive, so ids stay
        unique; its pointer is n's, followed by `what`)."""
        if isinstance(value, bool):
            return TRUE if value else FALSE
        self.keep.append(value)
        return self.add(value, n, what, self.nodes[n].base)

    def const_node(self, value: Any, n: int) -> int:
        """A node whose only instance is the array or object `value` (found in node n),
        built without recursion: exact length / exact properties, each item or member a
        const."""
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


def urljoin(base: str, ref: str) -> str:
    """RFC 3986 reference resolution, also for non-hierarchical schemes (urn:, tag:)."""
    if not base:
        return ref
    if ref.startswith("#"):
        return base.partition("#")[0] + ref
    if urlsplit(ref).scheme:
        return ref
    scheme = urlsplit(base).scheme
    if scheme and scheme not in ("http", "https", "file", "ftp"):
        # urljoin does not resolve against unknown schemes: do it as for a path
        joined = _urllib_join("http://x/" + base.partition(":")[2], ref)
        return scheme + ":" + joined[len("http://x/"):]
    return _urllib_join(base, ref)


def trivial(value: Any) -> bool:
    """Is this schema `true` or a dict with no constraining keyword of its own?"""
    if value is True:
        return True
    if not isinstance(value, dict):
        return False
    return all(k in ANNOTATIONS or k not in KNOWN for k in value)
