"""`python -m refimpl.serving.worker` takes no arguments: any is one `error:` line, exit
status 2 (--help: the usage, status 0)."""
from refimpl.serving.worker import main
from tests.support.cli import error_line


def test_an_argument_is_an_error_line(capsys):
    assert main(["--foo"]) == 2
    error_line(capsys.readouterr().err, "--foo", "no arguments")
    assert main(["--help"]) == 0
    assert "usage: python -m refimpl.serving.worker" in capsys.readouterr().err
