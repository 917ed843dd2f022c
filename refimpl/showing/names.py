"""Readable names for the rules and lexemes a frontend made, as `maskref explain` shows
them (the page and the text): the engine's own names stay as they are (tests, the
conformance suite and error messages read them); only the pictures rename.

- JSON schema: a value nonterminal is named after its schema's JSON pointer,
  `json/properties/a` → `<value at /properties/a>`, `json{}` → `<object at />`, its
  layout's states after what they hold (`json{}@2+` → `<object at / after 2 named
  properties, a comma next>`); a lexeme whose type is restricted, `string'` →
  `<constrained string>`.
- EBNF and GBNF: a helper rule the reader made for a group (`_2`, `_2*`) is named after
  the rule it comes from and its rank there: `root.1`, `root.1*` (names the readers never
  give: a rule's name has no dot).
- Every other name (Lark's, a regex's) is shown as it is.

>>> rename = namer("json_schema", [])
>>> rename("json"), rename("json{}@2+"), rename("string'")
('<value at />', '<object at / after 2 named properties, a comma next>', '<constrained string>')
>>> rename("null|number'|string'")
'<null or constrained number or constrained string>'
>>> rename("json/properties/tags@1"), rename("json[]…/items/0,*"), rename('"{"')
('<value at /properties/tags from item 1>', '<array at …/items/0: a comma and an item>', '"{"')
>>> from refimpl import Grammar
>>> g = Grammar.from_gbnf('root ::= "[" item ("," item)* "]"\\nitem ::= [a-z]+ | "(" root ")"')
>>> rename = namer(g.kind, g.ir.rules, g.ir.names)
>>> [(n, rename(n)) for n in g.ir.names]
[('root', 'root'), ('item', 'item'), ('_2*', 'root.1*')]
"""
from __future__ import annotations

import re
import weakref
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence

from ..grammar.ir import Rule

if TYPE_CHECKING:
    from ..frontends.grammar import Grammar

# -- JSON schema (the names of frontends/jsonschema: nonterminals.py, objects.py, arrays.py) --

_JSON = re.compile(r"json(\[\]|\{\})?(#\d+)?(.*?)((?:@\d+(?:\+|\[[\d, ]*\])?|,\*|:\*|\^|[?*+'])*)$", re.S)
_STATE = re.compile(r"@(\d+)(\+|\[[\d, ]*\])?|,\*|:\*|\^|[?*+']")
_TYPES = {"string'": "constrained string", "number'": "constrained number", "key'": "constrained property name"}
_KINDS = {None: "value", "[]": "array", "{}": "object"}


def _json_name(name: str) -> str:
    if name in _TYPES or ("|" in name and all(p in _TYPES or p.isalpha() for p in name.split("|"))):
        return "<%s>" % " or ".join(_TYPES.get(p, p) for p in name.split("|"))
    m = _JSON.match(name)
    if m is None:
        return name
    brackets, alternative, pointers, states = m.groups()
    kind = _KINDS[brackets]
    if pointers == "(any)":
        out = "any " + kind
    elif "/" in pointers or pointers == "":
        out = "%s at %s" % (kind, " and ".join(("not " + p[1:] if p.startswith("!") else p) or "/"
                                               for p in pointers.split("&")))
    else:
        return name
    if alternative:
        out += " (alternative %s)" % alternative[1:]
    prime = ""
    for s in _STATE.finditer(states):
        whole, k, more = s.group(0), s.group(1), s.group(2)
        if k is not None:  # a layout's state: the named properties passed, or the items read
            out += (" after %s named %s" % (k, "property" if k == "1" else "properties") if brackets == "{}"
                    else " from item %s" % k)
            if more == "+":
                out += ", a comma next"
            elif more:
                out += ", counts %s" % more
        elif whole == ",*":
            out += ": a comma and an%s" % (" item" if brackets != "{}" else "other member")
        elif whole == ":*":
            out += ": another member"
        elif whole == "^":
            out += " (a copy)"
        else:  # a repetition's suffix, or the augmented start's prime
            prime += whole
    return "<%s>%s" % (out, prime)


# -- EBNF and GBNF (frontends/ebnf/compiler.py names its helpers _N) --------------------------

_HELPER = re.compile(r"(_\d+)(.*)$", re.S)


def _helper_names(rules: Sequence[Rule], names: Sequence[str]) -> Dict[str, str]:
    """Each helper's base name (`_2`) to `rule.k`: the rule it comes from (through other
    helpers) and its rank among that rule's helpers (in the order the reader made them)."""
    uses: Dict[str, List[str]] = {}  # a base name -> the names of the rules using it
    for lhs, rhs in rules:
        for sym in rhs:
            if 0 <= sym < len(names):  # a nonterminal (lexemes are negative)
                h = _HELPER.match(names[sym])
                if h is not None:
                    uses.setdefault(h.group(1), []).append(names[lhs])
    owner: Dict[str, str] = {}

    def find(base: str, seen: frozenset) -> Optional[str]:
        if base in owner:
            return owner[base]
        for user in uses.get(base, ()):
            h = _HELPER.match(user)
            if h is None:
                return user.rstrip("'")
            if h.group(1) not in seen:
                got = find(h.group(1), seen | {base})
                if got is not None:
                    return got
        return None

    ranks: Dict[str, int] = {}
    out: Dict[str, str] = {}
    for base in sorted(uses, key=lambda b: int(b[1:])):
        rule = find(base, frozenset())
        if rule is not None:
            owner[base] = rule
            ranks[rule] = ranks.get(rule, 0) + 1
            out[base] = "%s.%d" % (rule, ranks[rule])
    return out


def namer(kind: str, rules: Sequence[Rule], names: Sequence[str] = ()) -> Callable[[str], str]:
    """The display name of each name a grammar of `kind` uses (its rules, `rules` over the
    nonterminals `names`, tell an EBNF helper's rule)."""
    if kind == "json_schema":
        return _json_name
    if kind in ("gbnf", "ebnf"):
        helpers = _helper_names(rules, names)

        def ebnf(name: str) -> str:
            h = _HELPER.match(name)
            return helpers.get(h.group(1), h.group(1)) + h.group(2) if h is not None else name

        return ebnf
    return str


_OF: "weakref.WeakKeyDictionary[Grammar, Callable[[str], str]]" = weakref.WeakKeyDictionary()


def of(grammar: "Grammar") -> Callable[[str], str]:
    """`namer` for a grammar (made once per grammar)."""
    got = _OF.get(grammar)
    if got is None:
        got = _OF[grammar] = namer(grammar.kind, grammar.ir.rules, grammar.ir.names)
    return got
