"""The scalar keywords of one subschema, as regexes: numbers (bounds, multipleOf) and
strings (length, pattern, format). Contradictions are recorded in the compilation's
`node_reasons`, for the message if the whole schema turns out unsatisfiable.

>>> from refimpl.frontends.jsonschema.compiler import compiler_for
>>> from refimpl.frontends.jsonschema.languages import matches
>>> c = compiler_for({"type": "string", "maxLength": 3, "pattern": "^a"})
>>> e = c.keywords.string(c.comp.subschemas.root)
>>> [matches(c.comp.es, e, s) for s in ("abc", "abcd", "ba")]
[True, False, False]
"""
from __future__ import annotations

from decimal import Decimal
from typing import Any, Dict, Optional

from ...errors import LimitError, RegexError, SchemaError
from .compilation import Compilation, Reason
from .formats import UNSUPPORTED_FORMATS, format_expr, search_expr
from .languages import intersect, literal_union
from .multiples import TooLarge
from .values import is_number, number_text, short, to_decimal


class ScalarKeywords:
    """What the number and string keywords of a node allow."""

    def __init__(self, comp: Compilation) -> None:
        self.comp = comp
        self.es = comp.es
        self.subschemas = comp.subschemas
        self.strings = comp.strings
        self.numbers = comp.numbers
        self._patterns: Dict[str, int] = {}
        self._formats: Dict[str, Optional[int]] = {}

    def _number(self, n: int, v: Dict[str, Any], key: str) -> Optional[Decimal]:
        """A number keyword of node n (schema v) as a Decimal; None if absent."""
        if key not in v:
            return None
        x = v[key]
        if not is_number(x):
            raise SchemaError("%s must be a number, got %s" % (key, short(x)), self.subschemas.pointer(n, key))
        return to_decimal(x)

    def number(self, n: int, integer_only: bool) -> int:
        """The number texts node n's own number keywords allow (bounds, multipleOf)."""
        es = self.es
        v = self.subschemas.value(n)
        lo, lo_incl = self._number(n, v, "minimum"), True
        hi, hi_incl = self._number(n, v, "maximum"), True
        for key, is_lo in (("exclusiveMinimum", True), ("exclusiveMaximum", False)):
            if key not in v:
                continue
            x = v[key]
            if isinstance(x, bool):  # draft 4: a flag on minimum / maximum
                if x:
                    if is_lo:
                        lo_incl = False
                    else:
                        hi_incl = False
                continue
            d = self._number(n, v, key)
            assert d is not None
            if is_lo and (lo is None or d >= lo):
                lo, lo_incl = d, False
            if not is_lo and (hi is None or d <= hi):
                hi, hi_incl = d, False
        result = self.numbers.number
        if lo is not None or hi is not None:
            if lo is not None and hi is not None and (lo > hi or (lo == hi and not (lo_incl and hi_incl))):
                self.comp.node_reasons.setdefault(n, Reason(
                    "%s (%s) is greater than %s (%s)" % ("minimum" if lo_incl else "exclusiveMinimum", number_text(lo),
                                                          "maximum" if hi_incl else "exclusiveMaximum", number_text(hi))
                    if lo > hi else "the interval %s%s, %s%s is empty" % (
                        "[" if lo_incl else "(", number_text(lo), number_text(hi), "]" if hi_incl else ")"),
                    self.subschemas.pointer(n)))
                return es.NOTHING
            result = self.numbers.interval(lo, lo_incl, hi, hi_incl, integer_only, self.comp.limits)
            if integer_only and result == es.NOTHING:
                self.comp.node_reasons.setdefault(n, Reason("integer interval %s%s, %s%s contains no integer values" % (
                    "[" if lo_incl else "(", number_text(lo) if lo is not None else "-inf",
                    number_text(hi) if hi is not None else "inf", "]" if hi_incl else ")"), self.subschemas.pointer(n)))
        if "multipleOf" in v:
            mult = self._multiple_of(n, v, lo, hi, integer_only)
            if mult is not None:
                result = intersect(es, result, mult, self.numbers.number)
        return result

    def _multiple_of(self, n: int, v: Dict[str, Any], lo: Optional[Decimal], hi: Optional[Decimal],
                     integer_only: bool) -> Optional[int]:
        """The number texts of the multiples of node n's `multipleOf` (within lo..hi when
        the automaton is too large and the range holds few); None: not enforced (lenient)."""
        m = self._number(n, v, "multipleOf")
        assert m is not None
        if m <= 0:
            raise SchemaError("multipleOf must be greater than 0", self.subschemas.pointer(n, "multipleOf"))
        limit, eliminated = self.comp.limits.multiple_of_states, self.comp.limits.eliminated_states
        try:
            return self.numbers.multiple_of(m, integer_only, limit, eliminated)
        except TooLarge as e:
            if lo is not None and hi is not None:
                listed = self._multiples_in(m, lo, hi, integer_only, limit)
                if listed is not None:
                    return listed
            self.comp.unsupported("multipleOf", self.subschemas.pointer(n, "multipleOf"), (
                "divisibility by %s needs a remainder automaton of %d states (minimal) turned into a regex "
                "by state elimination, more than Limits.eliminated_states = %d" % (number_text(m), e.at_least, eliminated)
                if e.eliminated else
                "divisibility by %s needs an automaton of %s%d states (minimal), more than "
                "Limits.multiple_of_states = %d" % (number_text(m), "" if e.exact else "at least ", e.at_least, limit))
                + (", and the range holds more than %d multiples" % limit if lo is not None and hi is not None else ""))
            return None

    def _multiples_in(self, m: Decimal, lo: Decimal, hi: Decimal, integer: bool, limit: int) -> Optional[int]:
        """The canonical texts of the multiples of m in [lo, hi], when there are at most
        `limit` + 1."""
        first = (lo / m).to_integral_value(rounding="ROUND_CEILING")
        last = (hi / m).to_integral_value(rounding="ROUND_FLOOR")
        if last - first > limit:
            return None
        texts = []
        k = first
        while k <= last:
            x = k * m
            if not integer or x == int(x):
                texts.append(number_text(x).encode())
            k += 1
        return literal_union(self.es, texts)

    def string(self, n: int) -> int:
        """The decoded strings node n's own string keywords allow (length, pattern,
        format)."""
        es = self.es
        limits = self.comp.limits
        v = self.subschemas.value(n)
        result = self.strings.any_string
        lo = self.subschemas.count(n, "minLength")
        hi = self.subschemas.count(n, "maxLength")
        if lo or hi is not None:
            lo = lo or 0
            if hi is not None and lo > hi:
                self.comp.node_reasons.setdefault(n, Reason("minLength (%d) is greater than maxLength (%d)" % (lo, hi),
                                                            self.subschemas.pointer(n)))
                return es.NOTHING
            for bound in (lo, hi):
                if bound is not None and bound > limits.repeat_bound:
                    raise LimitError("repeat_bound", limits.repeat_bound, "string length bound")
            result = es.repeat(self.strings.anychar, lo, hi)
        if "pattern" in v:
            pattern = v["pattern"]
            if not isinstance(pattern, str):
                raise SchemaError("pattern must be a string", self.subschemas.pointer(n, "pattern"))
            e = self.pattern(pattern, n, "pattern")
            if e is not None:
                result = intersect(es, result, e, self.strings.any_string)
        if "format" in v:
            name = v["format"]
            if not isinstance(name, str):
                raise SchemaError("format must be a string", self.subschemas.pointer(n, "format"))
            e = self.format(name)
            if e is None:
                reason = UNSUPPORTED_FORMATS.get(name, "unknown format")
                self.comp.unsupported("format", self.subschemas.pointer(n, "format"), "format '%s': %s" % (name, reason))
            else:
                result = intersect(es, result, e, self.strings.any_string)
        return result

    def pattern(self, pattern: str, n: int, keyword: str) -> Optional[int]:
        """Strings in which the ECMA-262 `pattern` matches (None: unsupported, lenient)."""
        got = self._patterns.get(pattern)
        if got is not None:
            return got
        try:
            e = search_expr(self.es, pattern, self.strings.any_string)
        except RegexError as err:
            self.comp.unsupported(keyword, self.subschemas.pointer(n, keyword), "pattern /%s/: %s" % (pattern, err.message))
            return None
        self._patterns[pattern] = e
        return e

    def format(self, name: str) -> Optional[int]:
        """The decoded strings of a format (None: not supported), built once per compile."""
        if name not in self._formats:
            self._formats[name] = format_expr(self.es, name)
        return self._formats[name]
