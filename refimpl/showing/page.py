"""`maskref explain --format html`: the steps as one self-contained HTML page.

One file, nothing fetched: inline CSS, inline SVG (svg.py) and a little vanilla JavaScript.
Every step is rendered here, in Python, as a `<section class="step" data-step="i">`, all
but the first hidden; the script shows one section at a time (the Previous / Next
buttons, the arrow keys, Home and End, the tokens of the prefix). What grows with the
steps is written once: the vocabulary's token texts and, per step, the mask as run
lengths and the trie's first level as numbers (`data`), read by the script, which paints
the page's one trie grid for the step shown; an Earley row or a DFA picture drawn in an
earlier step is a reference the script replaces by a copy.

"Why is this token refused?" answers any token of the vocabulary, by id or exact text:
where the page explains the refusal (the near misses and the `--why` tokens each section
holds), that; else whether the step's mask allows it; a refused EOS, why; any other
refused token, the `maskref explain ... --why` command that explains it (the page's own
command line, quoted for a POSIX shell) — or, where the page is shown by the site's
playground (refimpl/showing/playground.py), which sets `window.maskrefWhy`, the refusal
the engine computes when asked; a text that is no token, so. It never gives a reason the
engine did not compute. So what the page says can be tested without a
browser (tests/showing/test_page.py), and the browser test
(tests/showing/test_page_browser.py) checks the script.

Stable hooks for tests and styles: #step-counter, #prev, #next, #first, #last,
section.step[data-step], .items li, .leo li, .mask-count, .refusals li[data-token],
#why-input, #why-result.

Every text from the grammar or the vocabulary is escaped (tokens hold <, &, quotes and
control characters; controls are shown as \\n, \\t, \\xNN).

>>> from refimpl import Grammar, Vocabulary
>>> from refimpl.showing import explain
>>> vocab = Vocabulary.from_bytes([b"a", b"b", b"ab", b"<&>"], eos_token_id=None)
>>> page = render(explain(Grammar.from_regex("ab*"), vocab, text="ab", why=["<&>"]))
>>> markup, script = page.split("<script>")
>>> markup.count('<section class="step"'), "<&>" in markup, "&lt;&amp;&gt;" in markup
(2, False, True)
"""
from __future__ import annotations

import json
import re
import shlex
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..html import attr, esc, plain, strip
from . import svg
from .steps import Explanation, Refusal, RowView, StepView, WalkView, grammar_summary, show

LONG_REGEX = 72  # a regex longer than this is folded (<details>)
SKIP_BYTES = 24  # bytes listed in "skipped by byte" before folding the rest
SAMPLE = 12

def token_chip(token: int, text: str, cls: str = "tok") -> str:
    """A token: its text in a box (spaces shown as ␣), its id beside it."""
    shown = "".join('<span class="sp">␣</span>' if ch == " " else esc(ch) for ch in text) or '<span class="ctl">(empty)</span>'
    return '<span class="%s" data-token="%d" title="token %d"><span class="tt">%s</span><span class="tid">%d</span></span>' % (
        cls, token, token, shown, token)


# -- the page -----------------------------------------------------------------------------


def render(ex: Explanation, command: Optional[Sequence[str]] = None) -> str:
    """The whole page. `command`: the `maskref explain` command line that makes it (without
    `--why`, `--format` or `--out`), for the page to say how to ask why a token is refused
    where it did not compute it (None: it says how in Python)."""
    steps = ex.steps
    last = len(steps) - 1
    g = ex.grammar
    source = g.source.strip("\n")
    summary = grammar_summary(g)
    shared: Dict[str, str] = {}  # a part's markup -> the id of the first one drawn (the others refer to it)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>maskref explain: %s</title>" % esc(_short(summary, 60)),
        "<style>%s</style></head><body>" % CSS,
        # the DFA pictures' arrowhead, defined once in a picture always laid out (one in a
        # hidden section would not draw)
        '<svg xmlns="http://www.w3.org/2000/svg" class="defs" width="0" height="0" aria-hidden="true" '
        'style="position:absolute"><defs>%s</defs></svg>' % svg.arrow("dfa"),
        '<header class="top"><h1>How a mask is computed, step by step</h1>',
        '<dl class="facts"><dt>grammar</dt><dd><span class="kind">%s</span> ' % esc(g.kind),
        '<details class="source"><summary><code class="summary">%s</code></summary><pre>%s</pre></details></dd>'
        % (esc(summary), esc(source)),
        "<dt>vocabulary</dt><dd>%s, %d tokens</dd>" % (esc(ex.vocab.name), len(ex.vocab)),
        '<dt>prefix</dt><dd><code class="prefix">%s</code> in %d token%s</dd></dl></header>'
        % (esc(steps[-1].text), last, "" if last == 1 else "s"),
        _nav(steps),
        '<div class="layout"><main>',
    ]
    for step in steps:
        parts.append(_section(ex, step, shared))
    if ex.stopped:
        parts.append('<p class="stopped"><b>Stopped:</b> %s</p>' % esc(ex.stopped))
    parts.append("</main>")
    parts.append(_aside())
    parts.append("</div>")
    parts.append('<div id="trie-grid-holder" hidden>%s</div>' % svg.trie_grid())
    parts.append("<script>var MASKREF = %s;\n%s</script></body></html>" % (script_json(data(ex, command)), JS))
    return "\n".join(parts) + "\n"


def data(ex: Explanation, command: Optional[Sequence[str]]) -> Dict[str, Any]:
    """What the page's script reads, written once for the page: the vocabulary's token
    texts; per step, the mask as run lengths (refused, allowed, refused, ...: a handful
    of numbers where few tokens are allowed or refused) and the trie's first level as the
    walk left it (per first byte: tokens, refused, taken whole, why skipped), each written
    once and named by its index where a later step has the same."""
    vocab = ex.vocab
    reasons = list(svg.SHORT)
    steps = []
    masks: List[object] = []  # the distinct masks (a step names its own by index)
    grids: List[object] = []
    for s in ex.steps:
        trace = ex.traces[s.index]
        cells = svg.first_bytes(trace.tries, [(k.trie, k.node, k.why) for k in trace.skips],
                                [(k.trie, k.node) for k in trace.wholes])
        steps.append({"mask": _index(runs(s.flags), masks), "walked": bool(trace.tries) and not trace.cached,
                      "cells": _index([[c.byte, c.tokens, c.refused, c.whole,
                                        reasons.index(c.skipped_here) + 1 if c.skipped_here in reasons else 0]
                                       for c in cells], grids)})
    return {
        "command": None if command is None else " ".join(shlex.quote(a) for a in command),
        "tokens": [show(t) for t in vocab.tokens],
        # ids asked by id: read by id (special), or not UTF-8 (their text above is escaped)
        "special": [t for t in range(len(vocab)) if not vocab.is_grammar_token(t)],
        "inexact": [t for t, b in enumerate(vocab.tokens) if show(b).encode("utf-8") != b],
        "eos": list(vocab.eos_token_ids),
        "reasons": [svg.SHORT[r] for r in reasons],
        "masks": masks,
        "grids": grids,
        "steps": steps,
    }


def _index(value: object, values: List[object]) -> int:
    """The index of `value` in `values`, appended if new (masks and grids come back)."""
    if value not in values:
        values.append(value)
    return values.index(value)


def runs(flags: bytes) -> List[int]:
    """A mask's 0/1 flags as run lengths, the first of refused tokens (maybe 0).

    >>> runs(bytes([0, 0, 1, 1, 1, 0])), runs(bytes([1, 1]))
    ([2, 3, 1], [0, 2])
    """
    out: List[int] = []
    want, n = 0, 0
    for f in flags:
        if (f != 0) != bool(want):
            out.append(n)
            want, n = 1 - want, 0
        n += 1
    out.append(n)
    return out


def script_json(value: object) -> str:
    """JSON for inside a <script>: control characters (C0, DEL, C1) and the line separators
    escaped, `</` and `<!--` written so that no HTML parser ends the script there.

    >>> script_json(["</script>", "\\x7f\\u2028é"])
    '["<\\\\/script>","\\\\u007f\\\\u2028é"]'
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = _UNSAFE.sub(lambda m: "\\u%04x" % ord(m.group(0)), text)
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029]")


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _nav(steps: Sequence[StepView]) -> str:
    chips = []
    for s in steps:
        if s.token is None:
            chips.append('<button class="jump current" data-step="0" title="the start, before any token">start</button>')
        else:
            chips.append('<button class="jump" data-step="%d" title="step %d: token %d">%s</button>'
                         % (s.index, s.index, s.token, esc(plain(s.token_text or "").replace(" ", "␣")) or "∅"))
    return ('<nav id="nav"><div class="buttons">'
            '<button id="first" title="the start (Home)">« First</button>'
            '<button id="prev" title="previous step (←)">◀ Previous</button>'
            '<span id="step-counter" aria-live="polite">step 0 of %d</span>'
            '<button id="next" title="next step (→)">Next ▶</button>'
            '<button id="last" title="the last step (End)">Last »</button>'
            '<span class="keys">keys: ← → Home End</span></div>'
            '<div class="timeline" aria-label="the tokens of the prefix">%s</div></nav>'
            % (len(steps) - 1, "".join(chips)))


def _aside() -> str:
    return ('<aside><div class="card why"><h3>Why is this token refused?</h3>'
            '<p class="hint">Type a token (its exact text or its id), or click one of the step\'s '
            '<i>Refused tokens</i>.</p>'
            '<input id="why-input" type="text" autocomplete="off" spellcheck="false" placeholder="token text or id">'
            '<div id="why-result" aria-live="polite"><span class="muted">—</span></div></div>'
            '<div class="card legend"><h3>Legend</h3>%s'
            '<p><span class="swatch" style="background:%s"></span>all tokens under a first byte allowed '
            '<span class="swatch" style="background:%s"></span>all refused '
            '<span class="swatch" style="background:#e09b2d"></span>some</p>'
            '<p><span class="badge reused">reused</span> a row pushed again from the rows kept for reuse '
            '(built before for the same lexemes); <span class="badge acc">accepting</span> the input may end '
            'at the row; <span class="leo-mark">Leo</span> a transitive item (Leo 1991): a chain of '
            'completions taken in one step.</p>'
            '<p><code>[A → α • β, i]</code>: rule A → αβ, α read, β expected, begun at row i.</p>'
            '<p><code>(?:)</code> is the empty regex: the lexeme is complete.</p></div></aside>'
            % (svg.legend(), svg.ALLOWED, svg.REFUSED))


def _section(ex: Explanation, s: StepView, shared: Dict[str, str]) -> str:
    prev = ex.steps[s.index - 1].text if s.index > 0 else ""
    hidden = "" if s.index == 0 else " hidden"
    out = ['<section class="step" id="step-%d" data-step="%d" data-token="%s" data-allowed="%d"%s>'
           % (s.index, s.index, "" if s.token is None else s.token, s.allowed, hidden)]
    # the token and the text so far
    if s.token is None:
        title = "Step 0: the start, before any token"
    else:
        title = "Step %d: token %s consumed" % (s.index, token_chip(s.token, s.token_text or ""))
    out.append('<div class="card head"><h2>%s</h2><div class="so-far"><span class="label">text so far</span>'
               '<pre class="text">%s</pre></div></div>' % (title, _text_so_far(prev, s.text)))
    # the lexer and the parser, then the DFA
    out.append('<div class="row2"><div class="card lexer"><h3>Through the lexer</h3>%s</div>' % _lexer(s))
    out.append('<div class="card parser"><h3>The Earley rows</h3><div class="rows">%s</div></div></div>'
               % "".join(_shared(_row(r), shared) for r in s.rows))
    d = s.dfa
    drawn = "" if d.total_states <= len(d.states) else " (%d drawn)" % len(d.states)
    now = "the current state (%d) is filled" % d.current if d.current > 0 else "the lexer is dead (not drawn)"
    out.append('<div class="card dfa-card"><h3>The lazy lexer DFA so far</h3>'
               '<p class="note">%d states%s, %d transitions computed; %s. Hover an edge or a state for its '
               'full label.</p><div class="scroll">%s</div></div>'
               % (d.total_states, drawn, d.transitions, now,
                  _shared('<div class="dfa-pic">%s</div>' % svg.dfa(d, defs=False), shared)))
    # the mask and the walk
    trace = ex.traces[s.index] if s.index < len(ex.traces) else None
    out.append('<div class="row2"><div class="card mask">%s</div>' % _mask(s))
    out.append('<div class="card trie-card"><h3>The trie walk, by first byte</h3>%s</div></div>' % _trie(trace))
    out.append('<div class="card refusals-card"><h3>Refused tokens</h3>%s</div>' % _refusals(s.refusals))
    if s.forced_bytes or s.forced_tokens:
        out.append('<div class="card forced"><h3>Forced</h3><p>bytes <code>%s</code>; tokens %s</p></div>'
                   % (esc(s.forced_bytes), " ".join(token_chip(t, x) for t, x in s.forced_tokens) or "none"))
    out.append("</section>")
    return "\n".join(out)


def _shared(part: str, shared: Dict[str, str]) -> str:
    """A part (a `<div>`) drawn once on the page: the first time with an id, after that a
    reference to it, which the script replaces by a copy when it shows the step (an Earley
    row stays the same for many steps; a DFA picture comes back when the lexer does)."""
    ref = shared.get(part)
    if ref is not None:
        return '<div class="ref" data-ref="%s"></div>' % ref
    ref = shared[part] = "shared-%d" % len(shared)
    return '<div id="%s"%s' % (ref, part[len("<div"):])


def _text_so_far(prev: str, text: str) -> str:
    """The text with the part the step's token added marked."""
    k = 0
    while k < min(len(prev), len(text)) and prev[k] == text[k]:
        k += 1
    if not text:
        return '<span class="muted">(empty)</span>'
    return "%s<mark>%s</mark>" % (esc(text[:k]), esc(text[k:]))


def _regex(regex: str) -> str:
    if len(regex) <= LONG_REGEX:
        return "<code>%s</code>" % esc(regex)
    return '<details class="long"><summary><code>%s</code></summary><code>%s</code></details>' % (
        esc(regex[:LONG_REGEX - 12] + "…"), esc(regex))


def _pairs(pairs: Sequence[Tuple[str, str]]) -> str:
    """A lexer state: its (lexeme, regex) pairs."""
    if not pairs:
        return '<span class="dead">dead: no lexeme can go on</span>'
    return '<ul class="pairs">%s</ul>' % "".join(
        '<li><span class="lexeme">%s</span> <span class="eq">=</span> %s</li>' % (esc(name), _regex(regex))
        for name, regex in pairs)


def _lexer(s: StepView) -> str:
    out = []
    if s.bytes:
        out.append('<table class="bytes"><thead><tr><th>byte</th><th>state before: (lexeme, regex)</th>'
                   '<th>lexemes ended</th><th>after</th></tr></thead><tbody>')
        for b in s.bytes:
            ended = "".join('<div class="scan">%s</div>' % esc(x) for x in b.scanned) or '<span class="muted">—</span>'
            out.append('<tr><td class="byte"><code>%s</code></td><td>%s</td><td>%s</td><td>state %d: %s</td></tr>'
                       % (esc(svg.glyphs(b.byte)), _pairs(b.before), ended, b.after_state, _pairs(b.after)))
        out.append("</tbody></table>")
        out.append('<p class="note">Each byte takes the derivative of every live regex; a lexeme whose regex '
                   'was nullable before a byte it cannot read ends there, and the parser scans it.</p>')
    elif s.token is None:
        out.append('<p class="note">No byte read yet: the lexer is in its start state, the regexes of the lexemes '
                   'the grammar allows first.</p>')
    else:
        out.append('<p class="note">A special token: read by id, no bytes through the lexer.</p>')
    out.append('<h4>The lexer state now <span class="muted">(state %d)</span></h4>%s' % (s.lexer_state, _pairs(s.lexer)))
    return "".join(out)


def _item(text: str) -> str:
    return esc(text).replace("•", '<span class="dot">•</span>')


def _row(r: RowView) -> str:
    badges = ('<span class="badge acc">accepting</span>' if r.accepting else "") + (
        '<span class="badge reused">reused</span>' if r.reused else "")
    out = ['<div class="erow%s" data-row="%d"><div class="rowhead">row %d %s</div><ul class="items">'
           % (" reused" if r.reused else "", r.index, r.index, badges)]
    out.extend("<li>%s</li>" % _item(i) for i in r.items)
    out.append("</ul>")
    if r.leo:
        out.append('<ul class="leo">%s</ul>' % "".join(
            '<li><span class="leo-mark">Leo</span> %s</li>' % _item(x) for x in r.leo))
    if r.children:
        out.append('<ul class="pushed">%s</ul>' % "".join(
            '<li><span class="arrow">walk pushed</span> %s</li>' % esc(c) for c in r.children))
    out.append("</div>")
    return "".join(out)


def _mask(s: StepView) -> str:
    share = 100.0 * s.allowed / s.vocab_size if s.vocab_size else 0.0
    out = ['<h3>The mask</h3><p class="big"><span class="mask-count">%d</span> of %d tokens allowed '
           '<span class="muted">(%.2f%%)</span></p><div class="strip" title="token ids 0 to %d, left to right: '
           'the darker, the more of them allowed">%s</div>' % (s.allowed, s.vocab_size, share, s.vocab_size - 1,
                                                              strip(s.flags, width=300)),
           '<p>EOS: <b class="eos">%s</b></p>' % ("allowed" if s.eos else "not allowed"),
           '<div class="sample"><span class="label">a sample</span> %s</div>' % (
               " ".join(token_chip(t, x, "tok allowed") for t, x in s.sample) or '<span class="muted">none</span>')]
    out.append(_walk(s.walk))
    return "".join(out)


def _walk(w: WalkView) -> str:
    if w.cached:
        return '<h4>The trie walk</h4><p class="walk-cached">None: the mask cache answered.</p>'
    rows = [
        ("trie nodes reached", "%d of %d %s" % (w.nodes, w.trie_nodes, svg.bar(w.nodes, w.trie_nodes, "#4a78b5", 140))),
        ("subtrees skipped", "%d" % w.skipped),
        ("subtrees taken whole", "%d" % w.whole),
        ("lexemes scanned", "%d (rows built %d, reused %d)" % (w.scans, w.rows_built, w.rows_reused)),
        ("restarts asked", "%d" % w.restarts),
        ("slices applied whole", esc(", ".join(w.slices)) if w.slices else "none"),
    ]
    out = ['<h4>The trie walk</h4><table class="walk">%s</table>' % "".join(
        "<tr><th>%s</th><td>%s</td></tr>" % (k, v) for k, v in rows)]
    if w.skipped_by_byte:
        chips = ["<i>%s</i>%d" % (esc(svg.glyphs(b)), n) for b, n in w.skipped_by_byte]
        head, rest = chips[:SKIP_BYTES], chips[SKIP_BYTES:]
        more = '<details><summary>%d more bytes</summary>%s</details>' % (len(rest), " ".join(rest)) if rest else ""
        out.append('<div class="by-byte"><span class="label">skipped, by byte</span> %s%s</div>' % (" ".join(head), more))
    if w.skipped_by_reason:
        out.append('<ul class="reasons">%s</ul>' % "".join(
            "<li><b>%d</b> %s</li>" % (n, esc(why)) for why, n in w.skipped_by_reason))
    return "".join(out)


def _trie(trace: Optional[object]) -> str:
    """The note; the grid is the page's one (svg.trie_grid), painted for the step by the
    script from the page's data."""
    if trace is None or not trace.tries or trace.cached:  # type: ignore[attr-defined]
        note = "No walk ran for this mask (the mask cache answered, or nothing is allowed)."
    else:
        note = ("Each cell is a first byte; its colour, the share of the tokens beginning with it that the walk "
                "allowed (red: none, green: all). A dark outline: the walk skipped the byte itself. Hover for counts.")
        if trace.slices:  # type: ignore[attr-defined]
            note += " Tokens of the slices applied whole are not walked, so not drawn."
    return '<p class="note">%s</p><div class="trie-grid"></div>' % note


def _refusals(refusals: Sequence[Refusal]) -> str:
    if not refusals:
        return ('<p class="muted">No refusal explained at this step: type a token in <i>Why is this token '
                'refused?</i></p>')
    out = ['<p class="note">Near misses (refused tokens beginning like an allowed one) and the tokens '
           'asked for with <code>--why</code>. Click one to see where it died; type any other token in '
           '<i>Why is this token refused?</i></p><ul class="refusals">']
    for f in refusals:
        out.append('<li data-token="%d" data-text="%s">%s <span class="why-short">%s</span>'
                   '<div class="why-detail" hidden>%s</div></li>'
                   % (f.token, attr(f.text), token_chip(f.token, f.text, "tok refused"), esc(f.why), why_detail(f)))
    out.append("</ul>")
    return "".join(out)


def why_detail(f: Refusal) -> str:
    parts = ["<p>%s is refused: %s.</p>" % (token_chip(f.token, f.text), esc(f.why))]
    if f.byte:
        parts.append('<dl class="death"><dt>byte offset</dt><dd class="offset">%d</dd>'
                     '<dt>byte</dt><dd><code class="death-byte">%s</code></dd>'
                     '<dt>lexer state there</dt><dd>%s</dd></dl>' % (f.offset, esc(svg.glyphs(f.byte)), _pairs(f.state)))
    return "".join(parts)


CSS = """
:root{--ink:#2b2b2b;--muted:#8a8a8a;--line:#e3e0d8;--paper:#fbfaf7;--card:#fff;--accent:#2f5d9b;
--ok:#3a9b5c;--no:#d9534f;--hi:#ffd966}
*{box-sizing:border-box}
body{margin:0;background:var(--paper);color:var(--ink);
font:15px/1.5 "Source Sans Pro","Segoe UI","Helvetica Neue",Arial,sans-serif}
code,pre,.tok,.items,.leo,.pushed,.pairs{font-family:"JetBrains Mono","DejaVu Sans Mono",Menlo,Consolas,monospace;
font-size:13px}
header.top{padding:14px 24px 6px;border-bottom:1px solid var(--line);background:#fff}
header.top h1{margin:0 0 6px;font-size:21px;font-weight:600}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0}
.facts dt{color:var(--muted)}.facts dd{margin:0}
.kind{display:inline-block;background:#eef2f8;color:var(--accent);border-radius:3px;padding:0 6px;font-size:12px}
details.source{display:inline-block;vertical-align:top}
details.source pre{background:#f5f3ee;padding:8px;border-radius:4px;max-height:260px;overflow:auto;white-space:pre-wrap}
nav{position:sticky;top:0;z-index:5;background:#fffdf6;border-bottom:1px solid var(--line);padding:8px 24px}
nav .buttons{display:flex;align-items:center;gap:8px}
nav button{font:inherit;border:1px solid #c9c4b8;background:#fff;border-radius:5px;padding:3px 12px;cursor:pointer}
nav button:hover:not(:disabled){background:#f1ede2}
nav button:disabled{opacity:.4;cursor:default}
#step-counter{min-width:110px;text-align:center;font-weight:600}
.keys{color:var(--muted);font-size:12px;margin-left:8px}
.timeline{margin-top:6px;display:flex;flex-wrap:wrap;gap:4px}
.timeline .jump{font-family:"DejaVu Sans Mono",Menlo,monospace;font-size:12px;padding:1px 7px;white-space:pre}
.timeline .jump.current{background:var(--hi);border-color:#c7a326}
.layout{display:grid;grid-template-columns:minmax(0,1fr) 330px;gap:18px;padding:14px 24px}
aside{position:sticky;top:86px;align-self:start}
.step{scroll-margin-top:96px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;margin-bottom:14px}
.card h2{margin:0;font-size:18px;font-weight:600}.card h3{margin:0 0 6px;font-size:15px;color:var(--accent)}
.card h4{margin:10px 0 4px;font-size:14px}
.row2{display:grid;grid-template-columns:repeat(auto-fit,minmax(400px,1fr));gap:0 14px}
.row2>.card{margin-bottom:14px}
.so-far{margin-top:6px;display:flex;gap:10px;align-items:baseline}
.label{color:var(--muted);font-size:12px;white-space:nowrap}
pre.text{margin:0;white-space:pre-wrap;word-break:break-all;background:#f5f3ee;padding:4px 8px;border-radius:4px;flex:1}
mark{background:var(--hi);border-radius:2px}
.tok{display:inline-flex;align-items:baseline;border:1px solid #cfc9bb;border-radius:4px;background:#fff;
margin:1px 0;white-space:pre;font-weight:normal}
.tok .tt{padding:0 4px}.tok .tid{font-size:10px;color:var(--muted);border-left:1px solid #e5e0d4;padding:0 3px}
.tok.allowed{border-color:#9ccdb0;background:#f1faf4}.tok.refused{border-color:#e7a9a7;background:#fdf3f2}
.sp,.ctl{color:#b3aa98}
.pairs{list-style:none;margin:0;padding:0}.pairs li{margin:1px 0}
.lexeme{color:#7a3e9d;font-weight:600}.eq{color:var(--muted)}
.dead{color:var(--no)}
details.long summary{cursor:pointer}details.long code{white-space:pre-wrap;word-break:break-all}
table{border-collapse:collapse;width:100%}
table.bytes th,table.bytes td{border-bottom:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top}
table.bytes th{font-size:12px;color:var(--muted);font-weight:normal}
td.byte code{font-size:15px;font-weight:bold}
.scan{color:#1f6e43;font-size:13px}
table.walk th{text-align:left;font-weight:normal;color:var(--muted);padding:1px 10px 1px 0;white-space:nowrap;width:1%}
table.walk td{padding:1px 0}
.note{color:#666;font-size:13px;margin:2px 0 6px}
.muted{color:var(--muted)}
.scroll{overflow:auto;max-height:780px}
.rows{display:flex;flex-wrap:wrap;gap:10px}
.erow{border:1px solid var(--line);border-radius:6px;padding:4px 10px;min-width:0;flex:1 1 100%}
.erow.reused{border-color:#9bb6dd;background:#f6f9fe}
.rowhead{font-weight:600;font-size:13px}
.items,.leo,.pushed{list-style:none;padding:0;margin:2px 0}
.items li,.leo li,.pushed li{margin:1px 0}
.dot{color:var(--no);font-weight:bold}
.leo li{color:#5b4a8b}.leo-mark{font-family:sans-serif;font-size:11px;background:#ece6f7;color:#5b4a8b;
border-radius:3px;padding:0 4px}
.pushed li{color:#1f6e43}.arrow{font-family:sans-serif;font-size:11px;color:var(--muted)}
.badge{font-size:11px;font-weight:normal;border-radius:3px;padding:0 5px;margin-left:4px}
.badge.reused{background:#e1ebf8;color:#2f5d9b}.badge.acc{background:#e3f4e8;color:#1f6e43}
.big{font-size:16px;margin:0 0 4px}.mask-count{font-size:26px;font-weight:700;color:var(--ok)}
.sample{margin:6px 0;line-height:1.9}
.by-byte i{font-style:normal;font-family:"DejaVu Sans Mono",Menlo,monospace;background:#fdf3f2;border-radius:3px;
padding:0 4px;margin:1px 2px 1px 4px;font-size:12px}
.reasons{margin:6px 0;padding-left:18px;font-size:13px}
.refusals{list-style:none;padding:0;margin:0}
.refusals li{padding:3px 6px;border-radius:4px;cursor:pointer}
.refusals li:hover{background:#f6f3ec}.refusals li.picked{background:#fff4cc}
.why-short{color:#666;font-size:13px}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;margin:0 3px 0 8px}
.legend p{font-size:13px;margin:6px 0}
#why-input{width:100%;font:14px "DejaVu Sans Mono",Menlo,monospace;padding:5px 8px;border:1px solid #c9c4b8;border-radius:5px}
#why-result{margin-top:8px;font-size:14px}
pre.why-command{white-space:pre-wrap;word-break:break-all;background:#f5f3ee;padding:4px 8px;border-radius:4px;
font-size:12px;margin:4px 0}
.death{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:4px 0}
.death dt{color:var(--muted)}.death dd{margin:0}
.stopped{background:#fdf3f2;border:1px solid #e7a9a7;border-radius:6px;padding:8px 12px}
svg text{font-family:"DejaVu Sans Mono",Menlo,monospace}
svg .edge-label{paint-order:stroke;stroke:#fff;stroke-width:3px;fill:#2b2b2b}
svg g.first-byte:hover rect{opacity:.8}
@media (max-width:1000px){.layout{grid-template-columns:1fr}.row2{grid-template-columns:1fr}aside{position:static}}
"""

JS = r"""
(function () {
  "use strict";
  var D = MASKREF;
  var steps = Array.prototype.slice.call(document.querySelectorAll("section.step"));
  var jumps = Array.prototype.slice.call(document.querySelectorAll("nav .jump"));
  var counter = document.getElementById("step-counter");
  var prev = document.getElementById("prev"), next = document.getElementById("next");
  var first = document.getElementById("first"), last = document.getElementById("last");
  var input = document.getElementById("why-input"), result = document.getElementById("why-result");
  var grid = document.querySelector("#trie-grid-holder svg");
  var special = new Set(D.special), inexact = new Set(D.inexact), eos = new Set(D.eos);
  var byText = null;
  var current = 0;

  function esc(text) {
    return String(text).replace(/[&<>"]/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c];
    });
  }

  // the parts drawn once on the page (rows, DFA pictures): a step's references replaced by copies
  function expand(section) {
    Array.prototype.forEach.call(section.querySelectorAll(".ref"), function (ref) {
      var copy = document.getElementById(ref.getAttribute("data-ref")).cloneNode(true);
      copy.removeAttribute("id");
      ref.parentNode.replaceChild(copy, ref);
    });
  }

  // the trie's first level, painted for step i: red (none allowed) to amber to green (all)
  function mix(f) {
    var stops = [[0, [0xd9, 0x53, 0x4f]], [0.5, [0xe0, 0x9b, 0x2d]], [1, [0x3a, 0x9b, 0x5c]]];
    for (var k = 1; k < stops.length; k++) {
      if (f <= stops[k][0] || k === stops.length - 1) {
        var t = Math.min(1, (f - stops[k - 1][0]) / (stops[k][0] - stops[k - 1][0]));
        return "rgb(" + stops[k][1].map(function (c, j) {
          return Math.round(stops[k - 1][1][j] + (c - stops[k - 1][1][j]) * t);
        }).join(",") + ")";
      }
    }
  }

  function paint(i) {
    var step = D.steps[i], cells = {};
    D.grids[step.cells].forEach(function (c) { cells[c[0]] = c; });
    Array.prototype.forEach.call(grid.querySelectorAll("g.first-byte"), function (g) {
      var b = parseInt(g.getAttribute("data-byte"), 10), c = cells[b];
      var rect = g.querySelector("rect"), text = g.querySelector("text"), title = g.querySelector("title");
      rect.removeAttribute("stroke");
      rect.removeAttribute("stroke-width");
      if (c === undefined) {
        rect.setAttribute("fill", "#fafafa");
        text.setAttribute("visibility", "hidden");
        title.textContent = "";
        return;
      }
      var allowed = c[1] - c[2];
      text.removeAttribute("visibility");
      text.setAttribute("fill", step.walked ? "#fff" : "#2b2b2b");
      rect.setAttribute("fill", step.walked ? mix(c[1] ? allowed / c[1] : 0) : "#ddd");
      var hex = (b < 16 ? "0" : "") + b.toString(16).toUpperCase();
      title.textContent = g.getAttribute("data-name") + " (" + hex + "): " +
        (step.walked ? allowed + " of " + c[1] + " tokens allowed" : "not walked") +
        (c[3] ? "; " + c[3] + " taken whole" : "") + (c[4] ? "; skipped here: " + D.reasons[c[4] - 1] : "");
      if (c[4]) {
        rect.setAttribute("stroke", "#5a1714");
        rect.setAttribute("stroke-width", "2");
      }
    });
    steps[i].querySelector(".trie-grid").appendChild(grid);
  }

  function show(i) {
    i = Math.max(0, Math.min(steps.length - 1, i));
    current = i;
    expand(steps[i]);
    paint(i);
    steps.forEach(function (s, k) { s.hidden = k !== i; });
    jumps.forEach(function (b, k) { b.classList.toggle("current", k === i); });
    counter.textContent = "step " + i + " of " + (steps.length - 1);
    prev.disabled = first.disabled = i === 0;
    next.disabled = last.disabled = i === steps.length - 1;
    if (window.parent === window) {  // a page in a frame (the playground's) has no address to show
      try { history.replaceState(null, "", "#step-" + i); } catch (e) { /* file: pages may refuse */ }
    }
    why();
  }

  // a token asked for: by id (digits) or by its exact text; -1 if the vocabulary has none
  function tokenOf(asked) {
    if (/^\d+$/.test(asked)) {
      var t = parseInt(asked, 10);
      return t < D.tokens.length ? t : -1;
    }
    if (byText === null) {
      byText = new Map();
      D.tokens.forEach(function (x, t) {
        if (!special.has(t) && !inexact.has(t) && !byText.has(x)) { byText.set(x, t); }
      });
    }
    return byText.has(asked) ? byText.get(asked) : -1;
  }

  function allowedAt(i, t) {
    var runs = D.masks[D.steps[i].mask], end = 0;
    for (var k = 0; k < runs.length; k++) {
      end += runs[k];
      if (t < end) { return k % 2 === 1; }
    }
    return false;
  }

  // how to ask the command line (or Python) why token t is refused
  function howToAsk(t) {
    var text = D.tokens[t];
    // by id where the text would not do: digits (an id to --why), a leading "-" (an option
    // to argparse), not UTF-8 (escaped above), a special token (read by id)
    var byId = special.has(t) || inexact.has(t) || /^\d+$/.test(text) || text.charAt(0) === "-";
    var arg = byId ? String(t) : "'" + text.replace(/'/g, "'\\''") + "'";
    if (D.command === null) {
      return "explain(grammar, vocab, ..., why=[" + t + "])";
    }
    return D.command + " --format text --why " + arg;
  }

  function chip(t) {
    return '<span class="tok"><span class="tt">' + esc(D.tokens[t]) + '</span><span class="tid">' + t + "</span></span>";
  }

  function why() {
    var asked = input.value;
    var list = steps[current].querySelectorAll(".refusals li");
    Array.prototype.forEach.call(list, function (li) { li.classList.remove("picked"); });
    if (asked === "") {
      result.innerHTML = '<span class="muted">\u2014</span>';
      return;
    }
    var t = tokenOf(asked);
    if (t < 0) {
      result.innerHTML = /^\d+$/.test(asked)
        ? '<p class="why-none">No token has id ' + esc(asked) + ": the vocabulary's ids are 0 to " +
          (D.tokens.length - 1) + ".</p>"
        : '<p class="why-none"><code>' + esc(asked) + "</code> is not a token of the vocabulary: no token's " +
          "text is exactly it (a text of several tokens? ask for each).</p>";
      return;
    }
    var found = null;
    Array.prototype.forEach.call(list, function (li) {
      if (found === null && li.getAttribute("data-token") === String(t)) { found = li; }
    });
    if (found !== null) {
      found.classList.add("picked");
      result.innerHTML = found.querySelector(".why-detail").innerHTML;
      return;
    }
    if (allowedAt(current, t)) {
      result.innerHTML = '<p class="why-allowed">' + chip(t) + " is allowed at this step: it is in the mask.</p>";
    } else if (typeof window.maskrefWhy === "function") {
      // a page that can ask the engine (the site's playground, which shows this page in a
      // frame and sets the hook): the refusal computed now, for this step and token
      result.innerHTML = window.maskrefWhy(current, t);
    } else if (eos.has(t)) {
      result.innerHTML = '<p class="why-eos">' + chip(t) + " is refused: EOS, and the input may not end here.</p>";
    } else {
      result.innerHTML = '<p class="why-ask">' + chip(t) + " is refused at this step; this page did not " +
        "compute where it dies. Ask:</p><pre class=\"why-command\">" + esc(howToAsk(t)) + "</pre>";
    }
  }

  prev.addEventListener("click", function () { show(current - 1); });
  next.addEventListener("click", function () { show(current + 1); });
  first.addEventListener("click", function () { show(0); });
  last.addEventListener("click", function () { show(steps.length - 1); });
  jumps.forEach(function (b) {
    b.addEventListener("click", function () { show(parseInt(b.getAttribute("data-step"), 10)); });
  });
  input.addEventListener("input", why);
  document.addEventListener("click", function (e) {
    var li = e.target.closest ? e.target.closest(".refusals li") : null;
    if (li !== null && li.hasAttribute("data-token")) {
      input.value = li.getAttribute("data-token");
      why();
    }
  });
  document.addEventListener("keydown", function (e) {
    var tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) { return; }
    var to = {ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: steps.length - 1}[e.key];
    if (to !== undefined) { e.preventDefault(); show(to); }
  });
  var m = /^#step-(\d+)$/.exec(location.hash);
  show(m ? parseInt(m[1], 10) : 0);
})();
"""
