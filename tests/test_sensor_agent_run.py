"""An agent with the SENSORS track's sensors (cameras, a LiDAR, a radar, GNSS, IMU and a
speedometer) runs a route under `lockstep run`, and `lockstep check --agent` (the real agent
again, not the logged controls) finds the same log: its pictures and clouds are the same bytes
in the second process, or its controls, which read them, would differ."""

from __future__ import annotations

from runner_helpers import REPO, write_config

from runner.check import check_run
from runner.cli import main


def test_a_sensors_track_agent_runs_and_checks_identical(tmp_path):
    config = write_config(
        tmp_path,
        name="sensors",
        agent={"entry": str(REPO / "tests" / "agents" / "sensors_agent.py")},
        traffic={"vehicles": 4},
        routes=[{"id": 0, "waypoints": [[20.0, 1.75, 0.0], [60.0, 1.75, 0.0]]}],
        limits={"route_seconds": 3.0},
    )
    out = tmp_path / "out"
    assert main(["run", str(config), "-o", str(out)]) == 0
    assert (out / "RouteScenario_0_rep0.log").stat().st_size > 0
    assert [c.divergence for c in check_run(out, agent=True)] == [None]
