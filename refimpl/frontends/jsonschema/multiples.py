"""`multipleOf` as a regular expression: the minimal divisibility automaton over the
digits of a number text, turned into a regex by state elimination.

The texts are `-?(0|[1-9][0-9]*)(\\.[0-9]{1,k})?` whose value x is a multiple of
m = c·10^-k: x·10^k ≡ 0 (mod c). The plain automaton keeps the remainder mod c of the
digits read, c·(k+3)+2 states (1024: 3,074), most of them equivalent: for
c = 2^a·5^b·c' with c' prime to 10, divisibility by 2^a·5^b depends only on the last
max(a, b) digits, and the remainder mod c' on everything. So the states are built
already merged, by a key that equivalent states share (`_key`: the remainder mod c', and
of the 2^a·5^b part only what a continuation can still observe), and the result is
minimised (Moore's partition refinement): its size is the minimal automaton's, and that
is what `Limits.multiple_of_states` bounds (1024: 161 states — 159 classes of remainders,
the start and the integer part "0" —, 1025: 46, 7: 9).

>>> from refimpl.regex import ExprSet
>>> divisibility_automaton(1024, 0, False).size, divisibility_automaton(1025, 0, False).size
(161, 46)
>>> a = divisibility_automaton(25, 2, True)   # multipleOf 0.25
>>> [a.accepts(t) for t in ("0.75", "0.5", "0.50", "1", "0.1", "0.250", "00")]
[True, True, True, True, False, False, False]
"""
from __future__ import annotations

from decimal import Decimal
from typing import Dict, Hashable, List, NamedTuple, Optional, Tuple

from ...regex import ExprSet

#: the symbols of a number text: the digits 0-9 and "." (10)
DOT = 10


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


def split_coprime(c: int) -> Tuple[int, int, int]:
    """c = c2 · c1 with c2 = 2^a·5^b and c1 prime to 10: (c2, c1, max(a, b)), the last
    the number of final digits that decide divisibility by c2."""
    c2, c1, exponents = 1, c, []
    for p in (2, 5):
        e = 0
        while c1 % p == 0:
            c1 //= p
            c2 *= p
            e += 1
        exponents.append(e)
    return c2, c1, max(exponents)


class Automaton(NamedTuple):
    """A deterministic automaton over number texts, without its dead state: state 0
    starts; `delta[s]` maps a symbol (a digit, or DOT) to a state."""

    delta: List[Dict[int, int]]
    accepting: List[bool]

    @property
    def size(self) -> int:
        return len(self.delta)

    def accepts(self, text: str) -> bool:
        s: Optional[int] = 0
        for ch in text:
            s = self.delta[s].get(DOT if ch == "." else int(ch)) if s is not None else None
        return s is not None and self.accepting[s]


class TooLarge(Exception):
    """No regex for this divisor: the minimal automaton has more than the limit's states
    (at least `at_least`; exactly, when `exact`), or (`eliminated`) the part of it that
    state elimination must unroll has `at_least` states, more than its limit
    (`Limits.eliminated_states`)."""

    def __init__(self, at_least: int, exact: bool, eliminated: bool = False) -> None:
        super().__init__(at_least)
        self.at_least = at_least
        self.exact = exact
        self.eliminated = eliminated


def divisibility_automaton(c: int, k: int, fractions: bool, limit: Optional[int] = None) -> Automaton:
    """The minimal automaton of the texts `(0|[1-9][0-9]*)(\\.[0-9]{1,k})?` (no fraction
    unless `fractions`) whose value x satisfies x·10^k ≡ 0 (mod c).

    At most k fraction digits, as llguidance (whose automaton wants exactly k): enough for
    the canonical text of every multiple of c·10^-k, and no fraction at all when the
    divisor is an integer. TooLarge when the minimal automaton has more than `limit`
    states; the work before that answer is bounded by the limit too (the remainder mod
    c' alone needs c' states, and at most 8·limit + 16 merged states are built)."""
    c2, c1, tail = split_coprime(c)
    if limit is not None and c1 > limit:
        raise TooLarge(c1, False)
    keys: Dict[Hashable, int] = {}
    residues: List[Tuple[str, int, int]] = []  # a state's kind, remainder mod c, fraction digits
    delta: List[Dict[int, int]] = []
    accepting: List[bool] = []
    cap = None if limit is None else 8 * limit + 16

    def state(kind: str, r: int, e: int) -> Optional[int]:
        key = _key(kind, r, e, c2, c1, k, tail)
        if key is None:
            return None  # no continuation reaches a multiple: the dead state
        s = keys.get(key)
        if s is None:
            s = keys[key] = len(delta)
            if cap is not None and s >= cap:
                raise TooLarge(cap, False)
            residues.append((kind, r, e))
            delta.append({})
            accepting.append(kind in ("Z", "I", "F") and (r * 10 ** (k - e)) % c == 0)
        return s

    state("S", 0, 0)
    i = 0
    while i < len(delta):
        kind, r, e = residues[i]
        for symbol, target in _steps(kind, r, e, c, k, fractions):
            t = state(*target)
            if t is not None:
                delta[i][symbol] = t
        i += 1
    return _minimise(Automaton(delta, accepting), limit)


def _steps(kind: str, r: int, e: int, c: int, k: int, fractions: bool) -> List[Tuple[int, Tuple[str, int, int]]]:
    """The moves out of a state: (symbol, (kind, remainder, fraction digits)). Kinds: S
    (the start), Z (the integer part "0"), I (an integer part without leading zero), D
    (just after "."), F (e >= 1 fraction digits read)."""
    out: List[Tuple[int, Tuple[str, int, int]]] = []
    if kind == "S":
        out.append((0, ("Z", 0, 0)))
        out.extend((d, ("I", d % c, 0)) for d in range(1, 10))
    elif kind == "I":
        out.extend((d, ("I", (10 * r + d) % c, 0)) for d in range(10))
    elif kind == "D" or (kind == "F" and e < k):
        out.extend((d, ("F", (10 * r + d) % c, e + 1)) for d in range(10))
    if kind in ("Z", "I") and fractions:
        out.append((DOT, ("D", r, 0)))
    return out


def _key(kind: str, r: int, e: int, c2: int, c1: int, k: int, tail: int) -> Optional[Hashable]:
    """What the future of a state depends on (equal keys: equivalent states), or None for
    a state from which no multiple can be reached.

    Every continuation ends with a value X = r·10^(g+k-e) + w (w < 10^(g+k-e) the digits
    still to come, g more integer digits of an I state), and X must be ≡ 0 mod c1 and
    mod c2. Mod c1 the future depends on r mod c1 (10 is invertible). Mod c2 it depends
    on y_g = r·10^(g+k-e) mod c2 — and only through the set of w that complete it, which
    is empty unless -y_g mod c2 < 10^(g+k-e); for g >= tail, y_g = 0 whatever r."""
    if kind in ("S", "Z"):
        return kind
    if kind == "I":
        ys = []
        for g in range(tail):
            y = r * 10 ** (g + k) % c2
            ys.append(y if (-y) % c2 < 10 ** (g + k) else None)
        return ("I", r % c1, tuple(ys))
    y = r * 10 ** (k - e) % c2
    if (-y) % c2 >= 10 ** (k - e):
        return None
    return (kind, e, r % c1, y)


def _minimise(a: Automaton, limit: Optional[int]) -> Automaton:
    """The minimal automaton: states that cannot reach an accepting one dropped, then
    Moore's refinement (blocks split by their moves' blocks until nothing splits)."""
    n = a.size
    live = _co_reachable(a)
    block = [(1 if a.accepting[s] else 0) if live[s] else -1 for s in range(n)]
    while True:
        signatures: Dict[Tuple, int] = {}
        new = [-1] * n
        for s in range(n):
            if live[s]:
                sig = (block[s], tuple(sorted((x, block[t]) for x, t in a.delta[s].items() if live[t])))
                new[s] = signatures.setdefault(sig, len(signatures))
        if len(signatures) == len(set(b for b in block if b >= 0)):
            break
        block = new
    block = new
    order: Dict[int, int] = {}
    for s in range(n):  # number the blocks by first visit from the start
        if live[s] and block[s] not in order:
            order[block[s]] = len(order)
    size = len(order)
    if limit is not None and size > limit:
        raise TooLarge(size, True)
    delta: List[Dict[int, int]] = [dict() for _ in range(size)]
    accepting = [False] * size
    for s in range(n):
        if live[s]:
            b = order[block[s]]
            accepting[b] = a.accepting[s]
            delta[b] = {x: order[block[t]] for x, t in a.delta[s].items() if live[t]}
    return Automaton(delta, accepting)


def _co_reachable(a: Automaton) -> List[bool]:
    """The states from which an accepting state can be reached."""
    back: List[List[int]] = [[] for _ in range(a.size)]
    for s, moves in enumerate(a.delta):
        for t in moves.values():
            back[t].append(s)
    live = list(a.accepting)
    todo = [s for s in range(a.size) if live[s]]
    while todo:
        for s in back[todo.pop()]:
            if not live[s]:
                live[s] = True
                todo.append(s)
    return live


def multiple_regex(es: ExprSet, c: int, k: int, integer: bool, limit: Optional[int] = None,
                   eliminated: Optional[int] = None) -> int:
    """The texts `-?(0|[1-9][0-9]*)(\\.[0-9]{1,k})?` whose value x satisfies
    x·10^k ≡ 0 mod c (no fraction if `integer`, k is then 0). TooLarge when the minimal
    automaton has more than `limit` states, or the part of it that goes through state
    elimination more than `eliminated`.

    A regex by state elimination has derivatives that grow with the automaton's loops
    (the first GPT-2 mask of `multipleOf: 256` took 45 s that way). So an integer
    divisor c = c2·c' is split: divisibility by c2 = 2^a·5^b, decided by the last digits,
    is written without a loop but `[0-9]*` (`_suffix_regex`), and only the remainder mod
    c' (prime to 10) goes through state elimination; the two are intersected. With a
    fraction (k > 0) the whole minimal automaton is eliminated."""
    a = divisibility_automaton(c, k, k > 0 and not integer, limit)
    c2, c1, tail = split_coprime(c)
    looping = a if k > 0 else divisibility_automaton(c1, 0, False) if c1 > 1 or c2 == 1 else None
    if looping is not None and eliminated is not None and looping.size > eliminated:
        raise TooLarge(looping.size, True, eliminated=True)
    if k > 0:
        body = _regex_of(es, a)
    else:
        parts = [_suffix_regex(es, c2, tail)] if c2 > 1 else []
        if looping is not None:
            parts.append(_regex_of(es, looping))
        body = es.intersection(*parts) if len(parts) > 1 else parts[0]
    return es.concat(es.union(es.EPSILON, es.literal(b"-")), body)


def _regex_of(es: ExprSet, a: Automaton) -> int:
    """The language of an automaton as a regex, by state elimination."""
    return _eliminate_states(es, _edges(es, a), a.size + 1)


def _suffix_regex(es: ExprSet, c2: int, tail: int) -> int:
    """The texts `0|[1-9][0-9]*` of the multiples of c2, a divisor of 10^tail: those of
    more than `tail` digits by their last `tail` digits, the shorter ones by value.

    `block(j, r)` is the j-digit strings (leading zeros allowed) ≡ r mod c2, one
    expression per (j, r), shared: a first digit d then block(j - 1, r - d·10^(j-1)).
    After the first digit d, a rest of j < tail digits must be ≡ -d·10^j; a longer rest
    is `[0-9]*` then a block of `tail` digits ≡ 0."""
    digit = es.byte_range(0x30, 0x39)
    memo: Dict[Tuple[int, int], int] = {}
    todo = [(tail, 0)] + [(j, (-d * 10 ** j) % c2) for d in range(1, 10) for j in range(tail)]
    while todo:  # fill memo bottom-up without recursion: a pair after the pairs it uses
        j, r = todo[-1]
        if (j, r) in memo:
            todo.pop()
            continue
        if j == 0 or r >= 10 ** j:  # the values of j digits are 0 .. 10^j - 1 (and r < c2)
            memo[(j, r)] = es.EPSILON if r == 0 else es.NOTHING
            todo.pop()
            continue
        needed = [(j - 1, (r - d * 10 ** (j - 1)) % c2) for d in range(10)]
        missing = [p for p in needed if p not in memo]
        if missing:
            todo.extend(missing)
            continue
        memo[(j, r)] = es.union(*[es.concat(es.byte_set(1 << (0x30 + d)), memo[p]) for d, p in enumerate(needed)])
        todo.pop()
    long = es.concat(es.star(digit), memo[(tail, 0)])
    starts = [es.concat(es.byte_set(1 << (0x30 + d)),
                        es.union(long, *[memo[(j, (-d * 10 ** j) % c2)] for j in range(tail)]))
              for d in range(1, 10)]
    return es.union(es.literal(b"0"), *starts)


Edges = Dict[Tuple[int, int], int]
_START, _FINAL = 0, 1


def _edges(es: ExprSet, a: Automaton) -> Edges:
    """The automaton as the edges of state elimination: its state s is s + 1 (so the
    start, 0, has no edge into it), except that the start is 0, and 1 is a new final
    state reached by ε from every accepting state."""
    def num(s: int) -> int:
        return _START if s == 0 else s + 1

    edges: Edges = {}
    for s, moves in enumerate(a.delta):
        by_target: Dict[int, int] = {}
        for x, t in moves.items():
            by_target[t] = by_target.get(t, 0) | (1 << (0x2E if x == DOT else 0x30 + x))
        for t, bits in by_target.items():
            edges[(num(s), num(t))] = es.byte_set(bits)
        if a.accepting[s]:
            edges[(num(s), _FINAL)] = es.EPSILON
    return edges


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
