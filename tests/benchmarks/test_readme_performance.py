"""The README's performance table is rows of docs/benchmarks.md's latest table, the
verbatim output of one `benchmarks.compare` run: each README row's figures are that run's,
and the README names its date and time. A run pasted into one file and not the other
fails here."""
import re

from tests.support.paths import ROOT

#: the README's workload labels -> benchmarks.compare's names (common.WORKLOADS)
LABELS = {
    "full walk `[^\"]*`": "full-walk", "full walk": "full-walk", "digits `[0-9]+`": "digits",
    "JSON in a string, sliced": "json-in-string-sliced", "JSON between keys (schema)": "json-between-keys",
    "JSON in a number (schema)": "json-in-number", "JSON between keys (Lark)": "lark-json-between-keys",
    "C-like Lark grammar": "lark-c-like",
}


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def latest_run():
    """docs/benchmarks.md's latest table: its heading line's date and time, and its rows by
    (vocab, workload, backend): (nodes, mask ms, x llguidance, fresh mask ms, x llguidance)."""
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    block = text.split("## Latest table", 1)[1].split("```", 2)[1]
    when = re.search(r"maskref vs llguidance — (\d{4}-\d\d-\d\d \d\d:\d\d UTC)", block).group(1)
    rows = {}
    for line in block.splitlines():
        c = cells(line)
        if len(c) == 11 and c[0] in ("gpt2", "tekken"):
            rows[(c[0], c[1], c[3])] = (c[2], c[6], c[8], c[9], c[10])
    return when, rows


def readme_rows():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Performance", 1)[1].split("\n## ", 1)[0]
    rows = [cells(line) for line in section.splitlines() if line.startswith("| gpt2 ") or line.startswith("| tekken ")]
    return section, rows


def test_readme_rows_are_the_latest_runs():
    when, latest = latest_run()
    section, rows = readme_rows()
    assert when in section  # the run's date and time
    assert len(rows) > 10
    for vocab, label, nodes, backend, mask, ratio, fresh, fresh_ratio in rows:
        nodes_, mask_, ratio_, fresh_, fresh_ratio_ = latest[(vocab, LABELS[label], backend)]
        assert (nodes.replace(",", ""), mask, ratio, fresh, fresh_ratio) == (nodes_, mask_, ratio_, fresh_, fresh_ratio_)


def test_readme_mask_cache_figures_are_the_latest_runs():
    """The JSON array's per-mask figures the README quotes (with the mask cache, without
    it, llguidance) are the same run's last table (benchmarks.mask_cache)."""
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    block = text.split("## Latest table", 1)[1].split("```", 2)[1]
    ms = {c[0]: c[1] for c in map(cells, block.splitlines()) if len(c) in (2, 3) and c[0] in
          ("python", "python, cache", "native", "native, cache", "llguidance")}
    section, _ = readme_rows()
    quoted = re.search(r"JSON array of 50 objects on GPT-2 costs ([\d.]+) ms\s+\(python\) and ([\d.]+) ms \(native\) "
                       r"per mask after the first element, against ([\d.]+) ms\s+\(python\) and ([\d.]+) ms "
                       r"\(native\) without it and ([\d.]+) ms for llguidance", section)
    assert quoted is not None
    assert quoted.groups() == (ms["python, cache"], ms["native, cache"], ms["python"], ms["native"], ms["llguidance"])
