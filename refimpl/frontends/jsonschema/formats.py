"""What JSON schema's `pattern` and `format` mean, as regexes over decoded strings:
ECMA-262 patterns rewritten into the Rust syntax maskref parses (`ecma_to_rust`) and
searched anywhere in the string (`search_expr`); formats as exact regular languages
(`format_expr`; the URI and IRI family's regex: `uri_pattern`), or a reason why a format
is not one (`UNSUPPORTED_FORMATS`)."""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Union

from ...regex import ExprSet, compile_pattern
from ...regex import ast as _syntax
from ...regex.compiler import compile_ast
from ...regex.reader import read_pattern

_ECMA_SPACE = (r"\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}"
               r"\x{3000}\x{FEFF}")
_ECMA_CLASSES = {"d": "0-9", "w": "0-9a-zA-Z_", "s": _ECMA_SPACE}


def ecma_to_rust(pattern: str) -> str:
    """JSON schema patterns are ECMA-262 regexes; rewrite what means something else in
    Rust syntax: `\\d`, `\\w` are ASCII (as llguidance's regex_to_lark "dw" does) and
    `\\s` is ECMA's white space (with U+FEFF, without U+0085); `.` excludes all four
    line terminators; inside a class, `[`, `&` and `~` are literal (Rust would read
    nested classes and set operations).

    >>> ecma_to_rust(r"^\\d+[.\\w-]$")
    '^[0-9]+[.[0-9a-zA-Z_]-]$'
    """
    out = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            low = d.lower()
            if low in _ECMA_CLASSES:
                body = _ECMA_CLASSES[low]
                out.append("[%s%s]" % ("^" if d != low else "", body))
            else:
                out.append(c + d)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            elif c in "[&~":
                c = "\\" + c
        elif c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":  # ECMA: [] matches nothing, [^] anything
                if out[-1] == "^":
                    out[-1] = r"\x{0}-\x{10FFFF}]"
                else:
                    out.append(r"\x{0}&&[^\x{0}]]")
                in_class = False
                i += 1
            continue
        elif c == ".":
            c = r"[^\n\r\x{2028}\x{2029}]"
        out.append(c)
        i += 1
    return "".join(out)


class _Search(NamedTuple):
    """Compile `node`, with `Σ*` before it if `before` and after it if `after`."""

    node: Any
    before: bool
    after: bool


class _Union(NamedTuple):
    """Replace the last `size` values by their union."""

    size: int


class _Concat(NamedTuple):
    """Replace the last two values (of the first and last item) by the concatenation of
    all `items`."""

    items: Sequence[Any]


_Frame = Union[_Search, _Union, _Concat]


def search_expr(es: ExprSet, pattern: str, anything: int) -> int:
    """The strings in which `pattern` matches somewhere (ECMA-262 `test` semantics):
    `Σ* p Σ*`, where an anchor `^` (or `$`) at the start (end) of a branch drops the
    `Σ*` on its side. Raises RegexError for a malformed or unsupported pattern."""
    ast = read_pattern(ecma_to_rust(pattern), limits=es.limits)
    values: List[int] = []
    stack: List[_Frame] = [_Search(ast, True, True)]
    while stack:
        frame = stack.pop()
        if isinstance(frame, _Union):
            args = values[len(values) - frame.size:]
            del values[len(values) - frame.size:]
            values.append(es.union(*args))
        elif isinstance(frame, _Concat):
            last = values.pop()
            first = values.pop()
            middle = [compile_ast(es, x) for x in frame.items[1:-1]]
            values.append(es.concat(first, *middle, last))
        else:
            _search_step(es, frame, anything, stack, values)
    return values[0]


def _search_step(es: ExprSet, frame: _Search, anything: int, stack: List[_Frame], values: List[int]) -> None:
    """One node of the pattern: its value, or the frames that will make it."""
    node, s, e = frame
    if not s and not e:
        values.append(compile_ast(es, node))
        return
    t = type(node)
    if t is _syntax.Alternation:
        stack.append(_Union(len(node.items)))
        stack.extend(_Search(item, s, e) for item in reversed(node.items))
    elif t is _syntax.Concat and len(node.items) >= 2:
        stack.append(_Concat(node.items))
        stack.append(_Search(node.items[-1], False, e))
        stack.append(_Search(node.items[0], s, False))
    elif t is _syntax.Concat and len(node.items) == 1:
        stack.append(_Search(node.items[0], s, e))
    elif t is _syntax.Anchor:
        if node.kind in ("^", "\\A"):
            s = False
        else:
            e = False
        values.append(anything if (s or e) else es.EPSILON)
    else:
        core = es.EPSILON if t is _syntax.Concat else compile_ast(es, node)
        values.append(es.concat(anything if s else es.EPSILON, core, anything if e else es.EPSILON))


_H16 = r"[0-9A-Fa-f]{1,4}"
_IPV4 = r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_LS32 = r"(?:%s:%s|%s)" % (_H16, _H16, _IPV4)
_IPV6 = "|".join([
    r"(?:%s:){6}%s" % (_H16, _LS32),
    r"::(?:%s:){5}%s" % (_H16, _LS32),
    r"(?:%s)?::(?:%s:){4}%s" % (_H16, _H16, _LS32),
    r"(?:(?:%s:){0,1}%s)?::(?:%s:){3}%s" % (_H16, _H16, _H16, _LS32),
    r"(?:(?:%s:){0,2}%s)?::(?:%s:){2}%s" % (_H16, _H16, _H16, _LS32),
    r"(?:(?:%s:){0,3}%s)?::%s:%s" % (_H16, _H16, _H16, _LS32),
    r"(?:(?:%s:){0,4}%s)?::%s" % (_H16, _H16, _LS32),
    r"(?:(?:%s:){0,5}%s)?::%s" % (_H16, _H16, _H16),
    r"(?:(?:%s:){0,6}%s)?::" % (_H16, _H16),
])
_LEAP_YEAR = r"(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
_DATE = (r"(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
         r"|02-(?:0[1-9]|1[0-9]|2[0-8]))|%s-02-29)" % _LEAP_YEAR)
_OFFSET = r"(?:[zZ]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
_TIME_NO_LEAP = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?" + _OFFSET
_DURATION = (r"P(?:(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)(?:T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?"
             r"|[0-9]+M(?:[0-9]+S)?|[0-9]+S))?|T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)|[0-9]+W)")
_ATEXT = r"[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]"
_EMAIL = (r"(?:%s+(?:\.%s+)*|\x22(?:[\x20\x21\x23-\x5B\x5D-\x7E]|\\[\x20-\x7E])*\x22)@"
          r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
          r"|\[(?:%s|IPv6:(?:%s))\])" % (_ATEXT, _ATEXT, _IPV4, _IPV6))
_A = "[A-Za-z0-9]"
_LDH = "[A-Za-z0-9-]"
# a label of 1..63 letters, digits and hyphens, not starting or ending with a hyphen, and
# without "--" in positions 3-4 (RFC 5891: reserved for A-labels such as xn--, whose
# Punycode a regular language cannot check)
_LABEL = "(?:{A}|{A}{A}|{A}{H}{A}|{A}{H}{H}{A}|{A}{H}(?:{A}{H}|-{A}){H}{{0,58}}{A})".format(A=_A, H=_LDH)
_HOSTNAME = r"%s(?:\.%s)*" % (_LABEL, _LABEL)

_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_UCSCHAR = (r"\x{A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}\x{10000}-\x{1FFFD}\x{20000}-\x{2FFFD}"
            r"\x{30000}-\x{3FFFD}\x{40000}-\x{4FFFD}\x{50000}-\x{5FFFD}\x{60000}-\x{6FFFD}\x{70000}-\x{7FFFD}"
            r"\x{80000}-\x{8FFFD}\x{90000}-\x{9FFFD}\x{A0000}-\x{AFFFD}\x{B0000}-\x{BFFFD}\x{C0000}-\x{CFFFD}"
            r"\x{D0000}-\x{DFFFD}\x{E1000}-\x{EFFFD}")
_IPRIVATE = r"\x{E000}-\x{F8FF}\x{F0000}-\x{FFFFD}\x{100000}-\x{10FFFD}"


def uri_pattern(iri: bool = False, reference: bool = False, ipv6: str = _IPV6) -> str:
    """RFC 3986 URI / URI-reference, or RFC 3987 IRI / IRI-reference, as a regex; `ipv6` is
    the regex of an IP literal's IPv6 address (a reading of another engine may give its own:
    conformance/peers/llguidance/reading.py)."""
    unres = _UNRESERVED + (_UCSCHAR if iri else "")
    pct = "%[0-9A-Fa-f]{2}"
    pchar = "(?:[%s%s:@]|%s)" % (unres, _SUB_DELIMS, pct)
    seg_nz_nc = "(?:[%s%s@]|%s)+" % (unres, _SUB_DELIMS, pct)
    userinfo = "(?:[%s%s:]|%s)*" % (unres, _SUB_DELIMS, pct)
    reg_name = "(?:[%s%s]|%s)*" % (unres, _SUB_DELIMS, pct)
    ip_future = r"v[0-9A-Fa-f]+\.[%s%s:]+" % (_UNRESERVED, _SUB_DELIMS)
    host = r"(?:\[(?:%s|%s)\]|%s|%s)" % (ipv6, ip_future, _IPV4, reg_name)
    authority = "(?:%s@)?%s(?::[0-9]*)?" % (userinfo, host)
    abempty = "(?:/%s*)*" % pchar
    absolute = "/(?:%s+(?:/%s*)*)?" % (pchar, pchar)
    rootless = "%s+(?:/%s*)*" % (pchar, pchar)
    noscheme = "%s(?:/%s*)*" % (seg_nz_nc, pchar)
    query = r"(?:\?(?:%s|[/?%s])*)?" % (pchar, _IPRIVATE if iri else "")
    fragment = r"(?:#(?:%s|[/?])*)?" % pchar
    scheme = "[A-Za-z][A-Za-z0-9+\\-.]*"
    uri = "%s:(?://%s%s|%s|%s|)%s%s" % (scheme, authority, abempty, absolute, rootless, query, fragment)
    if not reference:
        return uri
    relative = "(?://%s%s|%s|%s|)%s%s" % (authority, abempty, absolute, noscheme, query, fragment)
    return "(?:%s)|(?:%s)" % (uri, relative)


def _uri_template() -> str:
    """RFC 6570 URI templates (level 4)."""
    pct = "%[0-9A-Fa-f]{2}"
    literal = r"(?:[\x21\x23\x24\x26\x28-\x3B\x3D\x3F-\x5B\x5D\x5F\x61-\x7A\x7E%s%s]|%s)" % (_UCSCHAR, _IPRIVATE, pct)
    varchar = "(?:[A-Za-z0-9_]|%s)" % pct
    varspec = r"%s(?:\.?%s)*(?::[1-9][0-9]{0,3}|\*)?" % (varchar, varchar)
    expression = r"\{[+#./;?&=,!@|]?%s(?:,%s)*\}" % (varspec, varspec)
    return "(?:%s|%s)*" % (literal, expression)


#: format name -> Rust regex of the decoded string (None: built by code)
_FORMATS: Dict[str, Optional[str]] = {
    "date": _DATE,
    "time": None,
    "date-time": None,
    "duration": _DURATION,
    "email": _EMAIL,
    "hostname": None,
    "ipv4": _IPV4,
    "ipv6": _IPV6,
    "uuid": r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}",
    "uri": uri_pattern(),
    "uri-reference": uri_pattern(reference=True),
    "iri": uri_pattern(iri=True),
    "iri-reference": uri_pattern(iri=True, reference=True),
    "uri-template": _uri_template(),
    "json-pointer": r"(?:/(?:[^/~]|~[01])*)*",
    "relative-json-pointer": r"(?:0|[1-9][0-9]*)(?:#|(?:/(?:[^/~]|~[01])*)*)",
    "unknown": r"(?s:.*)",  # llguidance's: the format named "unknown" allows any string
}

#: formats that no regular language states exactly (why, for the error message)
UNSUPPORTED_FORMATS = {
    "idn-hostname": "IDNA2008 labels need Punycode decoding and contextual rules",
    "idn-email": "internationalized domains need IDNA2008 checks",
    "regex": "regex syntax (balanced parentheses) is not a regular language",
}


def format_expr(es: ExprSet, name: str) -> Optional[int]:
    """The decoded strings of a format, or None for a format not supported."""
    if name not in _FORMATS:
        return None
    pattern = _FORMATS[name]
    if pattern is not None:
        e = compile_pattern(es, pattern)
    elif name == "hostname":  # at most 253 characters in all (RFC 1123 with 1034)
        e = es.intersection(compile_pattern(es, _HOSTNAME), compile_pattern(es, "(?s:.{1,253})"))
    else:
        time = _time_expr(es)
        e = time if name == "time" else es.concat(compile_pattern(es, _DATE + "[tT]"), time)
    return e


def _time_expr(es: ExprSet) -> int:
    """RFC 3339 full-time. A leap second (:60) is valid only at 23:59 UTC, so its local
    time must equal 23:59 plus the offset: one branch per local minute."""
    frac = compile_pattern(es, r"(?:\.[0-9]+)?")
    branches = [compile_pattern(es, _TIME_NO_LEAP)]
    utc = 23 * 60 + 59
    for local in range(24 * 60):
        plus = (local - utc) % 1440
        minus = (utc - local) % 1440
        offsets = [es.literal(("+%02d:%02d" % divmod(plus, 60)).encode()),
                   es.literal(("-%02d:%02d" % divmod(minus, 60)).encode())]
        if local == utc:
            offsets.append(es.byte_set((1 << ord("z")) | (1 << ord("Z"))))
        branches.append(es.concat(es.literal(("%02d:%02d:60" % divmod(local, 60)).encode()), frac,
                                  es.union(*offsets)))
    return es.union(*branches)
