"""conformance/isolation.py: a peer in a child process, every call bounded in time, so a
peer that hangs or panics is a finding and not the end of a campaign."""
import multiprocessing
import os
import signal
import time

import pytest

from conformance.engine import Engine, Session
from conformance.isolation import Isolated, PeerCrash, PeerTimeout
from conformance.runner import check_vector
from conformance.vectors import GrammarSpec, load_builtin, record
from refimpl import Matcher


class Panic(BaseException):
    """What a Rust panic looks like from Python (pyo3's PanicException)."""


class Stuck(Session):
    def __init__(self, how):
        self.how = how

    def mask(self):
        if self.how == "hang":
            while True:
                time.sleep(1)
        if self.how == "crash":
            os.kill(os.getpid(), signal.SIGKILL)  # as a segmentation fault in native code would
        raise Panic("capacity overflow")

    def consume(self, token):
        return True


class StuckBackend(Engine):
    name = "stuck"
    kinds = ("regex",)

    def __init__(self, how):
        self.how = how

    def start(self, spec, vocab, grammar=None):
        return Stuck(self.how)


def test_a_hang_is_a_timeout_and_the_child_is_gone():
    session = Isolated(StuckBackend("hang"), timeout=0.5).start(GrammarSpec("regex", "a"), load_builtin("bytes"))
    with pytest.raises(PeerTimeout):
        session.mask()
    assert not session.process.is_alive()


def test_a_panic_is_the_calls_error_and_a_disagreement():
    vocab, spec = load_builtin("bytes"), GrammarSpec("regex", "a")
    g = spec.compile()
    result = check_vector(Isolated(StuckBackend("panic"), timeout=5),
                          record(g, spec, vocab, [ord("a"), vocab.eos_token_ids[0]], "x", [], "test"))
    assert result.status == "disagree" and result.fault == ""  # the peer's own error: a finding
    assert "Panic: capacity overflow" in result.divergence["error"]


@pytest.mark.parametrize("how, fault", [("crash", "crash"), ("hang", "timeout")])
def test_a_crash_or_a_hang_is_a_fault_of_the_vector_not_a_disagreement_of_masks(how, fault):
    from conformance.runner import Report

    vocab, spec = load_builtin("bytes"), GrammarSpec("regex", "a")
    v = record(spec.compile(), spec, vocab, [ord("a"), vocab.eos_token_ids[0]], "x", [], "test")
    engine = Isolated(StuckBackend(how), timeout=0.5 if how == "hang" else 30)
    result = check_vector(engine, v)
    assert (result.status, result.fault) == ("disagree", fault), result.divergence
    report = Report(engine)
    report.add(result)
    assert report.faults == [result] and not report.disagreements


def test_an_isolated_refimpl_agrees():
    from conformance.refimpl_engines import MatcherEngine

    vocab, spec = load_builtin("bytes"), GrammarSpec("regex", "[0-9]+x")
    g = spec.compile()
    path = [ord(c) for c in "12x"] + [vocab.eos_token_ids[0]]
    assert Matcher(g, vocab).consume_tokens(path)
    backend = Isolated(MatcherEngine("python"))
    assert check_vector(backend, record(g, spec, vocab, path, "x", [], "test")).status == "agree"


def test_a_crash_is_a_peer_crash():
    session = Isolated(StuckBackend("crash"), timeout=5).start(GrammarSpec("regex", "a"), load_builtin("bytes"))
    with pytest.raises(PeerCrash, match="died during mask"):
        session.mask()
    assert session.process.exitcode < 0  # ended by a signal


def _isolated_answers(_):
    from conformance.refimpl_engines import OracleEngine

    session = Isolated(OracleEngine()).start(GrammarSpec("regex", "ab"), load_builtin("bytes"))
    try:
        return session.consume(ord("a")), session.consume(ord("a"))
    finally:
        session.close()


def test_isolated_sessions_work_in_pool_workers():
    """The fuzzer's and runner's --jobs workers are daemonic pool processes; an isolated
    peer still forks its sessions there."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.map(_isolated_answers, [0]) == [(True, False)]


class RefusingBackend(Engine):
    name = "refusing"
    kinds = ("regex",)

    def __init__(self, error):
        self.error = error

    def start(self, spec, vocab, grammar=None):
        raise self.error


def test_a_refusal_crosses_the_process_as_a_refusal():
    """A peer's Refused (its compiler refused the grammar) stays one from the child: on an
    error vector it agrees; a plain NotSupported stays unsupported."""
    from conformance.vectors import NotSupported, Refused, refused

    v = refused(GrammarSpec("regex", "a(b"), load_builtin("bytes"), "x")
    with pytest.raises(Refused, match="bad group"):
        Isolated(RefusingBackend(Refused("bad group")), timeout=5).start(v.grammar, v.vocab)
    assert check_vector(Isolated(RefusingBackend(Refused("bad group")), timeout=5), v).status == "agree"
    assert check_vector(Isolated(RefusingBackend(NotSupported("no regex")), timeout=5), v).status == "unsupported"
