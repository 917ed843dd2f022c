"""Small conformance vectors the conformance tests share."""
from conformance.vectors import GrammarSpec, byte_vocabulary, record


def digits_vector(path=(0x31, 0x32, 256)):  # "1", "2", EOS
    spec = GrammarSpec("regex", "[0-9]+")
    return record(spec.compile(), spec, byte_vocabulary(), list(path), "test/digits")


def write_suite(tmp_path, *vectors, name="suite.jsonl"):
    p = tmp_path / name
    p.write_text("".join(v.to_line() + "\n" for v in vectors), encoding="utf-8")
    return str(p)


def regenerated(table, names, group):
    """{id: line} of the vectors conformance/generate.py writes in `group` for the entries
    of its table `table` named `names` alone (the table's other entries left out while it
    runs)."""
    from conformance import generate

    kept = getattr(generate, table)
    try:
        setattr(generate, table, [e for e in kept if e[0] in names])
        return {v.id: v.to_line() for v in generate.generate(kinds=[group])[group]}
    finally:
        setattr(generate, table, kept)
