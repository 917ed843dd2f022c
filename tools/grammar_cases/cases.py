"""The records tests/data/grammar_cases.json is made of, and how observations become them.

Every extractor reports what a test says through a `Collector`:

* `observe(...)`: a string is of a kind (`STRING_KINDS`: passing, failing, prefix_only,
  prefixes, not_prefixes) for a grammar and start rule. The observations of one grammar
  in one test make a case; `finished_cases` merges what the kinds imply (a prefix that
  fails is a prefix only) and drops a case whose observations contradict each other.
* `compile(...)`: a grammar must or must not be accepted at a stage (`STAGE_RANK`); a
  grammar that builds is kept once, at the furthest stage it was seen to pass.
* `skip(reason)`: something was left out; the counts go to the file's `"skipped"`.

`features` adds to each record the hints of a rough scan of its grammar.
The fields are described in tests/data/README.md.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

# how far a grammar got: parsed only; parsed and checked (root, undefined rules, left
# recursion); compiled or run by the engine
STAGE_RANK = {"parse": 0, "validate": 1, "init": 1, "from_ebnf": 1, "engine": 2, "compile_grammar": 2, "example": 2}

# what a string list of a case means (see tests/data/README.md)
STRING_KINDS = ("passing", "failing", "prefix_only", "prefixes", "not_prefixes")


class Collector:
    """Gathers observations into cases and compile cases, and counts what is left out."""

    def __init__(self) -> None:
        self.cases: Dict[tuple, Dict[str, Any]] = {}
        self.compile_cases: Dict[tuple, Dict[str, Any]] = {}
        self.skipped: Counter = Counter()
        self.sources: List[Dict[str, str]] = []
        self.commit = ""  # of the source being read

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] += n

    def observe(self, fmt: str, source: str, grammar: str, root: str, kind: str, text: Any,
                note: Optional[str] = None) -> None:
        """Record that `text` (a str, or a list of str / token id parts) is of `kind`."""
        assert kind in STRING_KINDS
        key = (fmt, source, self.commit, grammar, root)
        case = self.cases.get(key)
        if case is None:
            case = {"format": fmt, "source": source, "commit": self.commit, "grammar": grammar, "root": root}
            case.update({k: [] for k in STRING_KINDS})
            if note:
                case["note"] = note
            self.cases[key] = case
        if isinstance(text, list):
            case["token_inputs"] = True
        if text not in case[kind]:
            case[kind].append(text)

    def compile(self, fmt: str, source: str, grammar: str, root: Optional[str], ok: bool, stage: str,
                error: Optional[str] = None, error_is_regex: bool = False, note: Optional[str] = None) -> None:
        # a grammar that builds is recorded once, at the furthest stage it was seen to pass
        key = (fmt, grammar, root, None if ok else stage, ok)
        if key in self.compile_cases and (not ok or STAGE_RANK[self.compile_cases[key]["stage"]] >= STAGE_RANK[stage]):
            return
        entry: Dict[str, Any] = {"format": fmt, "source": source, "commit": self.commit, "grammar": grammar, "root": root,
                                 "stage": stage, "should_compile": ok, "error_contains": error}
        if error_is_regex:
            entry["error_is_regex"] = True
        if note:
            entry["note"] = note
        self.compile_cases[key] = entry

    def finished_cases(self) -> List[Dict[str, Any]]:
        out = []
        for case in self.cases.values():
            if self._normalise(case):
                out.append(case)
            else:
                self.skip("case whose observations contradict each other")
        return out

    @staticmethod
    def _normalise(case: Dict[str, Any]) -> bool:
        """Merge what the kinds imply, drop empty kinds; False if they contradict."""
        passing, failing = case["passing"], case["failing"]
        prefixes, not_prefixes = case["prefixes"], case["not_prefixes"]
        for s in list(prefixes):
            if s in failing:  # a viable prefix that is not complete
                failing.remove(s)
                prefixes.remove(s)
                if s not in case["prefix_only"]:
                    case["prefix_only"].append(s)
            elif s in passing:
                prefixes.remove(s)
        positive = passing + case["prefix_only"] + prefixes
        if any(s in failing for s in passing) or any(s in passing for s in case["prefix_only"]):
            return False
        if any(s in not_prefixes for s in positive):
            return False
        for kind in STRING_KINDS[2:]:
            if not case[kind]:
                del case[kind]
        return True


def features(fmt: str, grammar: str) -> List[str]:
    """Hints, by a rough scan, of what a grammar uses (to select or skip cases)."""
    code = _strip_literals(fmt, grammar)
    return [name for name, pattern, raw in FEATURE_PATTERNS[fmt] if re.search(pattern, grammar if raw else code)]


# format -> (feature, pattern, whether the pattern looks at the raw text rather than at
# the text with literals, classes and comments blanked out)
FEATURE_PATTERNS: Dict[str, List[Tuple[str, str, bool]]] = {
    "gbnf": [("token", r"<", False), ("repetition-range", r"\{", False), ("any-char", r"\.", False)],
    "xgrammar": [("lookahead", r"\(\s*=", False), ("repetition-range", r"\{", False),
                 ("rule-options", r"(?m)^\s*[\w.-]+\[[^\]\n]*\]\s*::=", True),
                 ("macro", r"\b(Regex|Substring|TagDispatch|Token|ExcludeToken|TokenTagDispatch)\s*\(", False)],
    "kbnf": [("regex", r"#['\"]", False), ("early-end-regex", r"#e['\"]", False),
             ("regex-complement", r"#ex['\"]", False), ("substrings", r"#substrs['\"]", False),
             ("except", r"except!", False), ("any", r"any!", False)],
}


def _strip_literals(fmt: str, text: str) -> str:
    """Blank out comments and, for GBNF and xgrammar, quoted strings and [...] classes."""
    if fmt == "kbnf":  # kbnf's regexes are quoted strings with a prefix: keep them
        return re.sub(r"\(\*.*?\*\)", " ", text, flags=re.S)
    return re.sub(r'"(?:[^"\\\n]|\\.)*"|\[(?:[^\]\\\n]|\\.)*\]|#[^\n]*', " ", text)
