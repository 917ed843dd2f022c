"""The in-place applicators of a subschema — `allOf`, `anyOf`, `oneOf`, `not`, `$ref` (and
`$dynamicRef`), `if`/`then`/`else` — whose subschemas apply to the same value as it, and a
bottom-up fold over them: how profiles.py and scalars.py combine what each subschema
allows. No recursion: the fold keeps an explicit stack, so a 10,000-deep `allOf` is fine.

>>> from refimpl.frontends.jsonschema.compiler import compiler_for
>>> c = compiler_for({"$defs": {"d": {"type": "string"}}, "allOf": [{"$ref": "#/$defs/d"}], "not": {"const": 1}})
>>> s = c.comp.subschemas
>>> [(kw, [s.pointer(k) for k in kids]) for kw, kids in c.applicators.of(s.root)]
[('allOf', ['/allOf/0']), ('not', ['/not'])]
"""
from __future__ import annotations

from typing import Callable, Dict, List, Set, Tuple, TypeVar

from ...errors import SchemaError
from .compilation import Compilation, Unsupported
from .subschemas import TRUE
from .values import short

K = TypeVar("K")
V = TypeVar("V")

#: why `$recursiveRef` is not enforced
RECURSIVE_REF = "draft 2019-09 recursive references are not supported"


class Applicators:
    """The in-place applicators of the nodes of one compilation's subschemas."""

    def __init__(self, comp: Compilation) -> None:
        self.comp = comp
        self.subschemas = comp.subschemas

    def of(self, n: int) -> List[Tuple[str, List[int]]]:
        """The in-place applicators of node n: (keyword, subschema nodes), in key order;
        `$dynamicRef` is reported as `$ref`, `if` with its `then` and `else` (`true`
        when absent)."""
        subschemas = self.subschemas
        v = subschemas.value(n)
        if not isinstance(v, dict):
            return []
        out = []
        for key in v:
            if key in ("allOf", "anyOf", "oneOf"):
                out.append((key, subschemas.list_of(n, key)))
            elif key == "not":
                out.append((key, [subschemas.child(n, v[key])]))
            elif key in ("$ref", "$dynamicRef"):
                try:
                    out.append(("$ref", [self.ref_target(n, key)]))
                except Unsupported as e:
                    self.comp.unsupported(e.keyword, e.pointer, e.reason)
            elif key == "$recursiveRef":
                self.comp.unsupported(key, subschemas.pointer(n, key), RECURSIVE_REF)
            elif key == "if":
                kids = [subschemas.child(n, v["if"])]
                kids.append(subschemas.child(n, v["then"]) if "then" in v else TRUE)
                kids.append(subschemas.child(n, v["else"]) if "else" in v else TRUE)
                out.append(("if", kids))
        return out

    def ref_target(self, n: int, keyword: str) -> int:
        """The node that `$ref` or `$dynamicRef` (`keyword`) of node n points to;
        Unsupported for a `$dynamicRef` whose target depends on the dynamic scope."""
        subschemas = self.subschemas
        ref = subschemas.value(n)[keyword]
        if not isinstance(ref, str):
            raise SchemaError("%s must be a string, got %s" % (keyword, short(ref)), subschemas.pointer(n, keyword))
        target = subschemas.resolve(ref, n, keyword)
        if keyword == "$dynamicRef":
            # dynamic only if the fragment names the $dynamicAnchor of the target; then
            # the outermost resource of the dynamic scope defining it wins, which is
            # static when one resource defines it
            tv = subschemas.value(target)
            fragment = ref.partition("#")[2]
            anchor = tv.get("$dynamicAnchor") if isinstance(tv, dict) else None
            if anchor is not None and anchor == fragment and len(subschemas.dynamic_anchors(anchor)) > 1:
                raise Unsupported("$dynamicRef", subschemas.pointer(n, keyword),
                                  "the dynamic anchor '%s' is defined in several schema resources, so the "
                                  "target depends on the dynamic scope" % anchor)
        return target

    def fold(self, root: int, memo: Dict[K, V], key: Callable[[int], K],
             combine: Callable[[int, Callable[[int], V]], V], on_cycle: Callable[[int], V]) -> V:
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
                for _, kids in self.of(n):
                    for c in kids:
                        if key(c) not in memo and c not in in_progress:
                            stack.append((c, False))
                continue
            in_progress.discard(n)

            def get(c: int) -> V:
                kc = key(c)
                if kc in memo:
                    return memo[kc]
                return on_cycle(c)

            memo[k] = combine(n, get)
        return memo[key(root)]
