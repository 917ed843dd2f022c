"""`python -m refimpl.serving.worker` takes only --backend python|index and --mask-cache:
another argument is one `error:` line, exit status 2 (--help: the usage, status 0)."""
from refimpl.serving.worker import main
from tests.support.cli import error_line


def test_an_argument_is_an_error_line(capsys):
    assert main(["--foo"]) == 2
    error_line(capsys.readouterr().err, "--foo", "--backend python|index")
    assert main(["--backend", "walker"]) == 2
    error_line(capsys.readouterr().err, "--backend")
    assert main(["--help"]) == 0
    assert "usage: python -m refimpl.serving.worker" in capsys.readouterr().err


def test_the_index_backend_and_the_mask_cache_answer_as_the_walker():
    """A worker on the index backend (regular grammars; others are unsupported) and one with
    the mask cache give the default worker's masks."""
    from refimpl.serving.worker import Worker

    create = {"op": "create", "grammar": {"kind": "regex", "text": "(ab|a)+c?"},
              "vocabulary": {"tokens_hex": ["61", "62", "6162", "63", ""], "eos_token_ids": [4]}}
    masks = []
    for w in (Worker(), Worker("index"), Worker(mask_cache=True)):
        sid = w.handle(create)["session"]
        seen = [w.handle({"op": "mask", "session": sid})["mask"]]
        for t in (2, 0, 3):
            assert w.handle({"op": "consume", "session": sid, "tokens": [t]})["consumed"] == 1
            seen.append(w.handle({"op": "mask", "session": sid})["mask"])
        masks.append(seen)
    assert masks[0] == masks[1] == masks[2] and len(set(masks[0])) > 1
    lark = dict(create, grammar={"kind": "lark", "text": "start: x\nx: \"a\" x \"b\" | \"c\""})
    reply = Worker("index").handle(lark)
    assert reply["error"]["type"] == "Unsupported" and "no token index" in reply["error"]["message"], reply
