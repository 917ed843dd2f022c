"""The state one compilation shares, and the records its components pass one another.

A `Compilation` is the context every component of the compiler receives (compiler.py
makes them, each with the components it calls): the GrammarIR being built, with its
ExprSet and limits; the schema's subschemas; the options; the regexes of JSON strings
and numbers; what lenient mode skipped; and why parts of the schema allow nothing, kept
for the message if the whole schema does (unsatisfiable.py). What only one component
reads — its memo tables — is that component's own.

>>> from refimpl.grammar.ir import GrammarIR
>>> from refimpl.frontends.jsonschema.options import DEFAULT_OPTIONS
>>> from refimpl.frontends.jsonschema.subschemas import Subschemas
>>> comp = Compilation(GrammarIR(), Subschemas({"type": "string"}), dict(DEFAULT_OPTIONS, lenient=True), 0)
>>> comp.unsupported("format", "/format", "format 'idn-email': not supported")
>>> [str(k) for k in comp.ignored]
["format at /format: format 'idn-email': not supported"]
"""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Set, Tuple

from ...errors import SchemaError
from ...grammar.ir import GrammarIR
from .numbers import Numbers
from .options import IgnoredKeyword
from .strings import Strings
from .subschemas import Subschemas


class Atom(NamedTuple):
    """One subschema that applies to a value: its node, whether it is negated (`not`),
    and the unevaluated-scope (the nodes whose unevaluatedItems/Properties see it)."""

    node: int
    negated: bool
    scope: Tuple[int, ...]


class Reason(NamedTuple):
    """Why part of a schema allows nothing, and where (a JSON pointer)."""

    message: str
    pointer: str


class RequiredMember(NamedTuple):
    """A required property of an object nonterminal: its name, the nonterminal of its
    value, and the node to blame if that value is unsatisfiable."""

    name: str
    value_nt: int
    where: int


class Unsupported(Exception):
    """A keyword that cannot be enforced exactly (raised inside; reported by the caller)."""

    def __init__(self, keyword: str, pointer: str, reason: str) -> None:
        super().__init__(reason)
        self.keyword, self.pointer, self.reason = keyword, pointer, reason


class Compilation:
    """The shared state of compiling one schema into `ir` (the JSON's lexemes in class
    `lexeme_class`)."""

    def __init__(self, ir: GrammarIR, subschemas: Subschemas, options: Dict[str, Any], lexeme_class: int) -> None:
        self.ir = ir
        self.es = ir.es
        self.limits = ir.limits
        self.subschemas = subschemas
        self.options = options
        self.lenient = bool(options["lenient"])
        self.lexeme_class = lexeme_class
        self.strings = Strings(self.es, options["json_allowed_escapes"])
        self.numbers = Numbers(self.es)
        #: what lenient mode (or coerce_one_of) skipped, each keyword and pointer once
        self.ignored: List[IgnoredKeyword] = []
        self._ignored_keys: Set[Tuple[str, str]] = set()
        #: why a node allows no scalar by its own keywords (its bounds contradict, ...)
        self.node_reasons: Dict[int, Reason] = {}
        #: why a container nonterminal has no rules
        self.nonterminal_reasons: Dict[int, Reason] = {}
        #: the required members of each object nonterminal
        self.required_of: Dict[int, List[RequiredMember]] = {}
        #: the rules and names this compilation adds to `ir` start here
        self.first_rule = len(ir.rules)
        self.first_name = len(ir.names)

    def unsupported(self, keyword: str, pointer: str, reason: str) -> None:
        """A keyword that cannot be enforced exactly: SchemaError, or (lenient) noted."""
        if not self.lenient:
            raise SchemaError("%s cannot be enforced exactly: %s (pass lenient=True to ignore it)"
                              % (keyword, reason), pointer)
        self.ignore(keyword, pointer, reason)

    def ignore(self, keyword: str, pointer: str, reason: str) -> None:
        """List a keyword that is not enforced exactly (once per keyword and pointer)."""
        if (keyword, pointer) not in self._ignored_keys:
            self._ignored_keys.add((keyword, pointer))
            self.ignored.append(IgnoredKeyword(keyword, pointer, reason))
