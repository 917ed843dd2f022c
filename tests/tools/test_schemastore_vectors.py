"""tools/schemastore_vectors.py on a corpus laid out as SchemaStore's: one vector per
schema refimpl compiles and per JSON test instance; the positive instance is spelled to
its end, the negative one stops where refimpl refuses it."""
import json
import os

from conformance.vectors import read_vectors
from tools import schemastore_vectors


def _write(root, path, value):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(value if isinstance(value, str) else json.dumps(value))


def test_vectors_from_a_small_corpus(tmp_path, capsys):
    root = str(tmp_path / "corpus")
    _write(root, "src/schemas/json/point.json", {"type": "object", "properties": {"x": {"type": "integer"}},
                                                 "required": ["x"], "additionalProperties": False})
    _write(root, "src/test/point/ok.json", {"x": 12})
    _write(root, "src/negative_test/point/bad.json", {"x": "twelve"})
    _write(root, "src/schemas/json/broken.json", "{not json")
    _write(root, "src/test/broken/ok.json", {})
    out = str(tmp_path / "v.jsonl")
    assert schemastore_vectors.main([root, "--out", out, "--vocab", "bytes"]) == 0
    vectors = {v.id: v for _, _, v in read_vectors(out)}
    assert set(vectors) == {"schemastore/point/ok/bytes", "schemastore/point/bad/bytes"}
    ok, bad = vectors["schemastore/point/ok/bytes"], vectors["schemastore/point/bad/bytes"]
    spelled = bytes(t for t in (s.token for s in ok.steps) if t is not None and t < 256)
    assert spelled == b'{"x": 12}' and ok.steps[-2].accepting
    assert bytes(s.token for s in bad.steps if s.token is not None) == b'{"x": '  # refused at the quote
    assert "skipped    1 x not JSON" in capsys.readouterr().out
