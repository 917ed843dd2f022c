"""outlines-core's Index (a DFA over tokens, built ahead of time), driven on the same
vocabulary bytes as refimpl, for regexes and JSON schemas (optional: `pip install
outlines-core`).

    engine.py       OutlinesCoreEngine, the engine `outlines-core`
    session.py      outlines-core's Vocabulary and Index for refimpl's vocabulary; a session
    reading.py      the regex outlines-core runs for a grammar spec
    differences.py  its known differences
    spec.py         OutlinesCoreSpecEngine, the engine `outlines-core-spec`: JSON's whitespace
                    (outlines-core's default, the engine `outlines-core`, is `[ ]?`)
"""
from .engine import OutlinesCoreEngine

__all__ = ["OutlinesCoreEngine"]
