"""Which grammars an index can serve: those whose language one regular expression decides.

An index is a table from DFA states to tokens, so it needs the grammar's whole language to
be regular *and* decided by the lexer alone: one lexeme, every sentence of the grammar that
lexeme once (or nothing), no %ignore between lexemes, no token read by id, no budget or
`stop=` that depends on where tokens end. Then the language is the lexeme's expression
(`L?` when the grammar may also be empty), and the lexer's states for it are the states
of a plain DFA over that expression.

Deciding it needs the lexeme sequences each nonterminal derives, but only the short ones:
the fixpoint below keeps sequences of at most one lexeme and gives up as soon as a rule
could derive two (`A → L A` or `s → L L`), so it ends on recursive grammars too.

>>> from refimpl import Grammar
>>> regular_expression(Grammar.from_regex("[0-9]+").compiled)[1]
False
>>> regular_expression(Grammar.from_lark('start: x | ""\\nx: /[a-z]+/').compiled)[1]
True
>>> regular_expression(Grammar.from_lark('start: x x\\nx: /[a-z]/').compiled)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
refimpl.masks.index.regular.NotRegular: the grammar's sentences have more than one lexeme (an index needs ...
"""
from __future__ import annotations

from typing import FrozenSet, List, Set, Tuple

from ...errors import MaskrefError
from ...grammar.ir import COMPLETE, CompiledGrammar

#: a sentence of at most one lexeme: () or (lexeme,)
Short = Tuple[int, ...]


class NotRegular(MaskrefError, ValueError):
    """The grammar's language is not decided by one lexeme: no index for it."""


def regular_expression(g: CompiledGrammar) -> Tuple[int, bool]:
    """The expression of the grammar's one lexeme, and whether the grammar may also be
    empty (beyond what the expression matches). Raises NotRegular naming why not."""
    if len(g.lexemes) != 1:
        raise NotRegular("the grammar has %d lexemes (an index needs exactly one)" % len(g.lexemes))
    lexeme = g.lexemes[0]
    why = [what for what, present in (
        ("%ignore", bool(g.ignores)), ("a lazy lexeme", lexeme.lazy), ("a token read by id", lexeme.tokens is not None),
        ('stop=""', lexeme.ends_at_eos), ("max_tokens", lexeme.max_tokens is not None), ("stop=", lexeme.hidden),
    ) if present]
    if why:
        raise NotRegular("the grammar has %s (an index needs the lexer alone to decide the language)" % why[0])
    sentences = _short_sentences(g)[g.start]
    if (0,) not in sentences:
        raise NotRegular("the grammar derives no sentence (its one lexeme is never reached)")
    return lexeme.expr, () in sentences and not g.es.nullable(lexeme.expr)


def _short_sentences(g: CompiledGrammar) -> List[FrozenSet[Short]]:
    """Per nonterminal, the sentences of at most one lexeme it derives (lexeme 0 only);
    NotRegular as soon as a longer one is derivable."""
    n = g.n_nonterminals
    derives: List[FrozenSet[Short]] = [frozenset()] * n
    changed = True
    while changed:
        changed = False
        for nt in range(n):
            found = set(derives[nt])
            for p in g.rules_of[nt]:
                found |= _rule_sentences(g, p, derives)
            if len(found) != len(derives[nt]):
                derives[nt] = frozenset(found)
                changed = True
    return derives


def _rule_sentences(g: CompiledGrammar, p: int, derives: List[FrozenSet[Short]]) -> FrozenSet[Short]:
    """The short sentences of the rule starting at position p, by what is known so far."""
    partial: Set[Short] = {()}
    while g.dot_symbol[p] != COMPLETE:
        sym = g.dot_symbol[p]
        options = {(sym - g.n_nonterminals,)} if sym >= g.n_nonterminals else derives[sym]
        partial = {a + b for a in partial for b in options}
        if any(len(s) > 1 for s in partial):
            raise NotRegular("the grammar's sentences have more than one lexeme "
                             "(an index needs the lexer alone to decide the language)")
        p += 1
    return frozenset(partial)
