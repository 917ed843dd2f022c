"""Frontends: grammar text in each format the field uses, read into the grammar IR.

    lark/         llguidance's Lark dialect (docs/lark.md)
    jsonschema/   JSON schema, as llguidance means it (docs/jsonschema.md)
    ebnf/         character grammars: llama.cpp's GBNF, xgrammar's and kbnf's EBNF (docs/ebnf.md)
    typed/        Python types, through their JSON schema (docs/types.md)
    jsontext.py   the one JSON text reader and writer the frontends share
    grammar.py    `Grammar`: the entry point of every frontend, simplified and compiled once

Frontends know nothing of tokens or of recognition: they build a GrammarIR (refimpl.grammar).
"""
