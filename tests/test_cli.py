"""The CLI's contract: help without a command, errors as one line and exit 2."""

from runner.cli import main


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "usage: lockstep" in capsys.readouterr().out
