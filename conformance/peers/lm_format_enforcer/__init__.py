"""lm-format-enforcer's TokenEnforcer on the same vocabulary as refimpl, for regexes and JSON
schemas (optional: the `peers` extra).

    engine.py       LmFormatEnforcerEngine, the engine `lm-format-enforcer`
    session.py      its tokenizer data of refimpl's vocabulary, its parsers, a session
    reading.py      tokens as decoded strings, interegular's regexes, its JSON, on refimpl
    differences/    its known differences, by topic
"""
from .engine import LmFormatEnforcerEngine
from .reading import decoded_text, token_string

__all__ = ["LmFormatEnforcerEngine", "decoded_text", "token_string"]
