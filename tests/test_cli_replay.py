"""`lockstep replay` on a real CARLA log (Town01): CARLA's text, then the summary."""

from __future__ import annotations

import pytest

from runner.cli import main


def test_replay_command_prints_carlas_text_and_a_summary(shared, capsys):
    log = shared / "carla-logs" / "DistanceToLaneCenter_2020" / "recording.log"
    town = shared / "maps" / "carla" / "Town01.xodr"
    assert main(["replay", "-f", str(log), "--map", str(town), "-s", "13", "-x", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == [
        f"Replaying File: {log}",
        "Total time recorded: 15.8809",
        "Replaying from 13 s - 15.8809 s (15.8809 s) at 2.0x",
        "Ignoring Spectator camera",
    ]
    # the 2020 log names two blueprints lockstep's catalogue spells otherwise
    assert lines[4:6] == [
        "blueprint static.prop is not in lockstep's catalogue: replayed as static.prop.atm",
        "blueprint vehicle.lincoln.mkz2017 is not in lockstep's catalogue: "
        "replayed as vehicle.lincoln.mkz_2017",
    ]
    # 2.8809 s at 2x in ticks of 0.05 s: 29 ticks; sensors are not made without --spawn-sensors
    assert lines[6].startswith("replayed 15.9 s in 29 ticks of 0.05 s: 119 actors created")
    assert lines[6].endswith("57 traffic lights and signs matched")


def test_replay_command_names_a_missing_log(tmp_path, capsys):
    code = main(["replay", "-f", str(tmp_path / "none.log"), "--map", "x.xodr"])
    assert code == 2
    assert f"no log at {tmp_path / 'none.log'}" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["-i", "--move-spectator", "--spawn-sensors"])
def test_replay_command_takes_start_replayings_flags(flag):
    from runner.cli import build_parser

    args = build_parser().parse_args(["replay", "-f", "a.log", "--map", "m.xodr", flag])
    assert args.command == "replay"
