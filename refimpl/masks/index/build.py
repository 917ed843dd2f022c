"""The V2 construction of the index (outlines-core PR #194), each step switchable.

    1 dead bytes       classes.ByteSets: tokens with a byte no state can read are dropped
    2 byte classes     classes.ClassTrie: tokens spelled alike are decided together
    3 prefix graph     prefix.walk_prefixes: a dead prefix discards all its extensions
    4 parallel roots   `workers`: the states' rows computed in forked processes
    5 muted literals   classes.ByteSets.partition of each state's own expression, not the root's
    6 compressed table table.TokenIndex: a bitset per state, transitions by target

The states are discovered breadth-first from the start: a state's row names the states
its tokens lead to, and each new one gets its row in turn. Every combination of steps
gives the same table as naive.naive_index (tests/masks/test_index.py); `Steps` switches them
one at a time so that benchmarks/index.py can measure each one's contribution.

Step 4 needs the DFA complete before the processes fork (each then only reads the table:
a lazily filled DFA would number new states differently in each process), so the parent
first expands every state reachable by bytes; the rows come back as bitmasks. It pays
only where rows are expensive and many (measured in docs/token-index.md); the default is one
process, and so is every system without `fork`.

The number of states is bounded by `Limits.index_states` (LimitError beyond), the DFA's
by `Limits.dfa_states`.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from ... import progress
from ...frontends.grammar import Grammar
from ...regex.dfa import DEAD, LazyDFA
from ...tokens.vocab import Vocabulary
from .classes import ByteSets, ClassTrie, Partition
from .naive import grammar_tokens, index_dfa
from .prefix import Transitions, walk_each, walk_prefixes
from .table import Row, TokenIndex, check_size, make_row


class Steps(NamedTuple):
    """Which steps of the V2 construction to use (all by default; workers: step 4)."""

    dead_bytes: bool = True
    byte_classes: bool = True
    prefix_graph: bool = True
    workers: int = 1
    muted_literals: bool = True
    #: states that must share a partition before it gets a class trie of its own (step 5)
    mute_after: int = 8


ALL_STEPS = Steps()


class _Builder:
    """The rows of one index: the class tries per partition, and a row per state."""

    def __init__(self, dfa: LazyDFA, vocab: Vocabulary, steps: Steps) -> None:
        self.dfa, self.vocab, self.steps = dfa, vocab, steps
        self.tokens = grammar_tokens(vocab)
        self.root = dfa.states[dfa.start]
        self.byte_sets = ByteSets(dfa.es)
        self.tries: Dict[Partition, ClassTrie] = {}
        self.asked: Dict[Partition, int] = {}
        self.walk: Callable[[ClassTrie, LazyDFA, int, Transitions], None] = (
            walk_prefixes if steps.prefix_graph else walk_each)

    def class_trie(self, state: int) -> ClassTrie:
        """The class trie for `state`: of its own partition (muted) or of the root's.

        A trie costs a pass over the vocabulary, a walk only the nodes it visits: a
        partition gets its own trie once `steps.mute_after` states have asked for it (until then
        the root's serves: exact too, only finer). A state's live bytes are among the
        root's, so its trie is built from the tokens of the root's trie."""
        root = self._trie(self._partition(self.root))
        if not self.steps.muted_literals:
            return root
        p = self._partition(self.dfa.states[state])
        asked = self.asked[p] = self.asked.get(p, 0) + 1
        return self._trie(p, root.kept) if p in self.tries or asked >= self.steps.mute_after else root

    def _partition(self, e: int) -> Partition:
        return self.byte_sets.partition(e, dead_bytes=self.steps.dead_bytes, classes=self.steps.byte_classes)

    def _trie(self, p: Partition, tokens: Optional[Sequence[int]] = None) -> ClassTrie:
        trie = self.tries.get(p)
        if trie is None:
            trie = self.tries[p] = ClassTrie(self.vocab.tokens, self.tokens if tokens is None else tokens, p)
        return trie

    def row(self, state: int) -> Tuple[Row, List[int]]:
        """The state's row, and the states it leads to."""
        out = Transitions(len(self.vocab))
        self.walk(self.class_trie(state), self.dfa, state, out)
        return make_row(out), out.targets


def build_index(grammar: Grammar, vocab: Vocabulary, steps: Steps = ALL_STEPS) -> TokenIndex:
    """The index of a regular grammar (NotRegular otherwise) over `vocab`."""
    dfa = index_dfa(grammar)
    builder = _Builder(dfa, vocab, steps)
    rows: Dict[int, Row] = {}
    if steps.workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        _parallel_rows(builder, rows)
    else:
        todo = [dfa.start]
        with progress.task("token index (states)") as shown:  # refimpl/progress.py
            while todo:
                s = todo.pop()
                if s not in rows:
                    check_size(rows, dfa.es.limits.index_states)
                    rows[s], targets = builder.row(s)
                    todo.extend(t for t in targets if t not in rows)
                    shown.advance()
    return TokenIndex(dfa, dfa.start, rows, len(vocab), vocab.eos_token_ids)


def shared_index(grammar: Grammar, vocab: Vocabulary) -> TokenIndex:
    """The grammar's index over `vocab`, built by the first Matcher that asks and kept in
    `CompiledGrammar.shared` for the others (per vocabulary object; a table is read only).
    Two threads asking at once may both build it; either result is the same table."""
    shared = grammar.compiled.shared
    indexes = shared.get("indexes")
    if not isinstance(indexes, dict):
        indexes = shared.setdefault("indexes", {})
        assert isinstance(indexes, dict)
    index = indexes.get(vocab)
    if not isinstance(index, TokenIndex):
        index = indexes[vocab] = build_index(grammar, vocab)
    return index


def _parallel_rows(builder: _Builder, rows: Dict[int, Row]) -> None:
    """Step 4: breadth-first, each level's rows computed by `workers` forked processes."""
    dfa = builder.dfa
    done = 0
    while done < len(dfa.states):  # complete the DFA: the processes must not add states
        dfa.expand(done)
        done += 1
    for s in range(len(dfa.states)):
        builder.class_trie(s)
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(builder.steps.workers, mp_context=context,
                             initializer=_adopt, initargs=(builder,)) as pool:
        level = [dfa.start]
        while level:
            found = []
            for s, (row, targets) in zip(level, pool.map(_row, level, chunksize=max(1, len(level) // 8))):
                check_size(rows, dfa.es.limits.index_states)
                rows[s] = row
                found.extend(targets)
            level = sorted({t for t in found if t not in rows and t != DEAD})


_WORKER: List[Optional[_Builder]] = [None]  # the builder a forked worker inherited


def _adopt(builder: _Builder) -> None:
    _WORKER[0] = builder


def _row(state: int) -> Tuple[Row, List[int]]:
    builder = _WORKER[0]
    assert builder is not None
    return builder.row(state)
