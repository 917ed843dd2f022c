"""The compiler put together (refimpl/frontends/jsonschema/compiler.py): the worklist
that gives each nonterminal its rules, and the entry points — into an IR of its own or
into a larger grammar, with its own lexeme class and whitespace (`%json` in Lark)."""
import pytest

from refimpl import Grammar
from refimpl.errors import GrammarError
from refimpl.frontends.jsonschema import json_schema_to_ir, json_whitespace
from refimpl.frontends.jsonschema.compiler import compiler_for
from refimpl.grammar.ir import GrammarIR
from tests.support.text_outcome import outcome


def accepts(grammar, text) -> bool:
    return outcome(grammar, text) == "accept"


def test_a_value_gets_a_scalar_lexeme_and_one_alternative_per_container_type():
    c = compiler_for({"type": ["integer", "array", "object"], "maxItems": 0, "maxProperties": 0})
    start = c.run(c.comp.subschemas.root)
    ir = c.comp.ir
    rules = [rhs for lhs, rhs in ir.rules if lhs == start]
    assert [ir.symbol_name(rhs[0]) for rhs in rules] == ["integer", "json[]", "json{}"]
    assert c.nonterminals.todo == []  # the worklist is done


def test_into_an_ir_of_a_larger_grammar():
    ir = GrammarIR()
    r = json_schema_to_ir({"type": "array"}, ir=ir, lexeme_class=2, whitespace_pattern="[ ]")
    assert ir.start == -1 and r.start >= 0  # the caller's grammar decides its start
    assert ir.ignores == {2: json_whitespace(ir.es, {}, whitespace_pattern="[ ]")} and 2 in ir.ignore_once
    assert {lx.lexeme_class for lx in ir.lexemes} == {2}
    with pytest.raises(GrammarError, match="already has another %ignore"):
        json_schema_to_ir({}, ir=ir, lexeme_class=2)
    e = json_schema_to_ir({"type": "array"}, ir=ir, lexeme_class=2, whitespace_pattern="[ ]", entry_class=3)
    first = e.start
    while first >= 0:  # the first symbols of the copy of the start, down to a lexeme
        first = [rhs for lhs, rhs in ir.rules if lhs == first][0][0]
    assert ir.lexemes[~first].name == '"["' and ir.lexemes[~first].lexeme_class == 3
    with pytest.raises(GrammarError, match="must have no %ignore"):
        json_schema_to_ir({}, ir=ir, lexeme_class=2, whitespace_pattern="[ ]", entry_class=2)


def test_lark_json_has_its_own_whitespace():
    g = Grammar.from_lark('start: TEXT | %json {"type": "object"}\nTEXT: /[a-z ]+/')
    assert accepts(g, "ab c") and accepts(g, '{ "a" : 1 }') and not accepts(g, ' {"a":1}')
    two = Grammar.from_lark('start: %json {"type": "integer"} "," %json {"type": "array", '
                            '"x-guidance": {"whitespace_flexible": false}}')
    assert accepts(two, "1,[1,2]") and not accepts(two, "1,[1, 2]")
    outer = Grammar.from_lark('start: "BEGIN" %json {"type": "object"} "END"\n%ignore " "')
    assert accepts(outer, 'BEGIN{"a": [1]}  END')
    # as in llguidance, JSON whitespace comes after a token of the JSON, not before its first
    assert not accepts(outer, 'BEGIN {}END') and not accepts(two, "1, [1,2]")
    assert not accepts(Grammar.from_lark('start: "id=" %json {"type": "integer"}'), "id= 1")
    with pytest.raises(GrammarError, match="failed to compile JSON schema: Unsatisfiable schema"):
        Grammar.from_lark('start: %json {"type": "integer", "minimum": 3, "maximum": 1}')
    with pytest.raises(GrammarError, match="cannot be used in terminals"):
        Grammar.from_lark("start: A\nA: %json {}")
