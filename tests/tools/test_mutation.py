"""tools/mutation.py: the sample, the verdicts and the scores, and one hand-made mutant
checked end to end (a worker running a mutated copy of refimpl against the reference, on
a one-vector suite). No mutation tool runs here: cosmic-ray is only needed by a campaign."""
from __future__ import annotations

import doctest
import importlib.util
import json
import os
import shutil
import sys

import pytest

from tests.support.paths import ROOT

_spec = importlib.util.spec_from_file_location("mutation", str(ROOT / "tools" / "mutation.py"))
assert _spec is not None and _spec.loader is not None
mutation = importlib.util.module_from_spec(_spec)
sys.modules["mutation"] = mutation
_spec.loader.exec_module(mutation)


def test_doctests():
    failed, tried = doctest.testmod(mutation, optionflags=doctest.ELLIPSIS)
    assert tried >= 8 and failed == 0


def _population():
    files = {"regex": ["refimpl/regex/reader.py", "refimpl/regex/dfa.py"], "lexer": ["refimpl/recognition/lexer.py"],
             "earley": ["refimpl/recognition/earley.py"], "tokens": ["refimpl/masks/walk.py"],
             "matcher": ["refimpl/masks/matcher.py"],
             "recognizer": ["refimpl/recognition/recognizer.py"]}
    sizes = {"regex": 900, "lexer": 120, "earley": 80, "tokens": 300, "matcher": 60, "recognizer": 40}
    out = []
    for g, paths in files.items():
        for i in range(sizes[g]):
            out.append(mutation.Mutant(paths[i % len(paths)], "core/AddNot", i, i + 1, g))
    return out


def test_the_sample_is_deterministic_and_stratified():
    pop = _population()
    a, b = mutation.sample(pop, 100, seed=3), mutation.sample(list(reversed(pop)), 100, seed=3)
    assert a == b and len(a) == 100 and len(set(a)) == 100
    assert mutation.sample(pop, 100, seed=4) != a
    by_group = {g: sum(1 for m in a if m.group == g) for g in mutation.GROUPS}
    # square-root shares: every group gets some, the big one less than its plain share
    assert all(n >= 5 for n in by_group.values()), by_group
    assert by_group["regex"] < 100 * 900 // len(pop)
    assert by_group["regex"] > by_group["lexer"] > by_group["recognizer"]
    even = mutation.sample(pop, 0, seed=3, per_group=12)
    assert {g: sum(1 for m in even if m.group == g) for g in mutation.GROUPS} == {g: 12 for g in mutation.GROUPS}


def test_groups_and_keys():
    m = mutation.Mutant("refimpl/masks/walk.py", "core/ReplaceTrueWithFalse", 4, 10)
    assert mutation.group_of(m.path) == "tokens" and m.key == "refimpl/masks/walk.py:ReplaceTrueWithFalse:4"
    with pytest.raises(ValueError):
        mutation.group_of("refimpl/frontends/lark/reader.py")
    frontends = mutation.FAMILIES["frontends"]
    assert mutation.group_of("refimpl/frontends/lark/reader.py", frontends) == "lark"
    assert mutation.group_of("refimpl/tokens/special.py", frontends) == "special"
    assert mutation.group_of("refimpl/tokens/special.py") == "tokens"
    with pytest.raises(SystemExit, match="expected a family"):
        mutation.chosen_groups("lark,regex")  # not of one family
    assert mutation.changed_lines("a = 1\nb = 2\n", "a = 1\nb = 3\n") == ("b = 2", "b = 3")


def test_review_matches_by_text_not_line():
    r = {"path": "refimpl/recognition/lexer.py", "operator": "core/AddNot", "before": "if x:", "after": "if not x:",
         "line": 10, "outcome": "survived", "group": "lexer"}
    review = [{"path": "refimpl/recognition/lexer.py", "operator": "core/AddNot", "before": "if x:", "after": "if not x:",
               "verdict": "equivalent", "reason": "x is always true"}]
    assert mutation.classify(r, review) == "equivalent"
    assert mutation.classify(dict(r, line=99), review) == "equivalent"
    assert mutation.classify(dict(r, after="if x or y:"), review) == "missed"
    missed = [dict(review[0], verdict="missed")]
    assert mutation.classify(r, missed) == "missed"
    report = mutation.markdown({"refimpl_rev": "abc", "conformance_rev": "abc", "seed": 0, "population": 10,
                                "fuzz_seconds": 60}, [r, dict(r, before="y", outcome="killed-fuzz")], review)
    assert "| lexer | 2 | 0 | 1 | 1 (0) | 0 | 0.0% | 100.0% | 100.0% |" in report and "x is always true" in report
    shown = [dict(review[0], reason="display only: a name")]
    s = mutation.scores([r, dict(r, before="y", outcome="killed-fuzz")], shown)["lexer"]
    assert (s["equivalent"], s["display"], s["score"], s["strict_score"]) == (1, 1, 100.0, 50.0)


def test_the_checked_in_review_is_well_formed():
    with open(mutation.REVIEW_FILE, encoding="utf-8") as f:
        entries = json.load(f)["mutants"]
    assert entries
    for e in entries:
        assert e["verdict"] in ("equivalent", "missed") and e["reason"].strip(), e
        assert e["path"].startswith("refimpl/") and e["operator"].startswith("core/")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """A clone made of a copy of refimpl and this checkout's conformance, a two-vector suite
    (a regex whose path ends with EOS; a Lark grammar refimpl refuses), and the unmutated
    copy checked once."""
    clone = tmp_path_factory.mktemp("clone")
    shutil.copytree(str(ROOT / "refimpl"), str(clone / "refimpl"), ignore=shutil.ignore_patterns("__pycache__"))
    os.symlink(str(ROOT / "conformance"), str(clone / "conformance"))
    os.symlink(str(ROOT / "hostile"), str(clone / "hostile"))
    from conformance.vectors import GrammarSpec, byte_vocabulary, record, refused, write_vectors

    spec = GrammarSpec("regex", "(ab)+")
    suite = clone / "suite.jsonl"
    bad_regex = GrammarSpec("lark", "start: /a(/\n")  # an error vector: the `invalid` group's invalid/lark/bad-regex
    write_vectors(str(suite), [record(spec.compile(), spec, byte_vocabulary(), list(b"abab") + [256], "tiny/0"),
                               refused(bad_regex, byte_vocabulary(), "tiny/bad-regex")])
    c = mutation.Campaign(clone, clone / "out", fuzz_seconds=0, seed=0, nice=0, suite=str(suite), run_timeout=120)
    c.baseline()
    return c


def test_a_hand_made_mutant_is_killed_and_a_harmless_one_survives(campaign):
    """A Matcher that refuses every token (its mask allows them): `run` kills it. A
    comment added survives, and the review can call it equivalent."""
    source = (campaign.clone / "refimpl" / "masks" / "matcher.py").read_text(encoding="utf-8")
    m = mutation.Mutant("refimpl/masks/matcher.py", "core/ReplaceTrueWithFalse", 0, 1)
    killed = campaign.check_source(m, source + "\nMatcher.consume = lambda self, token: False\n")
    assert killed["outcome"] == "killed-run", killed
    assert (campaign.mutant_dir / "refimpl" / "masks" / "matcher.py").read_text(encoding="utf-8") == source  # restored
    kept = campaign.check_source(m, source + "\n# a comment\n")
    assert kept["outcome"] == "survived" and "fuzz" not in kept, kept
    assert kept["after"] == "# a comment"
    review = [{"path": m.path, "operator": m.operator, "before": kept["before"], "after": kept["after"],
               "verdict": "equivalent", "reason": "a comment"}]
    s = mutation.scores([killed, kept], review)["total"]
    assert (s["killed"], s["equivalent"], s["missed"], s["score"]) == (1, 1, 0, 100.0)
    assert mutation.verdict(mutation.Check(None, 1.0), None) == "timeout-run"


def test_an_error_vector_kills_a_mutant_that_misplaces_an_error(campaign):
    """Issue 35's survivor of the lark group: an invalid regex inside a Lark grammar
    reported one byte off (reader.py, `tok.offset + 1` made `+ 0`). The worker still
    refuses the grammar, but not at refimpl's position: the error vector kills it."""
    path = "refimpl/frontends/lark/reader.py"
    source = (campaign.clone / path).read_text(encoding="utf-8")
    before = "RegexLit(tok.offset, pattern, flags, tok.offset + 1)"
    assert source.count(before) == 1
    m = mutation.Mutant(path, "core/NumberReplacer", 0, 1, "lark")
    killed = campaign.check_source(m, source.replace(before, before.replace("+ 1", "+ 0")), fuzz=False)
    assert killed["outcome"] == "killed-run" and killed["run"]["rc"] == 1, killed
    assert "tiny/bad-regex" in killed["run"]["tail"], killed


def test_the_docs_tables_are_generated_from_the_checked_in_results():
    """Each `<!-- BEGIN mutation NAME -->` block of docs/conformance.md is what
    `tools/mutation.py --table results/mutation/NAME` prints (so a new result or a new
    review entry makes the page stale, and this test says so)."""
    import re

    page = ROOT / "docs" / "conformance.md"
    names = re.findall(r"<!-- BEGIN mutation (\S+) -->", page.read_text(encoding="utf-8"))
    assert names
    for name in names:
        folder = ROOT / "results" / "mutation" / name
        assert folder.is_dir(), folder
        assert mutation.block(page, name) == mutation.table(folder), (
            "docs/conformance.md is stale: python tools/mutation.py --table %s --docs docs/conformance.md"
            % folder.relative_to(ROOT))


def test_the_table_counts_a_campaign_folder(tmp_path):
    group = tmp_path / "frontends-s0" / "lark"
    group.mkdir(parents=True)
    (group / "meta.json").write_text(json.dumps({"baseline_seconds": 60.0, "population_by_group": {"lark": 500}}))
    rows = [{"key": "k%d" % i, "group": "lark", "path": "p", "operator": "o", "before": str(i), "after": "x",
             "outcome": o, "run": {"rc": 0, "seconds": 30.0}} for i, o in enumerate(
                 ["killed-run", "killed-run", "killed-fuzz", "survived"])]
    (group / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = mutation.table(tmp_path / "frontends-s0", review=[])
    assert "| lark | 4 (500) | 0 (0) | 2/4 | fuzz not run | 50.0% [15–85] |  | 3 min |" in text, text
    rows[2]["fuzz"], rows[3]["fuzz"] = {"rc": 1, "seconds": 5.0}, {"rc": 0, "seconds": 60.0}
    (group / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = mutation.table(tmp_path / "frontends-s0", review=[])
    assert "| lark | 4 (500) | 0 (0) | 2/4 | 3/4 | 50.0% [15–85] | 75.0% [30–95] | 4 min |" in text, text
    page = tmp_path / "page.md"
    page.write_text("x\n<!-- BEGIN mutation frontends-s0 -->\nold\n<!-- END mutation frontends-s0 -->\ny\n")
    assert mutation.write_table(tmp_path / "frontends-s0", page) == 0
    assert mutation.block(page, "frontends-s0") == text and page.read_text().endswith("\ny\n")


def test_a_hand_made_typed_mutant_is_killed_by_regenerating_the_types_group(campaign):
    """refimpl/frontends/typed runs in no worker: its mutants are judged by regenerating
    the `types` suite group with the mutated copy (run in `.mutant`, with a `conformance`
    link) and comparing it with the checked-in file. parse's message for a missing key
    changed: the notes differ, killed; a ParseError that is no longer raised: generation
    fails, killed; a comment: the same file, a survivor, and no fuzzing."""
    c = mutation.Campaign(campaign.clone, campaign.clone / "out-typed", fuzz_seconds=30, seed=0, nice=0,
                          groups=["typed"])
    c.baseline()
    assert c.generate_timeouts["types"] >= 60 and os.path.islink(c.mutant_dir / "conformance")
    path = "refimpl/frontends/typed/parse.py"
    source = (c.clone / path).read_text(encoding="utf-8")
    m = mutation.Mutant(path, "core/ReplaceBinaryOperator_Add_Sub", 0, 1, "typed")
    message = source.replace('"missing key %s before %s (%s)"', '"missing key %s before %s [%s]"')
    assert message != source
    killed = c.check_source(m, message)
    assert killed["outcome"] == "killed-run" and killed["check"] == "generate --only types", killed
    assert killed["run"]["tail"].startswith("types.jsonl regenerated differs: line ") and "types/" in killed["run"]["tail"]
    assert (c.mutant_dir / path).read_text(encoding="utf-8") == source  # restored
    raising = "    if not ok:\n        offset, message, node = value\n"
    lenient = source.replace(raising, raising.replace("not ok", "False"))
    assert lenient != source
    failed = c.check_source(m, lenient)
    assert failed["outcome"] == "killed-run" and "generate --only types failed (exit 1)" in failed["run"]["tail"], failed
    kept = c.check_source(m, source + "\n# a comment\n")
    assert kept["outcome"] == "survived" and "fuzz" not in kept and kept["run"]["rc"] == 0, kept


def test_a_jsonschema_mutant_the_suite_misses_is_judged_by_regenerating_types_too(campaign):
    """digits.py serves refimpl.typed's parse too: a mutant of the `jsonschema` group that
    the (here two-vector) suite does not find is then judged by regenerating `types`. A
    negative integer read as positive stops generation (a value of types/scalars no longer
    parses back), killed there; a comment survives both checks."""
    c = mutation.Campaign(campaign.clone, campaign.clone / "out-jsonschema", fuzz_seconds=0, seed=0, nice=0,
                          suite=campaign.suite, run_timeout=120, groups=["jsonschema"])
    c.baseline()
    path = "refimpl/frontends/digits.py"
    source = (c.clone / path).read_text(encoding="utf-8")
    m = mutation.Mutant(path, "core/AddNot", 0, 1, "jsonschema")
    positive = source.replace("return -value if negative else value", "return value")
    assert positive != source
    killed = c.check_source(m, positive)
    assert killed["outcome"] == "killed-run" and killed["check"] == "run, then hostile replay, then generate --only types"
    assert killed["run"]["tail"].startswith("generate --only types failed (exit 1)"), killed["run"]["tail"]
    kept = c.check_source(m, source + "\n# a comment\n")
    assert kept["outcome"] == "survived" and kept["run"]["tail"].endswith("\ntypes.jsonl regenerated as checked in"), kept


def test_a_jsonschema_mutant_no_vector_can_reach_is_judged_by_replaying_hostile_regressions(campaign):
    """Seed 41's survivor: a schema given as a Python dict with a key that is not a string
    raised a TypeError for refimpl's SchemaError. No vector (JSON) and no worker (sent
    JSON) can hold such a schema; hostile's json-schema-value target has one among its
    regression inputs ({"properties": {1: {}}}), replayed in the copy: killed there."""
    c = mutation.Campaign(campaign.clone, campaign.clone / "out-jsonschema-values", fuzz_seconds=0, seed=0, nice=0,
                          suite=campaign.suite, run_timeout=120, groups=["jsonschema"])
    c.baseline()
    assert c.replay_timeouts["jsonschema"] >= 60 and os.path.islink(c.mutant_dir / "hostile")
    path = "refimpl/frontends/jsonschema/values.py"
    source = (c.clone / path).read_text(encoding="utf-8")
    before = '"keys must be strings, got %s" % shown(k)'
    assert source.count(before) == 1
    m = mutation.Mutant(path, "core/ReplaceBinaryOperator_Mod_Mul", 0, 1, "jsonschema")
    killed = c.check_source(m, source.replace(before, before.replace("% shown", "* shown")), fuzz=False)
    assert killed["outcome"] == "killed-run" and killed["run"]["rc"] == 1, killed
    assert "json-schema-value" in killed["run"]["tail"] and "TypeError" in killed["run"]["tail"], killed


def test_an_index_mutant_the_worker_misses_is_judged_by_the_token_index_engine_in_the_copy(campaign):
    """The token index's own API runs in no worker (the Matcher's index backend reads the
    rows itself): a mutant of the `index` group that the worker's run does not find is then
    judged by `conformance run --engine token-index` started in the copy. TokenIndex.mask
    that never allows EOS (seed 41's survivor) is killed there; a comment survives both."""
    c = mutation.Campaign(campaign.clone, campaign.clone / "out-index", fuzz_seconds=0, seed=0, nice=0,
                          suite=campaign.suite, run_timeout=120, worker_options="--backend index", groups=["index"])
    c.baseline()
    assert c.in_copy_timeouts["token-index"] >= 60
    path = "refimpl/masks/index/table.py"
    source = (c.clone / path).read_text(encoding="utf-8")
    m = mutation.Mutant(path, "core/ZeroIterationForLoop", 0, 1, "index")
    no_eos = source.replace("for t in self.eos_token_ids:", "for t in []:")
    assert no_eos != source
    killed = c.check_source(m, no_eos)
    assert killed["outcome"] == "killed-run" and killed["check"] == (
        "run, then run --engine token-index, token-index-bare, token-index-naive in the copy")
    assert killed["run"]["rc"] == 1 and "token-index" in killed["run"]["tail"], killed
    kept = c.check_source(m, source + "\n# a comment\n")
    assert kept["outcome"] == "survived" and kept["run"]["rc"] == 0, kept


def test_an_index_mutant_that_declines_what_the_backend_supports_is_killed(campaign, tmp_path):
    """The index backend declines a grammar that is not regular (unsupported, a skip); a
    mutant that declines every grammar (seed 43's `len(s) >= 1`) loses the support the
    unmutated backend's results record, and `run --supported` fails on it (SUPPORT_JUDGED)."""
    from conformance.__main__ import main as conformance_main

    assert mutation.SUPPORT_JUDGED["index"] == "results/default/index.jsonl.gz"
    assert (ROOT / mutation.SUPPORT_JUDGED["index"]).is_file()
    supported = str(tmp_path / "index.jsonl")
    assert conformance_main(["run", "--engine", "index", "--suite", campaign.suite, "--quiet", "--no-contain",
                             "--results", supported]) == 0
    c = mutation.Campaign(campaign.clone, campaign.clone / "out-support", fuzz_seconds=0, seed=0, nice=0,
                          suite=campaign.suite, run_timeout=120, worker_options="--backend index", groups=["index"],
                          supported=supported)
    c.baseline()
    path = "refimpl/masks/index/regular.py"
    source = (c.clone / path).read_text(encoding="utf-8")
    none_regular = source.replace("if any(len(s) > 1 for s in partial):", "if any(len(s) >= 1 for s in partial):")
    assert none_regular != source
    killed = c.check_source(mutation.Mutant(path, "core/ReplaceComparisonOperator_Gt_GtE", 0, 1, "index"), none_regular)
    assert killed["outcome"] == "killed-run" and "SUPPORT LOST tiny/0" in killed["run"]["tail"], killed


def test_a_held_out_sample_leaves_out_the_mutants_drawn_before(tmp_path):
    """`--exclude`: the keys of every results.jsonl below a campaign folder."""
    for group, keys in (("lark", ["a.py:X:0", "a.py:X:1"]), ("ebnf", ["b.py:Y:3"])):
        (tmp_path / "old" / group).mkdir(parents=True)
        (tmp_path / "old" / group / "results.jsonl").write_text(
            "".join(json.dumps({"key": k, "outcome": "survived"}) + "\n" for k in keys))
    assert mutation.drawn_before([str(tmp_path / "old")]) == {"a.py:X:0", "a.py:X:1", "b.py:Y:3"}
    assert mutation.drawn_before([]) == set()


def test_an_exclude_that_is_no_folder_is_an_error(tmp_path, capsys):
    """A mistyped --exclude would silently exclude nothing: one error line, exit 2."""
    assert mutation.main(["--exclude", str(tmp_path / "missing"), "--table", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "error: --exclude %s: not a folder\n" % (tmp_path / "missing")
