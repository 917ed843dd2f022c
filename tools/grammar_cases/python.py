"""xgrammar's EBNF cases, from its pytest files, by a small symbolic interpreter.

Reads tests/python/test_*.py of an xgrammar checkout with the `ast` module, and runs each
test function (once per row of its `pytest.mark.parametrize` tables) symbolically:

* values it follows: string constants and their `+` / `*`, names, loops over literal
  collections, calls of the file's own helper functions; expressions over plain data
  (strings, numbers, lists, comprehensions, itertools.product, re) are evaluated by
  Python itself.
* xgrammar calls it understands: `xgr.Grammar.from_ebnf`, `_is_grammar_accept_string`
  (with `require_termination`), `_get_matcher_from_grammar` + `accept_string` /
  `is_terminated`, `GrammarMatcher(compiled, terminate_without_stop_token=True)`, and
  `pytest.raises(..., match=...)` around a single statement that builds one grammar.
* an assert on an accept or termination check gives a string of a case; a grammar built
  gives a compile case that must pass, one built inside `pytest.raises` a compile case
  that must fail (its `match=` pattern kept as the expected error).

Anything it does not understand makes the value unknown, and what a skipped statement
may change becomes unknown; unknown values are never recorded. Tests that enumerate all
strings up to a length keep the first 100 strings of each kind per run.
"""
from __future__ import annotations

import ast
import builtins
import itertools
import os
import re
from collections import Counter
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from .cases import Collector
from .sources import read_text


class _Unknown:
    """A value the interpreter does not know (never recorded)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


class PyGrammar:
    """An EBNF grammar value: its text and root rule."""

    def __init__(self, text: str, root: str) -> None:
        self.text, self.root = text, root


class PyCompiled:
    """A compiled grammar (GrammarCompiler.compile_grammar)."""

    def __init__(self, grammar: PyGrammar) -> None:
        self.grammar = grammar


class PyMatcher:
    """A GrammarMatcher: the text accepted so far, or None when the state is no longer
    known. `terminates`: made with terminate_without_stop_token=True, so that
    is_terminated() says whether the text is complete."""

    def __init__(self, grammar: PyGrammar, terminates: bool) -> None:
        self.grammar, self.terminates = grammar, terminates
        self.consumed: Optional[str] = ""


class Check:
    """The value of `_is_grammar_accept_string(...)`, `matcher.accept_string(s)` or
    `matcher.is_terminated()`, waiting for an assert to say what it was."""

    def __init__(self, grammar: PyGrammar, text: str, complete: bool, matcher: Optional[PyMatcher] = None) -> None:
        self.grammar, self.text, self.complete, self.matcher = grammar, text, complete, matcher


class _Stop(Exception):
    """Ends a `with pytest.raises` body at the call expected to raise."""


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


# methods of a matcher that do not change what it has accepted
_PURE_MATCHER_METHODS = {"fill_next_token_bitmask", "find_jump_forward_string", "get_captures",
                         "_debug_print_internal_state", "is_completed"}
_MAX_ITERATIONS = 50000
_MAX_STRINGS_PER_KIND = 100  # strings of one kind one run of a test may record (exhaustive tests enumerate thousands)

# Plain Python evaluation (exact, by Python itself) of expressions over plain data:
# these builtins and modules, these node types, these value types.
_SAFE_NAMES: Dict[str, Any] = {n: getattr(builtins, n) for n in (
    "len", "range", "enumerate", "zip", "sorted", "set", "frozenset", "list", "tuple", "dict", "str",
    "int", "min", "max", "sum", "any", "all", "reversed", "chr", "ord", "bool", "repr", "abs", "map")}
_SAFE_NAMES.update({"re": re, "itertools": itertools, "True": True, "False": False, "None": None})
_PURE_NODES = (ast.Constant, ast.Name, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Subscript,
               ast.Slice, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp,
               ast.GeneratorExp, ast.comprehension, ast.Call, ast.Attribute, ast.JoinedStr,
               ast.FormattedValue, ast.IfExp, ast.keyword, ast.Starred, ast.operator, ast.unaryop,
               ast.boolop, ast.cmpop, ast.expr_context)
_PLAIN_TYPES = (str, bytes, int, float, bool, type(None), re.Pattern, re.Match, range)
_CONTAINERS = (tuple, list, set, frozenset)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    return "?"


class PyTestInterpreter:
    """Runs the test functions of one xgrammar test file symbolically (see the module
    docstring) and reports what the asserts say about EBNF grammars."""

    def __init__(self, col: Collector, tree: ast.Module, rel: str) -> None:
        self.col, self.rel = col, rel
        self.functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.globals: Dict[str, Any] = {}
        self.source = rel
        self.expected_error: Optional[Tuple[Optional[str]]] = None
        self.depth = 0
        self.budget: Counter = Counter()
        self._calling = ""
        self.raises_depth = 0
        self.compiled: Dict[int, Any] = {}  # id(expression node) -> code (the tree is kept alive)
        self.envs: List[Dict[str, Any]] = [self.globals]  # the scopes in use, innermost last
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                self._statement(node, self.globals)

    # -- entry point
    def run(self) -> None:
        for name, fn in self.functions.items():
            if not name.startswith("test_"):
                continue
            if _skipped(fn):
                self.col.skip("xgrammar test marked skip/xfail")
                continue
            self.source = f"{self.rel}:{fn.lineno} ({name})"
            for params in self._parameter_sets(fn):
                env = dict(self.globals)
                env.update({a.arg: UNKNOWN for a in fn.args.args})
                env.update(params)
                self.envs = [self.globals, env]
                self.budget = Counter()
                self._block(fn.body, env)

    def _parameter_sets(self, fn: ast.FunctionDef) -> List[Dict[str, Any]]:
        sets: List[Dict[str, Any]] = [{}]
        for deco in fn.decorator_list:
            if not (isinstance(deco, ast.Call) and _dotted(deco.func).endswith("mark.parametrize")):
                continue
            names_value = self._eval(deco.args[0], self.globals)
            rows = self._eval(deco.args[1], self.globals) if len(deco.args) > 1 else UNKNOWN
            if not isinstance(names_value, str) or not isinstance(rows, (tuple, list)):
                return []
            names = [n.strip() for n in names_value.split(",") if n.strip()]
            bindings = [b for b in (self._bind_row(names, row) for row in rows) if b is not None]
            sets = [dict(s, **b) for s in sets for b in bindings]
        return sets

    def _bind_row(self, names: List[str], row: Any) -> Optional[Dict[str, Any]]:
        if isinstance(row, _Param):
            if row.marked:
                self.col.skip("xgrammar parametrize row marked skip/xfail")
                return None
            row = row.values if len(names) > 1 else row.values[0]
        if len(names) == 1:
            return {names[0]: row}
        if isinstance(row, (tuple, list)) and len(row) == len(names):
            return dict(zip(names, row))
        return {n: UNKNOWN for n in names}

    # -- statements
    def _block(self, body: Sequence[ast.stmt], env: Dict[str, Any]) -> None:
        for stmt in body:
            self._statement(stmt, env)

    def _statement(self, stmt: ast.stmt, env: Dict[str, Any]) -> None:
        handler = self._STATEMENTS.get(type(stmt))
        if handler is not None:
            handler(self, stmt, env)
        else:  # if / while / try / nested defs ...: their effect is not known
            self._forget(stmt, env)

    def _forget(self, stmt: ast.stmt, env: Dict[str, Any]) -> None:
        """A statement that is not run: every name it may bind or change becomes unknown,
        and so does the state of every matcher."""
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                env[node.id] = UNKNOWN
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                self._invalidate(env.get(node.value.id, UNKNOWN))
        _forget_matchers(env)

    def _invalidate(self, value: Any) -> None:
        """A list, set or dict may have been changed in place: forget it under every name."""
        if isinstance(value, (_CONTAINERS, dict)):
            for env in self.envs:
                for name in [n for n, v in env.items() if v is value]:
                    env[name] = UNKNOWN

    def _assign(self, stmt: ast.Assign, env: Dict[str, Any]) -> None:
        value = self._eval(stmt.value, env)
        if isinstance(value, Check) and value.matcher is not None:
            value.matcher.consumed = None  # accepted or not: unknown
        for target in stmt.targets:
            self._bind(target, value, env)

    def _ann_assign(self, stmt: ast.AnnAssign, env: Dict[str, Any]) -> None:
        if stmt.value is not None:
            self._bind(stmt.target, self._eval(stmt.value, env), env)

    def _aug_assign(self, stmt: ast.AugAssign, env: Dict[str, Any]) -> None:
        if isinstance(stmt.target, ast.Name):
            op = ast.BinOp(left=ast.Name(id=stmt.target.id, ctx=ast.Load()), op=stmt.op, right=stmt.value)
            env[stmt.target.id] = self._eval(op, env)

    def _bind(self, target: ast.expr, value: Any, env: Dict[str, Any]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Subscript, ast.Attribute)):  # x[i] = ... changes x
            self._invalidate(self._eval(target.value, env))
        elif isinstance(target, (ast.Tuple, ast.List)):
            ok = isinstance(value, (tuple, list)) and len(value) == len(target.elts)
            values = value if ok else [UNKNOWN] * len(target.elts)
            for t, v in zip(target.elts, values):
                self._bind(t, v, env)

    def _expr(self, stmt: ast.Expr, env: Dict[str, Any]) -> None:
        value = self._eval(stmt.value, env)
        if isinstance(value, Check) and value.matcher is not None:
            value.matcher.consumed = None

    def _for(self, stmt: ast.For, env: Dict[str, Any]) -> None:
        items = self._eval(stmt.iter, env)
        jumps = any(isinstance(n, (ast.Break, ast.Continue)) for b in stmt.body for n in ast.walk(b))
        if isinstance(items, (_CONTAINERS, dict, range, str)) and len(items) <= _MAX_ITERATIONS:
            items = list(items)
        if not isinstance(items, list) or stmt.orelse or jumps:
            self._forget(stmt, env)
            return
        for item in items:
            self._bind(stmt.target, item, env)
            self._block(stmt.body, env)

    def _with(self, stmt: ast.With, env: Dict[str, Any]) -> None:
        raises = [i.context_expr for i in stmt.items
                  if isinstance(i.context_expr, ast.Call) and _dotted(i.context_expr.func).endswith("raises")]
        if not raises:
            self._block(stmt.body, env)
            return
        if not _one_build(stmt.body):
            self.col.skip("xgrammar pytest.raises whose body does more than build one grammar")
            self._forget(stmt, env)
            return
        match = next((k.value for k in raises[0].keywords if k.arg == "match"), None)
        pattern = self._eval(match, env) if match is not None else None
        saved, self.expected_error = self.expected_error, (pattern if isinstance(pattern, str) else None,)
        self.raises_depth = self.depth
        try:
            self._block(stmt.body, env)
        except _Stop:
            pass
        finally:
            self.expected_error = saved
        _forget_matchers(env)

    def _return(self, stmt: ast.Return, env: Dict[str, Any]) -> None:
        raise _Return(self._eval(stmt.value, env) if stmt.value is not None else None)

    def _assert(self, stmt: ast.Assert, env: Dict[str, Any]) -> None:
        for test, positive in self._assertions(stmt.test, env):
            value = self._eval(test, env)
            if isinstance(value, Check):
                self._record(value, positive)

    def _assertions(self, test: ast.expr, env: Dict[str, Any]) -> Iterator[Tuple[ast.expr, bool]]:
        """(expression, expected truth) pairs an assert states."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            for v in test.values:
                yield from self._assertions(v, env)
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            yield test.operand, False
        elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is)):
            expected = self._eval(test.comparators[0], env)
            if isinstance(expected, bool):
                yield test.left, expected
        else:
            yield test, True

    _STATEMENTS: Dict[type, Callable[..., None]] = {
        ast.Assign: _assign, ast.AnnAssign: _ann_assign, ast.AugAssign: _aug_assign, ast.Expr: _expr,
        ast.For: _for, ast.With: _with, ast.Assert: _assert, ast.Return: _return,
        ast.Pass: lambda self, stmt, env: None,
    }

    # -- recording
    def _record(self, check: Check, positive: bool) -> None:
        matcher = check.matcher
        if matcher is not None and matcher.consumed is None:
            return
        if matcher is not None and not check.complete:  # matcher.accept_string(s)
            if positive:
                matcher.consumed = check.text
            else:
                matcher.consumed = None
            kind = "prefixes" if positive else "not_prefixes"
        elif matcher is not None:  # matcher.is_terminated()
            kind = "passing" if positive else "prefix_only"
        elif check.complete:
            kind = "passing" if positive else "failing"
        else:  # require_termination=False
            kind = "prefixes" if positive else "not_prefixes"
        self.budget[kind] += 1
        if self.budget[kind] > _MAX_STRINGS_PER_KIND:
            self.col.skip(f"xgrammar string beyond the first {_MAX_STRINGS_PER_KIND} of its kind in one test run")
            return
        self.col.observe("xgrammar", self.source, check.grammar.text, check.grammar.root, kind, check.text)

    # -- expressions
    def _eval(self, node: Optional[ast.expr], env: Dict[str, Any]) -> Any:
        if node is None:
            return UNKNOWN
        namespace = _pure_namespace(node, env)
        if namespace is not None:
            try:
                namespace["__builtins__"] = {}  # one scope: comprehensions see the names too
                return _materialise(eval(self._code(node), namespace))
            except Exception:  # noqa: BLE001 - not plain after all: evaluate symbolically
                pass
        handler = self._EXPRESSIONS.get(type(node))
        return handler(self, node, env) if handler is not None else UNKNOWN

    def _code(self, node: ast.expr) -> Any:
        code = self.compiled.get(id(node))
        if code is None:
            code = self.compiled[id(node)] = compile(ast.Expression(node), "<test>", "eval")
        return code

    def _boolop(self, node: ast.BoolOp, env: Dict[str, Any]) -> Any:
        """`matcher.accept_string(s) and matcher.is_terminated()`: is s complete."""
        first = self._eval(node.values[0], env)
        matcher = first.matcher if isinstance(first, Check) else None
        if not (isinstance(node.op, ast.And) and len(node.values) == 2 and matcher is not None
                and not first.complete and matcher.consumed is not None):
            return UNKNOWN
        matcher.consumed = first.text
        second = self._eval(node.values[1], env)
        matcher.consumed = None  # whether it accepted is known only to an assert
        if isinstance(second, Check) and second.matcher is matcher and second.complete:
            return Check(first.grammar, first.text, True)
        return UNKNOWN

    def _constant(self, node: ast.Constant, env: Dict[str, Any]) -> Any:
        return node.value

    def _name(self, node: ast.Name, env: Dict[str, Any]) -> Any:
        return env.get(node.id, UNKNOWN)

    def _collection(self, node: Any, env: Dict[str, Any]) -> Any:
        values = [self._eval(e, env) for e in node.elts]
        return values if isinstance(node, ast.List) else tuple(values)

    def _binop(self, node: ast.BinOp, env: Dict[str, Any]) -> Any:
        left, right = self._eval(node.left, env), self._eval(node.right, env)
        if isinstance(node.op, ast.Add) and type(left) is type(right) and isinstance(left, (str, bytes, tuple)):
            return left + right
        if isinstance(node.op, ast.Mult) and isinstance(left, (str, bytes)) and type(right) is int:
            return left * right
        if isinstance(node.op, ast.Mult) and isinstance(right, (str, bytes)) and type(left) is int:
            return right * left
        if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) and type(left) is int and type(right) is int:
            return {ast.Add: left + right, ast.Sub: left - right, ast.Mult: left * right}[type(node.op)]
        return UNKNOWN

    def _joined(self, node: ast.JoinedStr, env: Dict[str, Any]) -> Any:
        out: List[str] = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
                continue
            assert isinstance(part, ast.FormattedValue)
            value = self._eval(part.value, env)
            if part.conversion != -1 or part.format_spec is not None or type(value) not in (str, int):
                return UNKNOWN
            out.append(str(value))
        return "".join(out)

    def _subscript(self, node: ast.Subscript, env: Dict[str, Any]) -> Any:
        value, index = self._eval(node.value, env), self._eval(node.slice, env)
        if isinstance(value, (tuple, list, str)) and type(index) is int and -len(value) <= index < len(value):
            return value[index]
        return UNKNOWN

    def _unary(self, node: ast.UnaryOp, env: Dict[str, Any]) -> Any:
        value = self._eval(node.operand, env)
        if isinstance(node.op, ast.USub) and type(value) is int:
            return -value
        if isinstance(node.op, ast.Not) and isinstance(value, bool):
            return not value
        return UNKNOWN

    def _call(self, node: ast.Call, env: Dict[str, Any]) -> Any:
        name = _dotted(node.func)
        args = [self._eval(a, env) for a in node.args]
        kwargs = {k.arg: self._eval(k.value, env) for k in node.keywords if k.arg}
        short = name.rsplit(".", 2)
        key = ".".join(short[-2:]) if short[-2:-1] == ["Grammar"] else short[-1]
        builtin = self._CALLS.get(key)
        if builtin is not None:
            self._calling = key
            return builtin(self, args, kwargs, env)
        if isinstance(node.func, ast.Attribute):
            return self._method(node.func, args, kwargs, env)
        fn = self.functions.get(name)
        if fn is not None and not name.startswith("test_") and self.depth < 4:
            return self._call_helper(fn, args, kwargs)
        return UNKNOWN

    def _call_helper(self, fn: ast.FunctionDef, args: List[Any], kwargs: Dict[str, Any]) -> Any:
        params = [a.arg for a in fn.args.args]
        local = dict(self.globals)
        defaults = fn.args.defaults
        for p, d in zip(params[len(params) - len(defaults):], defaults):
            local[p] = self._eval(d, self.globals)
        local.update({a.arg: UNKNOWN for a in fn.args.kwonlyargs})
        local.update(zip(params, args))
        local.update(kwargs)
        self.depth += 1
        self.envs.append(local)
        try:
            self._block(fn.body, local)
        except _Return as r:
            return r.value
        finally:
            self.depth -= 1
            self.envs.pop()
        return None

    def _method(self, func: ast.Attribute, args: List[Any], kwargs: Dict[str, Any], env: Dict[str, Any]) -> Any:
        owner = self._eval(func.value, env)
        if isinstance(owner, PyMatcher):
            return self._matcher_method(owner, func.attr, args)
        if isinstance(owner, str) and func.attr == "join" and len(args) == 1 and isinstance(args[0], tuple) \
                and all(isinstance(a, str) for a in args[0]):
            return owner.join(args[0])
        if isinstance(owner, str) and func.attr in ("strip", "lstrip", "rstrip") and all(isinstance(a, str) for a in args):
            return getattr(owner, func.attr)(*args)
        if func.attr == "compile_grammar" and args:
            grammar = self._grammar_of(args[0], "compile_grammar")
            return PyCompiled(grammar) if isinstance(grammar, PyGrammar) else UNKNOWN
        self._invalidate(owner)  # a list's append, a set's add, ...
        return UNKNOWN

    def _matcher_method(self, matcher: PyMatcher, method: str, args: List[Any]) -> Any:
        if method == "accept_string" and len(args) == 1:
            text = _py_text(args[0], self.col)
            if text is not None and matcher.consumed is not None:
                return Check(matcher.grammar, matcher.consumed + text, False, matcher)
        elif method == "is_terminated" and matcher.consumed is not None and matcher.terminates:
            return Check(matcher.grammar, matcher.consumed, True, matcher)
        elif method == "fork":
            copy = PyMatcher(matcher.grammar, matcher.terminates)
            copy.consumed = matcher.consumed
            return copy
        elif method == "reset":
            matcher.consumed = ""
            return None
        elif method in _PURE_MATCHER_METHODS:
            return UNKNOWN
        matcher.consumed = None
        return UNKNOWN

    def _grammar_of(self, value: Any, stage: str, root: Any = "root", builds: bool = True) -> Any:
        """A PyGrammar for an EBNF string or grammar. Records that it compiles, or, inside
        `pytest.raises`, that it does not (only where this call builds the grammar)."""
        grammar = value if isinstance(value, PyGrammar) else None
        if isinstance(value, str) and isinstance(root, str):
            grammar = PyGrammar(value, root)
        if self.expected_error is not None:
            if grammar is not None and builds and self.depth == self.raises_depth:
                pattern = self.expected_error[0]
                self.col.compile("xgrammar", self.source, grammar.text, grammar.root, False, stage,
                                 pattern, error_is_regex=pattern is not None)
            else:
                self.col.skip("xgrammar pytest.raises around something other than building a grammar")
            raise _Stop()
        if grammar is None:
            return UNKNOWN
        if builds and (isinstance(value, str) or stage == "compile_grammar"):
            self.col.compile("xgrammar", self.source, grammar.text, grammar.root, True, stage)
        return grammar

    def _from_ebnf(self, args: List[Any], kwargs: Dict[str, Any], env: Dict[str, Any]) -> Any:
        root = kwargs.get("root_rule_name", args[1] if len(args) > 1 else "root")
        return self._grammar_of(args[0] if args else UNKNOWN, "from_ebnf", root)

    def _no_normalization(self, args: List[Any], kwargs: Dict[str, Any], env: Dict[str, Any]) -> Any:
        root = kwargs.get("root_rule_name", args[1] if len(args) > 1 else "root")
        return self._grammar_of(args[0] if args else UNKNOWN, "parse", root)

    def _accept_string(self, args: List[Any], kwargs: Dict[str, Any], env: Dict[str, Any]) -> Any:
        if len(args) != 2 or isinstance(args[0], _Unknown):
            return UNKNOWN
        # the helper compiles the grammar first (a pattern of a Regex macro, for example,
        # is only compiled then), so an error raised by it is a compile error
        grammar = self._grammar_of(args[0], "from_ebnf" if isinstance(args[0], str) else "compile_grammar")
        text = _py_text(args[1], self.col)
        complete = kwargs.get("require_termination", True)
        if not isinstance(grammar, PyGrammar) or text is None or not isinstance(complete, bool):
            return UNKNOWN
        return Check(grammar, text, complete)

    def _get_matcher(self, args: List[Any], kwargs: Dict[str, Any], env: Dict[str, Any]) -> Any:
        """_get_matcher_from_grammar (terminate_without_stop_token=True) and
        _get_matcher_from_grammar_and_tokenizer_info (GrammarMatcher's default: False)."""
        stage = "from_ebnf" if args and isinstance(args[0], str) else "compile_grammar"
        grammar = self._grammar_of(args[0], stage) if args else UNKNOWN
        terminates = kwargs.get("terminate_without_stop_token", self._calling == "_get_matcher_from_grammar")
        return PyMatcher(grammar, terminates is True) if isinstance(grammar, PyGrammar) else UNKNOWN

    def _grammar_matcher(self, args: List[Any], kwargs: Dict[str, Any], env: Dict[str, Any]) -> Any:
        """xgr.GrammarMatcher(compiled, terminate_without_stop_token=...)."""
        if args and isinstance(args[0], PyCompiled):
            return PyMatcher(args[0].grammar, kwargs.get("terminate_without_stop_token") is True)
        return UNKNOWN

    def _range(self, args: List[Any], kwargs: Dict[str, Any], env: Dict[str, Any]) -> Any:
        if args and all(type(a) is int for a in args) and len(args) <= 3:
            values = range(*args)
            return tuple(values) if len(values) <= _MAX_ITERATIONS else UNKNOWN
        return UNKNOWN

    def _enumerate(self, args: List[Any], kwargs: Dict[str, Any], env: Dict[str, Any]) -> Any:
        if len(args) == 1 and isinstance(args[0], (tuple, str)):
            return tuple(enumerate(args[0]))
        return UNKNOWN

    def _param(self, args: List[Any], kwargs: Dict[str, Any], env: Dict[str, Any]) -> Any:
        return _Param(tuple(args), "marks" in kwargs)

    _CALLS: Dict[str, Callable[..., Any]] = {
        "Grammar.from_ebnf": _from_ebnf, "_ebnf_to_grammar_no_normalization": _no_normalization,
        "_is_grammar_accept_string": _accept_string, "_get_matcher_from_grammar": _get_matcher,
        "_get_matcher_from_grammar_and_tokenizer_info": _get_matcher, "GrammarMatcher": _grammar_matcher,
        "range": _range, "enumerate": _enumerate, "param": _param,
    }
    _EXPRESSIONS: Dict[type, Callable[..., Any]] = {
        ast.Constant: _constant, ast.Name: _name, ast.Tuple: _collection, ast.List: _collection,
        ast.Set: _collection, ast.BinOp: _binop, ast.JoinedStr: _joined, ast.Subscript: _subscript,
        ast.UnaryOp: _unary, ast.Call: _call, ast.BoolOp: _boolop,
    }


class _Param:
    """A pytest.param(...) row."""

    def __init__(self, values: tuple, marked: bool) -> None:
        self.values, self.marked = values, marked


_BUILDS = ("from_ebnf", "_ebnf_to_grammar_no_normalization", "compile_grammar", "_is_grammar_accept_string",
           "_get_matcher_from_grammar", "_get_matcher_from_grammar_and_tokenizer_info")


def _one_build(body: List[ast.stmt]) -> bool:
    """A `pytest.raises` body whose error can only come from building one grammar: a
    single statement with one call that builds (or compiles) a grammar, and no other call
    than those, whose arguments are plain."""
    if len(body) != 1:
        return False
    calls = [n for n in ast.walk(body[0]) if isinstance(n, ast.Call)]
    builds = [c for c in calls if _dotted(c.func).rsplit(".", 1)[-1] in _BUILDS]
    others = [c for c in calls if c not in builds and not _dotted(c.func).endswith(("GrammarCompiler", "TokenizerInfo"))]
    return len(builds) == 1 and not others


def _skipped(fn: ast.FunctionDef) -> bool:
    return any(_dotted(d.func if isinstance(d, ast.Call) else d).endswith(("mark.skip", "mark.xfail"))
               for d in fn.decorator_list)


def _pure_namespace(node: ast.expr, env: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The names a plain expression reads, with their values; None if the expression is
    not plain (other node types, private attributes, or names bound to anything else)."""
    local = {t.id for n in ast.walk(node) if isinstance(n, ast.comprehension)
             for t in ast.walk(n.target) if isinstance(t, ast.Name)}
    namespace: Dict[str, Any] = {}
    for n in ast.walk(node):
        if not isinstance(n, _PURE_NODES) or (isinstance(n, ast.Attribute) and n.attr.startswith("_")):
            return None
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local:
            value = env.get(n.id, _SAFE_NAMES.get(n.id, UNKNOWN))
            if not (n.id in _SAFE_NAMES and n.id not in env) and not _plain(value):
                return None
            namespace[n.id] = value
    return namespace


def _plain(value: Any, depth: int = 0) -> bool:
    if isinstance(value, _PLAIN_TYPES):
        return True
    if depth > 4:
        return False
    if isinstance(value, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return isinstance(value, _CONTAINERS) and all(_plain(v, depth + 1) for v in value)


def _materialise(value: Any) -> Any:
    """Iterators (generators, itertools.product, zip, ...) become tuples (too long:
    unknown); sets become sorted tuples, so that the output does not depend on hashing."""
    if isinstance(value, (set, frozenset)):
        return tuple(sorted(value, key=repr))
    if isinstance(value, (_PLAIN_TYPES, _CONTAINERS, dict)):
        return value
    if hasattr(value, "__next__"):
        items = tuple(itertools.islice(value, _MAX_ITERATIONS + 1))
        return items if len(items) <= _MAX_ITERATIONS else UNKNOWN
    return UNKNOWN


def _forget_matchers(env: Dict[str, Any]) -> None:
    for value in env.values():
        if isinstance(value, PyMatcher):
            value.consumed = None


def _py_text(value: Any, col: Collector) -> Optional[str]:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            col.skip("xgrammar input given as bytes that are not UTF-8 (string left out)")
    return None


def extract_xgrammar(col: Collector, root: str) -> None:
    folder = os.path.join(root, "tests", "python")
    for name in sorted(os.listdir(folder)):
        if name.startswith("test_") and name.endswith(".py"):
            tree = ast.parse(read_text(os.path.join(folder, name)))
            PyTestInterpreter(col, tree, f"tests/python/{name}").run()
