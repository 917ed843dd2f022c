"""The JSON-schema and type targets (hostile/targets/schemas.py): every input kept in
hostile/regressions/<target>/ keeps the property now, and the first seeds of each target
run clean (the decoders, the checks of a result)."""
from pathlib import Path

import pytest

from hostile import values
from hostile.targets.schemas import TARGETS

REGRESSIONS = Path(__file__).resolve().parents[2] / "hostile" / "regressions"
BY_NAME = {t.name: t for t in TARGETS}
KEPT = sorted((name, path.name) for name in BY_NAME for path in (REGRESSIONS / name).glob("*")
              if (REGRESSIONS / name).is_dir())


def test_every_target_has_kept_inputs_or_none_yet():
    assert {name for name, _ in KEPT} <= set(BY_NAME)
    assert len(KEPT) >= 10


@pytest.mark.parametrize("name, file", KEPT)
def test_a_kept_input_keeps_the_property(name, file):
    BY_NAME[name].run((REGRESSIONS / name / file).read_bytes())  # raises Violation if not


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_the_first_seeds_run_clean(name):
    seeds = list(BY_NAME[name].seeds())
    assert len(seeds) >= 10
    for data in seeds[:3]:
        BY_NAME[name].run(data)


def test_values_decode_any_bytes_and_read_back_what_encode_wrote():
    schema = {"type": ["integer", None], "minimum": 1.5, "x": [True, 10 ** 30, "\ud800"], "y": {"a": -3}}
    assert values.decode(values.encode(schema)) == schema
    for n in range(200):  # any bytes are a value (past the end: zeros)
        values.decode(bytes((n * 7 + i * 13) % 256 for i in range(n % 40)))
    deep = values.decode(bytes([values.NEST, 0x4E, 0x20, 1, values.NULL]))  # 20,000 `items` deep
    assert isinstance(deep, dict) and "items" in deep


def test_a_false_positive_is_a_violation():
    """The acceptance check can fail: a grammar of any JSON value, held against a schema
    of strings, accepts the instance 5, which jsonschema finds invalid."""
    from hostile.property import Violation
    from hostile.targets.schemas import verify
    from refimpl import Grammar

    anything = Grammar.from_json_schema({})
    verify(anything, {"type": "string"}, ["x"], b"", True)  # a valid instance: no complaint
    with pytest.raises(Violation, match="accepts 5"):
        verify(anything, {"type": "string"}, ["x", 5], b"", True)


def test_each_instance_is_judged_with_its_own_text():
    """An instance with no JSON text (NaN) among others: the next one's text is not
    checked against it (the fuzzer found that the pairing slipped)."""
    from hostile.targets.schemas import verify
    from refimpl import Grammar

    strings = Grammar.from_json_schema({"type": "string"})
    verify(strings, {"type": "string"}, [float("nan"), "x"], b"", True)
