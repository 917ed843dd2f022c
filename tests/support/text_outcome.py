"""What a grammar says of a text, for the tests of the grammar frontends: "accept" (a
sentence), "prefix_only" (a viable prefix only) or "reject" — the words of llguidance's
and the grammar cases' data (tests/data/)."""
from typing import Union

from refimpl import Grammar
from refimpl.grammar.ir import CompiledGrammar
from refimpl.recognition.recognizer import Recognizer


def outcome(grammar: Union[Grammar, CompiledGrammar], text: Union[str, bytes]) -> str:
    r = Recognizer(grammar.compiled if isinstance(grammar, Grammar) else grammar)
    if not r.consume_bytes(text.encode("utf-8") if isinstance(text, str) else text):
        return "reject"
    return "accept" if r.is_accepting() else "prefix_only"
