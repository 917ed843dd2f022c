"""Language-preserving rewrites of a GrammarIR.

Each rewrite takes a GrammarIR and returns an equivalent, usually smaller one;
  `simplify` applies them in a sensible order. "Equivalent" means: the start symbol
  derives the same set of *lexeme sequences* (the context-free language over the lexeme
  alphabet). The lexer only ever asks the parser which lexemes may come next, and in a
  grammar whose nonterminals are all productive that set depends on nothing but the
  language of viable lexeme-sequence prefixes, so two such grammars with the same language
  give the same masks and accept the same bytes. `merge_literals` is the one rewrite that
  changes the lexeme alphabet; its docstring argues separately why it keeps the *byte*
  language under llguidance's lexer. `remove_unproductive` is the one rewrite that is
  *not* neutral for the lexer: see its docstring.

Every pass is a worklist or a fixed number of linear sweeps: no recursion on the depth of
the grammar, so 10,000-deep chains of rules are fine.

>>> from refimpl.grammar.repetition import star
>>> from refimpl.regex import ExprSet
>>> es = ExprSet()
>>> g = GrammarIR(es)
>>> a = g.add_lexeme('"a"', es.literal(b"a"))
>>> s, t, u = g.add_nonterminal("s"), g.add_nonterminal("t"), g.add_nonterminal("u")
>>> g.start = s
>>> g.add_rule(s, (t,)); g.add_rule(t, (star(g, a),)); g.add_rule(u, (u, a))
>>> print(g.to_text())
s: t
t: "a"*
u: u "a"
"a"*: "a"* "a"
 | ""
<BLANKLINE>
>>> print(simplify(g).to_text())   # u derives nothing; t is an alias of "a"*
s: "a"*
"a"*: "a"* "a"
 | ""
<BLANKLINE>
"""
from __future__ import annotations

from dataclasses import replace
from typing import AbstractSet, Dict, List, Optional, Sequence, Set, Tuple

from ..regex.exprs import BYTES, CONCAT, EPSILON_KIND
from ..regex.factoring import left_factored
from ..regex.relevance import is_empty
from .ir import GrammarIR, Lexeme, lark_string

Rhs = Tuple[int, ...]

# ------------------------------------------------------------------------------ plumbing


def _rules_by_lhs(ir: GrammarIR) -> List[List[Rhs]]:
    """The right-hand sides of each nonterminal, in the order the rules were added."""
    by_lhs: List[List[Rhs]] = [[] for _ in ir.names]
    for lhs, rhs in ir.rules:
        by_lhs[lhs].append(rhs)
    return by_lhs


def _rebuild(ir: GrammarIR, by_lhs: Sequence[Sequence[Sequence[int]]], start: int) -> GrammarIR:
    """A fresh GrammarIR holding the rules `by_lhs` with start symbol `start`.

    Nonterminals that have no rules and are not referenced disappear; the others are
    renumbered (start first, then in their old order, keeping their names). Only the
    lexemes some rule uses are kept, numbered in order of first use.
    """
    new = GrammarIR(ir.es, ir.limits)
    new.copy_options(ir)
    used = [False] * len(ir.names)
    used[start] = True
    for lhs, alternatives in enumerate(by_lhs):
        if alternatives:
            used[lhs] = True
        for rhs in alternatives:
            for sym in rhs:
                if sym >= 0:
                    used[sym] = True
    nt_map: Dict[int, int] = {start: new.add_nonterminal(ir.names[start])}
    for nt in range(len(ir.names)):
        if used[nt] and nt != start:
            nt_map[nt] = new.add_nonterminal(ir.names[nt])
    lexeme_map: Dict[int, int] = {}
    order = [start] + [nt for nt in range(len(ir.names)) if nt != start]
    for lhs in order:
        for rhs in by_lhs[lhs]:
            mapped = []
            for sym in rhs:
                if sym >= 0:
                    mapped.append(nt_map[sym])
                else:
                    m = lexeme_map.get(sym)
                    if m is None:
                        lex = ir.lexemes[~sym]
                        m = lexeme_map[sym] = new.add(lex)
                    mapped.append(m)
            new.add_rule(nt_map[lhs], mapped)
    new.start = nt_map[start]
    return new


def _size(ir: GrammarIR) -> Tuple[int, int, int]:
    """(rules, symbols in right-hand sides, nonterminals): simplification shrinks this."""
    return (len(ir.rules), sum(len(rhs) for _, rhs in ir.rules), len(ir.names))


# ------------------------------------------------------------------------------ rewrites


def _lexeme_is_empty(ir: GrammarIR, lexeme: int) -> bool:
    """Is the language of this lexeme certainly empty (∅, or an &/~ expression found empty)?"""
    es = ir.es
    if ir.lexemes[lexeme].tokens is not None:
        return False  # a token lexeme matches its tokens, never text
    e = ir.lexemes[lexeme].expr
    if e == es.NOTHING:
        return True
    if es.has_boolean[e]:
        return is_empty(es, e) is True  # None ("ran out of fuel") counts as non-empty
    return False


def remove_unproductive(ir: GrammarIR) -> GrammarIR:
    """Drop every rule that mentions an unproductive symbol.

    A nonterminal is *productive* if it derives some string of lexemes: some rule of it has
    only productive symbols. A lexeme is productive unless its language is empty. Rules
    using an unproductive symbol can never take part in a derivation, so dropping them
    keeps the language (`productive_nonterminals` computes them). If the start symbol is
    unproductive, the grammar's language is empty: every rule of the start symbol goes,
    and the grammar that is left accepts nothing (its first mask is empty and it never
    accepts: docs/semantics.md, "The empty language"; `Grammar.is_empty`).

    The context-free language is unchanged, but what the lexer sees is not quite: an
    Earley parser predicts into unproductive rules, so before this pass their lexemes
    count as "allowed" after a prefix that can only dead-end there. That (1) lets such
    lexemes into the mask, and (2) since %ignore is allowed only where some lexeme is,
    can accept trailing %ignore text after a complete sentence: with %ignore " ",
    `start: "a" | "a"* never` (never unproductive) accepts "a " before this pass and not
    after. llguidance does not prune, so it behaves like the grammar before this pass;
    maskref prunes on purpose (a lexeme that can only lead into a dead end is no valid
    continuation), which makes these grammars a known difference.
    """
    n = len(ir.names)
    dead_lexemes = {~sym for _, rhs in ir.rules for sym in rhs if sym < 0}
    dead_lexemes = {i for i in dead_lexemes if _lexeme_is_empty(ir, i)}
    productive = productive_nonterminals(ir.rules, [False] * n, dead_lexemes)
    by_lhs: List[List[Rhs]] = [[] for _ in range(n)]
    for lhs, rhs in ir.rules:
        if all(productive[sym] if sym >= 0 else ~sym not in dead_lexemes for sym in rhs):
            by_lhs[lhs].append(rhs)
    return _rebuild(ir, by_lhs, ir.start)


def productive_nonterminals(rules: Sequence[Tuple[int, Rhs]], productive: List[bool],
                            dead_lexemes: AbstractSet[int] = frozenset()) -> List[bool]:
    """Which nonterminals derive some string of lexemes: `productive` (updated in place
    and returned) marks those known to beforehand; a rule using a lexeme of
    `dead_lexemes` (an empty language) never counts. A worklist: each rule counts its
    not-yet-productive nonterminal occurrences, and a nonterminal found productive
    decrements the counts of the rules using it."""
    missing = [0] * len(rules)
    uses: Dict[int, List[int]] = {}
    queue: List[int] = []
    for r, (lhs, rhs) in enumerate(rules):
        if any(sym < 0 and ~sym in dead_lexemes for sym in rhs):
            missing[r] = -1  # never productive
            continue
        for sym in rhs:
            if sym >= 0 and not productive[sym]:
                missing[r] += 1
                uses.setdefault(sym, []).append(r)
        if missing[r] == 0 and not productive[lhs]:
            productive[lhs] = True
            queue.append(lhs)
    while queue:
        nt = queue.pop()
        for r in uses.pop(nt, ()):
            missing[r] -= 1
            lhs = rules[r][0]
            if missing[r] == 0 and not productive[lhs]:
                productive[lhs] = True
                queue.append(lhs)
    return productive


def remove_unreachable(ir: GrammarIR) -> GrammarIR:
    """Drop the rules of nonterminals the start symbol cannot reach (breadth-first search)."""
    by_lhs = _rules_by_lhs(ir)
    reached = [False] * len(ir.names)
    reached[ir.start] = True
    queue = [ir.start]
    while queue:
        nt = queue.pop()
        for rhs in by_lhs[nt]:
            for sym in rhs:
                if sym >= 0 and not reached[sym]:
                    reached[sym] = True
                    queue.append(sym)
    return _rebuild(ir, [alts if reached[nt] else [] for nt, alts in enumerate(by_lhs)], ir.start)


def remove_duplicate_rules(ir: GrammarIR) -> GrammarIR:
    """Keep one copy of each alternative of a nonterminal, and drop the useless `A → A`.

    `A → α | α` derives what `A → α` does; `A → A` adds no derivation that does not
    already exist without it.
    """
    by_lhs: List[List[Rhs]] = []
    for lhs, alternatives in enumerate(_rules_by_lhs(ir)):
        seen: Set[Rhs] = set()
        kept = []
        for rhs in alternatives:
            if rhs not in seen and rhs != (lhs,):
                seen.add(rhs)
                kept.append(rhs)
        by_lhs.append(kept)
    return _rebuild(ir, by_lhs, ir.start)


def inline_aliases(ir: GrammarIR) -> GrammarIR:
    """Replace a nonterminal whose only rule is `A → X` (one symbol) or `A → ε` by X (or ε).

    Substituting a nonterminal by the only thing it derives is the textbook unit-rule
    elimination in its safe special case: every derivation through A becomes one through
    X and back. Chains `A → B`, `B → C` resolve to the end of the chain, iteratively; a
    cycle of aliases (all unproductive) is left alone. The start symbol is kept.
    """
    by_lhs = _rules_by_lhs(ir)
    EPS = None
    alias: Dict[int, Optional[int]] = {}
    for nt, alternatives in enumerate(by_lhs):
        if nt != ir.start and len(alternatives) == 1 and len(alternatives[0]) <= 1:
            alias[nt] = alternatives[0][0] if alternatives[0] else EPS
    resolved: Dict[int, Optional[int]] = {}
    for nt in alias:
        path = []
        x: Optional[int] = nt
        on_path: Set[int] = set()
        while x is not None and x in alias and x not in resolved and x not in on_path:
            on_path.add(x)
            path.append(x)
            x = alias[x]
        if x is not None and x in on_path:  # a cycle of aliases: keep them
            for y in path:
                resolved[y] = y
            continue
        end = resolved[x] if x is not None and x in resolved else x
        for y in path:
            resolved[y] = end
    if not resolved:
        return ir
    new_by_lhs: List[List[Rhs]] = []
    for nt, alternatives in enumerate(by_lhs):
        if nt in resolved and resolved[nt] != nt:
            new_by_lhs.append([])
            continue
        rules = []
        for rhs in alternatives:
            out = []
            for sym in rhs:
                if sym >= 0 and sym in resolved:
                    target = resolved[sym]
                    if target is not None:
                        out.append(target)
                else:
                    out.append(sym)
            rules.append(tuple(out))
        new_by_lhs.append(rules)
    return _rebuild(ir, new_by_lhs, ir.start)


#: splicing stops at this rule length: longer rules gain nothing, and splicing a long chain
#: of single-use nonterminals into one ever-growing rule would cost quadratic time
MAX_SPLICED_RULE = 64


def inline_single_use(ir: GrammarIR) -> GrammarIR:
    """Inline a nonterminal B that occurs exactly once in the whole grammar.

    If its one occurrence is a whole right-hand side (`A → B`), that rule is replaced by
    B's rules moved into A (`A → β1 | β2 ...`); if B has a single rule `B → β` and occurs
    inside a longer rule `A → α B γ`, β is spliced in: `A → α β γ`. Both are substitution,
    so the language is unchanged, and both *move* B's symbols rather than copy them, so the
    grammar never grows. B must not be the start symbol and must not occur in its own rules
    (then it would occur twice). Inlining may cascade (B into A, then A into C): rules are
    mutable lists and `where` remembers which rule holds each single occurrence.
    """
    by_lhs = [[list(rhs) for rhs in alternatives] for alternatives in _rules_by_lhs(ir)]
    count = [0] * len(ir.names)
    where: Dict[int, List[int]] = {}  # single-use nonterminal -> the rule list holding it
    owner: Dict[int, int] = {}  # ... and that rule's left-hand side
    for lhs, alternatives in enumerate(by_lhs):
        for rhs in alternatives:
            for sym in rhs:
                if sym >= 0:
                    count[sym] += 1
                    where[sym] = rhs
                    owner[sym] = lhs
    dead: Set[int] = set()  # ids of rule lists replaced by the rules they referred to
    changed = False
    # Parents before children (breadth-first from the start symbol): B's rules are then
    # moved before anything was inlined into them, so each symbol moves O(1) times and a
    # 10,000-deep chain of groups costs linear time, not quadratic.
    for b in _breadth_first(by_lhs, ir.start):
        if count[b] != 1 or b == ir.start or owner[b] == b or not by_lhs[b]:
            continue
        rule, a = where[b], owner[b]
        if len(rule) == 1:  # A → B: move B's rules into A
            moved = by_lhs[b]
            by_lhs[a].extend(moved)
            dead.add(id(rule))
            for rhs in moved:
                for sym in rhs:
                    if sym >= 0:
                        owner[sym] = a
        elif len(by_lhs[b]) == 1 and len(rule) + len(by_lhs[b][0]) <= MAX_SPLICED_RULE:
            # A → α B γ with B → β: splice β in
            beta = by_lhs[b][0]
            i = rule.index(b)
            rule[i:i + 1] = beta
            for sym in beta:
                if sym >= 0:
                    owner[sym] = a
                    where[sym] = rule
        else:
            continue
        by_lhs[b] = []
        count[b] = 0
        changed = True
    if not changed:
        return ir
    return _rebuild(
        ir, [[rhs for rhs in alts if id(rhs) not in dead] for alts in by_lhs], ir.start
    )


def _breadth_first(by_lhs: Sequence[Sequence[Sequence[int]]], start: int) -> List[int]:
    """The nonterminals reachable from `start`, breadth-first (parents before children)."""
    order = [start]
    seen = {start}
    for nt in order:
        for rhs in by_lhs[nt]:
            for sym in rhs:
                if sym >= 0 and sym not in seen:
                    seen.add(sym)
                    order.append(sym)
    return order


def _strongly_connected_components(succ: Sequence[Sequence[int]]) -> List[List[int]]:
    """Tarjan's algorithm with an explicit stack; components come out dependencies first."""
    n = len(succ)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: List[int] = []
    components: List[List[int]] = []
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            recurse = False
            while i < len(succ[v]):
                w = succ[v][i]
                i += 1
                if index[w] < 0:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if on_stack[w]:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    component.append(w)
                    if w == v:
                        break
                components.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return components


_SELF = -(1 << 62)  # stands for "this nonterminal" in a signature (never a lexeme symbol)


def merge_equivalent_nonterminals(ir: GrammarIR) -> GrammarIR:
    """Merge nonterminals whose sets of right-hand sides are identical.

    Nonterminals are visited dependencies first (strongly connected components in Tarjan's
    order), each right-hand side rewritten with the representatives already chosen, so
    that `A → x B`, `B → y` and `C → x D`, `D → y` merge D into B and then C into A in one
    pass (hash-consing). A self-recursive nonterminal compares with itself written as a
    placeholder, so `A → A a | ε` and `B → B a | ε` merge as well. Members of larger
    recursive components are left alone. Sound because every derivation from one member
    maps, rule by rule, to a derivation from the other.
    """
    by_lhs = _rules_by_lhs(ir)
    succ = [sorted({s for rhs in alts for s in rhs if s >= 0}) for alts in by_lhs]
    rep = list(range(len(ir.names)))
    table: Dict[Tuple[object, ...], int] = {}
    changed = False
    for component in _strongly_connected_components(succ):
        if len(component) != 1:
            continue
        nt = component[0]
        if not by_lhs[nt] or nt == ir.start:
            continue
        signature = tuple(sorted({
            tuple(_SELF if s == nt else (rep[s] if s >= 0 else s) for s in rhs)
            for rhs in by_lhs[nt]
        }))
        other = table.setdefault(signature, nt)
        if other != nt:
            rep[nt] = other
            changed = True
    if not changed:
        return ir
    new_by_lhs = [
        [tuple(rep[s] if s >= 0 else s for s in rhs) for rhs in alts] if rep[nt] == nt else []
        for nt, alts in enumerate(by_lhs)
    ]
    return _rebuild(ir, new_by_lhs, ir.start)


def _literal_bytes(ir: GrammarIR, expr: int) -> Optional[bytes]:
    """The one word of a literal expression (a chain of single bytes), else None."""
    es = ir.es
    out = bytearray()
    e = expr
    while True:
        node = es.node(e)
        if node.kind == EPSILON_KIND:
            return bytes(out)
        head = node.children[0] if node.kind == CONCAT else e
        head_node = es.node(head)
        if head_node.kind != BYTES or head_node.mask & (head_node.mask - 1):
            return None
        out.append(head_node.mask.bit_length() - 1)
        if node.kind != CONCAT:
            return bytes(out)
        e = node.children[1]


def _prefix_free(words: Sequence[bytes]) -> bool:
    """No word is a proper prefix of another (after sorting, a prefix sits just before)."""
    ordered = sorted(set(words))
    return all(not ordered[i + 1].startswith(ordered[i]) for i in range(len(ordered) - 1))


def merge_literals(ir: GrammarIR) -> GrammarIR:
    """Merge runs of consecutive literal lexemes inside a rule: `"a" "b"` → `"ab"`.

    At the level of the context-free language over bytes this is plain substitution. But
    lexemes are cut by a greedy lexer, and there "a" "b" and "ab" can differ:

    * with `%ignore` (whitespace) set, "a" "b" accepts "a b" and "ab" does not;
    * even without it, the lexer commits to the longest match among the lexemes allowed
      at that point. `s: "a" "b" | "a" t` and `t: "b" "c"` accepts "abc", but merged into
      `s: "ab" | "a" t`, `t: "bc"` the lexer reads "ab" as one lexeme (it extends "a")
      and then cannot place "c". So "no %ignore" alone is not enough.

    The condition used here: no %ignore; every lexeme of the grammar is a plain greedy
    literal; and the literals before *and* after merging form a prefix-free set (no literal
    is a proper prefix of another). With a prefix-free set of literals, a byte string has
    at most one split into literals and the greedy lexer finds exactly that split (once a
    literal matches, no allowed lexeme can extend it), so the lexer's language equals the
    context-free language over bytes — for both grammars, and substitution keeps that. If
    the condition fails, nothing is merged.
    """
    if ir.ignores:
        return ir
    words: Dict[int, bytes] = {}
    for i, lexeme in enumerate(ir.lexemes):
        word = _literal_bytes(ir, lexeme.expr)
        if lexeme != Lexeme(lexeme.name, lexeme.expr) or word is None or not word:
            return ir
        words[~i] = word
    if not _prefix_free(list(words.values())):
        return ir
    new_rules: List[Tuple[int, List[object]]] = []  # rhs items: nonterminal or bytes
    final_words: List[bytes] = []
    merged_any = False
    for lhs, rhs in ir.rules:
        items: List[object] = []
        for sym in rhs:
            if sym < 0 and items and isinstance(items[-1], bytes):
                items[-1] = items[-1] + words[sym]
                merged_any = True
            else:
                items.append(words[sym] if sym < 0 else sym)
        new_rules.append((lhs, items))
        final_words.extend(x for x in items if isinstance(x, bytes))
    if not merged_any or not _prefix_free(final_words):
        return ir
    by_word = {words[sym]: sym for sym in sorted(words, reverse=True)}
    new = GrammarIR(ir.es, ir.limits)
    new.names = list(ir.names)
    new.start = ir.start
    new.copy_options(ir)
    for lhs, items in new_rules:
        new_rhs: List[int] = []
        for x in items:
            if isinstance(x, bytes):
                old = by_word.get(x)
                if old is not None:
                    lex = ir.lexemes[~old]
                    new_rhs.append(new.add_lexeme(lex.name, lex.expr))
                else:
                    new_rhs.append(new.add_lexeme(lark_string(x.decode("utf-8", "backslashreplace")), ir.es.literal(x)))
            else:
                new_rhs.append(x)  # type: ignore[arg-type]
        new.add_rule(lhs, new_rhs)
    return new


#: how many one-literal alternatives of one nonterminal `merge_literal_alternatives`
#: makes one lexeme (fewer cost little as lexemes, and keep their own names in explain)
LITERAL_ALTERNATIVES = 16


def merge_literal_alternatives(ir: GrammarIR, at_least: Optional[int] = None) -> GrammarIR:
    """`A: "w1" | "w2" | ... | "wn"` (n >= `at_least` alternatives, LITERAL_ALTERNATIVES by
    default, that are each one plain literal lexeme of one lexeme class) becomes `A: L`
    with one lexeme L matching any wi,
    built as a trie (`ExprSet.words`). 20,000 literal lexemes would put 20,000 (lexeme,
    expression) pairs in the lexer's start state and 20,000 items in an Earley row; L is one
    of each, and its derivatives look at one trie node.

    The byte language and the masks are kept: a greedy lexer over the lexemes a row allows
    extends while one of them is alive and ends where one matches, which depends only on
    the union of their languages; a matched wi completes A, and so does L matching wi.
    Only plain lexemes (greedy, no tokens, stops or budgets) of one class are merged, so
    %ignore between lexemes is unchanged; other alternatives of A stay as they are.

    >>> from refimpl.regex import ExprSet
    >>> g = GrammarIR(ExprSet())
    >>> g.start = g.add_nonterminal("start")
    >>> for w in ("ab", "ac", "b"):
    ...     g.add_rule(g.start, [g.add_lexeme('"%s"' % w, g.es.literal(w.encode()))])
    >>> print(merge_literal_alternatives(g, at_least=3).to_text())
    start: ("ab" | "ac" | "b")
    <BLANKLINE>
    >>> trie = g.es.words([[1 << b for b in w] for w in (b"ab", b"ac", b"b")])
    >>> merge_literal_alternatives(g, at_least=3).lexemes[0].expr == trie
    True
    """
    def plain_literal(rhs: Sequence[int]) -> Tuple[Optional[Lexeme], bytes]:
        """The rule's only symbol and its word, when it is a greedy literal lexeme with no
        other option; else (None, b"")."""
        if len(rhs) != 1 or rhs[0] >= 0:
            return None, b""
        lexeme = ir.lexemes[~rhs[0]]
        word = _literal_bytes(ir, lexeme.expr)
        plain = lexeme == Lexeme(lexeme.name, lexeme.expr, lexeme_class=lexeme.lexeme_class)
        return (lexeme, word) if plain and word else (None, b"")

    merged: Dict[int, Dict[int, List[bytes]]] = {}  # lhs -> lexeme class -> words
    for lhs, rhs in ir.rules:
        lexeme, word = plain_literal(rhs)
        if lexeme is not None:
            merged.setdefault(lhs, {}).setdefault(lexeme.lexeme_class, []).append(word)
    least = LITERAL_ALTERNATIVES if at_least is None else at_least
    groups = {(lhs, c): words for lhs, by_class in merged.items() for c, words in by_class.items()
              if len(words) >= least}
    if not groups:
        return ir
    new = GrammarIR(ir.es, ir.limits)
    new.names = list(ir.names)
    new.start = ir.start
    new.copy_options(ir)
    done = set()
    for lhs, rhs in ir.rules:
        lexeme, _ = plain_literal(rhs)
        key = (lhs, lexeme.lexeme_class) if lexeme is not None else None
        if lexeme is not None and key in groups:
            if key not in done:
                done.add(key)
                words = groups[key]
                name = " | ".join([lark_string(w.decode("utf-8", "backslashreplace")) for w in words[:3]]
                                  + (["... %d literals" % len(words)] if len(words) > 3 else []))
                expr = ir.es.words([1 << b for b in w] for w in words)
                new.add_rule(lhs, [new.add(Lexeme("(%s)" % name, expr, lexeme_class=lexeme.lexeme_class))])
            continue
        new.add_rule(lhs, [new.add(ir.lexemes[~sym]) if sym < 0 else sym for sym in rhs])
    return new


def factor_alternations(ir: GrammarIR) -> GrammarIR:
    """Every lexeme's (and %ignore's) expression with its alternations left-factored
    (regex/factoring.py): the same languages, so the same lexer and masks, but a
    20,000-word alternation costs a derivative a trie node's few branches, not 20,000
    members. Lexemes whose factored expressions are equal become one (`GrammarIR.add`).

    >>> from refimpl.regex import ExprSet, compile_pattern
    >>> g = GrammarIR(ExprSet())
    >>> g.start = g.add_nonterminal("start")
    >>> g.add_rule(g.start, [g.add_lexeme("/abc|abd/", compile_pattern(g.es, "abc|abd"))])
    >>> factor_alternations(g).lexemes[0].expr == compile_pattern(g.es, "ab[cd]")
    True
    """
    es = ir.es
    exprs = [left_factored(es, lexeme.expr) for lexeme in ir.lexemes]
    ignores = {c: left_factored(es, e) for c, e in ir.ignores.items()}
    if ignores == ir.ignores and all(e == lexeme.expr for e, lexeme in zip(exprs, ir.lexemes)):
        return ir
    new = GrammarIR(es, ir.limits)
    new.names = list(ir.names)
    new.start = ir.start
    new.copy_options(ir)
    new.ignores = ignores
    symbols = [new.add(replace(lexeme, expr=e)) for lexeme, e in zip(ir.lexemes, exprs)]
    for lhs, rhs in ir.rules:
        new.add_rule(lhs, [symbols[~sym] if sym < 0 else sym for sym in rhs])
    return new


def simplify(ir: GrammarIR) -> GrammarIR:
    """All the rewrites, in this order, and a new GrammarIR (the input is not changed).

    1. `remove_unproductive` first: every later pass may assume each nonterminal derives
       something (if the start symbol derives nothing, no rule is left: the empty
       language).
    2. `remove_unreachable`, `remove_duplicate_rules`: cheap clean-ups.
    3. Then, until the grammar stops shrinking (a few rounds at most):
       `inline_aliases` (A → B), `inline_single_use`, `merge_equivalent_nonterminals`,
       `remove_duplicate_rules` (merging can make alternatives equal, and equal
       alternatives can make a new alias) and `remove_unreachable`.
    4. `merge_literals`, when its (strict) condition holds, because inlining can put
       literals next to each other.
    5. `merge_literal_alternatives` (many one-literal alternatives as one lexeme) and
       `factor_alternations` last: the lexemes' expressions in the shape derivatives are
       cheap on (merge_literals reads literals as chains of bytes, before).
    """
    ir = remove_unproductive(ir)
    ir = remove_unreachable(ir)
    ir = remove_duplicate_rules(ir)
    for _ in range(8):
        before = _size(ir)
        ir = inline_aliases(ir)
        ir = inline_single_use(ir)
        ir = merge_equivalent_nonterminals(ir)
        ir = remove_duplicate_rules(ir)
        ir = remove_unreachable(ir)
        if _size(ir) == before:
            break
    return factor_alternations(merge_literal_alternatives(merge_literals(ir)))
