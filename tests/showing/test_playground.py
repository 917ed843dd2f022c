"""The playground's Python side (refimpl/showing/playground.py), without a browser: every
example compiles and steps through its text; the answer's mask is the Matcher's; `why`
answers for any token what `explain(..., why=[token])` computes, at any step; grammar
errors come with their line, column and caret, for every kind."""
import json

import pytest

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.showing import explain
from refimpl.showing import playground as pg


@pytest.mark.parametrize("kind", sorted(pg.KINDS))
def test_every_example_steps_through_its_text(kind):
    _, grammar, text = pg.KINDS[kind]
    ex, out = pg.run(kind, grammar, "bytes", text=text)
    assert out["ok"], out
    assert out["stopped"] == "" and out["text"] == text
    assert len(out["steps"]) == len(text.encode("utf-8")) + 1  # one byte a token
    assert "<section class=\"step\"" in out["page"]
    assert json.loads(json.dumps(out)) == out  # JSON values, as the page's glue reads them


def test_the_answer_is_the_matchers_mask_on_gpt2():
    _, grammar, text = pg.KINDS["lark"]
    ex, out = pg.run("lark", grammar, "gpt2", text=text)
    v = pg.vocabulary("gpt2")
    m = Matcher(Grammar.from_lark(grammar), v)
    assert m.consume_bytes(text.encode())
    allowed = m.mask().allowed()
    assert out["allowed"] == len(allowed)
    assert [t for t, _ in out["next"]] == [t for t in allowed if v.is_grammar_token(t)][:pg.ALLOWED]
    assert dict(out["next"])[198] == "\\n"  # "\n", shown as an escape
    assert out["vocab_size"] == len(v) and out["eos"] == m.is_accepting()


def test_tokens_instead_of_text():
    ex, out = pg.run("regex", "[0-9]+", "bytes", tokens=[ord("4"), ord("2")])
    assert out["ok"] and out["text"] == "42" and [s["token"] for s in out["steps"]] == [None, 52, 50]
    _, out = pg.run("regex", "[0-9]+", "bytes", tokens=[ord("x")])
    assert out["stopped"].startswith("token 120 ('x') is not allowed after step 0")


def test_why_answers_any_token_as_explain_does():
    _, grammar, text = pg.KINDS["lark"]
    v = pg.vocabulary("bytes")
    ex, out = pg.run("lark", grammar, "bytes", text=text)
    for step in range(len(ex.steps)):
        for token in ("}", "x", '"', 256):
            t = token if isinstance(token, int) else ord(token)
            answer = pg.why(ex, step, token)
            if ex.steps[step].flags[t]:
                assert answer["allowed"] and "is allowed at this step" in answer["html"]
                continue
            asked = explain(Grammar.from_lark(grammar), v, text=text, why=[t]).steps[step].refusals[0]
            assert asked.token == t
            assert not answer["allowed"] and answer["html"] == pg.page.why_detail(asked)
    assert "EOS" in pg.why(ex, 0, 256)["html"]


def test_why_of_no_token():
    ex, _ = pg.run("regex", "a", "bytes")
    assert "no token of the vocabulary is &#x27;ab&#x27;" in pg.why(ex, 0, "ab")["html"]
    assert "not in the vocabulary" in pg.why(ex, 0, 999)["html"]


@pytest.mark.parametrize("kind, text, line, column, message", [
    ("regex", "[0-9]+(", 1, 7, "unclosed group"),
    ("lark", "start: A\nA: /[0-9/", 2, 5, "unclosed character class"),
    ("json_schema", '{"type": "object",\n "properties": {"a": }}', 2, 22, "invalid JSON: unexpected character '}'"),
    ("gbnf", 'root ::= "a" x', 1, 14, "undefined rule 'x'"),
    ("xgrammar", 'root ::= "a" |', 1, 15, ""),
    ("kbnf", 'start ::= "a" ', 1, 15, "expected ;"),
])
def test_grammar_errors_have_line_column_and_caret(kind, text, line, column, message):
    ex, out = pg.run(kind, text, "bytes")
    assert ex is None and not out["ok"]
    e = out["error"]
    assert (e["line"], e["column"]) == (line, column), e
    assert message in e["message"]
    source_line, caret = e["caret"].split("\n")
    assert source_line == text.split("\n")[line - 1] and caret == " " * (column - 1) + "^"


def test_schema_errors_name_their_pointer():
    _, out = pg.run("json_schema", '{"type": "strin"}', "bytes")
    assert out["error"] == {"type": "SchemaError", "message": "unknown type 'strin' at /type", "line": None,
                            "column": None, "caret": ""}


def test_examples_and_vocabularies():
    assert [e["kind"] for e in pg.examples()] == list(pg.KINDS) == ["regex", "lark", "json_schema", "gbnf",
                                                                  "xgrammar", "kbnf"]
    assert pg.vocabulary("gpt2") is pg.vocabulary("gpt2") and len(pg.vocabulary("bytes")) == 257
    with pytest.raises(ValueError, match="unknown vocabulary 'x'"):
        pg.vocabulary("x")
    with pytest.raises(ValueError, match="unknown grammar kind 'y'"):
        pg.grammar("y", "")
    assert isinstance(Vocabulary.load("bytes"), Vocabulary)
