"""llama.cpp's known differences from maskref, each declared over its predicate
(docs/conformance.md lists them; docs/findings.md, N1-N8), tried in the order declared:
on GBNF its reading of UTF-8, NUL and control tokens and its bugs; on JSON schemas the
converter's GBNF (`converted-schema`) and the raw control characters it lets into strings."""
from __future__ import annotations

from typing import Optional

from refimpl import Grammar, MaskrefError
from refimpl.frontends.ebnf.compiler import compile_rules
from refimpl.frontends.ebnf.gbnf import read_rules as gbnf_rules
from refimpl.regex import ExprSet

from ...differences import AFTER_EOS, LENIENT_SCHEMA, KnownDifferences, answers_as
from ...divergence import Divergence, compiled, utf8_prefix
from ...isolation import timed_out
from ...readings.converted_schemas import answers_as_converted, raw_controls_converted
from ...readings.grammar_shapes import has_cycle, let_unproductive_rules_stop, rule_edges
from ...vectors import GrammarSpec, NotSupported
from .reading import gbnf_of, root_of
from .session import model

KNOWN_DIFFERENCES = KnownDifferences(AFTER_EOS, LENIENT_SCHEMA)


@KNOWN_DIFFERENCES.declare(
    "not-utf8", "peer-bug",
    "llama.cpp allows a token after which the text cannot be UTF-8: its partial-UTF-8 decoder reads "
    "the bytes F5-FF as the lead of a four-byte character (negated classes and `.` then take it)",
    cites=("llama.cpp's GBNF (https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md) (grammars "
           'match UTF-8 text); RFC 3629 (UTF-8) §3: F5-FF never appear in UTF-8 '
           '(https://www.rfc-editor.org/rfc/rfc3629#section-3)'))
def not_utf8(d: Divergence) -> bool:
    """llama.cpp allows tokens after which the text cannot be UTF-8 (its partial-UTF-8
    decoding takes F5–FF as lead bytes): every differing token is such a token of its."""
    text = d.text()
    return (d.error is None and d.refused is None and not d.only_refimpl and bool(d.only_engine)
            and all(not utf8_prefix(text + d.vocab.tokens[t]) for t in d.only_engine))


@KNOWN_DIFFERENCES.declare(
    "nul-first", "semantic",
    "llama.cpp's grammar sampler refuses a token whose first byte is NUL (it reads pieces as C strings)")
def nul_first(d: Divergence) -> bool:
    """llama.cpp's grammar sampler refuses every token whose first byte is NUL."""
    return (d.error is None and d.refused is None and not d.only_engine and bool(d.only_refimpl)
            and all(d.vocab.tokens[t][:1] == b"\0" for t in d.only_refimpl))


@KNOWN_DIFFERENCES.declare(
    "control-tokens-as-text", "semantic",
    "llama.cpp's grammar matches the text of control (special) tokens; maskref never matches a special token's text")
def control_as_text(d: Divergence) -> bool:
    """llama.cpp's grammar matches a control token's text; maskref never matches a special
    token's text. Every differing token is special (not EOS) in refimpl's vocabulary."""
    special = set(d.vocab.special_token_ids) - set(d.vocab.eos_token_ids)
    return d.error is None and d.refused is None and bool(d.differing()) and all(t in special for t in d.differing())


@KNOWN_DIFFERENCES.declare(
    "hidden-left-recursion", "peer-bug",
    "llama.cpp refuses left recursion, but not left recursion through a nullable prefix "
    "(`root ::= x root \"a\" | \"b\"` with `x ::= \"c\"?`): building its sampler then never returns",
    ends_path=True,
    cites=("llama.cpp's GBNF (https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md); a grammar "
           'the format accepts must be compiled and answered, not crash or hang'))
def hidden_left_recursion(d: Divergence, space: Optional[str] = None) -> bool:
    """llama.cpp did not answer (a PeerTimeout) on a grammar where a rule derives itself at
    its left through a nullable prefix, which its left-recursion check does not see."""
    if not timed_out(d):
        return False
    rules = gbnf_rules(gbnf_of(d.grammar, space))
    return has_cycle(rule_edges(rules, ExprSet(), left=True))


@KNOWN_DIFFERENCES.declare(
    "raw-control-characters", "peer-bug",
    "llama-cpp-python's JSON-schema converter writes a string character as [^\"\\\\]: raw control "
    "characters, newlines among them, are allowed in strings (invalid JSON)",
    cites=('RFC 8259 (JSON) §7 Strings: control characters U+0000-U+001F must be escaped; any character may be '
           'escaped (https://www.rfc-editor.org/rfc/rfc8259)'))
def raw_control_characters(d: Divergence, space: Optional[str] = None) -> bool:
    """Only llama.cpp allows the differing tokens, each puts a raw control character
    (U+0000-U+001F) into a string, and the converter's GBNF allows them."""
    return raw_controls_converted(d, space)


@KNOWN_DIFFERENCES.declare(
    "converted-schema", "semantic",
    "llama-cpp-python turns a JSON schema into its own GBNF (json_schema_to_gbnf): at most one space "
    "between JSON tokens, objects closed unless additionalProperties says otherwise, minimum and "
    "maximum ignored, integer, fraction and exponent parts of at most 16 digits and exponents "
    "without leading zeros, \\/ and any \\uXXXX allowed, ...; the differing tokens are exactly "
    "those refimpl answers differently on that GBNF")
def converted_schema(d: Divergence, space: Optional[str] = None) -> bool:
    """The sampler answers as refimpl does on the GBNF the converter made of the schema
    (its whitespace rule `space`: reading.gbnf_of)."""
    return answers_as_converted(d, space)


@KNOWN_DIFFERENCES.declare(
    "unproductive-prefixes", "peer-bug",
    "llama.cpp allows the prefixes of a rule that derives no string: with `root ::= r1 | \"a\"` and "
    "`r1 ::= \"b\" r1` it allows `b`, though no output can then end",
    ends_path=True,
    cites=("llama.cpp's GBNF (https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md): a rule "
           'that derives no string adds none to the language'))
def unproductive_prefixes(d: Divergence, space: Optional[str] = None) -> bool:
    """No EOS differs, and refimpl answers as llama.cpp once every rule that derives no
    string may stop (llama.cpp keeps stacks that can never finish)."""
    if any(t in d.vocab.eos_token_ids for t in d.differing()):
        return False
    try:
        source = gbnf_of(d.grammar, space)
    except NotSupported:
        return False
    rules = gbnf_rules(source)
    if not let_unproductive_rules_stop(rules):
        return False
    return answers_as(d, Grammar(compile_rules(rules, root_of(d.grammar), source), "gbnf", source))


@KNOWN_DIFFERENCES.declare(
    "no-answer", "peer-bug",
    "llama.cpp did not answer a mask or a consume within 30 s on an ambiguous grammar without left "
    "recursion (its stacks multiply; `root ::= (\"ab\"{1,2} | (\"ba\"{0,1} [é-ê] root{0,1} | ([é-ê]?){0,1})+ "
    "| [^a] root{2} root* [a-b])` after `indcc`); refimpl answers at once",
    ends_path=True,
    cites=("llama.cpp's GBNF (https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md); a grammar "
           'the format accepts must be compiled and answered, not crash or hang'))
def no_answer(d: Divergence) -> bool:
    return timed_out(d)


@KNOWN_DIFFERENCES.declare(
    "end-of-generation-by-text", "semantic",
    "llama.cpp makes tokens whose text is a known end-of-turn marker (e.g. <|eot_id|>) end-of-generation "
    "tokens, allowed where the grammar may end and never matched as text")
def ends_generation(d: Divergence, space: Optional[str] = None) -> bool:
    """Every differing token is one llama.cpp calls end-of-generation (though not EOS in
    refimpl's vocabulary): allowed by llama.cpp where the grammar it runs may end, and
    refused (as text) where it may not."""
    import llama_cpp

    if d.error is not None or d.refused is not None or not d.differing():
        return False
    lvocab = llama_cpp.llama_model_get_vocab(model(d.vocab))
    if not all(llama_cpp.llama_vocab_is_eog(lvocab, t) for t in d.differing()):
        return False
    from refimpl.recognition.recognizer import Recognizer

    try:
        g = compiled(GrammarSpec("gbnf", gbnf_of(d.grammar, space), options={"root": d.grammar.options.get("root", "root")}
                                 if d.grammar.kind == "gbnf" else None))
    except (NotSupported, MaskrefError):
        return False
    r = Recognizer(g.compiled, g.limits)
    ends = r.consume_bytes(d.text()) and r.is_accepting()
    return (not d.only_engine or ends) and (not d.only_refimpl or not ends)
