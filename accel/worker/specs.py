"""What the client sends a worker: a Grammar, a vocabulary and limits as the protocol
describes them (docs/protocol.md, "create"), and the checks that a grammar can be sent
at all (only grammars a frontend built from source text can be rebuilt by the worker).
"""
from __future__ import annotations

import dataclasses
import json
import weakref
from typing import Any, Dict, List, Tuple

from refimpl.errors import MaskrefError
from refimpl.frontends.grammar import Grammar
from refimpl.frontends.jsontext import JsonTextError, read_json
from refimpl.limits import DEFAULT_LIMITS, Limits
from refimpl.regex import to_string
from refimpl.tokens.vocab import Vocabulary

from .errors import WorkerUnsupported

SENDABLE_KINDS = ("regex", "lark", "json_schema", "llguidance", "gbnf", "ebnf")


_SPECS: "weakref.WeakKeyDictionary[Any, Dict[str, Any]]" = weakref.WeakKeyDictionary()


def grammar_spec(grammar: Any) -> Dict[str, Any]:
    """The protocol's description of a Grammar: its frontend and source text."""
    try:
        return _SPECS[grammar]
    except (KeyError, TypeError):
        pass
    spec = _grammar_spec(grammar)
    try:
        _SPECS[grammar] = spec
    except TypeError:  # not weakly referenceable
        pass
    return spec


def _grammar_spec(grammar: Any) -> Dict[str, Any]:
    kind = getattr(grammar, "kind", None)
    if kind not in SENDABLE_KINDS:
        raise WorkerUnsupported(
            "a Grammar of kind %r cannot be sent to a worker: only grammars made by a frontend "
            "from source text (%s) can; build it with Grammar.from_regex / from_lark / from_json_schema / "
            "from_llguidance / from_gbnf / from_ebnf"
            % (kind, ", ".join(SENDABLE_KINDS))
        )
    source = grammar.source
    if not isinstance(source, str):  # a JSON schema given as a dict
        source = json.dumps(source)
    spec: Dict[str, Any] = {"kind": kind, "text": source}
    options = getattr(grammar, "options", None)
    if isinstance(options, dict) and options:
        spec["options"] = options
    if kind == "json_schema":
        _check_json_schema_source(grammar, source, options is None)
    return spec


def _check_json_schema_source(grammar: Any, source: str, rebuild: bool) -> None:
    """A JSON-schema Grammar whose `source` is only a display of the schema (cut short),
    or that does not record its options, would be rebuilt differently by the worker: make
    sure its source is whole JSON and (without recorded options) rebuilds the same
    grammar, or refuse to send it."""
    try:
        end = read_json(source, 0)[1]  # no recursion on deep schemas
        same = not source[end:].strip(" \t\n\r")
    except JsonTextError:
        same = False
    if same and rebuild and getattr(grammar, "ir", None) is not None:
        try:
            same = _fingerprint(Grammar.from_json_schema(source, limits=grammar.limits)) == _fingerprint(grammar)
        except MaskrefError:
            same = False
    if not same:
        raise WorkerUnsupported(
            "this JSON-schema Grammar cannot be sent to a worker: its source (%d characters%s) "
            "does not rebuild the same grammar (it was built with options, or from a dict "
            "whose source text was cut short); build it with Grammar.from_json_schema(<JSON text>) "
            "and no options" % (len(source), ", ending %r" % source[-12:] if source.endswith("...") else "")
        )


def _fingerprint(grammar: Any) -> Tuple[Any, ...]:
    """What the language of a compiled grammar depends on, as comparable text: the rules,
    the lexemes' regexes (printed), the %ignore lexemes and the lexing flags."""
    ir = grammar.ir
    return (
        ir.to_text(),
        [(x.name, to_string(ir.es, x.expr), x.lazy, x.lexeme_class) for x in ir.lexemes],
        sorted((c, to_string(ir.es, e)) for c, e in ir.ignores.items()),
        ir.allow_initial_skip,
        ir.allow_invalid_utf8,
    )


_GPT2: List[Vocabulary] = []


def is_embedded_gpt2(vocab: Vocabulary) -> bool:
    """Is `vocab` exactly the embedded GPT-2 vocabulary (so a worker can load it by name)?"""
    if vocab.name != "gpt2" or len(vocab) != 50257:
        return False
    if not _GPT2:
        _GPT2.append(Vocabulary.load("gpt2"))
    ref = _GPT2[0]
    return (
        vocab.tokens == ref.tokens
        and vocab.eos_token_ids == ref.eos_token_ids
        and vocab.special_token_ids == ref.special_token_ids
    )


def vocabulary_spec(vocab: Vocabulary) -> Dict[str, Any]:
    """The protocol's description of a vocabulary, inline (tokens as hex; a padded one's
    width as `vocab_size`)."""
    spec: Dict[str, Any] = {
        "name": vocab.name,
        "tokens_hex": [t.hex() for t in vocab.tokens[: vocab.padding_ids.start]],
        "eos_token_ids": list(vocab.eos_token_ids),
        "special_token_ids": sorted(vocab.special_token_ids),
    }
    if vocab.padding_ids:
        spec["vocab_size"] = len(vocab)
    return spec


def limits_spec(limits: Limits) -> Dict[str, int]:
    """The limits that differ from the defaults."""
    default = dataclasses.asdict(DEFAULT_LIMITS)
    return {k: v for k, v in dataclasses.asdict(limits).items() if default.get(k) != v}
