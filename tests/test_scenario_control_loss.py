"""ControlLoss on town_small's top road east of the middle junction. Trigger at x = 125:
dirt debris on the lane centre 14 and 48 m on (x = 139, 173; the third, 74 m on, lies past
the route's end). Debris is flat (under 0.2 m), so the autopilot ego drives over it. While
the ego is within 2 m of a piece its control (as the log's AnimVehicle packets record it)
jumps by the noise, a steer of 0.055 +- 0.015 either way: the tick the ego comes within
2 m and the tick it leaves, its steer jumps by 0.01 to 0.1, against under 0.005 a tick on
the way there. Two runs give identical logs."""

from __future__ import annotations

import math

import pytest
from scenario_runs import run_scenario_route

from recorder.logfile.access import open_log
from recorder.logfile.packet_ids import PacketId
from runner.log_compare import compare_logs

WAYPOINTS = [[120.0, 1.75, 0.0], [195.0, 1.75, 0.0]]
SCENARIOS = [{"type": "ControlLoss", "trigger": {"x": 125.0, "y": 1.75, "yaw": 0.0}}]
DEBRIS = [(139.0, 1.75), (173.0, 1.75)]
TICK = 0.05


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("control_loss")
    return [
        run_scenario_route(folder / str(k), "cl", WAYPOINTS, SCENARIOS, route_seconds=14.0)
        for k in range(2)
    ]


def test_the_ego_control_is_perturbed_over_the_debris(runs):
    outcome, trace, log = runs[0]
    assert outcome.failure.value == "none", outcome.message
    pieces = sorted(
        (round(s.x, 2), round(s.y, 2))
        for s in trace.others[-1].values()
        if s.type_id == "static.prop.dirtdebris01"
    )
    assert pieces[:2] == DEBRIS
    ego = trace.ego[0].id
    steer: dict[int, float] = {}
    for frame in open_log(log).frames:  # the control applied seeing the trace's sample i
        for record in frame.records(PacketId.AnimVehicle):
            if record.id == ego:
                steer[round(frame.elapsed / TICK)] = record.steering
    for x, y in DEBRIS:
        gap = [math.hypot(e.x - x, e.y - y) for e in trace.ego]
        near = [i for i, d in enumerate(gap) if d < 2.0]
        assert near, "the ego reaches the debris"
        first, last = near[0], near[-1]
        assert near == list(range(first, last + 1))
        assert 0.01 < abs(steer[first] - steer[first - 1]) < 0.1  # the noise comes on
        assert 0.01 < abs(steer[last + 1] - steer[last]) < 0.1  # and goes
        approach = [i for i in range(first - 30, first) if gap[i] < 6.0]
        assert len(approach) > 5
        assert all(abs(steer[i] - steer[i - 1]) < 0.005 for i in approach)
    assert not [e for e in outcome.events if e.startswith("COLLISION")]


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
