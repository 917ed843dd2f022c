"""lm-format-enforcer's TokenEnforcer driven on refimpl's vocabulary, for regexes (its
RegexParser, on interegular) and JSON schemas (its JsonSchemaParser).

lm-format-enforcer works on decoded *strings*: a character-level parser walks a prefix
tree of the tokens' strings. This gives it the vocabulary as its transformers
integration does for a byte-level tokenizer (`build_token_enforcer_tokenizer_data`):
every ordinary token (not special, not EOS) as (id, its bytes decoded as UTF-8 with
U+FFFD for what is not UTF-8, not a new-word token), a decoder that decodes the bytes of
a list of ids the same way and drops the U+FFFD that an incomplete last character
decodes to (the integration's `rstrip('�')`), and the vocabulary's EOS ids. So the
parser sees the text of the tokens consumed so far, one character at a time, and a token
whose bytes are not whole UTF-8 is offered to it as U+FFFD. The differences that follow
from this reading, and from lm-format-enforcer's own choices, are declared in
differences/, each over a predicate that replays refimpl on lm-format-enforcer's reading
of the text (reading.py).

The enforcer has no consume: it answers `get_allowed_tokens(sequence)` for a token
sequence that extends one it has seen. The session keeps the sequence; a token is
consumed iff the enforcer's mask allows it; EOS ends the output (the mask is then
empty, as maskref's). The package's core needs neither torch nor transformers
(`use_bitmask=False`; torch is imported only if present), only interegular, pydantic,
pyyaml and packaging.
"""
from __future__ import annotations

import logging
from typing import Any, Dict, List, Sequence

from refimpl import Vocabulary

from ...engine import Session
from ...vectors import GrammarSpec, NotSupported, Refused, bitmask_from_ids, bitmask_len, vocab_hash
from .reading import decoded_text, token_string

KINDS = ("regex", "json_schema")

_TOKENIZER_DATA: Dict[str, Any] = {}


class _Problems(logging.Handler):
    """Records the enforcer's log: when its parser raises, it logs "Unknown
    LMFormatEnforcer Problem" and allows only EOS (TokenEnforcer._compute_allowed_tokens);
    the session reports that as its note. Installed on the root logger, it also keeps
    logging.basicConfig from printing the traceback."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: List[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage().splitlines()[0]
        if record.exc_info and record.exc_info[1] is not None:
            text += " (%s: %s)" % (type(record.exc_info[1]).__name__, record.exc_info[1])
        self.messages.append(text)


_PROBLEMS = _Problems()


class LmfeSession(Session):
    """The token sequence so far and the enforcer that answers for it."""

    def __init__(self, enforcer: Any, n_tokens: int, eos: Sequence[int]) -> None:
        if _PROBLEMS not in logging.getLogger().handlers:
            logging.getLogger().addHandler(_PROBLEMS)
        self.enforcer = enforcer
        self.n = n_tokens
        self.eos = set(eos)
        self.sequence: List[int] = []
        self.ended = False

    def allowed(self) -> List[int]:
        del _PROBLEMS.messages[:]
        out = list(self.enforcer.get_allowed_tokens(self.sequence).allowed_tokens)
        self.note = "parser-error: " + _PROBLEMS.messages[0] if _PROBLEMS.messages else None
        return out

    def mask(self) -> bytes:
        if self.ended:
            return bytes(bitmask_len(self.n))
        return bitmask_from_ids(self.allowed(), self.n)

    def consume(self, token: int) -> bool:
        if self.ended or token not in self.allowed():
            return False
        if token in self.eos:
            self.ended = True
        else:
            self.sequence.append(token)
        return True


def tokenizer_data(vocab: Vocabulary) -> Any:
    """lm-format-enforcer's TokenEnforcerTokenizerData for the vocabulary (see the module
    docstring; kept per vocabulary, by its content)."""
    key = vocab_hash(vocab)
    data = _TOKENIZER_DATA.get(key)
    if data is None:
        from lmformatenforcer import TokenEnforcerTokenizerData

        tokens = vocab.tokens
        regular = [(t, token_string(b), False) for t, b in enumerate(tokens)
                   if t not in vocab.special_token_ids and t not in vocab.eos_token_ids]

        def decode(ids: List[int]) -> str:
            return decoded_text(b"".join(tokens[t] for t in ids))

        if len(_TOKENIZER_DATA) > 8:
            _TOKENIZER_DATA.clear()
        try:
            data = TokenEnforcerTokenizerData(regular, decode, list(vocab.eos_token_ids), False, len(tokens))
        except AssertionError as e:  # its JSON free-text list asserts that some token fits in a string
            raise NotSupported("lm-format-enforcer cannot take the vocabulary: %s" % e) from e
        _TOKENIZER_DATA[key] = data
    return data


def parser(spec: GrammarSpec) -> Any:
    """The character-level parser for a spec (NotSupported where lm-format-enforcer has
    none, or refuses the grammar)."""
    from lmformatenforcer import JsonSchemaParser, RegexParser

    try:
        if spec.kind == "regex":
            return RegexParser(spec.source)
        if spec.kind == "json_schema":
            if spec.options:
                raise NotSupported("lm-format-enforcer has no options %s" % sorted(spec.options))
            return JsonSchemaParser(spec.schema)
    except NotSupported:
        raise
    except Exception as e:  # interegular's and pydantic's errors for what they cannot read
        raise Refused("lm-format-enforcer cannot compile the %s: %s: %s" % (
            spec.kind, type(e).__name__, str(e).splitlines()[0][:160] if str(e) else "")) from e
    raise NotSupported("lm-format-enforcer has no %s grammars" % spec.kind)


def start(spec: GrammarSpec, vocab: Vocabulary) -> LmfeSession:
    """A session at the start of a regex or JSON schema."""
    if spec.kind not in KINDS:
        raise NotSupported("lm-format-enforcer has no %s grammars" % spec.kind)
    if not vocab.eos_token_ids:
        raise NotSupported("lm-format-enforcer needs an EOS token")
    from lmformatenforcer import TokenEnforcer

    enforcer = TokenEnforcer(tokenizer_data(vocab), parser(spec))
    return LmfeSession(enforcer, len(vocab), vocab.eos_token_ids)
