"""Items (ast.py) -> GrammarIR.

Terminal expressions fold into one regex expression each (`Compiler._terminal`); rule
bodies fold into symbol sequences (`Compiler._sequence`), nested groups and repetitions
becoming fresh nonterminals through grammar/repetition.py. Both folds use explicit
stacks. Terminals and rules are compiled only when reachable from `start` (or from
%ignore).
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Protocol, Tuple

from ...errors import GrammarError, RegexError, SchemaError
from ...grammar.ir import GrammarIR, Lexeme, lark_string
from ...grammar.repetition import repeat as _ebnf_repeat
from ...limits import Limits
from ...regex import ExprSet, compile_pattern
from .ast import (
    Alt,
    And,
    CharRange,
    Definition,
    GrammarRef,
    Ignore,
    Import,
    Item,
    Json,
    Literal,
    Name,
    NestedLark,
    Node,
    Not,
    Options,
    RegexLit,
    Repeat,
    RuleOptions,
    Seq,
    SpecialToken,
    Substring,
    fold,
)
from .common import COMMON_TERMINALS, common_definitions
from .substring import substring_expr


class References(Protocol):
    """What resolves `@name` and nested `%lark { }` (subgrammars.Subgrammars)."""

    def reference(self, node: Node, text: str) -> int:
        """The nonterminal standing for the grammar `node` refers to."""

#: the %llguidance options of a Lark grammar (no_forcing is accepted and means nothing here)
LLGUIDANCE_OPTIONS = ("no_forcing", "allow_initial_skip", "allow_invalid_utf8", "ignore_once")


def _case_insensitive_literal(es: ExprSet, s: str) -> int:
    """"s"i: the literal under Unicode simple case folding, as (?i) does in a regex."""
    return compile_pattern(es, "(?i)" + "".join("\\x{%x}" % ord(ch) for ch in s))


def compile_json(ir: GrammarIR, schema: Any, text: str, offset: int) -> int:
    """The symbol for an inline JSON schema, `%json {...}` (refimpl/frontends/jsonschema).

    Options come from the schema's "x-guidance" (llguidance's defaults otherwise). The
    JSON's lexemes get a lexeme class of their own, so its whitespace (%ignore, matched
    once between two tokens) is allowed only inside the JSON, after its first token, as
    in llguidance; %json parts
    with the same whitespace share one class (llguidance merges classes with equal
    skips: `GrammarIR.lexeme_class_for`).
    """
    from ..jsonschema import json_schema_to_ir, json_whitespace

    try:
        ws = json_whitespace(ir.es, schema)
        # the JSON's tokens, and its first token in a class without %ignore (shared with
        # the %json parts that have no whitespace), so that, as in llguidance, JSON
        # whitespace may come after a token of the JSON but not before its first one
        return json_schema_to_ir(schema, ir=ir, lexeme_class=ir.lexeme_class_for(ws, once=True),
                                 entry_class=ir.lexeme_class_for(None)).start
    except SchemaError as e:
        raise GrammarError("failed to compile JSON schema: %s" % e, text, offset) from None


class Compiler:
    """Items -> GrammarIR: `Compiler(text, items, es, limits).compile()`.

    With `ir` and `subgrammars` (subgrammars.py), one grammar of several is compiled into
    a shared IR: `compile_into(root)` returns its start nonterminal; `@name` and nested
    `%lark { }` become nonterminals that `subgrammars` links to those grammars.
    """

    def __init__(self, text: str, items: List[Item], es: ExprSet, limits: Limits,
                 ir: Optional[GrammarIR] = None, subgrammars: Optional[References] = None) -> None:
        self.text = text
        self.items = items
        self.ir = ir if ir is not None else GrammarIR(es, limits)
        self.es = es
        self.subgrammars = subgrammars
        self.lexeme_class = 0  # the class of this grammar's lexemes (0: the outermost grammar)
        #: allow_invalid_utf8: this grammar's regexes are in byte mode, as (?-u) makes them
        self.byte_mode = False
        self.rules: Dict[str, Definition] = {}
        self.terminals: Dict[str, Definition] = {}
        self.terminal_exprs: Dict[Tuple[Optional[str], str], int] = {}
        self.nonterminals: Dict[str, int] = {}
        self.todo: List[str] = []  # rules whose nonterminal exists but whose body is not compiled

    def error(self, message: str, offset: Optional[int]) -> GrammarError:
        return GrammarError(message, self.text, offset)

    # -- top level ----------------------------------------------------------------------

    def compile(self) -> GrammarIR:
        """The IR of a grammar on its own: start, all it reaches, and %ignore."""
        self.ir.start = self.compile_into(root=True)
        return self.ir

    def compile_into(self, root: bool) -> int:
        """Compile `start` and all it reaches into the IR; return its nonterminal.

        The root grammar's lexemes are class 0; any other grammar's lexemes get the class
        of its %ignore (and ignore_once): `GrammarIR.lexeme_class_for`. The options
        allow_initial_skip and allow_invalid_utf8 hold for the whole IR once any grammar
        sets them (as llguidance merges them); allow_invalid_utf8 also puts this grammar's
        regexes in byte mode (`.`, classes and `\\w` match bytes, as derivre's
        `unicode(false)`), and only this grammar's, as llguidance.
        """
        ignores, options = self._collect()
        ir = self.ir
        self.byte_mode = bool(options.get("allow_invalid_utf8", False))
        ignore = self.es.union(*[self._terminal(node, "%ignore") for node in ignores]) if ignores else None
        once = bool(options.get("ignore_once", False))
        if root:
            ir.ignore = ignore
            if once:
                ir.ignore_once.add(0)
        else:
            self.lexeme_class = ir.lexeme_class_for(ignore, once=once)
        ir.allow_initial_skip = ir.allow_initial_skip or bool(options.get("allow_initial_skip", False))
        ir.allow_invalid_utf8 = ir.allow_invalid_utf8 or bool(options.get("allow_invalid_utf8", False))
        start = self._nonterminal("start")
        while self.todo:
            self._rule(self.rules[self.todo.pop()])
        return start

    def _collect(self) -> Tuple[List[Node], Dict[str, Any]]:
        """Sort the items into the definition tables; return the %ignore bodies and the
        merged %llguidance options."""
        ignores: List[Node] = []
        options: Dict[str, Any] = {}
        for item in self.items:
            if isinstance(item, Definition):
                table = self.rules if item.kind == "rule" else self.terminals
                if item.name in table:
                    raise self.error("duplicate %s: '%s'" % (item.kind, item.name), item.offset)
                table[item.name] = item
            elif isinstance(item, Ignore):
                ignores.append(item.body)
            elif isinstance(item, Import):
                self._import(item)
            else:
                self._options(item, options)
        if "start" not in self.rules:
            raise GrammarError("rule 'start' is not defined (no start rule found)")
        return ignores, options

    def _import(self, item: Import) -> None:
        """%import common...: each name becomes a terminal standing for the common one."""
        for name, local, offset in item.names:
            if name not in COMMON_TERMINALS:
                raise self.error(
                    "Unknown common terminal 'common.%s'; available: %s"
                    % (name, ", ".join(COMMON_TERMINALS)), offset,
                )
            if local in self.terminals:
                raise self.error("duplicate terminal: '%s' (imported)" % local, offset)
            self.terminals[local] = Definition("terminal", local, offset, Name(offset, name, "common"))
            assert name in common_definitions()

    def _options(self, item: Options, merged: Dict[str, Any]) -> None:
        """%llguidance {...}: options merge across declarations; each must be a boolean,
        and one of LLGUIDANCE_OPTIONS (anything else is an error naming the option)."""
        offset, value = item.offset, item.value
        if not isinstance(value, dict):
            raise self.error("failed to parse %llguidance declaration: expected a JSON object", offset)
        for key, v in value.items():
            if key not in LLGUIDANCE_OPTIONS:
                raise self.error(
                    "unknown %%llguidance option '%s' (supported: %s)" % (key, ", ".join(LLGUIDANCE_OPTIONS)),
                    offset,
                )
            if not isinstance(v, bool):
                raise self.error(
                    "failed to parse %%llguidance declaration: '%s' must be true or false" % key, offset
                )
            merged[key] = v

    def _nonterminal(self, name: str) -> int:
        """The nonterminal of rule `name`, queueing its body the first time."""
        nt = self.nonterminals.get(name)
        if nt is None:
            nt = self.nonterminals[name] = self.ir.add_nonterminal(name)
            self.todo.append(name)
        return nt

    def _rule(self, definition: Definition) -> None:
        """Add the BNF rules of one rule definition: one per top-level alternative (or
        one lexeme, when its options say so)."""
        nt = self.nonterminals[definition.name]
        body = definition.body
        if definition.options is not None:
            metadata = definition.options.metadata()
            if metadata:
                self.ir.metadata[definition.name] = metadata
            if definition.options.capture is not None or definition.options.stop_capture is not None:
                self.ir.captures[nt] = (definition.options.capture, definition.options.stop_capture)
            lexeme = self._options_lexeme(definition, definition.options)
            if lexeme is not None:
                self.ir.add_rule(nt, lexeme)
                return
        for option in body.options if isinstance(body, Alt) else [body]:
            self.ir.add_rule(nt, self._sequence(option))

    def _options_lexeme(self, definition: Definition, options: RuleOptions) -> Optional[Tuple[int, ...]]:
        """The body of a rule whose options make it one lexeme, as llguidance does, or
        None (a plain rule; a sub-grammar with a temperature):

          stop=S / suffix=S   a lazy lexeme for body·S: it ends where S is first matched;
                              with stop=, S is hidden: the token must end with it
          stop=""             a greedy lexeme that EOS may end (and is then part of it)
          lazy                a lazy lexeme for the body
          max_tokens=N        a lexeme with a token budget; N = 0 matches only ""
          temperature=T       a lexeme (temperature itself is metadata)
        """
        if options.stop_capture is not None and options.stop is None and not options.lazy:
            raise self.error("stop_capture requires stop= or suffix=", options.at["stop_capture"])
        if options.max_tokens == 0:  # llguidance issue 236: the empty string only
            return ()
        if not options.makes_lexeme() and options.max_tokens is None and options.temperature is None:
            return None
        label = ("lazy" if options.lazy else "suffix" if options.suffix else "stop" if options.stop
                 else "max_tokens" if options.max_tokens is not None else "temperature")
        name = "%s[%s]" % (definition.name, label)
        body = definition.body
        if not options.makes_lexeme() and isinstance(body, (GrammarRef, Json, NestedLark)):
            if options.max_tokens is not None:
                raise self.error(
                    "max_tokens= on a sub-grammar (%s) is not supported: llguidance cuts the sub-grammar "
                    "off where the budget ends, which no grammar describes (docs/semantics.md)" % definition.name,
                    options.at["max_tokens"],
                )
            return None
        where = "the [%s] rule '%s'" % (label, definition.name)
        expr = self._terminal(body, where)
        lazy, ends_at_eos, hidden = options.lazy, False, False
        stop: Optional[Tuple[int, int]] = None
        if isinstance(options.stop, Literal) and options.stop.text == "" and not options.suffix:
            ends_at_eos = True
        elif options.stop is not None:
            stop = (expr, self._terminal(options.stop, where))
            expr, lazy, hidden = self.es.concat(*stop), True, not options.suffix
        lexeme = Lexeme(name, expr, lazy, self.lexeme_class, ends_at_eos=ends_at_eos, max_tokens=options.max_tokens,
                        hidden=hidden)
        sym = self.ir.add(lexeme)
        if stop is not None:
            self.ir.stops[~sym] = stop  # where the visible text ends, for captures
        return (sym,)

    # -- terminal expressions -> one regex expression ------------------------------------

    def _terminal(self, root: Node, where: str) -> int:
        """Fold a terminal expression into a regex expression (post-order, explicit stack).

        A name expands to its terminal's body the first time (then the result is
        memoised); a name met again while its own body is being folded is a cycle:
        "terminal X is recursive".
        """
        es = self.es
        in_progress: Dict[Tuple[Optional[str], str], int] = {}

        def combine(node: Node, args: List[int]) -> int:
            if isinstance(node, Alt):
                return es.union(*args)
            if isinstance(node, And):
                return es.intersection(*args)
            if isinstance(node, Seq):
                return es.concat(*args)
            if isinstance(node, Repeat):
                return es.repeat(args[0], node.lo, node.hi)
            if isinstance(node, Not):
                return es.complement(args[0])
            assert isinstance(node, Name)  # a Name whose definition was just folded
            key = (node.namespace, node.name)
            del in_progress[key]
            self.terminal_exprs[key] = args[0]
            return args[0]

        return fold(root, lambda node: self._terminal_children(node, where, in_progress),
                    lambda node: self._terminal_leaf(node, where), combine)

    def _terminal_children(self, node: Node, where: str,
                           in_progress: Dict[Tuple[Optional[str], str], int]) -> Optional[List[Node]]:
        """The sub-expressions to fold first, or None for a leaf."""
        if isinstance(node, Alt):
            return node.options
        if isinstance(node, And):
            return node.parts
        if isinstance(node, Seq):
            return node.items
        if isinstance(node, (Repeat, Not)):
            return [node.node]
        if isinstance(node, Name):
            key = (node.namespace, node.name)
            if key in self.terminal_exprs:
                return None
            if key in in_progress:
                raise self.error("terminal %s is recursive (terminals are regular expressions; "
                                 "use a rule for recursion)" % node.name, node.offset)
            definition = self._terminal_definition(node, where)
            in_progress[key] = node.offset
            return [definition.body]
        return None

    def _terminal_definition(self, node: Name, where: str) -> Definition:
        """The definition a name stands for inside a terminal expression."""
        if node.namespace == "common":
            return common_definitions()[node.name]
        definition = self.terminals.get(node.name)
        if definition is not None:
            return definition
        if node.name in self.rules:
            raise self.error(
                "rule '%s' cannot be used in %s: terminal expressions may only use terminals "
                "(rename the rule to uppercase to make it a terminal)" % (node.name, where),
                node.offset,
            )
        raise self.error("undefined symbol '%s' (unknown name)" % node.name, node.offset)

    def _terminal_leaf(self, node: Node, where: str) -> int:
        """The expression of a leaf: a literal, range, regex, substring or known name."""
        es = self.es
        if isinstance(node, Name):
            return self.terminal_exprs[(node.namespace, node.name)]
        if isinstance(node, Literal):
            if node.ci:
                return _case_insensitive_literal(es, node.text)
            return es.literal(node.text.encode("utf-8"))
        if isinstance(node, CharRange):
            return compile_pattern(es, "[\\x{%x}-\\x{%x}]" % (ord(node.lo), ord(node.hi)))
        if isinstance(node, RegexLit):
            flags = node.flags + ("-u" if self.byte_mode else "")
            prefix = "(?%s)" % flags if flags else ""
            try:
                return compile_pattern(es, prefix + node.pattern)
            except RegexError as e:
                offset = node.pattern_offset + max(0, e.offset - len(prefix))
                raise self.error("invalid regex /%s/: %s" % (node.pattern, e.message), offset) from None
        if isinstance(node, Substring):
            return substring_expr(es, node.chunks)
        if isinstance(node, Json):
            raise self.error("%%json cannot be used in %s" % where, node.offset)
        if isinstance(node, GrammarRef):
            raise self.error("grammar references (like @%s) cannot be used in %s" % (node.name, where), node.offset)
        if isinstance(node, SpecialToken):
            raise self.error("special tokens (like %s) cannot be used in %s" % (node.spec.text, where), node.offset)
        if isinstance(node, NestedLark):
            raise self.error("nested %%lark { ... } cannot be used in %s" % where, node.offset)
        raise AssertionError("unexpected node %r" % node)

    # -- rule expressions -> symbol sequences ---------------------------------------------

    def _sequence(self, root: Node) -> Tuple[int, ...]:
        """Fold a rule expression into a sequence of symbols (post-order, explicit stack).

        Terminal-like leaves (literals, regexes, ranges, terminal names, `~x`) become
        lexemes; rule names become nonterminals; a group with several alternatives becomes
        a fresh nonterminal; repetitions use grammar/repetition.py; "" is ε.
        """
        def children(node: Node) -> Optional[List[Node]]:
            if isinstance(node, Alt):
                return node.options
            if isinstance(node, Seq):
                return node.items
            if isinstance(node, Repeat):
                return [node.node]
            if isinstance(node, And):
                raise self.error(
                    "& is only supported for terminals, not rules; try renaming the rule "
                    "to UPPERCASE", node.offset,
                )
            return None

        def combine(node: Node, args: List[Tuple[int, ...]]) -> Tuple[int, ...]:
            if isinstance(node, Seq):
                return tuple(sym for seq in args for sym in seq)
            if isinstance(node, Alt):
                return self._group(args)
            assert isinstance(node, Repeat)
            return self._repeat(args[0], node.lo, node.hi)

        return fold(root, children, self._rule_leaf, combine)

    def _rule_leaf(self, node: Node) -> Tuple[int, ...]:
        """The symbols of a leaf in a rule."""
        ir = self.ir
        if isinstance(node, Name):
            if node.namespace is None and node.name in self.rules:
                return (self._nonterminal(node.name),)
            if node.namespace is None and node.name not in self.terminals:
                raise self.error("undefined symbol '%s' (unknown name)" % node.name, node.offset)
            return (ir.add_lexeme(node.name, self._terminal(node, "a terminal"), lexeme_class=self.lexeme_class),)
        if isinstance(node, Literal) and node.text == "":
            return ()
        if isinstance(node, SpecialToken):
            return (ir.add(Lexeme(node.spec.text, self.es.NOTHING, lexeme_class=self.lexeme_class, tokens=node.spec)),)
        if isinstance(node, Json):
            return (compile_json(ir, node.schema, self.text, node.offset),)
        if isinstance(node, (GrammarRef, NestedLark)):
            if self.subgrammars is None:
                raise self.error("grammar references and nested %lark need a top-level grammar", node.offset)
            return (self.subgrammars.reference(node, self.text),)
        return (ir.add_lexeme(_display(node), self._terminal(node, "a terminal"), lexeme_class=self.lexeme_class),)

    def _group(self, options: List[Tuple[int, ...]]) -> Tuple[int, ...]:
        """`(a | b c)` inside a rule: one fresh nonterminal per distinct set of options."""
        distinct = list(dict.fromkeys(options))
        if len(distinct) == 1:
            return distinct[0]
        ir = self.ir
        label = "(%s)" % " | ".join(" ".join(ir.symbol_name(s) for s in seq) or '""' for seq in distinct)
        nt, created = ir.derived_nonterminal(("|",) + tuple(distinct), _shorten(label))
        if created:
            for seq in distinct:
                ir.add_rule(nt, seq)
        return (nt,)

    def _single(self, seq: Tuple[int, ...]) -> int:
        """One symbol for a sequence: itself if of length 1, else a fresh `(a b)`."""
        if len(seq) == 1:
            return seq[0]
        ir = self.ir
        label = "(%s)" % " ".join(ir.symbol_name(s) for s in seq)
        nt, created = ir.derived_nonterminal(("()",) + seq, _shorten(label))
        if created:
            ir.add_rule(nt, seq)
        return nt

    def _repeat(self, seq: Tuple[int, ...], lo: int, hi: Optional[int]) -> Tuple[int, ...]:
        """seq{lo,hi} as symbols (ε repeated, or repeated zero times, is ε)."""
        if not seq or hi == 0:
            return ()
        return (_ebnf_repeat(self.ir, self._single(seq), lo, hi),)


def _shorten(label: str, limit: int = 60) -> str:
    """Names of fresh nonterminals stay readable: long ones are cut with '…'."""
    return label if len(label) <= limit else label[:limit - 2] + "…" + label[-1]


def _display(node: Node) -> str:
    """The display name of a lexeme written inline in a rule."""
    if isinstance(node, Literal):
        return lark_string(node.text) + ("i" if node.ci else "")
    if isinstance(node, CharRange):
        return "%s..%s" % (lark_string(node.lo), lark_string(node.hi))
    if isinstance(node, RegexLit):
        return "/%s/%s" % (node.pattern, node.flags)
    if isinstance(node, Substring):
        return "%%regex{%s}" % _shorten(json.dumps(node.chunks, ensure_ascii=False), 30)
    if isinstance(node, Not):
        inner = node.node
        if isinstance(inner, (Literal, CharRange, RegexLit, Name)):
            return "~" + (inner.name if isinstance(inner, Name) else _display(inner))
        return "~(...)"
    return "(...)"
