"""Regex text as peers read it, for the predicates of their known differences: the class
escapes (`\\d \\w \\s` and their negations) written out with the meaning a peer gives them;
with `flat`, brackets read as ECMAScript's and Python's `re` read them (classes do not nest,
so `[[:alpha:]]` is the class of `[:alph` followed by `]`); with `dot`, `.` written out.

>>> write_out_classes(r"\\d+[\\w.]\\S", {"d": "0-9", "w": "0-9A-Za-z_", "s": " "})
'[0-9]+[0-9A-Za-z_.][^ ]'
>>> write_out_classes(r"\\\\d[]\\s]", {"d": "0-9", "s": " "}), write_out_classes(r"[\\D]", {"d": "0-9"})
('\\\\\\\\d[\\\\] ]', None)
>>> print(write_out_classes("[[:a&&b:]]+.", {}, flat=True, dot="[^]"))
[\\[:a\\&\\&b:]\\]+[^]
"""
from __future__ import annotations

from typing import Dict, List, Optional

#: `\\d \\w \\s` with their ASCII meaning (interegular's, xgrammar's Regex reader's), as class
#: bodies of maskref's dialect
ASCII_CLASSES = {"d": "0-9", "w": "0-9A-Za-z_", "s": "\\t-\\r "}


def write_out_classes(pattern: str, classes: Dict[str, str], flat: bool = False,
                      dot: Optional[str] = None) -> Optional[str]:
    """The pattern with each escape whose lower-case letter `classes` names written out as
    that class body: `[body]` outside a class, `body` inside one, `[^body]` for the
    upper-case letter outside; None for an upper-case one inside a class (a negation that
    cannot be written there). Other escapes stay; a leading `]` in a class is written `\\]`.
    With `flat`, the pattern is read as a dialect whose classes do not nest (ECMAScript's,
    Python's `re`, interegular's, xgrammar's) and written for one where they do (Rust's):
    `[`, `&` and `~` in a class are escaped (no nested class, no set operation), and a `]`
    outside a class, a literal there, is escaped too. With `dot`, a `.` outside a class
    is written `dot`.

    >>> write_out_classes(r"a.[.]\\.", {}, dot="[^x]")
    'a[^x][.]\\\\.'
    """
    out: List[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            e = pattern[i + 1]
            body = classes.get(e.lower())
            if body is None:
                out.append(pattern[i:i + 2])
            elif in_class:
                if e.isupper():
                    return None
                out.append(body)
            else:
                out.append("[%s%s]" % ("^" if e.isupper() else "", body))
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
            out.append(c)
            if pattern[i + 1:i + 2] == "^":
                out.append("^")
                i += 1
            if pattern[i + 1:i + 2] == "]":
                out.append("\\]")
                i += 1
        elif c == "]" and in_class:
            in_class = False
            out.append(c)
        elif flat and (c in "[&~" if in_class else c == "]"):
            out.append("\\" + c)
        elif c == "." and dot is not None and not in_class:
            out.append(dot)
        else:
            out.append(c)
        i += 1
    return "".join(out)
