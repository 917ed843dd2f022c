"""The source checkouts the cases are read from: one folder of SOURCES_DIR per source
(the keys of `SOURCES`; the layout is in `cli`'s docstring), its COMMIT file, and its
files, read as UTF-8 text. Every source file read is listed, with its repository, commit
and license, in the output's `"meta"`.
"""
from __future__ import annotations

import os
import re
from typing import Dict, Tuple

from .cases import Collector

# folder -> (repository, license, format)
SOURCES: Dict[str, Tuple[str, str, str]] = {
    "llama.cpp": ("ggml-org/llama.cpp", "MIT", "gbnf"),
    "xgrammar": ("mlc-ai/xgrammar", "Apache-2.0", "xgrammar"),
    "kbnf": ("Dan-wanna-M/kbnf", "MIT OR Apache-2.0", "kbnf"),
    "kbnf-legacy": ("Dan-wanna-M/kbnf", "MIT OR Apache-2.0", "kbnf"),
    "kbnf-syntax": ("Dan-wanna-M/kbnf-syntax", "MIT", "kbnf"),
    "kbnf-syntax-legacy": ("Dan-wanna-M/kbnf-syntax", "MIT", "kbnf"),
}
# the note on every case read from a `*-legacy` folder
LEGACY_NOTE = "kbnf dialect before `except!` was removed (kbnf commit c796ca5, kbnf-syntax e3e0f18, 2024-08-14)"


def read_text(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def commit_of(folder: str) -> str:
    """The commit in `folder`/COMMIT."""
    commit = read_text(os.path.join(folder, "COMMIT")).strip()
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise SystemExit(f"{folder}/COMMIT must hold a 40-hex commit")
    return commit


def add_source(col: Collector, name: str, folder: str, path: str) -> None:
    """Lists `path` of source `name` in the output; what is read next is of its commit."""
    repo, license_, _ = SOURCES[name]
    col.commit = commit_of(folder)
    col.sources.append({"repo": repo, "commit": col.commit, "path": path, "license": license_})
