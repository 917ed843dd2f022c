"""The grammar IR: lexemes (regular expressions) and context-free rules over them.

Two forms:

* `GrammarIR` — what frontends build and `simplify` rewrites: a list of rules
  `(lhs, rhs)`, where a symbol is an int: a nonterminal is its index `n >= 0` into
  `names`, a lexeme is `~i` (that is, `-1 - i`) for index `i` into `lexemes`.
* `CompiledGrammar` — what the parser runs on: every right-hand side in one flat list of
  symbols, each terminated by `COMPLETE`, so an Earley item is a *position* in that list
  (the dot) plus an origin row. An augmented start rule `S' → S` is added (Earley with Leo
  items needs it; see docs/earley.md).

>>> from refimpl.regex import ExprSet
>>> es = ExprSet()
>>> g = GrammarIR(es)
>>> a = g.add_lexeme('"a"', es.literal(b"a"))
>>> s = g.add_nonterminal("s")
>>> g.add_rule(s, (a, s)); g.add_rule(s, ())
>>> g.start = s
>>> print(g.to_text())
s: "a" s
 | ""
<BLANKLINE>
>>> c = g.compile()
>>> c.item_to_string(c.rules_of[c.start][0], 0)
"[s' → • s, 0]"
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from ..errors import GrammarError, LimitError
from ..limits import DEFAULT_LIMITS, Limits
from ..regex import ExprSet

Rule = Tuple[int, Tuple[int, ...]]

COMPLETE = -1  # in CompiledGrammar.dot_symbol: the dot is at the end of the rule


@dataclass(frozen=True)
class TokenSpec:
    """The token ids a token lexeme matches, as the grammar wrote them; they become ids
    when a Matcher binds the grammar to a vocabulary (tokens/special.py).

    One of: a special token by its text (`name`, from `<|eot_id|>` or `<think>`; with
    `text_too`, as GBNF's `<text>`, also a plain token whose bytes are the text); id
    ranges, inclusive (`<[5]>`, `<[128000-128010,7]>`); or every token (`any`, from
    `<[*]>`). `negated`: every other token of the vocabulary (`<[^...]>`, GBNF's `!<...>`).
    `no_eos`: never an EOS id (GBNF: llama.cpp decides end-of-generation tokens before
    the grammar sees them, so a token element never matches one).
    """

    text: str  # as written, for display and errors
    name: Optional[str] = None
    ranges: Tuple[Tuple[int, int], ...] = ()
    negated: bool = False
    any: bool = False
    text_too: bool = False
    no_eos: bool = False
    #: where the grammar text writes it (-1: unknown), for binding errors; not compared
    offset: int = field(default=-1, compare=False)
    #: the grammar text `offset` is in ("": unknown; one of several in an llguidance
    #: object), so that a binding error shows its place; not compared
    source: str = field(default="", compare=False, repr=False)


@dataclass(frozen=True)
class Lexeme:
    """A lexeme: a name for display, its expression, and how it ends.

    A greedy lexeme extends while any live lexeme can; a lazy one ends as soon as it
    matches (llguidance's `[lazy]`, and `stop=`/`suffix=`, whose stop is the end of the
    expression). A *token lexeme* (`tokens` set, `expr` is ∅) matches no text: it is one
    token, read by id (docs/semantics.md, "Special tokens"). `ends_at_eos` (llguidance's
    `stop=""`): EOS may end the lexeme, and is then part of it. `max_tokens`: after that
    many tokens of one match the lexeme must end (a token budget, kept by the Matcher).
    `hidden` (llguidance's `stop=`, not `suffix=`): the end of the expression is a stop
    text the caller does not see, so the token that completes it must end there.
    """

    name: str
    expr: int
    lazy: bool = False
    #: lexemes of one class share an %ignore (e.g. a %json part inside a Lark grammar)
    lexeme_class: int = 0
    tokens: Optional[TokenSpec] = None
    ends_at_eos: bool = False
    max_tokens: Optional[int] = None
    hidden: bool = False
    budget_relaxed: bool = False


#: what makes two lexemes one (all but the name, which is for display)
_IDENTITY = tuple(f.name for f in fields(Lexeme) if f.name != "name")


def lark_string(text: str) -> str:
    r"""A string as a Lark literal writes it (JSON's escapes): the names of literal
    lexemes, and what `to_text` prints.

    >>> print(lark_string('say "hé"\n'))
    "say \"hé\"\n"
    """
    return json.dumps(text, ensure_ascii=False)


class GrammarIR:
    """A grammar under construction: lexemes, nonterminals, rules, a start symbol."""

    def __init__(self, es: Optional[ExprSet] = None, limits: Limits = DEFAULT_LIMITS) -> None:
        self.es = es if es is not None else ExprSet(limits)
        self.limits = limits
        self.lexemes: List[Lexeme] = []
        self._lexeme_ids: Dict[Tuple[Any, ...], int] = {}
        self.names: List[str] = []
        self.rules: List[Rule] = []
        self.start: int = -1
        #: lexeme class -> expression of its %ignore lexeme (skipped between lexemes)
        self.ignores: Dict[int, int] = {}
        #: lexeme classes whose %ignore matches at most once between two lexemes (its
        #: regex is the whole skipped span: llguidance's ignore_once, and JSON whitespace)
        self.ignore_once: Set[int] = set()
        #: may %ignore text come before the first lexeme? (llguidance's allow_initial_skip)
        self.allow_initial_skip = False
        #: may lexemes match byte strings that are not valid UTF-8?
        self.allow_invalid_utf8 = False
        #: nonterminals made by the repetition helpers (repetition.py), by what they stand for
        self.derived: Dict[Tuple[object, ...], int] = {}
        #: what a rule's options say that does not change masks (llguidance's
        #: `temperature=`, `capture=`, `stop_capture=`), by rule name
        self.metadata: Dict[str, Dict[str, object]] = {}
        #: llguidance's capture options, by nonterminal: (the `capture` name of the rule's
        #: text, the `stop_capture` name of its stop's text), either None. Like `stops`, it
        #: numbers symbols of this IR: the frontend's alone (simplify inlines and renumbers
        #: nonterminals and keeps neither), read again by masks/captures.py
        self.captures: Dict[int, Tuple[Optional[str], Optional[str]]] = {}
        #: the `stop=`/`suffix=` lexemes, by lexeme index: their (body, stop) expressions,
        #: which say where a match's visible text ends (for captures)
        self.stops: Dict[int, Tuple[int, int]] = {}
        #: the classes made by `lexeme_class_for`, by their %ignore expression (or None)
        self._classes_by_ignore: Dict[Tuple[Optional[int], bool], int] = {}

    def add_nonterminal(self, name: str) -> int:
        self.names.append(name)
        return len(self.names) - 1

    def derived_nonterminal(self, key: Tuple[object, ...], name: str) -> Tuple[int, bool]:
        """The nonterminal standing for `key` (such as `("*", sym)` for `sym*`).

        Made, and named `name`, the first time a key is asked for; returns
        `(nonterminal, created)`, so the caller adds the rules only when `created`.
        """
        nt = self.derived.get(key)
        if nt is not None:
            return nt, False
        nt = self.derived[key] = self.add_nonterminal(name)
        return nt, True

    @property
    def ignore(self) -> Optional[int]:
        """The %ignore expression of lexeme class 0 (the grammar's own), or None."""
        return self.ignores.get(0)

    @ignore.setter
    def ignore(self, expr: Optional[int]) -> None:
        if expr is None:
            self.ignores.pop(0, None)
        else:
            self.ignores[0] = expr

    def lexeme_class_for(self, ignore: Optional[int], once: bool = False) -> int:
        """The lexeme class whose %ignore is `ignore` (None: a class with no %ignore),
        matched at most once between two lexemes if `once` (see `ignore_once`).

        Made the first time, numbered after every class in use (so never class 0, the
        grammar's own), and shared by all later askers with the same `ignore`, as
        llguidance merges lexeme classes with equal skips. Used for the parts of a
        grammar with their own whitespace, such as a %json inside a Lark grammar.

        >>> from refimpl.regex import ExprSet
        >>> g = GrammarIR(ExprSet())
        >>> ws = g.es.literal(b" ")
        >>> g.lexeme_class_for(ws), g.lexeme_class_for(None), g.lexeme_class_for(ws), g.ignores == {1: ws}
        (1, 2, 1, True)
        """
        cls = self._classes_by_ignore.get((ignore, once))
        if cls is None:
            used = {0, *self.ignores, *self._classes_by_ignore.values()}
            used.update(lexeme.lexeme_class for lexeme in self.lexemes)
            cls = self._classes_by_ignore[(ignore, once)] = max(used) + 1
            if ignore is not None:
                self.ignores[cls] = ignore
                if once:
                    self.ignore_once.add(cls)
        return cls

    def copy_options(self, other: "GrammarIR") -> None:
        """Take the ignores and flags of `other` (for passes that build a new IR)."""
        self.ignores = dict(other.ignores)
        self.ignore_once = set(other.ignore_once)
        self.allow_initial_skip = other.allow_initial_skip
        self.allow_invalid_utf8 = other.allow_invalid_utf8
        self.metadata = dict(other.metadata)

    def add_lexeme(self, name: str, expr: int, lazy: bool = False, lexeme_class: int = 0) -> int:
        """The symbol of a lexeme (see `add`)."""
        return self.add(Lexeme(name, expr, lazy, lexeme_class))

    def add(self, lexeme: Lexeme) -> int:
        """The symbol of a lexeme; lexemes equal but for their name are one."""
        key = tuple(getattr(lexeme, f) for f in _IDENTITY)
        i = self._lexeme_ids.get(key)
        if i is None:
            i = len(self.lexemes)
            self.lexemes.append(lexeme)
            self._lexeme_ids[key] = i
        return ~i

    def add_rule(self, lhs: int, rhs: Sequence[int]) -> None:
        self.rules.append((lhs, tuple(rhs)))
        if len(self.rules) > self.limits.grammar_size:
            raise LimitError("grammar_size", self.limits.grammar_size, "rules in one grammar")

    def symbol_name(self, sym: int) -> str:
        return self.lexemes[~sym].name if sym < 0 else self.names[sym]

    def to_text(self) -> str:
        """The rules in Lark-like notation, one nonterminal per paragraph."""
        by_lhs: Dict[int, List[Tuple[int, ...]]] = {}
        for lhs, rhs in self.rules:
            by_lhs.setdefault(lhs, []).append(rhs)
        order = sorted(by_lhs, key=lambda n: (n != self.start, n))
        lines = []
        for lhs in order:
            for k, rhs in enumerate(by_lhs[lhs]):
                body = " ".join(self.symbol_name(s) for s in rhs) or '""'
                lines.append(("%s: " % self.names[lhs] if k == 0 else " | ") + body)
        return "\n".join(lines) + "\n"

    def compile(self) -> "CompiledGrammar":
        if not 0 <= self.start < len(self.names):
            raise GrammarError("the grammar has no start symbol")
        return CompiledGrammar(self)


class CompiledGrammar:
    """Rules in flat arrays, indexed by dot position.

    Symbols here: nonterminal n is `n`; lexeme i is `n_nonterminals + i`; `COMPLETE` marks
    the end of a right-hand side. For every position p:
      dot_symbol[p]  the symbol after the dot (COMPLETE at the end of a rule)
      lhs[p]         the rule's left-hand side
      rule_start[p]  the position of the rule's first symbol
    """

    def __init__(self, ir: GrammarIR) -> None:
        self.es = ir.es
        self.lexemes = list(ir.lexemes)
        self.ignores = dict(ir.ignores)
        self.ignore_once = frozenset(ir.ignore_once)
        self.allow_initial_skip = ir.allow_initial_skip
        self.allow_invalid_utf8 = ir.allow_invalid_utf8
        self.metadata = dict(ir.metadata)
        self.names = list(ir.names)
        rules = self._non_empty_lexemes(ir)
        self.names.append(ir.names[ir.start] + "'")
        self.start = len(self.names) - 1  # the augmented start symbol S'
        rules.append((self.start, (ir.start,)))
        n = self.n_nonterminals = len(self.names)
        self.dot_symbol: List[int] = []
        self.lhs: List[int] = []
        self.rule_start: List[int] = []
        self.rules_of: List[List[int]] = [[] for _ in range(n)]
        for lhs, rhs in rules:
            begin = len(self.dot_symbol)
            self.rules_of[lhs].append(begin)
            for sym in rhs:
                self.dot_symbol.append(~sym + n if sym < 0 else sym)
            self.dot_symbol.append(COMPLETE)
            self.lhs.extend([lhs] * (len(rhs) + 1))
            self.rule_start.extend([begin] * (len(rhs) + 1))
        self.nullable = self._nullable()
        #: what later layers derive from this grammar once and share (the lexer, by
        #: lexer.Lexer.of); not part of the grammar's meaning
        self.shared: Dict[str, object] = {}

    def _non_empty_lexemes(self, ir: GrammarIR) -> List[Rule]:
        """The rules, with every lexeme whose regex matches ε replaced by `L?` (a new
        nonterminal: `L? → L | ε`): the lexer never ends an empty lexeme, so the empty
        match moves into the grammar, as llguidance does."""
        optional: Dict[int, int] = {}
        for i, lexeme in enumerate(self.lexemes):
            if ir.es.nullable(lexeme.expr):
                optional[~i] = len(self.names)
                self.names.append(lexeme.name + "?")
        rules = [(lhs, tuple(optional.get(s, s) for s in rhs)) for lhs, rhs in ir.rules]
        for sym, nt in optional.items():
            rules.append((nt, (sym,)))
            rules.append((nt, ()))
        return rules

    def _nullable(self) -> List[bool]:
        """Nonterminals deriving ε, by fixpoint (no recursion on grammar depth)."""
        nullable = [False] * self.n_nonterminals
        changed = True
        while changed:
            changed = False
            for nt in range(self.n_nonterminals):
                if nullable[nt]:
                    continue
                for p in self.rules_of[nt]:
                    while 0 <= self.dot_symbol[p] < self.n_nonterminals and nullable[self.dot_symbol[p]]:
                        p += 1  # (COMPLETE is negative: the loop stops at the end of the rule)
                    if self.dot_symbol[p] == COMPLETE:
                        nullable[nt] = changed = True
                        break
        return nullable

    def symbol_name(self, sym: int) -> str:
        if sym >= self.n_nonterminals:
            return self.lexemes[sym - self.n_nonterminals].name
        return self.names[sym]

    def item_to_string(self, pos: int, origin: int, rename: Callable[[str], str] = str) -> str:
        """An item in the usual notation: [A → α • β, origin] (each name as `rename` shows it)."""
        begin = self.rule_start[pos]
        syms = []
        p = begin
        while True:
            if p == pos:
                syms.append("•")
            if self.dot_symbol[p] == COMPLETE:
                break
            syms.append(rename(self.symbol_name(self.dot_symbol[p])))
            p += 1
        return "[%s → %s, %d]" % (rename(self.names[self.lhs[pos]]), " ".join(syms), origin)
