"""asv: the token index (refimpl/masks/index/) on the HTTPS regex with GPT-2 — compile seconds of
each construction (naive, V2, V2 without each step, outlines-core) and mask ms (python
walk, index, outlines-core), measured once in `setup_cache` by benchmarks/index.py's
functions (the same run's figures, so their ratios are comparable). docs/token-index.md.
"""
from . import index

_VARIANTS = ["naive"] + [name for name, _ in index.VARIANTS] + ["outlines-core"]


def _measure():
    vocab = index.vocabulary("gpt2")
    return {"compile": index.compile_times([index.HTTPS], vocab), "mask": index.mask_times(index.HTTPS, vocab)}


class IndexCompile:
    params = [_VARIANTS]
    param_names = ["construction"]
    timeout = 900

    def setup_cache(self):
        return _measure()

    def setup(self, cache, construction):
        if cache["compile"][construction] is None:  # asv skips a benchmark whose setup raises this
            raise NotImplementedError("outlines-core is not installed")

    def track_compile_seconds(self, cache, construction):
        return cache["compile"][construction]
    track_compile_seconds.unit = "s"


class IndexMask:
    params = [["walk", "index", "outlines-core"]]
    param_names = ["how"]
    timeout = 900

    def setup_cache(self):
        return _measure()

    def setup(self, cache, how):
        if how not in cache["mask"]:
            raise NotImplementedError("outlines-core is not installed")

    def track_mask_ms(self, cache, how):
        return cache["mask"][how]
    track_mask_ms.unit = "ms"
