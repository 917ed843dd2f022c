"""What the readers of the character-grammar dialects share (gbnf.py, xgrammar.py): a
cursor over the text, blanks and `#` comments, groups as alternatives of sequences, and
the check that every referenced rule is defined."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

from ...errors import GrammarError, scalar_text
from ..digits import grammar_int, is_digits
from .ast import Alt, Node, Ref, Seq, children


class Reader:
    """A position in a grammar's text, with errors placed at it."""

    def __init__(self, text: str) -> None:
        self.text = scalar_text(text)
        self.pos = 0

    def error(self, message: str, offset: Optional[int] = None) -> GrammarError:
        return GrammarError(message, self.text, self.pos if offset is None else offset)

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.text[i] if i < len(self.text) else ""

    def space(self, newline_ok: bool = True) -> None:
        """Skip blanks and `#` comments (and newlines if `newline_ok`)."""
        text, n = self.text, len(self.text)
        while self.pos < n:
            c = text[self.pos]
            if c == "#":
                while self.pos < n and text[self.pos] not in "\r\n":
                    self.pos += 1
            elif c in " \t" or (newline_ok and c in "\r\n"):
                self.pos += 1
            else:
                break

    def quoted(self, read_char: Callable[[], str], unterminated: str, newline_ends: bool = False) -> str:
        """The text of the quoted literal that starts here, each character (escapes
        decoded) read by `read_char`; the error `unterminated`, at the opening quote, if
        the text ends (or, with `newline_ends`, the line) before the closing quote."""
        start, quote = self.pos, self.peek()
        self.pos += 1
        chars: List[str] = []
        while self.peek() != quote:
            if not self.peek() or (newline_ends and self.peek() in "\r\n"):
                raise self.error(unterminated, start)
            chars.append(read_char())
        self.pos += 1
        return "".join(chars)

    def digits(self) -> Optional[int]:
        """A run of decimal digits here, read; None if there is none."""
        start = self.pos
        while is_digits(self.peek()):
            self.pos += 1
        if self.pos == start:
            return None
        try:
            return grammar_int(self.text[start:self.pos])
        except ValueError as e:
            raise self.error(str(e), start) from None


def alternatives(offset: int, alts: List[List[Node]]) -> Node:
    """The node of alternatives of item sequences (one sequence: itself)."""
    seqs: List[Node] = [Seq(items[0].offset if items else offset, items) for items in alts]
    return seqs[0] if len(seqs) == 1 else Alt(offset, seqs)


def undefined_reference(rules: Dict[str, Node]) -> Optional[Tuple[str, Ref]]:
    """The first (rule name, reference) that names no rule, if any."""
    for name, body in rules.items():
        stack = [body]
        while stack:
            node = stack.pop()
            if isinstance(node, Ref) and node.name not in rules:
                return name, node
            stack.extend(children(node))
    return None
