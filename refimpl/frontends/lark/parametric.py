"""Parametric rules (llguidance's docs/parametric.md), expanded into plain rules.

A parametric rule `name::_: ...` stands for one rule per 64-bit value `p` of its
parameter. Inside its body, `other::expr` refers to the instance of `other` for the value
of `expr` (a function of `p`: a constant, `_`, `set_bit(k)`, `incr([x:y])`, ...), and an
alternative may end with `%if condition` (a predicate on `p`): for a given `p` only the
alternatives whose condition holds exist.

llguidance instantiates these rules lazily while parsing. maskref instantiates them
eagerly, in the frontend: starting from `start` it walks every rule it reaches, and each
reference `name::expr` met in the instance for `p` names the plain rule `name::0x<v>` with
`v = expr(p)`, queued once. The output is the same list of items with every parametric
reference resolved and conditions dropped (a false condition removes its alternative),
so the compiler and the engine see ordinary rules. The number of instances is bounded by
`Limits.parametric_instances` (LimitError): a grammar whose reachable instances are
unbounded in practice (say `a::_: "a" a::incr(_) | ""`, 2**64 instances) is refused where
llguidance would accept it and only slow down. The walks use explicit stacks.

>>> from refimpl.limits import DEFAULT_LIMITS
>>> from refimpl.frontends.lark.scanner import scan
>>> from refimpl.frontends.lark.reader import Reader
>>> text = 'start: ab::0\\nab::_: "a" ab::set_bit(0) %if bit_clear(0)\\n | "b"'
>>> items = Reader(text, scan(text), DEFAULT_LIMITS).read_grammar()
>>> sorted(d.name for d in expand(text, items, DEFAULT_LIMITS))
['ab::0x0', 'ab::0x1', 'start']
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from ...errors import GrammarError, LimitError
from ...limits import Limits
from ..digits import int_of_text, is_digits
from .ast import Alt, And, Cond, Definition, Item, Name, Node, Not, Repeat, Seq, fold
from .scanner import Token

#: a parameter expression: ("const", v, 0), ("self", 0, 0), ("incr"|"decr", x, y), ("or"|"and", v, 0)
ParamExpr = Tuple[str, int, int]
#: a condition in postfix form: leaves ("true",), ("cmp", op, x, y, v), ("count", op, x, y, k);
#: operators ("and",), ("or",), ("not",)
ParamCond = Tuple[Tuple[Any, ...], ...]

BITS = 64
MASK64 = (1 << BITS) - 1
_COMPARE = {"eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge"}
_COUNT = {"bit_count_" + k: k for k in _COMPARE}
_ARITY = {"and": 2, "or": 2, "not": 1}


def _mask(x: int, y: int) -> int:
    return ((1 << (y - x)) - 1) << x


def eval_expr(expr: ParamExpr, p: int) -> int:
    """The value of a parameter expression for the current parameter `p`.

    >>> eval_expr(("incr", 0, 2), 3), eval_expr(("incr", 0, 2), 1), eval_expr(("decr", 2, 4), 0)
    (3, 2, 0)
    """
    op, a, b = expr
    if op == "const":
        return a
    if op == "self":
        return p
    if op == "or":
        return p | a
    if op == "and":
        return p & a
    m = _mask(a, b)
    if op == "incr":
        return p if p & m == m else (p + (1 << a)) & MASK64
    return p if p & m == 0 else p - (1 << a)


def _compare(op: str, left: int, right: int) -> bool:
    if op == "eq":
        return left == right
    if op == "ne":
        return left != right
    if op == "lt":
        return left < right
    if op == "le":
        return left <= right
    if op == "gt":
        return left > right
    return left >= right


def eval_cond(cond: ParamCond, p: int) -> bool:
    """The truth of a postfix condition for the parameter `p` (a value stack, no recursion).

    >>> eval_cond((("cmp", "eq", 0, 3, 7), ("not",)), 7), eval_cond((("count", "ge", 0, 64, 2),), 5)
    (False, True)
    """
    stack: List[bool] = []
    for step in cond:
        kind = step[0]
        if kind == "true":
            stack.append(True)
        elif kind in ("cmp", "count"):
            _, op, x, y, v = step
            field = (p & _mask(x, y)) >> x
            stack.append(_compare(op, bin(field).count("1") if kind == "count" else field, v))
        elif kind == "not":
            stack.append(not stack.pop())
        else:
            right, left = stack.pop(), stack.pop()
            stack.append(left and right if kind == "and" else left or right)
    return stack[0]


def is_true(cond: ParamCond) -> bool:
    return cond == (("true",),)


class ParamSyntax:
    """Read `::expr` and `%if cond` from the token list of the Lark reader (reader.py).

    `reader` provides peek(), advance(), expect(kind, message) and error(message, tok).
    """

    def __init__(self, reader: Any) -> None:
        self.p = reader

    def _word(self, what: str) -> Token:
        return self.p.expect("RULE", "expected %s" % what)

    def _number(self, what: str) -> int:
        tok = self.p.peek()
        if tok.kind == "HEX":
            value = int(tok.value[2:], 16)
        elif tok.kind == "NUMBER" and is_digits(tok.value):
            value = int_of_text(tok.value)
        else:
            raise self.p.error("expected %s (a number), found %s" % (what, tok.describe()), tok)
        if value > MASK64:
            raise self.p.error("number %s does not fit in 64 bits" % tok.value, tok)
        self.p.advance()
        return value

    def _bit(self, limit: int, what: str) -> int:
        tok = self.p.peek()
        value = self._number(what)
        if value > limit:
            raise self.p.error("number %d is too large; must be <= %d" % (value, limit), tok)
        return value

    def _range(self) -> Tuple[int, int]:
        """`_` (all 64 bits) or `[x:y]`."""
        tok = self.p.peek()
        if tok.kind == "_":
            self.p.advance()
            return 0, BITS
        self.p.expect("[", "expected '_' or '[start_bit:stop_bit]'")
        x = self._bit(BITS - 1, "a start bit index")
        self.p.expect(":", "expected ':' in a bit range [start_bit:stop_bit]")
        y = self._bit(BITS, "a stop bit index")
        self.p.expect("]", "expected ']' to close the bit range")
        if y <= x:
            raise self.p.error("end bit index %d must be > start bit index %d" % (y, x), tok)
        return x, y

    def _args(self, *kinds: str) -> List[Any]:
        """`(a, b)` where each kind is "range", "bit", "value" or "bitlen"."""
        self.p.expect("(", "expected '('")
        out: List[Any] = []
        for i, kind in enumerate(kinds):
            if i:
                self.p.expect(",", "expected ','")
            if kind == "range":
                out.append(self._range())
            elif kind == "bit":
                out.append(self._bit(BITS - 1, "a bit index"))
            else:
                out.append(self._number("a value"))
        self.p.expect(")", "expected ')'")
        return out

    def expr(self) -> ParamExpr:
        """The parameter expression after `name::`."""
        tok = self.p.peek()
        if tok.kind in ("NUMBER", "HEX"):
            return ("const", self._number("a parameter value"), 0)
        if tok.kind == "_":
            self.p.advance()
            return ("self", 0, 0)
        word = self._word("a parameter expression (a number, _, set_bit(k), incr([x:y]), ...)")
        name = word.value
        if name in ("incr", "decr"):
            (x, y), = self._args("range")
            return (name, x, y)
        if name in ("bit_and", "bit_or"):
            v, = self._args("value")
            return (name[4:], v, 0)
        if name in ("set_bit", "clear_bit"):
            k, = self._args("bit")
            return ("or", 1 << k, 0) if name == "set_bit" else ("and", MASK64 & ~(1 << k), 0)
        raise self.p.error("Unexpected expression '%s'" % name, word)

    def _leaf(self, word: Token) -> Tuple[Any, ...]:
        """One condition that is not and/or/not, its name already read."""
        name = word.value
        if name == "true":
            return ("true",)
        if name in _COMPARE:
            (x, y), v = self._args("range", "value")
            return ("cmp", name, x, y, v)
        if name in _COUNT:
            (x, y), k = self._args("range", "bit")
            return ("count", _COUNT[name], x, y, k)
        if name in ("bit_clear", "bit_set"):
            k, = self._args("bit")
            return ("cmp", "eq", k, k + 1, int(name == "bit_set"))
        if name in ("is_zeros", "is_ones"):
            (x, y), = self._args("range")
            return ("cmp", "eq", x, y, 0 if name == "is_zeros" else (1 << (y - x)) - 1)
        raise self.p.error("Unexpected condition '%s'" % name, word)

    def cond(self) -> ParamCond:
        """The condition after `%if`, in postfix form; and/or/not nest on an explicit stack
        of (operator, arity, operands read so far)."""
        out: List[Tuple[Any, ...]] = []
        open_ops: List[List[Any]] = []
        while True:
            word = self._word("a condition (bit_clear(k), lt([x:y], v), and(c, c), ...)")
            if word.value in _ARITY:
                self.p.expect("(", "expected '(' after '%s'" % word.value)
                open_ops.append([word.value, _ARITY[word.value], 0])
                continue
            out.append(self._leaf(word))
            while open_ops:
                top = open_ops[-1]
                top[2] += 1
                if top[2] < top[1]:
                    self.p.expect(",", "expected ',' between the conditions of '%s'" % top[0])
                    break
                self.p.expect(")", "expected ')' to close '%s'" % top[0])
                out.append((top[0],))
                open_ops.pop()
            if not open_ops:
                return tuple(out)


def _children(node: Node) -> Optional[List[Node]]:
    if isinstance(node, (Alt,)):
        return node.options
    if isinstance(node, (Seq,)):
        return node.items
    if isinstance(node, And):
        return node.parts
    if isinstance(node, (Repeat, Not, Cond)):
        return [node.node]
    return None


def needs_param(body: Node) -> bool:
    """Whether a body depends on its parameter: a condition other than `true`, or a
    reference `x::expr` whose expression is not a constant (llguidance's rule)."""
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, Cond) and not is_true(node.cond):
            return True
        if isinstance(node, Name) and node.param is not None and node.param[0] != "const":
            return True
        stack.extend(_children(node) or ())
    return False


def _rebuild(node: Node, kids: List[Any]) -> Node:
    """`node` with new children `kids` (None for a false condition: only among an Alt's)."""
    if isinstance(node, Alt):
        return Alt(node.offset, [k for k in kids if k is not None])
    if isinstance(node, Seq):
        return Seq(node.offset, kids)
    if isinstance(node, And):
        return And(node.offset, kids)
    if isinstance(node, Repeat):
        return Repeat(node.offset, kids[0], node.lo, node.hi)
    assert isinstance(node, Not)
    return Not(node.offset, kids[0])


class _Expander:
    """The worklist of rule instances: (name, parameter or None) -> its plain Definition."""

    def __init__(self, text: str, items: Sequence[Item], limits: Limits) -> None:
        self.text = text
        self.limits = limits
        self.rules: Dict[str, Definition] = {}
        for item in items:
            if isinstance(item, Definition) and item.kind == "rule":
                if item.name in self.rules:
                    raise self.error("duplicate rule: '%s'" % item.name, item.offset)
                self.rules[item.name] = item
        self.done: Dict[str, Definition] = {}
        self.todo: List[Tuple[Definition, Optional[int], str]] = []

    def error(self, message: str, offset: int) -> GrammarError:
        return GrammarError(message, self.text, offset)

    def instance(self, ref: Name, p: Optional[int]) -> str:
        """The plain rule name a reference stands for, queueing its instance."""
        target = self.rules.get(ref.name) if ref.namespace is None else None
        if target is None:
            if ref.param is not None:
                raise self.error("rule '%s' is not defined (it is given a parameter)" % ref.name, ref.offset)
            return ref.name
        if ref.param is None:
            if target.parametric:
                raise self.error("rule '%s' is parametric, but no parameter provided" % ref.name, ref.offset)
            self.queue(target, None, ref.name)
            return ref.name
        if not target.parametric:
            raise self.error("rule '%s' is not parametric, but parameter provided" % ref.name, ref.offset)
        value = eval_expr(ref.param, p if p is not None else 0)
        name = "%s::%#x" % (ref.name, value)
        self.queue(target, value, name)
        return name

    def queue(self, definition: Definition, p: Optional[int], name: str) -> None:
        if name in self.done:
            return
        if len(self.done) >= self.limits.parametric_instances:
            raise LimitError("parametric_instances", self.limits.parametric_instances,
                             "instances of parametric rules (at '%s')" % name)
        self.done[name] = definition  # a placeholder until expanded
        self.todo.append((definition, p, name))

    def body(self, root: Node, p: Optional[int]) -> Node:
        """`root` with its references resolved for parameter `p` (post-order, explicit stack)."""
        def children(node: Node) -> Optional[List[Node]]:
            if isinstance(node, Cond) and not eval_cond(node.cond, p or 0):
                return None  # a false condition: the alternative is gone (leaf None)
            return _children(node)

        def leaf(node: Node) -> Optional[Node]:
            return None if isinstance(node, Cond) else self.leaf(node, p)

        def combine(node: Node, kids: List[Optional[Node]]) -> Optional[Node]:
            return kids[0] if isinstance(node, Cond) else _rebuild(node, kids)

        value = fold(root, children, leaf, combine)
        return value if value is not None else Alt(getattr(root, "offset", 0), [])

    def leaf(self, node: Node, p: Optional[int]) -> Node:
        if isinstance(node, Name) and node.namespace is None:
            name = self.instance(node, p)
            if name != node.name or node.param is not None:
                return Name(node.offset, name, None)
        return node

    def run(self) -> None:
        while self.todo:
            definition, p, name = self.todo.pop()
            self.done[name] = Definition("rule", name, definition.offset, self.body(definition.body, p),
                                         definition.options)


def _check(definition: Definition, text: str) -> None:
    """llguidance's rule: a parametric body must use its parameter, a plain one must not."""
    uses = needs_param(definition.body)
    if definition.parametric and not uses:
        raise GrammarError("rule '%s' is parametric, but its body doesn't need parameters"
                           % definition.name, text, definition.offset)
    if not definition.parametric and uses:
        raise GrammarError("rule '%s' is not parametric, but its body requires parameters"
                           % definition.name, text, definition.offset)


def expand(text: str, items: List[Item], limits: Limits) -> List[Item]:
    """The items with parametric rules replaced by the instances reachable from `start`
    (plain rules named `name::0x<v>`); items without any parametric syntax are returned as
    they are."""
    if not any(isinstance(i, Definition) and i.kind == "rule" and (i.parametric or _has_syntax(i.body))
               for i in items):
        return items
    for item in items:
        if isinstance(item, Definition) and item.kind == "rule":
            _check(item, text)
    ex = _Expander(text, items, limits)
    start = ex.rules.get("start")
    if start is not None:
        if start.parametric:
            raise GrammarError("rule 'start' is parametric, but no parameter provided", text, start.offset)
        ex.queue(start, None, "start")
        ex.run()
    out: List[Item] = [i for i in items if not (isinstance(i, Definition) and i.kind == "rule")]
    return out + list(ex.done.values())


def _has_syntax(body: Node) -> bool:
    """Whether a body has a reference `x::expr` or a condition."""
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, Cond) or (isinstance(node, Name) and node.param is not None):
            return True
        stack.extend(_children(node) or ())
    return False
