"""asv: sampler-aware top-k (benchmarks/topk.py), k = 64, against the full mask then its
64 best — per vocabulary (GPT-2, Tekken), workload and backend (python, native), with
logits where the allowed tokens score highest (favourable) and where the 4096 best are
refused (adversarial). Measured once in `setup_cache`; a combination that cannot run here
(native not built, mistral-common missing) is skipped with the reason."""
from . import common, topk

_WORKLOADS = ["json-in-string", "json-between-keys", "lark-c-like"]
_PARAMS = [common.VOCABS, _WORKLOADS, ["python", "native"], ["favourable", "adversarial"]]
_NAMES = ["vocab", "workload", "backend", "logits"]


def _measure_all():
    out = {}
    for v in common.VOCABS:
        for w in _WORKLOADS:
            for b in ["python", "native"]:
                try:
                    out[(v, w, b)] = topk.measure(v, w, b, crossover=())
                except common.Skip as e:
                    out[(v, w, b)] = str(e)
    return out


class TopK:
    params = _PARAMS
    param_names = _NAMES
    timeout = 1800

    def setup_cache(self):
        return _measure_all()

    def setup(self, cache, vocab, workload, backend, logits):
        r = cache[(vocab, workload, backend)]
        if isinstance(r, str):
            raise NotImplementedError(r)
        self.r = r
        self.row = r[logits]

    def track_top_k_ms(self, cache, vocab, workload, backend, logits):
        """top_k(matcher, list of floats, 64)."""
        return self.row["top_k_ms"]
    track_top_k_ms.unit = "ms"

    def track_mask_then_select_ms(self, cache, vocab, workload, backend, logits):
        """The full mask, then its 64 best (the definition)."""
        return self.row["mask+select_ms"]
    track_mask_then_select_ms.unit = "ms"

    def track_speedup(self, cache, vocab, workload, backend, logits):
        """mask-then-select time / top_k time (lists of floats)."""
        return self.row["mask+select_ms"] / self.row["top_k_ms"]
    track_speedup.unit = "x"

    def track_speedup_numpy(self, cache, vocab, workload, backend, logits):
        """The same with the logits as a numpy array (both sides use numpy)."""
        if "top_k_np_ms" not in self.row:  # this method only: asv's skip from a benchmark's body
            from asv_runner.benchmarks.mark import SkipNotImplemented

            raise SkipNotImplemented("numpy not installed")
        return self.row["mask+select_np_ms"] / self.row["top_k_np_ms"]
    track_speedup_numpy.unit = "x"

    def track_candidates_checked(self, cache, vocab, workload, backend, logits):
        return self.row["checked"]
    track_candidates_checked.unit = "tokens"
