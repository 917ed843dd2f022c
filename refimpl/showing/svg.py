"""Pictures for `maskref explain`'s page, as inline SVG: the lazy lexer DFA, the trie's
first level coloured by a mask's walk, and a bar for a part of a whole.

The DFA is laid out here, in layers, without Graphviz: the start states (fresh: no byte of
a lexeme read yet) go in the first column, every other state in the column of its shortest
distance from them (a breadth-first search), a column holding at most COLUMN states (a
longer layer wraps into the next columns), and the states of a layer ordered by the mean
height of their neighbours in other layers, sweeping down (predecessors) and up
(successors) a few times — the barycentre heuristic of Sugiyama, Tagawa and Toda,
"Methods for visual understanding of hierarchical system structures" (1981), which cuts
crossings. Edges are drawn straight forward, curved where they go back, stay in a column
or run both ways; the labels of edges fanning out of a state are spread along them.

The trie picture is its first level only (the 256 first bytes): per byte, the share of the
tokens under it that the walk allowed, read from the subtrees it skipped.

Every text is escaped for XML, and characters XML 1.0 forbids (C0 controls) are written
as \\xNN escapes, so each picture parses with any XML parser.

>>> from refimpl.showing.steps import DfaView
>>> view = DfaView([(1, "A", False, True), (2, "A", True, False)], [(1, 2, "a"), (2, 2, "[a-z]")], 2, 2, 10)
>>> picture = dfa(view)
>>> import xml.etree.ElementTree as ET
>>> root = ET.fromstring(picture)
>>> [g.get("class") for g in root.iter("{http://www.w3.org/2000/svg}g") if "state" in g.get("class").split()]
['state start', 'state accepting current']
>>> [g.get("class") for g in root.iter("{http://www.w3.org/2000/svg}g") if "edge" in g.get("class").split()]
['edge', 'edge loop']
>>> xml_text("a<b\\x00")
'a&lt;b\\\\x00'
"""
from __future__ import annotations

import bisect
import math
from collections import deque
from typing import Dict, List, Optional, Sequence, Tuple

from ..html import xml_text
from ..trace import WHY
from .steps import DfaView, show_byte

COLUMN = 8  # states a column at most
R = 20  # a state's radius
COL_W = 150  # distance between columns
ROW_H = 92  # distance between states in a column
MARGIN = 46
LABEL = 18  # characters of a state's lexemes shown under it

# colours shared with the page's legend (page.py)
CURRENT = "#ffd966"
ALLOWED = "#3a9b5c"
REFUSED = "#d9534f"
INK = "#2b2b2b"
MUTED = "#9a9a9a"


def glyphs(text: str) -> str:
    """A byte as steps.show_byte writes it, with the space as ␣ (U+2423; more fonts have
    it than ␠)."""
    return text.replace("\u2420", "\u2423")


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# -- the lexer DFA ------------------------------------------------------------------------


def layout(view: DfaView) -> Dict[int, Tuple[int, int]]:
    """Each state's (column, row): layers by breadth-first distance from the start states,
    wrapped at COLUMN states, ordered by the barycentre of their neighbours (predecessors
    sweeping down the layers, successors sweeping up) to cut crossings.

    >>> from refimpl.showing.steps import DfaView
    >>> v = DfaView([(1, "", False, True), (2, "", False, False), (3, "", True, False)],
    ...             [(1, 2, "a"), (2, 3, "b"), (3, 2, "c")], 3, 3, 3)
    >>> layout(v)
    {1: (0, 0), 2: (1, 0), 3: (2, 0)}
    """
    ids = [s[0] for s in view.states]
    succ: Dict[int, List[int]] = {i: [] for i in ids}
    pred: Dict[int, List[int]] = {i: [] for i in ids}
    for a, b, _ in view.edges:
        if a != b and a in succ and b in succ:
            succ[a].append(b)
            pred[b].append(a)
    layer: Dict[int, int] = {}
    roots = [s[0] for s in view.states if s[3]]
    others = deque(i for i in ids if i not in roots)  # those unreached start a search of their own
    while True:
        queue = deque(i for i in roots if i not in layer)
        for i in queue:
            layer[i] = 0
        while queue:  # breadth first from all the roots at once
            a = queue.popleft()
            for b in succ[a]:
                if b not in layer:
                    layer[b] = layer[a] + 1
                    queue.append(b)
        while others and others[0] in layer:
            others.popleft()
        if not others:
            break
        roots = [others.popleft()]
    layers = [[i for i in ids if layer[i] == d] for d in range(max(layer.values(), default=-1) + 1)]
    for sweep in range(SWEEPS):  # down the layers by predecessors, then up by successors, ...
        down = sweep % 2 == 0
        for d in range(1, len(layers)) if down else range(len(layers) - 2, -1, -1):
            y = _rows(_place(layers))
            layers[d].sort(key=lambda i: _centre(i, pred[i] if down else succ[i], y, layer))
    return _place(layers)


SWEEPS = 4


def _centre(i: int, near: List[int], y: Dict[int, float], layer: Dict[int, int]) -> Tuple[float, int]:
    """The mean height of a state's neighbours in other layers (its own where none)."""
    ys = [y[n] for n in near if layer[n] != layer[i]]
    return (sum(ys) / len(ys) if ys else y[i], i)


def _place(layers: List[List[int]]) -> Dict[int, Tuple[int, int]]:
    """(column, row) of each state, a layer wrapped into columns of COLUMN states."""
    where: Dict[int, Tuple[int, int]] = {}
    column = 0
    for members in layers:
        for k in range(0, len(members), COLUMN):
            for row, i in enumerate(members[k:k + COLUMN]):
                where[i] = (column, row)
            column += 1
    return where


def _rows(where: Dict[int, Tuple[int, int]]) -> Dict[int, float]:
    """Each state's height in rows, columns centred on the tallest (as dfa() draws them)."""
    heights: Dict[int, int] = {}
    for c, r in where.values():
        heights[c] = max(heights.get(c, 0), r + 1)
    tallest = max(heights.values(), default=1)
    return {i: (tallest - heights[c]) / 2 + r for i, (c, r) in where.items()}


def arrow(key: str) -> str:
    """The arrowhead marker of the DFA's edges, `url(#<key>-arrow)`."""
    return ('<marker id="%s-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="%s"/></marker>' % (key, INK))


def dfa(view: DfaView, key: str = "dfa", defs: bool = True) -> str:
    """The lexer DFA as an SVG graph: states as circles (start states as rounded boxes),
    accepting ones double-circled, the current one filled; an edge per (state, target),
    labelled by its byte class; each state's lexemes under it. `key` names the arrowhead
    (`arrow(key)`), which the picture defines unless `defs` is False (a page that holds
    several defines it once)."""
    where = layout(view)
    columns = max((c for c, _ in where.values()), default=0) + 1
    heights: Dict[int, int] = {}
    for c, r in where.values():
        heights[c] = max(heights.get(c, 0), r + 1)
    tallest = max(heights.values(), default=1)
    width = MARGIN * 2 + (columns - 1) * COL_W + 40
    height = MARGIN * 2 + (tallest - 1) * ROW_H + 30

    def xy(i: int) -> Tuple[float, float]:
        c, r = where[i]
        offset = (tallest - heights[c]) * ROW_H / 2
        return MARGIN + 20 + c * COL_W, MARGIN + 10 + offset + r * ROW_H

    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="dfa" width="%d" height="%d" viewBox="0 0 %d %d" '
           'role="img" aria-label="the lexer DFA built so far">' % (width, height, width, height)]
    if defs:
        out.append("<defs>%s</defs>" % arrow(key))
    pairs = {(a, b) for a, b, _ in view.edges}
    drawn = [(a, b, label) for a, b, label in view.edges if a in where and b in where]
    # labels of the edges out of a state spread along them, so that a fan does not pile them up
    fan: Dict[int, List[int]] = {}
    for a, b, _ in drawn:
        if a != b:
            fan.setdefault(a, []).append(b)
    for targets in fan.values():
        targets.sort(key=lambda b: (xy(b)[1], b))
    for a, b, label in drawn:
        n = len(fan.get(a, ()))
        at = 0.5 if n < 2 or a == b else 0.3 + 0.4 * fan[a].index(b) / (n - 1)
        out.append(_edge(xy(a), xy(b), label, a == b, (b, a) in pairs, where[a][0] >= where[b][0], key, at))
    out.append('<g class="states">')
    for s, lexemes, accepting, start in view.states:
        x, y = xy(s)
        classes = ["state"] + (["accepting"] if accepting else []) + (["start"] if start else []) + (
            ["current"] if s == view.current else [])
        fill = CURRENT if s == view.current else "#ffffff"
        title = "state %d: %s%s%s%s" % (s, lexemes, "; accepting" if accepting else "",
                                         "; a start state (no byte of a lexeme read)" if start else "",
                                         "; the current state" if s == view.current else "")
        out.append('<g class="%s" data-state="%d"><title>%s</title>' % (" ".join(classes), s, xml_text(title)))
        if start and not accepting:
            out.append('<rect x="%.1f" y="%.1f" width="%d" height="%d" rx="6" fill="%s" stroke="%s" stroke-width="1.5"/>'
                       % (x - R, y - R, 2 * R, 2 * R, fill, INK))
        else:
            out.append('<circle cx="%.1f" cy="%.1f" r="%d" fill="%s" stroke="%s" stroke-width="1.5"/>' % (x, y, R, fill, INK))
            if accepting:
                out.append('<circle cx="%.1f" cy="%.1f" r="%d" fill="none" stroke="%s" stroke-width="1.2"/>'
                           % (x, y, R - 4, INK))
        out.append('<text x="%.1f" y="%.1f" text-anchor="middle" font-size="13" font-weight="bold">%d</text>'
                   % (x, y + 4.5, s))
        out.append('<text class="state-label" x="%.1f" y="%.1f" text-anchor="middle" font-size="10.5" fill="#555">%s</text>'
                   % (x, y + R + 13, xml_text(_short(lexemes, LABEL))))
        out.append("</g>")
    out.append("</g></svg>")
    return "".join(out)


def _edge(p: Tuple[float, float], q: Tuple[float, float], label: str, loop: bool, both: bool, back: bool,
          key: str, at: float = 0.5) -> str:
    """An edge from p to q (the states' centres), its label `at` that fraction of its way."""
    title = "<title>%s</title>" % xml_text(glyphs(label))
    text = xml_text(_short(glyphs(label), 16))
    style = 'fill="none" stroke="%s" stroke-width="1.2" marker-end="url(#%s-arrow)"' % (INK, key)
    if loop:
        x, y = p
        return ('<g class="edge loop">%s<path d="M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f" %s/>'
                '<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11" class="edge-label">%s</text></g>'
                % (title, x - 9, y - R + 2, x - 26, y - R - 30, x + 26, y - R - 30, x + 9, y - R + 2, style,
                   x, y - R - 25, text))
    (x1, y1), (x2, y2) = p, q
    dx, dy = x2 - x1, y2 - y1
    dist = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / dist, dx / dist  # the normal, to bend along
    bend = 0.0
    if back or both:
        bend = 22 + 0.18 * dist if back else 18
    cx, cy = (x1 + x2) / 2 + nx * bend, (y1 + y2) / 2 + ny * bend
    # leave and reach the states' rims, heading to and from the control point
    sx, sy = _towards(x1, y1, cx if bend else x2, cy if bend else y2, R)
    ex, ey = _towards(x2, y2, cx if bend else x1, cy if bend else y1, R + 1)
    u = 1 - at
    lx, ly = u * u * sx + 2 * u * at * cx + at * at * ex, u * u * sy + 2 * u * at * cy + at * at * ey
    return ('<g class="edge">%s<path d="M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f" %s/>'
            '<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11" class="edge-label">%s</text></g>'
            % (title, sx, sy, cx, cy, ex, ey, style, lx, ly - 3, text))


def _towards(x: float, y: float, tx: float, ty: float, r: float) -> Tuple[float, float]:
    d = math.hypot(tx - x, ty - y) or 1.0
    return x + (tx - x) * r / d, y + (ty - y) * r / d


# -- the trie's first level ---------------------------------------------------------------


class FirstByte:
    """What a mask's walk did under one first byte: the tokens there, and how many of
    them the skipped subtrees refused and the subtrees taken whole allowed."""

    def __init__(self, byte: int) -> None:
        self.byte = byte
        self.tokens = 0
        self.refused = 0
        self.whole = 0
        self.skipped_here = ""  # the reason, where the walk skipped the first byte itself


def first_bytes(tries: Sequence[object], skips: Sequence[Tuple[int, int, str]],
                wholes: Sequence[Tuple[int, int]]) -> List[FirstByte]:
    """Per first byte, over the tries walked: the tokens there, those in skipped
    subtrees (`skips`: (trie, node, why)) and those in subtrees taken whole. A walk refuses
    exactly the tokens under the subtrees it skips."""
    cells: Dict[int, FirstByte] = {}
    for k, trie in enumerate(tries):
        below = _tokens_below(trie)
        starts = _first_level(trie)
        firsts = [n for n, _ in starts]
        for n, b in starts:
            cell = cells.setdefault(b, FirstByte(b))
            cell.tokens += below[trie.end[n]] - below[n]  # type: ignore[attr-defined]
        for t, node, why in skips:
            if t == k and node > 0:
                c = cells[starts[bisect.bisect_right(firsts, node) - 1][1]]
                c.refused += below[trie.end[node]] - below[node]  # type: ignore[attr-defined]
                if trie.depth[node] == 1:  # type: ignore[attr-defined]
                    c.skipped_here = why
        for t, node in wholes:
            if t == k and node > 0:
                cells[starts[bisect.bisect_right(firsts, node) - 1][1]].whole += below[trie.end[node]] - below[node]  # type: ignore[attr-defined]
    return [cells[b] for b in sorted(cells)]


_BELOW: Dict[int, Tuple[object, List[int]]] = {}


def _tokens_below(trie: object) -> List[int]:
    """Prefix sums of the tokens at the trie's nodes, in preorder: the tokens in the
    subtree of n are below[end[n]] - below[n] (cached per trie)."""
    hit = _BELOW.get(id(trie))
    if hit is not None and hit[0] is trie:
        return hit[1]
    below = [0]
    total = 0
    token, multi = trie.token, trie.multi  # type: ignore[attr-defined]
    for n in range(len(trie)):  # type: ignore[arg-type]
        t = token[n]
        total += 0 if t == -1 else len(multi[n]) if t == -2 else 1
        below.append(total)
    _BELOW[id(trie)] = (trie, below)
    return below


def _first_level(trie: object) -> List[Tuple[int, int]]:
    """The root's children as (node, byte), in preorder."""
    out = []
    n = 1
    end = trie.end  # type: ignore[attr-defined]
    while n < end[0]:
        out.append((n, trie.byte[n]))  # type: ignore[attr-defined]
        n = end[n]
    return out


def trie_grid(cell: int = 24) -> str:
    """The 256 first bytes as a 16×16 grid, unpainted: one picture for the whole page,
    which its script paints for the step shown (page.py's JS, from the step's cells: a byte
    no token begins with blank; the others from red, every token under it refused, to
    green, all allowed; outlined dark where the walk skipped the byte itself; grey where
    no walk ran)."""
    size = 16 * cell + 40
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="trie" width="%d" height="%d" viewBox="0 0 %d %d" '
           'role="img" aria-label="the trie\'s first level">' % (size, size, size, size)]
    for i in range(16):
        out.append('<text x="%d" y="14" font-size="10" text-anchor="middle" fill="%s">%X</text>'
                   % (30 + i * cell + cell // 2, MUTED, i))
        out.append('<text x="14" y="%d" font-size="10" text-anchor="middle" fill="%s">%X_</text>'
                   % (24 + i * cell + cell // 2 + 3, MUTED, i))
    out.append('<g font-size="10" text-anchor="middle">')
    for b in range(256):
        x, y = 30 + (b % 16) * cell, 24 + (b // 16) * cell
        out.append('<g class="first-byte" data-byte="%d" data-name="%s"><title></title><rect x="%d" y="%d" width="%d" '
                   'height="%d" fill="#fafafa"/><text x="%d" y="%d">%s</text></g>'
                   % (b, xml_text(show_byte(b)), x, y, cell - 1, cell - 1, x + cell // 2, y + cell // 2 + 3,
                      xml_text(glyphs(show_byte(b)) if 0x20 <= b < 0x7F else "%02X" % b)))
    out.append("</g>")
    out.append("</svg>")
    return "".join(out)


SHORT = {  # the walk's reasons (trace.WHY), shortened for the grid's tooltips
    WHY[-1]: "no lexeme reads it",
    WHY[0]: "the parser takes no lexeme ending before it",
    WHY[1]: "no next lexeme begins with it",
    WHY[-2]: "the parser refuses the lexeme it ends",
}


def bar(part: int, whole: int, colour: str = ALLOWED, width: int = 240, label: Optional[str] = None) -> str:
    """A horizontal bar: `part` of `whole` filled (at least a hairline where part > 0).

    >>> bar(1, 4, width=100)    # doctest: +ELLIPSIS
    '<svg ...<rect x="0" y="0" width="25.0" height="10" fill="#3a9b5c"/>...'
    """
    filled = 0.0 if whole <= 0 else max(1.0 if part else 0.0, width * part / whole)
    title = label if label is not None else "%d of %d" % (part, whole)
    return ('<svg xmlns="http://www.w3.org/2000/svg" class="bar" width="%d" height="10" viewBox="0 0 %d 10">'
            '<title>%s</title><rect x="0" y="0" width="%d" height="10" fill="#eceae4"/>'
            '<rect x="0" y="0" width="%.1f" height="10" fill="%s"/></svg>'
            % (width, width, xml_text(title), width, filled, colour))


def legend() -> str:
    """The DFA's shapes, for the page's legend."""
    return ('<svg xmlns="http://www.w3.org/2000/svg" class="legend-dfa" width="300" height="56" viewBox="0 0 300 56">'
            '<rect x="8" y="8" width="28" height="28" rx="5" fill="#fff" stroke="%s" stroke-width="1.5"/>'
            '<text x="22" y="50" font-size="10" text-anchor="middle">start</text>'
            '<circle cx="80" cy="22" r="14" fill="#fff" stroke="%s" stroke-width="1.5"/>'
            '<text x="80" y="50" font-size="10" text-anchor="middle">state</text>'
            '<circle cx="138" cy="22" r="14" fill="#fff" stroke="%s" stroke-width="1.5"/>'
            '<circle cx="138" cy="22" r="10" fill="none" stroke="%s" stroke-width="1.2"/>'
            '<text x="138" y="50" font-size="10" text-anchor="middle">accepting</text>'
            '<circle cx="198" cy="22" r="14" fill="%s" stroke="%s" stroke-width="1.5"/>'
            '<text x="198" y="50" font-size="10" text-anchor="middle">current</text>'
            '<path d="M236,22 L290,22" stroke="%s" stroke-width="1.2" marker-end="url(#legend-arrow)"/>'
            '<text x="262" y="16" font-size="10" text-anchor="middle">[a-z]</text>'
            '<text x="262" y="50" font-size="10" text-anchor="middle">bytes</text>'
            '<defs><marker id="legend-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="%s"/></marker></defs></svg>'
            % (INK, INK, INK, INK, CURRENT, INK, INK, INK))
