"""What a grammar says of a text, for the tests of the grammar frontends."""
from refimpl import Grammar
from refimpl.recognition.recognizer import Recognizer


def outcome(grammar: Grammar, text: str) -> str:
    """"accept" (a sentence), "prefix" (a viable prefix only) or "reject"."""
    r = Recognizer(grammar.compiled)
    if not r.consume_bytes(text.encode("utf-8")):
        return "reject"
    return "accept" if r.is_accepting() else "prefix"
