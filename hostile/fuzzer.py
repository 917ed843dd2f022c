"""The fuzzing child: one target under atheris and libFuzzer, in a process of its own.

    python -m hostile.fuzzer TARGET PACKAGES FINDINGS -- LIBFUZZER_FLAGS... CORPUS

hostile/campaign.py starts it (a crash, a hang or an out-of-memory of one target then ends
this process, not the campaign). It imports the target's module inside
`atheris.instrument_imports(include=PACKAGES)` and calls `atheris.Fuzz()` still inside it,
so the modules the entry point imports lazily are instrumented too; atheris must come
before the code under test, hence the imports inside `main`.

An input that breaks the property (a `Violation`) is a finding: its signature
(hostile/findings.py) goes to stderr as a line `hostile-finding <json>`, the shortest input
of each signature to FINDINGS, and fuzzing goes on — so one bug met a thousand times does
not end a campaign.
"""
from __future__ import annotations

import json
import sys
from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    split = args.index("--")
    own, libfuzzer = args[:split], args[split + 1:]
    ref, packages, directory = own
    import atheris

    with atheris.instrument_imports(include=[p for p in packages.split(",") if p]):
        from . import property
        from .findings import FINDING_PREFIX, Findings, record, signature
        from .lookup import resolve
        from .property import Violation

        property.ALARM = False  # libFuzzer's -timeout bounds each input here (property.ALARM)

        target = resolve(ref)
        findings = Findings(directory)

        def one_input(data: bytes) -> None:
            try:
                target.run(data)
            except Exception as e:  # a Violation; or an exception the target's decoding let out
                sig = signature(e)
                if findings.add(sig, data) is not None:
                    message = str(e) if isinstance(e, Violation) else "%s: %s" % (type(e).__name__, e)
                    sys.stderr.write(FINDING_PREFIX + json.dumps(dict(record(sig, data), message=message[:300])) + "\n")
                    sys.stderr.flush()

        atheris.Setup([sys.argv[0]] + libfuzzer, one_input)
        atheris.Fuzz()


if __name__ == "__main__":
    main()
