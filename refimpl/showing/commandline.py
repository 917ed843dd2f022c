"""What every command line of the project shares (`maskref`, `python -m conformance`, the
benchmarks): a user's mistake is one line, `error: ...`, naming the problem and where,
and exit status 2 — never a traceback.

`command_line(main)` wraps a command's `main(argv)`. It prints as that line refimpl's
errors (`MaskrefError`: a bad grammar, vocabulary or token), `CommandLineError`s (a bad
argument; argparse's complaints, through `ArgumentParser`) and the operating system's
(`OSError`: a missing file, a directory where a file was asked, a permission). Any other
exception is a bug and shows its traceback.

`culprit(option, value)` says where the errors raised inside it come from (an option and
its value: `--schema person.json`); `read_text` reads the file an argument names.

>>> try:
...     with culprit("--schema", "no/such/file.json"):
...         read_text("no/such/file.json")
... except CommandLineError as e:
...     print("error: %s" % e)
error: --schema no/such/file.json: no such file or directory
"""
from __future__ import annotations

import argparse
import functools
import os
import re
import sys
from contextlib import contextmanager
from typing import Any, Iterator, List, NoReturn, Optional, Protocol, Tuple, Type

from ..errors import MaskrefError


class Main(Protocol):
    """A command's main: the arguments (None: sys.argv[1:]) to the exit status."""

    def __call__(self, argv: Optional[List[str]] = None) -> int: ...


class CommandLineError(MaskrefError):
    """A mistake in a command's arguments; the message names the argument."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, whose complaints (a missing or unknown argument, a value of the
    wrong kind) are raised as a `CommandLineError` instead of printing the usage and
    exiting: so `command_line` prints them as every other mistake. `--help` is as usual;
    subcommands' parsers are of this class too (argparse makes them of their parent's)."""

    def error(self, message: str) -> NoReturn:
        raise CommandLineError("%s (see %s --help)" % (message, self.prog))


def command_line(main: Main, mistakes: Tuple[Type[Exception], ...] = (MaskrefError, OSError)) -> Main:
    """`main`, printing a user's mistake as one `error:` line with exit status 2 (see the
    module's docstring); Ctrl-C exits with status 130, quietly. It returns the status
    (also where argparse would exit: `--help`), for `sys.exit(main())` and for tests.

    `mistakes`: the exceptions that are the user's (CommandLineError always is). A command
    whose runs use refimpl on inputs the user did not write (`python -m conformance`: the
    engine under test is judged on the suite) leaves MaskrefError out: one escaping there
    is a bug."""
    caught = (CommandLineError,) + tuple(mistakes)

    @functools.wraps(main)
    def run(argv: Optional[List[str]] = None) -> int:
        with _bytes_as_given(sys.stdout):
            return _run(argv)

    def _run(argv: Optional[List[str]]) -> int:
        try:
            return main(argv)
        except BrokenPipeError:  # the reader of the output went away (`| head`): not a mistake
            _silence_stdout()
            return 1
        except caught as e:
            return _error(os_error_text(e) if isinstance(e, OSError) else str(e))
        except KeyboardInterrupt:
            return 130
        except SystemExit as e:  # --help, --version: argparse exits 0 (main returns it, for callers and tests)
            if e.code is None or isinstance(e.code, int):
                return e.code or 0
            print(e.code, file=sys.stderr)
            return 1

    return run


@contextmanager
def _bytes_as_given(stream: Any) -> Iterator[None]:
    """Inside, text from the command line that is not UTF-8 — Python reads those bytes as
    lone surrogates — is printed on `stream` as the same bytes (a file name in "wrote
    <file>" is the file's name), where a strict stream would raise UnicodeEncodeError."""
    errors = getattr(stream, "errors", None)
    if errors != "strict" or not hasattr(stream, "reconfigure"):
        yield
        return
    stream.reconfigure(errors="surrogateescape")
    try:
        yield
    finally:
        stream.reconfigure(errors=errors)


def _error(message: str) -> int:
    print("error: %s" % message, file=sys.stderr)
    return 2


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that Python's flush at exit does not fail
    again on the closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (a test's capture)
        pass
    finally:
        os.close(devnull)


@contextmanager
def culprit(option: str, value: Optional[str] = None) -> Iterator[None]:
    """refimpl's and the operating system's errors raised inside are about `option` (an
    argument) and its `value`: the error says so first, `<option> <value>: <the error>`
    (the value left out where the error names it already)."""
    try:
        yield
    except MaskrefError as e:
        raise CommandLineError("%s: %s" % (_where(option, value, str(e)), e)) from None
    except BrokenPipeError:
        raise
    except OSError as e:
        where = _where(option, value, "")
        raise CommandLineError("%s: %s" % (where, os_error_text(e, where))) from None


def _where(option: str, value: Optional[str], message: str) -> str:
    return option if value is None or value in message else "%s %s" % (option, value)


def os_error_text(e: OSError, where: str = "") -> str:
    """An OSError as words, with the file it names unless `where` names it already:
    "no such file or directory", "is a directory: out/"."""
    reason = e.strerror or str(e)
    reason = reason[:1].lower() + reason[1:]
    names = [str(f) for f in (e.filename, e.filename2) if f is not None and str(f) not in where]
    return ": ".join([reason] + names)


def read_text(path: str) -> str:
    """The text of a UTF-8 file; OSError if it cannot be read (missing, a directory, no
    permission); a CommandLineError if it is not UTF-8."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CommandLineError("not UTF-8 text: byte 0x%02X at offset %d" % (data[e.start], e.start)) from None


# -- argument types: numbers in range, UTF-8 text, an existing directory --------------------


def positive_int(text: str) -> int:
    """An argparse type: a whole number, 1 or more."""
    return _int_at_least(text, 1)


def count(text: str) -> int:
    """An argparse type: a whole number, 0 or more."""
    return _int_at_least(text, 0)


def _int_at_least(text: str, least: int) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a whole number, not %r" % text) from None
    if n < least:
        raise argparse.ArgumentTypeError("expected a whole number >= %d, not %d" % (least, n))
    return n


def positive_float(text: str) -> float:
    """An argparse type: a number above 0 (not NaN, not infinite)."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a number, not %r" % text) from None
    if not 0 < x < float("inf"):
        raise argparse.ArgumentTypeError("expected a number > 0, not %r" % text)
    return x


def utf8_text(text: str) -> str:
    """An argparse type: text that is UTF-8 (Python reads other bytes of the command line
    as lone surrogates, which cannot be encoded)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        data = text.encode("utf-8", "surrogateescape")
        offset = len(text[:e.start].encode("utf-8", "surrogateescape"))
        raise argparse.ArgumentTypeError("not UTF-8 text: byte 0x%02X at offset %d" % (data[offset], offset)) from None
    return text


def directory(text: str) -> str:
    """An argparse type: the path of an existing directory."""
    if not os.path.isdir(text):
        raise argparse.ArgumentTypeError("%s: %s" % (text, "not a directory" if os.path.exists(text)
                                                     else "no such directory"))
    return text


# -- the version ----------------------------------------------------------------------------


def package_version() -> str:
    """maskref's version: the installed package's, else (run from a checkout without
    installing) the version pyproject.toml gives, marked so; else "unknown"."""
    from importlib import metadata

    try:
        return metadata.version("maskref")
    except metadata.PackageNotFoundError:
        pass
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as f:
            found = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.MULTILINE)
    except OSError:
        found = None
    return "%s (from the checkout at %s, not installed)" % (found.group(1), root) if found else "unknown"
