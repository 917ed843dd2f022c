"""transformers-cfg's grammar constraint (IncrementalGrammarConstraint), on the same token
bytes as refimpl, for GBNF grammars (its EBNF is llama.cpp's GBNF, read by its own parser).

transformers-cfg reads tokens through a Hugging Face tokenizer: the adapter builds a
byte-level BPE tokenizer (`tokenizers`, wrapped as transformers' GPT2TokenizerFast, the
class transformers-cfg maps byte-level tokens for) whose tokens are the vocabulary's bytes
in GPT-2's byte-to-unicode spelling; EOS and special tokens are special tokens with
placeholder texts (transformers-cfg leaves every special token out of its trie and reads it
as no text). transformers-cfg's own GPT-2 mapping loads GPT-2's slow tokenizer from the Hub
for its byte table, which transformers 5 no longer has, so the adapter gives its
TokenizerMiddleMapping and ByteTrie that table itself (the same GPT-2 table), built as its
`ByteTrie.from_tokenizer` builds them. transformers-cfg has one EOS id, the tokenizer's:
the vocabulary's first EOS.

The mask is `filter_vocab`'s acceptance tensor after the tokens so far; consuming a token
is `_update_state_with_token_id` (its stacks advanced by the token's bytes), refused when no
stack survives (or, for EOS, when its `can_stop` says no).
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.frontends.ebnf.ast import ANY_CHAR, Alt, Chars, Node, Ref, Repeat, Seq, Token, children
from refimpl.frontends.ebnf.compiler import compile_rules
from refimpl.frontends.ebnf.gbnf import parse_rules as gbnf_rules
from refimpl.regex import unicode as uni

from ..differences import AFTER_EOS, KnownDifference
from ..divergence import Divergence, compiled, utf8_prefix
from ..engine import Engine, Session
from ..isolation import timed_out
from ..vectors import GrammarSpec, NotSupported, bitmask_from_ids, bitmask_len, vocab_hash
from ..readings.grammar_shapes import Rewrite, has_cycle, let_unproductive_rules_stop, rewrite
from ..readings.byte_level import BYTE_TO_CHAR, byte_level_text


def _placeholder(t: int) -> str:
    return "<special %d>" % t


def hf_tokenizer(vocab: Vocabulary) -> Any:
    """A GPT2TokenizerFast whose token t is vocab.tokens[t] in GPT-2's byte-to-unicode
    spelling (EOS and special tokens: special tokens named by placeholders)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
    from transformers import GPT2TokenizerFast

    special = set(vocab.eos_token_ids) | set(vocab.special_token_ids)
    texts: Dict[str, int] = {}
    for t, data in enumerate(vocab.tokens):
        text = _placeholder(t) if t in special else byte_level_text(data)
        if text in texts:
            raise NotSupported("transformers-cfg reads tokens through an HF tokenizer, whose vocabulary maps a "
                               "text to one id: tokens %d and %d have the same bytes" % (texts[text], t))
        texts[text] = t
    model = Tokenizer(models.BPE(vocab=texts, merges=[]))
    model.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    model.decoder = decoders.ByteLevel()
    model.add_special_tokens([AddedToken(_placeholder(t), special=True) for t in sorted(special)])
    eos = list(vocab.eos_token_ids)
    others = [_placeholder(t) for t in sorted(special) if t != eos[0]]
    return GPT2TokenizerFast(tokenizer_object=model, eos_token=_placeholder(eos[0]), unk_token=None, bos_token=None,
                             extra_special_tokens=others)


class _Peer:
    """transformers-cfg's view of one vocabulary: the tokenizer, its token-to-bytes
    mapping and its byte trie."""

    def __init__(self, vocab: Vocabulary) -> None:
        from transformers_cfg.tokenization.byte_trie import ByteTrie
        from transformers_cfg.tokenization.middle.ByteProxyMapping import ByteProxyMapping
        from transformers_cfg.tokenization.middle.TokenizerMiddleMapping import (GPT2TokenizerMiddleMapping,
                                                                                 TokenizerMiddleMapping)
        from transformers_cfg.tokenization.tokenizer import TCFG_Tokenizer

        self.tokenizer = tok = hf_tokenizer(vocab)
        if len(tok.get_vocab()) != len(vocab) or tok.eos_token_id != vocab.eos_token_ids[0]:
            raise NotSupported("the HF tokenizer does not hold the vocabulary's %d tokens" % len(vocab))
        proxy = ByteProxyMapping.__new__(ByteProxyMapping)  # its __init__ loads GPT-2 from the Hub
        proxy.byte2proxychar = dict(BYTE_TO_CHAR)
        proxy.proxychar2byte = {c: b for b, c in BYTE_TO_CHAR.items()}
        proxy.cdp2byte = {ord(c): b for c, b in proxy.proxychar2byte.items()}
        proxy.byte2cdp = {b: c for c, b in proxy.cdp2byte.items()}
        proxy.PROXY_CDP_SET = set(proxy.cdp2byte)
        mapping = GPT2TokenizerMiddleMapping.__new__(GPT2TokenizerMiddleMapping)
        TokenizerMiddleMapping.__init__(mapping, tok)
        mapping.byte_proxy_mapper = proxy
        self.mapping = mapping
        # as ByteTrie.from_tokenizer: every token but the special ones, by its bytes
        trie = ByteTrie()
        excluded = TCFG_Tokenizer.from_hf_tokenizer(tok).get_special_token_ids_to_excluded()
        for t in range(len(tok.vocab)):
            if t not in excluded:
                trie.insert(mapping.map(t), t)
        trie.vocab_size = len(tok.get_vocab())
        self.trie = trie

    def token_bytes(self, t: int) -> bytes:
        return bytes(self.mapping.map(t))


# ----------------------------------------------------------------------------- readings
#
# Most of transformers-cfg's differences are a different reading of the same grammar text
# or of the same token bytes. A known difference's predicate re-derives the peer's answer
# for every differing token with refimpl under exactly that one reading (the grammar as
# the peer reads one construct, or the token's bytes as the peer's mask reads them), and
# recognises the divergence only if that reading gives the peer's answer for every token.

Rules = Dict[str, Node]


def _is_dot(n: Node, source: str) -> bool:
    return isinstance(n, Chars) and n.offset >= 0 and source[n.offset] == "."


def _is_negated(n: Node, source: str) -> bool:
    return isinstance(n, Chars) and n.offset >= 0 and source.startswith("[^", n.offset)


LATIN1 = ((0, 0xFF),)


def _dot_no_newline(n: Node, source: str) -> Optional[Node]:
    """transformers-cfg's `.` is every character but a newline."""
    return Chars(-1, uni.intersection(ANY_CHAR, uni.negate(((10, 10),)))) if _is_dot(n, source) else None


def _dot_latin1(n: Node, source: str) -> Optional[Node]:
    """transformers-cfg's `.` stops at U+00FF."""
    return Chars(-1, LATIN1) if _is_dot(n, source) else None


def _negated_latin1(n: Node, source: str) -> Optional[Node]:
    """transformers-cfg's `[^...]` is the complement within U+0000-U+00FF."""
    return Chars(-1, uni.intersection(n.ranges, LATIN1)) if _is_negated(n, source) else None  # type: ignore


def _tcfg_negated_ranges(source: str, offset: int) -> Tuple[Tuple[int, int], ...]:
    """The ranges transformers-cfg's parser makes of the negated class at offset."""
    from transformers_cfg.parser import AlternativeElements, _parse_rhs_negated_char_ranges

    alt = AlternativeElements()
    _parse_rhs_negated_char_ranges(source[offset:], alt)
    return tuple(alt.buffer_elements[0].ranges)


def _latin1(n: Node, source: str) -> Optional[Node]:
    """Both `.` and `[^...]` as the peer reads them up to U+00FF."""
    return _dot_latin1(n, source) or _negated_latin1(n, source)


def _negated_range_end(n: Node, source: str) -> Optional[Node]:
    """In `[^a-z]` transformers-cfg excludes a..y: the last character of each negated range
    stays allowed (within its U+00FF limit, read as the other difference)."""
    if not _is_negated(n, source):
        return None
    assert isinstance(n, Chars)
    forgotten = uni.intersection(uni.normalize(list(_tcfg_negated_ranges(source, n.offset))), uni.negate(n.ranges))
    return Chars(-1, uni.normalize(list(n.ranges) + list(forgotten))) if forgotten else None


def _tcfg_bounds(source: str, offset: int) -> Tuple[int, Optional[int]]:
    """`{n,m}` as transformers-cfg's parser reads the numbers (m None or 0: its 'no m')."""
    text = source[offset + 1:source.find("}", offset)]
    lo, hi = text.split(",") if "," in text else (text, text)
    return (int(lo) if lo.strip() else 0), (int(hi) if hi.strip() else None)


def _repetition(n: Node, source: str, rules: Rules) -> Optional[Node]:
    """`x{n,m}` as transformers-cfg expands it: {0} is x; {0,m} is x{1,m}; {0,} and {1,}
    are x; {2,} is x+; {n,} for n > 2 is x(x{n-1})* (1, n, 2n-1, ... times)."""
    if not isinstance(n, Repeat) or n.offset < 0 or source[n.offset] != "{":
        return None
    lo, hi = _tcfg_bounds(source, n.offset)
    if hi:
        return None if lo >= 1 else Repeat(-1, n.node, 1, hi)
    if lo <= 2:
        return Repeat(-1, n.node, 1, 1 if lo <= 1 else None)
    name = "tcfg-repeat-%d" % n.offset
    rules[name] = Alt(-1, [Seq(-1, [copy.deepcopy(n.node) for _ in range(lo - 1)] + [Ref(-1, name)]),
                           copy.deepcopy(n.node)])
    return Ref(-1, name)


_READ_GRAMMARS: Dict[Tuple[str, str, str], Optional[Grammar]] = {}


def _read_grammar(spec: GrammarSpec, reading: str) -> Optional[Grammar]:
    """refimpl's grammar for the spec with one construct read as transformers-cfg reads it
    (None if the grammar does not use it)."""
    key = (spec.source or "", spec.options.get("root", "root"), reading)
    if key not in _READ_GRAMMARS:
        if len(_READ_GRAMMARS) > 32:
            _READ_GRAMMARS.clear()
        source = spec.source or ""
        rules = gbnf_rules(source)
        if reading == "repetition":
            extra: Rules = {}
            changed = rewrite(rules, source, lambda n, s: _repetition(n, s, extra))
            rules.update(extra)
        elif reading == "unproductive":
            changed = let_unproductive_rules_stop(rules)
        else:
            changed = rewrite(rules, source, GRAMMAR_READINGS[reading])
        g = None
        if changed:
            g = Grammar(compile_rules(rules, key[1], source), "gbnf", source)
        _READ_GRAMMARS[key] = g
    return _READ_GRAMMARS[key]


GRAMMAR_READINGS: Dict[str, Rewrite] = {
    "dot-no-newline": _dot_no_newline, "dot-latin1": _dot_latin1, "negated-latin1": _negated_latin1,
    "latin1": _latin1, "negated-range-end": _negated_range_end}


def _pending(data: bytes) -> Optional[int]:
    """How many bytes at the end of data are an unfinished character as transformers-cfg
    decodes UTF-8 (lead byte by its high four bits: 8-B is no lead, C-D two bytes, E three,
    F four; continuation bytes 10xxxxxx); None if it reads an error."""
    pos = 0
    while pos < len(data):
        size = (1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 3, 4)[data[pos] >> 4]
        if size == 0:
            return None
        end = pos + 1
        while end < len(data) and end < pos + size:
            if data[end] >> 6 != 2:
                return None
            end += 1
        if end - pos < size:
            return end - pos
        pos = end
    return 0


def _matcher(g: Grammar, vocab: Vocabulary, text: bytes) -> Optional[Matcher]:
    m = Matcher(g, vocab, slices=())
    return m if m.consume_bytes(text) or not text else None


def _answers(m: Matcher, d: Divergence, read: Callable[[bytes], bytes]) -> List[bool]:
    """For every differing token, does the reading give the backend's side (the token's
    bytes passed through `read`; EOS where m accepts)?"""
    out = []
    for t in d.differing():
        if t in d.vocab.eos_token_ids:
            allowed = t == d.vocab.eos_token_ids[0] and m.is_accepting()
        elif t in d.vocab.special_token_ids or not d.vocab.tokens[t]:
            allowed = t not in d.only_engine  # never the peer's answer
        else:
            allowed = m.consume_bytes(read(d.vocab.tokens[t]))
            if allowed:
                m.rollback(1)
        out.append(allowed == (t in d.only_engine))
    return out


def _plain(d: Divergence) -> bool:
    return d.error is None and d.refused is None and bool(d.differing()) and not d.after_eos


def _grammar_reading(reading: str) -> Callable[[Divergence], bool]:
    def applies(d: Divergence) -> bool:
        """refimpl with the construct read as transformers-cfg reads it (and the tokens'
        bytes as its mask reads them) gives the peer's answer for every differing token."""
        if not _plain(d):
            return False
        g = _read_grammar(d.grammar, reading)
        if g is None or not all(_peer_answers(d, g)):
            return False
        # in byte mode, no token the grammar as written already explains (bytes-as-characters)
        return not _byte_mode(d.grammar) or not any(_peer_answers(d, compiled(d.grammar)))
    applies.__doc__ = "transformers-cfg reads %s" % reading
    return applies


def _byte_mode(spec: GrammarSpec) -> bool:
    """transformers-cfg's mask matches token bytes as characters, one byte each, when the
    grammar's text has no character above U+007F (its `detect_unicode`)."""
    return all(ord(c) < 0x80 for c in spec.source or "")


def _peer_answers(d: Divergence, g: Grammar) -> List[bool]:
    """Does refimpl on g, reading the tokens as the peer's mask does, give the peer's answer
    for each differing token? In byte mode the mask reads each byte of a token as the
    character of that code point (U+0000-U+00FF), from the state after the text's complete
    characters (a pending partial character forgotten); else as UTF-8, as refimpl does."""
    text = d.text()
    if not _byte_mode(d.grammar):
        m = _matcher(g, d.vocab, text)
        return [False] * len(d.differing()) if m is None else _answers(m, d, lambda data: data)
    pending = _pending(text)
    m = None if pending is None else _matcher(g, d.vocab, text[:len(text) - pending])
    if m is None:
        return [False] * len(d.differing())
    return _answers(m, d, lambda data: data.decode("latin-1").encode("utf-8"))


def _bytes_as_characters(d: Divergence) -> bool:
    """A refused token: see _refused_by_its_classes. Else: in byte mode, the peer's mask
    reads each byte of a token as one character: refimpl on the grammar, reading the
    tokens so, gives the peer's answer for every differing token, each of which has a
    byte above 0x7F."""
    if d.refused is not None:
        return _refused_by_its_classes(d)
    if not _plain(d) or not _byte_mode(d.grammar):
        return False
    if any(t in d.vocab.eos_token_ids or all(b < 0x80 for b in d.vocab.tokens[t]) for t in d.differing()):
        return False
    return all(_peer_answers(d, compiled(d.grammar)))


def _peer_decode(chunks: List[bytes]) -> Optional[Tuple[bytes, bool]]:
    """The text as the peer's decoder reads it, chunk by chunk (its decode_utf8 checks the
    continuation bytes only of a character begun in an earlier chunk): the complete
    characters as UTF-8, and whether a partial character is pending; None on an error."""
    from transformers_cfg.utf8_utils import PartialUTF8, decode_utf8

    state, out = PartialUTF8(), []
    for chunk in chunks:
        cps, state = decode_utf8(bytes(chunk), state)
        if cps == [0] and state.n_remain == -1 and chunk:
            return None
        out.extend(cps)
    try:
        return "".join(chr(c) for c in out).encode("utf-8"), state.n_remain > 0
    except (UnicodeEncodeError, ValueError):
        return None


def _partial_at_end(d: Divergence) -> bool:
    """Where the complete characters leave the grammar at a possible end, the peer allows a
    token after which a character is unfinished (as its decoder reads the bytes), and EOS
    while one is: a finished stack accepts any pending partial character."""
    if not _plain(d) or d.only_refimpl:
        return False
    chunks = [d.vocab.tokens[t] for t in d.prefix if t not in d.vocab.eos_token_ids]
    for t in d.only_engine:
        eos = t in d.vocab.eos_token_ids
        if (not eos and _byte_mode(d.grammar)) or (eos and t != d.vocab.eos_token_ids[0]):
            return False
        read = _peer_decode(chunks if eos else chunks + [d.vocab.tokens[t]])
        if read is None or not read[1]:
            return False
        m = _matcher(compiled(d.grammar), d.vocab, read[0])
        if m is None or not m.is_accepting():
            return False
    return True


def _lax_continuation(d: Divergence) -> bool:
    """The peer allows a token whose bytes are not UTF-8 after the text, because its decoder
    takes any byte as the continuation of a character begun in the same token (`\\xC3a`
    is U+00E1): refimpl allows the text as the peer decodes it."""
    if not _plain(d) or d.only_refimpl or _byte_mode(d.grammar):
        return False
    chunks = [d.vocab.tokens[t] for t in d.prefix if t not in d.vocab.eos_token_ids]
    for t in d.only_engine:
        if t in d.vocab.eos_token_ids or utf8_prefix(d.text() + d.vocab.tokens[t]):
            return False
        read = _peer_decode(chunks + [d.vocab.tokens[t]])
        if read is None or read[1] or _matcher(_latin1_or_plain(d.grammar), d.vocab, read[0]) is None:
            return False
    return True


def _latin1_or_plain(spec: GrammarSpec) -> Grammar:
    return _read_grammar(spec, "latin1") or compiled(spec)


def _refused_by_its_classes(d: Divergence) -> bool:
    """In byte mode the peer's mask allowed a token with a byte above 0x7F (each byte read as
    a character, as refimpl reading it so confirms), and its consume, which decodes UTF-8,
    refused it: refimpl refuses it too with `.` and `[^...]` read as the peer reads them
    (stopping at U+00FF)."""
    if d.error is not None or d.refused is None or not _byte_mode(d.grammar):
        return False
    t = d.refused
    data = d.vocab.tokens[t]
    if t in d.vocab.eos_token_ids or all(b < 0x80 for b in data):
        return False
    probe = Divergence(d.grammar, d.vocab, d.prefix, d.step, [t], [])
    if not all(_peer_answers(probe, compiled(d.grammar))):
        return False  # its mask would not have allowed it
    g = _read_grammar(d.grammar, "latin1")
    m = None if g is None else _matcher(g, d.vocab, d.text())
    return m is not None and not m.consume_bytes(data)


def _nul(d: Divergence) -> bool:
    """The peer never consumes U+0000 (its decoder's error marker): refimpl allows tokens
    with a NUL byte that its mask leaves out, or (in byte mode, where the mask reads bytes)
    its consume refuses one its mask allowed."""
    if d.error is not None:
        return False
    if d.refused is not None:
        return b"\0" in d.vocab.tokens[d.refused] and d.refused not in d.vocab.eos_token_ids
    return (not d.only_engine and bool(d.only_refimpl) and not _byte_mode(d.grammar)
            and all(b"\0" in d.vocab.tokens[t] for t in d.only_refimpl))


def _empty_token(d: Divergence) -> bool:
    """The peer allows an empty token wherever its state is alive; refimpl never allows one."""
    return (d.error is None and d.refused is None and bool(d.only_engine) and not d.only_refimpl
            and all(t not in d.vocab.eos_token_ids and d.vocab.tokens[t] == b"" for t in d.only_engine))


def _other_eos(d: Divergence) -> bool:
    """refimpl allows an EOS id that is not the peer's one EOS (the vocabulary's first),
    where the text may end; the peer sees it as a special token and never allows it."""
    if d.error is not None or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    if not all(t in d.vocab.eos_token_ids[1:] for t in d.only_refimpl):
        return False
    m = d.replay()
    return m is not None and m.is_accepting()


def tcfg_left_recursive(source: str) -> bool:
    """Does the grammar as transformers-cfg parses and expands it (x* as S ::= x S | ε, ...)
    have a rule that derives itself at its left, through nullable elements?"""
    from transformers_cfg.parser import ReferenceElement

    state = _tcfg_parse(source)
    bodies: Dict[int, List[List[Any]]] = {}
    for rule_id, rule in state.grammar_rules.items():
        bodies[rule_id] = [[e for sym in alt.symbols for e in sym] + list(alt.buffer_elements)
                           for alt in rule.alternatives]
    nullable: Set[int] = set()
    grew = True
    while grew:
        grew = False
        for r, alts in bodies.items():
            if r not in nullable and any(all(isinstance(e, ReferenceElement) and e.referee_id in nullable for e in a)
                                         for a in alts):
                nullable.add(r)
                grew = True
    edges: Dict[int, Set[int]] = {r: set() for r in bodies}
    for r, alts in bodies.items():
        for a in alts:
            for e in a:
                if not isinstance(e, ReferenceElement):
                    break
                edges[r].add(e.referee_id)
                if e.referee_id not in nullable:
                    break
    return has_cycle(edges)


def _unproductive(d: Divergence) -> bool:
    """Every differing token is not EOS, and refimpl answers as the peer with each rule that
    derives no string given a way to stop (the peer keeps stacks that can never finish)."""
    return not any(t in d.vocab.eos_token_ids for t in d.differing()) and _grammar_reading("unproductive")(d)


def _no_answer(d: Divergence) -> bool:
    """The peer did not answer in time (the Isolated wrapper's PeerTimeout)."""
    return timed_out(d)


def _left_recursion(d: Divergence) -> bool:
    """The peer raised RecursionError on a grammar that, as it expands it, is left-recursive."""
    return d.error is not None and "RecursionError" in d.error and tcfg_left_recursive(d.grammar.source or "")


def _diff(name: str, kind: str, description: str, applies: Callable[[Divergence], bool],
          ends_path: bool = False) -> KnownDifference:
    return KnownDifference(name, kind, description, applies, ends_path=ends_path)


DOT_NO_NEWLINE = _diff("dot-no-newline", "semantic",
                       "transformers-cfg's `.` is any character but a newline; GBNF's is any character",
                       _grammar_reading("dot-no-newline"), ends_path=True)
DOT_LATIN1 = _diff("dot-latin1", "peer-bug",
                   "transformers-cfg's `.` stops at U+00FF (its range is written 0-0xFF)",
                   _grammar_reading("dot-latin1"), ends_path=True)
NEGATED_LATIN1 = _diff("negated-latin1", "peer-bug",
                       "transformers-cfg's negated class `[^...]` is the complement within U+0000-U+00FF, so it "
                       "never allows a character above U+00FF",
                       _grammar_reading("negated-latin1"), ends_path=True)
NEGATED_RANGE_END = _diff("negated-range-end", "peer-bug",
                          "transformers-cfg's negated class leaves out only the first to the next-to-last "
                          "character of each range: `[^a-z]` allows `z`, `[^\\x00-\\x1F]` allows U+001F",
                          _grammar_reading("negated-range-end"), ends_path=True)
REPETITION = _diff("repetition-bounds", "peer-bug",
                   "transformers-cfg expands `x{0}` as x, `x{0,m}` as x{1,m}, `x{0,}` and `x{1,}` as x, `x{2,}` "
                   "as x+ and `x{n,}` as x(x{n-1})*",
                   _grammar_reading("repetition"), ends_path=True)
BYTES_AS_CHARACTERS = _diff(
    "bytes-as-characters", "peer-bug",
    "when the grammar's text is ASCII, transformers-cfg's mask matches each byte of a token as one character "
    "(U+0000-U+00FF), while consuming decodes UTF-8: e.g. `[^\\n]` allows the lone bytes 0x80-0xFF, and "
    "`[^a]` allows `€` (three characters to the mask), which its consume then refuses (U+20AC is above its "
    "negated class's U+00FF)",
    _bytes_as_characters, ends_path=True)
PARTIAL_AT_END = _diff(
    "partial-character-at-end", "peer-bug",
    "where the grammar may end, transformers-cfg allows any token ending in an unfinished UTF-8 character "
    "(even C0 or F5-FF, or `a\\xF0\\x9Fa`: its decoder does not check the continuation bytes of a character "
    "begun in the same token), and EOS while a character is unfinished: a finished stack accepts every "
    "pending partial character",
    _partial_at_end, ends_path=True)
LAX_CONTINUATION = _diff(
    "lax-continuation", "peer-bug",
    "transformers-cfg's UTF-8 decoder does not check the continuation bytes of a character begun in the same "
    "token: it allows the token `\\xC3a` where `[^a]` is expected, reading it as U+00E1",
    _lax_continuation, ends_path=True)
NUL = _diff("no-nul", "peer-bug",
            "transformers-cfg never consumes U+0000 (its UTF-8 decoder's error value); in byte mode its mask still "
            "allows it", _nul, ends_path=True)
EMPTY_TOKEN = _diff("empty-token", "semantic",
                    "transformers-cfg allows an empty token wherever its state is alive; maskref never allows one",
                    _empty_token)
OTHER_EOS = _diff("one-eos", "semantic",
                  "transformers-cfg has one EOS id (the tokenizer's); the vocabulary's other EOS ids are special "
                  "tokens to it, never allowed", _other_eos)
LATIN1_CLASSES = _diff("dot-and-negated-latin1", "peer-bug",
                       "both at once in one grammar: transformers-cfg's `.` and `[^...]` stop at U+00FF",
                       _grammar_reading("latin1"), ends_path=True)
UNPRODUCTIVE = _diff("unproductive-prefixes", "peer-bug",
                     "transformers-cfg allows the prefixes of a rule that derives no string (`r1 ::= \"a\" r1`): "
                     "with `root ::= r1 | \"a\"` it allows `aaa`, though no output can ever end",
                     _unproductive, ends_path=True)
NO_ANSWER = _diff("no-answer", "peer-bug",
                  "transformers-cfg did not answer a mask within the time allowed (30 s): its stacks grow "
                  "with the grammar's ambiguity (`root ::= (r1+) (\"ab\"+ | root | \"a\"+){1,2} | ...` on a "
                  "7-token vocabulary after `a{a{a{`); refimpl answers at once", _no_answer, ends_path=True)
LEFT_RECURSION = _diff("left-recursion", "peer-bug",
                       "transformers-cfg raises RecursionError on a left-recursive grammar (also one it makes "
                       "left-recursive: a repetition of something nullable, `\"\"*`); llama.cpp refuses one with "
                       "an error, maskref parses it", _left_recursion, ends_path=True)


class TcfgSession(Session):
    def __init__(self, constraint: Any, n: int) -> None:
        import torch

        self.constraint = constraint
        self.state = constraint.string_recognizer.get_initial_parsing_state()
        self.n = n
        self.device = torch.device("cpu")
        self.ended = False

    def mask(self) -> bytes:
        if self.ended:
            return bytes(bitmask_len(self.n))
        acceptance = self.constraint.filter_vocab(self.state, self.device)
        return bitmask_from_ids(acceptance.nonzero().flatten().tolist(), self.n)

    def consume(self, token: int) -> bool:
        if self.ended:
            return False
        try:
            state = self.constraint._update_state_with_token_id(token, self.state)
        except ValueError:  # its "only EOS is accepted" / "EOS but no stack is empty"
            return False
        if token == self.constraint.eos_token_id:
            self.ended = True
        elif not state.stacks:
            return False
        self.state = state
        return True


class TransformersCfgEngine(Engine):
    """transformers-cfg's IncrementalGrammarConstraint for GBNF grammars."""

    name = "transformers-cfg"
    description = "transformers-cfg IncrementalGrammarConstraint (its GBNF-like EBNF), HF tokenizer of the same bytes"
    kinds = ("gbnf",)

    def __init__(self) -> None:
        self._peers: Dict[str, _Peer] = {}
        self.known_differences = (
            AFTER_EOS, BYTES_AS_CHARACTERS, PARTIAL_AT_END, LAX_CONTINUATION, DOT_NO_NEWLINE, DOT_LATIN1, NEGATED_LATIN1,
            NEGATED_RANGE_END, REPETITION, NUL, EMPTY_TOKEN, OTHER_EOS, LEFT_RECURSION, LATIN1_CLASSES, UNPRODUCTIVE, NO_ANSWER,
            _diff("eos-refused", "peer-bug",
                  "transformers-cfg's mask allows EOS where one of its stacks is finished, but consuming EOS asks "
                  "`can_stop`, which looks only at the first stack of the set (in its iteration order) and so may "
                  "refuse it", self._eos_refused))

    def _eos_refused(self, d: Divergence) -> bool:
        """The peer refused its EOS after the prefix, and its state there (replayed here) has
        a finished stack that is not the first of its set."""
        if d.refused is None or not d.vocab.eos_token_ids or d.refused != d.vocab.eos_token_ids[0]:
            return False
        session = self.start(d.grammar, d.vocab)
        assert isinstance(session, TcfgSession)
        if not all(session.consume(t) for t in d.prefix):
            return False
        stacks = session.state.stacks
        return any(len(s) == 0 for s in stacks) and len(next(iter(stacks))) > 0

    def unavailable_reason(self) -> Optional[str]:
        try:
            import tokenizers  # noqa: F401
            import torch  # noqa: F401
            import transformers  # noqa: F401
            import transformers_cfg  # noqa: F401
        except ImportError as e:
            return "transformers-cfg is not importable (%s): pip install transformers-cfg" % e
        return None

    def version(self) -> str:
        from importlib.metadata import version

        return "transformers-cfg %s (transformers %s)" % (version("transformers-cfg"), version("transformers"))

    def prepare(self, vocab: Vocabulary) -> None:
        """Build the tokenizer and trie before a session's process is forked."""
        self.peer(vocab)

    def peer(self, vocab: Vocabulary) -> _Peer:
        key = vocab_hash(vocab)
        p = self._peers.get(key)
        if p is None:
            p = self._peers[key] = _Peer(vocab)
        return p

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        if spec.kind != "gbnf":
            raise NotSupported("transformers-cfg: only GBNF grammars are compared")
        _check_dialect(spec.source)
        from transformers_cfg.grammar_utils import IncrementalGrammarConstraint

        peer = self.peer(vocab)
        root = spec.options.get("root", "root")
        _tcfg_parse(spec.source)
        constraint = IncrementalGrammarConstraint(spec.source, root, peer.tokenizer, trie=peer.trie,
                                                  homomorphism=peer.mapping)
        return TcfgSession(constraint, len(vocab))


def _check_dialect(source: str) -> None:
    """NotSupported for the GBNF features transformers-cfg's parser lacks."""
    todo: List[Any] = list(gbnf_rules(source).values())
    while todo:
        n = todo.pop()
        if isinstance(n, Token):
            raise NotSupported("transformers-cfg has no token elements (<...>, <[id]>, !<...>)")
        todo.extend(children(n))


def _tcfg_parse(source: str) -> Any:
    """transformers-cfg's parse of the grammar (its ParseState); NotSupported with its
    message where it cannot parse it (its parse_ebnf logs the error and returns an empty
    grammar; this is its loop without that)."""
    from transformers_cfg.parser import ParseState, parse_rule, remove_leading_white_space

    state = ParseState()
    rest = remove_leading_white_space(source, True)
    try:
        while rest:
            rest = parse_rule(state, rest)
    except (RuntimeError, ValueError, IndexError) as e:
        raise NotSupported("transformers-cfg cannot parse the grammar: %s" % str(e).splitlines()[0][:160]) from e
    return state
