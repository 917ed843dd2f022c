"""An independent recogniser for character grammars, for the tests: Earley over code points.

It shares nothing with refimpl's pipeline but the parsed rules (refimpl.frontends.ebnf.ast):
no regexes, no lexer, no simplification. Terminals are single code points; repetitions
are expanded into plain BNF here. `viable(text)` says whether `text` is a prefix of some
sentence (every nonterminal must be productive, which `productive()` checks), and
`accepts(text)` whether it is a sentence.
"""
from typing import Dict, List, Set, Tuple

from refimpl.frontends.ebnf.ast import Alt, Chars, Literal, Node, Ref, Repeat, Seq

Sym = object  # a nonterminal name (str) or a terminal (a tuple of code point ranges)


class CharEarley:
    def __init__(self, rules: Dict[str, Node], root: str) -> None:
        self.rules: Dict[str, List[Tuple[Sym, ...]]] = {}
        self.root = root
        for name, body in rules.items():
            self.rules[name] = [self._seq(opt) for opt in (body.options if isinstance(body, Alt) else [body])]

    def _fresh(self, alternatives: List[Tuple[Sym, ...]]) -> str:
        name = "#%d" % len(self.rules)
        self.rules[name] = alternatives
        return name

    def _seq(self, node: Node) -> Tuple[Sym, ...]:
        if isinstance(node, Seq):
            return tuple(s for item in node.items for s in self._seq(item))
        if isinstance(node, Literal):
            return tuple(((ord(c), ord(c)),) for c in node.text)
        if isinstance(node, Chars):
            return (node.ranges,)
        if isinstance(node, Ref):
            return (node.name,)
        if isinstance(node, Alt):
            return (self._fresh([self._seq(o) for o in node.options]),)
        assert isinstance(node, Repeat), node
        body = self._seq(node.node)
        out: List[Sym] = list(body) * node.lo
        if node.hi is None:
            star = "#%d" % len(self.rules)
            self.rules[star] = [(), body + (star,)]
            out.append(star)
        else:
            opt: Tuple[Sym, ...] = ()
            for _ in range(node.hi - node.lo):  # (body (body ...)?)?
                opt = (self._fresh([(), body + opt]),)
            out.extend(opt)
        return tuple(out)

    def productive(self) -> bool:
        done: Set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, alts in self.rules.items():
                if name not in done and any(all(not isinstance(s, str) or s in done for s in alt) for alt in alts):
                    done.add(name)
                    changed = True
        return len(done) == len(self.rules)

    def _sets(self, text: str) -> List[Set[Tuple[str, int, int, int]]]:
        """Earley sets of items (lhs, alternative, dot, origin), one per code point read."""
        sets: List[Set[Tuple[str, int, int, int]]] = [set()]
        start = ("$", 0, 0, 0)
        self.rules.setdefault("$", [(self.root,)])
        self._close(sets, 0, [start])
        for k, ch in enumerate(text):
            cp = ord(ch)
            moved = []
            for item in sets[k]:
                lhs, alt, dot, origin = item
                rhs = self.rules[lhs][alt]
                if dot < len(rhs) and not isinstance(rhs[dot], str) and any(lo <= cp <= hi for lo, hi in rhs[dot]):
                    moved.append((lhs, alt, dot + 1, origin))
            sets.append(set())
            self._close(sets, k + 1, moved)
            if not sets[-1]:
                break
        return sets

    def _close(self, sets: List[Set[Tuple[str, int, int, int]]], k: int, seeds: List[Tuple[str, int, int, int]]) -> None:
        todo = list(seeds)
        while todo:
            item = todo.pop()
            if item in sets[k]:
                continue
            sets[k].add(item)
            lhs, alt, dot, origin = item
            rhs = self.rules[lhs][alt]
            if dot < len(rhs):
                sym = rhs[dot]
                if isinstance(sym, str):
                    for a in range(len(self.rules[sym])):
                        todo.append((sym, a, 0, k))
                    if any(i[0] == sym and i[2] == len(self.rules[sym][i[1]]) and i[3] == k for i in sets[k]):
                        todo.append((lhs, alt, dot + 1, origin))  # sym completed empty here
            else:
                for (l2, a2, d2, o2) in list(sets[origin]):
                    r2 = self.rules[l2][a2]
                    if d2 < len(r2) and r2[d2] == lhs:
                        todo.append((l2, a2, d2 + 1, o2))

    def viable(self, text: str) -> bool:
        sets = self._sets(text)
        return len(sets) == len(text) + 1 and bool(sets[-1])

    def accepts(self, text: str) -> bool:
        sets = self._sets(text)
        return len(sets) == len(text) + 1 and ("$", 0, 1, 0) in sets[-1]
