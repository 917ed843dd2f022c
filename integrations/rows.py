"""The bookkeeping every logits-processor adapter shares, on plain lists (no torch).

A logits processor is called once per decoding step with the tokens of each sequence so
far and the model's scores for the next token. It must turn "the tokens so far" into a
matcher state, and the matcher's mask into the scores. This module does the first half:

- `RowState`: one sequence. It keeps the tokens its matcher has consumed; `sync(tokens)`
  brings the matcher to `tokens` by consuming what is new, and, where the sequence is not
  an extension of what was consumed (a beam reordered, a draft rejected), by rolling back
  to the common prefix first. After an EOS token the row is *finished*: what follows (the
  generator's padding) is not the grammar's business and is not consumed.
- `Rows`: rows by key (the batch index, or a request id), each created when first seen.
- `pack(rows, width)`: per-row flags, each padded with zeros to the model's width, as one
  buffer (row-major) that a tensor library reads without copying (`torch.frombuffer`).

The adapters (integrations/transformers.py, integrations/vllm.py) add only the tensors.

>>> from refimpl import Grammar, Vocabulary
>>> vocab = Vocabulary.from_bytes([b"<eos>", b"a", b"b", b"ab"], eos_token_id=0)
>>> row = RowState(Grammar.from_regex("ab"), vocab)
>>> list(row.flags())                 # "a" or "ab" may come first
[0, 1, 0, 1]
>>> list(row.flags([0.0, 1.0, 9.0, 2.0], top_k=1))   # the best allowed: "b" scores more, but is refused
[0, 0, 0, 1]
>>> row.sync([1]); list(row.flags())  # after "a": only "b"
[0, 0, 1, 0]
>>> row.sync([1, 2, 0, 0, 0]); row.finished, row.consumed   # EOS; the padding after it is ignored
(True, [1, 2, 0])
>>> list(row.flags())                 # a finished row allows EOS only (the generator pads with it)
[1, 0, 0, 0]
>>> row.sync([3]); row.finished, list(row.flags())          # another sequence: rolled back, "ab" consumed
(False, [1, 0, 0, 0])
>>> bytes(pack([bytearray(b"\\x01\\x00"), bytearray(b"\\x00\\x01")], 3))
b'\\x01\\x00\\x00\\x00\\x01\\x00'
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Hashable, List, Optional, Sequence, Union

from refimpl import Grammar, MaskrefError, MatcherLike, Vocabulary, open_matcher
from refimpl.decoding import top_k as refimpl_top_k


class GenerationError(MaskrefError, ValueError):
    """The tokens a processor is shown do not fit its grammar or its vocabulary: a token
    the grammar refuses (the mask was not applied, or another processor changed the
    choice), a state with no allowed token, or a model narrower than the vocabulary."""


class RowState:
    """One sequence's matcher (opened on first use) and the tokens it has consumed.

    `backend` and `options` go to `refimpl.open_matcher` (e.g. backend="native",
    mask_cache=True). `name` says which row an error is about.
    """

    def __init__(self, grammar: Grammar, vocab: Vocabulary, *, backend: str = "python", name: str = "row",
                 **options: Any) -> None:
        self.grammar = grammar
        self.vocab = vocab
        self.backend = backend
        self.options = options
        self.name = name
        self.consumed: List[int] = []  # the tokens the matcher has consumed, EOS included
        self.finished = False  # an EOS token was consumed: nothing after it is read
        self._matcher: Optional[MatcherLike] = None
        self._eos = frozenset(vocab.eos_token_ids)

    @property
    def matcher(self) -> MatcherLike:
        """The row's matcher, opened when first needed."""
        if self._matcher is None:
            self._matcher = open_matcher(self.grammar, self.vocab, backend=self.backend, **self.options)
        return self._matcher

    def sync(self, tokens: Sequence[int]) -> None:
        """Bring the matcher to the state after `tokens` (the sequence's generated tokens,
        without the prompt). Tokens after an EOS are ignored. Raises GenerationError
        naming the row, the position and the token when the grammar refuses a token; the
        tokens before it stay consumed."""
        consumed = self.consumed
        n = len(consumed)
        if len(tokens) >= n and list(tokens[:n]) == consumed:
            common = n  # the usual case: the same sequence, perhaps longer
        else:
            common = _common_prefix(consumed, tokens)
        if common < n:
            self.matcher.rollback(n - common)
            del consumed[common:]
            self.finished = False
        if self.finished:
            return
        matcher, eos = self.matcher, self._eos
        for position in range(common, len(tokens)):
            t = tokens[position]
            if not matcher.consume(t):
                raise GenerationError(
                    "%s: token %d (%r) at generated position %d is not allowed by the grammar after %r; "
                    "was the mask applied to the scores this token was chosen from?"
                    % (self.name, t, self._token_text(t), position, self.vocab.decode(consumed)[-40:]))
            consumed.append(t)
            if t in eos:
                self.finished = True
                return

    def flags(self, logits: Optional[Sequence[float]] = None, top_k: Optional[int] = None) -> bytearray:
        """The allowed tokens, one 0/1 byte per token id of the vocabulary. A finished row
        allows its EOS tokens only (generators pad finished rows with EOS, and an all-masked
        row would make sampling divide by zero).

        With `top_k`, only the k best allowed tokens by `logits` (ties by the lower id):
        the same set as the full mask's k best, found by single-token checks where the
        matcher is refimpl's own and that pays (refimpl/decoding/topk.py)."""
        if self.finished:
            out = bytearray(len(self.vocab))
            for t in self._eos:
                out[t] = 1
            return out
        if top_k is None:
            flags = self.matcher.mask().flags
        else:
            if logits is None:
                raise ValueError("top_k needs the logits")
            best = refimpl_top_k(self.matcher, logits, top_k)
            flags = bytearray(len(self.vocab))
            for t in best:
                flags[t] = 1
        if flags.find(1) < 0:
            if self.grammar.is_empty:
                raise GenerationError("%s: no token is ever allowed: the grammar's language is empty (no text "
                                      "matches it)" % self.name)
            raise GenerationError(
                "%s: no token is allowed after %r (the grammar cannot go on, and may not end, here)"
                % (self.name, self.vocab.decode(self.consumed)[-40:]))
        return flags

    def text(self) -> bytes:
        """The bytes of the consumed tokens, EOS left out."""
        return self.vocab.decode(t for t in self.consumed if t not in self._eos)

    def close(self) -> None:
        """Release the matcher (a worker backend's session)."""
        if self._matcher is not None:
            self._matcher.close()
            self._matcher = None

    def _token_text(self, t: int) -> Union[bytes, str]:
        return self.vocab.tokens[t] if 0 <= t < len(self.vocab) else "not in the vocabulary"


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """The length of the longest common prefix of a and b."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


class Rows:
    """Row states by key (a batch index or a request id), created when a key is first seen.

    `grammar` is one Grammar for every row, or a function from a key to its Grammar (a
    batch whose rows follow different grammars).

    With `mask_cache=True`, the rows of one grammar share its mask cache (refimpl's
    maskcache.py: the cache is the grammar's, per vocabulary), so a state one row met is a
    hit for the others.

    >>> from refimpl import Grammar, Vocabulary
    >>> vocab = Vocabulary.from_bytes([b"<eos>", b"a", b"b"], eos_token_id=0)
    >>> rows = Rows(Grammar.from_regex("a+"), vocab)
    >>> [list(f) for f in rows.flags([[], [1], [1, 0]])]
    [[0, 1, 0], [1, 1, 0], [1, 0, 0]]
    >>> rows.finished(), sorted(rows.states)
    ([False, False, True], [0, 1, 2])
    >>> rows.release(2); sorted(rows.states)
    [0, 1]
    """

    def __init__(self, grammar: Union[Grammar, Callable[[Hashable], Grammar]], vocab: Vocabulary, *,
                 backend: str = "python", **options: Any) -> None:
        self.grammar_of: Callable[[Hashable], Grammar] = (
            (lambda key: grammar) if isinstance(grammar, Grammar) else grammar)
        self.vocab = vocab
        self.backend = backend
        self.options = options
        self.states: Dict[Hashable, RowState] = {}
        self._order: List[Hashable] = []  # the keys of the last call, in row order

    def state(self, key: Hashable) -> RowState:
        """The row state of `key`, created if new."""
        st = self.states.get(key)
        if st is None:
            st = RowState(self.grammar_of(key), self.vocab, backend=self.backend, name="row %r" % (key,),
                          **self.options)
            self.states[key] = st
        return st

    def flags(self, tokens: Sequence[Sequence[int]], keys: Optional[Sequence[Hashable]] = None, *,
              logits: Optional[Sequence[Sequence[float]]] = None, top_k: Optional[int] = None) -> List[bytearray]:
        """Each row's allowed tokens after its generated `tokens` (row i has key keys[i],
        or i when no keys are given); with `top_k`, only the k best of them by the row's
        `logits` (RowState.flags)."""
        if keys is None:
            keys = range(len(tokens))
        elif len(keys) != len(tokens):
            raise ValueError("%d keys for %d rows" % (len(keys), len(tokens)))
        if top_k is not None and (logits is None or len(logits) != len(tokens)):
            raise ValueError("top_k needs one row of logits per row of tokens")
        self._order = list(keys)
        out = []
        for i, (key, row) in enumerate(zip(keys, tokens)):
            st = self.state(key)
            st.sync(row)
            out.append(st.flags(logits[i] if logits is not None else None, top_k))
        return out

    def finished(self) -> List[bool]:
        """For each row of the last call: has it produced EOS?"""
        return [self.states[k].finished for k in self._order]

    def release(self, key: Hashable) -> None:
        """Forget a row (a finished request), closing its matcher."""
        st = self.states.pop(key, None)
        if st is not None:
            st.close()

    def close(self) -> None:
        """Release every row."""
        for key in list(self.states):
            self.release(key)


def pack(rows: Sequence[Union[bytes, bytearray]], width: int) -> bytearray:
    """The rows' flags, each padded with zeros to `width` (a model's logits may be wider
    than its tokenizer's vocabulary: the ids beyond are never allowed), as one row-major
    buffer of len(rows) * width bytes. A row wider than `width` is an error: the model
    could not produce the tokens beyond its width, and dropping them would change the
    grammar's language without saying so."""
    out = bytearray()
    for i, flags in enumerate(rows):
        if len(flags) > width:
            raise GenerationError(
                "row %d: the vocabulary has %d tokens but the model's scores only %d: use the model's own "
                "tokenizer vocabulary" % (i, len(flags), width))
        out += flags
        out += bytes(width - len(flags))
    return out
