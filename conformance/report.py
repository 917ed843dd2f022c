"""The scoreboard: `python -m conformance report RESULTS... --out DIR` reads results files
(conformance/results.py's format: one JSON line per engine and vector) and writes
DIR/index.html, a static page (tables, and inline SVG plots drawn here from the data: no
script, nothing fetched), and DIR/compliance.md, the Markdown of docs/compliance.md.

The figures are never typed by hand: docs/compliance.md is this module's output on the
committed results (results/, docs/conformance.md's "The scoreboard"), its prose a template
(conformance/compliance_template.md) whose `{{name}}` fields are filled from the data, and
tests/conformance/test_report.py fails when the file differs from a regeneration.

The records fall in groups by their vector's tags: MaskBench ("maskbench"), the corpora
(CORPORA: SchemaStore, "schemastore"; the JSON-Schema-Test-Suite,
"json-schema-test-suite"), and the default suite (the rest). A record's *outcome* is
where the stacked bars put it:

    agree        every mask equal
    known        masks differ only by the engine's declared known differences
    under        an undeclared difference where the engine allowed a token refimpl refuses
                 (output can leave the grammar)
    over         an undeclared difference where the engine refused only tokens refimpl
                 allows, or refused a token of its own mask (valid output cut off)
    unsupported  the engine cannot run the grammar or vocabulary
    fault        the engine's process crashed, timed out, ran out of memory or answered
                 something that is not a reply (Result.fault), or the engine raised an error

>>> outcome({"status": "disagree", "divergence": {"only_engine": [3], "only_refimpl": []}})
'under'
>>> outcome({"status": "disagree", "divergence": {"only_engine": [], "only_refimpl": [], "refused": 7}})
'over'
>>> outcome({"status": "agree", "fault": "timeout"}), outcome({"status": "known"})
('fault', 'known')
>>> percentiles([5, 1, 4, 2, 3])
[3, 4, 5, 5]
"""
from __future__ import annotations

import collections
import gzip
import json
import os
import re
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from refimpl.html import xml_text

from . import results
from .differences import KnownDifference
from .engine import Engine
from .isolation import FAULT_KINDS
from .runner import MATRIX_KINDS, Report, Result, matrix_header, matrix_row

Record = Dict[str, Any]

OUTCOMES = ("agree", "known", "under", "over", "unsupported", "fault")
OUTCOME_LABELS = {"agree": "agree", "known": "known difference", "under": "under-constrained",
                  "over": "over-constrained", "unsupported": "unsupported",
                  "fault": "crash / timeout / memory / error"}
COLOURS = {"agree": "#2e9e4f", "known": "#9fd3a6", "under": "#d43d3d", "over": "#f0a13c",
           "unsupported": "#b8b8b8", "fault": "#5a3f8c"}
#: the corpora of schemas with their instances, run beside the default suite: (their vectors'
#: tag, which names their group, the heading); each gets an outcome table and its disagreements
CORPORA = (("schemastore", "SchemaStore"), ("json-schema-test-suite", "The JSON-Schema-Test-Suite"))
GROUPS = ("default", "maskbench") + tuple(tag for tag, _ in CORPORA)
TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compliance_template.md")
#: the command that regenerates docs/compliance.md (and the page) from the committed results
REGENERATE = "python -m conformance report results --out scoreboard --markdown docs/compliance.md"


def rerun_command(engine: str) -> str:
    """The commands that rerun an engine's committed results of the default suite and
    regenerate the report."""
    path = "results/default/%s.jsonl" % engine
    return "python -m conformance run --engine %s --quiet --results %s; gzip -nf %s; %s" % (engine, path, path, REGENERATE)


# ------------------------------------------------------------------------------- reading


def read_results(path: str) -> List[Record]:
    """The records of one results file (conformance/results.py: the last of each key)."""
    return results.read_results(path)


#: the name a MaskBench sample's record ends in (conformance/maskbench.py, `maskbench --summary`)
SAMPLE = ".sample.json"

#: folders of results/ that hold other records than engines' results: the fuzzing
#: campaigns of maskref's own entry points (`python -m hostile report`, docs/hostile.md)
#: and the mutation campaigns (tools/mutation.py)
OTHER_RECORDS = ("hostile", "mutation")


def _found(folder: str, endings: Tuple[str, ...]) -> List[str]:
    """The files under a directory (sorted, OTHER_RECORDS' folders left out) whose names end so."""
    out: List[str] = []
    for parent, dirs, files in os.walk(folder):  # top-down, in the order dirs is left in
        dirs[:] = sorted(d for d in dirs if d not in OTHER_RECORDS)
        out.extend(os.path.join(parent, f) for f in sorted(files) if f.endswith(endings))
    return out


def results_files(paths: Sequence[str]) -> List[str]:
    """The results files named: files as given (but samples' records), directories
    searched for *.jsonl and *.jsonl.gz."""
    out: List[str] = []
    for p in paths:
        if os.path.isdir(p):
            out.extend(_found(p, (".jsonl", ".jsonl.gz")))
        elif not p.endswith(SAMPLE):
            out.append(p)
    return out


def sample_files(paths: Sequence[str]) -> List[str]:
    """The MaskBench samples' records named (*.sample.json): files as given, directories
    searched."""
    out: List[str] = []
    for p in paths:
        out.extend(_found(p, (SAMPLE,)) if os.path.isdir(p) else [p] if p.endswith(SAMPLE) else [])
    return out


class Source:
    """The records of one results file, and where they came from; or, for a MaskBench
    sample's record (`sample`), none."""

    def __init__(self, path: str, records: List[Record], sample: Optional[Record] = None) -> None:
        self.path = path
        self.records = records
        self.sample = sample

    def shown_path(self) -> str:
        rel = os.path.relpath(self.path)
        return (rel if not rel.startswith("..") else self.path).replace(os.sep, "/")


def load(paths: Sequence[str]) -> List[Source]:
    """The results files and the samples' records named (a record as a Source of none)."""
    from .maskbench import read_sample

    return ([Source(p, read_results(p)) for p in results_files(paths)]
            + [Source(p, [], read_sample(p)) for p in sample_files(paths)])


def group_of(rec: Record) -> str:
    tags = rec.get("tags") or ()
    return next((g for g in GROUPS[1:] if g in tags), "default")


# ------------------------------------------------------------------------------- outcomes


def outcome(rec: Record) -> str:
    """Where a record goes in the stacked bars (the module's docstring)."""
    if rec.get("fault"):
        return "fault"
    status = rec["status"]
    if status != "disagree":
        return status
    d = rec.get("divergence") or {}
    direction = d.get("direction")
    if direction in ("under", "both") or d.get("only_engine"):
        return "under"
    if direction == "over" or d.get("only_refimpl") or d.get("refused") is not None:
        return "over"
    return "fault"  # the engine raised an error


def percentiles(values: Sequence[float], points: Sequence[int] = (50, 75, 99)) -> List[float]:
    """Nearest-rank percentiles of values, then the maximum."""
    s = sorted(values)
    if not s:
        return []
    return [s[max(0, min(len(s) - 1, -(-len(s) * p // 100) - 1))] for p in points] + [s[-1]]


# ------------------------------------------------------------------------------- engines


def _order(name: str) -> Tuple[int, str]:
    """refimpl first, then the registry's order, "<engine>-default" right after its engine."""
    from .registry import REGISTRY

    names = [key for key, _, _ in REGISTRY]
    base = name[:-len("-default")] if name.endswith("-default") else name
    return (names.index(base) if base in names else len(names), name)


def _declared(name: str) -> Sequence[KnownDifference]:
    """The known differences engine `name` declares (its adapter read, the engine not
    started), or none where the name is not one this tree knows."""
    from .registry import UnknownEngine, get_engine

    for n in (name, name[:-len("-default")] if name.endswith("-default") else None):
        if n:
            try:
                return tuple(get_engine(n).known_differences)
            except (UnknownEngine, ImportError):
                pass
    return ()


class RecordedEngine(Engine):
    """An engine as its records tell it (name, versions), with the known differences its
    adapter declares: what runner.Report and matrix_row read."""

    def __init__(self, name: str, versions: Sequence[str]) -> None:
        self.name = name
        self.versions = list(versions)
        self.known_differences = _declared(name)

    def version(self) -> str:
        return ", ".join(self.versions)


class Board:
    """One group's records per engine."""

    def __init__(self, sources: Sequence[Source], group: str) -> None:
        self.group = group
        latest: Dict[Tuple[str, str, str], Record] = {}  # the last record of a key, over all files
        self.files: Dict[str, List[str]] = collections.defaultdict(list)
        for s in sources:
            for rec in s.records:
                if group_of(rec) == group:
                    latest[(rec["engine"], rec["id"], rec.get("digest", ""))] = rec
                    if s.shown_path() not in self.files[rec["engine"]]:
                        self.files[rec["engine"]].append(s.shown_path())
        per: Dict[str, List[Record]] = collections.defaultdict(list)
        for rec in latest.values():
            per[rec["engine"]].append(rec)
        self.engines = sorted(per, key=_order)
        self.records = {e: per[e] for e in self.engines}

    def versions(self, engine: str) -> List[str]:
        return sorted({r.get("version", "") for r in self.records[engine]} - {""})

    def dates(self, engine: str) -> List[str]:
        return sorted({r["date"] for r in self.records[engine] if r.get("date")})

    def report(self, engine: str) -> Report:
        rep = Report(RecordedEngine(engine, self.versions(engine)))
        for rec in self.records[engine]:
            rep.add(Result.from_json(rec))
        return rep

    def sources_line(self) -> str:
        """Which files, engine versions and run dates the tables come from."""
        parts = []
        for e in self.engines:
            dates = self.dates(e)
            what = self.versions(e) + (["run " + (dates[0] if len(dates) == 1 else "%s to %s" % (dates[0], dates[-1]))]
                                       if dates else []) + ["`%s`" % f for f in self.files[e]]
            parts.append("%s (%s)" % (e, "; ".join(what)))
        return "From " + "; ".join(parts) + "." if parts else ""


# ------------------------------------------------------------------------------- tables


def counts(records: Iterable[Record]) -> collections.Counter:
    """Vectors per outcome, statuses and the step counts, over some records."""
    c: collections.Counter = collections.Counter()
    for rec in records:
        c["vectors"] += 1
        c[outcome(rec)] += 1
        c["status:" + rec["status"]] += 1
        c["steps"] += rec.get("steps", 0)
        c["under_steps"] += rec.get("under", 0) or 0
        c["over_steps"] += rec.get("over", 0) or 0
        if rec.get("fault"):
            c["fault:" + rec["fault"]] += 1
    return c


def _steps_counted(records: Sequence[Record]) -> bool:
    """Whether these records count the differing steps (under/over): records of a runner
    that did not count them hold 0 where some vector plainly differed."""
    return any(r.get("under") or r.get("over") for r in records) or \
        all(r["status"] in ("agree", "unsupported") for r in records)


class Table:
    """A table as data: the Markdown and the HTML are two writings of it."""

    def __init__(self, head: Sequence[str], rows: Sequence[Sequence[str]], cls: str = "") -> None:
        self.head, self.rows, self.cls = list(head), [list(r) for r in rows], cls

    def markdown(self) -> str:
        lines = ["| %s |" % " | ".join(self.head), "|%s" % ("---|" * len(self.head))]
        lines += ["| %s |" % " | ".join(c.replace("|", "\\|") for c in r) for r in self.rows]
        return "\n".join(lines)

    def html(self) -> str:
        head = "".join("<th>%s</th>" % _inline(h) for h in self.head)
        body = "".join("<tr data-engine=\"%s\">%s</tr>" % (xml_text(r[0].split(" ")[0]),
                                                          "".join("<td>%s</td>" % _inline(c) for c in r))
                       for r in self.rows)
        return '<table class="%s"><thead><tr>%s</tr></thead><tbody>%s</tbody></table>' % (self.cls, head, body)


def _inline(text: str) -> str:
    """Markdown's `code` and **bold** as HTML, the rest escaped."""
    out = xml_text(text)
    out = re.sub(r"`([^`]*)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]*)\*\*", r"<b>\1</b>", out)


def matrix_table(board: Board) -> Table:
    """The default suite matrix: runner.matrix_row per engine, as `run --matrix` prints."""
    head = matrix_header().split("\n")[0]
    rows = []
    for e in board.engines:
        row = matrix_row(board.report(e))
        rows.append([c.strip() for c in row.strip().strip("|").split(" | ")])
    return Table([c.strip() for c in head.strip().strip("|").split(" | ")], rows, "matrix")


def totals_table(board: Board) -> Table:
    """Per engine: the outcomes over all its vectors, the masks that differed (known
    differences included) under and over, the faults."""
    rows = []
    for e in board.engines:
        recs = board.records[e]
        c = counts(recs)
        steps = _steps_counted(recs)
        faults = ", ".join("%d %s" % (c["fault:" + f], f) for f in FAULT_KINDS if c["fault:" + f])
        rows.append([e, str(c["vectors"]), _thousands(c["steps"]), str(c["agree"]), str(c["known"]),
                     str(c["status:disagree"]), str(c["under"]), str(c["over"]), str(c["unsupported"]),
                     _thousands(c["under_steps"]) if steps else "—", _thousands(c["over_steps"]) if steps else "—",
                     faults or "—"])
    return Table(["engine", "vectors", "masks compared", "agree", "known", "disagree", "of which under", "of which over",
                  "n/a", "masks under", "masks over", "faults"], rows, "totals")


def disagreements(board: Board) -> Table:
    """The undeclared disagreements: engine, vector, the step where it first differs,
    its direction (outcome) and what differed (the divergence's signature or error)."""
    rows = []
    for e in board.engines:
        for r in board.records[e]:
            if r["status"] == "disagree":
                d = r.get("divergence") or {}
                what = d.get("error") or d.get("signature") or ""
                rows.append([e, "`%s`" % r["id"], str(d.get("step", "")), outcome(r),
                             what if len(what) <= 120 else what[:117] + "..."])
    return Table(["engine", "vector", "step", "direction", "what differed"], rows, "disagreements")


def _disagreements_markdown(board: Board) -> str:
    t = disagreements(board)
    return t.markdown() if t.rows else "None: every difference met is declared."


def _disagreements_html(board: Board) -> str:
    t = disagreements(board)
    return t.html() if t.rows else "<p>None: every difference met is declared.</p>"


def _thousands(n: int) -> str:
    return "{:,}".format(n)


def _us(v: Optional[float]) -> str:
    if v is None:
        return "—"
    return "%.0f µs" % v if v < 1000 else "%.1f ms" % (v / 1000) if v < 1e6 else "%.1f s" % (v / 1e6)


# ------------------------------------------------------------------------------- MaskBench


def schema_of(rec: Record) -> str:
    """A MaskBench vector's schema: its id without the text and the vocabulary
    ("maskbench/<subset>/<stem>")."""
    return "/".join(rec["id"].split("/")[:3])


def vocab_of(rec: Record) -> str:
    """The vocabulary a MaskBench vector is on (its id's last part)."""
    return str(rec["id"]).rsplit("/", 1)[-1]


def subset_of(rec: Record) -> str:
    tags: Sequence[str] = rec.get("tags") or []
    return tags[1] if len(tags) > 1 else str(rec["id"]).split("/")[1]


def maskbench_summary(records: Sequence[Record]) -> List[Dict[str, Any]]:
    """MaskBench's figures (conformance/maskbench.py) per (engine, vocabulary, subset):
    subsets in name order, "all" last, engines in the report's order."""
    from .maskbench import maskbench_summary as figures

    groups: Dict[Tuple[str, str], List[Record]] = collections.defaultdict(list)
    for r in records:
        vocab = vocab_of(r)
        groups[(vocab, subset_of(r))].append(r)
        groups[(vocab, "all")].append(r)
    rows = []
    for (vocab, subset), recs in groups.items():
        for engine, s in figures(recs).items():
            rows.append(dict(s, engine=engine, vocab=vocab, subset=subset, undeclared=s["differing"],
                             faults=sum(s["faults"].values()),
                             ttfm=[] if s["ttfm_us"]["max"] is None else [s["ttfm_us"][k] for k in PERCENTILES],
                             tbm=[] if s["tbm_us"]["max"] is None else [s["tbm_us"][k] for k in PERCENTILES]))
    return sorted(rows, key=lambda r: (_order(r["engine"]), r["vocab"], r["subset"] == "all", r["subset"]))


PERCENTILES = ("p50", "p75", "p99", "max")


def maskbench_table(board: Board, by_subset: bool = True) -> Table:
    """MaskBench's figures per engine, and per subset too (by_subset; else the whole sample)."""
    rows = []
    for s in maskbench_summary([r for e in board.engines for r in board.records[e]]):
        if not by_subset and s["subset"] != "all":
            continue
        ttfm, tbm = s["ttfm"] or [None] * 4, s["tbm"] or [None] * 4
        rows.append([s["engine"], s["vocab"], s["subset"], str(s["schemas"]), str(s["compiled"]), str(s["passing"]),
                     "%d / %d" % (s["validation_errors"], s["invalidation_errors"]), str(s["undeclared"]),
                     "%.1f / %.1f" % (s["under_per_1000"], s["over_per_1000"]), str(s["faults"]),
                     " / ".join(_us(v) for v in ttfm), " / ".join(_us(v) for v in tbm)])
    return Table(["engine", "vocabulary", "subset", "schemas", "compiled", "passing", "validation / invalidation errors",
                  "schemas with undeclared differences", "masks in error per 1,000 steps (under / over)",
                  "faults", "TTFM p50 / p75 / p99 / max", "TBM p50 / p75 / p99 / max"], rows, "maskbench")


#: JSONSchemaBench's MaskBench: its schemas, and the cores the estimate is for
MASKBENCH_SCHEMAS, CORES = 11306, 64


def maskbench_cost_table(board: Board, sources: Sequence[Source] = ()) -> Table:
    """What a run cost per engine: the schemas it covers (of the vocabulary's sample, from
    the samples' records in `sources`), the vectors' wall seconds (the `seconds` of each
    record, one process each), per schema, and from it the whole benchmark's wall time on
    CORES cores (every schema of MaskBench, with this sample's vectors per schema, spread
    evenly: a lower bound, as the slowest schema cannot be split)."""
    sampled = {x["vocab"]: sum(x["schemas"].values()) for _, x in _samples(sources)}
    rows = []
    for e in board.engines:
        by_vocab: Dict[str, List[Record]] = collections.defaultdict(list)
        for r in board.records[e]:
            by_vocab[vocab_of(r)].append(r)
        rows += [_cost_row(e, vocab, recs, sampled.get(vocab)) for vocab, recs in sorted(by_vocab.items())]
    return Table(["engine", "vocabulary", "schemas (of the sample's)", "vectors", "seconds", "seconds per schema",
                  "slowest vector (s)", "all %s schemas on %d cores" % ("{:,}".format(MASKBENCH_SCHEMAS), CORES)],
                 rows, "maskbench-cost")


#: MaskBench's own published figures (its README's table), per maskref engine name
PUBLISHED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "maskbench_published.json")


def published_table(board: Board, path: str = PUBLISHED) -> Table:
    """MaskBench's published figures beside this reproduction's, per engine it ran (maskref's
    name of the configuration it ran): passing, compile errors, validation and
    invalidation errors, faults (as shares of the schemas), TTFM and TBM p50 — theirs on
    every schema with their versions, ours on the sample (GPT-2) with ours."""
    with open(path, encoding="utf-8") as f:
        published = json.load(f)
    ours = {s["engine"]: s for s in maskbench_summary([r for e in board.engines for r in board.records[e]])
            if s["vocab"] == "gpt2" and s["subset"] == "all"}
    rows = []
    for engine, p in published["engines"].items():
        n = published["schemas"]
        faults = p["segmentation_fault"] + p["out_of_memory"] + p["timeout"]
        rows.append(["%s (MaskBench: %s)" % (engine, p["as"]), p["version"], _thousands(n),
                     _share(p["passing"], n), _share(p["compile_error"], n),
                     "%s / %s" % (_share(p["validation_error"], n), _share(p["invalidation_error"], n)),
                     _share(faults, n), "%s / %s" % (_us(p["ttfm_p50"]), _us(p["tbm_p50"]))])
        s = ours.get(engine)
        if s is None:
            continue
        m = s["schemas"]
        rows.append(["%s (here)" % engine, ", ".join(board.versions(engine)) or "—", _thousands(m),
                     _share(s["passing"], m), _share(m - s["compiled"] - s["faults"], m),
                     "%s / %s" % (_share(s["validation_errors"], m), _share(s["invalidation_errors"], m)),
                     _share(s["faults"], m), "%s / %s" % (_us((s["ttfm"] or [None])[0]), _us((s["tbm"] or [None])[0]))])
    return Table(["engine", "version", "schemas", "passing", "compile errors", "validation / invalidation errors",
                  "faults", "TTFM / TBM p50"], rows, "maskbench-published")


def _share(k: int, n: int) -> str:
    return "%.1f%%" % (100.0 * k / n) if n else "—"


def _cost_row(engine: str, vocab: str, recs: List[Record], sampled: Optional[int]) -> List[str]:
    schemas = {schema_of(r) for r in recs}
    seconds = sum(r.get("seconds") or 0.0 for r in recs)
    per_schema = seconds / len(schemas) if schemas else 0.0
    slowest = max((r.get("seconds") or 0.0 for r in recs), default=0.0)
    covered = "%d (of %d)" % (len(schemas), sampled) if sampled else str(len(schemas))
    return [engine, vocab, covered, str(len(recs)), "%.0f" % seconds, "%.2f" % per_schema,
            "%.1f" % slowest, _minutes(per_schema * MASKBENCH_SCHEMAS / CORES)]


def _minutes(seconds: float) -> str:
    return "%.1f min" % (seconds / 60) if seconds >= 60 else "%.0f s" % seconds


def _samples(sources: Sequence[Source]) -> List[Tuple[str, Record]]:
    return [(s.shown_path(), s.sample) for s in sources if s.sample is not None]


def _refused(sample: Record) -> int:
    """Schemas skipped because refimpl refuses them (a keyword it cannot enforce exactly)."""
    return sum(n for why, n in sample["skipped"].items() if why.startswith("refimpl: ") and "while recording" not in why)


def _slow(sample: Record) -> int:
    return sum(n for why, n in sample["skipped"].items() if why.startswith("recording takes more than"))


def samples_table(sources: Sequence[Source]) -> Table:
    """The MaskBench samples the vectors were made from, one column each, from their
    records (`maskbench --summary`, conformance/maskbench.py)."""
    samples = _samples(sources)
    head = [""] + ["`--vocab %s --sample %s`%s" % (x["vocab"], x["sample"] or "all",
                                                   " `--subset %s`" % x["subset"] if x.get("subset") else "")
                   for _, x in samples]

    def row(label: str, cell: Any) -> List[str]:
        return [label] + [cell(path, x) for path, x in samples]

    rows = [
        row("record", lambda path, x: "`%s`" % path),
        row("corpus", lambda path, x: "`%s`" % x["source"]),
        row("options", lambda path, x: "`--seed %d --walks %d --max-tokens %d --compile-seconds %d "
            "--schema-seconds %d --backend %s`" % (x["seed"], x["walks"], x["max_tokens"], x["compile_seconds"],
                                                   x["schema_seconds"], x["backend"])),
        row("schemas with vectors", lambda path, x: _thousands(sum(x["schemas"].values()))),
        row("schemas per subset", lambda path, x: ", ".join("%s %d" % kv for kv in x["schemas"].items())),
        row("skipped: refimpl refuses the schema (below)", lambda path, x: str(_refused(x))),
        row("skipped: recording over the budget", lambda path, x: str(_slow(x))),
        row("skipped: other", lambda path, x: str(sum(x["skipped"].values()) - _refused(x) - _slow(x))),
        row("vectors / masks", lambda path, x: "%s / %s" % (_thousands(x["vectors"]), _thousands(x["masks"]))),
        row("valid instances refimpl refuses (text / compact)",
            lambda path, x: "%d / %d" % (x["refused_valid"].get("text", 0), x["refused_valid"].get("compact", 0))),
        row("time / file size", lambda path, x: "%s s / %.1f MB" % (_thousands(x["seconds"]), x["bytes"] / 1e6)),
    ]
    return Table(head, rows, "maskbench-samples")


def skipped_table(sources: Sequence[Source]) -> Table:
    """The schemas the samples skipped, by reason (as `maskbench` counts them alike)."""
    samples = _samples(sources)
    total: collections.Counter = collections.Counter()
    for _, x in samples:
        total.update(x["skipped"])
    rows = [[why] + [str(x["skipped"].get(why, 0)) for _, x in samples] for why, _ in total.most_common()]
    return Table(["skipped, by reason"] + ["`--vocab %s`" % x["vocab"] for _, x in samples], rows, "maskbench-skipped")


def outcome_table(board: Board, by_subset: bool = False) -> Table:
    rows = []
    for e in board.engines:
        parts: Dict[str, List[Record]] = collections.OrderedDict()
        if by_subset:
            for r in sorted(board.records[e], key=subset_of):
                parts.setdefault(subset_of(r), []).append(r)
        parts["all"] = board.records[e]
        for name, recs in parts.items():
            c = counts(recs)
            rows.append([e] + ([name] if by_subset else []) + [str(c["vectors"])] + [str(c[o]) for o in OUTCOMES])
    return Table(["engine"] + (["subset"] if by_subset else []) + ["vectors"] + [OUTCOME_LABELS[o] for o in OUTCOMES],
                 rows, "outcomes")


# ------------------------------------------------------------------------------- plots


def _svg_head(kind: str, key: str, width: int, height: int, title: str) -> List[str]:
    """A plot's opening tag (class, data-plot key, size) and its title, as drawn text too."""
    return ['<svg class="plot %s" data-plot="%s" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'viewBox="0 0 %d %d" role="img"><title>%s</title>' % (kind, key, width, height, width, height, xml_text(title)),
            '<text x="0" y="16" class="title">%s</text>' % xml_text(title)]


def stacked_bars(bars: Sequence[Tuple[str, collections.Counter]], title: str, key: str) -> str:
    """Horizontal bars, one per (label, outcome counts), each the share of its vectors
    per outcome (the counts written on the segments wide enough, all in the tooltips)."""
    label_w, bar_w, row_h, top = 260, 560, 22, 30
    h = top + row_h * len(bars) + 40
    out = _svg_head("stacked", key, label_w + bar_w + 50, h, title)
    for i, (label, c) in enumerate(bars):
        y = top + i * row_h
        total = sum(c[o] for o in OUTCOMES) or 1
        out.append('<text x="%d" y="%d" class="label" text-anchor="end">%s</text>' % (label_w - 8, y + 15, xml_text(label)))
        x = float(label_w)
        for o in OUTCOMES:
            if not c[o]:
                continue
            w = bar_w * c[o] / total
            out.append('<rect class="seg %s" x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s %d of %d'
                       '</title></rect>' % (o, x, y + 2, w, row_h - 4, COLOURS[o], xml_text(label), OUTCOME_LABELS[o],
                                            c[o], total))
            if w > 28:
                out.append('<text x="%.1f" y="%d" class="count" text-anchor="middle">%d</text>' % (x + w / 2, y + 15, c[o]))
            x += w
    y = top + row_h * len(bars) + 14
    x = 0
    for o in OUTCOMES:
        out.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" class="legend">%s</text>'
                   % (x, y, COLOURS[o], x + 16, y + 11, OUTCOME_LABELS[o]))
        x += 24 + 7 * len(OUTCOME_LABELS[o])
    out.append("</svg>")
    return "".join(out)


def distributions(series: Sequence[Tuple[str, Sequence[float]]], title: str, key: str, unit: str = "µs") -> str:
    """Per label, its values on a logarithmic axis: a box from p25 to p75 with the median,
    a whisker to p99, the maximum as a dot (values ≤ 0 are drawn at the axis' start)."""
    import math

    series = [(label, vals) for label, vals in series if vals]
    label_w, plot_w, row_h, top = 260, 560, 24, 30
    h = top + row_h * len(series) + 40
    out = _svg_head("dist", key, label_w + plot_w + 50, h, title)
    every = [v for _, vals in series for v in vals if v > 0]
    if not every:
        return "".join(out) + "</svg>"
    lo = math.floor(math.log10(min(every)))
    hi = max(lo + 1, math.ceil(math.log10(max(every))))

    def x(v: float) -> float:
        return label_w + plot_w * ((math.log10(v) if v > 0 else lo) - lo) / (hi - lo)

    axis = top + row_h * len(series) + 4
    for p in range(lo, hi + 1):
        out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" class="grid"/><text x="%.1f" y="%d" class="tick" '
                   'text-anchor="middle">%s</text>' % (x(10 ** p), x(10 ** p), top, axis, x(10 ** p), axis + 14,
                                                      _us(10 ** p) if unit == "µs" else "%g %s" % (10 ** p, unit)))
    for i, (label, vals) in enumerate(series):
        y = top + i * row_h + row_h / 2
        s = sorted(vals)
        p25, p50, p75, p99, top_v = percentiles(s, (25, 50, 75, 99))
        out.append('<g class="series"><title>%s: %d values, p50 %s, p75 %s, p99 %s, max %s</title>'
                   % (xml_text(label), len(s), _fmt(p50, unit), _fmt(p75, unit), _fmt(p99, unit), _fmt(top_v, unit)))
        out.append('<text x="%d" y="%.1f" class="label" text-anchor="end">%s</text>' % (label_w - 8, y + 4, xml_text(label)))
        out.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="whisker"/>' % (x(p75), x(p99), y, y))
        out.append('<rect class="box" x="%.1f" y="%.1f" width="%.1f" height="14"/>'
                   % (x(p25), y - 7, max(1.5, x(p75) - x(p25))))
        out.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="median"/>' % (x(p50), x(p50), y - 7, y + 7))
        out.append('<circle cx="%.1f" cy="%.1f" r="3" class="max"/></g>' % (x(top_v), y))
    out.append("</svg>")
    return "".join(out)


def _fmt(v: float, unit: str) -> str:
    return _us(v) if unit == "µs" else "%.3g %s" % (v, unit)


# ------------------------------------------------------------------------------- writing


def figures(sources: Sequence[Source]) -> Dict[str, str]:
    """The template's fields, from the records."""
    default = Board(sources, "default")
    maskbench = Board(sources, "maskbench")
    ids = {r["id"] for e in default.engines for r in default.records[e]}
    steps = {r["id"]: r.get("steps", 0) for e in default.engines[:1] for r in default.records[e]}
    out = {
        "regenerate": REGENERATE,
        "default_vectors": _thousands(len(ids)),
        "default_masks": _thousands(sum(steps.values())),
        "default_engines": ", ".join(default.engines) or "none",
        "default_sources": default.sources_line() or "No results of the default suite given.",
        "default_matrix": matrix_table(default).markdown() if default.engines else "",
        "default_totals": totals_table(default).markdown() if default.engines else "",
        "default_disagreements": _disagreements_markdown(default),
        "maskbench_samples": "\n\n".join(t.markdown() for t in (samples_table(sources), skipped_table(sources)))
                             if _samples(sources) else "",
        "maskbench_sources": maskbench.sources_line() or "No MaskBench results given.",
        "maskbench_table": maskbench_table(maskbench, by_subset=False).markdown() if maskbench.engines else "",
        "maskbench_cost": maskbench_cost_table(maskbench, sources).markdown() if maskbench.engines else "",
        "maskbench_published": published_table(maskbench).markdown() if maskbench.engines else "",
    }
    for tag, title in CORPORA:
        corpus, key = Board(sources, tag), tag.replace("-", "_")
        out[key + "_sources"] = corpus.sources_line() or "No %s results given." % title
        out[key + "_table"] = outcome_table(corpus).markdown() if corpus.engines else ""
        out[key + "_disagreements"] = _disagreements_markdown(corpus) if corpus.engines else ""
    return out


def fill(template: str, fields: Dict[str, str]) -> str:
    """The template with each {{name}} replaced (a name the fields lack is an error)."""
    def one(m: "re.Match[str]") -> str:
        return fields[m.group(1)]

    return re.sub(r"\{\{([a-z_]+)\}\}", one, template)


def markdown(sources: Sequence[Source], template: Optional[str] = None) -> str:
    """docs/compliance.md: the template filled from the records."""
    if template is None:
        with open(TEMPLATE, encoding="utf-8") as f:
            template = f.read()
    text = fill(template, figures(sources))
    return re.sub(r"\n{3,}", "\n\n", text)  # an empty field leaves no gap


CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1400px;color:#222;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}h3{font-size:15px}
table{border-collapse:collapse;margin:10px 0 4px;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f4f4f4}
table.matrix td:nth-child(n+2):nth-child(-n+6){white-space:nowrap}table.matrix td:nth-child(n+7){min-width:200px}
td:nth-child(n+2){font-variant-numeric:tabular-nums}
code{font-size:12px;background:#f6f6f6;padding:0 2px}.sources{color:#666;font-size:12px}
svg.plot{display:block;margin:12px 0}svg text{font:12px system-ui,sans-serif;fill:#222}
svg text.title{font-weight:600}svg text.count{fill:#fff;font-size:11px}svg text.legend,svg text.tick{font-size:11px;fill:#555}
svg .grid{stroke:#e4e4e4}svg .box{fill:#8fb4e0;stroke:#3a6ea5}svg .median{stroke:#123;stroke-width:2}
svg .whisker{stroke:#3a6ea5}svg .max{fill:#d43d3d}
"""


def page(sources: Sequence[Source]) -> str:
    """The static scoreboard page: every table of the Markdown, and the plots."""
    default = Board(sources, "default")
    maskbench = Board(sources, "maskbench")
    body = ["<h1>maskref scoreboard: engines against refimpl</h1>",
            "<p>Generated by <code>python -m conformance report</code> from results files; "
            "the same figures as docs/compliance.md.</p>"]
    body.append("<h2 id=\"default\">The default suite</h2>")
    if default.engines:
        body.append('<p class="sources">%s</p>' % _inline(default.sources_line()))
        body.append(stacked_bars([(e, counts(default.records[e])) for e in default.engines],
                                 "Default suite: vectors per outcome", "default-outcomes"))
        body.append("<h3>Per grammar kind</h3>" + matrix_table(default).html())
        body.append(stacked_bars([("%s · %s" % (e, head), counts(r for r in default.records[e] if r["kind"] == kind))
                                  for e in default.engines for kind, head in MATRIX_KINDS
                                  if any(r["kind"] == kind and r["status"] != "unsupported" for r in default.records[e])],
                                 "Default suite per engine and grammar kind", "default-kinds"))
        body.append("<h3>Totals</h3>" + totals_table(default).html())
        body.append("<h3>Undeclared disagreements</h3>" + _disagreements_html(default))
        body.append(distributions([(e, [1e6 * r["seconds"] for r in default.records[e]
                                        if r.get("seconds") is not None and r["status"] != "unsupported"])
                                   for e in default.engines], "Default suite: time per vector run (engine start, every "
                                  "mask, the comparison; unsupported vectors left out)", "default-seconds"))
    else:
        body.append("<p>No results of the default suite given.</p>")
    body.append("<h2 id=\"maskbench\">MaskBench (JSONSchemaBench)</h2>")
    if _samples(sources):
        body.append("<h3>The samples</h3>" + samples_table(sources).html() + skipped_table(sources).html())
    if maskbench.engines:
        body.append('<p class="sources">%s</p>' % _inline(maskbench.sources_line()))
        bars = []
        for e in maskbench.engines:
            subsets: Dict[str, List[Record]] = collections.defaultdict(list)
            for r in maskbench.records[e]:
                subsets[subset_of(r)].append(r)
            bars += [("%s · %s" % (e, s), counts(subsets[s])) for s in sorted(subsets)]
        body.append(stacked_bars(bars, "MaskBench: vectors per outcome, per engine and subset", "maskbench-outcomes"))
        body.append(maskbench_table(maskbench).html())
        body.append(maskbench_cost_table(maskbench, sources).html())
        body.append("<p>MaskBench's published figures (its README) beside this reproduction "
                    "(docs/compliance.md says why they differ):</p>")
        body.append(published_table(maskbench).html())
        body.append(outcome_table(maskbench, by_subset=True).html())
        body.append(distributions([(e, [r["first_mask_us"] for r in maskbench.records[e]
                                        if r.get("first_mask_us") is not None]) for e in maskbench.engines],
                                  "TTFM: engine start and first mask", "maskbench-ttfm"))
        body.append(distributions([(e, [t for r in maskbench.records[e] for t in (r.get("mask_us") or ())])
                                   for e in maskbench.engines], "TBM: each later mask", "maskbench-tbm"))
    else:
        body.append("<p>No MaskBench results given.</p>")
    for tag, title in CORPORA:
        corpus = Board(sources, tag)
        body.append("<h2 id=\"%s\">%s</h2>" % (tag, title))
        if corpus.engines:
            body.append('<p class="sources">%s</p>' % _inline(corpus.sources_line()))
            body.append(stacked_bars([(e, counts(corpus.records[e])) for e in corpus.engines],
                                     "%s: vectors per outcome" % title, "%s-outcomes" % tag))
            body.append(outcome_table(corpus).html())
            body.append("<h3>Undeclared disagreements</h3>" + _disagreements_html(corpus))
        else:
            body.append("<p>No %s results given.</p>" % title)
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>maskref scoreboard</title>'
            '<style>%s</style></head><body>%s</body></html>\n' % (CSS, "\n".join(body)))


def write(paths: Sequence[str], out_dir: str, markdown_file: Optional[str] = None) -> Tuple[str, str]:
    """Read the results files (or directories of them), write out_dir/index.html and
    out_dir/compliance.md (and the Markdown to markdown_file too, if given)."""
    sources = load(paths)
    if not any(s.records for s in sources):
        raise ValueError("no records in %s" % ", ".join(paths))
    os.makedirs(out_dir, exist_ok=True)
    html_path, md_path = os.path.join(out_dir, "index.html"), os.path.join(out_dir, "compliance.md")
    text = markdown(sources)
    with open(html_path, "w", encoding="utf-8") as f:
        f.write(page(sources))
    for p in [md_path] + ([markdown_file] if markdown_file else []):
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
    return html_path, md_path


# ------------------------------------------------------------------------------- recording


def write_records(records: Iterable[Record], path: str) -> int:
    """Write records as a results file (gzip-compressed if path ends in .gz, with no
    time stamp in the gzip header: the same records, the same bytes)."""
    n = 0
    data = "".join(json.dumps(rec, sort_keys=True, ensure_ascii=False) + "\n" for rec in records).encode("utf-8")
    n = data.count(b"\n")
    if path.endswith(".gz"):
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
            f.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)
    return n
