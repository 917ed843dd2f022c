"""kbnf's Engine on the same vocabulary bytes as refimpl (optional: `pip install kbnf`, in
the `peers` extra), for grammars in kbnf's dialect (docs/ebnf.md, "kbnf's EBNF").

    engine.py       KbnfEngine, the engine `kbnf`
    session.py      kbnf's Vocabulary of refimpl's vocabulary, its Engine, a session
    reading.py      the dialect it reads, and the shapes of grammars it mishandles
    differences.py  its known differences
"""
from .engine import KbnfEngine

__all__ = ["KbnfEngine"]
