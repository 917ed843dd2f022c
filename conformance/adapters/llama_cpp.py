"""llama.cpp's grammar sampler (through llama-cpp-python), on the same token bytes.

llama.cpp reads its vocabulary from a GGUF file, so the adapter writes one for the
vocabulary under test: a vocab-only GGUF (the `gguf` package) with the token texts in
GPT-2's byte-to-unicode spelling, which llama.cpp's `llama_token_to_piece` turns back into
the same bytes; EOS and special tokens are control tokens (their piece is empty, so the
grammar never matches their text; EOS is end-of-generation). The mask is the candidates
`llama_sampler_apply` leaves finite, out of all the vocabulary; consuming a token is
`llama_sampler_accept`. llama.cpp aborts the process on some inputs (a vocabulary with two
tokens of the same text: GGML_ASSERT), so the backend runs in a child process
(conformance/isolation.py). Optional: llama-cpp-python builds from source (about 25
minutes on two cores), so it is not in CI (docs/findings.md records a run).
"""
from __future__ import annotations

import functools
import json
import os
import tempfile
from typing import Any, Dict, Optional

from refimpl import Grammar, MaskrefError, Vocabulary
from refimpl.frontends.ebnf.compiler import compile_rules

from refimpl.frontends.ebnf.gbnf import parse_rules as gbnf_rules
from refimpl.regex import ExprSet

from ..differences import AFTER_EOS, KnownDifference, answers_as
from ..divergence import Divergence, compiled, utf8_prefix
from ..engine import Engine, Session
from ..isolation import timed_out
from ..readings.byte_level import byte_level_text
from ..readings.grammar_shapes import has_cycle, let_unproductive_rules_stop, rule_edges
from ..readings.json_text import puts, raw_control_in_string
from ..vectors import GrammarSpec, NotSupported, bitmask_from_ids, bitmask_len, vocab_hash


def write_gguf(vocab: Vocabulary, path: str) -> None:
    """A vocab-only GGUF file of `vocab` that llama.cpp loads (`vocab_only`)."""
    import gguf

    w = gguf.GGUFWriter(path, "gpt2")
    for add in (w.add_block_count, w.add_context_length, w.add_embedding_length, w.add_feed_forward_length,
                w.add_head_count):
        add(1)  # hyperparameters a vocab-only load still reads
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    control = set(vocab.eos_token_ids) | set(vocab.special_token_ids)
    w.add_token_list([("<control %d>" % t if t in control else byte_level_text(data))
                      for t, data in enumerate(vocab.tokens)])
    w.add_token_types([gguf.TokenType.CONTROL if t in control else gguf.TokenType.NORMAL
                       for t in range(len(vocab.tokens))])
    w.add_token_merges(["a b"])  # llama.cpp requires merges; masks never tokenise
    eos = list(vocab.eos_token_ids)
    w.add_eos_token_id(eos[0])
    if len(eos) > 1:
        w.add_eot_token_id(eos[1])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def _not_utf8(d: Divergence) -> bool:
    """llama.cpp allows tokens after which the text cannot be UTF-8 (its partial-UTF-8
    decoding takes F5–FF as lead bytes): every differing token is such a token of its."""
    text = d.text()
    return (d.error is None and d.refused is None and not d.only_refimpl and bool(d.only_engine)
            and all(not utf8_prefix(text + d.vocab.tokens[t]) for t in d.only_engine))


def _nul_first(d: Divergence) -> bool:
    """llama.cpp's grammar sampler refuses every token whose first byte is NUL."""
    return (d.error is None and d.refused is None and not d.only_engine and bool(d.only_refimpl)
            and all(d.vocab.tokens[t][:1] == b"\0" for t in d.only_refimpl))


NOT_UTF8 = KnownDifference(
    "not-utf8", "peer-bug",
    "llama.cpp allows a token after which the text cannot be UTF-8: its partial-UTF-8 decoder reads "
    "the bytes F5-FF as the lead of a four-byte character (negated classes and `.` then take it)",
    _not_utf8,
)
def _control_as_text(d: Divergence) -> bool:
    """llama.cpp's grammar matches a control token's text; maskref never matches a special
    token's text. Every differing token is special (not EOS) in refimpl's vocabulary."""
    special = set(d.vocab.special_token_ids) - set(d.vocab.eos_token_ids)
    return d.error is None and d.refused is None and bool(d.differing()) and all(t in special for t in d.differing())


def _hidden_left_recursion(d: Divergence) -> bool:
    """llama.cpp did not answer (a PeerTimeout) on a grammar where a rule derives itself at
    its left through a nullable prefix, which its left-recursion check does not see."""
    if not timed_out(d):
        return False
    rules = gbnf_rules(gbnf_of(d.grammar))
    return has_cycle(rule_edges(rules, ExprSet(), left=True))


CONTROL_AS_TEXT = KnownDifference(
    "control-tokens-as-text", "semantic",
    "llama.cpp's grammar matches the text of control (special) tokens; maskref never matches a special token's text",
    _control_as_text,
)
HIDDEN_LEFT_RECURSION = KnownDifference(
    "hidden-left-recursion", "peer-bug",
    "llama.cpp refuses left recursion, but not left recursion through a nullable prefix "
    "(`root ::= x root \"a\" | \"b\"` with `x ::= \"c\"?`): building its sampler then never returns",
    _hidden_left_recursion, ends_path=True,
)
NUL_FIRST = KnownDifference(
    "nul-first", "semantic",
    "llama.cpp's grammar sampler refuses a token whose first byte is NUL (it reads pieces as C strings)",
    _nul_first,
)


def gbnf_of(spec: GrammarSpec) -> str:
    """The GBNF llama.cpp runs for a vector: its own, or for a JSON schema the grammar of
    llama-cpp-python's converter (llama_grammar.json_schema_to_gbnf, the port of llama.cpp's
    json_schema_to_grammar.py that LlamaGrammar.from_json_schema uses)."""
    if spec.kind == "gbnf":
        return spec.source or ""
    if spec.kind != "json_schema":
        raise NotSupported("llama.cpp: no %s grammars" % spec.kind)
    if spec.options:
        raise NotSupported("llama.cpp's JSON-schema converter has no options %s" % sorted(spec.options))
    return _converted(json.dumps(spec.schema))


@functools.lru_cache(maxsize=16)
def _converted(schema: str) -> str:
    """The converter's GBNF of a schema's JSON text, cached: predicates ask for it once per
    differing token, and it takes seconds on large schemas."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    try:
        return json_schema_to_gbnf(schema)
    except Exception as e:  # noqa: BLE001 - the converter raises what it meets
        raise NotSupported("llama.cpp's converter cannot convert the schema: %s: %s"
                           % (type(e).__name__, str(e).splitlines()[0][:160] if str(e) else "")) from e


def _converted_schema(d: Divergence) -> bool:
    """The sampler answers as refimpl does on the GBNF the converter made of the schema."""
    if d.grammar.kind != "json_schema":
        return False
    try:
        text = gbnf_of(d.grammar)
    except NotSupported:
        return False
    return answers_as(d, compiled(GrammarSpec("gbnf", text)))


def _unproductive_prefixes(d: Divergence) -> bool:
    """No EOS differs, and refimpl answers as llama.cpp once every rule that derives no
    string may stop (llama.cpp keeps stacks that can never finish)."""
    if any(t in d.vocab.eos_token_ids for t in d.differing()):
        return False
    try:
        source = gbnf_of(d.grammar)
    except NotSupported:
        return False
    rules = gbnf_rules(source)
    if not let_unproductive_rules_stop(rules):
        return False
    root = d.grammar.options.get("root", "root") if d.grammar.kind == "gbnf" else "root"
    return answers_as(d, Grammar(compile_rules(rules, root, source), "gbnf", source))


def _no_answer(d: Divergence) -> bool:
    return timed_out(d)


def _raw_control_characters(d: Divergence) -> bool:
    """Only llama.cpp allows the differing tokens, each puts a raw control character
    (U+0000-U+001F) into a string, and the converter's GBNF allows them."""
    if d.only_refimpl or not d.only_engine or not _converted_schema(d):
        return False
    text = d.text()
    return all(puts(text, d.vocab.tokens[t], raw_control_in_string) for t in d.only_engine)


RAW_CONTROL_CHARACTERS = KnownDifference(
    "raw-control-characters", "peer-bug",
    "llama-cpp-python's JSON-schema converter writes a string character as [^\"\\\\]: raw control "
    "characters, newlines among them, are allowed in strings (invalid JSON)",
    _raw_control_characters,
)
UNPRODUCTIVE_PREFIXES = KnownDifference(
    "unproductive-prefixes", "peer-bug",
    "llama.cpp allows the prefixes of a rule that derives no string: with `root ::= r1 | \"a\"` and "
    "`r1 ::= \"b\" r1` it allows `b`, though no output can then end",
    _unproductive_prefixes, ends_path=True,
)
NO_ANSWER = KnownDifference(
    "no-answer", "peer-bug",
    "llama.cpp did not answer a mask or a consume within 30 s on an ambiguous grammar without left "
    "recursion (its stacks multiply; `root ::= (\"ab\"{1,2} | (\"ba\"{0,1} [é-ê] root{0,1} | ([é-ê]?){0,1})+ "
    "| [^a] root{2} root* [a-b])` after `indcc`); refimpl answers at once",
    _no_answer, ends_path=True,
)
CONVERTED_SCHEMA = KnownDifference(
    "converted-schema", "semantic",
    "llama-cpp-python turns a JSON schema into its own GBNF (json_schema_to_gbnf): at most one space "
    "between JSON tokens, objects closed unless additionalProperties says otherwise, minimum and "
    "maximum ignored, integer, fraction and exponent parts of at most 16 digits and exponents "
    "without leading zeros, \\/ and any \\uXXXX allowed, ...; the differing tokens are exactly "
    "those refimpl answers differently on that GBNF",
    _converted_schema,
)


class LlamaSession(Session):
    def __init__(self, sampler: Any, n: int, eos: Any) -> None:
        import ctypes

        import llama_cpp

        self.L, self.ctypes = llama_cpp, ctypes
        self.sampler, self.n, self.eos = sampler, n, eos
        self.candidates = (llama_cpp.llama_token_data * n)()
        self.ended = False

    def allowed(self) -> list:
        L, c = self.L, self.candidates  # type: Any, Any
        for i in range(self.n):
            c[i].id, c[i].logit, c[i].p = i, 0.0, 0.0
        arr = L.llama_token_data_array(c, self.n, -1, False)
        L.llama_sampler_apply(self.sampler, self.ctypes.byref(arr))
        return [c[i].id for i in range(arr.size) if c[i].logit != float("-inf")]

    def mask(self) -> bytes:
        if self.ended:
            return bytes(bitmask_len(self.n))
        return bitmask_from_ids(self.allowed(), self.n)

    def consume(self, token: int) -> bool:
        if self.ended or token not in self.allowed():  # llama.cpp throws on a token it does not allow
            return False
        if token in self.eos:
            self.ended = True
            return True
        self.L.llama_sampler_accept(self.sampler, token)
        return True


class LlamaCppEngine(Engine):
    """llama.cpp's grammar sampler for GBNF grammars, and for JSON schemas through
    llama-cpp-python's converter."""

    name = "llama.cpp"
    description = "llama.cpp's grammar sampler (llama-cpp-python), vocab-only GGUF of the same bytes"
    kinds = ("gbnf", "json_schema")

    def __init__(self) -> None:
        self._models: Dict[str, Any] = {}
        self.known_differences = (AFTER_EOS, NOT_UTF8, NUL_FIRST, CONTROL_AS_TEXT, HIDDEN_LEFT_RECURSION,
                                  RAW_CONTROL_CHARACTERS, CONVERTED_SCHEMA, UNPRODUCTIVE_PREFIXES, NO_ANSWER,
                                  KnownDifference(
            "end-of-generation-by-text", "semantic",
            "llama.cpp makes tokens whose text is a known end-of-turn marker (e.g. <|eot_id|>) end-of-generation "
            "tokens, allowed where the grammar may end and never matched as text", self._ends_generation))

    def _ends_generation(self, d: Divergence) -> bool:
        """Every differing token is one llama.cpp calls end-of-generation (though not EOS in
        refimpl's vocabulary): allowed by llama.cpp where the grammar it runs may end, and
        refused (as text) where it may not."""
        import llama_cpp

        if d.error is not None or d.refused is not None or not d.differing():
            return False
        lvocab = llama_cpp.llama_model_get_vocab(self.model(d.vocab))
        if not all(llama_cpp.llama_vocab_is_eog(lvocab, t) for t in d.differing()):
            return False
        from refimpl.recognition.recognizer import Recognizer

        try:
            g = compiled(GrammarSpec("gbnf", gbnf_of(d.grammar), options={"root": d.grammar.options.get("root", "root")}
                                     if d.grammar.kind == "gbnf" else None))
        except (NotSupported, MaskrefError):
            return False
        r = Recognizer(g.compiled, g.limits)
        ends = r.consume_bytes(d.text()) and r.is_accepting()
        return (not d.only_engine or ends) and (not d.only_refimpl or not ends)

    def unavailable_reason(self) -> Optional[str]:
        try:
            import gguf  # noqa: F401
            import llama_cpp  # noqa: F401
        except ImportError as e:
            return "llama-cpp-python or gguf is not importable (%s): pip install llama-cpp-python gguf" % e
        return None

    def version(self) -> str:
        from importlib.metadata import version

        return "llama-cpp-python %s" % version("llama-cpp-python")

    def prepare(self, vocab: Vocabulary) -> None:
        """Load the vocabulary before a session's process is forked (it inherits it)."""
        self.model(vocab)

    def model(self, vocab: Vocabulary) -> Any:
        key = vocab_hash(vocab)
        model = self._models.get(key)
        if model is None:
            texts = [data for t, data in enumerate(vocab.tokens) if t not in vocab.eos_token_ids
                     and t not in vocab.special_token_ids]
            if len(set(texts)) != len(texts) or b"" in texts:
                raise NotSupported("llama.cpp aborts on a vocabulary with duplicate or empty tokens")
            import llama_cpp

            llama_cpp.llama_backend_init()
            params = llama_cpp.llama_model_default_params()
            params.vocab_only = True
            with tempfile.TemporaryDirectory(prefix="maskref-") as tmp:  # the file is not needed once loaded
                path = os.path.join(tmp, "vocab.gguf")
                write_gguf(vocab, path)
                model = llama_cpp.llama_model_load_from_file(path.encode(), params)
            if not model:
                raise NotSupported("llama.cpp cannot load the vocabulary")
            self._models[key] = model
        return model

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        text = gbnf_of(spec)
        import llama_cpp

        lvocab = llama_cpp.llama_model_get_vocab(self.model(vocab))
        root = spec.options.get("root", "root") if spec.kind == "gbnf" else "root"
        sampler = llama_cpp.llama_sampler_init_grammar(lvocab, text.encode(), root.encode())
        if not sampler:
            raise NotSupported("llama.cpp refuses the grammar (llama_sampler_init_grammar returned NULL)")
        return LlamaSession(sampler, len(vocab), set(vocab.eos_token_ids))
