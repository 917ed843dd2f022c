"""Conformance vectors from a real corpus of JSON schemas: SchemaStore's schemas with
their positive and negative test instances (github.com/SchemaStore/schemastore; schemas
and tests under Apache-2.0).

For every schema refimpl compiles (self-contained, every keyword enforced exactly, within
a time budget) and each of its JSON test instances, the vector's path spells the instance
(json.dumps, ", " and ": ") with the longest token refimpl allows at every step, as far as
refimpl allows it (a negative instance, or keys in another order than the schema's, stop
where refimpl refuses: the peers' masks are compared there too), then EOS where the
output may end. Peers are then compared on real schemas and real documents:

    python tools/schemastore_vectors.py /path/to/schemastore --out /tmp/schemastore.jsonl
    python -m conformance run --engine xgrammar --suite /tmp/schemastore.jsonl --jobs 2

The corpus is read from a checkout or from a bare git directory (HEAD).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, Iterator, List, Optional, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from conformance.corpus import Corpus as _Corpus  # noqa: E402
from conformance.corpus import compile_within  # noqa: E402
from conformance.generate import _finish, spell_prefix  # noqa: E402
from conformance.vectors import GrammarSpec, load_builtin, record, write_vectors  # noqa: E402
from refimpl import Matcher  # noqa: E402


def Corpus(root: str) -> _Corpus:  # noqa: N802 - the reader of a SchemaStore checkout, as it was named
    """The files of a SchemaStore checkout or bare git directory."""
    return _Corpus(root, os.path.join("src", "schemas", "json"))




def instance_paths(corpus: _Corpus, stem: str) -> Iterator[Tuple[str, str]]:
    """(positive|negative, path) of the schema's JSON test instances."""
    for sign, folder in (("positive", "src/test/"), ("negative", "src/negative_test/")):
        for path in sorted(corpus.files(folder + stem)):
            if path.endswith(".json"):
                yield sign, path


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpus", help="a SchemaStore checkout, or its bare git directory")
    p.add_argument("--out", required=True, help="the .jsonl file to write")
    p.add_argument("--vocab", default="gpt2", help="builtin vocabulary (default gpt2)")
    p.add_argument("--max-schema-bytes", type=int, default=20000)
    p.add_argument("--max-instances", type=int, default=2, help="per schema and sign (default 2)")
    p.add_argument("--max-tokens", type=int, default=96, help="path length cap (default 96)")
    p.add_argument("--seconds", type=int, default=10, help="compile budget per schema (default 10)")
    p.add_argument("--limit", type=int, default=0, help="at most this many schemas (default all)")
    args = p.parse_args(argv)

    corpus, vocab = Corpus(args.corpus), load_builtin(args.vocab)
    origin = "SchemaStore/schemastore@%s (Apache-2.0)" % corpus.commit()[:12]
    vectors: List[Any] = []
    skipped: Dict[str, int] = {}
    used = 0
    for schema_path, size in sorted(corpus.files("src/schemas/json").items()):
        if args.limit and used >= args.limit:
            break
        stem = os.path.basename(schema_path)[: -len(".json")]
        if size > args.max_schema_bytes or not schema_path.endswith(".json"):
            continue
        instances = list(instance_paths(corpus, stem))
        text = corpus.read(schema_path)
        if text is None or not instances:
            continue
        try:
            schema = json.loads(text)
        except ValueError:
            skipped["not JSON"] = skipped.get("not JSON", 0) + 1
            continue
        grammar, why = compile_within(schema, args.seconds)
        if grammar is None:
            reason = why[:70]
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        used += 1
        spec = GrammarSpec("json_schema", schema=schema)
        counts = {"positive": 0, "negative": 0}
        for sign, path in instances:
            if counts[sign] >= args.max_instances:
                continue
            try:
                document = json.dumps(json.loads(corpus.read(path) or ""), ensure_ascii=False)
            except ValueError:
                continue
            counts[sign] += 1
            m = Matcher(grammar, vocab)
            tokens, rest = spell_prefix(m, vocab, document.encode("utf-8")[:args.max_tokens * 8])
            tokens = tokens[:args.max_tokens]
            if not rest and len(tokens) < args.max_tokens:
                tokens = _finish(m, vocab, tokens)
            name = "schemastore/%s/%s/%s" % (stem, os.path.basename(path)[: -len(".json")], args.vocab)
            vectors.append(record(grammar, spec, vocab, tokens, name, ["schemastore", sign],
                                  origin + " " + path))
    n = write_vectors(args.out, vectors)
    print("%d schemas, %d vectors -> %s" % (used, n, args.out))
    for reason, count in sorted(skipped.items(), key=lambda kv: -kv[1]):
        print("  skipped %4d x %s" % (count, reason))
    return 0


if __name__ == "__main__":
    sys.exit(main())
