"""Bug reports that can be filed: a peer bug's minimal case as a standalone script that
uses only the peer's public API (no maskref), for the peer's issue tracker.

`python -m conformance bugreport FINDING --engine PEER` names a finding as a user would:
a known difference (`six-fraction-digits`), an id of docs/findings.md (`X2`), or a vector
of the findings suite (`findings/xgrammar-six-fraction-digits/bytes/0`, or its short name
`xgrammar-six-fraction-digits`). The finding's minimal case is found by running the peer
on the findings vectors (conformance/suite/findings.jsonl), step by step as the runner
does, until the known difference explains a step: a `Case` — the grammar, the vocabulary
(a small one: a large vocabulary is cut down to the tokens the case needs, and the case is
run again on it), the tokens consumed so far, and the tokens the peer answers wrongly (or
the token its consume refuses, or the call that fails).

`script(case)` writes the report: the grammar as the peer reads it, the vocabulary, the
text so far; what the grammar's semantics require there and why (the difference's
description and `cites`); and the peer driven through its public API, family by family
(DRIVERS), as its session in conformance/peers/ drives it. The script prints what the
peer does and exits 1 while the bug shows ("BUG PRESENT"), 0 once the peer behaves as the
semantics require ("FIXED UPSTREAM in <version>"), 2 if the peer is not installed. A
crash or a call that never returns is run in a child process of the script.

Semantic differences are documented choices, not bugs: there is nothing to file, and
`resolve` says so (a usage error).
"""
from __future__ import annotations

import difflib
import json
import os
import re
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from refimpl import MaskrefError, Vocabulary

from .compare import Path, compare_step
from .differences import KnownDifference, _explain
from .divergence import Divergence
from .engine import Engine
from .generate import SUITE_DIR
from .isolation import fault_of
from .runner import _next_token, _shown_error, accepts_refused
from .vectors import NotSupported, Vector, ids_of, read_vectors, record

FINDINGS_SUITE = os.path.join(SUITE_DIR, "findings.jsonl")
FINDINGS_DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "findings.md")

#: engine name -> (the package of its adapter in conformance/peers, its distribution name,
#: the prefix of its vectors in the findings suite)
PEERS: Dict[str, Tuple[str, str, str]] = {
    "llguidance": ("llguidance", "llguidance", "llguidance-"),
    "outlines-core": ("outlines_core", "outlines-core", "outlines-"),
    "xgrammar": ("xgrammar", "xgrammar", "xgrammar-"),
    "kbnf": ("kbnf", "kbnf", "kbnf-"),
    "llama.cpp": ("llama_cpp", "llama-cpp-python", "llama-cpp-"),
    "lm-format-enforcer": ("lm_format_enforcer", "lm-format-enforcer", "lmfe-"),
    "transformers-cfg": ("transformers_cfg", "transformers-cfg", "tcfg-"),
}

#: a vocabulary larger than this is cut down to the tokens a case needs
SMALL_VOCABULARY = 2048

#: where each grammar format's semantics are written, for a difference that cites nothing
FORMAT_CITES = {
    "json_schema": "JSON Schema 2020-12, Validation (https://json-schema.org/draft/2020-12/json-schema-validation) "
                   "and JSON, RFC 8259 (https://www.rfc-editor.org/rfc/rfc8259)",
    "regex": "the regex's language: a mask allows exactly the tokens after which the text is still a prefix of a "
             "match of the whole regex",
    "lark": "llguidance's grammar format (https://github.com/guidance-ai/llguidance/blob/main/docs/syntax.md)",
    "gbnf": "llama.cpp's GBNF (https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md)",
    "ebnf": "the EBNF dialect's documentation (xgrammar: https://xgrammar.mlc.ai/docs/tutorials/ebnf_guided_generation"
            ".html; kbnf: https://github.com/Dan-wanna-M/kbnf/blob/main/docs/ebnf_syntax.md)",
}


class BugReportError(ValueError):
    """A finding that names nothing, names a choice rather than a bug, or has no minimal
    case here (one line, for the command line)."""


# ----------------------------------------------------------------------------- naming a finding


def peer_differences(engine_name: str) -> Sequence[KnownDifference]:
    """The known differences an engine's adapter declares (without importing the peer)."""
    import importlib

    package = PEERS[engine_name][0]
    return importlib.import_module("conformance.peers.%s.differences" % package).KNOWN_DIFFERENCES


def finding_ids(doc: str = FINDINGS_DOC) -> Dict[str, str]:
    """docs/findings.md's findings by id ("X2", "L11", "1" for the numbered sections): the
    text of each (the paragraph or section that the id heads)."""
    try:
        with open(doc, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return {}
    heads = list(re.finditer(r"^\*\*([A-Z][0-9]+)\.|^## ([0-9]+)\. |^## |^\*\*", text, re.M))
    out: Dict[str, str] = {}
    for i, m in enumerate(heads):
        name = m.group(1) or m.group(2)
        if name and name not in out:
            end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
            out[name] = text[m.start():end]
    return out


def resolve(finding: str, engine_name: Optional[str] = None) -> Tuple[str, List[KnownDifference], List[str]]:
    """(the engine, its differences the finding names, the vector ids it names) for what a
    user typed: a difference name, a findings id, or a findings vector (its id or short
    name). Without an engine, the one peer the finding belongs to. Raises BugReportError
    for a name nothing answers to (with the close names), for a semantic difference, and
    for a finding of another peer than the engine's."""
    from .registry import ALIASES

    engine_name = ALIASES.get(engine_name, engine_name) if engine_name else None
    engines = [engine_name] if engine_name else list(PEERS)
    if engine_name is not None and engine_name not in PEERS:
        raise BugReportError("no bug reports for engine %s: the peers are %s" % (engine_name, ", ".join(PEERS)))
    vectors = [v.id for _, _, v in read_vectors(FINDINGS_SUITE)]
    ids = finding_ids()
    hits: List[Tuple[str, KnownDifference]] = []
    named_vectors: List[str] = []
    key = finding.strip()
    for e in engines:
        diffs = peer_differences(e)
        if key.upper() in ids:  # a findings id: the differences its text names in backquotes
            names = set(re.findall(r"`([a-z0-9-]+)`", ids[key.upper()]))
            hits += [(e, k) for k in diffs if k.name in names]
        else:
            hits += [(e, k) for k in diffs if k.name == key]
    by_vector = [v for v in vectors if v == key or v.split("/")[1] == key]
    if by_vector:  # a findings vector: the peer it belongs to, any of its peer bugs
        prefix = by_vector[0].split("/")[1]
        owners = [e for e in engines if prefix.startswith(PEERS[e][2])] or engines
        named_vectors = by_vector
        hits += [(e, k) for e in owners for k in peer_differences(e) if (e, k) not in hits]
    if not hits:
        everything = sorted({k.name for e in PEERS for k in peer_differences(e)} | set(ids) | set(vectors)
                            | {v.split("/")[1] for v in vectors})
        close = difflib.get_close_matches(key, everything, n=6, cutoff=0.5)
        where = " of %s" % engine_name if engine_name else ""
        raise BugReportError("no finding%s named %r%s" % (where, finding, "; close names: " + ", ".join(close)
                                                         if close else " (see docs/findings.md)"))
    owners = sorted({e for e, _ in hits})
    if len(owners) > 1:
        raise BugReportError("%r is a finding of several peers (%s): say which with --engine" % (finding, ", ".join(owners)))
    bugs = [k for _, k in hits if k.kind == "peer-bug"]
    if not bugs:
        raise BugReportError("%s: %s is a semantic difference of %s, a documented choice rather than a bug: nothing "
                             "to file (docs/findings.md)" % (finding, ", ".join(k.name for _, k in hits), owners[0]))
    return owners[0], bugs, named_vectors


# ----------------------------------------------------------------------------- finding the case


class Case:
    """A peer bug's minimal case: the vector, the tokens consumed before the step, and what
    the peer does wrong there — tokens it allows that the grammar refuses
    (`wrongly_allowed`), tokens it refuses that the grammar allows (`wrongly_refused`), a
    token its mask allows and its consume refuses (`refused`), or a call that fails
    (`error`: an exception, a crash or no answer, with the peer's message)."""

    def __init__(self, engine: str, version: str, difference: KnownDifference, vector: Vector, prefix: Sequence[int],
                 wrongly_allowed: Sequence[int] = (), wrongly_refused: Sequence[int] = (),
                 refused: Optional[int] = None, error: Optional[str] = None) -> None:
        self.engine = engine
        self.version = version
        self.difference = difference
        self.vector = vector
        self.prefix = list(prefix)
        self.wrongly_allowed = list(wrongly_allowed)
        self.wrongly_refused = list(wrongly_refused)
        self.refused = refused
        self.error = error

    @property
    def expected(self) -> List[int]:
        """The tokens the grammar allows at the case's step (refimpl's mask)."""
        return ids_of(self.vector.steps[len(self.prefix)].mask)

    @property
    def refused_grammar(self) -> Optional[str]:
        """refimpl's error where the case's grammar is one refimpl refuses (an error vector
        of the findings suite: the peer must refuse it too), else None."""
        return _shown_error(self.vector.error) if self.vector.error is not None else None

    @property
    def fault(self) -> str:
        """"crash", "timeout", "error" (a call raised) or "" (a wrong answer, or a grammar
        read that the peer must refuse)."""
        if self.error is None:
            return ""
        if "PeerCrash" in self.error or "PeerTimeout" in self.error:
            return "crash" if "PeerCrash" in self.error else "timeout"
        return "" if self.refused_grammar is not None else "error"

    def __repr__(self) -> str:
        return "Case(%s, %s, %s at step %d)" % (self.engine, self.difference.name, self.vector.id, len(self.prefix))


def attribution(differences: Sequence[KnownDifference], d: Divergence) -> Dict[str, Tuple[List[int], List[int]]]:
    """The tokens of d (only the peer's, only refimpl's) each difference explains, as the
    engine's classification does, in the order of its differences: a token is the
    difference's that explains it alone, else the one that explains the whole divergence
    (a failed call or a refused token: the whole divergence's). The order is the
    adapter's: where a peer bug and a semantic difference both explain a token, the one
    declared first has it (llama.cpp's raw-control-characters before converted-schema)."""
    whole = _explain(differences, d)
    if d.error is not None or d.refused is not None:
        return {whole.name: (d.only_engine, d.only_refimpl)} if whole is not None else {}
    out: Dict[str, Tuple[List[int], List[int]]] = {}
    for side, which, ids in ((0, "engine", d.only_engine), (1, "refimpl", d.only_refimpl)):
        for t in ids:
            k = _explain(differences, d.single(which, t)) or whole
            if k is not None:
                out.setdefault(k.name, ([], []))[side].append(t)
    return out


class _Recorder(Engine):
    """The engine's classification, each divergence it is asked about recorded (compare_step
    asks it)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.seen: List[Divergence] = []

    def classify(self, d: Divergence) -> Optional[KnownDifference]:
        self.seen.append(d)
        return self.engine.classify(d)


def divergences(engine: Engine, vector: Vector) -> Iterator[Divergence]:
    """Every divergence of the engine from the vector, in step order, as the runner meets
    them (known ones included; the walk ends where the runner's would)."""
    spec, vocab = vector.grammar, vector.vocab
    if spec.kind not in engine.kinds:
        return
    path = Path(spec, vocab)
    if vector.error is not None:  # an error vector: refusing is agreeing, starting is the one divergence
        try:
            engine.start(spec, vocab, None).close()
        except Exception as e:  # noqa: BLE001 - the engine refused the grammar, as refimpl does ...
            if fault_of(e):  # ... unless its process crashed or hung: a divergence, as the runner's
                yield path.divergence(error="start: %s: %s" % (type(e).__name__, e))
            return
        yield accepts_refused(path, vector)
        return
    try:
        grammar = spec.compile() if engine.uses_refimpl else None
        session = engine.start(spec, vocab, grammar)
    except (NotSupported, MaskrefError):
        return
    except Exception as e:  # noqa: BLE001 - the peer failed to start: a divergence
        yield path.divergence(error="start: %s: %s" % (type(e).__name__, e))
        return
    recorder = _Recorder(engine)
    try:
        for step in vector.steps:
            out = compare_step(recorder, session, path, step.mask, step.accepting, _next_token(step.token))
            yield from recorder.seen
            del recorder.seen[:]
            if out.divergence is not None or out.unsupported is not None or out.token is None:
                return
    finally:
        try:
            session.close()
        except Exception:  # noqa: BLE001
            pass


def find_cases(engine: Engine, targets: Sequence[KnownDifference], vectors: Iterable[Vector],
               version: str = "") -> Dict[str, Case]:
    """The first case of each target difference met running the engine on the vectors
    (stops once every target has one)."""
    found: Dict[str, Case] = {}
    for vector in vectors:
        if len(found) == len(targets):
            break
        for d in divergences(engine, vector):
            if len(found) == len(targets):
                break
            explained = attribution(engine.known_differences, d)
            for k in targets:
                if k.name not in found and k.name in explained:
                    extra, missing = explained[k.name]
                    found[k.name] = Case(engine.name, version, k, vector, d.prefix, extra, missing, d.refused, d.error)
    return found


def candidate_vectors(engine_name: str, suite: str = FINDINGS_SUITE, only: Sequence[str] = ()) -> List[Vector]:
    """The suite's vectors to look for a case in: those named (`only`), else all — the
    peer's own findings first, small vocabularies before large ones."""
    prefix = "findings/" + PEERS[engine_name][2] if engine_name in PEERS else ""
    vectors = [v for _, _, v in read_vectors(suite) if not only or v.id in only]
    return sorted(vectors, key=lambda v: (not v.id.startswith(prefix), len(v.vocab) > SMALL_VOCABULARY))


def small_case(engine: Engine, case: Case) -> Case:
    """The case on a small vocabulary: a large one cut down to its single bytes, the EOS
    ids and the tokens the case names, the case then run again on it. The case itself when
    its vocabulary is small, or when the bug does not show on the smaller one."""
    vocab = case.vector.vocab
    if len(vocab) <= SMALL_VOCABULARY:
        return case
    named = case.prefix + case.wrongly_allowed + case.wrongly_refused + ([case.refused] if case.refused is not None
                                                                         else [])
    keep = sorted({t for t, data in enumerate(vocab.tokens) if len(data) == 1} | set(vocab.eos_token_ids) | set(named))
    new_id = {t: i for i, t in enumerate(keep)}
    small = Vocabulary.from_bytes([vocab.tokens[t] for t in keep], eos_token_id=[new_id[t] for t in vocab.eos_token_ids],
                                  special_token_ids=[new_id[t] for t in vocab.special_token_ids if t in new_id],
                                  name="%s-cut" % vocab.name)
    spec = case.vector.grammar
    path = [new_id[t] for t in case.prefix] + ([new_id[case.refused]] if case.refused is not None else [])
    vector = record(spec.compile(), spec, small, path, case.vector.id + "-cut", case.vector.tags, "bugreport")
    again = find_cases(engine, [case.difference], [vector], case.version).get(case.difference.name)
    return again if again is not None and again.prefix == path[:len(case.prefix)] else case


def find_case(engine: Engine, differences: Sequence[KnownDifference], only_vectors: Sequence[str] = (),
              suite: str = FINDINGS_SUITE) -> Case:
    """The minimal case of the first of `differences` that shows on the findings vectors
    (raises BugReportError when none does)."""
    version = engine.version()
    found = find_cases(engine, differences, candidate_vectors(engine.name, suite, only_vectors), version)
    for k in differences:
        if k.name in found:
            return small_case(engine, found[k.name])
    names = ", ".join(k.name for k in differences)
    if any(k.fixed_in for k in differences):
        raise BugReportError("%s: fixed in %s (%s); no case shows it on %s" % (
            names, ", ".join(k.fixed_in for k in differences if k.fixed_in), engine.name, version))
    raise BugReportError("%s does not show on %s (%s) in any vector of %s: no minimal case to file (add one to "
                         "FINDINGS in conformance/generate.py, or the peer fixed it: then set fixed_in on the known "
                         "difference)" % (names, engine.name, version, suite))


# ----------------------------------------------------------------------------- the script


def _peer_grammar(case: Case) -> Tuple[str, str]:
    """(the grammar text the script gives the peer, how the script builds the peer's grammar
    from it: the driver's GRAMMAR_KIND)."""
    spec = case.vector.grammar
    if case.engine == "llguidance":
        from .peers.llguidance.reading import grammar_text

        if case.refused_grammar is not None and spec.kind == "regex":  # as the user gives it: grammar_from_regex
            return spec.source or "", "regex"
        return grammar_text(spec), "llguidance"
    if spec.kind == "json_schema":
        return json.dumps(spec.schema, ensure_ascii=False), "json_schema"
    return spec.source or "", spec.kind


def _tokens_literal(tokens: Sequence[bytes]) -> str:
    """The vocabulary as a Python expression: the 256 single bytes by a comprehension."""
    if len(tokens) >= 256 and all(tokens[b] == bytes([b]) for b in range(256)):
        rest = tokens[256:]
        return "[bytes([b]) for b in range(256)]" + (" + %r" % list(rest) if rest else "")
    return repr(list(tokens))


def _show_text(data: bytes) -> str:
    try:
        return json.dumps(data.decode("utf-8"), ensure_ascii=False)
    except UnicodeDecodeError:
        return repr(data)


def valid_output(case: Case) -> Optional[bytes]:
    """A whole output of the grammar through the case's step (the vector's own text), when
    the vector's path goes on through a token the peer refuses or consumes wrongly."""
    v = case.vector
    step = len(case.prefix)
    nxt = v.steps[step].token if step < len(v.steps) else None
    if nxt is None or not (nxt in case.wrongly_refused or nxt == case.refused or case.fault):
        return None
    if not v.steps[-1].accepting:
        return None
    path = v.path
    while path and path[-1] in v.vocab.eos_token_ids:  # the end, not a token of the output
        path = path[:-1]
    return b"".join(v.vocab.tokens[t] for t in path)


def requirement(case: Case) -> str:
    """What the grammar's semantics require at the case's step, in words."""
    tokens = case.vector.vocab.tokens

    def show(ids: Sequence[int]) -> str:
        return ", ".join("%d %s" % (t, _show_text(tokens[t])) for t in ids[:16]) + (" ..." if len(ids) > 16 else "")

    if case.refused_grammar is not None:
        return "the peer must refuse the grammar: it is malformed (refimpl: %s)" % case.refused_grammar
    if case.fault:
        return "the peer must compile the grammar and answer (the grammar is well-formed: its mask here allows %d " \
               "tokens)" % len(case.expected)
    if case.refused is not None:
        return "consuming token %s must succeed: the peer's own mask allows it, and the grammar allows it here" % show(
            [case.refused])
    parts = []
    if case.wrongly_refused:
        parts.append("must be allowed (some output of the grammar continues the text with them): %s" % show(case.wrongly_refused))
    if case.wrongly_allowed:
        parts.append("must be refused (no output of the grammar continues the text with them): %s" % show(case.wrongly_allowed))
    return "; ".join(parts)


def script(case: Case, timeout: float = 30) -> str:
    """The standalone bug report of a case (Python source; see the module docstring). A
    peer that must answer gets `timeout` seconds."""
    k = case.difference
    family = case.engine
    if family not in DRIVERS:
        raise BugReportError("no standalone script for %s yet (its session in conformance/peers/ shows how to drive "
                             "it)" % family)
    vocab = case.vector.vocab
    grammar, grammar_kind = _peer_grammar(case)
    text = b"".join(vocab.tokens[t] for t in case.prefix)
    cites = k.cites or FORMAT_CITES.get(case.vector.grammar.kind, "")
    dist = PEERS[family][1]
    fields = [
        ("PEER", repr(dist), "the peer's distribution"),
        ("GRAMMAR_KIND", repr(grammar_kind), ""),
        ("GRAMMAR", repr(grammar), "the grammar, as the peer is given it"),
    ]
    fields += _driver_fields(case)
    fields += [
        ("TOKENS", _tokens_literal(vocab.tokens), "the vocabulary: token id -> bytes"),
        ("EOS", repr(list(vocab.eos_token_ids)), "end-of-sequence ids"),
        ("SPECIAL", repr(sorted(vocab.special_token_ids)), "special tokens (not text)"),
        ("PREFIX", repr(case.prefix), "the tokens consumed so far"),
        ("SHOULD_ALLOW", repr(case.wrongly_refused), "tokens the grammar allows next, refused by the peer when found"),
        ("SHOULD_REFUSE", repr(case.wrongly_allowed), "tokens the grammar refuses next, allowed by the peer when found"),
        ("CONSUME", repr(case.refused), "a token whose consume must succeed"),
        ("MUST_ANSWER", repr(case.fault), "the peer's call failed (crash, timeout, error): it must answer"),
        ("MUST_REFUSE", repr(case.refused_grammar is not None), "the grammar is malformed: the peer must refuse it"),
        ("ALLOWED_HERE", repr(_ranges(case.expected)), "the tokens the grammar allows next (ranges)"),
        ("VALID_OUTPUT", repr(valid_output(case)), "a whole output of the grammar through this step"),
        ("REQUIREMENT", repr(requirement(case)), ""),
        ("WHY", repr(k.description), ""),
        ("CITES", repr(cites), ""),
        ("TIMEOUT", repr(timeout), "seconds the peer gets to answer, when it must answer"),
    ]
    head = HEAD % {
        "peer": family, "name": k.name, "engine": family, "version": case.version or family,
        "vector": case.vector.id, "step": len(case.prefix), "text": _show_text(text).replace("\\", "\\\\"),
        "grammar_desc": case.vector.grammar.describe().replace("\\", "\\\\").replace('"""', '\\"\\"\\"'),
    }
    body = "\n".join("%s = %s%s" % (name, value, "  # " + note if note else "") for name, value, note in fields)
    return head + "\n" + body + "\n" + DRIVERS[family] + COMMON


def _ranges(ids: Sequence[int]) -> List[Tuple[int, int]]:
    """Sorted ids as inclusive ranges."""
    out: List[Tuple[int, int]] = []
    for t in ids:
        if out and out[-1][1] == t - 1:
            out[-1] = (out[-1][0], t)
        else:
            out.append((t, t))
    return out


def _driver_fields(case: Case) -> List[Tuple[str, str, str]]:
    """Settings of the peer's driver that depend on the vector (its JSON options)."""
    spec = case.vector.grammar
    if case.engine == "xgrammar" and spec.kind == "json_schema":
        from .peers.xgrammar.reading import json_options

        return [("JSON_OPTIONS", repr(json_options(spec.options)), "compile_json_schema's arguments")]
    if case.engine == "xgrammar" and spec.kind in ("ebnf", "gbnf"):
        return [("ROOT", repr(spec.options.get("root") or "root"), "the root rule")]
    if case.engine == "outlines-core" and spec.kind == "json_schema":
        options = dict(spec.options)
        ws = options.pop("whitespace_pattern", None)
        if options.pop("whitespace_flexible", True) is False and ws is None:
            ws = ""
        return [("WHITESPACE", repr(ws), "build_regex_from_schema's whitespace pattern")]
    if case.engine == "llama.cpp":
        from .peers.llama_cpp.reading import gbnf_of, root_of

        return [("GBNF", repr(gbnf_of(spec)), "the GBNF llama.cpp runs"), ("ROOT", repr(root_of(spec)), "the root rule")]
    return []


HEAD = '''#!/usr/bin/env python3
"""%(peer)s bug report: %(name)s

Shown on %(version)s. The minimal case: the grammar
    %(grammar_desc)s
after the text %(text)s (step %(step)d of maskref's vector %(vector)s).

Standalone: it uses only %(peer)s's public API. Written by maskref's
`python -m conformance bugreport %(name)s --engine %(engine)s`.
Exit status: 1 the bug shows (BUG PRESENT), 0 %(peer)s now behaves as the grammar's
semantics require (FIXED UPSTREAM), 2 %(peer)s is not installed.
"""
import json
import os
import subprocess
import sys
'''

#: the peers' drivers: `start()` gives a session with `mask()` (the set of allowed token
#: ids) and `consume(token)` (bool), driving the peer as conformance/peers/<peer>/session.py
DRIVERS: Dict[str, str] = {}

DRIVERS["llguidance"] = '''

def start():
    import llguidance

    class Tokenizer:  # what llguidance's TokenizerWrapper reads
        tokens = TOKENS
        eos_token_id = EOS[0]
        bos_token_id = None
        special_token_ids = SPECIAL

        def __call__(self, text):
            return []

    tok = llguidance.LLTokenizer(llguidance.TokenizerWrapper(Tokenizer()), eos_token=EOS if len(EOS) > 1 else None)
    grammar = llguidance.LLMatcher.grammar_from_regex(GRAMMAR) if GRAMMAR_KIND == "regex" else GRAMMAR
    matcher = llguidance.LLMatcher(tok, grammar, log_level=0)
    if matcher.is_error():
        raise RuntimeError(matcher.get_error())
    return Session(matcher)


class Session:
    def __init__(self, matcher):
        self.m = matcher

    def mask(self):
        bits = self.m.compute_bitmask()
        if self.m.is_error() and not self.m.get_error().startswith("NoExtensionBias"):
            raise RuntimeError(self.m.get_error().split("\\n<state>")[0])
        return {t for t in range(len(TOKENS)) if bits[t >> 3] >> (t & 7) & 1}

    def consume(self, token):
        return bool(self.m.consume_token(token)) and not self.m.is_error()
'''

DRIVERS["xgrammar"] = '''

def start():
    import xgrammar as xgr

    # xgrammar counts empty tokens as special: special tokens are given as empty
    tokens = [b"" if t in SPECIAL else data for t, data in enumerate(TOKENS)]
    info = xgr.TokenizerInfo(tokens, vocab_type=xgr.VocabType.RAW, vocab_size=len(tokens), stop_token_ids=EOS)
    compiler = xgr.GrammarCompiler(info, max_threads=1)
    if GRAMMAR_KIND == "regex":
        compiled = compiler.compile_regex(GRAMMAR)
    elif GRAMMAR_KIND == "json_schema":
        # strict_mode=False: JSON Schema allows properties and items a schema does not name
        compiled = compiler.compile_json_schema(GRAMMAR, strict_mode=False, **JSON_OPTIONS)
    else:
        compiled = compiler.compile_grammar(GRAMMAR, root_rule_name=ROOT)
    return Session(xgr, xgr.GrammarMatcher(compiled, terminate_without_stop_token=False))


class Session:
    def __init__(self, xgr, matcher):
        self.xgr, self.m = xgr, matcher

    def mask(self):
        if self.m.is_terminated():
            return set()
        bitmask = self.xgr.allocate_token_bitmask(1, len(TOKENS))
        self.m.fill_next_token_bitmask(bitmask)
        words = bitmask[0].tolist()
        return {t for t in range(len(TOKENS)) if words[t >> 5] >> (t & 31) & 1}

    def consume(self, token):
        return bool(self.m.accept_token(token))
'''

DRIVERS["outlines-core"] = '''

def start():
    import outlines_core

    regex = GRAMMAR
    if GRAMMAR_KIND == "json_schema":
        from outlines_core.json_schema import build_regex_from_schema

        regex = build_regex_from_schema(GRAMMAR, WHITESPACE)
        print("outlines-core's regex for the schema: %s" % regex)
    by_bytes = {}
    for t, data in enumerate(TOKENS):
        if t not in SPECIAL:  # special tokens left out, as from_pretrained does
            by_bytes.setdefault(data, []).append(t)
    return Session(outlines_core.Index(regex, outlines_core.Vocabulary(EOS[0], by_bytes)))


class Session:
    """The Index walked by hand; EOS ends the generation (outlines-core lists EOS in final
    states, but get_next_state refuses it: outlines-core#227)."""

    def __init__(self, index):
        self.index = index
        self.state = index.get_initial_state()
        self.stopped = False

    def mask(self):
        return set() if self.stopped else set(self.index.get_allowed_tokens(self.state) or ())

    def consume(self, token):
        if token in EOS:
            self.stopped = self.index.is_final_state(self.state)
            return self.stopped
        state = self.index.get_next_state(self.state, token)
        if state is None:
            return False
        self.state = state
        return True
'''

DRIVERS["kbnf"] = '''

def start():
    import kbnf

    ids = [t for t, data in enumerate(TOKENS) if data and t not in EOS]  # kbnf has no end token
    vocabulary = kbnf.Vocabulary({t: kbnf.Token(TOKENS[t]) for t in ids},
                                 {t: TOKENS[t].decode("utf-8", "replace") for t in ids})
    return Session(kbnf.Engine(GRAMMAR, vocabulary))


class Session:
    """kbnf is finished once the text completes `start`: then only EOS (the end)."""

    def __init__(self, engine):
        self.engine = engine
        self.ended = False

    def mask(self):
        if self.ended:
            return set()
        if self.engine.is_finished():
            return set(EOS)
        self.engine.compute_allowed_token_ids()
        return set(self.engine.get_allowed_token_ids_from_last_computation())

    def consume(self, token):
        if token in EOS:
            self.ended = self.engine.is_finished()
            return self.ended
        if self.engine.is_finished():
            return False
        try:
            self.engine.try_accept_new_token(token)
        except ValueError:  # AcceptTokenError
            return False
        return True
'''

DRIVERS["lm-format-enforcer"] = '''

def start():
    from lmformatenforcer import JsonSchemaParser, RegexParser, TokenEnforcer, TokenEnforcerTokenizerData

    # as its transformers integration gives a byte-level tokenizer: each token's bytes as
    # UTF-8 (U+FFFD for what is not), a decoder that holds back an incomplete character
    regular = [(t, data.decode("utf-8", "replace"), False) for t, data in enumerate(TOKENS)
               if t not in SPECIAL and t not in EOS]

    def decode(ids):
        return b"".join(TOKENS[t] for t in ids).decode("utf-8", "replace").rstrip("\\ufffd")

    data = TokenEnforcerTokenizerData(regular, decode, EOS, False, len(TOKENS))
    parser = JsonSchemaParser(json.loads(GRAMMAR)) if GRAMMAR_KIND == "json_schema" else RegexParser(GRAMMAR)
    return Session(TokenEnforcer(data, parser))


class Session:
    """The enforcer answers for a token sequence; a token is consumed iff it allows it."""

    def __init__(self, enforcer):
        self.enforcer = enforcer
        self.sequence = []
        self.ended = False

    def mask(self):
        return set() if self.ended else set(self.enforcer.get_allowed_tokens(self.sequence).allowed_tokens)

    def consume(self, token):
        if token not in self.mask():
            return False
        if token in EOS:
            self.ended = True
        else:
            self.sequence.append(token)
        return True
'''

DRIVERS["llama.cpp"] = '''

def byte_level_text(data):
    """Token bytes in GPT-2's byte-to-unicode spelling (GGUF token texts)."""
    printable = [b for b in range(256) if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF]
    table = {b: chr(b) for b in printable}
    table.update((b, chr(256 + i)) for i, b in enumerate(b for b in range(256) if b not in printable))
    return "".join(table[b] for b in data)


def vocab_only_model():
    """llama.cpp reads a vocabulary from a GGUF file: a vocab-only one of TOKENS (EOS and
    special tokens as control tokens), loaded with vocab_only."""
    import os
    import tempfile

    import gguf
    import llama_cpp

    control = set(EOS) | set(SPECIAL)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "vocab.gguf")
        w = gguf.GGUFWriter(path, "gpt2")
        for add in (w.add_block_count, w.add_context_length, w.add_embedding_length, w.add_feed_forward_length,
                    w.add_head_count):
            add(1)
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("default")
        w.add_token_list(["<control %d>" % t if t in control else byte_level_text(d) for t, d in enumerate(TOKENS)])
        w.add_token_types([gguf.TokenType.CONTROL if t in control else gguf.TokenType.NORMAL
                           for t in range(len(TOKENS))])
        w.add_token_merges(["a b"])
        w.add_eos_token_id(EOS[0])
        if len(EOS) > 1:
            w.add_eot_token_id(EOS[1])
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        llama_cpp.llama_backend_init()
        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        model = llama_cpp.llama_model_load_from_file(path.encode(), params)
    if not model:
        raise RuntimeError("llama.cpp cannot load the vocabulary")
    return model


def start():
    import llama_cpp

    if GRAMMAR_KIND == "json_schema":
        print("llama-cpp-python's GBNF for the schema (llama_grammar.json_schema_to_gbnf):")
        print(GBNF)
    vocab = llama_cpp.llama_model_get_vocab(vocab_only_model())
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, GBNF.encode(), ROOT.encode())
    if not sampler:
        raise RuntimeError("llama_sampler_init_grammar returned NULL")
    return Session(llama_cpp, sampler)


class Session:
    """The mask: the candidates llama_sampler_apply leaves finite, out of all tokens."""

    def __init__(self, llama_cpp, sampler):
        import ctypes

        self.L, self.ctypes, self.sampler = llama_cpp, ctypes, sampler
        self.candidates = (llama_cpp.llama_token_data * len(TOKENS))()
        self.ended = False

    def mask(self):
        if self.ended:
            return set()
        c = self.candidates
        for i in range(len(TOKENS)):
            c[i].id, c[i].logit, c[i].p = i, 0.0, 0.0
        arr = self.L.llama_token_data_array(c, len(TOKENS), -1, False)
        self.L.llama_sampler_apply(self.sampler, self.ctypes.byref(arr))
        return {c[i].id for i in range(arr.size) if c[i].logit != float("-inf")}

    def consume(self, token):
        if token not in self.mask():  # llama.cpp throws on a token it does not allow
            return False
        if token in EOS:
            self.ended = True
        else:
            self.L.llama_sampler_accept(self.sampler, token)
        return True
'''

COMMON = '''

def show(tokens):
    return ", ".join("%d %r" % (t, TOKENS[t]) for t in sorted(tokens)[:16]) + (" ..." if len(tokens) > 16 else "")


def text_of(tokens):
    """The tokens' bytes (a special token by its text)."""
    return b"".join(TOKENS[t] for t in tokens)


def run():
    """Drive the peer to the case's step; returns (bug shows, what the peer did)."""
    if MUST_REFUSE:
        try:
            start()
        except Exception as e:
            return False, "it refuses the grammar: %s" % (str(e).splitlines() or [""])[0]
        return True, "it reads the grammar and starts a session; it must refuse it"
    session = start()
    for i, t in enumerate(PREFIX):
        if not session.consume(t):
            return True, "it refuses the text so far: token %s (after %r)" % (show([t]), text_of(PREFIX[:i]))
    if CONSUME is not None:
        ok = session.consume(CONSUME)
        return not ok, "consuming token %s %s" % (show([CONSUME]), "succeeds" if ok else "is refused")
    allowed = session.mask()
    if MUST_ANSWER:
        expected = {t for lo, hi in ALLOWED_HERE for t in range(lo, hi + 1)}
        return False, "it answers: %d tokens allowed (%s the grammar's mask)" % (
            len(allowed), "equal to" if allowed == expected else "different from")
    wrong_refused = [t for t in SHOULD_ALLOW if t not in allowed]
    wrong_allowed = [t for t in SHOULD_REFUSE if t in allowed]
    lines = []
    if wrong_refused:
        lines.append("its mask refuses tokens the grammar allows: %s" % show(wrong_refused))
    if wrong_allowed:
        lines.append("its mask allows tokens the grammar refuses: %s" % show(wrong_allowed))
    if not lines:
        lines.append("its mask answers each of these tokens as the grammar requires")
    return bool(wrong_refused or wrong_allowed), "; ".join(lines)


def main():
    try:
        from importlib.metadata import version

        installed = "%s %s" % (PEER, version(PEER))
    except Exception:
        print("%s is not installed" % PEER)
        return 2
    print("peer:        %s" % installed)
    print("grammar (%s):\\n    %s" % (GRAMMAR_KIND, GRAMMAR.replace("\\n", "\\n    ")))
    print("vocabulary:  %d tokens, EOS %s" % (len(TOKENS), EOS))
    print("text so far: %r (tokens %s)" % (text_of(PREFIX), PREFIX))
    print("required:    %s" % REQUIREMENT)
    if VALID_OUTPUT is not None:
        print("             e.g. this whole output is valid: %r" % VALID_OUTPUT)
    print("why:         %s" % WHY)
    print("see:         %s" % CITES)
    if MUST_ANSWER and "--child" not in sys.argv:
        if not os.path.isfile(__file__):
            print("run this script from its file: it runs the peer in a child process of itself")
            return 2
        try:  # the peer may crash or hang: it runs in a child process
            child = subprocess.run([sys.executable, __file__, "--child"], timeout=TIMEOUT,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            out = child.stdout.strip().splitlines()
            if child.returncode < 0:
                bug, what = True, "its process dies (signal %d)" % -child.returncode
            else:
                bug, what = child.returncode != 0, out[-1] if out else "exit status %d" % child.returncode
        except subprocess.TimeoutExpired:
            bug, what = True, "it does not answer within %d s" % TIMEOUT
    else:
        try:
            bug, what = run()
        except BaseException as e:  # noqa: a Rust panic is a BaseException
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            bug, what = True, "it raises %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        if "--child" in sys.argv:
            print(what)
            return 1 if bug else 0
    print("%s does:  %s" % (PEER, what))
    if bug:
        print("BUG PRESENT in %s" % installed)
        return 1
    print("FIXED UPSTREAM in %s" % installed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''



def peer_bug_cases(engine: Engine, suite: str = FINDINGS_SUITE) -> Tuple[Dict[str, Case], List[str]]:
    """Every peer bug of the engine that shows on the suite's vectors, as its case (on a
    small vocabulary), and the names of those that show on none."""
    bugs = [k for k in engine.known_differences if k.kind == "peer-bug"]
    found = find_cases(engine, bugs, candidate_vectors(engine.name, suite), engine.version())
    return {name: small_case(engine, c) for name, c in found.items()}, [k.name for k in bugs if k.name not in found]
