"""Types of the C extension accel._native (accel/_native.c), for the type checker."""
from typing import Any, Callable, Tuple

def walk(
    trie: Any,
    lexer: Any,
    advance: Callable[[int, int, int], Tuple[int, int]],
    state: int,
    top: int,
    allowed: bytearray,
) -> int:
    """refimpl.masks.walk.walk in C: the same masks, callbacks and count of nodes walked."""
    ...
