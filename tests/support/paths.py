"""Where the tests' files are: the repository, tests/data, the default conformance suite."""
import pathlib

TESTS = pathlib.Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
DATA = TESTS / "data"
SUITE = ROOT / "conformance" / "suite"
TOOLS = ROOT / "tools"
