"""xgrammar's GrammarMatcher on a raw-bytes TokenizerInfo (optional: xgrammar imports
torch; not in CI).

    engine.py       XgrammarEngine, the engine `xgrammar`
    session.py      its compiler for refimpl's vocabulary, its matcher for a spec, a session
    reading.py      a spec as xgrammar's input; refimpl's grammars for the way it reads
                    regexes, character grammars and JSON schemas
    differences.py  its known differences
    defaults.py     XgrammarDefaultEngine, the engine `xgrammar-default`: JSON schemas with
                    compile_json_schema's defaults (strict mode), and strict mode's difference
    converted.py    XgrammarCppEngine, the engine `xgrammar.cpp`: a JSON schema as llama.cpp's
                    converter writes it in GBNF (MaskBench's XGrammar.cpp), its differences
    maskbench.py    those first met on MaskBench (appended to differences.py's list)
    json_schema_test_suite.py  those first met on the JSON-Schema-Test-Suite (appended
                    after MaskBench's; X17)
    regex_fsm.py    how its `Regex` macro builds an automaton (a JSON schema's pattern), as a
                    regex: its optional groups (X14)
"""
from .engine import XgrammarEngine

__all__ = ["XgrammarEngine"]
