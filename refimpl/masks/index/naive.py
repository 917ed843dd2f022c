"""The naive index: the definition, for tests and as the baseline.

From the start state, and from every state a token leads to, run every token's bytes
through the DFA; the token is allowed when the state it leads to is not dead. This is
outlines-core's original construction (cost ~ states × vocabulary × token length), with
refimpl's lazy DFA. The V2 construction (build.py) must give the same table.
"""
from __future__ import annotations

from typing import Dict, List

from ...frontends.grammar import Grammar
from ...regex.dfa import DEAD, LazyDFA
from ...tokens.vocab import Vocabulary
from .prefix import Transitions
from .regular import regular_expression
from .table import Row, TokenIndex, check_size, make_row


def index_dfa(grammar: Grammar) -> LazyDFA:
    """A DFA over the language of a regular grammar (regular.py), in the grammar's ExprSet:
    its states are the expressions the grammar's lexer has for the same text."""
    es = grammar.compiled.es
    expr, empty_too = regular_expression(grammar.compiled)
    return LazyDFA(es, es.optional(expr) if empty_too else expr)


def grammar_tokens(vocab: Vocabulary) -> List[int]:
    """The tokens an index decides: those grammar text can produce (not special, not
    empty; the others are never allowed but EOS, by finality)."""
    return [t for t in range(len(vocab)) if vocab.is_grammar_token(t)]


def naive_index(grammar: Grammar, vocab: Vocabulary) -> TokenIndex:
    """The index by definition: every token from every state reached."""
    dfa = index_dfa(grammar)
    tokens = grammar_tokens(vocab)
    rows: Dict[int, Row] = {}
    todo = [dfa.start]
    while todo:
        s = todo.pop()
        if s in rows:
            continue
        check_size(rows, dfa.es.limits.index_states)
        out = Transitions(len(vocab))
        for t in tokens:
            after = dfa.run(vocab.tokens[t], s)
            if after != DEAD:
                out.of[t] = out.code(after)
        rows[s] = make_row(out)
        todo.extend(x for x in out.targets if x not in rows)
    return TokenIndex(dfa, dfa.start, rows, len(vocab), vocab.eos_token_ids)
