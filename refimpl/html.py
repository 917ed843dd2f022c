"""HTML fragments for pictures of the engine: Jupyter's `_repr_html_` of Grammar, Matcher
and Mask, and `maskref explain`'s page and its SVG. Plain functions of strings and
numbers, so any layer may draw with them; every text of a picture is escaped here: `escape`
(HTML), `esc` and `attr` (HTML, control characters shown as escapes), `xml_text` (SVG).

>>> print(table(["lexeme", "regex"], [["NUMBER", "[0-9]+"], ["<b>", "a&b"]]).replace("<tr>", "\\n<tr>"))
<table class="maskref">
<tr><th>lexeme</th><th>regex</th></tr>
<tr><td>NUMBER</td><td><code>[0-9]+</code></td></tr>
<tr><td>&lt;b&gt;</td><td><code>a&amp;b</code></td></tr></table>
>>> strip([1, 0, 0, 1], width=4, height=2).count("<rect")    # the background and 2 runs
3
>>> strip([1, 1, 0, 0, 1, 0], width=2)    # doctest: +ELLIPSIS
'<svg ...<rect x="0" width="1" height="14" fill="#2a7" fill-opacity="0.75"/><rect x="1" width="1" ... fill-opacity="0.50"/></svg>'
"""
from __future__ import annotations

import html
from typing import List, Optional, Sequence

STYLE = (
    "<style>table.maskref{border-collapse:collapse;font-size:90%}"
    "table.maskref td,table.maskref th{border:1px solid #ccc;padding:2px 6px;text-align:left;"
    "vertical-align:top}ul.maskref-items{margin:2px 0;padding-left:1.2em;font-family:monospace}</style>"
)


def escape(text: str) -> str:
    return html.escape(text, quote=True)


_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _control(ch: str) -> Optional[str]:
    """A control character's escape (\\n, \\t, \\xNN); None for any other character."""
    o = ord(ch)
    if o < 0x20 or o == 0x7F or 0x80 <= o < 0xA0:
        return _ESCAPES.get(ch, "\\x%02x" % o)
    return None


def plain(text: str) -> str:
    """Text with control characters as escapes (\\n, \\t, \\xNN), not yet HTML-escaped.

    >>> plain("a\\nb\\x00")
    'a\\\\nb\\\\x00'
    """
    return "".join(_control(ch) or ch for ch in text)


def esc(text: str) -> str:
    """HTML-escaped, with control characters shown as dimmed escapes.

    >>> esc('<a href="x">\\x01')
    '&lt;a href=&quot;x&quot;&gt;<span class="ctl">\\\\x01</span>'
    """
    out = []
    for ch in text:
        c = _control(ch)
        out.append('<span class="ctl">%s</span>' % c if c is not None else html.escape(ch, quote=True))
    return "".join(out)


def attr(text: str) -> str:
    """A value for a double-quoted attribute."""
    return html.escape(plain(text), quote=True)


def xml_text(text: str) -> str:
    """Text escaped for XML character data and attribute values; C0 controls (and DEL)
    as \\xNN escapes, since XML 1.0 has no way to write most of them."""
    out = []
    for ch in text:
        o = ord(ch)
        if ch == "&":
            out.append("&amp;")
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == '"':
            out.append("&quot;")
        elif o < 0x20 or o == 0x7F or 0xD800 <= o < 0xE000 or o in (0xFFFE, 0xFFFF):
            out.append("\\x%02x" % o if o < 0x100 else "\\u%04x" % o)
        else:
            out.append(ch)
    return "".join(out)


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], code_from: int = 1) -> str:
    """A table; columns from `code_from` on are shown as code."""
    head = "".join("<th>%s</th>" % escape(h) for h in headers)
    body = "".join(
        "<tr>%s</tr>" % "".join(
            ("<td><code>%s</code></td>" if i >= code_from else "<td>%s</td>") % escape(cell)
            for i, cell in enumerate(row))
        for row in rows)
    return '<table class="maskref"><tr>%s</tr>%s</table>' % (head, body)


def items(lines: Sequence[str], marked: Sequence[str] = ()) -> str:
    """A list of items (Earley items, tokens); those in `marked` in bold."""
    out = ['<ul class="maskref-items">']
    for line in lines:
        text = escape(line)
        out.append("<li>%s</li>" % ("<b>%s</b>" % text if line in marked else text))
    out.append("</ul>")
    return "".join(out)


def strip(flags: Sequence[int], width: int = 600, height: int = 14) -> str:
    """An SVG strip of a mask: token ids left to right in `width` columns, each shaded by
    the share of its ids allowed (four shades; none allowed: background)."""
    n = max(1, len(flags))
    runs: List[List[int]] = []  # [first column, end column, shade]
    for x in range(width):
        ids = flags[x * n // width:max(x * n // width + 1, (x + 1) * n // width)]
        shade = 0 if not any(ids) else 1 + min(3, 4 * sum(ids) // len(ids))
        if runs and runs[-1][2] == shade and runs[-1][1] == x:
            runs[-1][1] = x + 1
        else:
            runs.append([x, x + 1, shade])
    rects = "".join('<rect x="%d" width="%d" height="%d" fill="#2a7" fill-opacity="%.2f"/>' % (a, b - a, height, k / 4)
                    for a, b, k in runs if k)
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img">'
            '<rect width="%d" height="%d" fill="#eee"/>%s</svg>' % (width, height, width, height, rects))
