"""The `maskref` command line.

Steps that can take a while (compiling a large grammar, loading a vocabulary, the first
mask on a big vocabulary, generating) show a progress line on standard error when it is a
terminal and the step has run for 2 seconds (refimpl/progress.py); `--no-progress`
turns it off, and a redirected or piped standard error never gets it."""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, List, Optional

from .. import progress
from .commandline import (
    ArgumentParser,
    CommandLineError,
    command_line,
    count,
    culprit,
    package_version,
    positive_int,
    read_text,
    utf8_text,
)

if TYPE_CHECKING:
    from ..frontends.grammar import Grammar
    from ..masks.matcher import Matcher
    from ..tokens.vocab import Vocabulary


def _regex(args: argparse.Namespace) -> int:
    """Show the derivative trace of each text through the pattern."""
    from ..regex import DEAD, Regex, to_string

    r = Regex(args.pattern)
    print("pattern  %s" % args.pattern)
    print("compiled %s  (%d expression nodes)" % (r.to_string(), r.es.size(r.expr)))
    for text in args.texts:
        data = text.encode("utf-8", "surrogateescape")  # the bytes of the command line, as given
        state = r.dfa.start
        print("\n%s" % _show_bytes(data))
        for i, b in enumerate(data):
            state = r.dfa.step(state, b)
            print("  d/d %-6s -> %s" % (_show_byte(b), to_string(r.es, r.dfa.states[state])))
            if state == DEAD:
                print("  dead after %d of %d bytes" % (i + 1, len(data)))
                break
        print("  %s" % ("match" if r.dfa.accepting[state] else "no match"))
    return 0


def _mask(args: argparse.Namespace) -> int:
    """Print the token mask after a prefix, with a readable sample of allowed tokens."""
    import time

    grammar = _grammar(args)
    vocab = _vocabulary(args)
    m = _matcher(grammar, vocab)
    with progress.task("the prefix"):
        _consume_prefix(m, args.prefix)
    t0 = time.perf_counter()
    with progress.task("first mask (walking the token trie)"):
        mask = m.mask()
    seconds = time.perf_counter() - t0
    allowed = mask.allowed()
    print("grammar    %r" % grammar)
    print("vocabulary %s (%d tokens)" % (vocab.name, len(vocab)))
    print("prefix     %r" % (args.prefix or ""))
    print("allowed    %d tokens%s" % (len(allowed), " (EOS allowed)" if m.is_accepting() else ""))
    step = max(1, len(allowed) // args.sample) if allowed else 1
    sample = [t for t in allowed[::step]][: args.sample]
    print("sample     " + " ".join("%d:%r" % (t, vocab.tokens[t].decode("utf-8", "replace")) for t in sample))
    forced = m.forced_bytes()
    if forced:
        print("forced     %r" % forced.decode("utf-8", "replace"))
    if not allowed and not m.is_accepting():
        print("note       %s" % _dead_end(grammar))
    if args.explain:
        t0 = time.perf_counter()
        m.mask()
        again = time.perf_counter() - t0
        print("mask time  %.2f ms the first time (the lexer table, the rows and the trie's subtree sets are "
              "built as the walk goes), %.2f ms again" % (seconds * 1e3, again * 1e3))
        nodes = m.stats["trie_nodes_walked"]
        print("trie       %d nodes in all, %d reached (%.0f ns per node reached, again)"
              % (len(m.trie), nodes, again * 1e9 / max(1, nodes)))
        keys = ("lexer_states", "transitions_computed", "rows", "items", "rows_built", "rows_reused")
        print("stats      " + ", ".join("%s=%d" % (k, m.stats[k]) for k in keys))
    return 0


def _dead_end(grammar: "Grammar") -> str:
    """Why a mask is empty where the text may not end (docs/semantics.md, "The empty
    language")."""
    if grammar.is_empty:
        return "the grammar's language is empty: no text matches it (no token, not even EOS, is ever allowed)"
    return "a dead end: no token of the vocabulary continues the text, and the text may not end here"


def _matcher(grammar: "Grammar", vocab: "Vocabulary") -> "Matcher":
    """A Matcher, its token trie and slices built (shown as a step)."""
    from ..masks.matcher import Matcher

    with progress.task("preparing the matcher (token trie, slices)"):
        return Matcher(grammar, vocab)


def _consume_prefix(m: "Matcher", prefix: str) -> None:
    """Consume --prefix (one step), or say at which byte the grammar refuses it."""
    data = prefix.encode("utf-8", "surrogateescape")  # the bytes of the command line, as given
    if not data or m.consume_bytes(data):
        return
    n = 0  # the longest prefix of the prefix the grammar takes (as one step, as above)
    while m.consume_bytes(data[:n + 1]):
        m.rollback(1)
        n += 1
    raise CommandLineError("--prefix %s: the grammar refuses byte %r at offset %d%s" % (
        _show_bytes(data), data[n:n + 1], n, " (after %s)" % _show_bytes(data[:n]) if n else ""))


def _show_bytes(data: bytes) -> str:
    """Bytes from the command line as written: as text where they are UTF-8."""
    try:
        return repr(data.decode("utf-8"))
    except UnicodeDecodeError:
        return repr(data)


def _grammar(args: argparse.Namespace, **layout: Any) -> "Grammar":
    """The grammar named by the source options (_add_source; generate's); `layout`: the
    JSON options of a --schema."""
    from ..frontends.grammar import Grammar

    if getattr(args, "regex", None) is not None:
        with culprit("--regex", repr(args.regex)), progress.task("compiling the grammar"):
            return Grammar.from_regex(args.regex)
    option = next(o for o in ("lark", "gbnf", "ebnf", "schema") if getattr(args, o, None) is not None)
    path = getattr(args, option)
    with culprit("--" + option, path), progress.task("compiling the grammar"):
        text = read_text(path)
        if option == "lark":
            return Grammar.from_lark(text)
        if option == "gbnf":
            return Grammar.from_gbnf(text, root=args.root or "root")
        if option == "ebnf":
            return Grammar.from_ebnf(text, dialect=args.dialect, root=args.root)
        return Grammar.from_json_schema(text, **layout)


def _vocabulary(args: argparse.Namespace) -> "Vocabulary":
    """The vocabulary --vocab names."""
    from ..tokens.vocab import Vocabulary

    with culprit("--vocab", args.vocab), progress.task("loading the vocabulary"):
        return Vocabulary.load(args.vocab)


def _add_source(p: argparse.ArgumentParser) -> None:
    """The options naming a grammar (read by _grammar)."""
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--regex", help="a regular expression (Rust syntax, full match)")
    source.add_argument("--lark", metavar="FILE", help="a grammar in llguidance's Lark dialect")
    source.add_argument("--schema", metavar="FILE", help="a JSON schema")
    source.add_argument("--gbnf", metavar="FILE", help="a grammar in llama.cpp's GBNF")
    source.add_argument("--ebnf", metavar="FILE", help="a grammar in another engine's EBNF (--dialect)")
    p.add_argument("--dialect", default="xgrammar", help="the dialect of an --ebnf grammar: xgrammar (default) or kbnf")
    p.add_argument("--root", help="the start rule of a --gbnf or --ebnf grammar (default root; start for kbnf)")
    p.add_argument("--vocab", default="gpt2",
                   help="an embedded vocabulary (gpt2; bytes: the 256 one-byte tokens) or a tokenizer file (default gpt2)")


def _explain(args: argparse.Namespace) -> int:
    """Write the steps of the masks along a prefix: an HTML page, text, or DOT."""
    from . import dot, explain, page, text
    from .steps import token_id

    grammar = _grammar(args)
    vocab = _vocabulary(args)
    with culprit("--tokens"):
        tokens = [token_id(vocab, t) for t in args.tokens or ()]
    with culprit("--why"):
        why = [token_id(vocab, int(w) if w.isdigit() else w) for w in args.why]
    with progress.task("explaining the masks"):
        ex = explain(grammar, vocab, text=args.prefix, tokens=tokens, why=why)
    if args.graph is not None and args.format != "dot":
        raise CommandLineError("--graph %s: only with --format dot (the page and the text show both)" % args.graph)
    if args.format == "dot":
        out = dot.render(ex, args.graph or "dfa")
    elif args.format == "text":
        out = text.render(ex)
    else:
        out = page.render(ex, command=_explain_command(args))
    if args.out is None:
        sys.stdout.write(out)
    else:
        with culprit("--out", args.out), open(args.out, "w", encoding="utf-8") as f:
            f.write(out)
        print("wrote %s (%d steps%s)" % (args.out, len(ex.steps), "; " + ex.stopped if ex.stopped else ""))
    return 1 if ex.stopped else 0


def _explain_command(args: argparse.Namespace) -> List[str]:
    """The `maskref explain` arguments that make this explanation again (the grammar, the
    vocabulary, the prefix or the tokens), for the page to show how to ask `--why`."""
    option = next(o for o in ("regex", "lark", "schema", "gbnf", "ebnf") if getattr(args, o) is not None)
    argv = ["maskref", "explain", "--" + option, getattr(args, option)]
    if option == "ebnf" and args.dialect != "xgrammar":
        argv += ["--dialect", args.dialect]
    if args.root is not None:
        argv += ["--root", args.root]
    argv += ["--vocab", args.vocab]
    if args.tokens:
        argv += ["--tokens"] + [str(t) for t in args.tokens]
    elif args.prefix:
        argv += ["--prefix", args.prefix]
    return argv


def _generate(args: argparse.Namespace) -> int:
    """Generate text constrained by a grammar with a seeded random model; print the text,
    the parsed value and the model calls fast-forward saved (docs/generation.md)."""
    import json

    from ..decoding import ONE_LINE_JSON, RandomModel, TopK, generate, greedy
    from ..frontends.grammar import Grammar
    from ..typed import parse

    layout = {} if args.flexible_whitespace else ONE_LINE_JSON
    target = None
    if args.type is not None:
        target = _load_type(args.type)
        with culprit("--type", args.type):
            grammar = Grammar.from_type(target, **layout)
        source = "type %s" % args.type
    else:
        grammar = _grammar(args, **layout)
        source = "JSON schema %s" % args.schema if args.schema is not None else "Lark grammar %s" % args.lark
    vocab = _vocabulary(args)
    if grammar.is_empty:
        option = next(o for o in ("type", "schema", "lark") if getattr(args, o, None) is not None)
        raise CommandLineError("--%s %s: the grammar's language is empty (no text matches it): nothing to generate"
                               % (option, getattr(args, option)))
    model = RandomModel(vocab, seed=args.seed)
    sampler = TopK(args.top_k, seed=args.seed) if args.top_k else greedy
    result = generate(model, _matcher(grammar, vocab), max_tokens=args.max_tokens, sampler=sampler,
                      fast_forward=not args.no_fast_forward)
    print("grammar   %s; vocabulary %s (%d tokens)" % (source, vocab.name, len(vocab)))
    print("model     random (seed %d), %s" % (args.seed, "top-%d sampling" % args.top_k if args.top_k else "greedy"))
    print("text      %s" % result.text)
    print("tokens    %d: %d from the model, %d fast-forwarded (model calls saved: %d of %d)" % (
        len(result.tokens), result.model_calls, result.saved_calls, result.saved_calls, len(result.tokens)))
    if not result.accepted:
        print("stopped   %s: the text is incomplete, no value" % {
            "max_tokens": "after --max-tokens %d" % args.max_tokens, "no_token": "no token allowed"}.get(
                result.stop, result.stop))
        return 1
    if args.type is not None:
        print("value     %r" % (parse(target, result.text),))
    elif args.schema is not None:
        print("value     %r" % (json.loads(result.text),))
    return 0


def _load_type(spec: str) -> object:
    """`module:Name` (or `module:Outer.Inner`): the object, imported as `python -m` would
    (the current directory first on the path); or `path/to/file.py:Name`, the file run
    as a module. An error inside the module itself is the module's, with its traceback."""
    import importlib
    import os

    module, sep, name = spec.rpartition(":")
    if not sep or not module or not name:
        raise CommandLineError("--type %r: expected module:Class or file.py:Class" % spec)
    if module.endswith(".py"):
        obj: object = _run_file(module, spec)
    else:
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            obj = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name is None or not (module == e.name or module.startswith(e.name + ".")):
                raise  # the module was found; something it imports was not: its traceback
            raise CommandLineError("--type %s: no module named %r (looked for in the current directory %s "
                                   "and on the Python path)" % (spec, e.name, os.getcwd())) from None
    for i, part in enumerate(name.split(".")):
        if not hasattr(obj, part):
            raise CommandLineError("--type %s: %s has no attribute %r" % (
                spec, module if i == 0 else module + ":" + ".".join(name.split(".")[:i]), part))
        obj = getattr(obj, part)
    return obj


def _run_file(path: str, spec: str) -> object:
    """The module that the Python file at `path` defines (named after the file, unless a
    module of that name is loaded)."""
    import importlib.util
    import os

    name = os.path.splitext(os.path.basename(path))[0]
    if name in sys.modules:  # a module of that name is loaded already (json.py, a second run): not replaced
        name = "maskref_type_%s" % name
    with culprit("--type", spec):
        read_text(path)  # a missing file, a directory: the error line
    loaded = importlib.util.spec_from_file_location(name, path)
    if loaded is None or loaded.loader is None:
        raise CommandLineError("--type %s: cannot import %s as a module" % (spec, path))
    module = importlib.util.module_from_spec(loaded)
    sys.modules[name] = module  # dataclasses and typing look the module up by name
    loaded.loader.exec_module(module)
    return module


def _add_progress(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-progress", action="store_true",
                   help="no progress line (shown on standard error, when it is a terminal, for steps over 2 s)")


def _show_byte(b: int) -> str:
    return repr(chr(b)) if 0x20 <= b < 0x7F else "0x%02X" % b


@command_line
def main(argv: Optional[List[str]] = None) -> int:
    parser = ArgumentParser(prog="maskref", description=__doc__)
    parser.add_argument("--version", action="version", version="maskref %s" % package_version())
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("regex", help="trace a pattern's derivatives over some texts")
    p.add_argument("pattern")
    p.add_argument("texts", nargs="*", default=[])
    p.set_defaults(run=_regex)
    p = sub.add_parser("mask", help="the token mask of a grammar after a prefix")
    _add_source(p)
    p.add_argument("--prefix", default="", help="text already generated")
    p.add_argument("--sample", type=positive_int, default=12, help="how many allowed tokens to show")
    p.add_argument("--explain", action="store_true", help="print the walk statistics")
    _add_progress(p)
    p.set_defaults(run=_mask)
    p = sub.add_parser("explain", help="step through the masks along a prefix: an HTML page, text or DOT")
    _add_source(p)
    p.add_argument("--prefix", type=utf8_text, default="",
                   help="the text to step through (split into the longest allowed tokens)")
    p.add_argument("--tokens", type=int, nargs="+", metavar="ID", help="the token ids to step through (instead of --prefix)")
    p.add_argument("--why", type=utf8_text, nargs="+", default=[], metavar="TOKEN",
                   help="tokens (ids or exact texts) whose refusal to explain at every step")
    p.add_argument("--format", choices=["html", "text", "dot"], default="html",
                   help="html: one self-contained page (default); text; dot: a Graphviz graph (--graph)")
    p.add_argument("--graph", choices=["dfa", "trie"],
                   help="--format dot: the lexer's DFA (dfa, the default) or the token trie's top levels (trie)")
    p.add_argument("--out", metavar="FILE", help="where to write it (default: standard output)")
    _add_progress(p)
    p.set_defaults(run=_explain)
    p = sub.add_parser("generate", help="generate text for a grammar with a seeded random model (fast-forward)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--type", metavar="MODULE:CLASS",
                        help="a Python type (Grammar.from_type; docs/types.md): module:Class or file.py:Class")
    source.add_argument("--schema", metavar="FILE", help="a JSON schema")
    source.add_argument("--lark", metavar="FILE", help="a grammar in llguidance's Lark dialect")
    p.add_argument("--model", choices=["random"], default="random",
                   help="the model: 'random', a seeded random model (a real one: the Python API, refimpl.decoding.generate)")
    p.add_argument("--seed", type=int, default=0, help="the random model's (and sampler's) seed (default 0)")
    p.add_argument("--max-tokens", type=count, default=200, help="stop after this many tokens (default 200)")
    p.add_argument("--top-k", type=count, default=0, metavar="K", help="top-k sampling (default 0: greedy)")
    p.add_argument("--vocab", default="gpt2", help="an embedded vocabulary name or a tokenizer file (default gpt2)")
    p.add_argument("--flexible-whitespace", action="store_true",
                   help="--type/--schema: allow any JSON whitespace (default: one layout, so more is forced)")
    p.add_argument("--no-fast-forward", action="store_true", help="call the model for every token")
    _add_progress(p)
    p.set_defaults(run=_generate)
    args = parser.parse_args(argv)
    with progress.shown(enabled=not getattr(args, "no_progress", False)):
        return args.run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
