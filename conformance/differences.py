"""Known differences: what an engine declares about where it differs from refimpl, and
how a divergence is classified by them.

A known difference is a name, a kind — `semantic` (a documented difference of meaning)
or `peer-bug` (a bug of the peer, reported in docs/findings.md) —, a description, and a
predicate that recognises it in a Divergence. An engine's differences are a
`KnownDifferences` list, filled by declaring each over its predicate:

    KNOWN_DIFFERENCES = KnownDifferences(AFTER_EOS)

    @KNOWN_DIFFERENCES.declare("empty-token", "semantic", "the peer allows empty tokens")
    def empty_token(d: Divergence) -> bool:
        return all_differing(d, lambda data: data == b"")

`classify` tries them in the list's order (the order of declaration), so where two
could explain one divergence, the first declared is the one reported. Also here: the
predicates' common building blocks (`all_differing`, `answers_as`) and the one
difference several peers share (`AFTER_EOS`).

>>> from conformance.vectors import GrammarSpec, load_builtin
>>> d = Divergence(GrammarSpec("regex", "a"), load_builtin("bytes"), [97, 256], 2, [256], [])
>>> classify(KnownDifferences(AFTER_EOS), d).name
'after-eos'
"""
from __future__ import annotations

import re
from typing import Callable, Dict, List, Optional, Sequence, TypeVar

from refimpl import Grammar

from .divergence import Divergence

Predicate = Callable[[Divergence], bool]
P = TypeVar("P", bound=Predicate)


class KnownDifference:
    """A declared difference: a name, whether it is a semantic choice or a reported bug
    of the peer, what it is, and a predicate over a Divergence. With `ends_path`, the
    comparison of a path stops at the first mask it explains: the two engines may have
    read the text so far differently, so later masks are not comparable.

    A peer bug also says why it is one, for the bug report that can be filed upstream
    (conformance/bugreport.py): `cites`, where the semantics it breaks are written (the
    JSON Schema or JSON specification's section, the peer's own documentation or grammar
    format, by URL); and `fixed_in`, the first version of the peer in which it is fixed
    ("" while it is not)."""

    def __init__(self, name: str, kind: str, description: str, applies: Predicate, ends_path: bool = False,
                 cites: str = "", fixed_in: str = "") -> None:
        assert kind in ("semantic", "peer-bug")
        self.name = name
        self.kind = kind
        self.description = description
        self.applies = applies
        self.ends_path = ends_path
        self.cites = cites
        self.fixed_in = fixed_in

    def __repr__(self) -> str:
        return "KnownDifference(%r, %s)" % (self.name, self.kind)


class KnownDifferences(List[KnownDifference]):
    """One engine's known differences, in the order `classify` tries them."""

    def __init__(self, *differences: KnownDifference) -> None:
        super().__init__(differences)

    def declare(self, name: str, kind: str, description: str, ends_path: bool = False, cites: str = "",
                fixed_in: str = "") -> Callable[[P], P]:
        """A decorator: the predicate it decorates recognises the known difference `name`,
        which is appended to this list (see KnownDifference); the predicate itself is
        returned unchanged."""
        assert all(k.name != name for k in self), "%s declared twice" % name

        def declared(applies: P) -> P:
            self.append(KnownDifference(name, kind, description, applies, ends_path, cites, fixed_in))
            return applies
        return declared

    def replacing(self, predicates: Dict[Predicate, Predicate]) -> "KnownDifferences":
        """A copy of this list in which each difference whose predicate is a key of
        `predicates` has the value as its predicate: for a configuration of the engine,
        whose predicates must read a vector as that configuration reads it."""
        return KnownDifferences(*(KnownDifference(k.name, k.kind, k.description, predicates[k.applies], k.ends_path)
                                  if k.applies in predicates else k for k in self))

    def named(self, name: str) -> KnownDifference:
        """The difference called `name` (KeyError if none)."""
        for k in self:
            if k.name == name:
                return k
        raise KeyError(name)


def classify(differences: Sequence[KnownDifference], d: Divergence) -> Optional[KnownDifference]:
    """The known difference that explains d, or None. When none explains the whole
    divergence, every differing token may be explained by its own (a mask can differ
    for two documented reasons at once); the first of them is returned."""
    k = _explain(differences, d)
    if k is not None or d.error is not None or d.refused is not None:
        return k
    first = None
    for which, ids in (("engine", d.only_engine), ("refimpl", d.only_refimpl)):
        for t in ids:
            k = _explain(differences, d.single(which, t))
            if k is None:
                return None
            first = first or k
    return first


def _explain(differences: Sequence[KnownDifference], d: Divergence) -> Optional[KnownDifference]:
    for k in differences:
        try:
            if k.applies(d):
                return k
        except Exception:  # a predicate must never hide a disagreement by crashing
            continue
    return None


# -- the building blocks of predicates -------------------------------------------------------


def all_differing(d: Divergence, pred: Callable[[bytes], bool]) -> bool:
    """Is the divergence a mask difference whose every differing token's bytes satisfy pred?"""
    ids = d.differing()
    return bool(ids) and d.error is None and d.refused is None and all(pred(d.vocab.tokens[t]) for t in ids)


def answers_as(d: Divergence, grammar: Grammar) -> bool:
    """Is the divergence a mask difference on which the peer answers, token by token, as
    refimpl does on `grammar` (the peer's own reading of the vector)? Every token only the
    peer allows is allowed there, and no token only refimpl allows; EOS where that grammar
    accepts the text so far."""
    if d.error is not None or d.refused is not None or d.after_eos or not d.differing():
        return False
    r = d.read_by(grammar)  # the prefix read once; each token is read after it, then undone

    def allowed(t: int) -> bool:
        if r is None:
            return False
        if t in d.vocab.eos_token_ids:
            return r.is_accepting()
        data, before = d.vocab.tokens[t], r.bytes_consumed
        if not data or not r.consume_bytes(data):
            return False
        r.rollback(r.bytes_consumed - before)
        return True

    return all(allowed(t) for t in d.only_engine) and not any(allowed(t) for t in d.only_refimpl)


# -- a difference several peers share --------------------------------------------------------


def only_eos_after_eos(d: Divergence) -> bool:
    """After EOS the peer's mask holds EOS only; refimpl's is empty."""
    eos = set(d.vocab.eos_token_ids)
    return d.after_eos and not d.only_refimpl and bool(d.only_engine) and set(d.only_engine) <= eos


AFTER_EOS = KnownDifference(
    "after-eos", "semantic",
    "after EOS has been consumed the peer keeps allowing EOS (its matcher is 'stopped'); "
    "maskref's mask after EOS is empty",
    only_eos_after_eos,
)


# -- error vectors: grammars refimpl refuses that a peer reads ------------------------------

#: the error of a divergence in which the engine took a grammar refimpl refuses (an error
#: vector's: runner.check_vector), followed by refimpl's error (`SchemaError (pointer /x)`)
ACCEPTS_REFUSED = "accepts a grammar refimpl refuses"


def accepted_refused(d: Divergence) -> Optional[str]:
    """refimpl's error (as shown) where the divergence is an engine accepting a grammar
    refimpl refuses, else None."""
    if d.error is None or not d.error.startswith(ACCEPTS_REFUSED + ": "):
        return None
    return d.error[len(ACCEPTS_REFUSED) + 2:]


#: the JSON-schema keywords whose value JSON Schema restricts (a non-negative integer, a
#: number, a positive number, an array, a non-empty array, a schema, a string)
VALUE_KEYWORDS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minimum",
                  "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "required", "enum", "allOf",
                  "anyOf", "oneOf", "additionalProperties", "items", "pattern")
#: ... and those whose value maps names to restricted values (a list of names or a schema)
NAMED_VALUE_KEYWORDS = ("dependencies",)


def keyword_value_refused(d: Divergence) -> bool:
    """Did the engine read a JSON schema that refimpl refuses for the value of one of
    VALUE_KEYWORDS (its SchemaError's pointer ends at that keyword), or for a named value
    of one of NAMED_VALUE_KEYWORDS (the pointer ends at the keyword and a name)?

    >>> from conformance.vectors import GrammarSpec, load_builtin
    >>> spec = GrammarSpec("json_schema", schema={"type": "string", "minLength": -1})
    >>> d = Divergence(spec, load_builtin("bytes"), [], 0, [], [], error=ACCEPTS_REFUSED + ": SchemaError (pointer /minLength)")
    >>> keyword_value_refused(d)
    True
    """
    shown = accepted_refused(d)
    m = re.match(r"SchemaError \(pointer (\S*)\)$", shown or "")
    if d.grammar.kind != "json_schema" or m is None:
        return False
    parts = m.group(1).split("/")
    return parts[-1] in VALUE_KEYWORDS or (len(parts) > 2 and parts[-2] in NAMED_VALUE_KEYWORDS)


LENIENT_SCHEMA = KnownDifference(
    "lenient-schema-values", "semantic",
    "the peer reads a JSON schema in which a keyword has a value JSON Schema does not allow (a "
    "negative minLength, a string for maxItems or minimum, multipleOf 0, an empty allOf, a "
    "dependencies value that is neither a list nor a schema, ...), "
    "ignoring the keyword or reading it as it can; refimpl refuses the schema (SchemaError at the "
    "keyword: the invalid group's error vectors)",
    keyword_value_refused,
)
