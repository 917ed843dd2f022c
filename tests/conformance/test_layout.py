"""conformance/'s layout is part of the product (engine authors read it): the package
docstrings name every module, every peer package is registered, named and laid out like
the others, imports inside a peer go one way and never to another peer, no peer library
is imported when a module is, and every declared known difference is in the docs."""
import ast
import importlib
import pathlib
import re

import pytest

import conformance
from conformance.differences import KnownDifferences
from conformance.engine import Engine
from conformance.registry import REGISTRY, get_engine

ROOT = pathlib.Path(conformance.__file__).parent
PEERS = ROOT / "peers"
PEER_NAMES = sorted(p.name for p in PEERS.iterdir() if (p / "__init__.py").exists())
DOCS = ROOT.parent / "docs" / "conformance.md"

#: the modules of a peer package, lowest first: each imports only modules before it
PEER_MODULES = ("reading", "session", "differences", "engine")
#: the peers' own libraries (and what they pull in): never imported when a module is
PEER_LIBRARIES = {"llguidance", "outlines_core", "xgrammar", "kbnf", "llama_cpp", "gguf", "lmformatenforcer",
                  "transformers_cfg", "transformers", "tokenizers", "torch", "numpy", "interegular"}


def packages():
    """Every package of conformance/, as (dotted name, folder)."""
    out = []
    for init in sorted(ROOT.rglob("__init__.py")):
        folder = init.parent
        if "__pycache__" not in folder.parts:
            out.append((".".join(("conformance",) + folder.relative_to(ROOT).parts), folder))
    return out


def children(folder):
    """The modules (`name.py`) and packages (`name/`) directly in a folder."""
    names = {p.name for p in folder.glob("*.py") if p.name != "__init__.py"}
    names |= {p.name + "/" for p in folder.iterdir() if (p / "__init__.py").exists()}
    if folder == ROOT:
        names.add("suite/")
    return names


def docstring(folder):
    return ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or ""


@pytest.mark.parametrize("name, folder", packages(), ids=[n for n, _ in packages()])
def test_every_module_is_named_in_its_package_docstring(name, folder):
    doc = docstring(folder)
    missing = sorted(c for c in children(folder) if not re.search(r"(?<![\w/])%s(?![\w])" % re.escape(c), doc))
    assert not missing, "%s's docstring does not name %s" % (name, ", ".join(missing))
    # and every entry of its listing (a line indented by four spaces) is one of them
    listed = re.findall(r"^    (\w+\.py|\w+/)\s", doc, re.M)
    assert set(listed) <= children(folder), sorted(set(listed) - children(folder))


def engine_module(name):
    engine = get_engine(name)
    return type(getattr(engine, "inner", engine)).__module__


@pytest.mark.parametrize("peer", PEER_NAMES)
def test_every_peer_is_registered_and_named(peer):
    names = [key for key, _, _ in REGISTRY if not key.endswith(":")]
    assert any(engine_module(n).startswith("conformance.peers.%s." % peer) for n in names), peer
    assert re.search(r"\b%s\b" % peer, conformance.__doc__), "conformance's docstring does not name %s" % peer


@pytest.mark.parametrize("peer", PEER_NAMES)
def test_peer_packages_are_laid_out_alike(peer):
    folder = PEERS / peer
    assert {"engine.py", "session.py", "reading.py"} <= children(folder), peer
    assert {"differences.py", "differences/"} & children(folder), peer
    package = importlib.import_module("conformance.peers." + peer)
    engines = [v for v in vars(package).values() if isinstance(v, type) and issubclass(v, Engine)]
    assert len(engines) == 1 and engines[0].__module__ == "conformance.peers.%s.engine" % peer
    differences = importlib.import_module("conformance.peers.%s.differences" % peer).KNOWN_DIFFERENCES
    assert isinstance(differences, KnownDifferences) and engines[0].known_differences is differences
    assert len({k.name for k in differences}) == len(differences)


def imports(path, module):
    """(dotted module imported, at module level?) for every import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = set(map(id, tree.body))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            out.append((base, id(node) in top))
            out += [(base + "." + a.name, id(node) in top) for a in node.names]
    return out


def modules_of(folder, dotted):
    for path in sorted(folder.rglob("*.py")):
        rel = path.relative_to(folder).with_suffix("").parts
        yield path, ".".join((dotted,) + tuple(p for p in rel if p != "__init__"))


@pytest.mark.parametrize("peer", PEER_NAMES)
def test_imports_in_a_peer_go_one_way_and_never_to_another_peer(peer):
    prefix = "conformance.peers.%s." % peer
    for path, module in modules_of(PEERS / peer, prefix[:-1]):
        own = module[len(prefix):].split(".")[0] if module.startswith(prefix) else "__init__"
        for imported, _ in imports(path, module):
            if imported.startswith("conformance.peers.") and not (imported + ".").startswith(prefix):
                pytest.fail("%s imports %s, another peer's" % (module, imported))
            sibling = imported[len(prefix):].split(".")[0] if imported.startswith(prefix) else None
            if own in PEER_MODULES and sibling in PEER_MODULES and sibling != own:
                assert PEER_MODULES.index(sibling) < PEER_MODULES.index(own), "%s imports %s" % (module, imported)


def test_no_module_imports_a_peer_library_when_it_is_imported():
    for path, module in modules_of(ROOT, "conformance"):
        for imported, top in imports(path, module):
            assert not (top and imported.split(".")[0] in PEER_LIBRARIES), "%s imports %s" % (module, imported)


def test_the_peers_independence_is_a_contract():
    text = (ROOT.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'type = "independence"\nmodules = \["conformance\.peers\.\*"\]', text)


@pytest.mark.parametrize("peer", PEER_NAMES)
def test_every_known_difference_is_in_the_docs(peer):
    text = DOCS.read_text(encoding="utf-8")
    differences = importlib.import_module("conformance.peers.%s.differences" % peer).KNOWN_DIFFERENCES
    assert [k.name for k in differences if "`%s`" % k.name not in text] == []
