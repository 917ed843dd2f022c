"""MaskBench through the conformance suite: JSONSchemaBench's schemas and their test
instances as vectors, and the benchmark's figures per engine from a run's results.

JSONSchemaBench (github.com/guidance-ai/jsonschemabench, `maskbench/data/*.json`; MIT, as
its Hugging Face dataset card epfl-dlab/JSONSchemaBench declares: the repository has no
license file) holds about 11,000 real JSON schemas, most with valid and invalid instances
(written by Llama 3.1 70B, checked by two validators). MaskBench feeds each
instance, spelled `json.dumps(data, ensure_ascii=False)` (", " and ": ") and encoded by
the model's tokenizer, to an engine token by token: a schema *passes* when the engine
compiles it, accepts every valid instance and refuses every invalid one.

Each schema refimpl compiles gives vectors (docs/maskbench.md):

    maskbench/<subset>/<stem>/t<i>/<vocab>          test i, as MaskBench spells it
    maskbench/<subset>/<stem>/t<i>-compact/<vocab>  test i, separators "," and ":"
    maskbench/<subset>/<stem>/walk<s>/<vocab>       a seeded random walk in refimpl's language

tags ["maskbench", subset, "valid"|"invalid"|"walk", "text"|"compact"|"walk"]. An
instance's path is its tokens (the vocabulary's own tokenizer: conformance/bpe.py) then
EOS, recorded as far as refimpl allows them; its `benchmark` field holds the label and
all the tokens, so the runner also records the engine's own verdict. A walk samples
among the tokens refimpl allows, steered toward an end after half its length, so that
masks are compared on outputs a model could produce, not only on the benchmark's texts.

    python -m conformance maskbench CORPUS --out FILE.jsonl --vocab gpt2 --sample 300 --walks 1 \
        --summary results/maskbench/gpt2.sample.json

With `--summary`, what the command made is also written as the sample's record (Made's
`sample_record`: its options, schemas per subset, vectors, masks, skips by reason, time
and size); `report` makes docs/compliance.md's table of the samples from the committed
ones (read_sample).
"""
from __future__ import annotations

import collections
import json
import os
import random
import re
import sys
import time
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, TextIO, Tuple

from refimpl import Grammar, Mask, MaskrefError, Vocabulary

from .bpe import Encoder
from .corpus import Corpus, Slow, compile_within, within
from .vectors import Benchmark, GrammarSpec, Vector, record

DATA = "maskbench/data"
SOURCE = "guidance-ai/jsonschemabench"
LICENSE = "MIT, per the dataset card epfl-dlab/JSONSchemaBench"


# ------------------------------------------------------------------------------- the corpus


def subset_of(stem: str) -> str:
    """The subset a schema file belongs to: the prefix before "---", else the name
    without its number; BFCL's five kinds are one subset.

    >>> subset_of("Github_easy---o13947"), subset_of("BFCL_parallel_multiple_7"), subset_of("JME_12")
    ('Github_easy', 'BFCL', 'JME')
    """
    if "---" in stem:
        return stem.split("---", 1)[0]
    if stem.startswith("BFCL_"):
        return "BFCL"
    return re.sub(r"_\d+$", "", stem)


class Schema:
    """One file of the corpus: its stem, subset, schema and tests [(valid, data)]."""

    def __init__(self, stem: str, path: str, schema: Any, tests: List[Tuple[bool, Any]]) -> None:
        self.stem = stem
        self.path = path
        self.schema = schema
        self.tests = tests

    @property
    def subset(self) -> str:
        return subset_of(self.stem)


def schema_files(corpus: Corpus) -> Dict[str, str]:
    """stem -> path of every schema file of the corpus."""
    out = {}
    for path in corpus.files(DATA):
        name = os.path.basename(path)
        if name.endswith(".json"):
            out[name[:-len(".json")]] = path
    return out


def read_schema(corpus: Corpus, stem: str, path: str) -> Schema:
    """The file's schema and tests (ValueError if it is not one)."""
    data = json.loads(corpus.read(path) or "")
    if not isinstance(data, dict) or "schema" not in data:
        raise ValueError("no schema")
    tests = [(bool(t["valid"]), t["data"]) for t in data.get("tests", ())]
    return Schema(stem, path, data["schema"], tests)


def sample(stems: Iterable[str], n: int, seed: int, subset: Optional[str] = None) -> List[str]:
    """n stems spread over the subsets in proportion to their sizes (largest remainders
    first; each subset drawn with its own seeded generator), sorted; all of them when n is
    0 or more than there are. `subset` keeps one subset only.

    >>> stems = ["A---%d" % i for i in range(6)] + ["B---%d" % i for i in range(3)] + ["C---0"]
    >>> picked = sample(stems, 5, seed=1)
    >>> collections.Counter(subset_of(s) for s in picked) == {"A": 3, "B": 2}, picked == sample(stems, 5, seed=1)
    (True, True)
    """
    groups: Dict[str, List[str]] = collections.defaultdict(list)
    for s in sorted(stems):
        if subset is None or subset_of(s) == subset:
            groups[subset_of(s)].append(s)
    total = sum(len(g) for g in groups.values())
    if n <= 0 or n >= total:
        return sorted(s for g in groups.values() for s in g)
    quotas = {k: n * len(g) / total for k, g in groups.items()}
    counts = {k: int(q) for k, q in quotas.items()}
    for k in sorted(quotas, key=lambda k: (counts[k] - quotas[k], k))[: n - sum(counts.values())]:
        counts[k] += 1
    out: List[str] = []
    for k, g in sorted(groups.items()):
        out.extend(random.Random("%s/%s" % (seed, k)).sample(g, counts[k]))
    return sorted(out)


# ------------------------------------------------------------------------------- the vectors


def spellings(data: Any) -> List[Tuple[str, str]]:
    """(which, text) of an instance: as MaskBench spells it, and compact.

    >>> spellings({"a": [1, 2]})
    [('text', '{"a": [1, 2]}'), ('compact', '{"a":[1,2]}')]
    """
    return [("text", json.dumps(data, ensure_ascii=False)),
            ("compact", json.dumps(data, ensure_ascii=False, separators=(",", ":")))]


#: a walk's preferences once it should end: tokens made of closing bytes, then of bytes
#: that finish a value or a member quickly, then any token but whitespace only
CLOSING = frozenset(b'"]}')
FINISHING = frozenset(b'"]},:0123456789')


class Walker:
    """Seeded random walks through refimpl's language of a grammar: a chooser for
    vectors.record. Until `soft` tokens, a token drawn uniformly among those the mask
    allows (EOS only when nothing else is); after, EOS if allowed, else a token of
    CLOSING bytes, else of FINISHING bytes, else any token not all whitespace; at `limit`
    tokens the walk stops (unfinished)."""

    def __init__(self, vocab: Vocabulary, soft: int, limit: int) -> None:
        self.vocab = vocab
        self.soft, self.limit = soft, limit
        self.eos = set(vocab.eos_token_ids)
        self.tiers = [self._ids(lambda b: set(b) <= CLOSING), self._ids(lambda b: set(b) <= FINISHING),
                      self._ids(lambda b: not b.isspace())]

    def _ids(self, keep: Callable[[bytes], bool]) -> frozenset:
        v = self.vocab
        return frozenset(t for t, b in enumerate(v.tokens) if b and v.is_grammar_token(t) and t not in self.eos and keep(b))

    def chooser(self, rng: random.Random) -> Callable[[Mask, int], Optional[int]]:
        def choose(mask: Mask, step: int) -> Optional[int]:
            if step >= self.limit:
                return None
            allowed = mask.allowed()
            eos = [t for t in allowed if t in self.eos]
            rest = [t for t in allowed if t not in self.eos]
            if not rest:
                return eos[0] if eos else None
            if step < self.soft:
                return rng.choice(rest)
            if eos:
                return eos[0]
            for tier in self.tiers:
                some = [t for t in rest if t in tier]
                if some:
                    return rng.choice(some)
            return rng.choice(rest)

        return choose


class Options:
    """How vectors are made: the vocabulary's name, walks per schema, the seed, tokens
    per vector, the budgets per schema (compiling; recording every vector), refimpl's
    backend for recording."""

    def __init__(self, vocab: str = "gpt2", walks: int = 1, seed: int = 0, max_tokens: int = 256,
                 compile_seconds: int = 10, schema_seconds: int = 120, backend: str = "python") -> None:
        self.vocab = vocab
        self.walks = walks
        self.seed = seed
        self.max_tokens = max_tokens
        self.compile_seconds = compile_seconds
        self.schema_seconds = schema_seconds
        self.backend = backend


def schema_vectors(s: Schema, grammar: Grammar, vocab: Vocabulary, encoder: Encoder, walker: Walker,
                   opts: Options, origin: str) -> Iterator[Vector]:
    """The vectors of one schema: its tests (text and compact), then its walks."""
    spec = GrammarSpec("json_schema", schema=s.schema)
    base = "maskbench/%s/%s" % (s.subset, s.stem)
    eos = vocab.eos_token_id
    assert eos is not None
    for i, (valid, data) in enumerate(s.tests):
        for form, text in spellings(data):
            tokens = encoder.encode(text) + [eos]
            which = "t%d" % i + ("-compact" if form == "compact" else "")
            yield record(grammar, spec, vocab, tokens[:opts.max_tokens], "%s/%s/%s" % (base, which, opts.vocab),
                         ["maskbench", s.subset, "valid" if valid else "invalid", form], origin,
                         benchmark=Benchmark(valid, tokens), backend=opts.backend)
    for k in range(opts.walks):
        seed = opts.seed + k
        rng = random.Random("maskbench %s %d" % (s.stem, seed))
        yield record(grammar, spec, vocab, (), "%s/walk%d/%s" % (base, seed, opts.vocab),
                     ["maskbench", s.subset, "walk", "walk"], origin, backend=opts.backend, choose=walker.chooser(rng))


class Made:
    """What a generation did: schemas used per subset, vectors, masks, skips by reason."""

    def __init__(self) -> None:
        self.schemas: collections.Counter = collections.Counter()
        self.vectors = 0
        self.masks = 0
        self.skipped: collections.Counter = collections.Counter()
        #: valid instances refimpl refuses (by spelling): its language is narrower there
        #: (e.g. properties in another order than the schema's)
        self.refused_valid: collections.Counter = collections.Counter()

    def sample_record(self, opts: Options, source: str, sample_size: int, subset: Optional[str], seconds: float,
                      size: int) -> Dict[str, Any]:
        """What was made, as the sample's record (the `--summary` file): the corpus and
        the options, then what summary() prints, the time and the file's size."""
        return {"format": SAMPLE_FORMAT, "version": 1, "source": source, "vocab": opts.vocab,
                "sample": sample_size, "subset": subset, "seed": opts.seed, "walks": opts.walks,
                "max_tokens": opts.max_tokens, "compile_seconds": opts.compile_seconds,
                "schema_seconds": opts.schema_seconds, "backend": opts.backend,
                "schemas": dict(sorted(self.schemas.items())), "vectors": self.vectors, "masks": self.masks,
                "skipped": dict(self.skipped.most_common()), "refused_valid": dict(sorted(self.refused_valid.items())),
                "seconds": round(seconds), "bytes": size}

    def summary(self) -> str:
        lines = ["%d schemas, %d vectors, %d masks" % (sum(self.schemas.values()), self.vectors, self.masks)]
        lines += ["  %-16s %5d schemas" % (k, n) for k, n in sorted(self.schemas.items())]
        lines += ["  skipped %4d x %s" % (n, why) for why, n in self.skipped.most_common()]
        lines += ["  valid instances refimpl refuses (%s): %d" % (form, n) for form, n in sorted(self.refused_valid.items())]
        return "\n".join(lines)


#: the `format` of a sample's record (Made.sample_record)
SAMPLE_FORMAT = "maskref-maskbench-sample"


def read_sample(path: str) -> Dict[str, Any]:
    """A sample's record (Made.sample_record) from its file; ValueError naming the file
    where it is none."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except ValueError as e:
        raise ValueError("%s: not JSON: %s" % (path, e)) from None
    if not isinstance(data, dict) or data.get("format") != SAMPLE_FORMAT or data.get("version") != 1:
        raise ValueError("%s: not a MaskBench sample's record (format %r, version 1)" % (path, SAMPLE_FORMAT))
    return data


def _reason(why: str) -> str:
    """A skip reason without its particulars (numbers, quoted names), to count alike ones together."""
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", why)[:90]


def generate(corpus: Corpus, stems: Sequence[str], out: TextIO, opts: Options, vocab: Vocabulary,
             progress: Optional[Callable[[str], None]] = None) -> Made:
    """Write the vectors of the schemas `stems` to `out`, one line each; what was made."""
    files = schema_files(corpus)
    encoder = Encoder(vocab)
    walker = Walker(vocab, soft=opts.max_tokens // 2, limit=opts.max_tokens)
    origin = "%s@%s (%s) " % (SOURCE, corpus.commit()[:12], LICENSE)
    made = Made()
    for n, stem in enumerate(stems):
        if progress is not None:
            progress("%d/%d schemas, %d vectors, %d masks, %d skipped" % (n, len(stems), made.vectors, made.masks,
                                                                          sum(made.skipped.values())))
        try:
            s = read_schema(corpus, stem, files[stem])
        except (ValueError, KeyError, TypeError):
            made.skipped["not a schema file"] += 1
            continue
        grammar, why = compile_within(s.schema, opts.compile_seconds)
        if grammar is None:
            made.skipped["refimpl: " + _reason(why)] += 1
            continue
        try:
            vectors: List[Vector] = within(opts.schema_seconds, list,
                             schema_vectors(s, grammar, vocab, encoder, walker, opts, origin + s.path))
        except Slow:
            made.skipped["recording takes more than %d s" % opts.schema_seconds] += 1
            continue
        except (MaskrefError, RecursionError) as e:  # e.g. a LimitError: refimpl's bounds on work
            made.skipped["refimpl: %s while recording" % type(e).__name__] += 1
            continue
        for v in vectors:
            out.write(v.to_line() + "\n")
            made.masks += len(v.steps)
            b = v.benchmark
            if b is not None and b.valid and len(v.path) < min(len(b.tokens), opts.max_tokens):
                made.refused_valid[v.tags[3]] += 1
        out.flush()
        made.vectors += len(vectors)
        made.schemas[s.subset] += 1
    return made


def native_backend() -> str:
    """refimpl's fastest in-process backend here: "native" (accel's C walker) if built,
    else "python" (the same masks either way)."""
    try:
        import accel
    except ImportError:
        return "python"
    return "native" if accel.available_backends().get("native") is None else "python"


def main_maskbench(corpus_path: str, out: str, opts: Options, sample_size: int = 0, subset: Optional[str] = None,
                   stream: Optional[TextIO] = None, summary: Optional[str] = None) -> int:
    """The `maskbench` command: sample the corpus, write the vectors, say what was made
    and skipped (and write it as the sample's record to `summary`)."""
    from .runner import Progress
    from .vectors import load_builtin

    stream = stream or sys.stderr
    vocab = load_builtin(opts.vocab)
    corpus = Corpus(corpus_path, DATA)
    stems = sample(schema_files(corpus), sample_size, opts.seed, subset)
    t0 = time.monotonic()
    bar = Progress("maskbench", stream=stream)
    with open(out, "w", encoding="utf-8") as f:
        made = generate(corpus, stems, f, opts, vocab, bar.update)
    bar.done()
    seconds, size = time.monotonic() - t0, os.path.getsize(out)
    print(made.summary(), file=stream)
    print("%.0f s, %d bytes -> %s" % (seconds, size, out), file=stream)
    if summary:
        record = made.sample_record(opts, "%s@%s" % (SOURCE, corpus.commit()[:12]), sample_size, subset, seconds, size)
        with open(summary, "w", encoding="utf-8") as f:
            f.write(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    return 0


# ------------------------------------------------------------------------------- the scores


def percentile(values: Sequence[int], p: float) -> Optional[int]:
    """MaskBench's percentile (maskbench_results.py): the sorted values' element at index
    int(n * p / 100), the last one past the end; None for no values.

    >>> percentile([5, 1, 4, 2, 3], 50), percentile([5, 1, 4, 2, 3], 99), percentile([], 50)
    (3, 5, None)
    """
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * p / 100), len(ordered) - 1)]


def _times(values: Sequence[int]) -> Dict[str, Optional[int]]:
    return {"p50": percentile(values, 50), "p75": percentile(values, 75), "p99": percentile(values, 99),
            "max": max(values) if values else None}


def _compile_failure(r: Dict[str, Any]) -> bool:
    """Did the engine fail to compile the grammar: unsupported before any mask, or an
    error at its start (MaskBench: an exception of compile_grammar)?"""
    if r.get("status") == "unsupported" and not r.get("steps"):
        return True
    error = (r.get("divergence") or {}).get("error") or ""
    return r.get("status") == "disagree" and error.startswith("start:")


def _test_index(r: Dict[str, Any]) -> int:
    which = r["id"].split("/")[3]
    return int(which[1:].split("-")[0]) if which.startswith("t") else -1


def maskbench_summary(records: Iterable[Dict[str, Any]], timeout_s: Optional[float] = None) -> Dict[str, Dict[str, Any]]:
    """MaskBench's figures per engine, from results records (conformance/results.py:
    Result.to_json() with "engine" and "tags"; records of other vectors are left out).

    A schema is (stem, vocabulary): on two vocabularies it counts twice. Per engine:
      schemas      schemas with a record
      compiled     schemas no record of which shows a compile failure (unsupported
                   before any mask, or an error at start) or a fault
      passing      compiled, and on every test as MaskBench spells it ("text") the
                   engine's verdict is the label (valid accepted, invalid refused)
      validation_errors, invalidation_errors
                   compiled and not passing, by the last failing test (as MaskBench
                   overwrites): a valid text refused (or an engine error), an invalid
                   text accepted
      differing    schemas with an undeclared difference (a record "disagree")
      steps, under_per_1000, over_per_1000
                   compared masks, and per 1,000 of them the ones allowing a token
                   refimpl refuses / refusing one it allows (known differences included)
      faults       schemas by fault kind (crash, timeout, memory)
      ttfm_us      over compiled schemas, each the (lower) median of its vectors' start +
                   first mask (each vector starts the engine afresh; the median leaves out
                   a one-time setup, e.g. of the vocabulary, in a worker's first start),
                   and over timed-out schemas at the limit (`timeout_s`, else the longest
                   "seconds" recorded)
      tbm_us       every later mask of the compiled schemas
    (p50, p75, p99, max each; MaskBench's percentile).
    """
    engines: Dict[str, Dict[Tuple[str, str], List[Dict[str, Any]]]] = collections.defaultdict(
        lambda: collections.defaultdict(list))
    for r in records:
        parts = str(r.get("id", "")).split("/")
        if len(parts) != 5 or parts[0] != "maskbench":
            continue
        engines[r.get("engine", "?")][(parts[2], parts[4])].append(r)
    return {name: _engine_summary(schemas, timeout_s) for name, schemas in sorted(engines.items())}


def _engine_summary(schemas: Dict[Tuple[str, str], List[Dict[str, Any]]], timeout_s: Optional[float]) -> Dict[str, Any]:
    out: Dict[str, Any] = {"schemas": len(schemas), "compiled": 0, "passing": 0, "validation_errors": 0,
                           "invalidation_errors": 0, "differing": 0, "vectors": 0, "steps": 0}
    faults: collections.Counter = collections.Counter()
    under = over = 0
    ttfm: List[int] = []
    tbm: List[int] = []
    for records in schemas.values():
        out["vectors"] += len(records)
        out["differing"] += any(r.get("status") == "disagree" for r in records)
        out["steps"] += sum(r.get("steps", 0) for r in records)
        under += sum(r.get("under", 0) for r in records)
        over += sum(r.get("over", 0) for r in records)
        fault = next((r["fault"] for r in records if r.get("fault")), "")
        if fault:
            faults[fault] += 1
            if fault == "timeout":
                limit = timeout_s if timeout_s is not None else max(r.get("seconds", 0) for r in records if r.get("fault"))
                ttfm.append(int(limit * 1e6))
            continue
        if any(_compile_failure(r) for r in records):
            continue
        out["compiled"] += 1
        starts = sorted(r["first_mask_us"] for r in records if r.get("first_mask_us") is not None)
        if starts:
            ttfm.append(starts[(len(starts) - 1) // 2])
        for r in records:
            tbm.extend(r.get("mask_us") or ())
        failing = [r for r in records if "text" in (r.get("tags") or ()) and r.get("valid") is not None
                   and r.get("accepted") != r.get("valid")]
        if not failing:
            out["passing"] += 1
        elif max(failing, key=_test_index).get("valid") is False:
            out["invalidation_errors"] += 1
        else:
            out["validation_errors"] += 1
    steps = out["steps"]
    out["under_per_1000"] = 1000.0 * under / steps if steps else 0.0
    out["over_per_1000"] = 1000.0 * over / steps if steps else 0.0
    out["faults"] = dict(faults)
    out["ttfm_us"] = _times(ttfm)
    out["tbm_us"] = _times(tbm)
    return out
