"""asv: right recursion `s: "a" s | ""` consumed byte by byte, n = 1k and 10k (Leo items
keep refimpl linear). Time, and the parser's rows/items (refimpl's stats) afterwards.
llguidance has no Leo optimisation: it stops at ~2000 items per row (ParserTooComplex),
so n = 10k is skipped for it with that message."""
from . import common


class RightRecursion:
    params = [common.BACKENDS, common.RECURSION_N]
    param_names = ["backend", "n"]
    timeout = 300

    def setup_cache(self):
        out = {}
        for b in common.BACKENDS:
            for n in common.RECURSION_N:
                try:
                    out[(b, n)] = common.measure_recursion(b, n)
                except common.Skip as e:
                    out[(b, n)] = str(e)
                except Exception as e:  # llguidance: ParserTooComplex
                    out[(b, n)] = "%s failed: %s" % (b, str(e).splitlines()[0])
        return out

    def setup(self, cache, backend, n):
        r = cache[(backend, n)]
        if isinstance(r, str):
            raise NotImplementedError(r)
        self.r = r

    def track_consume_time(self, cache, backend, n):
        return self.r["consume_ms"]
    track_consume_time.unit = "ms"

    def track_rows(self, cache, backend, n):
        return self.r["rows"]
    track_rows.unit = "rows"

    def track_items(self, cache, backend, n):
        return self.r["items"]
    track_items.unit = "items"
