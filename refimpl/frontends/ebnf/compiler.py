"""Character grammar (ast.py) -> GrammarIR, with lexemes where lexing is exact.

A GBNF grammar has no lexer: its terminals are code points. Parsing it code point by code
point with Earley would be exact and slow, so the compiler groups regular parts into
lexemes — and only where maskref's greedy lexer then accepts exactly the same language
(lexing.py decides; docs/ebnf.md explains why the condition suffices):

1. A rule is *regular* if it reaches no token and no rule on a cycle; its body is then
   one regular expression (`Build.regex`).
2. In a sequence, each maximal run of regular items becomes one lexeme (`"{" ws` is one
   lexeme, `string` another); other items become nonterminals and EBNF rules
   (grammar/repetition.py for repetitions).
3. lexing.py checks every lexeme against everything that may follow it. A lexeme that
   could swallow the start of what follows is cut in smaller parts: a run into its items,
   an item into its structure, down to single code points if need be; a terminal with no
   structure to cut (a regex, a substring set) becomes the automaton of its derivatives,
   one byte per lexeme (`Build.automaton`). A grammar of single-code-point or single-byte
   lexemes is always exact. Then the grammar is built again.

>>> from refimpl.frontends.ebnf.gbnf import read_rules
>>> rules = read_rules('root ::= "[" (item ("," item)*)? "]"\\nitem ::= [a-z]+ | root\\n')
>>> print(compile_rules(rules, "root").to_text())
root: /\\[/ _4? /\\]/
item: /[a-z]+/
 | root
_2: /,/ item
_2*: _2* _2
 | ""
_4: item _2*
_4?: _4
 | ""
<BLANKLINE>
>>> print(compile_rules(read_rules('root ::= x "b"\\nx ::= [a-z]+ | "(" root ")"\\n'), "root").to_text())
root: x /b/
x: /[a-z]/+
 | /\\(/ root /\\)/
/[a-z]/+: /[a-z]/+ /[a-z]/
 | /[a-z]/
<BLANKLINE>
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple, Union

from ...errors import GrammarError, LimitError
from ...grammar.ir import GrammarIR, Lexeme
from ...grammar.repetition import repeat as ebnf_repeat
from ...limits import DEFAULT_LIMITS, Limits
from ...regex import ExprSet
from ...regex.compiler import compile_ast, compile_class
from ...regex.derivative import derivative
from ...regex.printer import to_string
from ...regex.relevance import check_empty
from ..lark.substring import substring_expr
from .ast import (
    ANY_CHAR,
    Alt,
    Budget,
    Chars,
    Excluding,
    Literal,
    Node,
    Pattern,
    Ref,
    Repeat,
    Seq,
    Shortest,
    Substring,
    Token,
    children,
)
from .lexing import Conflicts

#: where a lexeme came from: one node, or a run of items of a sequence (seq, start, end)
Source = Union[Node, Tuple[Seq, int, int]]
Unit = Source  # what `Build.symbols` folds: a node, or a run compiled as one lexeme

#: a lexeme's name is its pattern, cut after this many characters (a regular rule's
#: expression can print exponentially larger than it is)
NAME_LIMIT = 200


class Cuts:
    """What must not be one lexeme: nodes compiled as structure (`nodes`), sequences whose
    regular runs are not merged (`unmerged`), and regular rules compiled as nonterminals
    (`rules`). Only ever grows, so the rebuilding loop ends."""

    def __init__(self) -> None:
        self.nodes: Set[int] = set()
        self.unmerged: Set[int] = set()
        self.rules: Set[str] = set()

    def cut(self, source: Source, rules: Dict[str, Node]) -> bool:
        """Cut a lexeme's source one level finer; False if it is a single code point."""
        if isinstance(source, tuple):
            self.unmerged.add(id(source[0]))
            return True
        if isinstance(source, Ref):
            self.rules.add(source.name)
            self.nodes.add(id(rules[source.name]))
            return True
        if isinstance(source, Chars) or (isinstance(source, Literal) and len(source.text) == 1):
            return False
        if isinstance(source, Budget) and source.max_tokens is not None:
            return False  # one lexeme, or the Matcher cannot count its tokens
        if id(source) in self.nodes:  # already one-byte lexemes (Build.automaton)
            return False
        self.nodes.add(id(source))
        return True


def regular_rules(rules: Dict[str, Node]) -> Set[str]:
    """The rules that reach no token, no token budget (whose lexeme must stay its own) and
    no rule on a cycle (iteratively, any depth)."""
    refs: Dict[str, Set[str]] = {}
    has_token: Set[str] = set()
    for name, body in rules.items():
        refs[name] = set()
        stack = [body]
        while stack:
            node = stack.pop()
            if isinstance(node, Ref):
                refs[name].add(node.name)
            elif isinstance(node, Token) or (isinstance(node, Budget) and node.max_tokens is not None):
                has_token.add(name)
            stack.extend(children(node))
    regular: Set[str] = set()
    state: Dict[str, int] = {}  # 1: on the DFS path, 2: done
    for root in rules:
        if root in state:
            continue
        path: List[Tuple[str, List[str]]] = [(root, sorted(refs[root]))]
        state[root] = 1
        while path:
            name, todo = path[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in state:
                    state[nxt] = 1
                    path.append((nxt, sorted(refs[nxt])))
                continue
            path.pop()
            state[name] = 2
            if name not in has_token and all(r in regular and r != name for r in refs[name]):
                regular.add(name)
    return regular


class Build:
    """One compilation of the rules under the current cuts."""

    def __init__(self, rules: Dict[str, Node], root: str, cuts: Cuts, regular: Set[str],
                 es: ExprSet, limits: Limits, text: str = "", names: Optional[Dict[int, str]] = None) -> None:
        self.rules, self.cuts, self.es, self.text = rules, cuts, es, text
        self.names = {} if names is None else names  # expression -> lexeme name, kept across rounds
        self.all_regular = regular
        self.regular = regular - cuts.rules
        self.ir = GrammarIR(es, limits)
        self.sources: Dict[int, Source] = {}  # lexeme index -> where it came from
        self.nonterminals: Dict[str, int] = {}
        self._regex: Dict[int, int] = {}
        self._lexable: Dict[int, bool] = {}
        self.regular_node: Dict[int, bool] = {}
        self._todo: List[str] = []
        self._mark_lexable()
        self.ir.start = self._nonterminal(root)
        while self._todo:
            name = self._todo.pop()
            body = rules[name]
            options = body.options if isinstance(body, Alt) and not self.lexable(body) else [body]
            for option in options:
                self.ir.add_rule(self.nonterminals[name], self.symbols(option))

    def _nonterminal(self, name: str) -> int:
        nt = self.nonterminals.get(name)
        if nt is None:
            nt = self.nonterminals[name] = self.ir.add_nonterminal(name)
            self._todo.append(name)
        return nt

    def _mark_lexable(self) -> None:
        """Which nodes may be (part of) one lexeme under the cuts: no token, no cut node,
        only references to regular rules inside (children before parents, no recursion).
        An operator that needs its operand's whole language (Shortest, Excluding) is one
        lexeme whenever the operand is regular, whatever is cut inside."""
        order: List[Node] = []
        stack = list(self.rules.values())
        while stack:
            node = stack.pop()
            order.append(node)
            stack.extend(children(node))
        self.regular_node = regular = {}  # the same, without the cuts
        for node in reversed(order):  # every child comes later in `order` than its parent
            if isinstance(node, Token):
                regular[id(node)] = ok = False
            elif isinstance(node, Ref):
                regular[id(node)] = node.name in self.all_regular
                ok = node.name in self.regular
            else:
                regular[id(node)] = all(regular[id(child)] for child in children(node))
                ok = all(self._lexable[id(child)] for child in children(node))
            if isinstance(node, (Shortest, Excluding, Budget)):
                ok = regular[id(node)]
            if isinstance(node, Budget) and node.max_tokens is not None:
                ok = False  # its own lexeme (Build._leaf), never part of a run
            self._lexable[id(node)] = ok and id(node) not in self.cuts.nodes

    def lexable(self, node: Node) -> bool:
        return self._lexable[id(node)]

    def regex(self, node: Node) -> int:
        """The regular expression of a lexable node (post-order, explicit stack)."""
        out: List[int] = []
        stack: List[Tuple[Node, bool]] = [(node, False)]
        while stack:
            n, done = stack.pop()
            known = self._regex.get(id(n))
            if known is not None:
                out.append(known)
                continue
            if isinstance(n, Ref):
                n = self.rules[n.name]
                stack.append((n, False))
                continue
            kids = children(n)
            if not done and kids:
                stack.append((n, True))
                stack.extend((k, False) for k in reversed(kids))
                continue
            args = out[len(out) - len(kids):] if kids else []
            del out[len(out) - len(kids):]
            out.append(self._combine(n, args))
            self._regex[id(n)] = out[-1]
        return out[0]

    def _combine(self, node: Node, args: List[int]) -> int:
        es = self.es
        if isinstance(node, Chars):
            return compile_class(es, node.ranges)
        if isinstance(node, Literal):
            return es.literal(node.text.encode("utf-8"))
        if isinstance(node, Substring):
            return substring_expr(es, node.chunks)
        if isinstance(node, Pattern):
            return compile_ast(es, node.tree)
        if isinstance(node, Shortest):  # R ∖ R·Σ⁺
            return es.intersection(args[0], es.complement(es.concat(args[0], es.plus(compile_class(es, ANY_CHAR)))))
        if isinstance(node, Budget):
            if node.max_chars is None:
                return args[0]
            anything = compile_class(es, ANY_CHAR)  # L ∖ (L ∩ Σ^{≥N})·Σ⁺
            long = es.intersection(args[0], es.repeat(anything, node.max_chars, None))
            return es.intersection(args[0], es.complement(es.concat(long, es.plus(anything))))
        if isinstance(node, Excluding):  # Σ⁺ ∖ Σ*·R·Σ*, within max_bytes
            anything = compile_class(es, ANY_CHAR)
            within = es.repeat(es.byte_range(0, 255), 0, node.max_bytes) if node.max_bytes is not None else es.EVERYTHING
            return es.intersection(es.plus(anything), es.complement(es.concat(es.star(anything), args[0], es.star(anything))),
                                   within)
        if isinstance(node, Seq):
            return es.concat(*args) if args else es.EPSILON
        if isinstance(node, Alt):
            return es.union(*args)
        assert isinstance(node, Repeat)
        return es.repeat(args[0], node.lo, node.hi)

    def automaton(self, node: Node) -> Tuple[int, ...]:
        """A regular terminal cut below one lexeme: the automaton of its derivatives
        (Brzozowski) as right-linear rules, one nonterminal per derivative d that can still
        match, `d → ε` if ν(d), and `d → /B/ d'` for the set B of bytes b with ∂_b d = d'.
        One-byte lexemes never run into what follows, so this is exact; it is also slow
        to walk, and so the last resort."""
        es = self.es
        start = self.regex(node)
        states: Dict[int, int] = {}
        todo: List[int] = []

        def state(e: int) -> int:
            if e not in states:
                if len(states) >= es.limits.dfa_states:
                    raise LimitError("dfa_states", es.limits.dfa_states, "states of a terminal's automaton")
                states[e] = self.ir.add_nonterminal(self._fresh_name())
                todo.append(e)
            return states[e]

        first = state(start)
        while todo:
            e = todo.pop()
            if es.nullable(e):
                self.ir.add_rule(states[e], ())
            targets: Dict[int, int] = {}  # derivative -> the bytes that lead there
            for b in range(256):
                d = derivative(es, e, b)
                if d != es.NOTHING:
                    targets[d] = targets.get(d, 0) | 1 << b
            for d, mask in sorted(targets.items()):
                if not check_empty(es, d):
                    self.ir.add_rule(states[e], (self.lexeme(es.byte_set(mask), node), state(d)))
        return (first,)

    def lexeme(self, expr: int, source: Source) -> int:
        name = self.names.get(expr)
        if name is None:
            name = self.names[expr] = "/%s/" % to_string(self.es, expr, NAME_LIMIT)
        sym = self.ir.add(Lexeme(name, expr))
        self.sources.setdefault(~sym, source)
        return sym

    def symbols(self, root: Node) -> Tuple[int, ...]:
        """The symbols a node stands for in a rule body (post-order, explicit stack)."""
        out: List[Tuple[int, ...]] = []
        stack: List[Tuple[Unit, Optional[List[Unit]]]] = [(root, None)]
        while stack:
            unit, parts = stack.pop()
            if parts is None:
                leaf = self._leaf(unit)
                if leaf is not None:
                    out.append(leaf)
                    continue
                assert not isinstance(unit, tuple)
                parts = self._parts(unit)
                stack.append((unit, parts))
                stack.extend((part, None) for part in reversed(parts))
                continue
            args = out[len(out) - len(parts):]
            del out[len(out) - len(parts):]
            assert not isinstance(unit, tuple)
            out.append(self._structure(unit, args))
        return out[0]

    def _leaf(self, unit: Unit) -> Optional[Tuple[int, ...]]:
        """The symbols of a unit that is not structure, else None."""
        if isinstance(unit, tuple):  # a run of lexable items: one lexeme
            seq, i, j = unit
            return (self.lexeme(self.es.concat(*(self.regex(x) for x in seq.items[i:j])), unit),)
        if self.lexable(unit):
            return (self.lexeme(self.regex(unit), unit),)
        if isinstance(unit, Token):
            return (self.ir.add(Lexeme(unit.spec.text, self.es.NOTHING, tokens=unit.spec)),)
        if isinstance(unit, Ref):
            return (self._nonterminal(unit.name),)
        if isinstance(unit, (Shortest, Excluding, Budget)) and not self.regular_node[id(unit)]:
            what = {Shortest: "a shortest match", Excluding: "an exclusion", Budget: "a budget"}[type(unit)]
            raise GrammarError("%s needs a regular operand (no recursion, no tokens)" % what,
                               self.text, unit.offset if self.text else None)
        if isinstance(unit, Budget) and unit.max_tokens is not None:
            expr = self.regex(unit)
            if unit.max_tokens == 0 and self.es.nullable(expr):
                return ()  # spent on entry, where the body can end: it ends there
            sym = self.ir.add(Lexeme("/%s/" % to_string(self.es, expr, NAME_LIMIT), expr, max_tokens=unit.max_tokens,
                                     budget_relaxed=True))
            self.sources.setdefault(~sym, unit)
            return (sym,)
        if isinstance(unit, (Pattern, Shortest, Excluding, Substring, Budget)):
            return self.automaton(unit)
        if isinstance(unit, Literal):  # cut: one lexeme per code point
            return tuple(self.lexeme(self.es.literal(c.encode("utf-8")), Literal(unit.offset, c)) for c in unit.text)
        return None

    def _parts(self, node: Node) -> List[Unit]:
        """What a structure node is built from: a sequence's runs (maximal runs of lexable
        items, unless the sequence is unmerged) and other items; the options; the body."""
        if not isinstance(node, Seq):
            return list(children(node))
        parts: List[Unit] = []
        items = node.items
        merge = id(node) not in self.cuts.unmerged
        i = 0
        while i < len(items):
            j = i
            while merge and j < len(items) and self.lexable(items[j]):
                j += 1
            if j - i >= 2:
                parts.append((node, i, j))
                i = j
            else:
                parts.append(items[i])
                i += 1
        return parts

    def _structure(self, node: Node, args: List[Tuple[int, ...]]) -> Tuple[int, ...]:
        if isinstance(node, Seq):
            return tuple(sym for syms in args for sym in syms)
        if isinstance(node, Alt):
            nt = self.ir.add_nonterminal(self._fresh_name())
            for syms in args:
                self.ir.add_rule(nt, syms)
            return (nt,)
        assert isinstance(node, Repeat)
        return (ebnf_repeat(self.ir, self._one(args[0]), node.lo, node.hi),)

    def _one(self, syms: Tuple[int, ...]) -> int:
        """One symbol for a sequence of symbols (a fresh nonterminal for several)."""
        if len(syms) == 1:
            return syms[0]
        nt = self.ir.add_nonterminal(self._fresh_name())
        self.ir.add_rule(nt, syms)
        return nt

    def _fresh_name(self) -> str:
        return "_%d" % len(self.ir.names)


def compile_rules(rules: Dict[str, Node], root: str, text: str = "", limits: Limits = DEFAULT_LIMITS,
                  es: Optional[ExprSet] = None, conflicts: Optional[Conflicts] = None) -> GrammarIR:
    """The GrammarIR of a character grammar, with as few lexemes as exactness allows
    (`conflicts`: the check of each round, lexing.py; a fresh one unless given)."""
    if root not in rules:
        raise GrammarError("the grammar has no rule '%s' (the start rule)" % root, text, 0 if text else None)
    es = es if es is not None else ExprSet(limits)
    regular = regular_rules(rules)
    cuts = Cuts()
    conflicts = conflicts if conflicts is not None else Conflicts()
    names: Dict[int, str] = {}
    while True:
        build = Build(rules, root, cuts, regular, es, limits, text, names)
        blamed = conflicts(build.ir)
        if not blamed:
            return build.ir
        stuck = [i for i in sorted(blamed) if not build.cuts.cut(build.sources[i], rules)]
        if len(stuck) == len(blamed):
            source = build.sources[stuck[0]]
            node = source[0] if isinstance(source, tuple) else source
            why = " (a rule with max_tokens is one lexeme)" if isinstance(node, Budget) else ""
            raise GrammarError("not supported yet: %s may run into what follows it, and maskref cannot cut it finer%s"
                               % (build.ir.lexemes[stuck[0]].name, why), text, node.offset if text else None)
