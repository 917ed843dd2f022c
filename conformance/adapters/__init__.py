"""Engine adapters, one module each; conformance/registry.py names them.

    refimpl.py      refimpl's Matcher (python, native, pypy, cmd:...) and the naive oracle
    llguidance.py   llguidance's LLMatcher (also the benchmarks' and tests' llguidance driver)
    llguidance_differences.py   its known differences, and Matchers that read tokens its way
    outlines.py     outlines-core's Index
    xgrammar.py     xgrammar's GrammarMatcher
    faults.py       deliberately broken Matchers, to test the suite itself

Every adapter builds on conformance/core.py only (never on another adapter, except that
faults wrap refimpl's); optional peer libraries are imported when a backend starts.
"""
