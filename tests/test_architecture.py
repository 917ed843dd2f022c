"""docs/architecture.md and the layers contract stay true to the folders.

Every package and module of refimpl is named in docs/architecture.md, and every module
the page names exists; every top-level package and module of refimpl has its layer in
the import-linter contract of pyproject.toml (so a new stage cannot be added without
saying where it sits); tests/ mirrors refimpl's stages.
"""
import re

from tests.support.paths import ROOT

REFIMPL = ROOT / "refimpl"
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
GENERATED = {"unicode_data.py"}


def named(name: str) -> bool:
    return re.search(r"(?<![\w/])%s(?![\w])" % re.escape(name), PAGE) is not None


def test_every_package_and_module_of_refimpl_is_named():
    missing = []
    for path in sorted(REFIMPL.rglob("*.py")):
        rel = path.relative_to(REFIMPL)
        if path.name == "__init__.py":
            if rel.parent.parts and not named(rel.parent.name + "/"):
                missing.append(str(rel.parent) + "/")
        elif path.name not in GENERATED and not named(path.name):
            missing.append(str(rel))
    assert not missing, "not named in docs/architecture.md: %s" % ", ".join(missing)


def test_every_module_named_exists():
    modules = {p.name for top in ("refimpl", "accel", "conformance", "integrations", "hostile", "tests")
               for p in (ROOT / top).rglob("*.py")} | {p.name for p in (ROOT / "accel").glob("*.c")}
    mentioned = set(re.findall(r"`(?:[\w/]+/)?(\w+\.(?:py|c))`", PAGE))
    assert mentioned and not mentioned - modules, sorted(mentioned - modules)


def test_every_stage_has_its_layer():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    contract = text[text.index("name = \"refimpl's stages"):]
    layers = set(re.findall(r"refimpl\.(\w+)", contract[contract.index("layers = ["):contract.index("]\n")]))
    stages = {p.stem if p.is_file() else p.name for p in REFIMPL.iterdir()
              if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}
    assert stages == layers


def test_tests_mirror_the_stages():
    stages = {p.name for p in REFIMPL.iterdir() if (p / "__init__.py").exists()}
    folders = {p.name for p in (ROOT / "tests").iterdir() if (p / "__init__.py").exists()}
    assert stages <= folders, stages - folders
