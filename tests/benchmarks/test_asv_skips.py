"""asv's benchmarks of what a machine lacks (a peer, numpy, SchemaStore) skip, as asv
expects: NotImplementedError raised in `setup` (asv reads it as a skip there, and as a
failure in a benchmark's body, which made `asv run --quick` exit 2 without outlines-core),
or asv_runner's SkipNotImplemented in a body that only some of a class's methods share."""
import ast
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _bodies_raising_not_implemented():
    for path in sorted(BENCHMARKS.glob("asv_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            for f in (n for n in cls.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("setup")):
                for node in ast.walk(f):
                    if isinstance(node, ast.Raise) and "NotImplementedError" in ast.dump(node):
                        yield "%s %s.%s line %d" % (path.name, cls.name, f.name, node.lineno)


def test_no_benchmark_body_raises_not_implemented_error():
    assert list(_bodies_raising_not_implemented()) == []


def test_an_absent_peer_is_skipped_in_setup():
    from benchmarks import asv_fuzzing, asv_index, asv_mask_cache, asv_schemastore

    cache = {"compile": {"naive": 1.0, "outlines-core": None}, "mask": {"walk": 2.0}}
    asv_index.IndexCompile().setup(cache, "naive")
    with pytest.raises(NotImplementedError, match="outlines-core"):
        asv_index.IndexCompile().setup(cache, "outlines-core")
    with pytest.raises(NotImplementedError, match="outlines-core"):
        asv_index.IndexMask().setup(cache, "outlines-core")
    with pytest.raises(NotImplementedError, match="llguidance"):
        asv_mask_cache.MaskCache().setup({"python": 1.0, "llguidance": None}, "llguidance")
    with pytest.raises(NotImplementedError, match="MASKREF_SCHEMASTORE"):
        asv_schemastore.SchemaStoreCounts().setup(None, "ok")
    asv_schemastore.SchemaStore().setup({"compile_p50": 0.1}, "p50")
    with pytest.raises(NotImplementedError, match="llguidance"):
        asv_fuzzing.Fuzzing().setup(None, "peer")
