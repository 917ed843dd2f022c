"""The client side of the worker protocol (docs/protocol.md): a `WorkerMatcher` with the
Matcher's API, backed by a process speaking JSON lines — refimpl under PyPy, or any engine.

    errors    WorkerError and its kinds (died, timed out, garbage, unsupported, ...)
    process   WorkerProcess: one process, its pipes, deadlines and requests
    specs     a Grammar, a vocabulary and limits as the protocol sends them
    matcher   WorkerMatcher (one session), and `start`, which the backends call

What the worker and this client share (version, reply checks, error encoding) is
refimpl/serving/protocol.py; the mask encoding is refimpl/masks/mask.py.
"""
from .errors import (
    WorkerDied,
    WorkerError,
    WorkerGarbage,
    WorkerRemoteError,
    WorkerTimeout,
    WorkerUnavailable,
    WorkerUnsupported,
)
from .matcher import WorkerMatcher, start
from .process import DEFAULT_CREATE_TIMEOUT, DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT, WorkerProcess
from .specs import SENDABLE_KINDS, grammar_spec, is_embedded_gpt2, limits_spec, vocabulary_spec

__all__ = [
    "DEFAULT_CREATE_TIMEOUT", "DEFAULT_STARTUP_TIMEOUT", "DEFAULT_TIMEOUT", "SENDABLE_KINDS", "WorkerDied", "WorkerError",
    "WorkerGarbage", "WorkerMatcher", "WorkerProcess", "WorkerRemoteError", "WorkerTimeout", "WorkerUnavailable",
    "WorkerUnsupported", "grammar_spec", "is_embedded_gpt2", "limits_spec", "start", "vocabulary_spec",
]
