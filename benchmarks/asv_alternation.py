"""asv: a 20,000-word regex alternation on GPT-2 (benchmarks/alternation.py): compile time
and a fresh grammar's first mask, as built (left-factored), per backend, measured once in
`setup_cache`. (The unfactored form, a minute or more per mask, is only in
`python -m benchmarks.alternation`.)"""
from . import alternation, common


class Alternation:
    params = [["random", "gpt2"], ["python", "native"]]
    param_names = ["words", "backend"]
    timeout = 900

    def setup_cache(self):
        out = {}
        for source in self.params[0]:
            for backend in self.params[1]:
                try:
                    out[(source, backend)] = alternation.measure(source, "factored", backend)
                except common.Skip as e:
                    out[(source, backend)] = str(e)
        return out

    def setup(self, cache, words, backend):
        r = cache[(words, backend)]
        if isinstance(r, str):
            raise NotImplementedError(r)
        self.r = r

    def track_first_mask(self, cache, words, backend):
        return self.r["first_mask_s"] * 1e3
    track_first_mask.unit = "ms"

    def track_compile(self, cache, words, backend):
        return self.r["compile_s"] * 1e3
    track_compile.unit = "ms"
