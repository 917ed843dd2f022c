"""The Lark frontend: llguidance's dialect of Lark, compiled to a GrammarIR.

    text --scan--> tokens --Reader--> items (one small AST per rule / terminal)
         --Compiler--> GrammarIR: each terminal becomes ONE regex expression (a lexeme),
                       each rule becomes plain BNF rules over lexemes and nonterminals

    scanner.py    tokens                        ast.py        the items and expression nodes
    reader.py     tokens -> items               substring.py  %regex {"substring_...": ...}
    common.py     %import common.NAME           compiler.py   items -> GrammarIR
    parametric.py name::_ rules, expanded       subgrammars.py %lark { }, @name, top-level object

The dialect, as llguidance's docs/syntax.md and its lexer/parser/compiler define it (the
user's guide, with runnable examples, is docs/lark.md):

* `name: ...` (lowercase) is a rule, `NAME: ...` (uppercase) a terminal; `-` may appear in
  names after the first character; `_name`, `?name` (inline) and `!name` are rules like
  any other (the prefixes only shape Lark's parse trees, not the language). `start` is
  the start rule. Definitions end at the end of the line, except that a line starting
  with `|` continues the alternatives.
* Expressions: `"literal"` (JSON string escapes plus `\\xHH`; suffix `i` for case
  insensitive), `"a".."z"` (a character range), `/regex/flags` (Rust regex syntax; flags
  out of `imsux`), names, `( )`, `[ ]` (optional), postfix `?`, `*`, `+`, `{m}`, `{m,}`,
  `{,n}`, `{m,n}`, `~m`, `~m..n` (only one postfix operator per atom), concatenation,
  `|`, and `-> alias` (ignored). In terminals, also `&` (intersection: binds tighter than
  `|`, looser than concatenation) and prefix `~` (complement: binds tighter than the
  postfix operators, so `~A+` is `(~A)+`). In a rule, `~atom` is a terminal expression.
* `%ignore <terminal expression>` (several: their union), `%import common.NAME [-> ALIAS]`,
  `%import common (A, B)`, `%llguidance {json}` (options), `%json {schema}` (a JSON
  schema, compiled by frontends/jsonschema), `%regex {"substring_words": ...}` and friends.
* `%lark { ... }` (a nested grammar) and `@name` (another grammar of a top-level
  grammar object): subgrammars.py; each has its own lexeme class and %ignore.
* Special tokens, one token by id (never text): `<|name|>` or `<name>` (a special token
  of the vocabulary, by its text), `<[5]>`, `<[1-3,7]>`, `<[^...]>` (every other id),
  `<[*]>` (any token). Bound to the vocabulary when a Matcher is created.
* Rule options `name[...]:` (compiler.py `_options_lexeme`): `lazy`, `stop=S` and
  `suffix=S` (the body then S, one lazy lexeme), `stop=""` (ends at EOS), `max_tokens=N`
  (a token budget), `temperature=T`, `capture[="c"]`, `stop_capture="c"` (metadata:
  `GrammarIR.metadata`). With stop/suffix/lazy/max_tokens/temperature the body is a
  terminal expression, except that `temperature=` may name a sub-grammar.
* Parametric rules `name::_: ... %if cond` and references `name::expr` (parametric.py
  expands them into plain rules before compiling).
* `//` and `#` start comments.

Terminals and rules are compiled only when reachable from `start` (or from `%ignore`),
as llguidance does: an unused rule may mention an undefined name without error.

Rejected with a GrammarError naming the feature: `max_tokens=` on a sub-grammar
(`x[max_tokens=N]: @sub`; docs/semantics.md says why), templates, priorities (`NAME.2`;
llguidance rejects them too), `%override`, `%declare`, and imports other than `common`.
Where we differ from llguidance on purpose: a regex literal may not span lines, numbers
in `~1..3` need no spaces, and comment lines may sit between a rule and its `| ...`
continuation lines.

No function here recurses on the nesting depth of the input: the expression reader keeps
an explicit stack of open groups, and the compilers fold the AST with explicit stacks.

>>> ir = lark_to_ir('''
... start: greeting+ NAME
... greeting: "hi" | "hello"i
... NAME: /[a-z]+/
... %ignore " "
... ''')
>>> print(ir.to_text())
start: greeting+ NAME
greeting: "hi"
 | "hello"i
greeting+: greeting+ greeting
 | greeting
<BLANKLINE>
"""
from __future__ import annotations

from typing import Optional

from ...grammar.ir import GrammarIR
from ...limits import DEFAULT_LIMITS, Limits
from ...regex import ExprSet
from .common import COMMON_TERMINALS
from .subgrammars import LarkSource, Subgrammars, top_level_to_ir

__all__ = ["lark_to_ir", "top_level_to_ir", "COMMON_TERMINALS"]


def lark_to_ir(text: str, *, es: Optional[ExprSet] = None,
               limits: Limits = DEFAULT_LIMITS) -> GrammarIR:
    """Compile a grammar in llguidance's Lark dialect into a GrammarIR (not simplified:
    run `simplify.simplify` on the result before compiling it for the parser).

    Raises GrammarError (with line, column and a caret line) for malformed or unsupported
    grammars, and LimitError when a limit (repeat_bound, grammar_size, expressions) is hit.

    >>> ir = lark_to_ir('start: "a"{2,3} B\\nB: /[0-9]+/ & ~"13"')
    >>> print(ir.to_text(), end="")
    start: "a"{2,3} B
    "a"{2,3}: "a"{2} "a"?
    "a"{2}: "a" "a"
    "a"?: "a"
     | ""
    """
    if es is None:
        es = ExprSet(limits)
    return Subgrammars(es, limits).run(LarkSource(text))
