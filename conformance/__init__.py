"""The conformance suite: vectors, backend adapters and the differential fuzzer.

Filled in by the conformance work; refimpl is the oracle every backend is checked against.

    python -m conformance run --backend NAME [--suite PATH]     check a backend against vectors
    python -m conformance fuzz --backend NAME --seconds N       differential fuzzing, shrunk repros
    python -m conformance generate                              rewrite the default suite

Modules, one concept each (docs/conformance.md is the full story):

    vectors.py     the vector format (JSON lines, version 1): grammar, vocabulary, masks
    backends.py    the Backend/Session interface, known differences, refimpl's adapters
    peers.py       llguidance, outlines-core, xgrammar adapters and their known differences
    faults.py      deliberately broken backends, to test the suite itself
    runner.py      run vectors, classify divergences, write repros, print the table
    strategies.py  hypothesis strategies: regexes, Lark grammars, JSON schemas, vocabularies
    fuzz.py        the fuzz loop: mask-guided paths, shrinking, seeds, worker processes
    generate.py    the default suite's grammars, sample texts and paths
    suite/         the default suite (checked in)
"""
