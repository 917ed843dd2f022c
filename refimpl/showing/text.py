"""`maskref explain --format text`: the steps as plain text, for terminals and snapshots.

>>> from refimpl import Grammar, Vocabulary
>>> from refimpl.showing import explain
>>> vocab = Vocabulary.from_bytes([b"a", b"b", b"ab", b"c"], eos_token_id=None)
>>> print(render(explain(Grammar.from_regex("ab*"), vocab, text="ab")).split("== step 1")[0])  # doctest: +ELLIPSIS
grammar     regex ab*
vocabulary  4 tokens
<BLANKLINE>
== step 0: the start
text        ''
lexer       state 1: /ab*/ = ab*
...
mask        2 of 4 tokens allowed
sample      0:'a' 2:'ab'
walk        4 of 5 trie nodes reached; 2 subtrees skipped (by byte: b 1, c 1); 0 taken whole
...
"""
from __future__ import annotations

from typing import List, Tuple

from .steps import Explanation, StepView, grammar_summary

SKIP_BYTES = 10  # bytes shown in the skipped-by-byte count


def render(ex: Explanation) -> str:
    lines = ["grammar     %s %s" % (ex.grammar.kind, grammar_summary(ex.grammar, 100)),
             "vocabulary  %d tokens" % len(ex.vocab)]
    for step in ex.steps:
        lines.append("")
        lines.extend(step_lines(step))
    if ex.stopped:
        lines.extend(["", "stopped     %s" % ex.stopped])
    return "\n".join(lines) + "\n"


def _pairs(pairs: List[Tuple[str, str]]) -> str:
    return "; ".join("%s = %s" % p for p in pairs) if pairs else "dead"


def step_lines(s: StepView) -> List[str]:
    title = "the start" if s.token is None else "token %d %r" % (s.token, s.token_text)
    out = ["== step %d: %s" % (s.index, title), "text        %r" % s.text]
    for b in s.bytes:
        out.append("  byte %-4s %s" % (b.byte, _pairs(b.before)))
        for scan in b.scanned:
            out.append("            ends %s" % scan)
        out.append("         ->  state %d: %s" % (b.after_state, _pairs(b.after)))
    out.append("lexer       state %d: %s" % (s.lexer_state, _pairs(s.lexer)))
    d = s.dfa
    out.append("lexer DFA   %d states, %d transitions computed" % (d.total_states, d.transitions))
    for r in s.rows:
        flags = (" accepting" if r.accepting else "") + (" reused" if r.reused else "")
        out.append("row %d%s" % (r.index, flags))
        out.extend("    %s" % item for item in r.items)
        out.extend("    Leo %s" % leo for leo in r.leo)
        out.extend("    walk pushed %s" % c for c in r.children)
    w = s.walk
    eos = ", EOS allowed" if s.eos else ""
    out.append("mask        %d of %d tokens allowed%s" % (s.allowed, s.vocab_size, eos))
    out.append("sample      " + " ".join("%d:%r" % t for t in s.sample))
    if w.cached:
        out.append("walk        none: the mask cache answered")
    else:
        by_byte = ", ".join("%s %d" % kv for kv in w.skipped_by_byte[:SKIP_BYTES])
        more = ", …" if len(w.skipped_by_byte) > SKIP_BYTES else ""
        out.append("walk        %d of %d trie nodes reached; %d subtrees skipped (by byte: %s%s); %d taken whole"
                   % (w.nodes, w.trie_nodes, w.skipped, by_byte, more, w.whole))
        out.extend("  skipped   %d: %s" % (n, why) for why, n in w.skipped_by_reason)
        out.append("  parser    %d lexemes scanned (rows built %d, reused %d), %d restarts asked"
                   % (w.scans, w.rows_built, w.rows_reused, w.restarts))
        if w.slices:
            out.append("  slices    applied whole: %s" % ", ".join(w.slices))
    for f in s.refusals:
        at = "" if not f.byte else " at byte %d %s in %s:" % (f.offset, f.byte, _pairs(f.state))
        out.append("refused     %d:%r%s %s" % (f.token, f.text, at, f.why))
    if s.forced_bytes:
        out.append("forced      bytes %r, tokens %s" % (s.forced_bytes, " ".join("%d:%r" % t for t in s.forced_tokens)))
    return out
