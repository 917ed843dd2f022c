"""JSON schemas as the predicates of known differences walk them: the keywords that hold
subschemas, every schema object of a schema, a schema rewritten subschema by subschema
(a peer's reading of it), and the keywords that bound a number.

>>> sorted(s.get("type", "-") for s in schemas({"items": {"type": "string"}, "properties": {"a": {}}}))
['-', '-', '-', 'string']
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, Iterator, List, Tuple

from refimpl.frontends.jsonschema import SUBSCHEMA_KEYWORDS  # the keywords that hold subschemas

#: the keywords that bound a number
NUMBER_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def schemas(node: Any) -> Iterator[Any]:
    """Every object in a JSON schema, nested ones included (explicit stack)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            yield n
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)


def rewrite_schemas(schema: Any, rewrite: Callable[[Dict[str, Any]], Any]) -> Any:
    """A copy of a JSON schema in which every schema object (the root and each subschema
    reached through the keywords that hold subschemas, never a `properties` map itself)
    is `rewrite(copy)`, applied bottom-up: the copy's subschemas are already rewritten.
    Explicit stacks, so the depth is the schema's, not Python's.

    >>> rewrite_schemas({"properties": {"type": {"items": {}}}}, lambda s: dict(s, seen=1))
    {'properties': {'type': {'items': {'seen': 1}, 'seen': 1}}, 'seen': 1}
    >>> list(rewrite_schemas({"properties": {"a": {}, "b": True, "c": 1}, "type": "object"}, dict)["properties"])
    ['a', 'b', 'c']
    """
    # (node, parent, key): a schema to copy, and where its rewritten copy goes
    holder: Dict[str, Any] = {}
    stack: List[Tuple[Any, Any, Any]] = [(schema, holder, "root")]
    done: List[Tuple[Dict[str, Any], Any, Any]] = []
    while stack:
        node, parent, key = stack.pop()
        if not isinstance(node, dict):
            parent[key] = copy.deepcopy(node)
            continue
        out: Dict[str, Any] = dict.fromkeys(node)  # the keys in their order (properties' order matters)
        for k, v in node.items():
            if k in SUBSCHEMA_KEYWORDS.single and isinstance(v, (dict, bool)):
                stack.append((v, out, k))
            elif k in SUBSCHEMA_KEYWORDS.listed and isinstance(v, list):
                out[k] = [None] * len(v)
                stack.extend((item, out[k], i) for i, item in enumerate(v))
            elif k in SUBSCHEMA_KEYWORDS.named and isinstance(v, dict):
                out[k] = dict.fromkeys(v)
                stack.extend((item, out[k], name) for name, item in v.items()
                             if isinstance(item, (dict, bool)))
                out[k].update((name, copy.deepcopy(item)) for name, item in v.items()
                              if not isinstance(item, (dict, bool)))
            else:
                out[k] = copy.deepcopy(v)
        done.append((out, parent, key))
    for out, parent, key in reversed(done):  # children were pushed after their parent: undo in reverse
        parent[key] = rewrite(out)
    return holder["root"]
