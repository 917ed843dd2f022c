"""`maskref explain --format dot`: Graphviz pictures of the lexer's lazy DFA and of the
token trie's top levels after the last step (render with `dot -Tsvg`).

The DFA: the states built so far (the dead state left out), accepting ones double-circled,
start states (fresh: no byte of a lexeme read) boxed, the current state filled; an edge
per target state, labelled with the byte class that leads there. The trie: its first
two levels (at most FANOUT children a node), each node coloured by what the last mask's
walk did there: skipped (red), taken whole (green), walked (black), not reached (grey) —
the walk's own events (refimpl/trace.py), not recomputed.

>>> from refimpl import Grammar, Vocabulary
>>> from refimpl.showing import explain
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
  n3 [label="b\\n1", color="black", fontcolor="black"];
  n0 -> n3;
  n1 [label="a\\n0", color="red", fontcolor="red"];
  n0 -> n1;
  n2 [label="b\\n2", color="red", fontcolor="red"];
  n1 -> n2;
}
<BLANKLINE>
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from .steps import Explanation, dfa_view, show_byte

DFA_STATES = 200
FANOUT = 24
DEPTH = 2


def _quote(text: str) -> str:
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def render(ex: Explanation) -> str:
    return lexer_dfa(ex) + token_trie(ex)


def lexer_dfa(ex: Explanation) -> str:
    d = dfa_view(ex.matcher, DFA_STATES)
    lines = ["digraph lexer_dfa {", "  rankdir=LR;", '  node [fontname="monospace"];']
    for s, lexemes, accepting, start in d.states:
        attrs = ["label=%s" % _quote("%d\n%s" % (s, lexemes)),
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
    """The first DEPTH levels of the vocabulary's trie, coloured by the last walk: of each
    node's children, those the walk went into first, then those it skipped, at most
    FANOUT (the rest counted in one node)."""
    trie = ex.matcher.trie
    trace = ex.traces[-1]
    walked_here = bool(trace.tries) and trace.tries[0] is trie and not trace.cached  # else sliced or cached
    outcome: Dict[int, str] = {}
    if walked_here:
        outcome.update((s.node, "red") for s in trace.skips if s.trie == 0)
        outcome.update((w.node, "green") for w in trace.wholes if w.trie == 0)
    rank = {"green": 0, "black": 1, "red": 2, "grey": 3}
    lines = ["digraph token_trie {", "  rankdir=LR;", '  node [fontname="monospace", shape=box];',
             '  n0 [label="root"];']
    stack: List[Tuple[int, int, str]] = [(0, 0, "black" if walked_here else "grey")]
    while stack:
        node, depth, colour = stack.pop()
        if depth == DEPTH:
            continue
        children = []
        child = node + 1
        while child < trie.end[node]:
            inherited = colour if colour != "black" else outcome.get(child, "black")
            children.append((rank[inherited], child, inherited))
            child = trie.end[child]
        children.sort()
        for _, c, c_colour in children[:FANOUT]:
            tokens = trie.tokens_at(c)
            label = show_byte(trie.byte[c]) + ("\n%s" % ",".join(map(str, tokens[:3])) if tokens else "")
            lines.append('  n%d [label=%s, color="%s", fontcolor="%s"];' % (c, _quote(label), c_colour, c_colour))
            lines.append("  n%d -> n%d;" % (node, c))
        if len(children) > FANOUT:
            rest = children[FANOUT:]
            lines.append('  more%d [label="%d more (%d skipped)", shape=plaintext];'
                         % (node, len(rest), sum(c[2] == "red" for c in rest)))
            lines.append("  n%d -> more%d [style=dotted];" % (node, node))
        for _, c, c_colour in reversed(children[:FANOUT]):
            stack.append((c, depth + 1, c_colour))
    lines.append("}")
    return "\n".join(lines) + "\n"
