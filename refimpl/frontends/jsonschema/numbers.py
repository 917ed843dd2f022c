"""JSON numbers as regular expressions, kept exact by an invariant: every number regex
accepts only texts whose value satisfies the schema, and always the canonical text of
every such value (`-?(0|[1-9][0-9]*)` for integers; the shortest plain decimal
otherwise). Bounds compile to digit-by-digit regexes; `multipleOf` to a divisibility
automaton (multiples.py)."""
from __future__ import annotations

from decimal import Decimal
from typing import Dict, Optional, Tuple, Union

from ...errors import LimitError
from ...limits import Limits
from ...regex import ExprSet, compile_pattern
from .multiples import TooLarge, coefficient, gcd, multiple_regex


class Numbers:
    """The regular expressions of JSON numbers, for one ExprSet: `number` (every number
    text), `integer`, `canonical` (the one canonical text of each value), and the texts
    of the values in an interval or multiples of a number."""

    def __init__(self, es: ExprSet) -> None:
        self.es = es
        c = compile_pattern
        self.digit = es.byte_range(0x30, 0x39)
        self.digits = es.star(self.digit)
        self.nonzero = es.byte_range(0x31, 0x39)
        self.uint = c(es, "0|[1-9][0-9]*")
        self.integer = c(es, "-?(?:0|[1-9][0-9]*)")
        self.opt_frac = c(es, r"(?:\.[0-9]+)?")
        self.decimal = c(es, r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")
        self.number = c(es, r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
        self.canonical = c(es, r"0|-?[1-9][0-9]*|-?(?:0|[1-9][0-9]*)\.[0-9]*[1-9]")
        self._multiples: Dict[Tuple[int, int, bool], Union[int, TooLarge]] = {}

    def lit(self, s: str) -> int:
        return self.es.literal(s.encode())

    def digit_range(self, lo: int, hi: int) -> int:
        return self.es.byte_range(0x30 + lo, 0x30 + hi) if lo <= hi else self.es.NOTHING

    def _same_length(self, s: str, greater: bool) -> int:
        """Digit strings of len(s) that are >= s (greater) or <= s, lexicographically.

        Built from the last digit back, each position sharing the expression of the
        positions after it: w >= s iff w[0] > s[0] (then any digits), or w[0] == s[0]
        and w[1:] >= s[1:]. O(len(s)) nodes — a bound of 309 digits (a double's maximum,
        1.79769e308, in SchemaStore's venvironment schemas) made the flat union of
        prefixes O(len(s)^2), and every length of an interval O(len^3).
        """
        es = self.es
        n = len(s)
        acc = es.EPSILON
        for i in range(n - 1, -1, -1):
            d = int(s[i])
            rng = self.digit_range(d + 1, 9) if greater else self.digit_range(0, d - 1)
            here = es.concat(self.lit(s[i]), acc)
            if rng != es.NOTHING:
                here = es.union(here, es.concat(rng, es.repeat(self.digit, n - i - 1, n - i - 1)))
            acc = here
        return acc

    def _between_same_length(self, lo: str, hi: str) -> int:
        """Digit strings w with len(w) == len(lo) == len(hi) and lo <= w <= hi."""
        es = self.es
        n = len(lo)
        i = 0
        while i < n and lo[i] == hi[i]:
            i += 1
        if i == n:
            return self.lit(lo)
        rest = n - i - 1
        a, b = int(lo[i]), int(hi[i])
        return es.concat(self.lit(lo[:i]), es.union(
            es.concat(self.lit(lo[i]), self._same_length(lo[i + 1:], True)),
            es.concat(self.digit_range(a + 1, b - 1), es.repeat(self.digit, rest, rest)),
            es.concat(self.lit(hi[i]), self._same_length(hi[i + 1:], False)),
        ))

    def uint_range(self, lo: int, hi: Optional[int], limits: Limits) -> int:
        """Canonical texts (no leading zeros) of the integers lo..hi (hi None: unbounded)."""
        es = self.es
        if lo < 0:
            lo = 0
        if hi is not None and hi < lo:
            return es.NOTHING
        alts = []
        if lo == 0:
            alts.append(self.lit("0"))
            lo = 1
            if hi is not None and hi < 1:
                return alts[0]
        low_len = len(str(lo))
        high_len = len(str(hi)) if hi is not None else low_len
        if high_len > limits.repeat_bound:
            raise LimitError("repeat_bound", limits.repeat_bound, "digits of a numeric bound")
        full = []  # lengths whose every number is in the range: one `[1-9][0-9]{k,m}`
        for n in range(low_len, high_len + 1):
            a = max(lo, 10 ** (n - 1))
            b = 10 ** n - 1 if hi is None else min(hi, 10 ** n - 1)
            if a == 10 ** (n - 1) and b == 10 ** n - 1:
                full.append(n)
            elif a <= b:
                alts.append(self._between_same_length(str(a), str(b)))
        if full:
            alts.append(es.concat(self.nonzero, es.repeat(self.digit, full[0] - 1, full[-1] - 1)))
        if hi is None:
            alts.append(es.concat(self.nonzero, es.repeat(self.digit, low_len, None)))
        return es.union(*alts)

    def _frac_at_least(self, f: str, inclusive: bool) -> int:
        """Fraction parts (ε or `.digits`) whose value is >= 0.f (> if not inclusive)."""
        es = self.es
        dot = self.lit(".")
        if not f:
            if inclusive:
                return self.opt_frac
            return es.concat(dot, self.digits, self.nonzero, self.digits)
        alts = []
        for i, ch in enumerate(f):
            d = int(ch)
            if d < 9:
                alts.append(es.concat(self.lit(f[:i]), self.digit_range(d + 1, 9), self.digits))
        tail = self.digits if inclusive else es.concat(self.digits, self.nonzero, self.digits)
        alts.append(es.concat(self.lit(f), tail))
        return es.concat(dot, es.union(*alts))

    def _frac_at_most(self, g: str, inclusive: bool) -> int:
        """Fraction parts (ε or `.digits`) whose value is <= 0.g (< if not inclusive)."""
        es = self.es
        dot = self.lit(".")
        zeros = es.plus(self.lit("0"))
        if not g:
            return es.union(es.EPSILON, es.concat(dot, zeros)) if inclusive else es.NOTHING
        alts = []
        for i, ch in enumerate(g):
            d = int(ch)
            if d > 0:
                alts.append(es.concat(self.lit(g[:i]), self.digit_range(0, d - 1), self.digits))
        for k in range(1, len(g)):
            alts.append(self.lit(g[:k]))
        if inclusive:
            alts.append(es.concat(self.lit(g), es.star(self.lit("0"))))
        return es.union(es.EPSILON, es.concat(dot, es.union(*alts)))

    def _nonnegative(self, lo: Decimal, lo_incl: bool, hi: Optional[Decimal], hi_incl: bool,
                     integer: bool, limits: Limits) -> int:
        """Texts without sign of the values v >= 0 with lo <(=) v <(=) hi."""
        es = self.es
        if integer:
            a = int(lo) if lo == int(lo) and lo_incl else int(lo) + 1
            if hi is None:
                return self.uint_range(a, None, limits)
            b = int(hi) if hi == int(hi) and not hi_incl else int(hi) + 1
            return self.uint_range(a, b - 1, limits)
        A, f = split_decimal(lo)
        if hi is None:
            return es.union(es.concat(self.lit(str(A)), self._frac_at_least(f, lo_incl)),
                            es.concat(self.uint_range(A + 1, None, limits), self.opt_frac))
        B, g = split_decimal(hi)
        if A == B:
            return es.concat(self.lit(str(A)), es.intersection(self._frac_at_least(f, lo_incl),
                                                               self._frac_at_most(g, hi_incl)))
        return es.union(
            es.concat(self.lit(str(A)), self._frac_at_least(f, lo_incl)),
            es.concat(self.uint_range(A + 1, B - 1, limits), self.opt_frac),
            es.concat(self.lit(str(B)), self._frac_at_most(g, hi_incl)),
        )

    def interval(self, lo: Optional[Decimal], lo_incl: bool, hi: Optional[Decimal], hi_incl: bool,
                 integer: bool, limits: Limits) -> int:
        """Plain decimal texts (integers only if `integer`) of the values in the interval.

        Every text of such a value is accepted (`1.50` as well as `1.5`); values are
        compared exactly (Decimal). `-0` (value 0) is accepted only where llguidance's
        range regexes accept it: integers with lo < 0 <= hi.
        """
        es = self.es
        if integer:  # integer bounds, inclusive (as llguidance normalizes them)
            if lo is not None:
                lo, lo_incl = Decimal(ceil(lo) + (1 if not lo_incl and lo == ceil(lo) else 0)), True
            if hi is not None:
                hi, hi_incl = Decimal(floor(hi) - (1 if not hi_incl and hi == floor(hi) else 0)), True
        if lo is not None and hi is not None and (lo > hi or (lo == hi and not (lo_incl and hi_incl))):
            return es.NOTHING
        parts = []
        if hi is None or hi > 0 or (hi == 0 and hi_incl):
            if lo is None or lo < 0:
                parts.append(self._nonnegative(Decimal(0), True, hi, hi_incl, integer, limits))
            else:
                parts.append(self._nonnegative(lo, lo_incl, hi, hi_incl, integer, limits))
        if lo is None or lo < 0:
            if hi is not None and hi < 0:
                nlo, nlo_incl = -hi, hi_incl
            else:  # -0 only for integer ranges [lo, hi] with lo < 0 <= hi (as llguidance)
                nlo, nlo_incl = Decimal(0), integer and lo is not None and hi is not None
            nhi = None if lo is None else -lo
            parts.append(es.concat(self.lit("-"), self._nonnegative(nlo, nlo_incl, nhi, lo_incl, integer, limits)))
        return es.union(*parts)

    def multiple_of(self, m: Decimal, integer: bool, max_states: int, max_eliminated: int) -> int:
        """Plain decimal texts whose value is a multiple of m > 0, with at most as many
        fraction digits as m has (integers only if `integer`). Raises TooLarge when the
        minimal divisibility automaton has more than `max_states` states, or its part
        converted to a regex by state elimination more than `max_eliminated`
        (multiples.py)."""
        c, k = coefficient(m)
        if integer:  # multiples of m among the integers: multiples of lcm(m, 1)
            c = c // gcd(c, 10 ** k)
            k = 0
        key = (c, k, integer)
        got = self._multiples.get(key)
        if got is None:  # one divisor in many places (a font weight: 0.7 s each before)
            try:
                got = multiple_regex(self.es, c, k, integer, max_states, max_eliminated)
            except TooLarge as e:
                got = e
            self._multiples[key] = got
        if isinstance(got, TooLarge):
            raise got
        return got



def floor(d: Decimal) -> int:
    return int(d.to_integral_value(rounding="ROUND_FLOOR"))


def ceil(d: Decimal) -> int:
    return int(d.to_integral_value(rounding="ROUND_CEILING"))


def split_decimal(d: Decimal) -> Tuple[int, str]:
    """A non-negative decimal as (integer part, fraction digits without trailing 0s)."""
    i = int(d)
    frac = d - i
    if frac == 0:
        return i, ""
    s = format(frac.normalize(), "f")  # "0.0125"
    return i, s.split(".")[1].rstrip("0")
