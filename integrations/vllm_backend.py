"""maskref as a structured-output backend of vLLM's V1 engine.

vLLM V1 constrains decoding through *structured-output backends*, not logits processors:
a `StructuredOutputBackend` compiles each request's grammar into a
`StructuredOutputGrammar`, which the engine asks once a step to fill its row of a
preallocated int32 bitmask (32 tokens a word, token t at bit t % 32 of word t // 32), and
tells of the tokens sampled (`accept_tokens`), of draft tokens to check
(`validate_tokens`) and of drafts rejected (`rollback`). This module implements both
classes over refimpl's Matcher, so a vLLM engine's masks are maskref's:

    from integrations.vllm_backend import install_in_llm
    llm = LLM(model=..., structured_outputs_config={"backend": "guidance"})
    install_in_llm(llm)                      # the engine core must run in this process
    llm.generate(prompts, SamplingParams(structured_outputs=StructuredOutputsParams(json=schema)))

vLLM chooses its backend by name in `StructuredOutputManager.grammar_init` from a fixed
list, and has no hook to add one; but it builds the backend only while the manager has
none. `install_backend(manager)` gives a manager a `MaskrefBackend` before its first
structured request, which is the whole selection: nothing of vLLM is patched. Requests
are still checked when they arrive by the validator of the configured backend name
("guidance" reads the same Lark dialect and JSON-schema options as maskref).

The request kinds (`StructuredOutputOptions`): JSON (a schema), JSON_OBJECT (any object),
REGEX, GRAMMAR (Lark, or GBNF where a line has `::=`, told apart as vLLM does), CHOICE (a
JSON list of strings). STRUCTURAL_TAG is not supported: compiling one raises GrammarError,
which fails that request only. The request's stop tokens (`stop_token_ids`: EOS and the
user's stop ids) are the EOS tokens of its grammar: allowed exactly where the grammar may
end, and the grammar terminates when one is accepted.

Needs vLLM (the `vllm` extra, or a venv where vLLM is installed: docs/integrations.md).
"""
from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Iterable, List, Optional

import torch
from vllm.v1.structured_output.backend_types import (
    StructuredOutputBackend,
    StructuredOutputGrammar,
    StructuredOutputOptions,
)
from vllm.v1.structured_output.utils import grammar_is_likely_lark

from refimpl import Grammar, GrammarError, MatcherLike, Vocabulary, open_matcher
from refimpl.grammar.ir import lark_string

from .bitmask import allocate_token_bitmask, fill_next_token_bitmask

__all__ = ["MaskrefBackend", "MaskrefGrammar", "install_backend", "install_in_llm", "vocabulary_of", "grammar_of"]


def vocabulary_of(tokenizer: Any, vocab_size: int) -> Vocabulary:
    """The vocabulary of vLLM's tokenizer (a Hugging Face tokenizer: token bytes as the
    model emits them, EOS the tokenizer's), padded to the model's `vocab_size` (its logits'
    width; padding ids are never allowed), or to the tokenizer's length if that is wider."""
    vocab = Vocabulary.from_huggingface(tokenizer)
    return vocab.padded(max(vocab_size, len(vocab)))


def grammar_of(request_type: StructuredOutputOptions, spec: str, *, whitespace_flexible: bool = True,
               ebnf_dialect: str = "gbnf") -> Grammar:
    """The Grammar of one vLLM request: its kind and its spec (text) as vLLM passes them.
    `whitespace_flexible` is JSON's (vLLM's `disable_any_whitespace` is its negation);
    `ebnf_dialect` is how a `::=` grammar is read: "gbnf" (llama.cpp's) or "xgrammar"."""
    if request_type == StructuredOutputOptions.JSON:
        return Grammar.from_json_schema(spec, whitespace_flexible=whitespace_flexible)
    if request_type == StructuredOutputOptions.JSON_OBJECT:
        return Grammar.from_json_schema({"type": "object"}, whitespace_flexible=whitespace_flexible)
    if request_type == StructuredOutputOptions.REGEX:
        return Grammar.from_regex(spec)
    if request_type == StructuredOutputOptions.GRAMMAR:
        if grammar_is_likely_lark(spec):
            return Grammar.from_lark(spec)
        if ebnf_dialect == "gbnf":
            return Grammar.from_gbnf(spec)
        return Grammar.from_ebnf(spec, dialect=ebnf_dialect)
    if request_type == StructuredOutputOptions.CHOICE:
        return Grammar.from_lark("start: " + " | ".join(lark_string(c) for c in _choices(spec)))
    raise GrammarError("the maskref vLLM backend does not support %s requests" % request_type.name)


def _choices(spec: str) -> List[str]:
    try:
        choices = json.loads(spec)
    except ValueError as e:
        raise GrammarError("a choice request must be a JSON list of strings: %s" % e) from None
    if not isinstance(choices, list) or not choices or not all(isinstance(c, str) for c in choices):
        raise GrammarError("a choice request must be a non-empty JSON list of strings, not %r" % (spec,))
    return choices


@dataclass
class MaskrefBackend(StructuredOutputBackend):
    """The engine-level backend: the vocabulary (from vLLM's tokenizer) and how requests'
    grammars are compiled. `matcher_options` go to `refimpl.open_matcher` (e.g.
    {"backend": "native", "mask_cache": True}); `ebnf_dialect` reads `::=` grammars."""

    matcher_options: Dict[str, Any] = field(default_factory=dict)
    ebnf_dialect: str = "gbnf"

    def __post_init__(self) -> None:
        config = getattr(self.vllm_config, "structured_outputs_config", None)
        self.whitespace_flexible = not getattr(config, "disable_any_whitespace", False)
        self.vocab = vocabulary_of(self.tokenizer, self.vocab_size)
        _ = self.vocab.trie  # built once here, not by the threads that compile grammars
        self._by_stops: Dict[FrozenSet[int], Vocabulary] = {}
        self._lock = threading.Lock()

    def compile_grammar(self, request_type: StructuredOutputOptions, grammar_spec: str,
                        stop_token_ids: Optional[Iterable[int]] = None) -> "MaskrefGrammar":
        grammar = grammar_of(request_type, grammar_spec, whitespace_flexible=self.whitespace_flexible,
                             ebnf_dialect=self.ebnf_dialect)
        if grammar.is_empty:  # its first bitmask would allow nothing: the sampler has no token to pick
            raise GrammarError("the %s request's grammar has an empty language: no output matches it"
                               % request_type.name)
        return MaskrefGrammar(grammar, self.vocabulary_for(stop_token_ids), **self.matcher_options)

    def vocabulary_for(self, stop_token_ids: Optional[Iterable[int]]) -> Vocabulary:
        """The vocabulary whose EOS tokens are a request's stop tokens (the tokenizer's
        own when there are none): one per distinct set, shared by the requests."""
        stops = frozenset(stop_token_ids or ())
        if not stops or stops == frozenset(self.vocab.eos_token_ids):
            return self.vocab
        with self._lock:
            vocab = self._by_stops.get(stops)
            if vocab is None:
                v = self.vocab
                vocab = Vocabulary(v.tokens[:v.padding_ids.start], sorted(stops), v.special_token_ids, v.name, len(v))
                self._by_stops[stops] = vocab
            return vocab

    def allocate_token_bitmask(self, max_num_seqs: int) -> torch.Tensor:
        """(max_num_seqs, words) int32, every token allowed, one bit a token of the
        (padded) vocabulary: vLLM's, llguidance's and xgrammar's layout."""
        return allocate_token_bitmask(max_num_seqs, len(self.vocab))

    def destroy(self) -> None:
        self._by_stops.clear()


class MaskrefGrammar(StructuredOutputGrammar):
    """One request's grammar state: a refimpl matcher, opened over the request's
    vocabulary. Terminated once a stop (EOS) token is accepted; tokens after that are
    ignored, as vLLM's other backends do."""

    def __init__(self, grammar: Grammar, vocab: Vocabulary, **matcher_options: Any) -> None:
        self.grammar = grammar
        self.vocab = vocab
        self.matcher_options = matcher_options
        self.matcher: MatcherLike = open_matcher(grammar, vocab, **matcher_options)
        self.num_processed_tokens = 0  # tokens the matcher has consumed (what rollback may undo)

    def __repr__(self) -> str:
        return "MaskrefGrammar(%r, %d tokens consumed%s)" % (self.grammar, self.num_processed_tokens,
                                                             ", terminated" if self.is_terminated() else "")

    def accept_tokens(self, request_id: str, tokens: List[int]) -> bool:
        """Consume the sampled tokens; False at the first the grammar refuses (the ones
        before it stay consumed, as in vLLM's xgrammar backend). Once a stop token is
        accepted the output has ended: the tokens after it are not read."""
        if self.is_terminated():
            return True
        for token in tokens:
            if not self.matcher.consume(token):
                return False
            self.num_processed_tokens += 1
            if token in self.vocab.eos_token_ids:
                break
        return True

    def validate_tokens(self, tokens: List[int]) -> List[int]:
        """The longest prefix of `tokens` the grammar accepts from here (up to a stop
        token, or vLLM's -1 padding); the state is unchanged."""
        if self.is_terminated():
            return []
        tokens = list(itertools.takewhile(lambda t: t >= 0, tokens))
        return tokens[:self.matcher.validate_tokens(tokens)]

    def rollback(self, num_tokens: int) -> None:
        """Undo the last `num_tokens` accepted tokens (a stop token among them un-ends the output)."""
        if num_tokens > 0:
            self.matcher.rollback(num_tokens)
            self.num_processed_tokens -= num_tokens

    def fill_bitmask(self, bitmask: torch.Tensor, batch_index: int) -> None:
        """Row `batch_index` of `bitmask` := the tokens allowed next, nothing beyond the
        vocabulary. After the end: the stop tokens only, as llguidance's (vLLM fills a
        terminated request's row itself; a row allowing nothing would leave the sampler
        nothing to pick)."""
        fill_next_token_bitmask(self.matcher, bitmask, batch_index)
        if self.is_terminated():
            for t in self.vocab.eos_token_ids:
                bitmask[batch_index, t // 32] |= torch.tensor(1, dtype=torch.int32) << (t % 32)

    def is_terminated(self) -> bool:
        """Has the output ended (a stop token accepted)? A state where no token at all is
        allowed has not: vLLM would stop constraining it."""
        return self.matcher.stop_reason == "eos"

    def reset(self) -> None:
        """Back to the start, as freshly compiled."""
        self.matcher.reset()
        self.num_processed_tokens = 0


def install_backend(manager: Any, **options: Any) -> MaskrefBackend:
    """Make a vLLM `StructuredOutputManager` compile its requests with maskref: give it a
    `MaskrefBackend` (options: `matcher_options`, `ebnf_dialect`) before its first
    structured request. The manager keeps one backend for its lifetime, so this raises
    ValueError when it already has another."""
    if manager.backend is not None:
        if isinstance(manager.backend, MaskrefBackend):
            return manager.backend
        raise ValueError("this StructuredOutputManager already compiles with %s: install maskref's backend "
                         "before the first structured-output request" % type(manager.backend).__name__)
    tokenizer = getattr(manager, "tokenizer", None)
    if tokenizer is None:
        raise ValueError("the engine was started with skip_tokenizer_init: structured output needs the tokenizer")
    config = manager.vllm_config
    manager.backend = MaskrefBackend(config, tokenizer=tokenizer, vocab_size=config.model_config.get_vocab_size(),
                                     **options)
    return manager.backend


def install_in_llm(llm: Any, **options: Any) -> MaskrefBackend:
    """`install_backend` for a `vllm.LLM` whose engine core runs in this process (set
    VLLM_ENABLE_V1_MULTIPROCESSING=0 before creating it): the engine core of a separate
    process cannot be reached from here."""
    client = llm.llm_engine.engine_core
    core = getattr(client, "engine_core", None)
    scheduler = getattr(core, "scheduler", None)
    manager = getattr(scheduler, "structured_output_manager", None)
    if manager is None:
        raise ValueError("the LLM's engine core runs in another process (%s): set VLLM_ENABLE_V1_MULTIPROCESSING=0 "
                         "before creating the LLM to install maskref's backend in it" % type(client).__name__)
    return install_backend(manager, **options)
