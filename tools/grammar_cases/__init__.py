"""The GBNF, xgrammar-EBNF and KBNF cases of tests/data/grammar_cases.json, read from the
engines' own test sources.

`python3 tools/extract_grammar_cases.py SOURCES_DIR [OUTPUT]` runs it (see `cli`). One
module per source language, each reading its engine's tests by simple text processing
(no compiler or interpreter of the engines is needed):

* `cpp`: llama.cpp's C++ grammar tests and its example grammars (GBNF).
* `python`: xgrammar's pytest files, by a small symbolic interpreter (xgrammar's EBNF).
* `rust`: kbnf's engine tests and kbnf-syntax's parser tests (KBNF).

and what they share:

* `cases`: the records written (cases, compile cases) and the collector that merges
  what the tests say into them.
* `lexing`: tokens with decoded string literals, for the C++ and Rust readers.
* `sources`: the source checkouts (repositories, licenses, COMMIT files).
* `cli`: which files each extractor reads, the JSON written and the summary printed.

A string that cannot be decoded with certainty leaves its case out; the summary printed
at the end counts everything left out, by reason.
"""
