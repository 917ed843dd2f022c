"""The playground's one entry point: what the documentation site's live page asks
refimpl, answered as JSON-ready values (its Pyodide glue, docs/playground/worker.js, a Web
Worker the page's script docs/playground/playground.js starts, calls it).

The page sends a grammar kind and text, a vocabulary name, and the text or the token ids
to step through; `run` answers with the explain page itself (page.py's `render`, shown
in a frame: the same views and script as `maskref explain`), the last step's mask (its
allowed tokens, for the learner to click one), or the grammar's error with its line,
column and a caret. `why` then answers, for ANY token and any step of that run, where
the walk refused it and why (steps.py's `refusal`), drawn as the page draws its own.

The answers are JSON values (dicts, lists, strings, numbers). Nothing here holds state
but the vocabularies, loaded once: `run` returns the Explanation with its answer and `why`
takes it back (the worker keeps it between the two).

>>> ex, out = run("regex", "[0-9]+(\\\\.[0-9]+)?", "bytes", text="12.")
>>> out["ok"], out["allowed"], out["text"], [s["token"] for s in out["steps"]]
(True, 10, '12.', [None, 49, 50, 46])
>>> "is refused" in why(ex, 3, ".")["html"], why(ex, 3, "7")["allowed"]
(True, True)
>>> run("lark", "start: A\\nA: /[0-9/", "bytes")[1]["error"]["line"]
2
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ..errors import GrammarError, LimitError, MaskrefError, RegexError, SchemaError, caret_line
from ..frontends.grammar import Grammar
from ..frontends.jsontext import JsonTextError, read_whole_json
from ..html import esc, plain
from ..tokens.vocab import Vocabulary
from . import page
from .steps import Explanation, explain, grammar_summary, refusal, show, token_id

# the kinds of grammar the page offers: (its name on the page, an example, a text to step through)
KINDS: Dict[str, Tuple[str, str, str]] = {
    "regex": ("Regular expression (Rust syntax)", "[0-9]+(\\.[0-9]+)?", "12.5"),
    "lark": ("Lark (llguidance's dialect)", """\
// objects, arrays, numbers and lowercase strings
start: value
value: object | array | NUMBER | STRING
object: "{" (pair ("," pair)*)? "}"
pair: STRING ":" value
array: "[" (value ("," value)*)? "]"
STRING: /"[a-z ]*"/
NUMBER: /[0-9]+/
%ignore /[ \\n]+/
""", '{"a": [1, 2'),
    "json_schema": ("JSON schema", """\
{
  "type": "object",
  "properties": {
    "name": {"type": "string", "maxLength": 20},
    "age": {"type": "integer", "minimum": 0}
  },
  "required": ["name", "age"],
  "additionalProperties": false
}
""", '{"name": "Ada", "age": 3'),
    "gbnf": ("GBNF (llama.cpp)", """\
root ::= "[" item ("," item)* "]"
item ::= [a-z]+ | "(" root ")"
""", "[ab,([cd"),
    "xgrammar": ("EBNF (xgrammar)", """\
root ::= expr ("=" expr)*
expr ::= term ([-+*/] term)*
term ::= num | "(" expr ")"
num  ::= [0-9]+
""", "(3*4)-5="),
    "kbnf": ("EBNF (kbnf)", """\
start ::= "Q: " #ex"\\\\?" "?" answer;
answer ::= #e"(.|\\n)*\\n\\n" | except!("\\n", 5) "!";
""", "Q: Why?Yes"),
}
VOCABULARIES = ("bytes", "gpt2")
ALLOWED = 400  # allowed tokens listed for the learner to click, at most


def grammar(kind: str, text: str) -> Grammar:
    """The grammar of `kind` (a key of KINDS) written as `text`."""
    if kind == "regex":
        return Grammar.from_regex(text)
    if kind == "lark":
        return Grammar.from_lark(text)
    if kind == "json_schema":
        read_whole_json(text)  # a JSON syntax error with its offset (JsonTextError)
        return Grammar.from_json_schema(text)
    if kind == "gbnf":
        return Grammar.from_gbnf(text)
    if kind in ("xgrammar", "kbnf"):
        return Grammar.from_ebnf(text, dialect=kind)
    raise ValueError("unknown grammar kind %r: one of %s" % (kind, ", ".join(KINDS)))


_VOCABULARIES: Dict[str, Vocabulary] = {}


def vocabulary(name: str) -> Vocabulary:
    """An embedded vocabulary (VOCABULARIES), loaded once (with it, its token trie)."""
    if name not in VOCABULARIES:
        raise ValueError("unknown vocabulary %r: one of %s" % (name, ", ".join(VOCABULARIES)))
    if name not in _VOCABULARIES:
        _VOCABULARIES[name] = Vocabulary.load(name)
    return _VOCABULARIES[name]


def run(kind: str, grammar_text: str, vocab: str, text: str = "", tokens: Sequence[int] = (),
        why: Sequence[Union[str, int]] = ()) -> Tuple[Optional[Explanation], Dict[str, Any]]:
    """Explains the masks along `text` (or `tokens`, when given) for the page: the
    Explanation (for `why`) and the answer, `{"ok": True, "page": ..., "steps": ...,
    "allowed": ..., "next": ...}` (next: the allowed tokens as (id, text), control
    characters as escapes), or `{"ok": False, "error": ...}` (error_view)."""
    try:
        g = grammar(kind, grammar_text)
        v = vocabulary(vocab)
        ex = explain(g, v, text=text, tokens=tokens, why=why)
    except (MaskrefError, JsonTextError) as e:
        return None, {"ok": False, "error": error_view(kind, grammar_text, e)}
    last = ex.steps[-1]
    allowed = [t for t in range(len(last.flags)) if last.flags[t]]
    return ex, {
        "ok": True,
        "page": page.render(ex),
        "summary": grammar_summary(g),
        "vocab_size": len(v),
        "steps": [{"token": s.token, "token_text": s.token_text, "allowed": s.allowed} for s in ex.steps],
        "text": last.text,
        "stopped": ex.stopped,
        "allowed": last.allowed,
        "eos": last.eos,
        "next": [[t, plain(show(v.tokens[t]))] for t in allowed if v.is_grammar_token(t)][:ALLOWED],
    }


def why(ex: Explanation, step: int, token: Union[str, int]) -> Dict[str, Any]:
    """Why `token` (an id or an exact text) is refused at `step` of the run: `{"html":
    ..., "allowed": ...}`, the html as the page's why-box draws it (page.why_detail); a
    text that is no token, or an id out of range, says so."""
    try:
        t = token_id(ex.vocab, token)
    except MaskrefError as e:
        return {"html": "<p class=\"why-none\">%s</p>" % esc(str(e)), "allowed": False}
    s = ex.steps[step]
    if s.flags[t]:
        return {"html": "<p class=\"why-allowed\">%s is allowed at this step: it is in the mask.</p>"
                % page.token_chip(t, show(ex.vocab.tokens[t])), "allowed": True}
    f = refusal(ex.matcher, ex.traces[step], t)
    if f is None:  # refused, but no walk event covers it: the mask cache answered at that step
        return {"html": "<p class=\"why-ask\">%s is refused at this step; the mask came from the mask cache "
                "(the same state was met before), so no walk recorded where it dies: see the first step "
                "with the same mask.</p>" % page.token_chip(t, show(ex.vocab.tokens[t])), "allowed": False}
    return {"html": page.why_detail(f), "allowed": False}


def error_view(kind: str, source: str, e: Exception) -> Dict[str, Any]:
    """A grammar's error for the page: its message, and where known its line and column
    (1-based) and the line with a caret under the place."""
    offset: Optional[int] = None
    message = str(e).split("\n")[0]
    if isinstance(e, GrammarError) and e.offset is not None and e.text == source:
        offset, message = e.offset, e.message
    elif isinstance(e, RegexError) and kind == "regex" and e.pattern == source:
        offset, message = e.offset, e.message
    elif isinstance(e, JsonTextError):
        offset, message = e.offset, "invalid JSON: %s" % e.message
    elif isinstance(e, SchemaError):
        message = "%s at %s" % (e.message, e.pointer or "/")
    elif isinstance(e, GrammarError):
        message = e.message
    out: Dict[str, Any] = {"type": type(e).__name__, "message": message, "line": None, "column": None, "caret": ""}
    if isinstance(e, LimitError):
        out["message"] = str(e)
    if offset is not None:
        offset = max(0, min(offset, len(source)))
        out["line"] = source.count("\n", 0, offset) + 1
        out["column"] = offset - (source.rfind("\n", 0, offset) + 1) + 1
        out["caret"] = caret_line(source, offset)
    return out


def examples() -> List[Dict[str, str]]:
    """The kinds of grammar, each with its example: for the page's menu."""
    return [{"kind": k, "name": name, "grammar": g, "text": t} for k, (name, g, t) in KINDS.items()]
