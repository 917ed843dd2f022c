"""asv: the slow tail of real JSON schemas (benchmarks/schemastore.py; docs/benchmarks.md,
"Real schemas: SchemaStore") — the distributions of compile seconds and of consume µs per
byte over SchemaStore's schemas and test instances, measured once in `setup_cache`.

SchemaStore is not vendored: set MASKREF_SCHEMASTORE to a checkout or bare git directory
(e.g. the mirror's /work/.mirror/SchemaStore+schemastore/repo); without it the
benchmarks are skipped. A run takes ~8 minutes on 2 cores.
"""
import os

_STATS = ["p50", "p90", "p99", "max"]


def _measure():
    from . import schemastore

    corpus = os.environ.get("MASKREF_SCHEMASTORE")
    if not corpus:
        return None
    run = schemastore.measure(corpus, profile=0, progress=False)
    return schemastore.summary(run)


def _needs_corpus(cache):
    """A benchmark's setup: skip it (asv reads NotImplementedError raised in setup as a skip)
    when no SchemaStore checkout was measured."""
    if cache is None:
        raise NotImplementedError("set MASKREF_SCHEMASTORE to a SchemaStore checkout")


class SchemaStore:
    params = [_STATS]
    param_names = ["stat"]
    timeout = 3600

    def setup_cache(self):
        return _measure()

    def setup(self, cache, stat):
        _needs_corpus(cache)

    def track_compile_seconds(self, cache, stat):
        return cache["compile_" + stat]
    track_compile_seconds.unit = "s"

    def track_consume_us_per_byte(self, cache, stat):
        return cache["consume_" + stat]
    track_consume_us_per_byte.unit = "us/byte"

    def track_consume_again_us_per_byte(self, cache, stat):
        """The same instances read again by another fresh Recognizer (a warm grammar)."""
        return cache["consume_warm_" + stat]
    track_consume_again_us_per_byte.unit = "us/byte"


class SchemaStoreCounts:
    params = [["over_2s", "timeout", "limit_error", "ok"]]
    param_names = ["count"]
    timeout = 3600

    def setup_cache(self):
        return _measure()

    def setup(self, cache, count):
        _needs_corpus(cache)

    def track_schemas(self, cache, count):
        return cache[count]
    track_schemas.unit = "schemas"


class LlamaCppGBNF:
    """Compiling llama.cpp's GBNF conversion of SchemaStore's pm2-ecosystem (14 KB of
    GBNF; the character-grammar compiler's rounds of cuts and its lexing check,
    docs/benchmarks.md "GBNF"). Needs MASKREF_SCHEMASTORE and llama-cpp-python (the
    `llama` extra)."""

    timeout = 600
    number = 1
    repeat = 3

    def setup(self):
        corpus = os.environ.get("MASKREF_SCHEMASTORE")
        if not corpus:
            raise NotImplementedError("set MASKREF_SCHEMASTORE to a SchemaStore checkout")
        try:
            from llama_cpp.llama_grammar import json_schema_to_gbnf
        except ImportError:
            raise NotImplementedError("needs llama-cpp-python (the llama extra)") from None
        from . import schemastore

        self.gbnf = json_schema_to_gbnf(schemastore._corpus(corpus).read("src/schemas/json/pm2-ecosystem.json"))

    def time_compile(self):
        from refimpl import Grammar

        Grammar.from_gbnf(self.gbnf)
