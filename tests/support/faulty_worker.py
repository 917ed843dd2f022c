"""A worker of the protocol (docs/protocol.md) that fails on purpose, for the tests of
how the conformance runner reads a failing `cmd:` engine:

    python tests/support/faulty_worker.py MODE

At its start (a setup error: no vector may run):

    exit-at-hello     writes a line to stderr and exits with code 3 before answering
    garbage-hello     answers its hello with a line that is not JSON
    hang-hello        never answers its hello
    old-protocol      answers its hello with protocol version 99

During a vector (`serve`: refimpl's own worker answers everything else): a session whose
grammar text contains `die` exits at its first mask, `hang` never answers it, `junk`
answers it with a line that is not JSON — the other sessions are served as refimpl
serves them. `die-at-forced-bytes` serves every session but exits at the first
`forced_bytes` request (the runner's and fuzzer's check of the rest of the Matcher API).
"""
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAULTS = ("die", "hang", "junk")


def reply(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def at_start(mode, req):
    """Fail at the hello, as `mode` says."""
    if mode == "exit-at-hello":
        sys.stderr.write("faulty worker: cannot load its model\n")
        sys.stderr.flush()
        sys.exit(3)
    if mode == "garbage-hello":
        reply("hello there")
    elif mode == "hang-hello":
        while True:
            time.sleep(1)
    elif mode == "old-protocol":
        reply(json.dumps({"ok": True, "id": req.get("id"), "protocol": 99}))


def serve(mode):
    """refimpl's worker, but for the sessions whose grammar asks for a fault (and, in mode
    die-at-forced-bytes, the first forced_bytes request)."""
    sys.path.insert(0, ROOT)
    from refimpl.serving.worker import Worker

    worker = Worker()
    faulty = {}  # session -> the fault its grammar asks for
    for line in sys.stdin:
        req = json.loads(line)
        if mode == "die-at-forced-bytes" and req.get("op") == "forced_bytes":
            os._exit(9)
        if req.get("op") == "mask" and req.get("session") in faulty:
            fault = faulty[req["session"]]
            if fault == "die":
                os._exit(7)
            if fault == "hang":
                while True:
                    time.sleep(1)
            reply("junk, not a reply")
            continue
        out = worker.handle_line(line)
        if out is None:
            continue
        sys.stdout.write(out)
        sys.stdout.flush()
        if req.get("op") == "create":
            text = json.dumps(req.get("grammar"))
            fault = next((f for f in FAULTS if f in text), None)
            if fault is not None:
                faulty[json.loads(out)["session"]] = fault
        if req.get("op") == "shutdown":
            return


def main(mode):
    if mode in ("serve", "die-at-forced-bytes"):
        return serve(mode)
    line = sys.stdin.readline()
    at_start(mode, json.loads(line) if line.strip() else {})


if __name__ == "__main__":
    main(sys.argv[1])
