"""The `maskref` command line."""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Optional

if TYPE_CHECKING:
    from ..frontends.grammar import Grammar


def _regex(args: argparse.Namespace) -> int:
    """Show the derivative trace of each text through the pattern."""
    from ..regex import DEAD, Regex, to_string

    r = Regex(args.pattern)
    print("pattern  %s" % args.pattern)
    print("compiled %s  (%d expression nodes)" % (r.to_string(), r.es.size(r.expr)))
    for text in args.texts:
        data = text.encode("utf-8")
        state = r.dfa.start
        print("\n%r" % text)
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

    from ..masks.matcher import Matcher
    from ..tokens.vocab import Vocabulary

    grammar = _grammar(args)
    vocab = Vocabulary.load(args.vocab)
    m = Matcher(grammar, vocab)
    if args.prefix and not m.consume_bytes(args.prefix.encode("utf-8")):
        print("the prefix %r does not fit the grammar" % args.prefix)
        return 1
    t0 = time.perf_counter()
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


def _grammar(args: argparse.Namespace) -> "Grammar":
    """The grammar named by the source options (_add_source)."""
    from ..frontends.grammar import Grammar

    if args.regex is not None:
        return Grammar.from_regex(args.regex)
    path = args.lark or args.gbnf or args.ebnf or args.schema
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if args.lark is not None:
        return Grammar.from_lark(text)
    if args.gbnf is not None:
        return Grammar.from_gbnf(text, root=args.root or "root")
    if args.ebnf is not None:
        return Grammar.from_ebnf(text, dialect=args.dialect, root=args.root)
    return Grammar.from_json_schema(text)


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
    from ..tokens.vocab import Vocabulary
    from . import explain

    vocab = Vocabulary.load(args.vocab)
    why = [int(w) if w.isdigit() else w for w in args.why]
    ex = explain(_grammar(args), vocab, text=args.prefix, tokens=args.tokens or (), why=why)
    from . import dot, page, text

    out = {"text": text.render, "dot": dot.render, "html": page.render}[args.format](ex)
    if args.out is None:
        sys.stdout.write(out)
    else:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(out)
        print("wrote %s (%d steps%s)" % (args.out, len(ex.steps), "; " + ex.stopped if ex.stopped else ""))
    return 1 if ex.stopped else 0


def _generate(args: argparse.Namespace) -> int:
    """Generate text constrained by a grammar with a seeded random model; print the text,
    the parsed value and the model calls fast-forward saved (docs/generation.md)."""
    import json

    from ..decoding import RandomModel, TopK, generate, greedy
    from ..frontends.grammar import Grammar
    from ..masks.matcher import Matcher
    from ..tokens.vocab import Vocabulary
    from ..typed import parse

    layout: Dict[str, Any] = {} if args.flexible_whitespace else {
        "whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}
    target = None
    if args.type is not None:
        target = _load_type(args.type)
        grammar = Grammar.from_type(target, **layout)
        source = "type %s" % args.type
    elif args.schema is not None:
        with open(args.schema, encoding="utf-8") as f:
            grammar = Grammar.from_json_schema(f.read(), **layout)
        source = "JSON schema %s" % args.schema
    else:
        with open(args.lark, encoding="utf-8") as f:
            grammar = Grammar.from_lark(f.read())
        source = "Lark grammar %s" % args.lark
    vocab = Vocabulary.load(args.vocab)
    model = RandomModel(vocab, seed=args.seed)
    sampler = TopK(args.top_k, seed=args.seed) if args.top_k else greedy
    result = generate(model, Matcher(grammar, vocab), max_tokens=args.max_tokens, sampler=sampler,
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
    (the current directory first on the path)."""
    import importlib
    import os

    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise SystemExit("maskref generate: --type wants module:Class, not %r" % spec)
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    obj: object = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _show_byte(b: int) -> str:
    return repr(chr(b)) if 0x20 <= b < 0x7F else "0x%02X" % b


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="maskref", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("regex", help="trace a pattern's derivatives over some texts")
    p.add_argument("pattern")
    p.add_argument("texts", nargs="*", default=[])
    p.set_defaults(run=_regex)
    p = sub.add_parser("mask", help="the token mask of a grammar after a prefix")
    _add_source(p)
    p.add_argument("--prefix", default="", help="text already generated")
    p.add_argument("--sample", type=int, default=12, help="how many allowed tokens to show")
    p.add_argument("--explain", action="store_true", help="print the walk statistics")
    p.set_defaults(run=_mask)
    p = sub.add_parser("explain", help="step through the masks along a prefix: an HTML page, text or DOT")
    _add_source(p)
    p.add_argument("--prefix", default="", help="the text to step through (split into the longest allowed tokens)")
    p.add_argument("--tokens", type=int, nargs="+", metavar="ID", help="the token ids to step through (instead of --prefix)")
    p.add_argument("--why", nargs="+", default=[], metavar="TOKEN",
                   help="tokens (ids or exact texts) whose refusal to explain at every step")
    p.add_argument("--format", choices=["html", "text", "dot"], default="html",
                   help="html: one self-contained page (default); text; dot: the lexer DFA and the trie's top levels")
    p.add_argument("--out", metavar="FILE", help="where to write it (default: standard output)")
    p.set_defaults(run=_explain)
    p = sub.add_parser("generate", help="generate text for a grammar with a seeded random model (fast-forward)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--type", metavar="MODULE:CLASS", help="a Python type (Grammar.from_type; docs/types.md)")
    source.add_argument("--schema", metavar="FILE", help="a JSON schema")
    source.add_argument("--lark", metavar="FILE", help="a grammar in llguidance's Lark dialect")
    p.add_argument("--model", choices=["random"], default="random",
                   help="the model: 'random', a seeded random model (a real one: the Python API, refimpl.decoding.generate)")
    p.add_argument("--seed", type=int, default=0, help="the random model's (and sampler's) seed (default 0)")
    p.add_argument("--max-tokens", type=int, default=200, help="stop after this many tokens (default 200)")
    p.add_argument("--top-k", type=int, default=0, metavar="K", help="top-k sampling (default: greedy)")
    p.add_argument("--vocab", default="gpt2", help="an embedded vocabulary name or a tokenizer file (default gpt2)")
    p.add_argument("--flexible-whitespace", action="store_true",
                   help="--type/--schema: allow any JSON whitespace (default: one layout, so more is forced)")
    p.add_argument("--no-fast-forward", action="store_true", help="call the model for every token")
    p.set_defaults(run=_generate)
    args = parser.parse_args(argv)
    from ..errors import MaskrefError

    try:
        return args.run(args)
    except MaskrefError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
