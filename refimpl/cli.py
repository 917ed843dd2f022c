"""The `maskref` command line."""
from __future__ import annotations

import argparse
import sys
from typing import List, Optional


def _regex(args: argparse.Namespace) -> int:
    """Show the derivative trace of each text through the pattern."""
    from .regex import DEAD, Regex

    r = Regex(args.pattern)
    print("pattern  %s" % args.pattern)
    print("compiled %s  (%d expression nodes)" % (r.to_string(), r.es.size(r.expr)))
    for text in args.texts:
        data = text.encode("utf-8")
        state = r.dfa.start
        print("\n%r" % text)
        for i, b in enumerate(data):
            state = r.dfa.step(state, b)
            print("  d/d %-6s -> %s" % (_show_byte(b), r.es.to_string(r.dfa.states[state])))
            if state == DEAD:
                print("  dead after %d of %d bytes" % (i + 1, len(data)))
                break
        print("  %s" % ("match" if r.dfa.accepting[state] else "no match"))
    return 0


def _show_byte(b: int) -> str:
    return repr(chr(b)) if 0x20 <= b < 0x7F else "0x%02X" % b


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="maskref", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("regex", help="trace a pattern's derivatives over some texts")
    p.add_argument("pattern")
    p.add_argument("texts", nargs="*", default=[])
    p.set_defaults(run=_regex)
    args = parser.parse_args(argv)
    from .errors import MaskrefError

    try:
        return args.run(args)
    except MaskrefError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
