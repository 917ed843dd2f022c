"""`Grammar`: a grammar ready for matching, from any frontend.

    Grammar.from_regex(pattern)     the whole output matches one regex (one lexeme)
    Grammar.from_lark(text)         llguidance's Lark dialect
    Grammar.from_json_schema(s)     a JSON schema (dict or text), as llguidance means it
    Grammar.from_type(T)            the JSON of a Python type's values (dataclasses, ...)
    Grammar.from_llguidance(obj)    llguidance's top-level grammar object: several grammars
    Grammar.from_gbnf(text)         llama.cpp's GBNF (a context-free grammar over characters)
    Grammar.from_ebnf(text, dialect="xgrammar")   xgrammar's EBNF (or dialect="kbnf")

Each frontend builds a GrammarIR; it is simplified (simplify.py) and compiled to flat
arrays (ir.CompiledGrammar) once. A Grammar holds no matching state: one Grammar serves
any number of Matchers.

>>> g = Grammar.from_regex(r"[0-9]+")
>>> print(g.to_text())
start: /[0-9]+/
<BLANKLINE>
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

from ..grammar.ir import GrammarIR
from ..grammar.simplify import simplify
from ..html import STYLE, escape, table
from ..limits import DEFAULT_LIMITS, Limits
from ..regex import ExprSet, compile_pattern
from ..regex.printer import to_string
from .jsontext import dumps


class Grammar:
    #: the keywords a JSON schema compiled with lenient=True could not enforce (else empty)
    ignored_keywords: Sequence[Any] = ()

    def __init__(self, ir: GrammarIR, kind: str, source: str, options: Optional[Dict[str, Any]] = None) -> None:
        self.ir = simplify(ir)
        self.compiled = self.ir.compile()
        self.kind = kind
        self.source = source  # with kind and options: enough to build it again elsewhere
        self.options: Dict[str, Any] = dict(options or {})
        self.limits = ir.limits

    @classmethod
    def from_regex(cls, pattern: str, *, limits: Limits = DEFAULT_LIMITS) -> "Grammar":
        """The language of one regular expression (Rust regex syntax, full match)."""
        ir = GrammarIR(ExprSet(limits), limits)
        lexeme = ir.add_lexeme("/%s/" % pattern, compile_pattern(ir.es, pattern))
        ir.start = ir.add_nonterminal("start")
        ir.add_rule(ir.start, [lexeme])
        return cls(ir, "regex", pattern)

    @classmethod
    def from_lark(cls, text: str, *, limits: Limits = DEFAULT_LIMITS) -> "Grammar":
        """A grammar in llguidance's Lark dialect (docs/semantics.md)."""
        from .lark import lark_to_ir

        return cls(lark_to_ir(text, limits=limits), "lark", text)

    @classmethod
    def from_gbnf(cls, text: str, *, root: str = "root", limits: Limits = DEFAULT_LIMITS) -> "Grammar":
        """A grammar in llama.cpp's GBNF, starting at the rule `root` (docs/ebnf.md)."""
        from .ebnf import gbnf_to_ir

        return cls(gbnf_to_ir(text, root, limits), "gbnf", text, {"root": root} if root != "root" else None)

    @classmethod
    def from_ebnf(cls, text: str, *, dialect: str = "xgrammar", root: Optional[str] = None,
                  limits: Limits = DEFAULT_LIMITS) -> "Grammar":
        """A grammar in another engine's EBNF dialect (docs/ebnf.md): "xgrammar" (start
        rule `root`) or "kbnf" (start rule `start`)."""
        from .ebnf import DIALECTS, ebnf_to_ir

        options = {"dialect": dialect, "root": root}
        if root is None:
            options["root"] = DIALECTS.get(dialect, "root")
        return cls(ebnf_to_ir(text, dialect, root, limits), "ebnf", text, options)

    @classmethod
    def from_json_schema(cls, schema: Any, *, limits: Limits = DEFAULT_LIMITS, **options: Any) -> "Grammar":
        """The JSON values a JSON schema (draft 2020-12; a dict or JSON text) allows.

        Options are llguidance's `x-guidance` ones (item_separator, key_separator,
        whitespace_flexible, whitespace_pattern, coerce_one_of, lenient, ...), with its
        defaults; the schema's own "x-guidance" overrides them. A keyword that cannot
        be enforced exactly raises SchemaError, unless lenient=True: then it is skipped
        and listed in `grammar.ignored_keywords`. See docs/jsonschema.md.

        >>> g = Grammar.from_json_schema({"type": "array", "items": {"type": "boolean"}, "maxItems": 2})
        >>> from refimpl.recognition.recognizer import Recognizer
        >>> [Recognizer(g.compiled).consume_bytes(s) for s in (b"[true, false]", b"[1]")]
        [True, False]
        """
        from .jsonschema import json_schema_to_ir

        result = json_schema_to_ir(schema, limits=limits, **options)  # read and checked first
        _, source = _with_source(schema)
        grammar = cls(result.ir, "json_schema", source, options)
        grammar.ignored_keywords = list(result.ignored)
        return grammar

    @classmethod
    def from_type(cls, t: Any, *, localns: Optional[Dict[str, Any]] = None, limits: Limits = DEFAULT_LIMITS,
                  **options: Any) -> "Grammar":
        """The JSON texts of the values of a Python type: dataclasses, TypedDict,
        NamedTuple, Enum, Literal, unions, list/tuple/dict[str, T], scalars, recursive
        types, constraints through typing.Annotated (docs/types.md). It compiles
        `json_schema_of(t)` as from_json_schema does, with the same options;
        `refimpl.typed.parse(t, text)` gives the typed value back. `localns` resolves forward
        references to names that are not module globals.

        >>> from typing import List, Literal
        >>> g = Grammar.from_type(List[Literal["yes", "no"]])
        >>> from refimpl.recognition.recognizer import Recognizer
        >>> [Recognizer(g.compiled).consume_bytes(s) for s in (b'["yes", "no"]', b'["maybe"]')]
        [True, False]
        """
        from .typed import json_schema_of

        return cls.from_json_schema(json_schema_of(t, localns), limits=limits, **options)

    @classmethod
    def from_llguidance(cls, obj: Any, *, limits: Limits = DEFAULT_LIMITS) -> "Grammar":
        """llguidance's top-level grammar object (a dict or JSON text): a list of grammars,
        the first the start, each a Lark grammar or a JSON schema, referring to each
        other by `@name` (refimpl/frontends/lark/subgrammars.py, docs/semantics.md).

        >>> g = Grammar.from_llguidance({"grammars": [
        ...     {"lark_grammar": 'start: "n=" @num'},
        ...     {"name": "num", "json_schema": {"type": "integer"}}]})
        >>> from refimpl.recognition.recognizer import Recognizer
        >>> [Recognizer(g.compiled).consume_bytes(s) for s in (b"n=12", b"n=x")]
        [True, False]
        """
        from .lark import top_level_to_ir

        obj, source = _with_source(obj)
        return cls(top_level_to_ir(obj, limits), "llguidance", source)

    @property
    def is_empty(self) -> bool:
        """Is the grammar's language empty (no text matches it, not even the empty one)?

        The empty language compiles in every frontend that reads a grammar's text — a
        regex such as `[^\\s\\S]`, a Lark, GBNF or EBNF start rule that derives no
        string —; its first mask is empty and it never accepts (docs/semantics.md, "The
        empty language"). True when simplification proved it: a lexeme built with `&` or
        `~` whose emptiness needs more than `Limits.relevance_fuel` derivative states
        counts as non-empty (its masks are still exact).

        >>> Grammar.from_regex(r"[^\\s\\S]").is_empty, Grammar.from_lark('start: start "a"').is_empty
        (True, True)
        >>> Grammar.from_regex("").is_empty, Grammar.from_regex(r"a|[^\\s\\S]").is_empty
        (False, False)
        """
        return not self.ir.rules  # simplified: the start symbol has a rule unless it derives nothing

    def to_text(self) -> str:
        """The simplified rules, in Lark-like notation."""
        return self.ir.to_text()

    def __repr__(self) -> str:
        return "Grammar.from_%s(%r)" % (self.kind, self.source if len(self.source) < 60 else self.source[:57] + "...")

    def _repr_html_(self) -> str:
        """Jupyter: the source, the lexemes with their regexes, the rules."""
        g = self.compiled
        lexemes = table(["lexeme", "regex"], [[lx.name, to_string(g.es, lx.expr, 200)] for lx in g.lexemes])
        return ("%s<div><b>Grammar</b> (%s): %d lexemes, %d rules<details><summary>source</summary><pre>%s</pre>"
                "</details><details><summary>lexemes</summary>%s</details><details><summary>rules</summary>"
                "<pre>%s</pre></details></div>" % (STYLE, escape(self.kind), len(g.lexemes), len(self.ir.rules),
                                                   escape(self.source), lexemes, escape(self.ir.to_text())))


def _with_source(value: Any) -> Tuple[Any, str]:
    """A JSON value given as a dict, text or UTF-8 bytes, and its text (the Grammar's
    source, enough to build it again in a worker). A byte that is not UTF-8 becomes a
    lone surrogate, which the frontend refuses at its place."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "surrogateescape")
    return value, value if isinstance(value, str) else dumps(value)
