#!/usr/bin/env python3
"""Extract GBNF, xgrammar-EBNF and KBNF test cases into tests/data/grammar_cases.json.

Usage:
    python3 tools/extract_grammar_cases.py SOURCES_DIR [OUTPUT]

The extractors are the package tools/grammar_cases/ (one module per source language);
the command is `grammar_cases.cli`, whose docstring describes SOURCES_DIR.
"""
import sys

if __name__ == "__main__":
    from grammar_cases.cli import main  # run as a script, this file's folder is on sys.path

    sys.exit(main(sys.argv))
