"""asv: the mask cache on a JSON array of 50 objects, GPT-2 (benchmarks/mask_cache.py):
median ms per mask after the first element, per backend with the cache off and on, and
llguidance's, measured once in `setup_cache`."""
from . import mask_cache


class MaskCache:
    params = [["python", "python, cache", "native", "native, cache", "llguidance"]]
    param_names = ["backend"]
    timeout = 900

    def setup_cache(self):
        return mask_cache.measure()

    def setup(self, cache, backend):
        if cache.get(backend) is None:  # asv skips a benchmark whose setup raises this
            raise NotImplementedError("%s is not available here" % backend)

    def track_mask_ms_after_first_element(self, cache, backend):
        return cache[backend]
    track_mask_ms_after_first_element.unit = "ms"
