"""The property every entry point keeps on any input.

For an input x and an entry point f (docs/hostile.md, "The property"):

    f(x) returns a result                                   (then the target checks it), or
    f(x) raises a typed error that names the problem and where it is,
and in either case within `SECONDS` seconds under the default `Limits`.

Anything else — another exception (a KeyError, a RecursionError, a MemoryError), a typed
error without a position, or too long a wait — is a `Violation`, which fails the target:
atheris reports it as a crash and keeps the input; pytest reports it from the regression
replay.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Optional, Tuple, Type, TypeVar

from conformance import corpus
from refimpl.errors import GrammarError, MaskrefError, SchemaError

#: the most one input may take, in seconds, within the default Limits (docs/hostile.md)
SECONDS = 10.0

T = TypeVar("T")


class Violation(AssertionError):
    """An entry point broke the property on an input; the message says how."""


class Overtime(BaseException):
    """Raised inside the entry point when its input has run `SECONDS` seconds.

    A BaseException, so that no `except Exception` of the code under test swallows it."""


#: whether `check` bounds an input's time itself (SIGALRM). The fuzzing child
#: (hostile/fuzzer.py) turns it off: there libFuzzer's `-timeout=SECONDS` bounds each input,
#: and a SIGALRM handler set from Python would replace libFuzzer's own for good.
ALARM = True


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Interrupt the block with `Overtime` after `seconds` of wall time
    (conformance.corpus.deadline; nothing when ALARM is off)."""
    if not ALARM:
        yield
        return
    with corpus.deadline(seconds, Overtime):
        yield


def positioned(exc: BaseException) -> bool:
    """Whether a typed error says *where* the problem is: an offset or a line and column
    into the text, a JSON pointer into the schema, or (for other errors) a message at all.

    >>> from refimpl.errors import RegexError
    >>> positioned(RegexError("unclosed group", "a(", 1))
    True
    >>> positioned(GrammarError("no rule 'start'"))
    False
    """
    if isinstance(exc, GrammarError):
        return exc.offset is not None
    if isinstance(exc, SchemaError):
        return True  # the pointer, "/" at worst, is always in the message
    return bool(str(exc).strip())


def check(call: Callable[[], T], *, typed: Tuple[Type[BaseException], ...] = (MaskrefError,),
          unpositioned: Tuple[Type[BaseException], ...] = (), seconds: Optional[float] = None) -> Any:
    """`call()`'s result, or None when it raised one of the `typed` errors with a position
    (`unpositioned` names typed errors that need no position, such as a missing rule);
    a `Violation` otherwise. The time bound is `seconds`, else SECONDS as it is now (the
    test suite makes it a guard against hangs: tests/hostile/conftest.py)."""
    if seconds is None:
        seconds = SECONDS
    try:
        with deadline(seconds):
            return call()
    except Overtime:
        raise Violation("took more than %g s" % seconds) from None
    except typed as e:
        if isinstance(e, unpositioned) or positioned(e):
            return None
        raise Violation("%s without a position: %s" % (type(e).__name__, e)) from e
    except Exception as e:  # RecursionError and MemoryError among them
        raise Violation("%s: %s" % (type(e).__name__, e)) from e
