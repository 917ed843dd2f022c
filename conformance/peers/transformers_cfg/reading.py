"""transformers-cfg's reading of GBNF and of token bytes.

Its input: GBNF read by its own parser (`tcfg_parse`), without token elements
(`check_dialect`). Most of its differences are a different reading of the same grammar
text or of the same token bytes: for the predicates, refimpl's grammar with one construct
read as transformers-cfg reads it (`read_grammar`, GRAMMAR_READINGS), and the tokens'
bytes as its mask reads them (`peer_answers`: one character per byte when the grammar is
ASCII, `byte_mode`) or as its decoder does (`peer_decode`).
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.frontends.ebnf.ast import ANY_CHAR, Alt, Chars, Node, Ref, Repeat, Seq, Token, children
from refimpl.frontends.ebnf.compiler import compile_rules
from refimpl.frontends.ebnf.gbnf import read_rules as gbnf_rules
from refimpl.regex import unicode as uni

from ...divergence import Divergence, compiled
from ...readings.grammar_shapes import Rewrite, has_cycle, let_unproductive_rules_stop, rewrite
from ...vectors import GrammarSpec, NotSupported, Refused

Rules = Dict[str, Node]


def _is_dot(n: Node, source: str) -> bool:
    return isinstance(n, Chars) and n.offset >= 0 and source[n.offset] == "."


def _is_negated(n: Node, source: str) -> bool:
    return isinstance(n, Chars) and n.offset >= 0 and source.startswith("[^", n.offset)


LATIN1 = ((0, 0xFF),)


def _dot_no_newline(n: Node, source: str) -> Optional[Node]:
    """transformers-cfg's `.` is every character but a newline."""
    return Chars(-1, uni.intersection(ANY_CHAR, uni.negate(((10, 10),)))) if _is_dot(n, source) else None


def _dot_latin1(n: Node, source: str) -> Optional[Node]:
    """transformers-cfg's `.` stops at U+00FF."""
    return Chars(-1, LATIN1) if _is_dot(n, source) else None


def _negated_latin1(n: Node, source: str) -> Optional[Node]:
    """transformers-cfg's `[^...]` is the complement within U+0000-U+00FF."""
    return Chars(-1, uni.intersection(n.ranges, LATIN1)) if _is_negated(n, source) else None  # type: ignore


def _tcfg_negated_ranges(source: str, offset: int) -> Tuple[Tuple[int, int], ...]:
    """The ranges transformers-cfg's parser makes of the negated class at offset."""
    from transformers_cfg.parser import AlternativeElements, _parse_rhs_negated_char_ranges

    alt = AlternativeElements()
    _parse_rhs_negated_char_ranges(source[offset:], alt)
    return tuple(alt.buffer_elements[0].ranges)


def _latin1(n: Node, source: str) -> Optional[Node]:
    """Both `.` and `[^...]` as the peer reads them up to U+00FF."""
    return _dot_latin1(n, source) or _negated_latin1(n, source)


def _negated_range_end(n: Node, source: str) -> Optional[Node]:
    """In `[^a-z]` transformers-cfg excludes a..y: the last character of each negated range
    stays allowed (within its U+00FF limit, read as the other difference)."""
    if not _is_negated(n, source):
        return None
    assert isinstance(n, Chars)
    forgotten = uni.intersection(uni.normalize(list(_tcfg_negated_ranges(source, n.offset))), uni.negate(n.ranges))
    return Chars(-1, uni.normalize(list(n.ranges) + list(forgotten))) if forgotten else None


def _tcfg_bounds(source: str, offset: int) -> Tuple[int, Optional[int]]:
    """`{n,m}` as transformers-cfg's parser reads the numbers (m None or 0: its 'no m')."""
    text = source[offset + 1:source.find("}", offset)]
    lo, hi = text.split(",") if "," in text else (text, text)
    return (int(lo) if lo.strip() else 0), (int(hi) if hi.strip() else None)


def _repetition(n: Node, source: str, rules: Rules) -> Optional[Node]:
    """`x{n,m}` as transformers-cfg expands it: {0} is x; {0,m} is x{1,m}; {0,} and {1,}
    are x; {2,} is x+; {n,} for n > 2 is x(x{n-1})* (1, n, 2n-1, ... times)."""
    if not isinstance(n, Repeat) or n.offset < 0 or source[n.offset] != "{":
        return None
    lo, hi = _tcfg_bounds(source, n.offset)
    if hi:
        return None if lo >= 1 else Repeat(-1, n.node, 1, hi)
    if lo <= 2:
        return Repeat(-1, n.node, 1, 1 if lo <= 1 else None)
    name = "tcfg-repeat-%d" % n.offset
    rules[name] = Alt(-1, [Seq(-1, [copy.deepcopy(n.node) for _ in range(lo - 1)] + [Ref(-1, name)]),
                           copy.deepcopy(n.node)])
    return Ref(-1, name)


_READ_GRAMMARS: Dict[Tuple[str, str, str], Optional[Grammar]] = {}


def read_grammar(spec: GrammarSpec, reading: str) -> Optional[Grammar]:
    """refimpl's grammar for the spec with one construct read as transformers-cfg reads it
    (None if the grammar does not use it)."""
    key = (spec.source or "", spec.options.get("root", "root"), reading)
    if key not in _READ_GRAMMARS:
        if len(_READ_GRAMMARS) > 32:
            _READ_GRAMMARS.clear()
        source = spec.source or ""
        rules = gbnf_rules(source)
        if reading == "repetition":
            extra: Rules = {}
            changed = rewrite(rules, source, lambda n, s: _repetition(n, s, extra))
            rules.update(extra)
        elif reading == "unproductive":
            changed = let_unproductive_rules_stop(rules)
        else:
            changed = rewrite(rules, source, GRAMMAR_READINGS[reading])
        g = None
        if changed:
            g = Grammar(compile_rules(rules, key[1], source), "gbnf", source)
        _READ_GRAMMARS[key] = g
    return _READ_GRAMMARS[key]


GRAMMAR_READINGS: Dict[str, Rewrite] = {
    "dot-no-newline": _dot_no_newline, "dot-latin1": _dot_latin1, "negated-latin1": _negated_latin1,
    "latin1": _latin1, "negated-range-end": _negated_range_end}


# ----------------------------------------------------------------------------- token bytes


def _pending(data: bytes) -> Optional[int]:
    """How many bytes at the end of data are an unfinished character as transformers-cfg
    decodes UTF-8 (lead byte by its high four bits: 8-B is no lead, C-D two bytes, E three,
    F four; continuation bytes 10xxxxxx); None if it reads an error."""
    pos = 0
    while pos < len(data):
        size = (1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 3, 4)[data[pos] >> 4]
        if size == 0:
            return None
        end = pos + 1
        while end < len(data) and end < pos + size:
            if data[end] >> 6 != 2:
                return None
            end += 1
        if end - pos < size:
            return end - pos
        pos = end
    return 0


def matcher_after(g: Grammar, vocab: Vocabulary, text: bytes) -> Optional[Matcher]:
    m = Matcher(g, vocab, slices=())
    return m if m.consume_bytes(text) or not text else None


def _answers(m: Matcher, d: Divergence, read: Callable[[bytes], bytes]) -> List[bool]:
    """For every differing token, does the reading give the backend's side (the token's
    bytes passed through `read`; EOS where m accepts)?"""
    out = []
    for t in d.differing():
        if t in d.vocab.eos_token_ids:
            allowed = t == d.vocab.eos_token_ids[0] and m.is_accepting()
        elif t in d.vocab.special_token_ids or not d.vocab.tokens[t]:
            allowed = t not in d.only_engine  # never the peer's answer
        else:
            allowed = m.consume_bytes(read(d.vocab.tokens[t]))
            if allowed:
                m.rollback(1)
        out.append(allowed == (t in d.only_engine))
    return out


def byte_mode(spec: GrammarSpec) -> bool:
    """transformers-cfg's mask matches token bytes as characters, one byte each, when the
    grammar's text has no character above U+007F (its `detect_unicode`)."""
    return all(ord(c) < 0x80 for c in spec.source or "")


def peer_answers(d: Divergence, g: Grammar) -> List[bool]:
    """Does refimpl on g, reading the tokens as the peer's mask does, give the peer's answer
    for each differing token? In byte mode the mask reads each byte of a token as the
    character of that code point (U+0000-U+00FF), from the state after the text's complete
    characters (a pending partial character forgotten); else as UTF-8, as refimpl does."""
    text = d.text()
    if not byte_mode(d.grammar):
        m = matcher_after(g, d.vocab, text)
        return [False] * len(d.differing()) if m is None else _answers(m, d, lambda data: data)
    pending = _pending(text)
    m = None if pending is None else matcher_after(g, d.vocab, text[:len(text) - pending])
    if m is None:
        return [False] * len(d.differing())
    return _answers(m, d, lambda data: data.decode("latin-1").encode("utf-8"))


def peer_decode(chunks: List[bytes]) -> Optional[Tuple[bytes, bool]]:
    """The text as the peer's decoder reads it, chunk by chunk (its decode_utf8 checks the
    continuation bytes only of a character begun in an earlier chunk): the complete
    characters as UTF-8, and whether a partial character is pending; None on an error."""
    from transformers_cfg.utf8_utils import PartialUTF8, decode_utf8

    state, out = PartialUTF8(), []
    for chunk in chunks:
        cps, state = decode_utf8(bytes(chunk), state)
        if cps == [0] and state.n_remain == -1 and chunk:
            return None
        out.extend(cps)
    try:
        return "".join(chr(c) for c in out).encode("utf-8"), state.n_remain > 0
    except (UnicodeEncodeError, ValueError):
        return None


def latin1_or_plain(spec: GrammarSpec) -> Grammar:
    return read_grammar(spec, "latin1") or compiled(spec)


# ----------------------------------------------------------------------------- its parser


def tcfg_left_recursive(source: str) -> bool:
    """Does the grammar as transformers-cfg parses and expands it (x* as S ::= x S | ε, ...)
    have a rule that derives itself at its left, through nullable elements?"""
    from transformers_cfg.parser import ReferenceElement

    state = tcfg_parse(source)
    bodies: Dict[int, List[List[Any]]] = {}
    for rule_id, rule in state.grammar_rules.items():
        bodies[rule_id] = [[e for sym in alt.symbols for e in sym] + list(alt.buffer_elements)
                           for alt in rule.alternatives]
    nullable: Set[int] = set()
    grew = True
    while grew:
        grew = False
        for r, alts in bodies.items():
            if r not in nullable and any(all(isinstance(e, ReferenceElement) and e.referee_id in nullable for e in a)
                                         for a in alts):
                nullable.add(r)
                grew = True
    edges: Dict[int, Set[int]] = {r: set() for r in bodies}
    for r, alts in bodies.items():
        for a in alts:
            for e in a:
                if not isinstance(e, ReferenceElement):
                    break
                edges[r].add(e.referee_id)
                if e.referee_id not in nullable:
                    break
    return has_cycle(edges)


def check_dialect(source: str) -> None:
    """NotSupported for the GBNF features transformers-cfg's parser lacks."""
    todo: List[Any] = list(gbnf_rules(source).values())
    while todo:
        n = todo.pop()
        if isinstance(n, Token):
            raise NotSupported("transformers-cfg has no token elements (<...>, <[id]>, !<...>)")
        todo.extend(children(n))


def tcfg_parse(source: str) -> Any:
    """transformers-cfg's parse of the grammar (its ParseState); NotSupported with its
    message where it cannot parse it (its parse_ebnf logs the error and returns an empty
    grammar; this is its loop without that)."""
    from transformers_cfg.parser import ParseState, parse_rule, remove_leading_white_space

    state = ParseState()
    rest = remove_leading_white_space(source, True)
    try:
        while rest:
            rest = parse_rule(state, rest)
    except (RuntimeError, ValueError, IndexError) as e:
        raise Refused("transformers-cfg cannot parse the grammar: %s" % str(e).splitlines()[0][:160]) from e
    return state
