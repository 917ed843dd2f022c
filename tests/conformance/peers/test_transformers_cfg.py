"""transformers-cfg's grammar constraint as an engine under test
(conformance/peers/transformers_cfg/): the tokenizer holds the same bytes, the suite's
GBNF vectors agree or differ only as declared, and each declared difference recognises
its own divergence and not a near miss."""

import pytest

pytest.importorskip("transformers_cfg")
pytest.importorskip("torch")

from conformance.divergence import Divergence  # noqa: E402
from conformance.isolation import Isolated  # noqa: E402
from conformance.peers.transformers_cfg import TransformersCfgEngine  # noqa: E402
from conformance.peers.transformers_cfg.differences import KNOWN_DIFFERENCES  # noqa: E402
from conformance.peers.transformers_cfg.reading import tcfg_left_recursive  # noqa: E402
from conformance.peers.transformers_cfg.session import peer  # noqa: E402
from conformance.runner import check_vector  # noqa: E402
from conformance.vectors import GrammarSpec, NotSupported, ids_of, load_builtin, read_vectors, record  # noqa: E402
from refimpl import Vocabulary  # noqa: E402
from tests.support.paths import SUITE

SMALL = Vocabulary([b"a", b"b", b"ab", b"z", b"\xc3", b"\xa9", "é".encode(), "€".encode(), b"\n", b"1", b"",
                    b"<eos>", b"<s>", b"<eot>"], eos_token_ids=[11, 13], special_token_ids=[12])


def backend():
    return TransformersCfgEngine()


def test_the_peer_reads_the_same_token_bytes():
    view = peer(SMALL)
    assert [view.token_bytes(t) for t in range(11)] == SMALL.tokens[:11]
    assert view.tokenizer.eos_token_id == 11
    assert sorted(view.tokenizer.all_special_ids) == [11, 12, 13]


def test_a_vocabulary_with_two_tokens_of_the_same_bytes_is_not_supported():
    with pytest.raises(NotSupported, match="same bytes"):
        peer(Vocabulary([b"a", b"a", b"<eos>"], eos_token_ids=[2]))


def test_token_elements_are_not_supported():
    with pytest.raises(NotSupported, match="token elements"):
        backend().start(GrammarSpec("gbnf", "root ::= <[1]>\n"), SMALL)


def test_masks_and_consume():
    s = backend().start(GrammarSpec("gbnf", 'root ::= "a" [b-z]\n'), SMALL)
    assert ids_of(s.mask()) == [0, 2, 10]  # a, ab and the empty token (its known difference)
    assert s.consume(0) and not s.consume(0)
    assert ids_of(s.mask()) == [1, 3, 10]
    assert s.consume(3) and ids_of(s.mask()) == [10, 11]  # the end: EOS (and the empty token)
    assert s.consume(11) and not s.consume(11)


def test_the_suites_gbnf_vectors():
    suite = SUITE / "gbnf.jsonl"
    b, statuses = Isolated(backend(), timeout=60), set()
    for _, _, vector in read_vectors(str(suite)):
        if "gpt2" in vector.id and "json" not in vector.id:
            continue  # GPT-2's trie is slow to build; json/gpt2 covers it
        result = check_vector(b, vector)
        assert result.status in ("agree", "known"), (vector.id, result.divergence)
        statuses.add(result.status)
    assert statuses == {"agree", "known"}


def divergence(grammar, prefix, only_engine=(), only_refimpl=(), vocab=SMALL, **kw):
    return Divergence(GrammarSpec("gbnf", grammar), vocab, list(prefix), len(prefix), list(only_engine),
                      list(only_refimpl), **kw)


BYTES = load_builtin("bytes")


@pytest.mark.parametrize("known, hit, miss", [
    # a GBNF `.` takes a newline; the peer's does not
    ("dot-no-newline", divergence("root ::= . \"1\"\n", [], only_refimpl=[8]),
     divergence("root ::= . \"1\"\n", [], only_refimpl=[9])),
    # `.` and `[^a]` stop at U+00FF
    ("dot-latin1", divergence("root ::= . \"é\"\n", [], only_refimpl=[7]),
     divergence("root ::= . \"é\"\n", [], only_refimpl=[6])),
    ("negated-latin1", divergence("root ::= [^a] \"é\"\n", [], only_refimpl=[7]),
     divergence("root ::= [^a] \"é\"\n", [], only_refimpl=[1])),
    # [^a-z] allows z
    ("negated-range-end", divergence("root ::= [^a-z]\n", [], only_engine=[3]),
     divergence("root ::= [^a-y]\n", [], only_engine=[3])),
    # "a"{0,1} is read "a"{1,1}: the empty text cannot end
    ("repetition-bounds", divergence('root ::= "a"{0,1} "b"\n', [], only_refimpl=[1]),
     divergence('root ::= "a"? "b"\n', [], only_refimpl=[1])),
    # byte mode: [^\n] takes the lone byte 0xA9 as the character U+00A9
    ("bytes-as-characters", divergence("root ::= [^\\n]\n", [], only_engine=[5]),
     divergence("root ::= [^\\n] \"é\"\n", [], only_engine=[5])),
    # at a possible end, a lone lead byte
    ("partial-character-at-end", divergence('root ::= "é"+\n', [6], only_engine=[4]),
     divergence('root ::= "é"+ "a"\n', [6], only_engine=[4])),
    # ... and EOS while a character is unfinished (byte mode too)
    ("partial-character-at-end", divergence("root ::= [^a]*\n", [4], only_engine=[11]),
     divergence("root ::= [^a]* \"1\"\n", [4], only_engine=[11])),
    # byte mode: the mask allowed € (three Latin-1 characters), the consume (UTF-8) refuses it
    ("bytes-as-characters", divergence("root ::= [^a]*\n", [], refused=7),
     divergence("root ::= [^a]*\n", [], refused=6)),
    ("lax-continuation",
     divergence("root ::= \"é\" | [^a]\n", [], only_engine=[0], vocab=Vocabulary([b"\xc3a", b"<eos>"], [1])),
     divergence("root ::= \"é\" | [^a]\n", [], only_engine=[0], vocab=Vocabulary([b"\xc3\xa1", b"<eos>"], [1]))),
    ("no-nul", divergence('root ::= [^a] "é"\n', [], only_refimpl=[0], vocab=Vocabulary([b"\0", b"<eos>"], [1])),
     divergence('root ::= [^a] "é"\n', [], only_refimpl=[0], vocab=Vocabulary([b"\1", b"<eos>"], [1]))),
    ("empty-token", divergence('root ::= "a"\n', [], only_engine=[10]),
     divergence('root ::= "a"\n', [], only_engine=[3])),
    ("one-eos", divergence('root ::= "a"\n', [0], only_refimpl=[13]),
     divergence('root ::= "a"\n', [], only_refimpl=[13])),
    # `.` and `[^a]` in one grammar: both stop at U+00FF (each reading alone explains neither)
    ("dot-and-negated-latin1", divergence('root ::= [^a]* . "é"\n', [], only_refimpl=[7]),
     divergence('root ::= [^a]* . "é"\n', [], only_refimpl=[6])),
    # r1 derives no string; the peer still allows its prefixes
    ("unproductive-prefixes", divergence('root ::= r1 | "a"\nr1 ::= "a" r1\n', [], only_engine=[1],
                                 vocab=Vocabulary([b"a", b"aaa", b"<eos>"], [2])),
     divergence('root ::= r1 | "a"\nr1 ::= "a" r1 | "b"\n', [], only_engine=[1],
                vocab=Vocabulary([b"a", b"aaa", b"<eos>"], [2]))),
    ("no-answer", divergence('root ::= "a"\n', [], error="mask: PeerTimeout: no answer to mask within 30 s"),
     divergence('root ::= "a"\n', [], error="mask: RuntimeError: boom")),
    ("left-recursion", divergence('root ::= "a" ""*\n', [], error="start: RuntimeError: RecursionError: ..."),
     divergence('root ::= "a" "b"*\n', [], error="start: RuntimeError: RecursionError: ...")),
])
def test_each_known_difference_recognises_its_divergence_only(known, hit, miss):
    known = KNOWN_DIFFERENCES.named(known)
    assert known.applies(hit)
    assert not known.applies(miss)


def test_eos_refused_replays_the_peers_stacks():
    known = KNOWN_DIFFERENCES.named("eos-refused")
    grammar = 'root ::= x "b"\nx ::= [a-z]+ | "(" root ")"\n'
    path = [ord("a"), ord("a"), ord("b")]
    assert known.applies(divergence(grammar, path, refused=256, accepting=True, vocab=BYTES))
    assert not known.applies(divergence(grammar, path[:2], refused=256, accepting=False, vocab=BYTES))


def test_the_peers_left_recursion():
    assert tcfg_left_recursive('root ::= root "," item | item\nitem ::= "x"\n')
    assert tcfg_left_recursive('root ::= x root "a" | "b"\nx ::= "c"?\n')
    assert not tcfg_left_recursive('root ::= "a" root | "b"\n')


def test_a_whole_vector_of_a_known_difference():
    vocab = BYTES
    spec = GrammarSpec("gbnf", "root ::= [^a-c]+\n")
    result = check_vector(Isolated(backend(), timeout=30), record(spec.compile(), spec, vocab, [ord("x")], "t", [], "test"))
    assert result.status == "known" and "negated-range-end" in result.known, (result.status, result.divergence)
