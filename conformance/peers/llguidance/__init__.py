"""llguidance, driven on the same vocabulary bytes as refimpl (optional: the `peers` extra).

    engine.py       LlguidanceEngine, the engine `llguidance`
    session.py      its tokenizer of refimpl's vocabulary, its matcher, a session; the
                    side-by-side figures of benchmarks/ and tests/ use it too
    reading.py      a grammar spec as llguidance's grammar text; refimpl replayed reading
                    tokens llguidance's way, for the predicates
    differences.py  its known differences
"""
from .engine import LlguidanceEngine
from .reading import grammar_text
from .session import first_mask_seconds, matcher, tokenizer

__all__ = ["LlguidanceEngine", "first_mask_seconds", "grammar_text", "matcher", "tokenizer"]
