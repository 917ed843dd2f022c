"""transformers-cfg's grammar constraint (IncrementalGrammarConstraint), on the same token
bytes as refimpl, for GBNF grammars (optional: `pip install transformers-cfg`).

    engine.py       TransformersCfgEngine, the engine `transformers-cfg`
    session.py      an HF tokenizer of refimpl's vocabulary, its byte trie, a session
    reading.py      its parser; GBNF and token bytes as it reads them, for the predicates
    differences.py  its known differences
"""
from .engine import TransformersCfgEngine

__all__ = ["TransformersCfgEngine"]
