"""The grammar IR (refimpl/grammar/ir.py): its text, `to_text`, is readable Lark."""
from refimpl.frontends.lark import lark_to_ir
from refimpl.grammar.simplify import simplify


def test_to_text_of_a_parsed_grammar() -> None:
    ir = lark_to_ir('start: item ("," item)*\nitem: NUMBER | "null"\n%import common.NUMBER')
    assert ir.to_text() == (
        'start: item ("," item)*\n'
        "item: NUMBER\n"
        ' | "null"\n'
        '("," item): "," item\n'
        '("," item)*: ("," item)* ("," item)\n'
        ' | ""\n'
    )
    assert simplify(ir).to_text() == (
        'start: item ("," item)*\n'
        "item: NUMBER\n"
        ' | "null"\n'
        '("," item)*: ("," item)* "," item\n'
        ' | ""\n'
    )


def test_to_text_of_repetitions() -> None:
    ir = lark_to_ir('start: "a"{2,3} b?\nb: /[0-9]+/')
    assert ir.to_text() == (
        'start: "a"{2,3} b?\n'
        '"a"{2,3}: "a"{2} "a"?\n'
        '"a"{2}: "a" "a"\n'
        '"a"?: "a"\n'
        ' | ""\n'
        "b: /[0-9]+/\n"
        "b?: b\n"
        ' | ""\n'
    )


