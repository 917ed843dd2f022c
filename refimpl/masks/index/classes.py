"""Steps 1, 2 and 5 of the V2 index: dead bytes, byte classes, muted literals.

**Dead bytes (1).** A byte that no byte set of the expression contains can never be read:
every derivative by it is ∅. A token containing it is refused from every state, so it is
dropped before any work (`ByteSets.partition`'s live bytes, `ClassTrie`'s token filter).

**Byte classes (2).** Bytes that every byte set of the expression treats alike have the same
derivative everywhere below it (regex/classes.py). Spell each token as the sequence of
its bytes' classes: tokens with the same class spelling go to the same state from every
state, so they are decided once, together (a node of `ClassTrie` lists them all).

**Muted literals (5).** One global set of classes is as fine as the finest place in the
regex: in `(https?://)?[a-z.-]+`, `h t p s :` each get a class because of the literal, and
every token of lowercase letters is spelled differently depending on where those letters
are, although past the literal no state can tell them apart. outlines-core's PR #194
replaces literals by "ghost" symbols, each standing for one tokenisation of the literal.
maskref keeps masks exact (every tokenisation of a literal is allowed), so it mutes a
literal where it can no longer be read instead: the classes and the dead bytes are those of
each *state's* expression (`ByteSets.partition` of it), whose byte sets are only those still ahead;
once the literal is behind, its bytes merge back into the classes around them. Derivatives
only hold byte sets of the expression they come from, so a state's classes are exact for
the whole walk from it.

>>> from refimpl.regex import ExprSet, compile_pattern
>>> es = ExprSet()
>>> e = compile_pattern(es, "(ab)?[a-z]+")
>>> sets = ByteSets(es)
>>> live, classes = sets.partition(e)
>>> [bytes(b for b in range(256) if m >> b & 1) for m in classes]
[b'a', b'b', b'cdefghijklmnopqrstuvwxyz']
>>> live == sets.partition(compile_pattern(es, "[a-z]"))[0]        # every other byte is dead
True
>>> sets.partition(compile_pattern(es, "[a-z]+"))[1] == (live,)    # past the literal: one class
True
"""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Sequence, Tuple

from ...regex.classes import byte_sets, covered_bytes, lowest_byte, partition
from ...regex.exprs import ALL_BYTES, ExprSet
from ...tokens.trie import TokenTrie

#: (live bytes, the classes of the live bytes): what a ClassTrie is built from
Partition = Tuple[int, Tuple[int, ...]]


class ByteSets:
    """Partitions of the bytes for ClassTries, from the byte classes of each expression
    (regex/classes.py), cached by its set of byte sets, which many states share, and the
    steps taken."""

    def __init__(self, es: ExprSet) -> None:
        self.es = es
        self._partitions: Dict[Tuple[FrozenSet[int], bool, bool], Partition] = {}

    def partition(self, e: int, *, dead_bytes: bool = True, classes: bool = True) -> Partition:
        """The live bytes of e and their classes (bit masks), for a ClassTrie.

        Step 5 is the caller's choice of e: the state's own expression (muted), or the
        root for every state (one global partition). Without step 1 every byte is live;
        without step 2 every live byte is its own class."""
        masks = byte_sets(self.es, e)
        # step 1 only where the bytes no byte set of e holds are dead: not under & or ¬
        # (Σ* is ¬∅, which holds no byte set and refuses no byte: regex/classes.py)
        dead_bytes = dead_bytes and not self.es.has_boolean[e]
        key = (masks, dead_bytes, classes)
        p = self._partitions.get(key)
        if p is None:
            live = covered_bytes(self.es, e) if dead_bytes else ALL_BYTES  # step 1
            if classes:  # step 2: the classes of the live bytes (a class is all live or all dead)
                p = (live, tuple(sorted(c for c in partition(self.es, masks) if c & live)))
            else:
                p = (live, tuple(1 << b for b in range(256) if live >> b & 1))
            self._partitions[key] = p
        return p


class ClassTrie:
    """Step 2 and the input of step 3: the trie of the tokens' class spellings.

    Tokens with a dead byte are left out; each node lists every token spelled by its path
    (`trie.tokens_at`), and `reps[c]` is one byte of class c, whose derivative stands for
    the whole class.
    """

    def __init__(self, tokens: Sequence[bytes], token_ids: Sequence[int], partition: Partition) -> None:
        live, classes = partition
        spell = bytearray(256)
        self.reps: List[int] = []
        for c, mask in enumerate(classes):
            self.reps.append(lowest_byte(mask))
            b = 0
            while mask:
                if mask & 1:
                    spell[b] = c
                mask >>= 1
                b += 1
        spelled = _Spelled([b""] * len(tokens))
        kept = []
        if live == ALL_BYTES:
            for t in token_ids:
                spelled.tokens[t] = tokens[t].translate(spell)
                kept.append(t)
        else:  # a dead byte is spelled 255, a class no partition of live bytes reaches
            for b in range(256):
                if not live >> b & 1:
                    spell[b] = 255
            for t in token_ids:
                spelled.tokens[t] = spelling = tokens[t].translate(spell)
                if 255 not in spelling:
                    kept.append(t)
        self.trie = TokenTrie(spelled, kept)
        #: the tokens in the trie (those without a dead byte)
        self.kept = kept


class _Spelled:
    """The tokens spelled in classes, as a TokenSource (the trie is given which count)."""

    def __init__(self, tokens: List[bytes]) -> None:
        self.tokens = tokens

    def is_grammar_token(self, t: int) -> bool:
        return True
