"""`maskref explain --format dot`: a Graphviz picture of the lexer's lazy DFA or of the
token trie's top levels after the last step — one graph per output (`--graph dfa`, the
default, or `--graph trie`), so `dot -Tsvg walk.dot > walk.svg` draws it.

Labels are ASCII, so they render in Graphviz's default fonts: a byte is itself when it is
printable ASCII other than the space, else `\\xNN` (the space is `\\x20`); any other
character of a label (of a lexeme's name) is `\\xNN` or `\\uNNNN`.

The DFA: the states built so far (the dead state left out), accepting ones double-circled,
start states (fresh: no byte of a lexeme read) boxed, the current state filled; an edge
per target state, labelled with the byte class that leads there. The trie: its first
two levels (at most FANOUT children a node), each node coloured by what the last mask's
walk did there: skipped (red), taken whole (green), walked (black), not reached (grey) —
the walk's own events (refimpl/trace.py), not recomputed.

>>> from refimpl import Grammar, Vocabulary
>>> from refimpl.showing import explain
>>> ex = explain(Grammar.from_regex("ab*"), Vocabulary.from_bytes([b"a", b"b", b"ab"]), text="a")
>>> print(render(ex))    # the DFA after "a"
digraph lexer_dfa {
  rankdir=LR;
  node [fontname="monospace"];
  s1 [label="1\\n/ab*/", shape=box];
  s2 [label="2\\n/ab*/", shape=doublecircle, style=filled, fillcolor="#ffe08a"];
  s3 [label="3\\n(nothing)", shape=box];
  s1 -> s2 [label="a"];
  s2 -> s2 [label="b"];
}
<BLANKLINE>
>>> print(render(ex, "trie"))    # after "a": only "b" (id 1); "a" and "ab" die at their byte "a"
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

from .steps import Explanation, byte_class, dfa_view

DFA_STATES = 200
FANOUT = 24
DEPTH = 2
GRAPHS = ("dfa", "trie")  # what `render` can draw, `--graph`'s choices


def ascii_byte(b: int) -> str:
    """A byte in a DOT label: itself if printable ASCII other than the space, else \\xNN.

    >>> ascii_byte(0x61), ascii_byte(0x20), ascii_byte(0xE9)
    ('a', '\\\\x20', '\\\\xe9')
    """
    return chr(b) if 0x21 <= b < 0x7F else "\\x%02x" % b


def ascii_text(text: str) -> str:
    """Text in a DOT label: characters outside printable ASCII as \\xNN or \\uNNNN (a line
    break stays one: Graphviz draws it)."""
    return "".join(ch if " " <= ch < "\x7f" or ch == "\n" else "\\x%02x" % ord(ch) if ord(ch) < 0x100
                   else "\\u%04x" % ord(ch) if ord(ch) < 0x10000 else "\\U%08x" % ord(ch) for ch in text)


def _quote(text: str) -> str:
    text = ascii_text(text)
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def render(ex: Explanation, graph: str = "dfa") -> str:
    """One graph: the lexer's DFA ("dfa") or the trie's top levels ("trie")."""
    if graph not in GRAPHS:
        raise ValueError("no graph %r: %s" % (graph, " or ".join(GRAPHS)))
    return lexer_dfa(ex) if graph == "dfa" else token_trie(ex)


def lexer_dfa(ex: Explanation) -> str:
    d = dfa_view(ex.matcher, DFA_STATES)
    lines = ["digraph lexer_dfa {", "  rankdir=LR;", '  node [fontname="monospace"];']
    for s, lexemes, accepting, start in d.states:
        attrs = ["label=%s" % _quote("%d\n%s" % (s, lexemes)),
                 "shape=%s" % ("doublecircle" if accepting else "box" if start else "circle")]
        if s == d.current:
            attrs.append('style=filled, fillcolor="#ffe08a"')
        lines.append("  s%d [%s];" % (s, ", ".join(attrs)))
    lines.extend("  s%d -> s%d [label=%s];" % (a, b, _quote(byte_class(bs, ascii_byte))) for a, b, bs in d.edge_bytes)
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
            label = ascii_byte(trie.byte[c]) + ("\n%s" % ",".join(map(str, tokens[:3])) if tokens else "")
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
