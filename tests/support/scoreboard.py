"""Results records made up for the scoreboard's tests (conformance/report.py): every group
(the default suite, MaskBench, SchemaStore) and every outcome, with timings."""
import json

from conformance.report import write_records


def record(engine, id, status, kind="json_schema", tags=(), **fields):
    out = {"engine": engine, "id": id, "kind": kind, "status": status, "steps": 4, "known": [], "reason": "",
           "divergence": None, "repro": None, "fault": "", "under": 0, "over": 0, "first_mask_us": None,
           "mask_us": [], "valid": None, "accepted": None, "version": engine + " 1.0", "digest": id[-16:],
           "tags": list(tags), "seconds": 0.01, "date": "2026-11-28"}
    out.update(fields)
    return out


def maskbench(engine, subset, schema, which, status, **fields):
    tag = "valid" if which.startswith("t") else "walk"
    return record(engine, "maskbench/%s/%s/%s/gpt2" % (subset, schema, which), status,
                  tags=["maskbench", subset, tag, "text"], **fields)


UNDER = {"step": 2, "only_engine": [5], "only_refimpl": [], "error": None, "refused": None, "signature": "x"}
OVER = {"step": 1, "only_engine": [], "only_refimpl": [7], "error": None, "refused": None, "signature": "y"}

RECORDS = [
    record("refimpl", "regex/a/bytes/0", "agree", "regex"),
    record("refimpl", "lark/b/gpt2/0", "agree", "lark"),
    record("peer", "regex/a/bytes/0", "known", "regex", known=["after-eos"], over=1),
    record("peer", "lark/b/gpt2/0", "disagree", "lark", divergence=UNDER, under=1),
    record("peer-default", "regex/a/bytes/0", "unsupported", "regex", reason="no"),
    maskbench("peer", "Github_easy", "s1", "t0", "agree", first_mask_us=900, mask_us=[10, 20, 30], valid=True,
              accepted=True),
    maskbench("peer", "Github_easy", "s1", "t1", "disagree", divergence=OVER, over=2, first_mask_us=1100,
              mask_us=[40], valid=True, accepted=False),
    maskbench("peer", "Kubernetes", "s2", "t0", "unsupported", reason="refused", steps=0),
    maskbench("peer", "Kubernetes", "s3", "t0", "agree", fault="timeout"),
    maskbench("peer-default", "Github_easy", "s1", "t0", "known", known=["json-whitespace"], under=3,
              first_mask_us=50000, mask_us=[5]),
    record("peer", "schemastore/x/0", "known", tags=["schemastore"], known=["after-eos"]),
    record("peer", "schemastore/y/0", "agree", tags=["schemastore"]),
]


#: a MaskBench sample's record, as `maskbench --summary` writes it
SAMPLE = {"format": "maskref-maskbench-sample", "version": 1, "source": "guidance-ai/jsonschemabench@0123456789ab",
          "vocab": "gpt2", "sample": 5, "subset": None, "seed": 0, "walks": 1, "max_tokens": 256,
          "compile_seconds": 10, "schema_seconds": 120, "backend": "python",
          "schemas": {"Github_easy": 1, "Kubernetes": 2}, "vectors": 1234, "masks": 56789,
          "skipped": {"refimpl: SchemaError: uniqueItems cannot be enforced exactly": 1,
                      "recording takes more than 120 s": 1}, "refused_valid": {"compact": 2, "text": 3},
          "seconds": 4321, "bytes": 2500000}


def write(tmp_path):
    """The records as two results files (gzip-compressed and plain) and a sample's record;
    their directory."""
    folder = tmp_path / "results"
    (folder / "default").mkdir(parents=True)
    write_records(RECORDS[:5], str(folder / "default" / "mixed.jsonl.gz"))
    with open(folder / "other.jsonl", "w") as f:
        for r in RECORDS[5:]:
            f.write(json.dumps(r) + "\n")
    (folder / "gpt2.sample.json").write_text(json.dumps(SAMPLE))
    return folder
