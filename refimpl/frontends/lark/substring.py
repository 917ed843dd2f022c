"""`%regex {"substring_...": ...}`: the language of every run of consecutive chunks.

    substring_chunks(text, offset, spec) -> chunks    read the JSON spec (parser)
    substring_expr(es, chunks) -> expression           the regex expression (compiler)

>>> chunk_into_words("foo bar, baz")
['foo', ' ', 'bar', ',', ' ', 'baz']
"""
from __future__ import annotations

import functools
from typing import Any, Dict, List, Sequence, Tuple

from ...errors import GrammarError
from ...regex import ExprSet
from ...regex import unicode as _unicode


def substring_chunks(text: str, offset: int, spec: Any) -> List[str]:
    """The chunk list of `%regex {...}`: exactly one of substring_chunks (a list of
    strings), substring_words (a string cut into words, spaces and other runs) or
    substring_chars (a string cut into characters)."""
    def fail(message: str) -> GrammarError:
        return GrammarError("failed to parse %%regex: %s" % message, text, offset)

    if not isinstance(spec, dict):
        raise fail("expected a JSON object")
    for key in spec:
        if key not in ("substring_chunks", "substring_words", "substring_chars"):
            raise fail("unknown field %r" % key)
    if not spec:
        raise GrammarError("no fields set on %regex", text, offset)
    if len(spec) > 1:
        raise GrammarError("only one field can be set on %%regex; got %s" % sorted(spec), text, offset)
    (key, value), = spec.items()
    if key == "substring_chunks":
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            raise fail("substring_chunks must be a list of strings")
    elif not isinstance(value, str):
        raise fail("%s must be a string" % key)
    chars = "".join(value)
    try:
        chars.encode("utf-8")
    except UnicodeEncodeError as e:  # JSON may write "\ud800"; UTF-8 has no surrogates
        raise fail("lone surrogate U+%04X in %s (not a Unicode scalar value)" % (ord(chars[e.start]), key)) from None
    if key == "substring_words":
        return chunk_into_words(value)
    return list(value)


@functools.lru_cache(maxsize=None)
def _word_ranges() -> Tuple[_unicode.Ranges, _unicode.Ranges]:
    """The code point ranges of whitespace (White_Space) and of word characters
    (Alphabetic or Numeric), from the regex engine's pinned Unicode tables."""
    space = _unicode.property_ranges("White_Space")
    word = _unicode.union(_unicode.property_ranges("Alphabetic"), _unicode.property_ranges("N"))
    return space, word


def _char_class(ch: str) -> int:
    """0 whitespace (White_Space), 1 word (Alphabetic, Numeric or '_'), 2 other — Rust's
    char::is_whitespace / is_alphanumeric, from the regex engine's pinned Unicode tables."""
    space, word = _word_ranges()
    cp = ord(ch)
    if _unicode.contains(space, cp):
        return 0
    if ch == "_" or _unicode.contains(word, cp):
        return 1
    return 2


def chunk_into_words(s: str) -> List[str]:
    """Cut s where the character class (whitespace / word / other) changes."""
    chunks: List[str] = []
    start = 0
    for i in range(1, len(s)):
        if _char_class(s[i]) != _char_class(s[i - 1]):
            chunks.append(s[start:i])
            start = i
    if s:
        chunks.append(s[start:])
    return chunks


def substring_expr(es: ExprSet, chunks: Sequence[str]) -> int:
    """The expression for "any run chunks[i:j], i <= j", via the suffix automaton.

    The suffix automaton of the chunk sequence (Blumer et al. 1985) is the smallest DFA
    whose paths from the start spell exactly the runs of consecutive chunks; reading each
    state as "ε | chunk₁·next₁ | chunk₂·next₂ ...", from the longest states down (a
    transition always goes to a state with a longer longest path), gives the expression
    without recursion.
    """
    length, trans = _suffix_automaton(chunks)
    expr = [es.EPSILON] * len(length)
    for state in sorted(range(len(length)), key=lambda s: -length[s]):
        options = [es.concat(es.literal(c.encode("utf-8")), expr[t]) for c, t in trans[state].items()]
        expr[state] = es.union(es.EPSILON, *options)
    return expr[0]


def _suffix_automaton(chunks: Sequence[str]) -> Tuple[List[int], List[Dict[str, int]]]:
    """The suffix automaton of a chunk sequence: per state (0 is the start), the length
    of its longest path from the start, and its transitions (chunk -> state)."""
    length = [0]
    link = [-1]
    trans: List[Dict[str, int]] = [{}]
    last = 0
    for c in chunks:
        cur = len(length)
        length.append(length[last] + 1)
        link.append(-1)
        trans.append({})
        p = last
        while p != -1 and c not in trans[p]:
            trans[p][c] = cur
            p = link[p]
        if p == -1:
            link[cur] = 0
        else:
            q = trans[p][c]
            if length[p] + 1 == length[q]:
                link[cur] = q
            else:
                clone = len(length)
                length.append(length[p] + 1)
                link.append(link[q])
                trans.append(dict(trans[q]))
                while p != -1 and trans[p].get(c) == q:
                    trans[p][c] = clone
                    p = link[p]
                link[q] = clone
                link[cur] = clone
        last = cur
    return length, trans
