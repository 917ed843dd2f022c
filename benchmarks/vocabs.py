"""Vocabularies for benchmarks: the embedded GPT-2 one, and Tekken (131k) from the
installed mistral-common package (the `bench` extra) when it is there."""
from __future__ import annotations

import os
from typing import Dict, Optional

from refimpl import Vocabulary


def tekken() -> Optional[Vocabulary]:
    """Mistral NeMo's Tekken vocabulary from mistral-common, or None (with a message)."""
    try:
        import mistral_common
    except ImportError:
        print("(Tekken skipped: install the bench extra, pip install -e '.[bench]', for mistral-common)")
        return None
    path = os.path.join(os.path.dirname(mistral_common.__file__), "data", "tekken_240718.json")
    if not os.path.exists(path):
        print("(Tekken skipped: %s not found in mistral-common)" % path)
        return None
    return Vocabulary.from_tekken(path)


def available() -> Dict[str, Vocabulary]:
    out = {"gpt2": Vocabulary.load("gpt2")}
    t = tekken()
    if t is not None:
        out["tekken"] = t
    return out
