"""`maskref explain --format dot`: Graphviz pictures of the lexer's lazy DFA and of the
token trie's top levels after the last step (render with `dot -Tsvg`).

The DFA: the states built so far (the dead state left out), accepting ones double-circled,
start states (fresh: no byte of a lexeme read) boxed, the current state filled; an edge
per target state, labelled with the byte class that leads there. The trie: its first
two levels (at most FANOUT children a node), each node coloured by what the last mask's
walk did there: skipped (red), taken whole (green), walked (black), not reached (grey).

>>> from refimpl import Grammar, Vocabulary
>>> from refimpl.explain import explain
>>> ex = explain(Grammar.from_regex("ab*"), Vocabulary.from_bytes([b"a", b"b", b"ab"]), text="a")
>>> print(render(ex))    # after "a": only "b" (id 1); "a" and "ab" die at their byte "a"
digraph lexer_dfa {
  rankdir=LR;
  node [fontname="monospace"];
  s1 [label="1\\n/ab*/", shape=box];
  s2 [label="2\\n/ab*/", shape=doublecircle, style=filled, fillcolor="#ffe08a"];
  s3 [label="3\\n(nothing)", shape=box];
  s1 -> s2 [label="a"];
  s2 -> s2 [label="b"];
}
digraph token_trie {
  rankdir=LR;
  node [fontname="monospace", shape=box];
  n0 [label="root"];
  n1 [label="a\\n0", color="red", fontcolor="red"];
  n0 -> n1;
  n3 [label="b\\n1", color="black", fontcolor="black"];
  n0 -> n3;
  n2 [label="b\\n2", color="red", fontcolor="red"];
  n1 -> n2;
}
<BLANKLINE>
"""
from __future__ import annotations

from typing import Dict, List

from .steps import Explanation, dfa_view, show

DFA_STATES = 200
FANOUT = 24
DEPTH = 2


def _quote(text: str) -> str:
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def render(ex: Explanation) -> str:
    return lexer_dfa(ex) + token_trie(ex)


def lexer_dfa(ex: Explanation) -> str:
    d = dfa_view(ex.matcher, DFA_STATES)
    lines = ["digraph lexer_dfa {", "  rankdir=LR;", '  node [fontname="monospace"];']
    for s, lexemes, accepting, start in d.states:
        attrs = ["label=%s" % _quote("%d\n%s" % (s, lexemes)).replace("\n", "\\n"),
                 "shape=%s" % ("doublecircle" if accepting else "box" if start else "circle")]
        if s == d.current:
            attrs.append('style=filled, fillcolor="#ffe08a"')
        lines.append("  s%d [%s];" % (s, ", ".join(attrs)))
    lines.extend("  s%d -> s%d [label=%s];" % (a, b, _quote(label)) for a, b, label in d.edges)
    if d.total_states > len(d.states):
        lines.append("  // %d more states not drawn" % (d.total_states - len(d.states)))
    lines.append("}")
    return "\n".join(lines) + "\n"


def token_trie(ex: Explanation) -> str:
    """The first DEPTH levels of the vocabulary's trie, coloured by the last walk."""
    trie = ex.matcher.trie
    trace = ex.traces[-1]
    outcome: Dict[int, str] = {}
    if trace.tries and trace.tries[0] is trie:  # sliced walks are over other tries
        outcome.update((s.node, "red") for s in trace.skips if s.trie == 0)
        outcome.update((w.node, "green") for w in trace.wholes if w.trie == 0)
    reached = not trace.cached and bool(trace.tries) and trace.tries[0] is trie
    lines = ["digraph token_trie {", "  rankdir=LR;", '  node [fontname="monospace", shape=box];',
             '  n0 [label="root"];']
    stack: List[tuple] = [(0, 0, "black" if reached else "grey")]
    while stack:
        node, depth, colour = stack.pop()
        if depth == DEPTH:
            continue
        children = []
        child = node + 1
        while child < trie.end[node] and len(children) < FANOUT:
            children.append(child)
            child = trie.end[child]
        for c in children:
            c_colour = colour if colour in ("red", "green", "grey") else outcome.get(c, "black")
            tokens = trie.tokens_at(c)
            text = show(bytes([trie.byte[c]]))
            label = text + ("\n%s" % ",".join(map(str, tokens)) if tokens else "")
            lines.append('  n%d [label=%s, color="%s", fontcolor="%s"];'
                         % (c, _quote(label).replace("\n", "\\n"), c_colour, c_colour))
            lines.append("  n%d -> n%d;" % (node, c))
        for c in reversed(children):
            stack.append((c, depth + 1, colour if colour in ("red", "green", "grey") else outcome.get(c, "black")))
    lines.append("}")
    return "\n".join(lines) + "\n"
