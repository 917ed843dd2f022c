"""`multipleOf` as a regular expression: a divisibility automaton over the digits of a
number text, turned into a regex by state elimination."""
from __future__ import annotations

from decimal import Decimal
from typing import Dict, List, NamedTuple, Optional, Tuple, Union

from ...regex import ExprSet


def coefficient(m: Decimal) -> Tuple[int, int]:
    """m = c * 10^-k with c a positive integer and k >= 0 minimal."""
    sign, digits, exp = m.normalize().as_tuple()
    c = int("".join(map(str, digits)))
    assert isinstance(exp, int)
    if exp >= 0:
        return c * 10 ** exp, 0
    return c, -exp


def gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


class _State(NamedTuple):
    """A state of the divisibility automaton: `kind` I (integer part), Z (after a
    leading 0), D (just after '.') or F (`digits` >= 1 fraction digits read), and the
    remainder mod c of the number read so far."""

    kind: str
    remainder: int = 0
    digits: int = 0


_START, _FINAL = 0, 1

Edges = Dict[Tuple[int, int], int]


def multiple_regex(es: ExprSet, c: int, k: int, integer: bool) -> int:
    """Texts `-?(0|[1-9][0-9]*)(\\.[0-9]{1,k})?` whose value x satisfies x * 10^k ≡ 0 mod c.

    At most k fraction digits, as llguidance (whose automaton wants exactly k): enough
    for the canonical text of every multiple of c * 10^-k, and no fraction at all when
    the divisor is an integer. The automaton reads the digits updating the remainder r
    of the number read so far; at the end the k - j fraction digits not written count
    as zeros: accept iff r * 10^(k-j) ≡ 0 mod c. Converted to a regex by state
    elimination.
    """
    edges, n_states = _divisibility_automaton(es, c, k, k > 0 and not integer)
    body = _eliminate_states(es, edges, n_states)
    return es.concat(es.union(es.EPSILON, es.literal(b"-")), body)


def _divisibility_automaton(es: ExprSet, c: int, k: int, fractions: bool) -> Tuple[Edges, int]:
    """The automaton's edges (state pair -> expression; state 0 starts, 1 accepts) and
    its number of states."""
    ids: Dict[_State, int] = {}
    edges: Edges = {}
    todo: List[_State] = []

    def state(key: _State) -> int:
        s = ids.get(key)
        if s is None:
            s = ids[key] = len(ids) + 2
            todo.append(key)
        return s

    def edge(a: int, b: int, e: int) -> None:
        edges[(a, b)] = es.union(edges.get((a, b), es.NOTHING), e)

    def digit(d: int) -> int:
        return es.byte_set(1 << (0x30 + d))

    edge(_START, state(_State("Z")), digit(0))
    for d in range(1, 10):
        edge(_START, state(_State("I", d % c)), digit(d))
    while todo:
        key = todo.pop()
        s = ids[key]
        for target, label in _transitions(key, c, k, fractions):
            e = es.EPSILON if label is None else es.byte_set(1 << (0x2E if isinstance(label, str) else 0x30 + label))
            edge(s, _FINAL if target is None else state(target), e)
    return edges, len(ids) + 2


def _transitions(key: _State, c: int, k: int, fractions: bool) -> List[Tuple[Optional[_State], Union[int, str, None]]]:
    """The edges out of a state, in order: (target, None: final; label: a digit, "." or
    None for the empty word)."""
    out: List[Tuple[Optional[_State], Union[int, str, None]]] = []
    r = key.remainder
    if key.kind == "I":
        if (r * 10 ** k) % c == 0:
            out.append((None, None))
        out.extend((_State("I", (10 * r + d) % c), d) for d in range(10))
        if fractions:
            out.append((_State("D", r), "."))
    elif key.kind == "Z":
        out.append((None, None))
        if fractions:
            out.append((_State("D", 0), "."))
    elif key.kind == "D":
        out.extend((_State("F", (10 * r + d) % c, 1), d) for d in range(10))
    else:  # F
        j = key.digits
        if (r * 10 ** (k - j)) % c == 0:
            out.append((None, None))
        if j < k:
            out.extend((_State("F", (10 * r + d) % c, j + 1), d) for d in range(10))
    return out


def _eliminate_states(es: ExprSet, edges: Edges, n: int) -> int:
    """The regex from the start to the final state, by state elimination
    (Brzozowski–McCluskey), states in order of fewest paths through."""
    out: List[Dict[int, int]] = [dict() for _ in range(n)]
    inc: List[Dict[int, int]] = [dict() for _ in range(n)]
    for (a, b), e in edges.items():
        out[a][b] = e
        inc[b][a] = e
    remaining = set(range(2, n))
    while remaining:
        q = min(remaining, key=lambda s: (len(inc[s]) - (s in inc[s])) * (len(out[s]) - (s in out[s])))
        remaining.discard(q)
        loop = out[q].pop(q, None)
        inc[q].pop(q, None)
        star = es.star(loop) if loop is not None else es.EPSILON
        for a, ea in list(inc[q].items()):
            for b, eb in list(out[q].items()):
                e = es.concat(ea, star, eb)
                new = es.union(out[a].get(b, es.NOTHING), e)
                out[a][b] = new
                inc[b][a] = new
        for a in inc[q]:
            out[a].pop(q, None)
        for b in out[q]:
            inc[b].pop(q, None)
        inc[q] = {}
        out[q] = {}
    return out[_START].get(_FINAL, es.NOTHING)
