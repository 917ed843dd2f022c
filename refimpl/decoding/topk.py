"""Sampler-aware masking: the k best *allowed* tokens, without the full mask when it pays.

A top-k sampler (Kalosm's default k = 64) looks at the k highest-scoring tokens the
grammar allows, nothing else. Its answer is defined as

    sorted(mask.allowed(), key=lambda t: (-logits[t], t))[:k]

(best first, ties by the lower id) — `reference_top_k` computes it so. `top_k` gives the
same list another way: it checks candidate tokens one at a time in score order, each
with a *single-token check* (masks/reading.py, `Reading.allows`: the rule every reading
of a token follows) that runs the recogniser's `advance` over the token's bytes from the
current (lexer state, top) — a cost in the token's length, not in the vocabulary — and
stops after k allowed ones. Where the model knows the format, its best
tokens are allowed and a few dozen checks replace a walk over the whole trie.

When the best-scored tokens keep being refused (adversarial logits, or a state where
the grammar allows fewer than k tokens), checking one at a time stops paying. The
*fallback rule*: once more than `refusals_budget(k)` = k/2 + 32 candidates have been
refused, the full mask is computed by the matcher's backend and the answer taken from
it. So at most k + k/2 + 33 tokens are ever checked, and a format-aware model (whose
best tokens are nearly all allowed) never falls back; docs/generation.md has the
measurements behind the constants.

What a single check decides is what `Matcher.consume` decides for the token: both read
it by `Reading.how` (by id, as EOS, or as its bytes). Ids at or past the vocabulary's
size (padding of a model's output layer) are never allowed.

Logits are any sequence of numbers: a list, an `array('f')`, a tuple, or a numpy array
(read through its own methods: refimpl imports no numpy). NaN is refused (the order is
undefined); infinities are ordinary values. k = 0 gives [] (the best zero tokens, as
`heapq.nlargest(0, ...)`); a negative k is a ValueError.

>>> from refimpl import Grammar, Matcher, Vocabulary
>>> v = Vocabulary.from_bytes([b"<eos>", b"1", b"12", b"a", b"x", b"2"], eos_token_id=0)
>>> m = Matcher(Grammar.from_regex("[0-9]+"), v)
>>> logits = [5.0, 0.5, 1.0, 9.0, 8.0, 1.0]
>>> top_k(m, logits, 2), reference_top_k(m, logits, 2)   # "a", "x" and EOS are refused
([2, 5], [2, 5])
>>> m.consume(1), top_k(m, logits, 3)                     # after "1", EOS may come
(True, [0, 2, 5])
>>> top_k(m, logits, 0), top_k(m, logits, 10)
([], [0, 2, 5, 1])
"""
from __future__ import annotations

import heapq
import math
import sys
from itertools import compress, repeat
from operator import le
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from ..masks.matcher import Matcher, MatcherLike

#: the fallback rule's constants: once more than `k // REFUSALS_PER_K + REFUSALS_BASE`
#: candidates have been refused, compute the full mask
REFUSALS_PER_K = 2
REFUSALS_BASE = 32
#: candidates are read from the logits in batches; the first batch holds about this many
#: times the most candidates the budget lets be checked (a stride sample of the logits
#: sets its threshold), later batches four times as many as the one before
BATCH_FACTOR = 2
SAMPLE_STRIDE = 32


def refusals_budget(k: int) -> int:
    """The fallback rule: how many refused candidates `top_k` accepts before it computes
    the full mask instead (at the next refusal)."""
    return k // REFUSALS_PER_K + REFUSALS_BASE


def reference_top_k(matcher: MatcherLike, logits: Sequence[float], k: int) -> List[int]:
    """The definition: the full mask, then its k best tokens (ties by the lower id).
    Works with any matcher that has `mask()` (every backend: refimpl.MatcherLike)."""
    _check_k(k)
    values = logits if _is_numpy_like(logits) else _as_sequence(logits)
    _check_values(values, len(matcher.vocab))
    if k == 0:
        return []
    return _best_of_mask(matcher.mask().flags, values, k)


def top_k(matcher: MatcherLike, logits: Sequence[float], k: int, *, max_refused: Optional[int] = None,
          stats: Optional[Dict[str, int]] = None) -> List[int]:
    """The k highest-scoring tokens `matcher` allows next, best first, ties by the lower
    id: the same list as `reference_top_k`.

    With refimpl's own Matcher, candidates are checked one at a time in score order
    (`Matcher.reading().allows`); once more than `max_refused` of them (default
    `refusals_budget(k)`) have been refused, the full mask is computed instead. Other
    matchers (a worker's) have no single-token checks: their mask is read. `stats`, if
    given, receives the counts: candidates checked and refused, the answer's length, and
    whether the full mask was computed (`fallback`).
    """
    _check_k(k)
    n_vocab = len(matcher.vocab)
    numpy_like = _is_numpy_like(logits)
    values: Any = logits if numpy_like else _as_sequence(logits)
    _check_values(values, n_vocab)
    budget = refusals_budget(k) if max_refused is None else max_refused
    counts = {"checked": 0, "refused": 0, "allowed": 0, "fallback": 0}
    if stats is not None:
        stats.clear()
        stats.update(counts)
    if k == 0 or (isinstance(matcher, Matcher) and matcher.eos_consumed):
        return []
    allows = matcher.reading().allows if isinstance(matcher, Matcher) else None
    found: List[int] = []
    checked = refused = 0
    complete = allows is not None  # every candidate checked, or k found: no fallback
    if allows is not None:
        for batch in _batches(values, n_vocab, min(n_vocab, k + min(budget, refusals_budget(k)) + 1), numpy_like):
            for t in batch:
                if len(found) == k:
                    break
                checked += 1
                if allows(t):
                    found.append(t)
                else:
                    refused += 1
                    if refused > budget:
                        complete = False
                        break
            if len(found) == k or not complete:
                break
    if not complete:
        counts["fallback"] = 1
        found = _best_of_mask(matcher.mask().flags, values, k)
    counts["checked"], counts["refused"], counts["allowed"] = checked, refused, len(found)
    if stats is not None:
        stats.update(counts)
    return found


# -- candidates in score order ------------------------------------------------------------


def _batches(values: Any, n: int, wanted: int, numpy_like: bool) -> Iterator[List[int]]:
    """The token ids < n in score order (ties by the lower id), in batches: each batch
    holds the ids whose score lies in [threshold, previous threshold), sorted; the first
    aims at BATCH_FACTOR * `wanted` ids, later ones at four times the one before."""
    upper: Optional[float] = None  # scores >= upper were in earlier batches
    target = max(1, BATCH_FACTOR * wanted)
    seen = 0
    while seen < n:
        threshold = _threshold(values, n, target + seen, numpy_like)
        ids, scores = _between(values, n, threshold, upper, numpy_like)
        order = sorted(range(len(ids)), key=scores.__getitem__, reverse=True)  # stable: ids ascend
        yield [ids[i] for i in order]
        seen += len(ids)
        if threshold == -math.inf:
            return
        upper = threshold
        target *= 4


def _threshold(values: Any, n: int, count: int, numpy_like: bool) -> float:
    """A score such that about `count` of the first n scores are at or above it
    (-inf when count reaches n): from every SAMPLE_STRIDE-th score, or exactly for numpy."""
    if count >= n:
        return -math.inf
    if numpy_like:
        head = values[:n]
        part = head.copy()
        part.partition(n - count)
        return float(part[n - count])
    sample = sorted(values[0:n:SAMPLE_STRIDE], reverse=True)
    at = count // SAMPLE_STRIDE
    return float(sample[at]) if at < len(sample) else -math.inf


def _between(values: Any, n: int, low: float, high: Optional[float], numpy_like: bool) -> Tuple[List[int], List[float]]:
    """The ids < n (ascending) whose score s has low <= s < high, and their scores."""
    if numpy_like:
        head = values[:n]
        keep = head >= low
        if high is not None:
            keep &= head < high
        ids = keep.nonzero()[0]
        return ids.tolist(), head[ids].tolist()
    ids = list(compress(range(n), map(le, repeat(low), values)))
    if high is not None:
        ids = [i for i in ids if values[i] < high]
    return ids, [values[i] for i in ids]


def _best_of_mask(flags: bytearray, values: Any, k: int) -> List[int]:
    """The k best allowed ids of a mask's flags, ties by the lower id. On numpy scores,
    a stable sort of the allowed ones (numpy is already imported: the scores are its
    arrays). On other sequences: where a quarter of the tokens or fewer are allowed,
    their scores are sorted; where more are, the candidates come in score order from the
    logits (`_batches`) and the flags are read until k are found (a pass over the logits
    then costs less than sorting the allowed ones)."""
    n = len(flags)
    if _is_numpy_like(values):
        np = sys.modules[type(values).__module__.partition(".")[0]]
        allowed = np.flatnonzero(np.frombuffer(flags, dtype=np.uint8))
        scores = values[:n][allowed]
        if len(allowed) > k:  # only those at or above the k-th best score (all its ties)
            keep = scores >= np.partition(scores, len(allowed) - k)[len(allowed) - k]
            allowed, scores = allowed[keep], scores[keep]
        order = (-scores).argsort(kind="stable")[:k]  # stable: equal scores keep id order
        return allowed[order].tolist()
    if flags.count(1) * 4 <= n:
        ids = _allowed_ids(flags)
        scores = [values[i] for i in ids]
        best = heapq.nlargest(k, range(len(ids)), key=scores.__getitem__)  # stable, too
        return [ids[i] for i in best]
    found: List[int] = []
    for batch in _batches(values, n, min(n, max(2 * k, n // 256)), False):
        for t in batch:
            if flags[t]:
                found.append(t)
                if len(found) == k:
                    return found
    return found


def _allowed_ids(flags: bytearray) -> List[int]:
    """The set flags' indices, ascending."""
    out, i = [], flags.find(1)
    while i >= 0:
        out.append(i)
        i = flags.find(1, i + 1)
    return out


# -- logits -------------------------------------------------------------------------------


def _check_k(k: int) -> None:
    if not isinstance(k, int) or isinstance(k, bool):
        raise TypeError("top_k: k must be an int, not %s" % type(k).__name__)
    if k < 0:
        raise ValueError("top_k: k must be >= 0, not %d" % k)


def _is_numpy_like(logits: Any) -> bool:
    return hasattr(logits, "argpartition") and hasattr(logits, "nonzero") and hasattr(logits, "tolist")


def _as_sequence(logits: Any) -> Sequence[float]:
    """Lists, tuples and arrays as they are (indexable, sliceable); other iterables listed."""
    if isinstance(logits, (list, tuple)) or (hasattr(logits, "typecode") and hasattr(logits, "__getitem__")):
        return logits
    return list(logits)


def _check_values(values: Any, n_vocab: int) -> None:
    """At least one score per token (more is allowed: a model's output layer may be
    padded past the vocabulary), one dimension, no NaN."""
    if _is_numpy_like(values) and getattr(values, "ndim", 1) != 1:
        raise ValueError("top_k: logits must be one-dimensional, not of shape %r" % (values.shape,))
    if len(values) < n_vocab:
        raise ValueError("top_k: %d logits for a vocabulary of %d tokens" % (len(values), n_vocab))
    total = values.sum() if _is_numpy_like(values) else sum(values)
    if total != total:  # a sum is NaN when some value is (or when inf and -inf are both there)
        at = _nan_at(values)
        if at is not None:
            raise ValueError("top_k: logits[%d] is NaN" % at)


def _nan_at(values: Any) -> Optional[int]:
    if _is_numpy_like(values):
        where = (values != values).nonzero()[0]
        return int(where[0]) if len(where) else None
    for i, x in enumerate(values):
        if x != x:
            return i
    return None
