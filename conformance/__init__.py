"""The conformance suite: an engine's token masks against refimpl's, vector by vector and
by differential fuzzing, each disagreement classified as a known difference (a documented
semantic difference or a reported peer bug, recognised by its predicate) or not.

    python -m conformance run --engine NAME [--suite PATH]     check an engine against vectors
    python -m conformance fuzz --engine NAME --seconds N       differential fuzzing, shrunk repros
    python -m conformance generate                             rewrite the default suite
    python -m conformance engines                              the engines, and which can run here
    python -m conformance report RESULTS... --out DIR          the scoreboard: a page, docs/compliance.md
    python -m conformance bugreport FINDING [--engine PEER]    a peer bug as a script to file upstream

(`--backend` is the older name of `--engine`, still read.) An *engine under test* is
refimpl with one of its backends, the naive oracle, an injected fault, or a peer library.

Modules and packages, one concept each (docs/conformance.md is the full story):

    __main__.py         the command line
    vectors.py          the vector format (JSON lines, version 1): grammar, vocabulary, masks
    engine.py           an engine under test: Engine and Session, what every adapter implements
    divergence.py       where an engine's mask first differs from refimpl's (Divergence)
    differences.py      known differences: declared over their predicates; classify
    registry.py         engine names -> engines (get_engine, engine_names)
    isolation.py        a peer's sessions in a forked child process, every call bounded
    refimpl_engines.py  refimpl's own engines: its Matcher with one of its backends, the oracle
    faults.py           injected faults: deliberately broken engines, the suite's test of itself
    peers/              one package per peer (engine, session, reading, known differences):
                        llguidance, outlines_core, xgrammar, kbnf, llama_cpp,
                        lm_format_enforcer, transformers_cfg
    readings/           readings several peers share: grammar shapes, JSON text and schemas,
                        regex text, the byte-level spelling of tokens
    compare.py          one step of refimpl against an engine: mask, classify, consume
    apicheck.py         the rest of the Matcher API, compared for refimpl's own engines
    runner.py           run vectors, write repros, print the table and the compliance matrix
    report.py           the scoreboard: results files -> an HTML page and docs/compliance.md
                        (its prose: compliance_template.md)
    results.py          the results file: a record per vector and engine, appended; resuming
    containment.py      work in a child process within a time and a memory limit
    cluster.py          runs spread over a Ray cluster (the only module importing Ray)
    strategies.py       hypothesis strategies: regexes, Lark grammars, JSON schemas, vocabularies
    blindspots.py       strategies for what mutation testing found no vector for
    fuzz.py             the fuzz loop: mask-guided paths, shrinking, seeds, worker processes
    generate.py         the default suite's grammars, sample texts and paths
    invalid.py          grammars every engine must refuse: the invalid group's error vectors
    python_types.py     the Python types of the types group (their JSON schemas, parse and to_json)
    json_schema_test_suite.py
                        the JSON-Schema-Test-Suite's schemas and instances as vectors (a corpus beside the default suite)
    bugreport.py        a peer bug's minimal case as a standalone script of the peer's public API
    filing.py           the survey of those scripts per peer, its record, and the table of it
    maskbench.py        JSONSchemaBench's schemas and instances as vectors; MaskBench's figures
    corpus.py           a corpus of schemas from a checkout or a bare git directory
    bpe.py              a text as the vocabulary's own tokenizer spells it (byte-level BPE)
    audit/              audit mode: a running engine's masks, sampled, checked against refimpl
    suite/              the default suite (checked in)

A peer's package imports the modules above and readings/, never another peer (an
import-linter contract in pyproject.toml; tests/conformance/test_layout.py keeps this
docstring and the packages' true).
"""
