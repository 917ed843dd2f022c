"""Hostile input, measured: coverage-guided fuzzing of every entry point that reads
outside input (docs/hostile.md).

Each *target* (hostile/targets/) turns arbitrary bytes into a call of one entry point —
`Grammar.from_regex`, a vocabulary loader, the vector reader, the worker protocol, the
command line — and checks the *property* every entry point keeps (hostile/property.py):
a result, or a typed maskref error that names the problem and its position; never
another exception, never more than a stated time per input, never unbounded memory.

The targets are plain functions of bytes, so the regression inputs in
hostile/regressions/ replay under pytest on any interpreter; atheris (the `fuzz` extra,
libFuzzer's coverage-guided mutation on CPython) drives them in campaigns.
"""
