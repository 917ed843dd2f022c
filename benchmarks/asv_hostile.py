"""asv: each fuzz target (hostile/targets/, docs/hostile.md) under atheris, from 32 of
its seeds, for 500 inputs with libFuzzer's seed 1 — the same inputs on every run, so the coverage reached
(`cov`, `ft`) compares across commits and the time measures the entry points on them; and
the slowest input of the final corpus and the peak RSS of its replay. Measured once per
target in `setup_cache` (`hostile.campaign.run_target`, a child process per target);
skipped, with the reason, where atheris is absent (PyPy; CPython without the `fuzz` extra).
The same figures for a campaign: `python -m hostile run --profile campaign`."""
import importlib.util
import tempfile

from hostile import campaign
from hostile.lookup import registry
from hostile.progress import Say

TARGETS = sorted(registry())
BUDGET = campaign.Budget(runs=500, seeds=32)


class Fuzzing:
    params = [TARGETS]
    param_names = ["target"]
    timeout = 3600

    def setup_cache(self):
        if importlib.util.find_spec("atheris") is None:
            return "atheris is not installed: pip install -e '.[fuzz]' (CPython)"
        say = Say(quiet=True)
        findings = tempfile.mkdtemp(prefix="asv-hostile-")
        return {name: campaign.run_target(target, BUDGET, 1, "asv", findings, say)
                for name, target in registry().items()}

    def setup(self, cache, target):
        if isinstance(cache, str):
            raise NotImplementedError(cache)
        self.r = cache[target]

    def track_seconds(self, cache, target):
        return self.r["fuzz_seconds"]
    track_seconds.unit = "s"

    def track_cov(self, cache, target):
        return self.r["cov"]
    track_cov.unit = "edges"

    def track_ft(self, cache, target):
        return self.r["ft"]
    track_ft.unit = "features"

    def track_findings(self, cache, target):
        return len(self.r["findings"])
    track_findings.unit = "findings"

    def track_slowest_input(self, cache, target):
        return self.r["replay"]["slowest"]["seconds"]
    track_slowest_input.unit = "s"

    def track_peak_rss(self, cache, target):
        return self.r["replay"]["peak_rss_mb"]
    track_peak_rss.unit = "MB"
