"""Injected faults: deliberately broken engines, the conformance suite's test of itself.

Each fault is a small wrapper or subclass around refimpl's Matcher with one realistic
bug of the kind engines have had (engine names `fault:<name>`). tests/conformance/
checks that `fuzz` finds each one and reports how many the default suite (`run`) catches.

    drop-eos        never allows EOS
    negated-range   reads the last range of a negated class one short: [^a-c] as [^a-b]
    no-pop          the trie walk forgets to pop parser rows when it leaves a subtree
    utf8-split      allows a token ending in an incomplete UTF-8 sequence whenever the
                    bytes before that sequence are allowed (a character-level engine's
                    leniency), even when no valid character can complete it
    slice-last      a precomputed slice mask misses the slice's last token

and faults of the engine's process, which containment (`run --timeout/--memory`,
conformance/containment.py) must record and survive (PROCESS_FAULTS: not among the
mask bugs above, which `run` and `fuzz` are tested to find):

    hang            its first mask never returns
    crash           its first mask kills its process with SIGSEGV (a native crash)
    memory          its first mask allocates without bound (only under a memory limit:
                    it refuses to start otherwise)
"""
from __future__ import annotations

import faulthandler
import json
import os
import re
import signal
import time
from typing import Callable, Dict, Optional

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.masks.mask import Mask
from refimpl.masks.slicer import JSON_SLICES
from refimpl.masks.walk import ParserHooks
from refimpl.recognition.lexer import GREEDY_ENDS, LAZY_ENDS, Lexer
from refimpl.tokens.trie import SEVERAL_TOKENS, TokenTrie

from .engine import Engine, Session
from .refimpl_engines import MatcherSession
from .vectors import GrammarSpec


class Fault:
    def __init__(self, description: str, matcher: Callable[[Grammar, Vocabulary], Matcher],
                 rewrite: Optional[Callable[[str], str]] = None) -> None:
        self.description = description
        self.matcher = matcher
        self.rewrite = rewrite


# -- drop-eos -------------------------------------------------------------------------------


class DropEos(Matcher):
    def mask(self) -> Mask:
        mask = super().mask()
        for t in self.vocab.eos_token_ids:
            mask.flags[t] = 0
        return mask


# -- negated-range --------------------------------------------------------------------------

_NEGATED = re.compile(r"\[\^([^\]\\]*?)([^\]\\])-([^\]\\])\]")


def shorten_negated_ranges(text: str) -> str:
    """[^...x-y] -> [^...x-(y-1)]: the off-by-one of an exclusive range end."""

    def fix(m: "re.Match[str]") -> str:
        lo, hi = m.group(2), m.group(3)
        if ord(hi) - 1 < ord(lo):
            return m.group(0)
        return "[^%s%s-%s]" % (m.group(1), lo, chr(ord(hi) - 1))

    return _NEGATED.sub(fix, text)


# -- no-pop ---------------------------------------------------------------------------------


def walk_without_pop(trie: TokenTrie, lexer: Lexer, parser: ParserHooks, state: int, top: int,
                     allowed: bytearray) -> int:
    """tokens/walk.py's walk (without its shortcuts: restarts, subtrees taken whole), minus
    the popping of parser tops when leaving a subtree: a sibling is then read on top of
    rows pushed for another branch."""
    advance = parser.advance
    byte, end, depth, token = trie.byte, trie.end, trie.depth, trie.token
    table, fill, ends = lexer.table, lexer.fill, lexer.ends
    states = [0] * (trie.max_depth + 1)
    states[0] = state
    tops = [top]
    n = 1
    size = len(byte)
    while n < size:
        d = depth[n]
        s = states[d - 1]
        b = byte[n]
        t = table[s << 8 | b]
        if t < 0:
            t = fill(s, b)
        if t == 0 or ends[t] & LAZY_ENDS:
            if t == 0 and not ends[s] & GREEDY_ENDS:
                n = end[n]
                continue
            t, new_top = advance(s, tops[-1], b)
            if t == 0:
                n = end[n]
                continue
            tops.append(new_top)  # never popped
        states[d] = t
        tok = token[n]
        if tok >= 0:
            allowed[tok] = 1
        elif tok == SEVERAL_TOKENS:
            for x in trie.multi[n]:
                allowed[x] = 1
        n += 1
    return size - 1


def no_pop(grammar: Grammar, vocab: Vocabulary) -> Matcher:
    return Matcher(grammar, vocab, walker=walk_without_pop)


# -- utf8-split -----------------------------------------------------------------------------


def incomplete_tail(data: bytes) -> int:
    """The length of an incomplete UTF-8 sequence at the end of data (0 if none)."""
    for k in range(1, min(4, len(data)) + 1):
        b = data[-k]
        if b & 0xC0 == 0x80:
            continue  # a continuation byte: look further back
        need = 2 if b & 0xE0 == 0xC0 else 3 if b & 0xF0 == 0xE0 else 4 if b & 0xF8 == 0xF0 else 0
        return k if need > k else 0
    return 0


class Utf8Split(Matcher):
    def mask(self) -> Mask:
        mask = super().mask()
        if self.eos_consumed:
            return mask
        rec = self.recognizer
        for t, data in enumerate(self.vocab.tokens):
            k = incomplete_tail(data)
            if not k or mask.flags[t] or not self.vocab.is_grammar_token(t):
                continue
            head = data[:-k]
            if rec.consume_bytes(head):
                rec.rollback(len(head))
                mask.flags[t] = 1
        return mask


# -- slice-last -----------------------------------------------------------------------------


class SliceLast(Matcher):
    """Slices on any vocabulary (a Matcher not told its slices slices only large ones:
    slicer.default_slices), so that the fault is there to find in the fuzzer's small ones."""

    def __init__(self, grammar: Grammar, vocab: Vocabulary) -> None:
        super().__init__(grammar, vocab, slices=JSON_SLICES)

    def mask(self) -> Mask:
        mask = super().mask()
        if self.slicer is None or self._slice_oracle is None or self.eos_consumed:
            return mask
        certain = self._slice_oracle.certain(self.recognizer.state)
        for piece, ok in zip(self.slicer.slices, certain):
            if ok and piece.flags:
                last = (piece.flags.bit_length() - 1) // 8
                mask.flags[last] = 0
        return mask


# -- hang, crash, memory ---------------------------------------------------------------------


class Hang(Matcher):
    def mask(self) -> Mask:
        while True:
            time.sleep(1)


class Crash(Matcher):
    def mask(self) -> Mask:
        faulthandler.disable()  # (pytest's would print a traceback: the crash is meant)
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(10)  # the signal's delivery
        raise AssertionError("SIGSEGV did not end the process")


class Hog(Matcher):
    def mask(self) -> Mask:
        hog = []
        while True:
            hog.append(bytearray(16 << 20))


def hog(grammar: Grammar, vocab: Vocabulary) -> Matcher:
    import resource

    if resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY:
        raise RuntimeError("fault:memory runs only under a memory limit (run --memory MB): it would take all memory")
    return Hog(grammar, vocab)


FAULTS: Dict[str, Fault] = {
    "drop-eos": Fault("never allows EOS", DropEos),
    "negated-range": Fault("reads [^a-c] as [^a-b] (negated range end off by one)", Matcher, shorten_negated_ranges),
    "no-pop": Fault("the trie walk forgets to pop parser rows", no_pop),
    "utf8-split": Fault("allows tokens ending in an incomplete UTF-8 sequence", Utf8Split),
    "slice-last": Fault("a slice's precomputed mask misses its last token", SliceLast),
}


PROCESS_FAULTS: Dict[str, Fault] = {
    "hang": Fault("its first mask never returns", Hang),
    "crash": Fault("its first mask kills its process (SIGSEGV)", Crash),
    "memory": Fault("its first mask allocates without bound (only under run --memory)", hog),
}


class FaultEngine(Engine):
    """refimpl's Matcher with one injected fault."""

    uses_refimpl = True

    def __init__(self, fault: str) -> None:
        self.fault = FAULTS[fault] if fault in FAULTS else PROCESS_FAULTS[fault]
        self.name = "fault:" + fault
        self.description = self.fault.description

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        rewrite = self.fault.rewrite
        if rewrite is not None:
            if spec.kind == "json_schema":
                spec = GrammarSpec("json_schema", schema=json.loads(rewrite(json.dumps(spec.schema))), options=spec.options)
            else:
                spec = GrammarSpec(spec.kind, rewrite(spec.source), options=spec.options)  # gbnf/ebnf: root, dialect
            grammar = None
        if grammar is None:
            grammar = spec.compile()
        return MatcherSession(self.fault.matcher(grammar, vocab))
