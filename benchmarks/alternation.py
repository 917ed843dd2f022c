"""A large alternation (issue 34): a regex `w1|w2|...|w20000` of 20,000 words on GPT-2,
the time to compile it and the first mask of a fresh grammar (a cold lexer: every
derivative is computed then), per backend, as the grammar is built (its alternations
left-factored into a trie: refimpl/regex/factoring.py) and, for comparison, as written
(the simplifier's `factor_alternations` switched off in this process); and the same
words as Lark literals (`start: "w1" | "w2" | ...`), as built (one trie lexeme:
`merge_literal_alternatives`) and as written (20,000 lexemes). One run, so the ratios
compare like with like:

    python -m benchmarks.alternation                 # 20,000 words, both word lists
    python -m benchmarks.alternation --words 2000 --no-unfactored

Words: `random` — seeded random lowercase words of 3 to 10 letters; `gpt2` — a seeded
sample of the distinct lowercase ASCII words among GPT-2's tokens (leading space
stripped).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import random
import sys
import time
from typing import Dict, Iterator, List, Optional

from refimpl import Grammar, open_matcher
from refimpl.showing.commandline import ArgumentParser, command_line

from . import common

N = 20_000
FORMS = ["factored", "as written", "lark literals", "lark literals as written"]
UNFACTORED = ("as written", "lark literals as written")


def words(source: str, n: int = N, seed: int = 0) -> List[str]:
    """n distinct lowercase words, sorted: seeded random ones, or a seeded sample of GPT-2's."""
    rng = random.Random(seed)
    if source == "random":
        out = set()
        while len(out) < n:
            out.add("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 10))))
        return sorted(out)
    tokens = (t.strip() for t in common.vocab("gpt2").tokens)
    pool = sorted({t.decode() for t in tokens if t.isalpha() and t.islower() and t.isascii()})
    return sorted(rng.sample(pool, min(n, len(pool))))


@contextlib.contextmanager
def _unfactored() -> Iterator[None]:
    """Grammars built as they are written: the simplifier's passes `factor_alternations`
    and `merge_literal_alternatives` off."""
    module = importlib.import_module("refimpl.grammar.simplify")
    saved = module.factor_alternations, module.merge_literal_alternatives
    module.factor_alternations = module.merge_literal_alternatives = lambda ir: ir  # type: ignore[assignment]
    try:
        yield
    finally:
        module.factor_alternations, module.merge_literal_alternatives = saved  # type: ignore[assignment]


def _grammar(form: str, ws: List[str]) -> Grammar:
    with _unfactored() if form in UNFACTORED else contextlib.nullcontext():
        if form.startswith("lark literals"):
            return Grammar.from_lark("start: " + " | ".join('"%s"' % w for w in ws))
        return Grammar.from_regex("|".join(ws))


def measure(source: str, form: str, backend: str, n: int = N) -> Dict[str, float]:
    """compile_s (the grammar), first_mask_s (a fresh grammar's first mask: cold lexer),
    next_mask_s (after two letters of the first word), allowed (tokens in the first mask)."""
    reason = common.backend_reasons().get(backend)
    if reason is not None:
        raise common.Skip(reason)
    ws = words(source, n)
    v = common.vocab("gpt2")
    t0 = time.perf_counter()
    g = _grammar(form, ws)
    t1 = time.perf_counter()
    m = open_matcher(g, v, backend=backend)
    try:
        t2 = time.perf_counter()
        first = m.mask()
        t3 = time.perf_counter()
        assert m.consume_bytes(ws[0][:2].encode())
        t4 = time.perf_counter()
        m.mask()
        t5 = time.perf_counter()
    finally:
        m.close()
    return {"compile_s": t1 - t0, "first_mask_s": t3 - t2, "next_mask_s": t5 - t4,
            "allowed": float(len(first.allowed()))}


def _main(argv: Optional[List[str]] = None) -> int:
    ap = ArgumentParser(prog="python -m benchmarks.alternation", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--words", type=int, default=N, help="words in the alternation (default %(default)s)")
    ap.add_argument("--source", action="append", choices=["random", "gpt2"], help="default: both")
    ap.add_argument("--backend", action="append", choices=["python", "native"], help="default: both")
    ap.add_argument("--no-unfactored", action="store_true", help="skip the forms as written (minutes each)")
    args = ap.parse_args(argv)
    info = common.machine()
    print("a %d-word regex alternation on GPT-2 — %s, %s (%s cores), %s"
          % (args.words, info["date"], info["cpu"], info["cores"], info["python"]))
    print()
    print("| words | form | backend | compile s | first mask s | x factored | next mask s | allowed |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    forms = [f for f in FORMS if not (args.no_unfactored and f in UNFACTORED)]
    for source in args.source or ["random", "gpt2"]:
        for backend in args.backend or ["python", "native"]:
            base = None
            for form in forms:
                try:
                    r = measure(source, form, backend, args.words)
                except common.Skip as e:
                    print("| %s | %s | %s | (skipped: %s) | | | | |" % (source, form, backend, e))
                    continue
                if form == "factored":
                    base = r["first_mask_s"]
                ratio = "%.1fx" % (r["first_mask_s"] / base) if base else ""
                print("| %s | %s | %s | %.2f | %.2f | %s | %.3f | %d |" % (
                    source, form, backend, r["compile_s"], r["first_mask_s"], ratio, r["next_mask_s"], r["allowed"]))
                sys.stdout.flush()
    return 0


#: the command (a mistake in the arguments: one error line, exit status 2)
main = command_line(_main)


if __name__ == "__main__":
    sys.exit(main())
