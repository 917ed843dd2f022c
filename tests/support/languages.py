"""The language of a grammar IR, by brute force: the byte strings its start symbol derives
up to a length, each literal lexeme read as its one word (tests/grammar/)."""
from typing import Dict, List, Set

from refimpl.grammar.ir import GrammarIR
from refimpl.regex import DEAD, LazyDFA

MAXLEN = 6


def lexeme_word(ir: GrammarIR, i: int, alphabet: bytes = b"abc") -> bytes:
    """The one word of a literal lexeme over `alphabet`, found by walking its DFA."""
    dfa = LazyDFA(ir.es, ir.lexemes[i].expr)
    word = b""
    state = dfa.run(b"")
    while not dfa.matches(word):
        for b in alphabet:
            nxt = dfa.step(state, b)
            if nxt != DEAD:
                word += bytes([b])
                state = nxt
                break
        else:
            raise AssertionError("not a literal over the alphabet")
    return word


def bounded_language(ir: GrammarIR, maxlen: int = MAXLEN) -> Set[bytes]:
    """The byte strings of length <= maxlen the start symbol derives (each lexeme a
    literal): a naive fixpoint over all rules, sets truncated at maxlen. Exact, because a
    derivation of a short string only uses derivations of shorter-or-equal substrings.
    Sets are kept by length (`lang[nt][k]`: the strings of length k), so concatenation
    only pairs strings whose lengths fit."""
    words = {~i: lexeme_word(ir, i) for i in range(len(ir.lexemes))}
    lang: Dict[int, List[Set[bytes]]] = {nt: [set() for _ in range(maxlen + 1)] for nt in range(len(ir.names))}

    def of(sym: int) -> List[Set[bytes]]:
        if sym >= 0:
            return lang[sym]
        out: List[Set[bytes]] = [set() for _ in range(maxlen + 1)]
        if len(words[sym]) <= maxlen:
            out[len(words[sym])].add(words[sym])
        return out

    changed = True
    while changed:
        changed = False
        for lhs, rhs in ir.rules:
            current: List[Set[bytes]] = [{b""}] + [set() for _ in range(maxlen)]
            for sym in rhs:
                right = of(sym)
                nxt: List[Set[bytes]] = [set() for _ in range(maxlen + 1)]
                for i, xs in enumerate(current):
                    for j in range(maxlen + 1 - i):
                        if xs and right[j]:
                            nxt[i + j].update(x + y for x in xs for y in right[j])
                current = nxt
            for k in range(maxlen + 1):
                if not current[k] <= lang[lhs][k]:
                    lang[lhs][k] |= current[k]
                    changed = True
    return set().union(*lang[ir.start])
