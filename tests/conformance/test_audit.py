"""Audit mode (conformance/audit/, docs/audit.md): the wrappers serve the engine's masks
unchanged; the sampled fraction follows the seed; a planted difference is caught, written
as a vector the conformance runner reports as a divergence; a known one is named; a crash
of the checker is recorded and the generation goes on; close() checks what is queued.

The engine of most tests is a fake LLMatcher over refimpl's Matcher with a planted fault
(no peer library needed); the tests with llguidance, xgrammar, torch or transformers skip
where they are absent, and run in /work/venvs/torch:
`PYTHONPATH=$PWD /work/venvs/torch/bin/python -m pytest tests/conformance/test_audit.py`.
"""
from __future__ import annotations

import importlib.util
import json
import os
import random
import threading
import time
from typing import Any, List, Optional

import pytest

from conformance.audit import AuditedGrammarMatcher, AuditedLLMatcher, Auditor, audit_backend, audit_grammar
from conformance.audit.auditor import Item
from conformance.audit.llguidance import read_grammar
from conformance.differences import KnownDifferences
from conformance.divergence import Divergence
from conformance.engine import Engine, Session
from conformance.runner import check_vector, run_suite
from conformance.vectors import GrammarSpec, bitmask_from_ids, ids_of, read_vectors
from refimpl import Grammar, Matcher, Vocabulary

VOCAB = Vocabulary.from_bytes([b"a", b"b", b"ab", b"c", b"(", b")", b"<eos>"], eos_token_id=6)
EOS = 6
LARK = 'start: "(" "a"+ "b" ")" "c"*'
SPEC = GrammarSpec("lark", LARK)
PATH = [4, 0, 0, 2, 5, 3, 3, EOS]  # ( a a ab ) c c EOS


class FakeLLMatcher:
    """llguidance's LLMatcher API over refimpl's Matcher, with a planted fault: once
    `wrong_from` tokens are consumed (and before `wrong_until`), its mask also allows
    `extra`."""

    def __init__(self, grammar: Grammar, vocab: Vocabulary, extra: Optional[int] = None, wrong_from: int = 0,
                 wrong_until: int = 10 ** 9) -> None:
        self.grammar, self.vocab = grammar, vocab
        self.extra, self.wrong_from, self.wrong_until = extra, wrong_from, wrong_until
        self.m = Matcher(grammar, vocab)
        self.n = 0

    def compute_bitmask(self) -> bytes:
        ids = self.m.mask().allowed()
        if self.extra is not None and self.wrong_from <= self.n < self.wrong_until:
            ids = sorted(set(ids) | {self.extra})
        return bitmask_from_ids(ids, len(self.vocab))

    def compute_logit_bias(self) -> bytes:
        allowed = set(ids_of(self.compute_bitmask()))
        return bytes(200 if t in allowed else 0 for t in range(len(self.vocab)))

    def consume_token(self, t: int) -> bool:
        ok = self.m.consume(t)
        self.n += ok
        return ok

    def consume_tokens(self, ts: List[int]) -> bool:
        return all([self.consume_token(t) for t in ts])

    def rollback(self, n: int) -> bool:
        self.m.rollback(n)
        self.n -= n
        return True

    def reset(self) -> bool:
        self.m, self.n = Matcher(self.grammar, self.vocab), 0
        return True

    def is_error(self) -> bool:
        return False

    def is_stopped(self) -> bool:
        return self.m.eos_consumed


class FakeSession(Session):
    def __init__(self, m: FakeLLMatcher) -> None:
        self.m = m

    def mask(self) -> bytes:
        return self.m.compute_bitmask()

    def consume(self, token: int) -> bool:
        return self.m.consume_token(token)


FAKE_DIFFERENCES = KnownDifferences()


@FAKE_DIFFERENCES.declare("eos-too-early", "peer-bug", "the fake allows EOS where the output may not end")
def eos_too_early(d: Divergence) -> bool:
    return not d.only_refimpl and d.only_engine == list(d.vocab.eos_token_ids) and d.accepting is False


class FakeEngine(Engine):
    """The conformance engine of the fake: the same planted fault, for the runner."""

    name = "fake-llmatcher"
    uses_refimpl = True
    known_differences = FAKE_DIFFERENCES

    def __init__(self, extra: Optional[int] = None, wrong_from: int = 0, wrong_until: int = 10 ** 9) -> None:
        self.fault = (extra, wrong_from, wrong_until)

    def matcher(self, grammar: Grammar, vocab: Vocabulary) -> FakeLLMatcher:
        return FakeLLMatcher(grammar, vocab, *self.fault)

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        assert grammar is not None
        return FakeSession(self.matcher(grammar, vocab))


def generate(m: Any, path: List[int] = PATH, masks: str = "compute_bitmask") -> List[bytes]:
    """Drive a matcher (fake, audited or not) along a path; the masks it served."""
    out = []
    for t in path:
        out.append(getattr(m, masks)())
        assert m.consume_token(t)
    out.append(getattr(m, masks)())
    return out


# -- the wrapper returns the engine's answers --------------------------------------------


@pytest.mark.parametrize("rate", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("masks", ["compute_bitmask", "compute_logit_bias"])
def test_the_wrapper_returns_exactly_the_engines_masks(tmp_path, rate, masks):
    grammar = SPEC.compile()
    engine = FakeEngine(extra=3, wrong_from=2)  # wrong masks: they must be served wrong all the same
    plain = generate(engine.matcher(grammar, VOCAB), masks=masks)
    auditor = Auditor(VOCAB, engine=engine, sample_rate=rate, out_dir=str(tmp_path))
    m = AuditedLLMatcher(engine.matcher(grammar, VOCAB), LARK, auditor)
    assert generate(m, masks=masks) == plain
    # the rest of the API, passed through or followed
    assert m.is_stopped() and m.rollback(3) and m.audit.tokens == PATH[:-3]
    twin = engine.matcher(grammar, VOCAB)
    assert twin.consume_tokens(PATH[:-3]) and m.compute_bitmask() == twin.compute_bitmask()
    assert m.reset() and m.audit.tokens == [] and m.audit.generation == 1
    report = auditor.close()
    assert report.seen == len(PATH) + 2 and report.pending == 0 and not report.errors


# -- sampling ------------------------------------------------------------------------------


def decisions(seed: int, rate: float, n: int, streams: int = 2) -> List[List[bool]]:
    auditor = Auditor(VOCAB, engine="refimpl", sample_rate=rate, seed=seed, replay=False)
    auditor._queue_step = lambda *args: None  # nothing checked: only the draws are asked for
    out = []
    for _ in range(streams):
        s = auditor.stream(SPEC)
        out.append([s.sampled() for _ in range(n)])
    report = auditor.close()
    assert report.seen == streams * n
    return out


def test_the_sampled_fraction_follows_the_rate_and_the_seed():
    n = 4000
    for rate in (0.01, 0.1, 0.5):
        drawn = decisions(7, rate, n)
        for stream in drawn:  # within 5 standard deviations of the rate
            assert abs(sum(stream) - rate * n) <= 5 * (n * rate * (1 - rate)) ** 0.5, (rate, sum(stream))
        assert drawn == decisions(7, rate, n)  # the same seed: the same steps
        assert drawn != decisions(8, rate, n)  # another seed: others
        assert drawn[0] != drawn[1]  # each stream its own draw
    assert decisions(7, 0.0, 500) == [[False] * 500] * 2
    assert decisions(7, 1.0, 500) == [[True] * 500] * 2
    with pytest.raises(ValueError, match="sample_rate is a fraction"):
        Auditor(VOCAB, engine="refimpl", sample_rate=1.5)


# -- differences: undeclared, known ---------------------------------------------------------


def test_a_planted_difference_is_caught_written_and_reported_by_the_runner(tmp_path):
    grammar = SPEC.compile()
    engine = FakeEngine(extra=3, wrong_from=2)  # 'c' allowed inside the a's, from step 2 on
    auditor = Auditor(VOCAB, engine=engine, sample_rate=1.0, out_dir=str(tmp_path))
    m = AuditedLLMatcher(engine.matcher(grammar, VOCAB), LARK, auditor)
    generate(m)
    report = auditor.close()
    assert report.agreed == 2 and report.checked == 3 and not report.known
    [finding] = report.undeclared
    assert finding["step"] == 2 and finding["only_engine"] == [3] and finding["only_refimpl"] == []
    assert report.skipped == {"after an undeclared difference": len(PATH) + 1 - 3}
    # the vector holds refimpl's masks along the path: refimpl agrees with it ...
    [(_, _, vector)] = list(read_vectors(finding["vector"]))
    assert vector.path == PATH[:2] and vector.origin == "audit"
    assert check_vector(FakeEngine(), vector).status == "agree"
    # ... and the runner reads it and reports the engine's divergence, at the same step
    runner = run_suite(engine, finding["vector"], str(tmp_path / "runner"), quiet=True)
    [disagreement] = runner.disagreements
    assert disagreement.divergence["step"] == 2 and disagreement.divergence["only_engine"] == [3]
    assert os.path.exists(finding["repro"]) and "audited step 2" in open(finding["repro"]).read()
    assert len(list(read_vectors(finding["vectors"]))) == 1  # the collected vectors of the audit


def test_a_difference_that_began_on_an_unsampled_step_is_replayed_from_where_it_began(tmp_path):
    grammar = SPEC.compile()
    engine = FakeEngine(extra=3, wrong_from=2)
    auditor = Auditor(VOCAB, engine=engine, sample_rate=1.0, out_dir=str(tmp_path))
    m = AuditedLLMatcher(engine.matcher(grammar, VOCAB), LARK, auditor)
    for t in PATH[:4]:  # the audited wrapper's masks are not asked for at steps 0..3
        m.matcher.compute_bitmask()
        assert m.consume_token(t)
    m.compute_bitmask()  # step 4: sampled
    [finding] = auditor.close().undeclared
    assert finding["step"] == 4
    [(_, _, repro)] = list(read_vectors(finding["vector"]))
    assert len(repro.steps) == 3  # the runner's repro ends at step 2, where the fault began
    assert "diverges at step 2" in finding["replayed"]


def test_a_token_refimpl_refuses_is_a_difference_at_that_step(tmp_path):
    grammar = SPEC.compile()
    engine = FakeEngine(extra=3, wrong_from=1, wrong_until=2)  # allows 'c' after '(' only
    fake = engine.matcher(grammar, VOCAB)
    fake.m = Matcher(Grammar.from_lark('start: "(" ("a" | "c")+ "b" ")" "c"*'), VOCAB)  # and takes it
    auditor = Auditor(VOCAB, engine=engine, sample_rate=1.0, out_dir=str(tmp_path))
    m = AuditedLLMatcher(fake, LARK, auditor)
    for t in [4, 3, 0]:
        assert m.consume_token(t)
    m.compute_bitmask()  # sampled after ( c a: refimpl refuses the 'c'
    [finding] = auditor.close().undeclared
    assert finding["step"] == 1 and finding["only_engine"] == [3]


def test_a_known_difference_is_classified_by_name(tmp_path):
    grammar = SPEC.compile()
    engine = FakeEngine(extra=EOS, wrong_from=1, wrong_until=3)  # EOS inside the a's
    auditor = Auditor(VOCAB, engine=engine, sample_rate=1.0, out_dir=str(tmp_path))
    m = AuditedLLMatcher(engine.matcher(grammar, VOCAB), LARK, auditor)
    generate(m)
    report = auditor.close()
    assert report.known == {"eos-too-early": 2} and not report.undeclared
    assert report.checked == len(PATH) + 1 and report.agreed == len(PATH) - 1
    assert os.listdir(str(tmp_path)) == []  # nothing written


# -- robustness: crashes, the queue ----------------------------------------------------------


def test_a_crash_of_the_checker_is_recorded_and_generation_goes_on(tmp_path):
    grammar = SPEC.compile()
    engine = FakeEngine()
    plain = generate(engine.matcher(grammar, VOCAB))
    auditor = Auditor(VOCAB, engine=engine, sample_rate=1.0, out_dir=str(tmp_path))

    def crash(item: Item) -> None:
        if len(item.prefix) % 2:
            raise RuntimeError("planted crash")
    auditor._check = crash  # type: ignore[method-assign]
    m = AuditedLLMatcher(engine.matcher(grammar, VOCAB), LARK, auditor)
    assert generate(m) == plain
    report = auditor.close()
    assert len(report.errors) == len(PATH) // 2 and all("RuntimeError: planted crash" in e for e in report.errors)
    assert "planted crash" in str(report)


def test_a_failure_of_the_recording_is_recorded_and_the_mask_served(tmp_path, monkeypatch):
    grammar = SPEC.compile()
    engine = FakeEngine()
    auditor = Auditor(VOCAB, engine=engine, sample_rate=1.0, out_dir=str(tmp_path))
    m = AuditedLLMatcher(engine.matcher(grammar, VOCAB), LARK, auditor)

    def broken(bitmask: bytes, note: Optional[str] = None) -> None:
        raise MemoryError("no room for a copy")
    monkeypatch.setattr(m.audit, "record", broken)
    assert m.compute_bitmask() == engine.matcher(grammar, VOCAB).compute_bitmask()
    report = auditor.close()
    assert report.errors == ["recording compute_bitmask: MemoryError: no room for a copy"]


def test_close_checks_everything_queued(tmp_path):
    grammar = SPEC.compile()
    engine = FakeEngine()
    auditor = Auditor(VOCAB, engine=engine, sample_rate=1.0, out_dir=str(tmp_path), queue_size=1000)
    release = threading.Event()
    check = auditor._check

    def slow(item: Item) -> None:
        release.wait()
        check(item)
    auditor._check = slow  # type: ignore[method-assign]
    for _ in range(20):
        generate(AuditedLLMatcher(engine.matcher(grammar, VOCAB), LARK, auditor))
    before = auditor.report()
    assert before.sampled == 20 * (len(PATH) + 1) and before.checked == 0 and before.pending >= before.sampled - 1
    release.set()
    report = auditor.close()
    assert report.pending == 0 and report.checked == report.agreed == report.sampled == report.seen
    assert auditor.close().checked == report.checked  # closing again only reports
    m = AuditedLLMatcher(engine.matcher(grammar, VOCAB), LARK, auditor)
    generate(m)  # after close: served, not sampled
    assert auditor.report().sampled == report.sampled


def test_a_full_queue_drops_steps_without_waiting(tmp_path):
    grammar = SPEC.compile()
    auditor = Auditor(VOCAB, engine=FakeEngine(), sample_rate=1.0, out_dir=str(tmp_path), queue_size=2)
    release = threading.Event()
    check = auditor._check
    auditor._check = lambda item: (release.wait(), check(item))  # type: ignore[method-assign]
    t0 = time.monotonic()
    generate(AuditedLLMatcher(FakeEngine().matcher(grammar, VOCAB), LARK, auditor))
    assert time.monotonic() - t0 < 5
    release.set()
    report = auditor.close()
    assert report.dropped >= len(PATH) + 1 - 3 and report.checked + report.dropped == report.sampled


def test_a_matcher_in_its_error_state_is_not_compared_and_a_copy_is_followed(tmp_path):
    grammar = SPEC.compile()
    auditor = Auditor(VOCAB, engine=FakeEngine(), sample_rate=1.0, out_dir=str(tmp_path))
    m = AuditedLLMatcher(FakeEngine().matcher(grammar, VOCAB), LARK, auditor)
    assert m.consume_token(4) and not m.consume_token(5)  # ')' refused right after '('
    m.compute_bitmask()
    report = auditor.report()
    assert report.skipped == {"after llguidance refused a token (its error state)": 1}
    m.reset()
    m.compute_bitmask()
    assert auditor.close().agreed == 1


def test_read_grammar_states_llguidance_grammars_in_refimpl_terms():
    assert read_grammar(LARK).source == LARK
    schema = {"type": "integer", "x-guidance": {"whitespace_flexible": False}}
    spec = read_grammar(json.dumps({"grammars": [{"name": "j", "json_schema": schema, "lark_grammar": None}],
                                    "max_tokens": None}))
    assert isinstance(spec, GrammarSpec) and spec.kind == "json_schema" and spec.schema == schema
    two = read_grammar(json.dumps({"grammars": [{"lark_grammar": "start: a"}, {"lark_grammar": "start: b"}]}))
    assert "2 grammars" in two.reason  # type: ignore[union-attr]


# -- the real engines -----------------------------------------------------------------------


def llguidance_module() -> Any:
    return pytest.importorskip("llguidance", reason="llguidance is not installed (the `peers` extra)")


SMALL_SCHEMA = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 4}},
                "required": ["name"], "additionalProperties": False}
JSON_VOCAB = Vocabulary.from_bytes([bytes([b]) for b in range(32, 127)] + [b'{"', b"name", b'":"', b'"}', b"<eos>"],
                                   eos_token_id=99)


def random_walk(m: Any, vocab: Vocabulary, mask: Any, seed: int, steps: int = 30) -> List[bytes]:
    rng = random.Random(seed)
    out = []
    for _ in range(steps):
        bits = mask(m)
        out.append(bits)
        ids = [t for t in ids_of(bits) if t < len(vocab)]
        if not ids:
            break
        t = rng.choice(ids)
        ok = m.consume_token(t) if hasattr(m, "consume_token") else m.accept_token(t)
        assert ok
        if t in vocab.eos_token_ids:
            break
    return out


class Greedy:
    """What llguidance's TokenizerWrapper reads, with a tokenizer that spells text
    (longest token first): llguidance's forcing needs one."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.tokens, self.eos_token_id, self.bos_token_id = vocab.tokens, vocab.eos_token_id, None
        self.special_token_ids: List[int] = []
        self.text = [t for t in range(len(vocab)) if t not in vocab.eos_token_ids]

    def __call__(self, data: bytes) -> List[int]:
        out, i = [], 0
        while i < len(data):
            spelled = [t for t in self.text if data.startswith(self.tokens[t], i)]
            if not spelled:  # no token spells this byte: left out
                i += 1
                continue
            t = max(spelled, key=lambda t: len(self.tokens[t]))
            out.append(t)
            i += len(self.tokens[t])
        return out


def greedy_tokenizer(llguidance: Any, vocab: Vocabulary) -> Any:
    return llguidance.LLTokenizer(llguidance.TokenizerWrapper(Greedy(vocab)))


def test_llguidance_audited_agrees_and_serves_its_masks(tmp_path):
    llguidance = llguidance_module()
    from conformance.peers.llguidance import tokenizer
    from conformance.peers.llguidance.reading import grammar_text

    spec = GrammarSpec("json_schema", schema=SMALL_SCHEMA)
    text = grammar_text(spec)  # no_forcing: the full masks, as the conformance suite runs it
    tok = tokenizer(JSON_VOCAB)
    auditor = Auditor(JSON_VOCAB, engine="llguidance", sample_rate=1.0, out_dir=str(tmp_path))
    for seed in range(3):
        plain = random_walk(llguidance.LLMatcher(tok, text), JSON_VOCAB, lambda m: m.compute_bitmask(), seed)
        audited = AuditedLLMatcher(llguidance.LLMatcher(tok, text), text, auditor)
        assert random_walk(audited, JSON_VOCAB, lambda m: m.compute_bitmask(), seed) == plain
    report = auditor.close()
    assert report.checked == report.seen > 10 and not report.undeclared and not report.errors
    assert set(report.known) <= {"after-eos"} and report.agreed + sum(report.known.values()) == report.checked


def test_llguidance_with_forcing_is_a_known_difference_of_the_audited_setup(tmp_path):
    llguidance = llguidance_module()

    tok = greedy_tokenizer(llguidance, JSON_VOCAB)
    text = llguidance.LLMatcher.grammar_from_json_schema(json.dumps(SMALL_SCHEMA))  # forcing on
    auditor = Auditor(JSON_VOCAB, engine="llguidance", sample_rate=1.0, out_dir=str(tmp_path))
    m = AuditedLLMatcher(llguidance.LLMatcher(tok, text), text, auditor)
    assert m.consume_token(JSON_VOCAB.tokens.index(b'{"'))
    bits = m.compute_bitmask()  # 'name"' forced: llguidance allows 'name' only, maskref 'n' too
    assert ids_of(bits) == [JSON_VOCAB.tokens.index(b"name")]
    report = auditor.close()
    assert report.known == {"forced-canonical-token": 1} and not report.undeclared


def test_llguidance_fill_next_token_bitmask_through_the_wrapper(tmp_path):
    llguidance_module()
    numpy = pytest.importorskip("numpy", reason="numpy is not installed")
    import llguidance
    import llguidance.numpy

    from conformance.peers.llguidance import tokenizer
    from conformance.peers.llguidance.reading import grammar_text

    text = grammar_text(SPEC)
    tok = tokenizer(VOCAB)
    auditor = Auditor(VOCAB, engine="llguidance", sample_rate=1.0, out_dir=str(tmp_path))
    m = AuditedLLMatcher(llguidance.LLMatcher(tok, text), text, auditor)
    twin = llguidance.LLMatcher(tok, text)
    buf = numpy.zeros((2, 1), dtype=numpy.int32)
    for t in PATH:
        llguidance.numpy.fill_next_token_bitmask(m, buf, 1)
        assert buf[1].tobytes() == twin.compute_bitmask()[:4]
        assert m.consume_token(t) and twin.consume_token(t)
    copy = m.deep_copy()
    assert isinstance(copy, AuditedLLMatcher) and copy.audit.tokens == PATH and copy.audit is not m.audit
    report = auditor.close()
    assert report.checked == report.seen == len(PATH) and report.agreed == report.checked


def xgrammar_module() -> Any:
    pytest.importorskip("numpy", reason="numpy is not installed")
    return pytest.importorskip("xgrammar", reason="xgrammar is not installed (it needs torch)")


@pytest.mark.parametrize("given", ["spec", "compiled"])
def test_xgrammar_audited_agrees_and_serves_its_masks(tmp_path, given):
    xgr = xgrammar_module()
    import numpy

    from conformance.peers.xgrammar.session import compiler

    regex = GrammarSpec("regex", "\\(a+b\\)c*")
    compiled = compiler(VOCAB).compile_regex(regex.source)
    auditor = Auditor(VOCAB, engine="xgrammar", sample_rate=1.0, out_dir=str(tmp_path))

    def fill(m: Any) -> bytes:
        buf = numpy.full((3, 1), -1, dtype=numpy.int32)
        m.fill_next_token_bitmask(buf, 2)
        return buf[2].tobytes()
    path = PATH[:-1]  # xgrammar gives no mask after EOS (it raises)
    plain = [fill_after(xgr.GrammarMatcher(compiled), path[:i], fill) for i in range(len(path) + 1)]
    m = AuditedGrammarMatcher(xgr.GrammarMatcher(compiled), regex if given == "spec" else compiled, auditor)
    served = []
    for t in path:
        served.append(fill(m))
        assert m.accept_token(t)
    served.append(fill(m))
    assert served == plain
    m.rollback(2)
    assert m.audit.tokens == path[:-2] and fill(m) == plain[-3]
    report = auditor.close()
    assert report.checked == report.seen == len(path) + 2 and not report.undeclared and not report.errors


def fill_after(m: Any, tokens: List[int], fill: Any) -> bytes:
    for t in tokens:
        assert m.accept_token(t)
    return fill(m)


# -- objects shaped like vLLM's grammars (where vLLM is absent; the real ones: test_audit_vllm.py)


class GuidanceShaped:
    """Shaped like vLLM's GuidanceGrammar: an `ll_matcher`, filled through llguidance.numpy."""

    def __init__(self, ll_matcher: Any) -> None:
        self.ll_matcher = ll_matcher

    def accept_tokens(self, request_id: str, tokens: List[int]) -> bool:
        return self.ll_matcher.consume_tokens(tokens)

    def rollback(self, num_tokens: int) -> None:
        self.ll_matcher.rollback(num_tokens)

    def fill_bitmask(self, bitmask: Any, idx: int) -> None:
        import llguidance.numpy

        llguidance.numpy.fill_next_token_bitmask(self.ll_matcher, bitmask, idx)


class BackendShaped:
    serialized_grammar: Optional[str] = None

    def __init__(self, tok: Any) -> None:
        self.tok = tok

    def compile_grammar(self, request_type: str, grammar_spec: str) -> GuidanceShaped:
        import llguidance

        self.serialized_grammar = llguidance.grammar_from(request_type.lower(), grammar_spec)
        return GuidanceShaped(llguidance.LLMatcher(self.tok, self.serialized_grammar))


def test_vllm_shaped_guidance_backend_is_audited(tmp_path):
    llguidance = llguidance_module()
    numpy = pytest.importorskip("numpy", reason="numpy is not installed")

    auditor = Auditor(VOCAB, engine="llguidance", sample_rate=1.0, out_dir=str(tmp_path))
    backend = audit_backend(BackendShaped(greedy_tokenizer(llguidance, VOCAB)), auditor)
    grammar = backend.compile_grammar("REGEX", "\\(a+b\\)c*")
    assert isinstance(grammar, GuidanceShaped) and isinstance(grammar.ll_matcher, AuditedLLMatcher)
    buf = numpy.zeros((1, 1), dtype=numpy.int32)
    for t in PATH[:5]:
        grammar.fill_bitmask(buf, 0)
        assert grammar.accept_tokens("r1", [t])
    grammar.rollback(1)
    grammar.fill_bitmask(buf, 0)
    report = auditor.close()
    assert report.seen == report.checked == 6 and not report.undeclared and not report.errors
    with pytest.raises(TypeError, match="neither ll_matcher"):
        audit_grammar(object(), auditor)


# -- the example -----------------------------------------------------------------------------


def test_the_example_generates_with_llguidance_audited_by_maskref(tmp_path, capsys):
    for module, extra in (("torch", "integrations"), ("transformers", "integrations"), ("llguidance", "peers")):
        pytest.importorskip(module, reason="%s is not installed (the `%s` extra)" % (module, extra))
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "examples", "audit_llguidance.py")
    spec = importlib.util.spec_from_file_location("audit_llguidance", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    texts, report = example.main(out_dir=str(tmp_path), sample_rate=1.0, max_new_tokens=8)
    assert len(texts) == 2 and all(isinstance(t, str) for t in texts)
    assert report.seen >= 2 and report.checked == report.sampled == report.seen
    assert not report.undeclared and not report.errors
    assert "audit of llguidance" in capsys.readouterr().out
