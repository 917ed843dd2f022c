"""The flags of a pattern: which are in force, and the text `(?is-x)` that changes them.

Rust's regex syntax has seven flags, each a letter: `i` case-insensitive, `m` multi-line,
`s` dot matches `\\n`, `U` swap greed, `u` Unicode (on by default; `(?-u)` is byte mode),
`R` CRLF mode, `x` verbose (white space and `#` comments ignored).  `(?flags)` sets them up
to the end of the enclosing group, `(?flags:...)` inside the group only; a `-` turns the
letters after it off.  The reader resolves them into the nodes as it goes (`Literal.fold`,
the sets of `.` and of classes), so no flag reaches the syntax tree.

>>> flags, end = read_flags("(?i-u:a)", 2, Flags())
>>> flags.case_insensitive, flags.unicode, end
(True, False, 5)
"""
from __future__ import annotations

from typing import Dict, NamedTuple, Tuple

from ..errors import RegexError


class Flags(NamedTuple):
    """The flags in force (Rust: i m s U u R x)."""
    case_insensitive: bool = False  # i
    multi_line: bool = False        # m: ^/$ at line ends; no effect at the pattern's ends
    dot_all: bool = False           # s
    swap_greed: bool = False        # U: no effect on the language
    unicode: bool = True            # u; (?-u) is byte mode
    crlf: bool = False              # R: `.` excludes \r too
    verbose: bool = False           # x: whitespace and # comments are ignored


FLAG_LETTERS = "imsUuRx"
_FLAG_NAMES = dict(zip(FLAG_LETTERS, Flags._fields))
_FLAG_HINTS = {
    "#": "; comments (?#...) are not supported",
    ">": "; atomic groups (?>...) are not supported",
    "|": "; branch reset groups (?|...) are not supported",
    "(": "; conditionals (?(...)...) are not supported",
}
_FLAG_HINTS.update((d, "; recursion (?%s) is not supported" % d) for d in "0123456789+")


def read_flags(pattern: str, pos: int, flags: Flags) -> Tuple[Flags, int]:
    """Read flags like `is-x` from pattern[pos] up to `:` or `)`: the flags then in force,
    and the offset of that `:` or `)` (errors as Rust's `parse_flags` gives them).

    The caller has checked that the text from `pos` on is not just `)` (an empty `(?)`).
    """
    p, n = pattern, len(pattern)
    seen: Dict[str, int] = {}
    negation = -1
    last_was_negation = False
    changes: Dict[str, bool] = {}
    while p[pos] != ":" and p[pos] != ")":
        c = p[pos]
        if c == "-":
            if negation >= 0:
                raise RegexError("flag negation operator '-' repeated", p, pos)
            negation = pos
            last_was_negation = True
        else:
            if c not in _FLAG_NAMES:
                raise RegexError("unrecognized flag %r (flags are %s)%s" % (
                    c, " ".join(FLAG_LETTERS), _FLAG_HINTS.get(c, "")), p, pos)
            if c in seen:
                raise RegexError("duplicate flag %r" % c, p, pos)
            seen[c] = pos
            changes[_FLAG_NAMES[c]] = negation < 0
            last_was_negation = False
        pos += 1
        if pos >= n:
            raise RegexError("expected a flag, ':' or ')' but the pattern ended "
                             "(unclosed group)", p, pos)
    if last_was_negation:
        raise RegexError("dangling flag negation operator '-': expected a flag after it",
                         p, negation)
    return flags._replace(**changes), pos
