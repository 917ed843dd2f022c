"""xgrammar's dispatch macros, `TagDispatch((tag, rule), ..., loop_after_dispatch=...,
excludes=(...))` and `TokenTagDispatch((id, rule), ..., excludes=(ids))`, as grammar nodes.

**TagDispatch** (cpp/grammar_functor.cc `BuildTagDispatchFSM`, cpp/fsm_builder.cc
`TrieFSMBuilder` with back edges): free text is read by an Aho–Corasick automaton over the
tags and the excluded strings, built *without output links*; its state after a text v is
S(v), the longest suffix of v that is a prefix of some tag or excluded string. When S(v)
is a whole tag, the text may dispatch there (the tag's rule must follow, then the free
text starts again from nothing, or, with `loop_after_dispatch=false`, the macro ends), or
go on along a longer tag (S(v)·c a prefix too); any other character is refused there.
When S(v) is a whole excluded string, the text is refused. Free text may end wherever
S(v) is not a whole tag. So, with At(p) = the texts v with S(v) = p, which is
(Σ* ∖ ⋃ Σ*x)·p over the x with x·p a longer prefix:

    Bad   = ⋃ over tags p: At(p)·(Σ ∖ {c : p·c a prefix})·Σ*  ∪  ⋃ over excludes p: At(p)·Σ*
    F     = Σ* ∖ Bad ∖ ⋃ over tags p: At(p)          free text that may end the macro
    L(t)  = At(t) ∖ Bad                              free text, then the tag t

and the macro is (⋃ L(tᵢ)·ruleᵢ)*·F, or F | ⋃ L(tᵢ)·ruleᵢ without the loop. This is the
textbook "text with no tag in it, then a tag" except where one pattern ends inside a
longer one: with the tags "abc" and "b", xgrammar reads "abx" as free text (the state
"ab" hides the "b"), and so does maskref. Σ is every Unicode scalar value: xgrammar's free
text also takes bytes that are not UTF-8, maskref's never does (docs/ebnf.md).

**TokenTagDispatch** (`BuildTokenTagDispatch`): free tokens are any token but the
triggers and the excluded ids (`ExcludeToken`), a trigger token dispatches to its rule:
(ExcludeToken(triggers, excludes) | ⋃ Token(tᵢ)·ruleᵢ)*, or
ExcludeToken(...)*·(ε | ⋃ Token(tᵢ)·ruleᵢ) without the loop.

>>> from refimpl.regex import ast as syntax
>>> free, tagged = tag_trees(["ab"], [])
>>> len(tagged)
1
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Set, Tuple

from ...grammar.ir import TokenSpec
from ...regex import ast as syntax
from ...regex import unicode as uni
from .ast import ANY_CHAR, Alt, Node, Pattern, Ref, Repeat, Seq, Token


def _star() -> syntax.Node:
    return syntax.Repeat(syntax.Class(ANY_CHAR, 0), 0, None, 0)


def _text(s: str) -> syntax.Node:
    chars = [syntax.Literal(ord(c), False, 0) for c in s]
    return chars[0] if len(chars) == 1 else syntax.Concat(tuple(chars), 0)


def _concat(*items: syntax.Node) -> syntax.Node:
    return syntax.Concat(tuple(items), 0)


def _union(items: List[syntax.Node]) -> syntax.Node:
    if not items:
        return syntax.Class((), 0)  # ∅
    return items[0] if len(items) == 1 else syntax.Alternation(tuple(items), 0)


def _minus(a: syntax.Node, b: syntax.Node) -> syntax.Node:
    return syntax.Intersection((a, syntax.Complement(b, 0)), 0)


def tag_trees(tags: Sequence[str], excludes: Sequence[str]) -> Tuple[syntax.Node, List[syntax.Node]]:
    """(F, [L(t) for t in tags]) as syntax trees (see the module's docstring)."""
    patterns = list(tags) + list(excludes)
    prefixes: Set[str] = {p[:k] for p in patterns for k in range(len(p) + 1)}
    at: Dict[str, syntax.Node] = {}
    for p in set(patterns):
        longer = sorted(q[:len(q) - len(p)] for q in prefixes if len(q) > len(p) and q.endswith(p))
        hidden = _union([_concat(_star(), _text(x)) for x in longer])
        at[p] = _concat(_minus(_star(), hidden) if longer else _star(), _text(p))
    bad: List[syntax.Node] = []
    for p in sorted(set(tags)):
        going_on = uni.normalize((ord(q[len(p)]), ord(q[len(p)])) for q in prefixes
                                 if len(q) == len(p) + 1 and q.startswith(p))
        refused = uni.difference(ANY_CHAR, going_on)
        bad.append(_concat(at[p], syntax.Class(refused, 0), _star()))
    for p in sorted(set(excludes)):
        bad.append(_concat(at[p], _star()))
    bad_tree = _union(bad)
    free = _minus(_star(), _union(bad + [at[t] for t in sorted(set(tags))]))
    return free, [_minus(at[t], bad_tree) for t in tags]


def tag_dispatch(offset: int, pairs: Sequence[Tuple[str, str, int]], loop: bool, excludes: Sequence[str]) -> Node:
    """The node of `TagDispatch` with (tag, rule name, offset of the rule name) pairs."""
    free, tagged = tag_trees([tag for tag, _, _ in pairs], excludes)
    dispatches: List[Node] = [Seq(offset, [Pattern(offset, tree), Ref(at, rule)])
                              for tree, (_, rule, at) in zip(tagged, pairs)]
    return _assemble(offset, Pattern(offset, free), dispatches, loop)


def token_tag_dispatch(offset: int, source: str, end: int, pairs: Sequence[Tuple[int, str, int]], loop: bool,
                       excludes: Sequence[int]) -> Node:
    """The node of `TokenTagDispatch`, written at source[offset:end], with (token id, rule
    name, offset of the rule name) pairs."""
    text = source[offset:end]
    refused = sorted({t for t, _, _ in pairs} | set(excludes))
    free_spec = (TokenSpec(text, ranges=tuple((t, t) for t in refused), negated=True, offset=offset, source=source)
                 if refused else TokenSpec(text, any=True, offset=offset, source=source))
    dispatches: List[Node] = [Seq(offset, [Token(offset, TokenSpec(text, ranges=((t, t),), offset=offset,
                                                                   source=source)),
                                           Ref(at, rule)]) for t, rule, at in pairs]
    free = Repeat(offset, Token(offset, free_spec), 0, None)
    if loop:
        return Repeat(offset, _alt(offset, [Token(offset, free_spec)] + dispatches), 0, None) if dispatches else free
    return Seq(offset, [free, Repeat(offset, _alt(offset, dispatches), 0, 1)]) if dispatches else free


def _alt(offset: int, options: List[Node]) -> Node:
    return options[0] if len(options) == 1 else Alt(offset, options)


def _assemble(offset: int, free: Node, dispatches: List[Node], loop: bool) -> Node:
    if not dispatches:
        return free
    if loop:
        return Seq(offset, [Repeat(offset, _alt(offset, dispatches), 0, None), free])
    return Alt(offset, [free] + dispatches)
