"""benchmarks/pypy_speed.py's long generations: every token of each document is allowed
along the way, the python and native backends' masks agree (the digest of their sizes),
and two generations are timed."""
import pytest

import accel
from benchmarks import pypy_speed
from refimpl import Vocabulary


@pytest.mark.parametrize("name", sorted(pypy_speed.GENERATIONS))
def test_a_generation_consumes_its_document(name):
    vocab = Vocabulary.load("gpt2")
    python = pypy_speed.generations("python", name, 2, vocab)
    assert python["tokens"] > 20 and len(python["seconds"]) == 2 and all(s > 0 for s in python["seconds"])
    if accel.available_backends()["native"] is None:
        assert pypy_speed.generations("native", name, 2, vocab)["digest"] == python["digest"]
    assert pypy_speed.generations("python", name, 3, vocab)["digest"] != python["digest"]
