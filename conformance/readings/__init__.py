"""Readings several peers share, for the predicates of their known differences (and for
building their inputs): how they read grammars, JSON and token bytes.

    byte_level.py       GPT-2's byte-level spelling of token bytes (GGUF and HF token texts)
    converted_schemas.py  JSON schemas as llama-cpp-python's converter writes them in GBNF
                        (llama.cpp's and xgrammar.cpp's input), and whether an engine answers so
    grammar_shapes.py   the shapes of a character grammar peers mishandle: nullable and
                        unproductive rules, left and unit cycles; rewriting its nodes
    json_schemas.py     a schema's subschemas, walked and rewritten; the keywords that hold
                        subschemas (conformance's one copy of refimpl's list)
    json_text.py        JSON text: strings and escapes, respellings, numbers
    regex_text.py       regex text with its class escapes written out (the ASCII classes)
"""
