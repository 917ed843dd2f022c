"""asv: mask cost per backend (python, native, pypy, llguidance) x vocabulary x workload.

Every figure is measured once, in `setup_cache` (one process, one clock calibration),
and the track_ benchmarks report them; a combination that cannot run here (backend not
built, llguidance or mistral-common not installed) is skipped with the reason.
Importing this module does nothing but define classes. See docs/benchmarks.md.
"""
from . import common

_PARAMS = [common.VOCABS, list(common.WORKLOADS), common.BACKENDS]
_NAMES = ["vocab", "workload", "backend"]


def _measure_all():
    ghz, how = common.calibrate_ghz()
    out = {"ghz": ghz, "clock": how}
    for v in common.VOCABS:
        for w in common.WORKLOADS:
            for b in common.BACKENDS:
                try:
                    out[(v, w, b)] = common.measure(v, w, b)
                except common.Skip as e:
                    out[(v, w, b)] = str(e)
    return out


class Masks:
    params = _PARAMS
    param_names = _NAMES
    timeout = 900

    def setup_cache(self):
        return _measure_all()

    def setup(self, cache, vocab, workload, backend):
        r = cache[(vocab, workload, backend)]
        if isinstance(r, str):
            raise NotImplementedError(r)
        self.r = r
        self.ghz = cache["ghz"]

    def track_mask_time(self, cache, vocab, workload, backend):
        return self.r["mask_ms"]
    track_mask_time.unit = "ms"

    def track_ns_per_node(self, cache, vocab, workload, backend):
        return self.r["ns_per_node"]
    track_ns_per_node.unit = "ns/node"

    def track_cycles_per_node(self, cache, vocab, workload, backend):
        """An estimate: ns/node x the clock measured by a dependent-add loop."""
        return self.r["ns_per_node"] * self.ghz
    track_cycles_per_node.unit = "cycles/node (est.)"

    def track_nodes_walked(self, cache, vocab, workload, backend):
        return self.r["nodes"]
    track_nodes_walked.unit = "nodes"

    def track_compile_time(self, cache, vocab, workload, backend):
        return self.r["compile_ms"]
    track_compile_time.unit = "ms"

    def track_fresh_matcher_mask_time(self, cache, vocab, workload, backend):
        """The first mask of a fresh matcher of a grammar already used (serving's case)."""
        return self.r.get("fresh_ms", self.r["mask_ms"])
    track_fresh_matcher_mask_time.unit = "ms"


class Clock:
    """The core clock measured in the benchmark run (cycles per ns)."""

    def track_clock(self):
        return common.calibrate_ghz()[0]
    track_clock.unit = "GHz"


class Mask:
    """A plain asv timing of one warm mask (refimpl's Python walker and the C walker),
    full walk, GPT-2, for asv's own statistics."""
    params = [["python", "native"]]
    param_names = ["backend"]

    def setup(self, backend):
        reason = common.backend_reasons()[backend]
        if reason is not None:
            raise NotImplementedError(reason)
        from refimpl import open_matcher

        self.m = open_matcher(common.grammar("regex", '[^"]*'), common.vocab("gpt2"), backend=backend, slices=[])
        self.m.mask()

    def time_mask(self, backend):
        self.m.mask()
