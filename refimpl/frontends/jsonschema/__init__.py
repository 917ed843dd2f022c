"""JSON schema (draft 2020-12) → grammar IR: `json_schema_to_ir`, behind
`Grammar.from_json_schema(schema, **options)` and `%json {...}` in Lark grammars.

The schema means the same language as in llguidance (same options, same defaults, same
layout: properties in schema order, then additional properties; whitespace as an
%ignore lexeme of the JSON's own lexeme class), with one rule on top: **nothing is
silently ignored** — a keyword that cannot be enforced exactly raises `SchemaError`
naming it and its JSON pointer, unless `lenient=True`, in which case it is skipped and
listed in the result (`Grammar.ignored_keywords`). docs/jsonschema.md is the full story.

How a schema compiles (no recursion on the depth of the schema anywhere: every walk
keeps an explicit stack, and nonterminals are made lazily from a worklist; one module
per part, named in brackets):

* **Scalars are lexemes.** For a set of subschemas that must all hold (a *conjunction*:
  `allOf`, `$ref`, sibling keywords), the null / boolean / number / string values they
  allow are computed as ONE regular expression by regex algebra — `allOf` is `&`,
  `anyOf` is `|`, `not` is complement, `pattern` ∩ length bounds, `enum` a union of
  literals — and become one lexeme [scalars, keywords, formats]. Strings are regexes
  over the *decoded* text, quoted at the end by a homomorphism that maps each byte to
  its JSON encodings (`\\n`, `\\u000a`, ...), so every keyword stays exact [strings].
* **Arrays and objects are rules.** A conjunction is flattened (`allOf`/`$ref` inline);
  a disjunction (`anyOf`, exact `oneOf`, `if`/`then`/`else`, `enum` of arrays or
  objects, `dependentRequired`/`dependentSchemas`) that matters for the container type
  is distributed into alternatives, one nonterminal each; a leaf conjunction is laid out
  as `[` items `]` or `{` properties `}`, each item or property value being the
  conjunction of the subschemas that apply to it. Recursion through `$ref` is recursion
  through nonterminals: that is why JSON goes through the context-free grammar
  [containers, disjunctions, negation, disjoint, switch, arrays, objects].
* **Numbers** are kept exact by an invariant: every number regex accepts only texts
  whose value satisfies the schema, and always the canonical text of every such value
  (`-?(0|[1-9][0-9]*)` for integers; shortest plain decimal otherwise), so intersections,
  unions and complements (taken within canonical texts) never lose a value. Bounds
  compile to digit-by-digit regexes; `multipleOf` to a divisibility automaton
  [numbers, multiples].

How the parts meet. The compiler is a set of components, one module and class each,
that share one `Compilation` [compilation]: the GrammarIR being built (its ExprSet and
limits), the schema's `Subschemas` [subschemas], the options [options], the regexes of
JSON strings and numbers, what lenient mode skipped, and why parts of the schema allow
nothing. `Compiler` [compiler] makes the components, each given the Compilation and the
components it calls — so a call names the module of its callee:
`self.scalars.of(n)` is in scalars.py — and runs the worklist: a value nonterminal
[nonterminals] gets its scalars' lexeme and one alternative per container type
[profiles]; a container nonterminal is flattened [containers] and distributed, or laid
out [arrays, objects]; then [unsatisfiable] checks that some value is allowed. The rest:
applicators (a node's in-place applicators and the fold over them), lexemes (the
punctuation), languages (regex helpers the components share), values (JSON values).
`compiler_for(schema)` gives the components for one schema, to try one on its own.

`SUBSCHEMA_KEYWORDS` names the keywords whose values hold subschemas, for anything that
walks a schema's subschemas.

>>> from refimpl import Grammar
>>> g = Grammar.from_json_schema({"type": "object", "properties": {"n": {"type": "integer"}},
...                               "required": ["n"], "additionalProperties": False})
>>> print(g.to_text(), end="")
json: "{" "\\"n\\"" ":" integer "}"
"""
from __future__ import annotations

from ..jsontext import dumps
from .compiler import JsonSchemaIR, json_schema_to_ir, json_whitespace
from .options import DEFAULT_OPTIONS, IgnoredKeyword
from .subschemas import SUBSCHEMA_KEYWORDS, SubschemaKeywords
from .values import read_json_text

__all__ = ["DEFAULT_OPTIONS", "IgnoredKeyword", "JsonSchemaIR", "SUBSCHEMA_KEYWORDS", "SubschemaKeywords", "dumps",
           "json_schema_to_ir", "json_whitespace", "read_json_text"]
