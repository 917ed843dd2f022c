"""docs/examples/ holds programs, each run by its own test (tests/conformance/test_audit.py,
tests/showing/test_cli.py, tests/decoding/test_generate.py), which skips where the
program's libraries are absent: they are not imported here to look for doctests."""
collect_ignore_glob = ["examples/*.py"]
