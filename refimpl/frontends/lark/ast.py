"""The syntax tree of a Lark grammar: expression nodes, and the definitions that hold them.

The reader (reader.py) builds them and the compiler (compiler.py) folds them; nothing
mutates them after parsing, so the parsed common library (common.py) is shared.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar, Union

from ...grammar.ir import TokenSpec


class Node:
    """An expression of a rule or terminal body; `offset` points into the grammar text."""

    __slots__ = ("offset",)


class Alt(Node):
    """a | b | ..."""

    __slots__ = ("options",)

    def __init__(self, offset: int, options: List[Node]) -> None:
        self.offset, self.options = offset, options


class And(Node):
    """a & b & ... (terminals only)."""

    __slots__ = ("parts",)

    def __init__(self, offset: int, parts: List[Node]) -> None:
        self.offset, self.parts = offset, parts


class Seq(Node):
    """a b ... (possibly empty: ε)."""

    __slots__ = ("items",)

    def __init__(self, offset: int, items: List[Node]) -> None:
        self.offset, self.items = offset, items


class Repeat(Node):
    """node{lo,hi}; hi None for unbounded. `x?`, `x*`, `x+`, `[x]` are repeats too."""

    __slots__ = ("node", "lo", "hi")

    def __init__(self, offset: int, node: Node, lo: int, hi: Optional[int]) -> None:
        self.offset, self.node, self.lo, self.hi = offset, node, lo, hi


class Not(Node):
    """~node: the complement (terminal expressions only)."""

    __slots__ = ("node",)

    def __init__(self, offset: int, node: Node) -> None:
        self.offset, self.node = offset, node


class Literal(Node):
    """"text" or "text"i."""

    __slots__ = ("text", "ci")

    def __init__(self, offset: int, text: str, ci: bool) -> None:
        self.offset, self.text, self.ci = offset, text, ci


class CharRange(Node):
    """"a".."z": one character between two (inclusive)."""

    __slots__ = ("lo", "hi")

    def __init__(self, offset: int, lo: str, hi: str) -> None:
        self.offset, self.lo, self.hi = offset, lo, hi


class RegexLit(Node):
    """/pattern/flags; `pattern_offset` is where the pattern starts in the grammar text."""

    __slots__ = ("pattern", "flags", "pattern_offset")

    def __init__(self, offset: int, pattern: str, flags: str, pattern_offset: int) -> None:
        self.offset, self.pattern, self.flags, self.pattern_offset = offset, pattern, flags, pattern_offset


class Substring(Node):
    """%regex {"substring_...": ...}: any run of consecutive chunks."""

    __slots__ = ("chunks",)

    def __init__(self, offset: int, chunks: List[str]) -> None:
        self.offset, self.chunks = offset, chunks


class Name(Node):
    """A reference to a rule or terminal; `namespace` is None, or "common" for imports.

    `param` is the parameter expression of `name::expr` (parametric.py), else None.
    """

    __slots__ = ("name", "namespace", "param")

    def __init__(self, offset: int, name: str, namespace: Optional[str],
                 param: Optional[Tuple[str, int, int]] = None) -> None:
        self.offset, self.name, self.namespace, self.param = offset, name, namespace, param


class Cond(Node):
    """`alternative %if condition` in a parametric rule; `cond` is the condition in
    postfix form (parametric.py), `cond_offset` where `%if` is."""

    __slots__ = ("node", "cond", "cond_offset")

    def __init__(self, offset: int, node: Node, cond: Tuple[Tuple[Any, ...], ...], cond_offset: int) -> None:
        self.offset, self.node, self.cond, self.cond_offset = offset, node, cond, cond_offset


class Json(Node):
    """%json {schema} (a nonterminal; compiled by compiler.compile_json)."""

    __slots__ = ("schema",)

    def __init__(self, offset: int, schema: Any) -> None:
        self.offset, self.schema = offset, schema


class GrammarRef(Node):
    """`@name`: the start of another grammar of the top-level grammar object
    (subgrammars.py)."""

    __slots__ = ("name",)

    def __init__(self, offset: int, name: str) -> None:
        self.offset, self.name = offset, name


class SpecialToken(Node):
    """`<|eot_id|>`, `<think>`, `<[5-9,12]>`, `<[^5]>`, `<[*]>`: one token by id (a token
    lexeme, bound to the vocabulary by the Matcher)."""

    __slots__ = ("spec",)

    def __init__(self, offset: int, spec: TokenSpec) -> None:
        self.offset, self.spec = offset, spec


class NestedLark(Node):
    """`%lark { ... }`: a grammar of its own (its items), with its own lexeme class and
    %ignore, compiled by subgrammars.py."""

    __slots__ = ("items",)

    def __init__(self, offset: int, items: List["Item"]) -> None:
        self.offset, self.items = offset, items


class RuleOptions:
    """`name[lazy, stop=..., suffix=..., max_tokens=N, temperature=T, capture="c",
    stop_capture="c"]:` — llguidance's rule options (compiler.py says what each does).

    `stop` is the stop expression of `stop=` or `suffix=` (`suffix` says which); `lazy`
    is llguidance's `suffix=//`. `stop=""` (`stop` an empty Literal) ends at EOS.
    """

    __slots__ = ("at", "lazy", "stop", "suffix", "max_tokens", "temperature", "capture", "stop_capture")

    def __init__(self) -> None:
        self.at: Dict[str, int] = {}  # where each option's name is written
        self.lazy = False
        self.stop: Optional[Node] = None
        self.suffix = False
        self.max_tokens: Optional[int] = None
        self.temperature: Optional[float] = None
        self.capture: Optional[str] = None
        self.stop_capture: Optional[str] = None

    def makes_lexeme(self) -> bool:
        """Is the body surely one lexeme (a terminal expression), whatever it is?"""
        return self.lazy or self.stop is not None

    def metadata(self) -> Dict[str, Any]:
        """What does not change masks: temperature and capture names."""
        out = {"temperature": self.temperature, "capture": self.capture, "stop_capture": self.stop_capture}
        return {k: v for k, v in out.items() if v is not None}


class Definition:
    """`name: body` — kind is "rule" or "terminal"; `options` for `name[...]:`;
    `parametric` for `name::_: body`."""

    __slots__ = ("kind", "name", "offset", "body", "options", "parametric")

    def __init__(self, kind: str, name: str, offset: int, body: Node, options: Optional[RuleOptions] = None,
                 parametric: bool = False) -> None:
        self.kind, self.name, self.offset, self.body, self.options = kind, name, offset, body, options
        self.parametric = parametric


class Ignore:
    """`%ignore body`."""

    __slots__ = ("offset", "body")

    def __init__(self, offset: int, body: Node) -> None:
        self.offset, self.body = offset, body


class Import:
    """`%import common...`: the (common name, local name, offset) of each imported terminal."""

    __slots__ = ("offset", "names")

    def __init__(self, offset: int, names: List[Tuple[str, str, int]]) -> None:
        self.offset, self.names = offset, names


class Options:
    """`%llguidance {...}`: `value` is the JSON value, `offset` where it starts."""

    __slots__ = ("offset", "value")

    def __init__(self, offset: int, value: Any) -> None:
        self.offset, self.value = offset, value


#: one item of a grammar: what the parser returns a list of
Item = Union[Definition, Ignore, Import, Options]


T = TypeVar("T")


def fold(root: Node, children: Callable[[Node], Optional[List[Node]]], leaf: Callable[[Node], T],
         combine: Callable[[Node, List[T]], T]) -> T:
    """Fold an expression tree bottom-up, with an explicit stack (a 10,000-deep grammar is
    fine): `children(node)` lists what to fold first (None: a leaf, valued `leaf(node)`),
    and a node's value is `combine(node, its children's values)`. Children are asked for
    in preorder, so a `children` that keeps state (cycle checks) sees the usual order."""
    values: List[T] = []
    stack: List[Tuple[Node, int]] = [(root, -1)]
    while stack:
        node, n = stack.pop()
        if n < 0:  # first visit: push the children (or value a leaf)
            kids = children(node)
            if kids is None:
                values.append(leaf(node))
            else:
                stack.append((node, len(kids)))
                stack.extend((kid, -1) for kid in reversed(kids))
            continue
        args = values[len(values) - n:]
        del values[len(values) - n:]
        values.append(combine(node, args))
    return values[0]
