"""Small conformance vectors the conformance tests share."""
from conformance.vectors import GrammarSpec, byte_vocabulary, record


def digits_vector(path=(0x31, 0x32, 256)):  # "1", "2", EOS
    spec = GrammarSpec("regex", "[0-9]+")
    return record(spec.compile(), spec, byte_vocabulary(), list(path), "test/digits")


def write_suite(tmp_path, *vectors, name="suite.jsonl"):
    p = tmp_path / name
    p.write_text("".join(v.to_line() + "\n" for v in vectors), encoding="utf-8")
    return str(p)
