"""Types of the C extension accel._native (accel/_native.c), for the type checker."""
from typing import Any, Callable, Dict, List, Optional, Tuple

def walk(
    trie: Any,
    lexer: Any,
    parser: Any,
    state: int,
    top: int,
    allowed: bytearray,
) -> int:
    """refimpl.masks.walk.walk in C: the same masks, callbacks and count of nodes walked.

    `parser` has `advance` and `restart` (refimpl.masks.walk.ParserHooks); where it also
    has `short_path()` and `short_path_taken()` (the Recognizer), the hooks' short path
    (a row pushed before, placed again) is taken in C without calling them."""
    ...

def closure(
    tables: Tuple[Any, ...],
    rows: List[Any],
    j: int,
    seeds: List[int],
    transitive: Optional[Callable[[int, int], Optional[int]]],
) -> Optional[Tuple[List[int], Dict[int, List[int]], int, bool]]:
    """refimpl.recognition.earley.closure in C: the same answer, or None where it leaves
    the row to that function (unusual types, a row past the items_per_row limit)."""
    ...
