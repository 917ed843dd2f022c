"""The peers: other engines checked against refimpl, one package each, all laid out alike.

    llguidance/           llguidance's LLMatcher                     the engine `llguidance`
    outlines_core/        outlines-core's Index                      `outlines-core`
    xgrammar/             xgrammar's GrammarMatcher                  `xgrammar`
    kbnf/                 kbnf's Engine                              `kbnf`
    llama_cpp/            llama.cpp's grammar sampler                `llama.cpp`
    lm_format_enforcer/   lm-format-enforcer's TokenEnforcer         `lm-format-enforcer`
    transformers_cfg/     transformers-cfg's grammar constraint      `transformers-cfg`

Each package holds

        __init__.py     the engine class it exports (and what else benchmarks or tests use)
        engine.py       the Engine subclass that conformance/registry.py names
        session.py      the peer driven on refimpl's vocabulary: its objects for a vocabulary
                        (built once), a Session for a grammar spec; a predicate that asks
                        the peer itself again starts one
        reading.py      how the peer reads refimpl's grammar kinds: its input for a grammar
                        spec, and refimpl's grammars (or Matchers) for the way it reads them
        differences.py  its known differences, each declared over its predicate, in the
                        order classify tries them (a package of topic modules where they
                        are many: lm_format_enforcer/differences/)

Within a package, imports go one way: session.py imports reading.py; differences.py
may import reading.py and session.py; engine.py imports session.py and differences.py.
No peer imports another (pyproject.toml's import-linter contract); what several read alike
is in conformance/readings/. A peer library is imported only when a session starts, so
every package imports without it (and the registry imports the packages of the peers
that pull in torch only when asked for their engines).
"""
