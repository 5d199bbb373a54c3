"""BlockedIntersection on town_small's T-junction without lights (junction 14: centre
(100, -3.6), half sizes 9 x 5.4 m, so its west exit is at x = 91): the autopilot ego
comes north up the side road (x = 98.25) and turns right into the west-going lane
(y = -1.75). A car appears standing 5 m past the exit (x = 86) when the ego reaches the
trigger; the ego stops behind it, still inside the junction; the car goes 10 s after the
ego came within 13 m of it, and the ego drives on. Two runs give identical logs."""

from __future__ import annotations

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[98.25, -50.0, 0.0], [50.0, -1.75, 0.0]]
SCENARIO = [{"type": "BlockedIntersection", "trigger": {"x": 98.25, "y": -47.0, "yaw": 90.0}}]
BOX = (100.0, -3.6, 9.0, 5.4)
TICK = 0.05


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("blocked")
    return [
        run_scenario_route(folder / str(k), "bi", WAYPOINTS, SCENARIO, route_seconds=30.0)
        for k in range(2)
    ]


def test_the_exit_stays_blocked_10_s_after_the_ego_closes_in(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    assert "ROUTE_COMPLETION" in outcome.events
    assert not [e for e in outcome.events if e.startswith("COLLISION")]
    ids = {s.id for o in trace.others for s in o.values() if s.role == "scenario"}
    assert len(ids) == 1
    blocker = trace.of(ids.pop())
    seen = [i for i, s in enumerate(blocker) if s is not None]
    first = blocker[seen[0]]
    assert 85.0 < first.x < 87.0 and abs(first.y + 1.75) < 0.3  # 5 m past the exit
    settled = seen[int(1.0 / TICK) :]  # after it has dropped onto the road
    assert all(blocker[i].speed < 0.05 and abs(blocker[i].x - first.x) < 0.05 for i in settled)
    close = next(
        i for i in seen if ((trace.ego[i].x - first.x) ** 2 + (trace.ego[i].y - first.y) ** 2) < 169
    )
    assert abs((seen[-1] + 1 - close) * TICK - 10.0) <= 2 * TICK  # gone 10 s later
    cx, cy, ex, ey = BOX
    standing = [
        e
        for e in trace.ego[close : seen[-1]]
        if e.speed < 0.1 and abs(e.x - cx) <= ex and abs(e.y - cy) <= ey
    ]
    assert len(standing) * TICK > 5.0  # the ego waited in the junction behind it
    assert trace.ego[-1].x < 60.0  # and drove on


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
