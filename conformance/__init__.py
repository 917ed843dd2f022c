"""The conformance suite: vectors, backend adapters and the differential fuzzer.

Filled in by the conformance work; refimpl is the oracle every backend is checked against.

    python -m conformance run --backend NAME [--suite PATH]     check a backend against vectors
    python -m conformance fuzz --backend NAME --seconds N       differential fuzzing, shrunk repros
    python -m conformance generate                              rewrite the default suite

Modules, one concept each (docs/conformance.md is the full story):

    vectors.py     the vector format (JSON lines, version 1): grammar, vocabulary, masks
    core.py        the Engine/Session interface, divergences, known differences
    adapters/      one module per backend: refimpl (Matcher, oracle), llguidance, outlines,
                   xgrammar, faults (deliberately broken backends, to test the suite itself)
    registry.py    backend names -> adapters (get_engine, engine_names)
    compare.py     one step of refimpl against a backend: mask, classify, consume
    runner.py      run vectors, write repros, print the table
    strategies.py  hypothesis strategies: regexes, Lark grammars, JSON schemas, vocabularies
    fuzz.py        the fuzz loop: mask-guided paths, shrinking, seeds, worker processes
    generate.py    the default suite's grammars, sample texts and paths
    suite/         the default suite (checked in)
"""
