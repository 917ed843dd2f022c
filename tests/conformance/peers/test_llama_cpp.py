"""llama.cpp's grammar sampler as an engine under test (conformance/peers/llama_cpp/).
Runs where llama-cpp-python and gguf are installed (the `llama` extra: llama-cpp-python
builds from source, too slow for CI); docs/findings.md records a run."""
import ctypes

import pytest

llama_cpp = pytest.importorskip("llama_cpp")
pytest.importorskip("gguf")

from conformance.isolation import Isolated  # noqa: E402
from conformance.peers.llama_cpp import LlamaCppEngine  # noqa: E402
from conformance.peers.llama_cpp.differences import KNOWN_DIFFERENCES  # noqa: E402
from conformance.peers.llama_cpp.session import model  # noqa: E402
from conformance.runner import check_vector  # noqa: E402
from conformance.vectors import GrammarSpec, load_builtin, read_vectors, record  # noqa: E402
from tests.support.paths import SUITE  # noqa: E402


@pytest.mark.parametrize("name", ["bytes", "gpt2"])
def test_the_gguf_holds_the_same_token_bytes(name):
    vocab = load_builtin(name)
    lvocab = llama_cpp.llama_model_get_vocab(model(vocab))
    buf = ctypes.create_string_buffer(256)

    def piece(t):
        n = llama_cpp.llama_token_to_piece(lvocab, t, buf, 256, 0, False)
        return buf.raw[:n]

    assert llama_cpp.llama_vocab_n_tokens(lvocab) == len(vocab)
    assert [piece(t) for t in range(len(vocab)) if t not in vocab.eos_token_ids] == \
        [data for t, data in enumerate(vocab.tokens) if t not in vocab.eos_token_ids]
    assert all(llama_cpp.llama_vocab_is_eog(lvocab, t) for t in vocab.eos_token_ids)


def test_the_suites_gbnf_vectors():
    """Every GBNF vector agrees with llama.cpp, differs only as declared, or is a grammar
    llama.cpp refuses (left recursion)."""
    suite = SUITE / "gbnf.jsonl"
    backend, statuses = Isolated(LlamaCppEngine(), timeout=60), set()
    for _, _, vector in read_vectors(str(suite)):
        result = check_vector(backend, vector)
        assert result.status in ("agree", "known", "unsupported"), (vector.id, result.divergence)
        assert result.status != "unsupported" or "refuses the grammar" in result.reason
        statuses.add(result.status)
    assert "agree" in statuses


@pytest.mark.parametrize("grammar, vocab_name, known", [
    ('root ::= x root "a" | "b"\nx ::= "c"?\n', "bytes", "hidden-left-recursion"),  # llama.cpp hangs
    ("root ::= [^a]*\n", "bytes", "not-utf8"),  # it allows \xF5-\xFF
    ('root ::= "a"\n', "special", "end-of-generation-by-text"),  # <|eot_id|> ends generation
])
def test_llama_cpp_bugs_and_choices_are_known(grammar, vocab_name, known):
    vocab = load_builtin(vocab_name)
    spec = GrammarSpec("gbnf", grammar)
    g = spec.compile()
    path = [ord("a")] if grammar == 'root ::= "a"\n' else []
    result = check_vector(Isolated(LlamaCppEngine(), timeout=5), record(g, spec, vocab, path, "l", [], "test"))
    assert result.status == "known" and known in result.known, (result.status, result.known, result.divergence)


@pytest.mark.parametrize("schema, text, known", [
    ({"type": "string"}, '"', "raw-control-characters"),  # the converter's char is [^"\\]
    ({"type": "number", "minimum": 1}, "-", "converted-schema"),  # minimum ignored
    ({"type": "object", "properties": {"a": {"type": "integer"}}}, "{", "converted-schema"),  # closed, one space
])
def test_json_schemas_through_the_converter(schema, text, known):
    vocab = load_builtin("bytes")
    spec = GrammarSpec("json_schema", schema=schema)
    path = [ord(c) for c in text]
    result = check_vector(Isolated(LlamaCppEngine(), timeout=30), record(spec.compile(), spec, vocab, path, "l", [], "t"))
    assert result.status == "known" and result.known == [known], (result.status, result.known, result.divergence)


def test_predicates_refuse_near_misses():
    from conformance.divergence import Divergence

    CONVERTED_SCHEMA, RAW_CONTROL_CHARACTERS = map(KNOWN_DIFFERENCES.named, ("converted-schema", "raw-control-characters"))

    b = load_builtin("bytes")
    string = GrammarSpec("json_schema", schema={"type": "string"})
    assert RAW_CONTROL_CHARACTERS.applies(Divergence(string, b, [ord('"')], 1, [1], []))
    assert not RAW_CONTROL_CHARACTERS.applies(Divergence(string, b, [ord('"')], 1, [ord("a")], []))
    assert not RAW_CONTROL_CHARACTERS.applies(Divergence(string, b, [], 0, [1], []))  # outside a string
    number = GrammarSpec("json_schema", schema={"type": "number", "minimum": 1})
    assert CONVERTED_SCHEMA.applies(Divergence(number, b, [ord("-")], 1, [ord("2")], []))
    assert not CONVERTED_SCHEMA.applies(Divergence(number, b, [ord("-")], 1, [ord("a")], []))


@pytest.mark.parametrize("grammar, vocab_name, text, known", [
    ('root ::= r1 | "a"\nr1 ::= "b" r1\n', "bytes", "", "unproductive-prefixes"),  # it allows b
])
def test_more_llama_cpp_bugs_and_choices(grammar, vocab_name, text, known):
    vocab = load_builtin(vocab_name)
    spec = GrammarSpec("gbnf", grammar)
    result = check_vector(Isolated(LlamaCppEngine(), timeout=30),
                          record(spec.compile(), spec, vocab, [ord(c) for c in text], "l", [], "t"))
    assert result.status == "known" and known in result.known, (result.status, result.known, result.divergence)


def test_unproductive_prefixes_needs_an_unproductive_rule():
    from conformance.divergence import Divergence

    NO_ANSWER, UNPRODUCTIVE_PREFIXES = map(KNOWN_DIFFERENCES.named, ("no-answer", "unproductive-prefixes"))

    b = load_builtin("bytes")
    dead = GrammarSpec("gbnf", 'root ::= r1 | "a"\nr1 ::= "b" r1\n')
    assert UNPRODUCTIVE_PREFIXES.applies(Divergence(dead, b, [], 0, [ord("b")], []))
    alive = GrammarSpec("gbnf", 'root ::= r1 | "a"\nr1 ::= "b" r1 | "c"\n')
    assert not UNPRODUCTIVE_PREFIXES.applies(Divergence(alive, b, [], 0, [ord("d")], []))
    assert NO_ANSWER.applies(Divergence(alive, b, [], 0, [], [], error="mask: PeerTimeout: no answer to mask"))
    assert not NO_ANSWER.applies(Divergence(alive, b, [], 0, [], [], error="mask: RuntimeError: x"))


def test_end_of_generation_tokens_are_refused_as_text():
    """<|eot_id|> as a plain token: llama.cpp calls it end-of-generation, so where the grammar
    may not end it refuses it though `[^a]+` takes its text."""
    from conformance.divergence import Divergence

    v = load_builtin("special")
    eot = next(t for t, data in enumerate(v.tokens) if data == b"<|eot_id|>" and t not in v.special_token_ids)
    k = KNOWN_DIFFERENCES.named("end-of-generation-by-text")
    spec = GrammarSpec("gbnf", "root ::= [^a]+\n")
    assert k.applies(Divergence(spec, v, [], 0, [], [eot]))
    assert not k.applies(Divergence(spec, v, [ord("b")], 1, [], [eot]))  # it may end there: allowed
    assert not k.applies(Divergence(spec, v, [], 0, [], [ord("b")]))
