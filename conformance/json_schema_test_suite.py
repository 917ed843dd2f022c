"""The JSON-Schema-Test-Suite as vectors: the `json_schema_test_suite` corpus, beside the default suite.

The JSON-Schema-Test-Suite (github.com/json-schema-org/JSON-Schema-Test-Suite, MIT; the
draft 2020-12 files, `optional/` included, copied in the checkout's
tests/data/json-schema-test-suite) is a corpus of schemas, each with instances labelled
valid or invalid. Read whole, it reaches the JSON-schema frontend's corners that samples
chosen one at a time miss (docs/conformance.md, "Mutation testing"). For each schema
refimpl compiles (a schema it refuses — a remote `$ref`, a keyword it cannot enforce
exactly — gives no vector), each instance written as compact JSON text
(`refimpl.frontends.jsontext.dumps`) is spelled on the byte vocabulary
(generate.py, `json_schema_test_suite_vectors`; this module reads the corpus and chooses):

- a valid instance along its text, then EOS (where refimpl refuses a valid instance, a
  false negative of refimpl's, along the longest prefix it allows, as below);
- an invalid instance along the longest prefix the grammar allows (`spell_prefix`), so the
  refusal is in the last mask: the next byte of the text is not in it, or the text is
  complete and EOS is not. A grammar that accepts an invalid instance whole is a bug of
  refimpl's (tests/frontends/jsonschema/test_json_schema_test_suite.py): generation stops.

**Which paths are kept** (the rule, stated once, `kept`): the whole corpus would take twice
the default suite's run time, so of one schema's paths only those that add a mask are
kept — the longest first, a path is kept iff one of its masks (with its `accepting`) is
in no path of the schema kept before it. A path that is a prefix of another, or the same
path, adds nothing (a mask depends only on the schema and the tokens before it); nor
does an instance that takes the schema through masks others took. Which mutants a vector
kills plays no part.

Vector ids: `json_schema_test_suite/<file>/<group>/<test>`, the file's path under
draft2020-12 without `.json`, the group's and the test's descriptions in lower case with
every run of other characters than letters and digits written `-` (a number added where
two would be the same).
"""
from __future__ import annotations

import json
import os
import re
from typing import Any, List, Optional

from refimpl.frontends.jsontext import dumps

from .vectors import Vector

#: the checkout's copy of the suite's draft 2020-12 tests (not shipped with the package)
SUITE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data",
                         "json-schema-test-suite", "tests", "draft2020-12")

GROUP = "json_schema_test_suite"


class Case:
    """One test of the suite: where it is (file, group and test descriptions), the
    group's schema, the instance's compact JSON text and its label."""

    __slots__ = ("file", "group", "test", "schema", "text", "valid")

    def __init__(self, file: str, group: str, test: str, schema: Any, text: str, valid: bool) -> None:
        self.file, self.group, self.test = file, group, test
        self.schema, self.text, self.valid = schema, text, valid


def read_tests(suite_dir: Optional[str] = None) -> List[Case]:
    """Every test of the suite's files (in `suite_dir`, by default SUITE_DIR), in the order
    of their sorted paths, groups and tests. A missing folder is an OSError naming it (the
    corpus is read from a checkout: `generate` says so as one error line)."""
    suite_dir = suite_dir or SUITE_DIR
    if not os.path.isdir(suite_dir):
        raise FileNotFoundError("the JSON-Schema-Test-Suite is read from a checkout: no folder %s" % suite_dir)
    files = []
    for folder, _, names in os.walk(suite_dir):
        files += [os.path.join(folder, n) for n in names if n.endswith(".json")]
    tests = []
    for path in sorted(files, key=lambda p: os.path.relpath(p, suite_dir).replace(os.sep, "/")):
        name = os.path.relpath(path, suite_dir).replace(os.sep, "/")[:-len(".json")]
        with open(path, encoding="utf-8") as f:
            groups = json.load(f)
        for group in groups:
            for test in group["tests"]:
                tests.append(Case(name, group["description"], test["description"], group["schema"],
                                  dumps(test["data"]), test["valid"]))
    return tests


def slug(text: str) -> str:
    """A description as a piece of an id.

    >>> slug("additionalProperties being false does not allow other properties")
    'additionalproperties-being-false-does-not-allow-other-properties'
    >>> slug("$ref to $dynamicRef, 1.5 /x")
    'ref-to-dynamicref-1-5-x'
    """
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "-"


def case_ids(tests: List[Case]) -> List[str]:
    """Each test's id, unique: a repeated one gets `-2`, `-3`, ... (in the corpus's order)."""
    out, seen = [], set()  # type: List[str], set
    for t in tests:
        base = "%s/%s/%s/%s" % (GROUP, t.file, slug(t.group), slug(t.test))
        vid, n = base, 1
        while vid in seen:
            n += 1
            vid = "%s-%d" % (base, n)
        seen.add(vid)
        out.append(vid)
    return out


def kept(vectors: List[Vector]) -> List[Vector]:
    """Of one schema's vectors, those that add a mask: the longest first (then in the
    corpus's order), a vector is kept iff one of its steps holds a mask — with its
    `accepting` — that no vector kept before it holds; the kept ones in their first order.
    A path that is a prefix of another (or the same path) adds nothing: its masks are the
    longer one's.

    >>> from conformance.vectors import GrammarSpec, Step, byte_vocabulary
    >>> def v(*masks):
    ...     return Vector("v%d" % len(masks), GrammarSpec("regex", "a"), byte_vocabulary(),
    ...                   [Step(m, False, None) for m in masks])
    >>> [x.id for x in kept([v(b"a"), v(b"a", b"b"), v(b"b", b"c", b"a")])]
    ['v3']
    >>> [x.id for x in kept([v(b"d"), v(b"a", b"b"), v(b"b", b"c", b"a")])]
    ['v1', 'v3']
    """
    seen = set()  # type: set
    chosen = []
    for i in sorted(range(len(vectors)), key=lambda i: (-len(vectors[i].steps), i)):
        masks = {(s.mask, s.accepting) for s in vectors[i].steps}
        if not masks <= seen:
            seen |= masks
            chosen.append(i)
    return [vectors[i] for i in sorted(chosen)]


def cut(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n] + "..."

