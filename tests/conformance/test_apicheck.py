"""The rest of the Matcher API, compared for refimpl's own engines (conformance/apicheck.py):
a Matcher backend whose masks agree but whose forced tokens, rollback, refusal of a rollback
past the start or refusal of a token is wrong disagrees."""
from conformance.runner import check_vector
from conformance.vectors import GrammarSpec, byte_vocabulary, record
from refimpl import Matcher, Vocabulary
from tests.support.vectors import digits_vector


def test_refimpl_backends_are_compared_on_forced_tokens(tmp_path):
    """A Matcher backend whose forced_tokens is wrong agrees on every mask, and `run`
    still finds it (conformance/apicheck.py)."""
    from conformance.refimpl_engines import MatcherEngine, MatcherSession

    class Wrong(Matcher):
        def forced_tokens(self):
            return super().forced_tokens()[:-1]

    class Engine(MatcherEngine):
        def start(self, spec, vocab, grammar=None):
            return MatcherSession(Wrong(grammar or spec.compile(), vocab))

    spec = GrammarSpec("regex", "abc")
    vocab = Vocabulary.from_bytes([b"a", b"b", b"c", b"<eos>"], eos_token_id=3)
    v = record(spec.compile(), spec, vocab, [0, 1, 2, 3], "test/forced")
    wrong = Engine()
    wrong.name = "wrong-forced"
    res = check_vector(wrong, v)
    assert res.status == "disagree" and "forced_tokens" in res.divergence["error"], res.divergence
    assert check_vector(MatcherEngine("python"), v).status == "agree"


def test_refimpl_backends_are_compared_on_rollback():
    """A Matcher backend whose rollback forgets to undo the last step: masks and forced
    tokens agree along the path, the rollback at its end disagrees."""
    from conformance.refimpl_engines import MatcherEngine, MatcherSession

    class Wrong(Matcher):
        def rollback(self, n_tokens):
            super().rollback(max(0, n_tokens - 1) if n_tokens <= len(self._steps) else n_tokens)

    class Engine(MatcherEngine):
        def start(self, spec, vocab, grammar=None):
            return MatcherSession(Wrong(grammar or spec.compile(), vocab))

    wrong = Engine()
    wrong.name = "wrong-rollback"
    spec = GrammarSpec("regex", "1234")
    v = record(spec.compile(), spec, byte_vocabulary(), list(b"1234"), "test/rollback")
    res = check_vector(wrong, v)
    assert res.status == "disagree" and res.divergence["error"] == "rollback(2): the masks after it differ"


def test_refimpl_backends_refuse_a_rollback_past_the_start_as_refimpl_does():
    """A Matcher whose refusal is a TypeError, not refimpl's ValueError."""
    from conformance.refimpl_engines import MatcherEngine, MatcherSession

    class Wrong(Matcher):
        def rollback(self, n_tokens):
            if n_tokens > len(self._steps):
                raise TypeError("unsupported operand")
            super().rollback(n_tokens)

    class Engine(MatcherEngine):
        def start(self, spec, vocab, grammar=None):
            return MatcherSession(Wrong(grammar or spec.compile(), vocab))

    wrong = Engine()
    wrong.name = "wrong-refusal"
    res = check_vector(wrong, digits_vector())
    assert res.status == "disagree" and "raised TypeError (refimpl: ValueError)" in res.divergence["error"]


def test_refimpl_backends_must_refuse_a_refused_token():
    """A Matcher that says it took a token its mask refuses (its masks are refimpl's)."""
    from conformance.refimpl_engines import MatcherEngine, MatcherSession

    class Wrong(Matcher):
        def consume(self, token_id):
            took = super().consume(token_id)
            return took or 0 <= token_id < len(self.vocab)  # (an id out of range still refused)

    class Engine(MatcherEngine):
        def start(self, spec, vocab, grammar=None):
            return MatcherSession(Wrong(grammar or spec.compile(), vocab))

    wrong = Engine()
    wrong.name = "wrong-consume"
    res = check_vector(wrong, digits_vector((0x31, 0x32)))
    assert res.status == "disagree" and "took a token the mask refuses" in res.divergence["error"], res.divergence
    assert check_vector(MatcherEngine("python"), digits_vector((0x31, 0x32))).status == "agree"


def test_refimpl_engines_must_refuse_an_id_outside_the_vocabulary():
    """An id of -1 read as the last token (Python's indexing) is taken, an id past the
    vocabulary raises: `run` offers every engine built on refimpl -1, len(vocab) and the id
    after it before each mask, each to be refused as the Matcher does (False, no error)."""
    from conformance.refimpl_engines import MatcherEngine, MatcherSession
    from conformance.registry import get_engine

    class Wraps(Matcher):
        def consume(self, token_id):
            return super().consume(token_id % len(self.vocab))

    class Raises(Matcher):
        def consume(self, token_id):
            if token_id > len(self.vocab):
                raise IndexError("list index out of range")
            return super().consume(token_id)

    def engine(matcher, name):
        class Engine(MatcherEngine):
            def start(self, spec, vocab, grammar=None):
                return MatcherSession(matcher(grammar or spec.compile(), vocab))

        e = Engine()
        e.name = name
        return e

    spec = GrammarSpec("regex", "[ab]+")
    vocab = Vocabulary.from_bytes([b"<eos>", b"a", b"b"], eos_token_id=0)
    v = record(spec.compile(), spec, vocab, [2, 1, 0], "test/last-id")
    res = check_vector(engine(Wraps, "wrong-ids"), v)
    assert res.status == "disagree" and res.divergence["error"] == (
        "consume(-1), an id outside the vocabulary's 3: the engine took it"), res.divergence
    res = check_vector(engine(Raises, "raising-ids"), v)
    assert res.status == "disagree" and res.divergence["error"] == (
        "consume(4), an id outside the vocabulary's 3: the engine raised IndexError: list index out of range")
    for name in ("refimpl", "index", "token-index", "token-index-bare", "token-index-naive"):
        assert check_vector(get_engine(name), v).status == "agree", name
