"""The command lines as outside input: `maskref ...` (refimpl/showing/cli.py) and
`python -m conformance ...` (conformance/__main__.py) on arguments made of the fuzzer's
bytes.

The bytes split at NUL into the arguments (as the operating system passes them: bytes,
read by Python as text with lone surrogates for what is not UTF-8); a first argument
`conformance` picks `python -m conformance`, anything else is `maskref`'s arguments. The
command runs in process, in a scratch directory holding small input files (`FILES`:
a Lark grammar, a schema, a GBNF and an EBNF grammar, a vocabulary, a suite of three
vectors, a results file), its output captured in streams that encode as the terminal's do
(stdout strict UTF-8, stderr with backslash escapes). The property: exit status 0 or 1
(the statuses the commands document for a result), or 2 with exactly one line
`error: ...` on stderr (tests/support/cli.py's rule: a caret line may follow it); never
a traceback.

What is restricted, so that each input stays cheap and harmless (`_refused`, `_bounded`):

- no argument may contain "/" or "..": a command writes only into the scratch directory
  (`--out`, `--markdown`, `--results`) and reads only its files (never /dev/zero);
- `generate --type` is refused (it imports a module the argument names: arbitrary code),
  and so are numbers above 500 on `maskref generate`'s line (--max-tokens: a long
  generation is the user's request, not a bug);
- the vocabulary "gpt2" (every command's default) is read as "bytes" (257 tokens): a first
  GPT-2 mask of a hostile pattern may take seconds (issue 34's slow tails are measured
  elsewhere);
- conformance's long commands stop after their arguments and setup are checked: the suite
  run, the fuzz campaign, generating the suite, MaskBench and a bug report's search raise
  `Stopped` instead of running, and so does loading a peer engine (imports of native
  libraries and torch: seconds), an engine `cmd:<program>` whose program exists (the
  fuzzer's bytes never start a program) or listing the engines; the default suite is the
  scratch directory's three vectors.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import shutil
from typing import Any, Callable, Iterator, List, Optional, Tuple

from refimpl.tokens.vocab import Vocabulary

from ..property import Violation, check
from . import Target, scratch
from .vectors import SUITE

#: the files of the scratch directory the arguments may name
FILES = {
    "g.lark": 'start: "a"+ b\nb: /[0-9]{1,3}/\n',
    "s.json": '{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}',
    "g.gbnf": 'root ::= "x" [0-9]+\n',
    "g.ebnf": 'root ::= "a" | "b" root\n',
    "v.json": json.dumps({"name": "small", "eos_token_id": 3, "tokens_hex": [b.hex() for b in (b"a", b"b", b"ab", b"</s>")]}),
    "r.jsonl": '{"engine":"e","id":"v","digest":"d","status":"agree","kind":"regex","tags":[]}\n',
}
SUITE_FILE = "suite.jsonl"
#: the largest number `maskref generate` may be given (its --max-tokens)
MAX_NUMBER = 500


class Stopped(Exception):
    """A long command was stopped after its arguments and setup were checked."""


def _stop(*args: Any, **kw: Any) -> Any:
    raise Stopped()


_SUITE_LINES: List[bytes] = []


def _workspace() -> str:
    """The scratch directory holding `FILES` and the suite, as new for every input (a
    command may have written over them: each input runs alone)."""
    if not _SUITE_LINES:
        with open(os.path.join(SUITE, "regex.jsonl"), "rb") as f:
            _SUITE_LINES.extend([line for line in f if b'"builtin":"bytes"' in line][:3])
    path = scratch.clear("cli")
    for name, text in FILES.items():
        with open(os.path.join(path, name), "w", encoding="utf-8") as f:
            f.write(text)
    with open(os.path.join(path, SUITE_FILE), "wb") as f:
        f.writelines(_SUITE_LINES)
    return path


def _arguments(data: bytes) -> List[str]:
    return [os.fsdecode(a) for a in data.split(b"\x00")] if data else []


def _refused(argv: List[str]) -> bool:
    """Arguments this target does not run (see the module's docstring)."""
    if any("/" in a or ".." in a for a in argv):
        return True
    if argv[:1] == ["conformance"]:
        return False
    return "generate" in argv and any(a.startswith("--ty") or (a.strip().isdigit() and int(a) > MAX_NUMBER)
                                      for a in argv)


@contextlib.contextmanager
def _bounded(cwd: str) -> Iterator[None]:
    """The restrictions of the module's docstring, in force inside."""
    import conformance.__main__ as cli
    import conformance.bugreport
    import conformance.fuzz
    import conformance.generate
    import conformance.maskbench
    import conformance.registry
    import conformance.runner
    import conformance.vectors

    cheap = {"refimpl", "python", "index", "native", "oracle"}
    registry_get = conformance.registry.get_engine
    load = Vocabulary.load.__func__  # type: ignore[attr-defined]

    def get_engine(name: str) -> Any:
        known = {key for key, _, _ in conformance.registry.REGISTRY if not key.endswith(":")}
        if conformance.registry.ALIASES.get(name, name) in known - cheap or _runnable(name):
            raise Stopped()
        return registry_get(name)

    def vocabulary(cls: Any, name: str) -> Vocabulary:
        return load(cls, "bytes" if name == "gpt2" else name)

    patches: List[Tuple[Any, str, Any]] = [
        (conformance.runner, "run_suite", _stop), (conformance.fuzz, "fuzz", _stop),
        (conformance.generate, "main_generate", _stop), (conformance.maskbench, "main_maskbench", _stop),
        (conformance.bugreport, "find_case", _stop), (cli, "cmd_engines", _stop), (cli, "get_engine", get_engine),
        (cli, "SUITE_DIR", os.path.join(cwd, SUITE_FILE)), (Vocabulary, "load", classmethod(vocabulary)),
    ]
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in patches]
    builtins = dict(conformance.vectors._VOCABS)  # a "gpt2" read inside is the bytes one: not kept
    here = os.getcwd()
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        os.chdir(cwd)
        yield
    finally:
        os.chdir(here)
        for owner, name, value in saved:
            setattr(owner, name, value)
        conformance.vectors._VOCABS.clear()
        conformance.vectors._VOCABS.update(builtins)


def _runnable(name: str) -> bool:
    """Does the engine name `cmd:...` name a program that is here (which this target never
    lets a command start: the arguments are the fuzzer's)?"""
    if not name.startswith("cmd:"):
        return False
    try:
        program = (shlex.split(name[4:]) or [""])[0]
    except ValueError:  # an unclosed quote: the command line's error
        return False
    return bool(program) and shutil.which(program) is not None


def _terminal() -> Tuple[io.TextIOWrapper, io.TextIOWrapper]:
    """Streams that encode as a UTF-8 terminal's: stdout strictly, stderr with escapes."""
    return (io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="\n"),
            io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", newline="\n"))


def _captured(stream: io.TextIOWrapper) -> str:
    stream.flush()
    return stream.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]


def run(data: bytes) -> None:
    argv = _arguments(data)
    if not argv or _refused(argv):
        return
    if argv[0] == "conformance":
        from conformance.__main__ import main as conformance_main
        main: Callable[[Optional[List[str]]], int] = conformance_main
        argv = argv[1:]
    else:
        from refimpl.showing.cli import main as maskref_main
        main = maskref_main
    out, err = _terminal()
    cwd = _workspace()

    def call() -> Optional[int]:
        with _bounded(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                return main(argv)
            except Stopped:
                return None

    status = check(call, typed=())
    stderr = _captured(err)
    if status is None:
        return
    if "Traceback" in stderr:
        raise Violation("exit %s with a traceback on stderr:\n%s" % (status, stderr[-3000:]))
    if status == 2:  # one `error:` line (a caret line under a pattern may follow it)
        errors = [line for line in stderr.splitlines() if line.startswith("error:")]
        if len(errors) != 1 or not errors[0][len("error:"):].strip():
            raise Violation("exit 2 with %d error lines: %r" % (len(errors), stderr[-500:]))
    elif status not in (0, 1):
        raise Violation("exit status %r" % (status,))


def seeds() -> Iterator[bytes]:
    lines = [
        ["regex", "[0-9]+(\\.[0-9]+)?", "12.5", "x"],
        ["regex", "a", "\udcff"],
        ["mask", "--regex", "[a-z]+", "--prefix", "ab", "--explain"],
        ["mask", "--lark", "g.lark", "--prefix", "aa1", "--sample", "3"],
        ["mask", "--schema", "s.json", "--vocab", "v.json"],
        ["mask", "--gbnf", "g.gbnf", "--root", "root"],
        ["mask", "--ebnf", "g.ebnf", "--dialect", "xgrammar"],
        ["explain", "--regex", "ab*", "--prefix", "abb", "--format", "text", "--why", "a"],
        ["explain", "--lark", "g.lark", "--tokens", "97", "49", "--format", "dot", "--out", "e.dot"],
        ["generate", "--schema", "s.json", "--seed", "3", "--max-tokens", "40"],
        ["generate", "--lark", "g.lark", "--top-k", "2"],
        ["--version"],
        ["mask", "--help"],
        ["conformance", "show", SUITE_FILE, "--id", "regex"],
        ["conformance", "run", "--engine", "refimpl", "--suite", SUITE_FILE, "--results", "out.jsonl"],
        ["conformance", "run", "--engine", "cmd:no-such-program --flag", "--timeout", "0"],
        ["conformance", "fuzz", "--engine", "fault:none", "--seconds", "1", "--kinds", "regex,lark"],
        ["conformance", "generate", "--only", "regex,nonsense"],
        ["conformance", "report", "r.jsonl", "--out", "report"],
        ["conformance", "bugreport", "six-fraction-digits", "--engine", "xgrammar"],
        ["conformance", "maskbench", "corpus", "--out", "m.jsonl", "--vocab", "tekken"],
    ]
    for argv in lines:
        yield b"\x00".join(os.fsencode(a) for a in argv)


TARGETS = [
    Target("commandline", "maskref ... (refimpl/showing/cli.py), python -m conformance ... (conformance/__main__.py)",
           run, seeds, ("refimpl", "conformance")),
]
