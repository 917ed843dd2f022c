"""The errors of a worker process, as the client raises them.

Every one is a `WorkerError` (a MaskrefError) whose message names the command, the
request and, when there is one, the exit code and the tail of the worker's stderr. A
typed error the engine reports (a grammar's syntax error, a limit) is not one of these:
it is raised as the same refimpl exception (refimpl.serving.protocol.typed_error).
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from refimpl.errors import MaskrefError


class WorkerError(MaskrefError):
    """A worker process failed us; the message says what, with the command and request.

    Fields: `command`, `request` (a summary of the request line), `returncode` (if it
    exited), `stderr` (the tail of its stderr).
    """

    def __init__(
        self,
        message: str,
        *,
        command: str = "",
        request: str = "",
        returncode: Optional[int] = None,
        stderr: str = "",
    ) -> None:
        self.command = command
        self.request = request
        self.returncode = returncode
        self.stderr = stderr
        super().__init__(message)


class WorkerDied(WorkerError):
    """The worker exited (or closed its stdout) before answering."""


class WorkerTimeout(WorkerError):
    """The worker did not answer within the deadline; it was killed."""


class WorkerGarbage(WorkerError):
    """The worker wrote something that is not a reply to the request; it was killed."""


class WorkerRemoteError(WorkerError):
    """The worker answered with an error that is not a typed refimpl error: a bug in the
    engine (`InternalError`, with its traceback) or a request it did not understand."""

    def __init__(self, message: str, *, error: Optional[Dict[str, Any]] = None, **kw: Any) -> None:
        self.error = error or {}
        super().__init__(message, **kw)


class WorkerUnsupported(WorkerError):
    """The engine (or the protocol) cannot serve this request: a grammar kind it lacks, a
    Grammar that has no source text, an op it does not implement."""


class WorkerUnavailable(WorkerError):
    """The worker could not be started (executable missing, refimpl not importable...)."""
