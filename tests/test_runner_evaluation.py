"""End to end: `lockstep run` writes the run directory, twice the same (also under another
PYTHONHASHSEED), `lockstep check` re-simulates it to the same bytes and names a one-ulp change,
and an agent crash fails its route only."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest
from runner_helpers import REPO, manifest_less_output, results_without_wall_times, write_config

from recorder import PacketId, open_log
from recorder.logfile.reader import LogReader
from runner.check import check_run
from runner.cli import main
from runner.log_compare import compare_logs


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run")
    config = write_config(folder)
    assert main(["run", str(config), "-o", str(folder / "a")]) == 0
    return config, folder


def test_run_directory_and_score_table(first_run, capsys):
    _, folder = first_run
    run = folder / "a"
    names = sorted(p.name for p in run.iterdir())
    assert names == [
        "RouteScenario_0_rep0.log",
        "RouteScenario_1_rep0.log",
        "manifest.yaml",
        "results.json",
    ]
    results = results_without_wall_times(run / "results.json")
    records = results["_checkpoint"]["records"]
    assert [r["route_id"] for r in records] == ["RouteScenario_0_rep0", "RouteScenario_1_rep0"]
    # the autopilot drives both 40 m routes to their end without an infraction
    assert [r["status"] for r in records] == ["Perfect", "Perfect"]
    assert results["entry_status"] == "Finished"
    log = open_log(run / "RouteScenario_0_rep0.log")
    hero = [a for a in log.actors if a.attributes.get("role_name") == "hero"]
    assert [a.blueprint for a in hero] == ["vehicle.lincoln.mkz_2020"]


def test_same_config_same_bytes_under_another_hash_seed(first_run):
    config, folder = first_run
    env = dict(os.environ, PYTHONHASHSEED="4242")
    done = subprocess.run(
        [sys.executable, "-m", "runner.cli", "run", str(config), "-o", str(folder / "b")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "RouteScenario_1_rep0" in done.stdout  # the score table
    for name in ("RouteScenario_0_rep0.log", "RouteScenario_1_rep0.log"):
        assert compare_logs(folder / "a" / name, folder / "b" / name) is None
    assert results_without_wall_times(folder / "a" / "results.json") == (
        results_without_wall_times(folder / "b" / "results.json")
    )
    # the same manifests, each naming the run directory it was written to (-o)
    text_a, output_a = manifest_less_output(folder / "a" / "manifest.yaml")
    text_b, output_b = manifest_less_output(folder / "b" / "manifest.yaml")
    assert text_a == text_b
    assert (output_a, output_b) == (f"  output: {folder / 'a'}\n", f"  output: {folder / 'b'}\n")


def test_check_says_identical(first_run, capsys):
    _, folder = first_run
    assert main(["check", str(folder / "a")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "identical"
    assert "RouteScenario_0_rep0: identical" in out


def test_check_takes_a_relative_run_directory(first_run, monkeypatch, capsys):
    """As the README types it: `lockstep check runs/quickstart` from the checkout."""
    _, folder = first_run
    monkeypatch.chdir(folder)
    assert main(["check", "a"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "identical"


def _hero_position_offset(reader: LogReader, frame_number: int) -> tuple[int, int, float]:
    """(byte offset of the hero's location.x, hero id, value) in the given frame's Position."""
    hero = next(
        r.id
        for p in reader.packets()
        if p.id == PacketId.EventAdd
        for r in reader.records(p)
        if {a.id: a.value for a in r.attributes}.get("role_name") == "hero"
    )
    frame = None
    for packet in reader.packets():
        if packet.id == PacketId.FrameStart:
            frame = reader.records(packet)[0].id
        if packet.id == PacketId.Position and frame == frame_number:
            rows = reader.array(packet)
            index = int(np.flatnonzero(rows["id"] == hero)[0])
            # body: uint16 count, then records of id (uint32), location and rotation (float32 x 3)
            offset = packet.body_offset + 2 + index * 28 + 4
            return offset, hero, float(rows["location"][index, 0])
    raise AssertionError("no such frame")


def test_check_names_a_one_ulp_change(first_run, tmp_path, capsys):
    _, folder = first_run
    run = folder / "a"
    broken = tmp_path / "broken"
    broken.mkdir()
    for p in run.iterdir():
        (broken / p.name).write_bytes(p.read_bytes())
    log = broken / "RouteScenario_1_rep0.log"
    data = bytearray(log.read_bytes())
    offset, hero, value = _hero_position_offset(LogReader(bytes(data)), 40)
    (bits,) = struct.unpack_from("<I", data, offset)
    struct.pack_into("<I", data, offset, bits + 1)  # the next float32 up: one ulp
    log.write_bytes(bytes(data))
    changed = struct.unpack_from("<f", data, offset)[0]
    assert changed != value and np.nextafter(np.float32(value), np.float32(np.inf)) == changed

    checks = check_run(broken)
    assert checks[0].divergence is None
    d = checks[1].divergence
    assert (d.frame, d.packet, d.actor_id, d.field) == (40, "Position", hero, "location.x")
    assert (d.old, d.new) == (changed, value)
    assert main(["check", str(broken)]) == 1
    out = capsys.readouterr().out
    assert f"frame 40, packet Position, actor {hero}, field location.x" in out


def test_agent_crash_fails_its_route_and_the_next_runs(tmp_path, capsys):
    config = write_config(
        tmp_path,
        name="crash",
        agent={"entry": str(REPO / "tests" / "agents" / "crash_agent.py")},
        traffic={"vehicles": 2},
        limits={"route_seconds": 4.0},
    )
    out = tmp_path / "out"
    assert main(["run", str(config), "-o", str(out)]) == 1  # every route ran, one failed
    err = capsys.readouterr().err
    records = results_without_wall_times(out / "results.json")["_checkpoint"]["records"]
    assert records[0]["status"] == "Failed - Agent crashed"
    # the failure's traceback, once on stderr and in the record's meta.exception, ends at
    # the agent's raise (tests/agents/crash_agent.py, line 24)
    agent_file = REPO / "tests" / "agents" / "crash_agent.py"
    raised = f'File "{agent_file}", line 24, in run_step'
    exception = records[0]["meta"]["exception"]
    assert exception["failure"] == "agent_runtime"
    assert exception["message"] == "agent raised RuntimeError: agent fell over at frame 50"
    assert raised in exception["traceback"]
    assert err.count(raised) == 1 and err.count("Traceback (most recent call last)") == 1
    assert "exception" not in records[1]["meta"]  # a route that ran to its limit
    assert records[1]["route_id"] == "RouteScenario_1_rep0"
    assert records[1]["status"] == "Failed"  # stopped by the 4 s limit, short of its end
    # the crashed route's log is whole: 50 ticks, the last one the tick to frame 50
    log = open_log(out / "RouteScenario_0_rep0.log")
    assert len(log.frames) == 50
    # the second route ran to the 4 s limit: 80 ticks of 0.05 s
    assert len(open_log(out / "RouteScenario_1_rep0.log").frames) == 80
    assert [c.divergence for c in check_run(out)] == [None, None]


def test_ctrl_c_says_how_to_resume(tmp_path, monkeypatch, capsys):
    import runner.execution.driver

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner.execution.driver, "evaluate", interrupted)
    config = write_config(tmp_path, name="stopped")
    out = tmp_path / "out"
    assert main(["run", str(config), "-o", str(out)]) == 130
    assert capsys.readouterr().err == (
        f"lockstep: interrupted; what finished is kept in {out}: "
        f"`lockstep run {config} -o {out} --resume` goes on from there\n"
    )


def test_scenario_crash_fails_the_evaluation_with_its_traceback(tmp_path, monkeypatch, capsys):
    """A scenario that raises while running is the leaderboard's simulation crash: the route
    "Failed - Simulation crashed", the evaluation stops there, exit 1, the traceback (ending
    at the raise below) once on stderr and in the record's meta.exception."""
    from scenarios.route_scenario import RouteScenario
    from scenarios.tasks import tick

    def monitor(self) -> None:
        for _ in range(3):
            tick()
        raise ValueError("scenario fell over")

    monkeypatch.setattr(RouteScenario, "monitor", monitor)
    route = {
        "id": 0,
        "waypoints": [[20.0, 1.75, 0.0], [180.0, 1.75, 0.0]],
        "scenarios": [{"type": "HardBreakRoute", "trigger": {"x": 60.0, "y": 1.75, "yaw": 0.0}}],
    }
    config = write_config(
        tmp_path, name="scenario_crash", traffic={"vehicles": 0}, routes=[route, {**route, "id": 1}]
    )
    out = tmp_path / "out"
    assert main(["run", str(config), "-o", str(out), "--workers", "1"]) == 1
    err = capsys.readouterr().err
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    # the second route never started; a crashed entry has no global record (leaderboard 2.x's
    # LeaderboardEvaluator.run computes the global statistics only `if not crashed`)
    (record,) = results["_checkpoint"]["records"]
    assert results["_checkpoint"]["global_record"] == {}
    assert record["status"] == "Failed - Simulation crashed"
    assert results["entry_status"] == "Crashed"
    exception = record["meta"]["exception"]
    assert exception["failure"] == "simulation_runtime"
    assert exception["message"] == "task route scenario raised ValueError: scenario fell over"
    raised = 'raise ValueError("scenario fell over")'
    assert raised in exception["traceback"] and err.count(raised) == 1
