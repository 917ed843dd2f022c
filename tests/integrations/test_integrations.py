"""The logits-processor adapters (integrations/, docs/integrations.md).

Two parts:

* torch-free (runs everywhere, CI included): the per-row bookkeeping of integrations/rows.py
  — consumption of what is new, rollback where a sequence changes, finished rows, padding
  to a wider model — unit-tested and property-tested against a fresh Matcher per sequence;
  the doctests of the torch-free modules.
* with torch and transformers (absent in .venv and in CI: those tests skip, saying so; run
  them where both are installed, e.g. `/tmp/xgr-venv/bin/python -m pytest
  tests/integrations/test_integrations.py`): a tiny randomly initialised GPT-2 built from a config (no
  download) generates over the embedded GPT-2 vocabulary, constrained by a dataclass type, a
  regex and a JSON schema, through the transformers LogitsProcessor and the vLLM-style
  callables. Every finished row is accepted by a fresh Matcher, and parse() gives the typed
  value back.
"""
from __future__ import annotations

import doctest
import enum
import inspect
import json
import random
from dataclasses import dataclass
from typing import Annotated, Any, Dict, List, Literal, Optional, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import integrations
import integrations.rows
from integrations.rows import GenerationError, Rows, RowState, pack
from refimpl import Grammar, Matcher, Vocabulary
from refimpl.typed import Length, Range, parse
from tests.support.budget import examples

# -- torch-free: the bookkeeping ----------------------------------------------------------

SMALL = Vocabulary.from_bytes([b"<eos>", b"a", b"b", b"ab", b"(", b")", b"()", b"x", b"x)"], eos_token_id=0)
NESTED = Grammar.from_lark('start: "(" start ")" | "x" | "ab"')


def fresh_flags(grammar: Grammar, vocab: Vocabulary, tokens: Sequence[int]) -> bytearray:
    """What a row's flags must be after `tokens`: a fresh Matcher's mask, or EOS only after EOS."""
    m = Matcher(grammar, vocab)
    for t in tokens:
        assert m.consume(t)
        if t in vocab.eos_token_ids:
            out = bytearray(len(vocab))
            for e in vocab.eos_token_ids:
                out[e] = 1
            return out
    return m.mask().flags


def test_doctests_of_the_torch_free_modules() -> None:
    for module in (integrations.rows, integrations):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_sync_consumes_what_is_new() -> None:
    row = RowState(NESTED, SMALL)
    assert row.consumed == [] and row._matcher is None  # the matcher opens on first use
    row.sync([4, 4])
    assert row.consumed == [4, 4] and row.flags() == fresh_flags(NESTED, SMALL, [4, 4])
    row.sync((4, 4, 7, 5))  # any sequence type; two new tokens at once
    assert row.consumed == [4, 4, 7, 5] and not row.finished
    assert row.flags() == fresh_flags(NESTED, SMALL, [4, 4, 7, 5])
    assert list(row.flags()) == [0, 0, 0, 0, 0, 1, 0, 0, 0]  # only ")" may come


def test_sync_rolls_back_where_the_sequence_changed() -> None:
    row = RowState(NESTED, SMALL)
    row.sync([4, 4, 7])
    row.sync([4, 3])  # a beam reordered: common prefix [4], then "ab"
    assert row.consumed == [4, 3] and row.flags() == fresh_flags(NESTED, SMALL, [4, 3])
    row.sync([])
    assert row.consumed == [] and row.flags() == fresh_flags(NESTED, SMALL, [])


def test_finished_rows_ignore_the_padding_and_allow_eos_only() -> None:
    row = RowState(NESTED, SMALL)
    row.sync([4, 8, 0, 1, 1, 2])  # "(x)" EOS, then padding that is not even grammatical
    assert row.finished and row.consumed == [4, 8, 0]
    assert list(row.flags()) == [1, 0, 0, 0, 0, 0, 0, 0, 0]
    assert row.text() == b"(x)"
    row.sync([4, 7])  # rolled back past the EOS: no longer finished
    assert not row.finished and row.flags() == fresh_flags(NESTED, SMALL, [4, 7])


def test_a_refused_token_is_an_error_naming_row_position_and_token() -> None:
    row = RowState(NESTED, SMALL, name="row 3")
    with pytest.raises(GenerationError, match=r"row 3: token 5 \(b'\)'\) at generated position 1 is not allowed"):
        row.sync([4, 5])
    assert row.consumed == [4]  # what came before the refused token stays consumed
    with pytest.raises(GenerationError, match="token 0 .* position 0"):
        RowState(NESTED, SMALL).sync([0])  # EOS before the grammar may end
    with pytest.raises(GenerationError, match="token 99 \\('not in the vocabulary'\\)"):
        RowState(NESTED, SMALL).sync([99])
    row.sync([4, 7, 5, 0])  # the row goes on from the consumed prefix
    assert row.finished and row.text() == b"(x)"


def test_a_state_with_no_allowed_token_is_an_error() -> None:
    vocab = Vocabulary.from_bytes([b"<eos>", b"a", b"c"], eos_token_id=0)
    row = RowState(Grammar.from_regex("ab"), vocab)
    row.sync([1])  # "a": the grammar needs "b", which no token spells
    with pytest.raises(GenerationError, match=r"no token is allowed after b'a'"):
        row.flags()
    empty = RowState(Grammar.from_regex(r"a[^\s\S]"), vocab, name="row 2")  # the empty language
    with pytest.raises(GenerationError, match=r"row 2: no token is ever allowed: the grammar's language is empty"):
        empty.flags()


def test_rows_by_index_by_key_and_per_key_grammars() -> None:
    rows = Rows(NESTED, SMALL)
    flags = rows.flags([[4], [7, 0], []])
    assert flags == [fresh_flags(NESTED, SMALL, t) for t in ([4], [7, 0], [])]
    assert rows.finished() == [False, True, False]
    digits = Vocabulary.from_bytes([b"<eos>", b"1", b"2", b"x"], eos_token_id=0)
    grammars = {"ones": Grammar.from_regex("1+"), "twos": Grammar.from_regex("2+")}
    keyed = Rows(lambda key: grammars[str(key)], digits)
    assert [list(f) for f in keyed.flags([[], [2]], keys=["ones", "twos"])] == [[0, 1, 0, 0], [1, 0, 1, 0]]
    assert [list(f) for f in keyed.flags([[2, 2]], keys=["twos"])] == [[1, 0, 1, 0]]  # its matcher kept
    assert keyed.states["twos"].consumed == [2, 2]
    keyed.release("twos")
    assert list(keyed.states) == ["ones"]
    keyed.release("never seen")  # nothing to release
    with pytest.raises(ValueError, match="1 keys for 2 rows"):
        keyed.flags([[], []], keys=["ones"])
    keyed.close()
    assert keyed.states == {}


def test_rows_pass_backend_and_options_to_the_matcher() -> None:
    rows = Rows(NESTED, SMALL, mask_cache=True)
    rows.flags([[4]])
    matcher = rows.states[0].matcher
    assert isinstance(matcher, Matcher) and matcher.cache is not None and matcher.backend == "python"
    plain = Rows(NESTED, SMALL).state(0).matcher
    assert isinstance(plain, Matcher) and plain.cache is None


def test_rows_of_one_grammar_share_one_mask_cache() -> None:
    nested = Grammar.from_lark(NESTED.source)  # a grammar of this test's own: its cache starts empty
    other = Grammar.from_lark('start: "(" start ")" | "x" | "ab"')  # the same language, another grammar
    rows = Rows(lambda key: other if key == "other" else nested, SMALL, mask_cache=True)
    flags = rows.flags([[4, 4], [4, 4], [4, 4]], keys=["first", "second", "other"])
    first, second, third = (rows.states[k].matcher for k in ("first", "second", "other"))
    assert isinstance(first, Matcher) and isinstance(second, Matcher) and isinstance(third, Matcher)
    assert second.cache is first.cache and third.cache is not first.cache
    cache = first.cache
    assert cache is not None and (cache.misses, cache.hits) == (1, 1)  # the second row had the first row's mask
    assert flags[0] == flags[1] == flags[2] == fresh_flags(NESTED, SMALL, [4, 4])
    rows.flags([[4, 7], [4, 7]], keys=["second", "first"])
    assert (cache.misses, cache.hits) == (2, 2)  # and now the first row the second row's


def test_pack_pads_each_row_to_the_width() -> None:
    assert pack([b"\x01\x01", bytearray(b"\x00\x01")], 4) == bytearray(b"\x01\x01\x00\x00\x00\x01\x00\x00")
    assert pack([], 5) == bytearray()
    with pytest.raises(GenerationError, match="row 1: the vocabulary has 3 tokens but the model's scores only 2"):
        pack([b"\x01\x00", b"\x00\x00\x01"], 2)


@st.composite
def sequences(draw: Any) -> List[List[int]]:
    """Several generated sequences, each sharing a random prefix with the one before and
    going on by random allowed tokens (EOS included, then random padding), as beam search,
    rejected drafts and shared processors show them to a row."""
    rng = random.Random(draw(st.integers(0, 2 ** 32 - 1)))
    out: List[List[int]] = []
    previous: List[int] = []
    for _ in range(draw(st.integers(1, 6))):
        keep = rng.randint(0, len(previous))
        seq = previous[:keep]
        if 0 in seq:
            seq = seq[:seq.index(0) + 1]
        m = Matcher(NESTED, SMALL)
        assert m.consume_tokens(seq)
        for _ in range(rng.randint(0, 8)):
            if seq and seq[-1] == 0:
                seq.append(rng.randrange(len(SMALL)))  # padding after EOS: anything
                continue
            allowed = m.mask().allowed()
            if not allowed:
                break
            t = rng.choice(allowed)
            assert m.consume(t)
            seq.append(t)
        out.append(seq)
        previous = seq
    return out


@settings(max_examples=examples(60))
@given(sequences())
def test_a_row_after_any_sequence_is_a_fresh_matcher_after_it(seqs: List[List[int]]) -> None:
    row = RowState(NESTED, SMALL)
    for seq in seqs:
        row.sync(seq)
        upto = seq.index(0) + 1 if 0 in seq else len(seq)
        assert row.consumed == seq[:upto] and row.finished == (0 in seq)
        assert row.flags() == fresh_flags(NESTED, SMALL, seq[:upto])


@settings(max_examples=examples(40))
@given(sequences(), sequences())
def test_rows_sharing_a_mask_cache_give_a_fresh_matchers_masks(a: List[List[int]], b: List[List[int]]) -> None:
    rows = Rows(NESTED, SMALL, mask_cache=True)
    for i in range(max(len(a), len(b))):
        batch = [a[min(i, len(a) - 1)], b[min(i, len(b) - 1)]]
        flags = rows.flags(batch)
        for seq, got in zip(batch, flags):
            upto = seq.index(0) + 1 if 0 in seq else len(seq)
            assert got == fresh_flags(NESTED, SMALL, seq[:upto])
    with pytest.raises(ValueError, match="backend 'no-such-backend' is not available"):
        Rows(NESTED, SMALL, backend="no-such-backend").flags([[]])


@settings(max_examples=examples(60))
@given(sequences(), st.lists(st.floats(-4, 4), min_size=len(SMALL), max_size=len(SMALL) + 3), st.integers(1, 4))
def test_top_k_rows_keep_the_full_masks_k_best(seqs: List[List[int]], logits: List[float], k: int) -> None:
    row = RowState(NESTED, SMALL)
    for seq in seqs:
        row.sync(seq)
        full = row.flags()
        best = sorted((t for t in range(len(SMALL)) if full[t]), key=lambda t: (-logits[t], t))[:k]
        assert [t for t, f in enumerate(row.flags(logits, top_k=k)) if f] == sorted(best)


class Wrapped:
    """A matcher that is not a refimpl Matcher (as a process backend's): it has no top_k."""

    def __init__(self, grammar: Grammar, vocab: Vocabulary, **options: Any) -> None:
        self.inner = Matcher(grammar, vocab)
        self.vocab = vocab

    def __getattr__(self, name: str) -> Any:
        if name == "top_k":
            raise AttributeError(name)
        return getattr(self.inner, name)


def test_top_k_with_a_matcher_other_than_refimpls() -> None:
    from refimpl.serving.backends import PROCESS_BACKENDS

    PROCESS_BACKENDS["test-wrapped"] = lambda grammar, vocab, backend, **options: Wrapped(grammar, vocab)
    try:
        rows = Rows(NESTED, SMALL, backend="test-wrapped")
        logits = [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]] * 2
        flags = rows.flags([[4], [4, 7]], logits=logits, top_k=2)
        assert isinstance(rows.states[0].matcher, Wrapped)
        assert [list(f) for f in flags] == [[0, 0, 0, 0, 0, 0, 0, 1, 1],  # of "a", "ab", "(", "x", "x)": the best two
                                            [0, 0, 0, 0, 0, 1, 0, 0, 0]]  # only ")"
    finally:
        del PROCESS_BACKENDS["test-wrapped"]


def test_top_k_needs_logits() -> None:
    with pytest.raises(ValueError, match="top_k needs the logits"):
        RowState(NESTED, SMALL).flags(top_k=2)
    with pytest.raises(ValueError, match="top_k needs one row of logits per row of tokens"):
        Rows(NESTED, SMALL).flags([[], []], logits=[[0.0] * 9], top_k=2)


# -- with torch: tensors, the transformers processor, the vLLM-style callables ------------

def _torch() -> Any:
    return pytest.importorskip("torch", reason="torch is not installed (the `integrations` extra installs it)")


def _transformers() -> Any:
    _torch()
    return pytest.importorskip("transformers", reason="transformers is not installed (the `integrations` extra)")


def hf_processor() -> Any:
    """integrations.transformers.MaskrefLogitsProcessor, or the test skips (saying why)."""
    _transformers()
    from integrations.transformers import MaskrefLogitsProcessor

    return MaskrefLogitsProcessor


def vllm_module() -> Any:
    """integrations.vllm, or the test skips (saying why)."""
    _torch()
    import integrations.vllm

    return integrations.vllm


GPT2 = Vocabulary.load("gpt2")
EOS = 50256


class Kind(enum.Enum):
    CAT = "cat"
    DOG = "dog"


@dataclass
class Pet:
    name: Annotated[str, Length(1, 6)]
    age: Annotated[int, Range(ge=0, le=30)]
    kind: Kind
    vaccinated: bool
    tags: Annotated[List[Literal["a", "b"]], Length(0, 2)]


# compact JSON (no free whitespace): a random model would otherwise write spaces for ever
PET = Grammar.from_type(Pet, whitespace_flexible=False)
ANSWER = Grammar.from_regex("(yes|no|maybe), [0-9]{1,3}")
SCHEMA: Dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "integer", "minimum": 0, "maximum": 999}, "ok": {"type": "boolean"},
                   "tags": {"type": "array", "items": {"enum": ["x", "y", "z"]}, "maxItems": 3}},
    "required": ["id", "ok", "tags"], "additionalProperties": False,
}
RECORD = Grammar.from_json_schema(SCHEMA, whitespace_flexible=False)


def finished_text(grammar: Grammar, generated: Sequence[int]) -> str:
    """The text of a finished row, checked: it has EOS, and a fresh Matcher consumes the
    tokens before it, accepts, and consumes the EOS."""
    assert EOS in generated, "the row did not finish: %r" % GPT2.decode(generated)
    body = list(generated[:list(generated).index(EOS)])
    m = Matcher(grammar, GPT2)
    assert m.consume_tokens(body), GPT2.decode(body)
    assert m.is_accepting() and m.consume(EOS)
    return GPT2.decode(body).decode("utf-8")


def check_value(grammar: Grammar, text: str) -> None:
    """The typed value (or plain JSON) of a finished row's text."""
    if grammar is PET:
        pet = parse(Pet, text)
        assert isinstance(pet, Pet) and isinstance(pet.kind, Kind) and 0 <= pet.age <= 30
        assert 1 <= len(pet.name) <= 6 and all(tag in ("a", "b") for tag in pet.tags)
    elif grammar is RECORD:
        record = json.loads(text)
        assert list(record) == ["id", "ok", "tags"] and 0 <= record["id"] <= 999
        assert isinstance(record["ok"], bool) and set(record["tags"]) <= {"x", "y", "z"}
    else:
        answer, number = text.split(", ")
        assert answer in ("yes", "no", "maybe") and 1 <= len(number) <= 3 and number.isdigit()


_MODELS: Dict[int, Any] = {}


def tiny_gpt2(vocab_size: int = 50257) -> Any:
    """A one-layer GPT-2 with random weights (seeded), built from a config: no download."""
    if vocab_size not in _MODELS:
        transformers = _transformers()
        torch = _torch()
        torch.set_num_threads(1)  # a tiny model: threads only contend
        torch.manual_seed(0)
        config = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=vocab_size,
                                         bos_token_id=EOS, eos_token_id=EOS)
        _MODELS[vocab_size] = transformers.GPT2LMHeadModel(config).eval()
    return _MODELS[vocab_size]


# prompts of different lengths (GPT-2 ids: "<|endoftext|>", "Hello", ",", " world", ":")
PROMPTS = [[EOS], [EOS, 15496, 11], [EOS, 15496, 11, 995, 25], [EOS, 25]]


def left_padded(prompts: List[List[int]], pad: int) -> Any:
    torch = _torch()
    width = max(len(p) for p in prompts)
    ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts])
    attention = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    return ids, attention


def hf_generate(proc: Any, *, vocab_size: int = 50257, pad: int = EOS, prompts: Optional[List[List[int]]] = None,
                **kwargs: Any) -> List[List[int]]:
    """Generate with the tiny model and `proc`; the generated part of each row."""
    torch = _torch()
    ids, attention = left_padded(prompts or PROMPTS, pad)
    torch.manual_seed(1)
    with torch.no_grad():
        out = tiny_gpt2(vocab_size).generate(ids, attention_mask=attention, logits_processor=[proc],
                                             pad_token_id=pad, eos_token_id=EOS, **kwargs)
    return [row[ids.shape[1]:] for row in out.tolist()]


def test_allowed_tensor_and_mask_scores() -> None:
    torch = _torch()
    from integrations.tensors import allowed_tensor, mask_scores

    rows = [bytearray([1, 0, 1]), bytearray([0, 1, 0])]
    allowed = allowed_tensor(rows, 5)
    assert allowed.dtype == torch.bool and allowed.tolist() == [[True, False, True, False, False],
                                                                [False, True, False, False, False]]
    assert allowed_tensor([], 5).shape == (0, 5)
    scores = torch.arange(10, dtype=torch.float32).view(2, 5)
    masked = mask_scores(scores, rows)
    inf = float("-inf")
    assert masked.tolist() == [[0.0, inf, 2.0, inf, inf], [inf, 6.0, inf, inf, inf]]
    assert scores.tolist() == [[0.0, 1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0, 9.0]]  # not changed
    half = mask_scores(scores.to(torch.bfloat16), rows)
    assert half.dtype == torch.bfloat16 and half.isinf().tolist() == [[False, True, False, True, True],
                                                                      [True, False, True, True, True]]
    with pytest.raises(GenerationError, match="the vocabulary has 3 tokens but the model's scores only 2"):
        mask_scores(torch.zeros(2, 2), rows)


@pytest.mark.parametrize("grammar", [PET, ANSWER, RECORD], ids=["dataclass", "regex", "json-schema"])
@pytest.mark.parametrize("sample", [False, True], ids=["greedy", "sampled"])
def test_transformers_every_finished_row_is_accepted_and_parses(grammar: Grammar, sample: bool) -> None:
    MaskrefLogitsProcessor = hf_processor()

    proc = MaskrefLogitsProcessor(grammar, GPT2, backend="native")
    rows = hf_generate(proc, do_sample=sample, max_new_tokens=160)
    lengths = set()
    for generated in rows:
        check_value(grammar, finished_text(grammar, generated))
        lengths.add(generated.index(EOS))
    if grammar is not ANSWER or sample:
        assert len(lengths) > 1, "rows of different lengths: %r" % rows


def test_transformers_top_k_keeps_the_k_best_of_the_full_mask() -> None:
    torch = _torch()
    MaskrefLogitsProcessor = hf_processor()
    full = MaskrefLogitsProcessor(RECORD, GPT2, backend="native")
    best3 = MaskrefLogitsProcessor(RECORD, GPT2, backend="native", top_k=3)
    generator = torch.Generator().manual_seed(6)
    prompt = torch.tensor([[EOS], [EOS]])
    steps: List[List[List[int]]] = [[[], []], [[90], [90]], [[90, 1, 312], [4895, 312, 1]]]  # "", "{", '{"id', '{"id"'
    for generated in steps:
        ids = torch.cat([prompt, torch.tensor(generated, dtype=torch.long).view(2, -1)], 1)
        scores = torch.randn(2, 50304, generator=generator)  # wider than the vocabulary
        masked, kept = full(ids, scores), best3(ids, scores)
        for row in range(2):
            allowed = masked[row].isfinite().nonzero().flatten().tolist()
            expected = sorted(sorted(allowed, key=lambda t: (-float(scores[row, t]), t))[:3])
            assert kept[row].isfinite().nonzero().flatten().tolist() == expected
            assert torch.equal(kept[row][expected], scores[row][expected])
    with pytest.raises(ValueError, match="top_k must be a positive int or None, not 0"):
        MaskrefLogitsProcessor(RECORD, GPT2, top_k=0)


@pytest.mark.parametrize("grammar", [PET, RECORD], ids=["dataclass", "json-schema"])
def test_transformers_top_k_generation(grammar: Grammar) -> None:
    MaskrefLogitsProcessor = hf_processor()
    proc = MaskrefLogitsProcessor(grammar, GPT2, backend="native", top_k=4)
    for generated in hf_generate(proc, do_sample=True, top_k=4, max_new_tokens=160):
        check_value(grammar, finished_text(grammar, generated))


def test_transformers_python_backend_with_mask_cache() -> None:
    MaskrefLogitsProcessor = hf_processor()

    proc = MaskrefLogitsProcessor(ANSWER, GPT2, mask_cache=True)
    for generated in hf_generate(proc, do_sample=True, max_new_tokens=12):
        check_value(ANSWER, finished_text(ANSWER, generated))
    matcher = proc.rows.states[0].matcher
    assert matcher.backend == "python" and matcher.cache is not None
    assert all(proc.rows.states[i].matcher.cache is matcher.cache for i in range(len(PROMPTS)))  # one per grammar
    assert matcher.cache.hits > 0


def test_transformers_wider_model_vocabulary_is_padded_with_minus_infinity() -> None:
    MaskrefLogitsProcessor = hf_processor()

    seen: List[Any] = []

    class Spy:  # the scores after masking, as the sampler sees them
        def __call__(self, input_ids: Any, scores: Any) -> Any:
            seen.append(scores[:, 50257:])
            return scores

    proc = MaskrefLogitsProcessor(PET, GPT2, backend="native")
    torch = _torch()
    ids, attention = left_padded(PROMPTS, EOS)
    torch.manual_seed(2)
    with torch.no_grad():
        out = tiny_gpt2(50304).generate(ids, attention_mask=attention, logits_processor=[proc, Spy()],
                                        do_sample=True, max_new_tokens=160, pad_token_id=EOS, eos_token_id=EOS)
    assert seen and all(bool(s.isneginf().all()) for s in seen)
    for row in out.tolist():
        check_value(PET, finished_text(PET, row[ids.shape[1]:]))


def test_transformers_pad_token_other_than_eos_is_not_read() -> None:
    MaskrefLogitsProcessor = hf_processor()

    proc = MaskrefLogitsProcessor(ANSWER, GPT2, backend="native")
    rows = hf_generate(proc, pad=0, do_sample=True, max_new_tokens=12)  # 0 is "!": not in the grammar
    padded = 0
    for generated in rows:
        check_value(ANSWER, finished_text(ANSWER, generated))
        padded += generated[generated.index(EOS) + 1:].count(0)
    assert padded > 0  # some row finished early and was padded with "!"


def test_transformers_one_grammar_per_row() -> None:
    MaskrefLogitsProcessor = hf_processor()

    grammars = [PET, ANSWER, RECORD, ANSWER]
    proc = MaskrefLogitsProcessor(grammars, GPT2, backend="native")
    for grammar, generated in zip(grammars, hf_generate(proc, do_sample=True, max_new_tokens=160)):
        check_value(grammar, finished_text(grammar, generated))
    with pytest.raises(GenerationError, match="a batch of 2 rows; the processor was made for 4"):
        hf_generate(proc, prompts=PROMPTS[:2], max_new_tokens=2)
    with pytest.raises(ValueError, match="4 grammars for a batch of 3 rows"):
        MaskrefLogitsProcessor(grammars, GPT2, batch_size=3)


def test_transformers_beam_search_reorders_rows() -> None:
    MaskrefLogitsProcessor = hf_processor()

    proc = MaskrefLogitsProcessor(RECORD, GPT2, backend="native")
    rows = hf_generate(proc, prompts=PROMPTS[:2], num_beams=3, num_return_sequences=3, do_sample=False,
                       max_new_tokens=160)
    assert len(rows) == 6
    for generated in rows:
        check_value(RECORD, finished_text(RECORD, generated))


def test_transformers_processor_serves_the_next_generation() -> None:
    MaskrefLogitsProcessor = hf_processor()

    proc = MaskrefLogitsProcessor(ANSWER, GPT2, backend="native")
    first = hf_generate(proc, do_sample=True, max_new_tokens=12)
    second = hf_generate(proc, prompts=[[EOS, 11], [EOS]], do_sample=True, max_new_tokens=12)  # another prompt
    for generated in first + second:
        check_value(ANSWER, finished_text(ANSWER, generated))
    assert proc.prompt is not None and proc.prompt.shape == (2, 2)


# -- vLLM-style: the per-request callable and the batched helper ---------------------------

def next_logits(model: Any, prompt: List[int], output: List[int]) -> Any:
    """The model's 1-D logits for the next token (no cache: the model is tiny)."""
    torch = _torch()
    with torch.no_grad():
        return model(torch.tensor([prompt + output])).logits[0, -1]


def choose(logits: Any, generator: Any) -> int:
    torch = _torch()
    return int(torch.multinomial(torch.softmax(logits.float(), -1), 1, generator=generator))


def test_vllm_processor_per_request() -> None:
    torch = _torch()
    MaskrefVLLMProcessor = vllm_module().MaskrefVLLMProcessor

    model = tiny_gpt2()
    generator = torch.Generator().manual_seed(3)
    template = MaskrefVLLMProcessor(PET, GPT2, backend="native")
    assert len(inspect.signature(template).parameters) == 2  # vLLM tells the forms apart by this
    for prompt in PROMPTS[1:3]:
        proc = template.clone()
        output: List[int] = []
        while EOS not in output and len(output) < 160:
            logits = next_logits(model, prompt, output)
            masked = proc(tuple(output), logits)  # vLLM passes the output tokens, no prompt
            allowed = torch.frombuffer(proc.row.flags(), dtype=torch.bool)
            assert masked.shape == logits.shape and torch.equal(masked.isneginf(), ~allowed)
            assert torch.equal(masked[allowed], logits[allowed])
            output.append(choose(masked, generator))
        check_value(PET, finished_text(PET, output))
        proc.close()


def test_vllm_processor_shared_by_sequences_stays_exact() -> None:
    torch = _torch()
    MaskrefVLLMProcessor = vllm_module().MaskrefVLLMProcessor

    model = tiny_gpt2()
    generator = torch.Generator().manual_seed(4)
    proc = MaskrefVLLMProcessor(ANSWER, GPT2, backend="native")  # one processor, n = 3 sequences
    outputs: List[List[int]] = [[], [], []]
    while any(EOS not in out for out in outputs):
        for out in outputs:
            if EOS not in out:
                out.append(choose(proc(out, next_logits(model, [EOS], out)), generator))
    assert len({tuple(out) for out in outputs}) > 1
    for out in outputs:
        check_value(ANSWER, finished_text(ANSWER, out))


def test_vllm_batch_processor_continuous_batching() -> None:
    torch = _torch()
    MaskrefBatchProcessor = vllm_module().MaskrefBatchProcessor

    model = tiny_gpt2()
    generator = torch.Generator().manual_seed(5)
    grammar_of = {"pet-0": PET, "answer-1": ANSWER, "record-2": RECORD, "answer-3": ANSWER, "pet-4": PET}
    proc = MaskrefBatchProcessor(lambda key: grammar_of[key], GPT2, backend="native")
    waiting = list(grammar_of)
    running: List[str] = []
    outputs: Dict[str, List[int]] = {}
    while waiting or running:
        while waiting and len(running) < 2:  # at most two requests at a time
            key = waiting.pop(0)
            running.append(key)
            outputs[key] = []
        logits = torch.stack([next_logits(model, [EOS], outputs[key]) for key in running])
        masked = proc([outputs[key] for key in running], logits, keys=running)
        assert masked.shape == logits.shape
        for key, row in zip(list(running), masked):
            outputs[key].append(choose(row, generator))
            if outputs[key][-1] == EOS or len(outputs[key]) >= 160:
                running.remove(key)
                proc.release(key)
    assert proc.rows.states == {}
    for key, out in outputs.items():
        check_value(grammar_of[key], finished_text(grammar_of[key], out))
    scores = torch.randn(2, 50257, generator=generator)
    full = MaskrefBatchProcessor(PET, GPT2, backend="native")([[], [90]], scores)
    kept = MaskrefBatchProcessor(PET, GPT2, backend="native", top_k=2)([[], [90]], scores)  # "" and "{"
    assert full.isfinite().sum(1).tolist() == [2, 1]  # "{" or '{"'; then '"' alone
    for row in range(2):
        allowed = full[row].isfinite().nonzero().flatten().tolist()
        expected = sorted(sorted(allowed, key=lambda t: (-float(scores[row, t]), t))[:2])
        assert kept[row].isfinite().nonzero().flatten().tolist() == expected
    with pytest.raises(ValueError, match=r"logits of shape \(3,\) for 1 rows"):
        proc([[]], torch.zeros(3))
