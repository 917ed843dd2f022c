"""Running code with a shallow stack: a recursion limit only ~150 frames above the
current depth, so code that recursed on the input's depth fails, whatever its
depth-limit tricks (the no-RecursionError tests use it)."""
import sys


def call_with_shallow_stack(fn, *args):
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 150)
    try:
        return fn(*args)
    finally:
        sys.setrecursionlimit(old)
