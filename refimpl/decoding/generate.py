"""Constrained generation with fast-forward: a model, a matcher, a sampler.

    result = generate(model, matcher, max_tokens=200)              # greedy
    result = generate(model, matcher, max_tokens=200, sampler=TopK(64, seed=1))
    result.text, result.tokens, result.model_calls, result.saved_calls

`model` is any callable from the token ids so far (the prompt's, then the generated
ones) to one score per token (logits: a list, an array, a numpy array). At each step:

1. *fast-forward*: if the grammar forces tokens here (`matcher.forced_tokens()`), they are
   appended without calling the model — each one a model call saved (llguidance's
   fast-forward tokens; "accelerated generation" in Kalosm's article). Where the input may
   end and nothing but EOS may follow, EOS is appended the same way;
2. otherwise the model is called and the sampler picks a token among the allowed ones
   (`top_k`, so only the best candidates are checked: topk.py).

It stops after EOS, when nothing is allowed (a dead end: `stop == "no_token"`), or after
`max_tokens` tokens. With `fast_forward=False` every token comes from the model.

Tokenisation (docs/generation.md): the forced *text* is the same whoever writes it, but
its tokens are `forced_tokens()`'s split — the longest tokens, left to right, the last
one held back where a longer token could run past the forced bytes (so the model may
write `":` rather than be handed `"`). A model would often have split the text the same
way, not always (a BPE tokenizer's merges are not longest-match); forced tokens are
always allowed tokens, so the output is always accepted by the grammar.

>>> from refimpl import Grammar, Matcher, Vocabulary
>>> v = Vocabulary.from_bytes([b"<eos>", b'{"', b'a', b'":', b' 1', b' 2', b"}", b'{"a":'], eos_token_id=0)
>>> g = Grammar.from_regex('\\\\{"a": [12]\\\\}')
>>> r = generate(lambda ids: [0.0, 0, 0, 0, 0.1, 0.9, 0, 0], Matcher(g, v), max_tokens=10)
>>> r.text, [v.tokens[t] for t in r.tokens], r.model_calls, r.saved_calls, r.stop
('{"a": 2}', [b'{"a":', b' 2', b'}', b'<eos>'], 1, 3, 'eos')
"""
from __future__ import annotations

import math
import random
from types import MappingProxyType
from typing import Any, Callable, List, Mapping, NamedTuple, Optional, Sequence

from .. import progress
from ..masks.matcher import Matcher, MatcherLike
from .topk import top_k

Model = Callable[[List[int]], Sequence[float]]
Sampler = Callable[[MatcherLike, Sequence[float]], Optional[int]]

#: The JSON layout for generation: one line, as Python's `json.dumps` writes it (`", "`
#: between items, `": "` after keys, no other whitespace), given to a JSON schema's or a
#: type's grammar: `Grammar.from_json_schema(schema, **ONE_LINE_JSON)`. The compilers'
#: default is llguidance's flexible whitespace (any run of it between lexemes, what the
#: conformance suite checks): a model that does not know the format well may spend its
#: tokens on whitespace, and none of the punctuation around it is forced. With this
#: layout every byte between values is forced (fast-forward: fewer model calls). It is
#: `maskref generate`'s default (docs/generation.md, "The JSON layout").
ONE_LINE_JSON: Mapping[str, Any] = MappingProxyType(
    {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "})


class Generation(NamedTuple):
    """What `generate` did: the tokens appended (EOS included when it ended the output),
    their bytes and text, the model calls made and the calls fast-forward saved (one per
    token appended without a model call), which tokens those were, why it stopped
    ("eos", "max_tokens", "no_token") and whether the grammar accepts the output."""

    tokens: List[int]
    data: bytes
    text: str
    model_calls: int
    saved_calls: int
    forced_at: List[int]
    stop: str
    accepted: bool


def greedy(matcher: MatcherLike, logits: Sequence[float]) -> Optional[int]:
    """The best allowed token (ties: the lower id), or None if none is allowed."""
    best = top_k(matcher, logits, 1)
    return best[0] if best else None


class TopK:
    """Top-k sampling: one of the k best allowed tokens, drawn with probability
    softmax(logit / temperature) among them, from a seeded `random.Random` (so a run is
    reproducible). Only the k best allowed tokens are looked at (`top_k`)."""

    def __init__(self, k: int = 64, *, seed: Optional[int] = None, rng: Optional[random.Random] = None,
                 temperature: float = 1.0) -> None:
        if k < 1:
            raise ValueError("TopK: k must be >= 1, not %d" % k)
        if not temperature > 0:
            raise ValueError("TopK: temperature must be > 0, not %r" % temperature)
        self.k = k
        self.rng = rng if rng is not None else random.Random(seed)
        self.temperature = temperature

    def __call__(self, matcher: MatcherLike, logits: Sequence[float]) -> Optional[int]:
        best = top_k(matcher, logits, self.k)
        if not best:
            return None
        scores = [float(logits[t]) / self.temperature for t in best]
        top = scores[0]
        if top == math.inf:  # the infinite ones share all the probability
            weights = [1.0 if s == math.inf else 0.0 for s in scores]
        elif top == -math.inf:
            weights = [1.0] * len(best)
        else:
            weights = [math.exp(s - top) for s in scores]
        return self.rng.choices(best, weights)[0]


def generate(model: Model, matcher: MatcherLike, *, max_tokens: int, sampler: Sampler = greedy,
             fast_forward: bool = True, prompt: Sequence[int] = ()) -> Generation:
    """Generate up to `max_tokens` tokens from `matcher`'s state (consuming them); see the
    module's docstring. `prompt` is passed to the model before the generated tokens (the
    matcher does not read it)."""
    if max_tokens < 0:
        raise ValueError("generate: max_tokens must be >= 0, not %d" % max_tokens)
    vocab = matcher.vocab
    eos = set(vocab.eos_token_ids)
    out: List[int] = []
    forced_at: List[int] = []
    calls = 0
    stop = "max_tokens"
    with progress.task("generating", total=max_tokens) as shown:  # refimpl/progress.py
        while len(out) < max_tokens:
            shown.done = len(out)
            if fast_forward:
                forced = matcher.forced_tokens()[: max_tokens - len(out)]
                if not forced and _only_eos(matcher):
                    forced = [vocab.eos_token_ids[0]] if eos else []
                    if not forced:  # no EOS token: the output simply ends
                        stop = "eos"
                        break
                if forced:
                    for t in forced:
                        if not matcher.consume(t):
                            raise AssertionError("a forced token was refused: %d" % t)  # forced_tokens' promise
                        forced_at.append(len(out))
                        out.append(t)
                    if _ended(matcher, out[-1], eos):
                        stop = "eos"
                        break
                    continue
            logits = model(list(prompt) + out)
            calls += 1
            chosen = sampler(matcher, logits)
            if chosen is None:
                stop = "no_token"
                break
            t = chosen
            if not matcher.consume(t):
                raise ValueError("the sampler chose token %d, which the grammar does not allow here" % t)
            out.append(t)
            if _ended(matcher, t, eos):
                stop = "eos"
                break
    data = vocab.decode(t for t in out if vocab.is_grammar_token(t))
    return Generation(out, data, data.decode("utf-8", "replace"), calls, len(forced_at), forced_at, stop,
                      matcher.is_accepting())


def _ended(matcher: MatcherLike, t: int, eos: set) -> bool:
    """Did token t end the output (EOS, not EOS ending a stop="" lexeme)?"""
    return t in eos and getattr(matcher, "stopped", True)


def _only_eos(matcher: MatcherLike) -> bool:
    """May the output end here, with nothing but EOS allowed? (Then EOS is forced.)
    For refimpl's Matcher: no token read by id, and no token's first byte, may come
    (masks/reading.py); for other matchers, the mask."""
    if not matcher.is_accepting() or getattr(matcher, "stopped", False):
        return False
    if not isinstance(matcher, Matcher):
        return all(t in matcher.vocab.eos_token_ids for t in matcher.mask().allowed())
    reading = matcher.reading()
    root = matcher.trie.root_child
    return not reading.by_id and not any(root[b] >= 0 and reading.bytes_allowed(bytes((b,))) for b in range(256))


# -- a model for trying things out ---------------------------------------------------------


class RandomModel:
    """A seeded random "model": logits drawn from a `random.Random` seeded by (seed, the
    token ids so far) — the same prefix always gives the same logits, whatever was asked
    before. It knows nothing of any format, except that outputs end: at each step, with
    probability `close`, the tokens made only of closing punctuation (`"` `,` `]` `}`,
    and spaces) and EOS score one higher, so that strings, numbers and lists end soon
    and generations finish within a few hundred tokens."""

    CLOSING = frozenset(b'",]} ')

    def __init__(self, vocab: Any, seed: int = 0, close: float = 0.3) -> None:
        self.vocab = vocab
        self.seed = seed
        self.close = close
        self.closing = [t for t, b in enumerate(vocab.tokens) if b.strip() and set(b) <= self.CLOSING
                        and t not in vocab.special_token_ids] + list(vocab.eos_token_ids)

    def __call__(self, ids: Sequence[int]) -> List[float]:
        rng = random.Random("%d:%s" % (self.seed, ",".join(map(str, ids))))
        rand = rng.random
        logits = [rand() for _ in range(len(self.vocab))]
        if rand() < self.close:
            for t in self.closing:
                logits[t] += 1.0
        return logits
