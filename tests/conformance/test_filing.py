"""The survey of the bug reports that can be filed (conformance/filing.py): docs/findings.md's
table is what the committed record gives, and the record names only peer bugs the adapters
still declare. A peer bug declared since a survey shows as one without a case; a survey run
again rewrites the record and the page (`python -m conformance bugreport --survey PEER
--markdown docs/findings.md`)."""
from conformance import filing
from conformance.__main__ import main
from conformance.bugreport import peer_differences
from tests.support import cli
from tests.support.paths import ROOT

PAGE = ROOT / "docs" / "findings.md"


def test_the_page_shows_the_record():
    record = filing.read_record()
    assert filing.block(PAGE.read_text(encoding="utf-8")) == filing.table(record), (
        "docs/findings.md's bug-report table is stale: python -m conformance bugreport --survey PEER "
        "--markdown docs/findings.md (or regenerate it from the record)")


def test_the_record_names_declared_peer_bugs_only():
    assert filing.stale(filing.read_record()) == []


def made_up():
    bugs = [k.name for k in peer_differences("kbnf") if k.kind == "peer-bug"]
    return bugs, {"peers": {"kbnf": {"version": "kbnf 9.9", "date": "2030-01-01", "present": bugs[:2],
                                     "fixed": bugs[2:3], "failed": bugs[3:4]}},
                  "no_case_why": {"kbnf/" + bugs[4]: "a reason"}}


def test_a_row_counts_the_record_and_names_what_has_no_case():
    bugs, record = made_up()
    row = next(line for line in filing.table(record).splitlines() if line.startswith("| kbnf |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:8] == ["kbnf", "kbnf 9.9", "2030-01-01", str(len(bugs)), "4", "2", "1", "1"]
    assert cells[8].split(", ") == ["`%s` (a reason)" % bugs[4]] + ["`%s`" % n for n in bugs[5:]]
    never = next(line for line in filing.table(record).splitlines() if line.startswith("| xgrammar |"))
    assert "never" in never and "not surveyed" in never


def test_a_renamed_peer_bug_makes_the_record_stale():
    bugs, record = made_up()
    record["peers"]["kbnf"]["present"].append("no-such-bug")
    record["no_case_why"]["kbnf/gone"] = "x"
    assert filing.stale(record) == ["kbnf/no-such-bug", "kbnf/gone"]


def test_a_script_is_judged_by_its_exit_status_and_what_it_printed():
    assert filing.run_script("print('BUG PRESENT in x'); raise SystemExit(1)") == "present"
    assert filing.run_script("print('FIXED UPSTREAM in x')") == "fixed"
    assert filing.run_script("print('BUG PRESENT in x')") == "failed"  # exit 0 yet the bug
    assert filing.run_script("raise ValueError") == "failed"
    assert filing.run_script("import time; time.sleep(5)", timeout=0.5) == "failed"


def test_the_table_is_written_into_its_block_only(tmp_path):
    bugs, record = made_up()
    page = tmp_path / "page.md"
    page.write_text("# T\n\n%s\nold\n%s\n\nafter\n" % filing.MARKS, encoding="utf-8")
    filing.write_table(record, str(page))
    assert page.read_text(encoding="utf-8") == "# T\n\n%s\n%s\n%s\n\nafter\n" % (
        filing.MARKS[0], filing.table(record), filing.MARKS[1])


def test_the_command_line_refuses_what_it_cannot_survey(capsys, tmp_path):
    cli.fails(main, capsys, ["bugreport", "--survey", "refimpl"], "refimpl", "llguidance")
    cli.fails(main, capsys, ["bugreport"], "finding", "--survey")
    cli.fails(main, capsys, ["bugreport", "--survey", "kbnf", "--record", str(tmp_path / "none.json")],
              "--record", "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    cli.fails(main, capsys, ["bugreport", "--survey", "kbnf", "--record", str(bad)], "--record")
    page = tmp_path / "page.md"
    page.write_text("# no block here\n", encoding="utf-8")
    cli.fails(main, capsys, ["bugreport", "--survey", "kbnf", "--markdown", str(page)], "--markdown", "BEGIN bugreports")
    cli.fails(main, capsys, ["bugreport", "--survey", "kbnf", "--markdown", str(tmp_path / "none.md")], "none.md")
