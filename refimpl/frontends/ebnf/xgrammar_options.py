"""xgrammar's rule options, `name[lazy, max_chars=N, capture="x", temperature=0.7] ::= ...`
(cpp/grammar_parser.cc, the attribute block; docs/defining_structures/ebnf_grammar.md).

Read as xgrammar reads them: a comma-separated list, each option at most once, between the
name and `::=`; integers of one to ten decimal digits; strings without `\\\\` or a line
break. What they mean in maskref:

* `lazy`: the rule commits to its earliest completion, so its language is the shortest
  matches of its body, L ∖ L·Σ⁺ (`Shortest`). xgrammar takes it on a *terminal-like* body
  only; maskref on any regular body (no recursion, no token), a superset, and refuses
  the others with xgrammar's words.
* `max_chars=N`: the docs' earliest-valid-boundary rule. An occurrence may not read
  another code point once it has read N, if it can end there; if it cannot, it goes on to
  its first possible end. So the language is L ∖ (L ∩ Σ^{≥N})·Σ⁺: the body's strings with
  no proper prefix of at least N code points in L. Taken on a regular body, and not nested
  in another `max_chars` rule (xgrammar then counts the smallest active budget, which
  depends on where the inner occurrence starts); other bodies are refused.
* `max_tokens=N`: a token budget xgrammar's way (a `Budget` node, one lexeme with a relaxed
  budget: once N tokens have given it bytes it ends at the first token boundary where it
  can; docs/ebnf.md). Taken on a regular body.
* `capture`, `capture="name"`, `temperature=T`, `stop_capture="name"` and the round-trip
  options `capture_hidden_suffix_bytes`, `capture_hidden_stop_bytes`,
  `capture_hidden_body_rule_id`, `capture_hidden_marker_rule_id` are checked as xgrammar
  checks them and change nothing in the language.

>>> from refimpl.frontends.ebnf.reader import Reader
>>> r = Reader('x[lazy, capture, temperature=0.5] ::= "a"')
>>> r.pos = 1
>>> opts = read_options(r, "x")
>>> opts.lazy, opts.capture, opts.temperature, r.text[r.pos:]
(True, 'x', 0.5, ' ::= "a"')
"""
from __future__ import annotations

import math
import re
from typing import Dict, Optional, Set

from ...errors import GrammarError
from .ast import Budget, Node, Ref, Shortest, children
from .reader import Reader

_INT_OPTIONS = ("max_tokens", "max_chars", "capture_hidden_suffix_bytes", "capture_hidden_stop_bytes",
                "capture_hidden_body_rule_id", "capture_hidden_marker_rule_id")
#: in xgrammar's order of trial: a keyword is matched as a prefix, so `capture` comes last
_KEYWORDS = _INT_OPTIONS + ("stop_capture", "capture", "lazy", "temperature")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INT32_MAX = 2 ** 31 - 1
_FLOAT_MAX = 3.4028234663852886e38


class RuleOptions:
    """The options of one rule, as written (None: not given)."""

    def __init__(self, offset: int) -> None:
        self.offset = offset
        self.values: Dict[str, object] = {}

    @property
    def lazy(self) -> bool:
        return "lazy" in self.values

    @property
    def capture(self) -> Optional[str]:
        return self.values.get("capture")  # type: ignore[return-value]

    @property
    def temperature(self) -> Optional[float]:
        return self.values.get("temperature")  # type: ignore[return-value]

    @property
    def max_chars(self) -> Optional[int]:
        return self.values.get("max_chars")  # type: ignore[return-value]

    def metadata(self) -> Dict[str, object]:
        """What does not change masks (as the Lark frontend keeps it): temperature and
        capture names."""
        return {k: self.values[k] for k in ("temperature", "capture", "stop_capture") if k in self.values}


def _blanks(reader: Reader) -> None:
    while reader.peek() in (" ", "\t") and reader.peek():
        reader.pos += 1


def _equals(reader: Reader, keyword: str) -> None:
    _blanks(reader)
    if reader.peek() != "=":
        raise reader.error("Expect = after the rule option %s" % keyword)
    reader.pos += 1
    _blanks(reader)


def _value(reader: Reader, keyword: str, name: str) -> object:
    """The value of the option `keyword` (just read) of the rule `name`."""
    text = reader.text
    if keyword in _INT_OPTIONS:
        _equals(reader, keyword)
        m = re.compile(r"[0-9]{1,10}(?![0-9])").match(text, reader.pos)
        if not m:
            raise reader.error("Expect an integer of at most 10 digits for the rule option %s" % keyword)
        reader.pos = m.end()
        return int(m.group())
    if keyword == "temperature":
        _equals(reader, keyword)
        run = re.compile(r"[0-9.eE+\-]*").match(text, reader.pos).group()  # type: ignore[union-attr]
        m = _FLOAT.match(run)  # C++ std::stod reads the longest number it can
        if not run or not m:
            raise reader.error("Expect a number for the rule option temperature")
        reader.pos += len(run)
        return float(m.group())
    if keyword in ("capture", "stop_capture"):
        _blanks(reader)
        if keyword == "capture" and reader.peek() != "=":
            return name
        _equals(reader, keyword)
        m = re.compile(r'"([^"\\\r\n]*)"').match(text, reader.pos)
        if not m:
            raise reader.error('Expect a string "..." without \\ or a line break for the rule option %s' % keyword)
        reader.pos = m.end()
        return m.group(1)
    return True


def read_options(reader: Reader, name: str) -> RuleOptions:
    """The option list at reader.pos == '[' (after it: blanks, then `::=`)."""
    opts = RuleOptions(reader.pos)
    reader.pos += 1
    while True:
        _blanks(reader)
        keyword = next((k for k in _KEYWORDS if reader.text.startswith(k, reader.pos)), None)
        if keyword is None:
            raise reader.error("Expect a rule option (%s)" % ", ".join(sorted(_KEYWORDS)))
        if keyword in opts.values:
            raise reader.error("The rule option %s is given twice" % keyword)
        opts.values["at:" + keyword] = reader.pos
        reader.pos += len(keyword)
        opts.values[keyword] = _value(reader, keyword, name)
        _blanks(reader)
        if reader.peek() == ",":
            reader.pos += 1
            continue
        if reader.peek() != "]":
            raise reader.error("Expect , or ] in the rule options")
        reader.pos += 1
        break
    _check(reader, opts)
    return opts


def _check(reader: Reader, opts: RuleOptions) -> None:
    """xgrammar's checks of the values, at the option list."""
    v, at = opts.values, opts.offset
    if v.get("capture") == "":
        raise reader.error("The capture name must not be empty", at)
    if v.get("stop_capture") == "":
        raise reader.error("The stop capture name must not be empty", at)
    if ("capture_hidden_body_rule_id" in v) != ("capture_hidden_marker_rule_id" in v):
        raise reader.error("The capture-hidden body and marker rule ids must be specified together", at)
    if any(v.get(k) == 0 for k in ("capture_hidden_suffix_bytes", "capture_hidden_stop_bytes")):
        raise reader.error("The number of capture-hidden bytes must be positive", at)
    if any(k != "max_tokens" and isinstance(v.get(k), int) and v[k] > _INT32_MAX for k in _INT_OPTIONS):  # type: ignore
        raise reader.error("The rule attribute value is too large", at)
    t = opts.temperature
    if t is not None and not (math.isfinite(t) and 0 <= t <= _FLOAT_MAX):
        raise reader.error("The temperature must be a finite non-negative number", at)


def apply_options(rules: Dict[str, Node], options: Dict[str, RuleOptions], regular: Set[str],
                  text: str) -> None:
    """Rewrite the bodies of the rules with `lazy`, `max_chars` or `max_tokens` (in place)."""
    budgeted = {name for name, o in options.items() if o.max_chars is not None}
    for name, opts in options.items():
        v = opts.values
        keywords = [k for k in ("lazy", "max_chars", "max_tokens") if k in v]
        if not keywords:
            continue
        at = v["at:" + keywords[0]]
        assert isinstance(at, int)
        if name not in regular:
            raise GrammarError(
                "lazy rule '%s' must have a terminal-like body (maskref: a regular one, with no recursion and no "
                "token)" % name if keywords[0] == "lazy" else
                "not supported yet: %s on rule '%s', whose body is not regular (recursion or a token)"
                % (keywords[0], name), text, at)
        body = rules[name]
        inner = _reached(body, rules) & budgeted
        if "max_chars" in v and inner:
            raise GrammarError("not supported yet: max_chars on rule '%s' around the max_chars rule '%s' "
                               "(nested character budgets)" % (name, sorted(inner)[0]), text, at)
        if "lazy" in v:
            body = Shortest(body.offset, body)
        if "max_chars" in v or "max_tokens" in v:
            body = Budget(body.offset, body, opts.max_chars, v.get("max_tokens"))  # type: ignore[arg-type]
        rules[name] = body


def _reached(body: Node, rules: Dict[str, Node]) -> Set[str]:
    """The rules a (regular) body references, transitively."""
    seen: Set[str] = set()
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, Ref) and node.name not in seen:
            seen.add(node.name)
            stack.append(rules[node.name])
        stack.extend(children(node))
    return seen
