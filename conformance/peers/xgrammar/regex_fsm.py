"""How xgrammar's `Regex` macro (and so a JSON schema's `pattern`) builds its automaton,
written back as a regex: X14's optional groups (docs/findings.md).

xgrammar reads the macro's regex into a tree (ParseRegexToIR: one leaf per character,
escape or class; groups, alternations, `+ * ? {m,n}`) and builds an NFA by combinators
(cpp/fsm.cc, FSMWithStartEnd): a sequence links each part's final states to the next
part's start by ε; an alternation gets a fresh start; `x*` a fresh state that is its
start and its only final state; `{m,n}` a fresh start where m is 0. But `x+` adds ε from
x's final states back to x's own start, and `x?` adds ε from x's start to x's *first*
final state, neither with a fresh state. So in `(b+c)?` the ε of `?` leaves from the
state `b+` loops back to: after `b` the group may end (`^a(b+c)?$` takes `ab`), and in
`(a(/a*)*)?` it enters the star's state, which loops: `//` is taken for `^/(a+(/a*)*)?$`.
`compile_regex` (a regex grammar) goes another way and is right.

A part of the tree is read as four languages of its automaton, each a regex (None: no
string; "": the empty one): `lang` from its start to a final state; `loops`, generators
of the paths from its start back to it; `tail`, from its first final state (the one of
least number, where `?` jumps) to a final state; `back`, from that state to its start
(first arrival). `x?` then is (loops | back)* (lang | tail), and its own four follow from
x's. So `(b+c)?` takes `b`, `bb`, ... (the loop of `b+`) and `(b\\d+)?` takes `5` (the
tail of `\\d+`: `^a(b\\d+)?$` takes `a5`).

>>> print(optional_groups("^a(b+c)?$"))
^(?:(?:a)(?:(?:(?:(?:(?:(?:(?:b)))))*)(?:(?:(?:(?:(?:b)+)(?:c))|))))$
>>> optional_groups("^a(bc)?$") == "^a(bc)?$", optional_groups("^a(b+c){0,1}$") == "^a(b+c){0,1}$"
(True, True)
"""
from __future__ import annotations

import re
from typing import List, NamedTuple, Optional, Tuple, Union

#: the longest reading written (a `?` over `?`s repeats its part's text): longer is None
MAX_READING = 20000


class _Unknown:
    """A language of a part's automaton that is not modelled."""


UNKNOWN = _Unknown()
Lang = Union[None, str, _Unknown]


def _alt(*xs: Lang) -> Lang:
    if any(x is UNKNOWN for x in xs):
        return UNKNOWN
    seen: List[str] = []
    for x in xs:
        if isinstance(x, str) and x not in seen:
            seen.append(x)
    if not seen:
        return None
    if seen == [""]:
        return ""
    return "(?:%s)" % "|".join("(?:%s)" % x if x else "" for x in seen)


def _cat(*xs: Lang) -> Lang:
    if any(x is UNKNOWN for x in xs):
        return UNKNOWN
    if any(x is None for x in xs):
        return None
    return "".join("(?:%s)" % x for x in xs if x)


def _star(x: Lang) -> Lang:
    if x is UNKNOWN:
        return UNKNOWN
    return "(?:%s)*" % x if x else ""


def _plus(x: Lang) -> Lang:
    if x is UNKNOWN or x is None:
        return x
    return "(?:%s)+" % x if x else ""


class Part(NamedTuple):
    """A part of the regex as xgrammar's automaton of it reads (the module docstring):
    its language, the loops at its start, and from its first final state the way to a
    final state and the way back to its start. `leaks` tells whether some `?` in it read
    more than the regex says (its loops or way back not empty, or its tail more than "")."""

    lang: Lang
    loops: Lang
    tail: Lang
    back: Lang
    leaks: bool = False


def leaf(text: str) -> Part:
    return Part(text, None, "", None)


EMPTY = Part("", None, "", "")


def sequence(parts: List[Part]) -> Part:
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return EMPTY
    return Part(_cat(*(p.lang for p in parts)), parts[0].loops, parts[-1].tail, None, any(p.leaks for p in parts))


def alternation(parts: List[Part]) -> Part:
    return Part(_alt(*(p.lang for p in parts)), None, parts[0].tail, None, any(p.leaks for p in parts))


def plus(p: Part) -> Part:
    lang = _plus(p.lang)
    back = _alt(p.back, p.tail)
    return Part(lang, _alt(p.loops, p.lang), _alt(p.tail, _cat(back, lang)), back, p.leaks)


def star(p: Part) -> Part:
    return Part(_star(p.lang), p.lang, _star(p.lang), "", p.leaks)


def optional(p: Part) -> Part:
    leaks = p.leaks or p.loops is not None or p.back is not None or p.tail != ""
    if not leaks:
        return Part(_alt(p.lang, ""), None, "", None)
    again = _alt(p.loops, p.back)
    lang = _cat(_star(again), _alt(p.lang, p.tail))
    return Part(lang, again, _alt(p.tail, _cat(p.back, lang)), p.back, True)


def _times(x: Lang, low: int, high: Optional[int]) -> Lang:
    if x is UNKNOWN:
        return x
    if x is None:
        return "" if low == 0 else None
    if high == 0 or not x:
        return ""
    return "(?:%s){%d,%s}" % (x, low, "" if high is None else high)


def repeat(p: Part, low: int, high: Optional[int]) -> Part:
    """`x{low,high}` (high None: unbounded), as xgrammar builds it: copies of x in a
    sequence, a fresh start where low is 0. Bounded, the first final state is that of copy
    `max(low, 1)`, the later copies after it. Unbounded, copies 1..c (c = max(low - 1, 1))
    then one more, whose final states loop back by ε to copy c's first final state E, from
    which x's tail runs before the copy after it comes again: the tail gets in
    (`^((ac+)?){2,}$` takes `ccc`)."""
    if high == 0:
        return EMPTY
    if high is not None:
        later = _times(p.lang, 0, high - max(low, 1))
        return Part(_times(p.lang, low, high), None if low == 0 else p.loops, _cat(p.tail, later),
                    p.back if low == 1 else None, p.leaks)
    c = max(low - 1, 1)
    again = _star(_cat(p.tail, p.lang))  # at E: its tail, the copy after, back to E
    if low >= 2:
        lang = _cat(_times(p.lang, c + 1, c + 1), again)
        tail = _cat(p.tail, again)  # from the copy after's first final state
        back = _cat(p.tail, again, p.back) if c == 1 else None
    else:  # copy 1's final states are final too, E first among them
        lang = _cat(p.lang, _star(_cat(p.lang, p.tail)), _alt(p.lang, ""))
        lang = _alt(lang, "") if low == 0 else lang
        tail = _cat(p.tail, _star(_cat(p.lang, p.tail)), _alt(p.lang, ""))
        back = _cat(again, p.back) if low == 1 else None
    loops = None if low == 0 else _alt(p.loops, _cat(p.lang, p.lang, again, p.back) if c == 1 else None)
    return Part(lang, loops, tail, back, p.leaks or p.tail != "")


# ---------------------------------------------------------------------------------- the tree


_ESCAPE = re.compile(r"\\(?:u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[pP]\{[^}]*\}|c[A-Za-z]|[\s\S])")
_REPEAT = re.compile(r"\{(\d+)(,(\d*))?\}")


def _class_end(pattern: str, i: int) -> Optional[int]:
    """The end of the class that opens at i (ECMA-262's reading: no nesting, `\\` escapes
    one character), or None where it is not closed or empty."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    start = j
    while j < len(pattern):
        if pattern[j] == "\\":
            j += 2
            continue
        if pattern[j] == "]":
            return j + 1 if j > start else None
        j += 1
    return None


Item = Union[Part, str]  # a part, or a marker: "(" or "|"


def _close(items: List[Item]) -> Optional[Tuple[List[Item], Part]]:
    """The items before the innermost open group, and the group's part."""
    branches: List[List[Part]] = [[]]
    while items:
        item = items.pop()
        if item == "(":
            parts = [sequence(list(reversed(b))) for b in branches]
            return items, parts[0] if len(parts) == 1 else alternation(list(reversed(parts)))
        if item == "|":
            branches.append([])
        else:
            assert isinstance(item, Part)
            branches[-1].append(item)
    return None


Token = Tuple[str, str, Optional[Tuple[int, Optional[int]]]]  # (kind, text, bounds of a repetition)


def _group_open(body: str, i: int) -> Optional[int]:
    """Where a group that opens at i begins (after `(`, `(?:` or `(?<name>`), or None for
    a group xgrammar reads otherwise (a lookaround, read as "", or a flag)."""
    if body.startswith("(?:", i):
        return i + 3
    if body.startswith("(?<", i) and not body.startswith(("(?<=", "(?<!"), i):
        close = body.find(">", i)
        return None if close < 0 else close + 1
    return None if body.startswith("(?", i) else i + 1


def _token(body: str, i: int) -> Optional[Tuple[Token, int]]:
    """The token at i and where the next begins, or None where it is not modelled."""
    c = body[i]
    if c == "[":
        end = _class_end(body, i)
        return None if end is None else (("leaf", body[i:end], None), end)
    if c in "+*?":
        return ("quantifier", c, None), i + 1
    if c == "{":
        m = _REPEAT.match(body, i)
        if m is None:
            return None
        high = None if m.group(2) and not m.group(3) else int(m.group(3) or m.group(1))
        return ("quantifier", "{", (int(m.group(1)), high)), m.end()
    if c == "(":
        start = _group_open(body, i)
        return None if start is None else (("(", c, None), start)
    if c in "|)":
        return (c, c, None), i + 1
    if c == "\\":
        m = _ESCAPE.match(body, i)
        return None if m is None else (("leaf", m.group(), None), m.end())
    return None if c in "^$" else (("leaf", c, None), i + 1)


def _tokens(body: str) -> Optional[List[Token]]:
    """The body's tokens (a lazy quantifier's `?` left out: the same language), or None."""
    out: List[Token] = []
    i = 0
    while i < len(body):
        found = _token(body, i)
        if found is None:
            return None
        token, i = found
        out.append(token)
        if token[0] == "quantifier" and i < len(body) and body[i] == "?":
            i += 1
    return out


def read_regex(pattern: str) -> Optional[Part]:
    """The pattern as xgrammar's automaton of it reads, or None where it reads what is not
    modelled here: an anchor in the middle (ignored there), a lookahead (read as ""), an
    inline flag, a `{` that is no repetition, an empty or unclosed class."""
    body = pattern[1:] if pattern.startswith("^") else pattern
    if body.endswith("$") and not body.endswith("\\$"):
        body = body[:-1]
    tokens = _tokens(body)
    if tokens is None:
        return None
    items: List[Item] = ["("]
    for kind, text, bounds in tokens:
        if kind == "leaf":
            items.append(leaf(text))
        elif kind == "quantifier":
            last = items.pop()
            if not isinstance(last, Part):
                return None
            items.append(repeat(last, *bounds) if bounds is not None else
                         plus(last) if text == "+" else star(last) if text == "*" else optional(last))
        elif kind == ")":
            closed = _close(items)
            if closed is None or not closed[0]:
                return None
            items = closed[0] + [closed[1]]
        else:
            items.append(text)
    closed = _close(items)
    return None if closed is None or closed[0] else closed[1]


def optional_groups(pattern: str) -> Optional[str]:
    """The pattern as xgrammar's `Regex` macro reads it, matched against the whole string
    (`^(?:...)$`, in the ECMA-262 syntax maskref reads patterns in): where a `?` reads more
    than the pattern says; the pattern itself where none does; None where it cannot be
    read here (read_regex) or the reading is longer than MAX_READING."""
    part = read_regex(pattern)
    if part is None:
        return None
    if not part.leaks:
        return pattern
    if not isinstance(part.lang, str) or len(part.lang) > MAX_READING:
        return None
    return "^(?:%s)$" % part.lang
