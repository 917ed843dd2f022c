"""The figures the README and docs/conformance.md give of the default suite (its vectors and
masks) are the suite's: a regenerated suite that changes them fails here until the text
says the new ones."""
import json
import pathlib
import re

from conformance.generate import SUITE_DIR
from tests.support.paths import ROOT


def masks_of(line):
    """The masks a vector holds: its steps, none for an error vector (its one step, the
    empty mask, is only there for readers that predate `error`)."""
    data = json.loads(line)
    return 0 if "error" in data else len(data["steps"])


def test_the_docs_give_the_suites_size():
    vectors = masks = 0
    for path in sorted(pathlib.Path(SUITE_DIR).glob("*.jsonl")):
        for line in path.read_text().splitlines():
            vectors += 1
            masks += masks_of(line)
    assert vectors > 500
    for doc in ("README.md", "docs/conformance.md"):
        text = " ".join((ROOT / doc).read_text().split())  # the figures may be wrapped
        said = re.search(r"(\d[\d,]*) vectors, (\d[\d,]*) masks", text)
        assert said, doc
        assert (int(said.group(1).replace(",", "")), int(said.group(2).replace(",", ""))) == (vectors, masks), doc


def test_the_docs_give_each_suite_files_size():
    """docs/conformance.md's "`<file>.jsonl` (N vectors[, M masks]" of each suite file."""
    text = " ".join((ROOT / "docs" / "conformance.md").read_text().split())
    said = re.findall(r"`(\w+)\.jsonl` \((\d[\d,]*) vectors(?:, (\d[\d,]*) masks)?", text)
    assert len(said) >= 5
    for name, n, m in said:
        lines = (pathlib.Path(SUITE_DIR) / (name + ".jsonl")).read_text().splitlines()
        assert int(n.replace(",", "")) == len(lines), name
        if m:
            assert int(m.replace(",", "")) == sum(masks_of(line) for line in lines), name


def test_the_readme_gives_the_number_of_error_vectors():
    """The README's "N malformed grammars every engine must refuse": the suite's error
    vectors (invalid.jsonl's, and any other file's)."""
    errors = sum(1 for path in sorted(pathlib.Path(SUITE_DIR).glob("*.jsonl"))
                 for line in path.read_text().splitlines() if "error" in json.loads(line))
    text = " ".join((ROOT / "README.md").read_text().split())
    said = re.search(r"(\d[\d,]*) malformed grammars every engine must refuse", text)
    assert said and int(said.group(1).replace(",", "")) == errors
