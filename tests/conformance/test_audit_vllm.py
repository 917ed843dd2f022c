"""Audit mode on vLLM's real structured-output backends (conformance/audit/vllm.py): the
guidance backend (vllm.v1.structured_output.backend_guidance, over llguidance) and the
xgrammar backend (backend_xgrammar), their grammars compiled by their own
compile_grammar and audited by `audit_backend`, driven as vLLM's StructuredOutputManager
drives them — validate_tokens of the drafts, fill_bitmask row by row with the drafts
accepted then rolled back, accept_tokens of what was sampled — next to an unaudited twin
of the same backend class given the same calls.

Asserted: the grammar keeps vLLM's class with its matcher audited; every bitmask row the
audited grammar fills is bit for bit its twin's, and every answer the same; the report
counts each fill as a step seen and sampled (or not, at a lower rate), and every checked
step is classified: agreed, a known difference by its declared name, or undeclared with
a conformance vector written.

Needs vLLM (with torch, transformers, llguidance, xgrammar): absent from the project's
.venv and from CI, so everything here skips there. Run it where vLLM is installed:

    PYTHONPATH=$PWD /work/venvs/vllm/bin/python -m pytest -q tests/conformance/test_audit_vllm.py

The tokenizer is tests/support/vllm_tiny.py's (nothing downloaded).
"""
from __future__ import annotations

import json
import os
import random
from typing import Any, Dict, List, Tuple

import pytest

vllm = pytest.importorskip("vllm", reason="vLLM is not installed here (see docs/integrations.md: a separate venv)")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("llguidance", reason="llguidance is not installed (vLLM's guidance backend needs it)")
pytest.importorskip("xgrammar", reason="xgrammar is not installed (vLLM's xgrammar backend needs it)")

from vllm.v1.structured_output.backend_guidance import GuidanceBackend, GuidanceGrammar  # noqa: E402
from vllm.v1.structured_output.backend_types import StructuredOutputOptions  # noqa: E402
from vllm.v1.structured_output.backend_xgrammar import XgrammarBackend, XgrammarGrammar  # noqa: E402
from vllm.v1.structured_output.utils import choice_as_grammar  # noqa: E402

from conformance.audit import (  # noqa: E402
    AuditedGrammarMatcher,
    AuditedLLMatcher,
    Auditor,
    AuditReport,
    audit_backend,
    audit_grammar,
)
from conformance.vectors import GrammarSpec, read_vectors  # noqa: E402
from refimpl import Grammar, Matcher, Vocabulary  # noqa: E402
from tests.support.vllm_tiny import MODEL_WIDTH, BackendConfig, allowed_in_row, file_vocab, write_tiny_model  # noqa: E402

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer", "minimum": 0, "maximum": 99},
                                           "b": {"type": "boolean"}},
          "required": ["a", "b"], "additionalProperties": False}
CHOICES = ["true", "null", "ab"]

#: backend name -> (vLLM's backend class, its grammar class, the audited matcher's class, the conformance engine)
BACKENDS = {"guidance": (GuidanceBackend, GuidanceGrammar, AuditedLLMatcher, "llguidance"),
            "xgrammar": (XgrammarBackend, XgrammarGrammar, AuditedGrammarMatcher, "xgrammar")}


def requests(backend: str) -> List[Tuple[StructuredOutputOptions, str]]:
    """The requests compiled: a JSON schema, a regex, a choice (vLLM hands the xgrammar
    backend a choice as the EBNF grammar of choice_as_grammar; the guidance backend takes
    it as is)."""
    choice = ((StructuredOutputOptions.CHOICE, json.dumps(CHOICES)) if backend == "guidance"
              else (StructuredOutputOptions.GRAMMAR, choice_as_grammar(CHOICES)))
    return [(StructuredOutputOptions.JSON, json.dumps(SCHEMA)), (StructuredOutputOptions.REGEX, "(ab|12){2,3}"), choice]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = str(tmp_path_factory.mktemp("tiny-gpt2"))
    write_tiny_model(out)
    return out


@pytest.fixture(scope="module")
def tokenizer(model_dir: str) -> Any:
    return transformers.AutoTokenizer.from_pretrained(model_dir)


@pytest.fixture(scope="module")
def vocab(model_dir: str) -> Vocabulary:
    """maskref's vocabulary of the tokenizer (same ids), padded to the model's width."""
    return file_vocab(model_dir)


class Pair:
    """Two grammars of one request, an audited one and its unaudited twin, given the same
    calls; each call's answers compared, each bitmask row compared bit for bit."""

    def __init__(self, audited: Any, twin: Any, backend: Any) -> None:
        self.audited, self.twin = audited, twin
        self.masks = (backend.allocate_token_bitmask(4), backend.allocate_token_bitmask(4))
        self.fills = 0  # the audited grammar's fill_bitmask calls: the steps the auditor sees

    def same(self, method: str, *args: Any) -> Any:
        out = getattr(self.audited, method)(*args)
        assert out == getattr(self.twin, method)(*args), method
        return out

    def fill(self, row: int) -> List[int]:
        """Fill `row` of both bitmasks as vLLM's manager does (the grammar's mask until it
        terminates, then every bit); the ids allowed."""
        for grammar, bitmask in zip((self.audited, self.twin), self.masks):
            if grammar.is_terminated():
                bitmask[row].fill_(-1)
            else:
                grammar.fill_bitmask(bitmask, row)
        if not self.audited.is_terminated():
            self.fills += 1
        assert torch.equal(self.masks[0][row], self.masks[1][row]), "the audited grammar filled another bitmask"
        return allowed_in_row(self.masks[1][row])


def generate(pair: Pair, vocab: Vocabulary, seed: int, steps: int = 24) -> List[int]:
    """A random generation as vLLM's scheduler and manager run it, with up to two draft
    tokens a step (speculative decoding): the drafts validated (validate_tokens), the
    bitmask filled row by row with each draft accepted then all rolled back
    (grammar_bitmask), then the accepted drafts and a token sampled from its row
    accepted (accept_tokens). Returns the tokens accepted."""
    rng = random.Random(seed)
    eos = set(vocab.eos_token_ids)
    history: List[int] = []
    for _ in range(steps):
        allowed = pair.fill(0)
        # the drafter's proposal: an allowed token, then any token (often refused)
        drafts = [rng.choice(allowed), rng.choice(allowed) if rng.random() < 0.5 else rng.randrange(len(vocab))]
        valid = pair.same("validate_tokens", drafts)
        rows, advanced = [], 0
        for t in valid:  # the manager's grammar_bitmask: a row per draft, then the bonus row
            rows.append(pair.fill(len(rows)))
            if not pair.audited.is_terminated():
                assert pair.same("accept_tokens", "r", [t]) is True
                advanced += 1
        rows.append(pair.fill(len(rows)))
        if advanced:
            pair.same("rollback", advanced)
        assert pair.fill(0) == allowed  # rolled back to where the step began
        # the sampler keeps a prefix of the drafts and samples one token from the next row
        kept = rng.randint(0, len(valid))
        new = valid[:kept]
        if not (new and new[-1] in eos):  # nothing is sampled after the end
            row = [t for t in rows[kept] if t < len(vocab)]
            ends = [t for t in row if t in eos]
            new.append(ends[0] if ends and rng.random() < 0.3 else rng.choice(row))
        assert pair.same("accept_tokens", "r", new) is True
        history.extend(new)
        pair.same("is_terminated")
        if pair.audited.is_terminated():
            break
    pair.same("reset")
    pair.fill(0)
    return history


def check_report(report: AuditReport, auditor: Auditor, fills: int) -> None:
    """The report counts every fill and classifies every checked step."""
    assert report.seen == fills and report.pending == 0 and report.dropped == 0 and not report.errors, report
    assert report.checked + sum(report.skipped.values()) == report.sampled, report
    assert report.agreed + sum(report.known.values()) + len(report.undeclared) == report.checked, report
    declared = {d.name for d in auditor.differences}
    assert set(report.known) <= declared, report
    for finding in report.undeclared:  # written as a conformance vector of the audit
        if "not_written" in finding:
            continue
        vectors = [v for _, _, v in read_vectors(finding["vector"])]
        assert len(vectors) == 1 and vectors[0].origin == "audit" and os.path.exists(finding["repro"])


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_vllms_backend_audited_serves_its_own_bitmasks(name: str, tokenizer: Any, vocab: Vocabulary,
                                                       tmp_path: Any) -> None:
    backend_class, grammar_class, audited_class, engine = BACKENDS[name]
    auditor = Auditor(vocab, engine=engine, sample_rate=1.0, out_dir=str(tmp_path))
    backend = audit_backend(backend_class(BackendConfig(), tokenizer=tokenizer, vocab_size=MODEL_WIDTH), auditor)
    twin_backend = backend_class(BackendConfig(), tokenizer=tokenizer, vocab_size=MODEL_WIDTH)
    stop = {tokenizer.eos_token_id}  # what vLLM's manager passes: the request's stop tokens
    fills, ended = 0, 0
    for kind, spec in requests(name):
        for seed in range(3):
            audited = backend.compile_grammar(kind, spec, stop_token_ids=stop)
            twin = twin_backend.compile_grammar(kind, spec, stop_token_ids=stop)
            assert type(audited) is grammar_class and type(twin) is grammar_class
            matcher = audited.ll_matcher if name == "guidance" else audited.matcher
            assert isinstance(matcher, audited_class)
            pair = Pair(audited, twin, backend)
            history = generate(pair, vocab, seed)
            fills += pair.fills
            ended += bool(history) and history[-1] == tokenizer.eos_token_id
    assert ended > 0, "no generation reached EOS: the terminated state was not exercised"
    report = auditor.close()
    check_report(report, auditor, fills)
    assert report.sampled == report.seen and report.agreed > 0
    print(report)


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_a_sampled_fraction_of_vllms_fills_is_checked(name: str, tokenizer: Any, vocab: Vocabulary,
                                                      tmp_path: Any) -> None:
    backend_class, _, _, engine = BACKENDS[name]
    counts: Dict[int, Tuple[int, int]] = {}
    for run in range(2):  # the same seed: the same steps sampled
        auditor = Auditor(vocab, engine=engine, sample_rate=0.25, seed=3, out_dir=str(tmp_path / str(run)))
        backend = audit_backend(backend_class(BackendConfig(), tokenizer=tokenizer, vocab_size=MODEL_WIDTH), auditor)
        twin_backend = backend_class(BackendConfig(), tokenizer=tokenizer, vocab_size=MODEL_WIDTH)
        kind, spec = requests(name)[0]
        fills = 0
        for seed in range(4):
            pair = Pair(backend.compile_grammar(kind, spec), twin_backend.compile_grammar(kind, spec), backend)
            generate(pair, vocab, seed)
            fills += pair.fills
        report = auditor.close()
        check_report(report, auditor, fills)
        assert 0 < report.sampled < report.seen, report
        counts[run] = (report.seen, report.sampled)
    assert counts[0] == counts[1]


def test_a_forced_token_of_the_guidance_backend_is_a_known_difference(tokenizer: Any, vocab: Vocabulary,
                                                                       tmp_path: Any) -> None:
    """vLLM runs llguidance with forcing on: where the regex forces "ab12", llguidance's
    mask holds the token its tokenizer spells "ab" with, maskref's "a" too; the audit
    names it (forced-canonical-token, conformance/audit/differences.py)."""
    auditor = Auditor(vocab, engine="llguidance", sample_rate=1.0, out_dir=str(tmp_path))
    backend = audit_backend(GuidanceBackend(BackendConfig(), tokenizer=tokenizer, vocab_size=MODEL_WIDTH), auditor)
    grammar = backend.compile_grammar(StructuredOutputOptions.REGEX, "ab12")
    bitmask = backend.allocate_token_bitmask(1)
    grammar.fill_bitmask(bitmask, 0)
    ab, a = tokenizer.convert_tokens_to_ids(["ab", "a"])
    assert allowed_in_row(bitmask[0]) == [ab]
    report = auditor.close()
    assert report.known == {"forced-canonical-token": 1} and report.checked == report.seen == 1, report
    assert os.listdir(str(tmp_path)) == []  # nothing written
    assert Matcher(Grammar.from_regex("ab12"), vocab).mask().allowed() == sorted([a, ab])  # maskref's mask


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_a_difference_in_a_served_bitmask_is_written_as_a_vector(name: str, tokenizer: Any, vocab: Vocabulary,
                                                                 tmp_path: Any) -> None:
    """A difference planted: the auditor is told a narrower grammar than the one vLLM
    compiled ("(ab|12){2}" for "(ab|12){2,3}"), so after two pairs vLLM's bitmask allows
    a third where maskref's allows EOS only: an undeclared difference, at that step,
    written as a vector refimpl's masks agree with."""
    backend_class, _, _, engine = BACKENDS[name]
    auditor = Auditor(vocab, engine=engine, sample_rate=1.0, out_dir=str(tmp_path), replay=False)
    backend = backend_class(BackendConfig(), tokenizer=tokenizer, vocab_size=MODEL_WIDTH)
    grammar = audit_grammar(backend.compile_grammar(StructuredOutputOptions.REGEX, "(ab|12){2,3}"), auditor,
                            GrammarSpec("regex", "(ab|12){2}"))
    bitmask = backend.allocate_token_bitmask(1)
    ab, twelve = tokenizer.convert_tokens_to_ids(["ab", "12"])
    for t in (ab, twelve):
        grammar.fill_bitmask(bitmask, 0)
        assert grammar.accept_tokens("r", [t])
    grammar.fill_bitmask(bitmask, 0)
    assert {ab, twelve, tokenizer.eos_token_id} <= set(allowed_in_row(bitmask[0]))
    report = auditor.close()
    assert report.agreed == 2 and not report.known, report
    [finding] = report.undeclared
    assert finding["step"] == 2 and set(finding["only_engine"]) >= {ab, twelve} and finding["only_refimpl"] == []
    [vector] = [v for _, _, v in read_vectors(finding["vector"])]
    assert vector.origin == "audit" and vector.path == [ab, twelve]


def test_an_xgrammar_grammar_audited_from_its_compiled_context(tokenizer: Any, vocab: Vocabulary, tmp_path: Any) -> None:
    """Without a spec, audit_grammar reads the XgrammarGrammar's `ctx` (the compiled
    grammar, as xgrammar's EBNF): its fills are served unchanged and checked."""
    auditor = Auditor(vocab, engine="xgrammar", sample_rate=1.0, out_dir=str(tmp_path))
    backend = XgrammarBackend(BackendConfig(), tokenizer=tokenizer, vocab_size=MODEL_WIDTH)
    fills = 0
    for kind, spec in requests("xgrammar"):
        for seed in range(2):
            audited = audit_grammar(backend.compile_grammar(kind, spec), auditor)
            pair = Pair(audited, backend.compile_grammar(kind, spec), backend)
            generate(pair, vocab, seed)
            fills += pair.fills
    report = auditor.close()
    check_report(report, auditor, fills)
    assert report.checked == report.seen and report.agreed > 0
    print(report)
