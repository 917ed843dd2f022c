"""asv: audit mode's added latency per token (benchmarks/audit.py) — llguidance and
xgrammar on a JSON array on GPT-2, at sample rates 0, 1% and 100%, with no model between
steps and with a 5 ms stand-in forward pass; measured once in `setup_cache`."""
from . import audit


class AuditLatency:
    params = [["llguidance", "xgrammar"], [0.0, 5.0], list(audit.RATES)]
    param_names = ["engine", "forward_ms", "rate"]
    timeout = 1800

    def setup_cache(self):
        out = {}
        for e in audit.measure(objects=20, repeat=3)["engines"]:
            if "skipped" not in e:
                for rate, x in e["rates"].items():
                    out[(e["engine"], e["forward_ms"], rate)] = x
        return out

    def setup(self, cache, engine, forward_ms, rate):
        if (engine, forward_ms, rate) not in cache:
            raise NotImplementedError("%s is not installed" % engine)

    def track_added_us_per_token(self, cache, engine, forward_ms, rate):
        """The audited step's median minus the plain step's (µs)."""
        return cache[(engine, forward_ms, rate)]["added_us"]
    track_added_us_per_token.unit = "µs"
