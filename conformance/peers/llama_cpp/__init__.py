"""llama.cpp's grammar sampler (through llama-cpp-python, the `llama` extra), on the same
token bytes as refimpl.

    engine.py       LlamaCppEngine, the engine `llama.cpp`
    session.py      a vocab-only GGUF of refimpl's vocabulary, its model, a sampler session
    reading.py      the GBNF llama.cpp runs for a spec (a JSON schema's through its converter)
    differences.py  its known differences
    spec.py         LlamaCppSpecEngine, the engine `llama.cpp-spec`: the converter with JSON's
                    whitespace, MaskBench's llama.cpp (its default, `llama.cpp`, is `" "?`)
"""
from .engine import LlamaCppEngine

__all__ = ["LlamaCppEngine"]
