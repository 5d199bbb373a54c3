"""PedestrianCrossing on town_small's top road: the autopilot ego drives east in the lane
y = 1.75 (3.5 m lanes, 2 m sidewalks) towards the T-junction at (100, 0), which starts at
x = 91; that junction gives way on its north arm, so the ego's approach has no light or
sign. Triggered at x = 30: the route's last point before the junction is x = 90, and the
crosswalk across the approach is 3 m wide, 0.5 m from the junction (x 87.5 to 90.5), so the
crossing line is x = 89. The walkers stand on the right sidewalk (centre y = 3.5 + 1 = 4.5)
at (88.4, 4.5), (89, 5.0) and (89.6, 4.0), facing across. Once the ego is 3.5 s or 12 m
from (89, 1.75) each walker, after its idle time (0 to 1.5 s), walks straight across at its
speed (1.3 to 2 m/s) to the far sidewalk's centre (y = -4.5) and goes. The ego stops before
the crossing while any of them is in its lane and drives on after. Two runs give identical
logs. On Town04, whose crosswalks stand inside its junctions, the group is placed at the
crosswalk the ego's lane enters the junction through."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from runner_helpers import TOWN
from scenario_runs import run_scenario_route
from world_helpers import blueprint

from runner.log_compare import compare_logs
from scenarios.base import ScenarioContext
from scenarios.library import SCENARIO_TYPES
from scenarios.placement import crosswalks
from world.geometry import Location
from world.map.map import Map
from world.settings import WorldSettings
from world.world import World

LANE_Y, FAR_SIDEWALK_Y = 1.75, -4.5
CROSSING_X = 89.0
WAYPOINTS = [[20.0, LANE_Y, 0.0], [140.0, LANE_Y, 0.0]]
SCENARIO = [{"type": "PedestrianCrossing", "trigger": {"x": 30.0, "y": LANE_Y, "yaw": 0.0}}]
GROUP = [(88.4, 4.5), (89.0, 5.0), (89.6, 4.0)]
TICK = 0.05
EGO_HALF_LENGTH = 2.45  # m, a Lincoln MKZ 2020 (4.89 m long)
WALKER_HALF_SIZE = 0.25  # m, at most (the smallest children's 0.5 m square box)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pedestrian_crossing")
    return [
        run_scenario_route(folder / str(k), "pc", WAYPOINTS, SCENARIO, route_seconds=24.0)
        for k in range(2)
    ]


def test_the_ego_approach_has_no_light_or_sign():
    # from the street's start (x = 9) to the junction: only its speed limit sign, 6 m in
    lane = Map.from_file(TOWN).get_waypoint(Location(12.0, LANE_Y, 0.0))
    marks = lane.get_landmarks(100.0, stop_at_junction=True)
    assert [(mark.type, round(mark.distance, 1)) for mark in marks] == [("274", 3.0)]


def test_a_group_crosses_at_the_crosswalk_and_the_ego_waits(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    first = next(
        i for i, o in enumerate(trace.others) if any(s.role == "scenario" for s in o.values())
    )
    placed = sorted(
        (s for s in trace.others[first + int(1.0 / TICK)].values() if s.role == "scenario"),
        key=lambda s: s.x,
    )
    assert [s.type_id.startswith("walker.") for s in placed] == [True] * 3
    for walker, (x, y) in zip(placed, GROUP, strict=True):
        assert (walker.x, walker.y) == pytest.approx((x, y), abs=0.05)

    def due(e) -> bool:
        gap = math.hypot(CROSSING_X - e.x, LANE_Y - e.y)
        return gap < 12.0 or (e.speed > 0.1 and gap / e.speed < 3.5)

    trigger = next(i for i, e in enumerate(trace.ego) if e.x > 30.0 and due(e))
    tracks = [trace.of(w.id) for w in placed]
    for walker, track in zip(placed, tracks, strict=True):
        seen = [i for i, s in enumerate(track) if s is not None]
        start = next(i for i in seen if abs(track[i].y - walker.y) > 1e-3)
        # the next tick's task, then its idle time: up to 1.5 s
        assert 1 <= start - trigger <= 1 + round(1.5 / TICK) + 1
        walking = [track[i] for i in seen if i > start + 5]
        assert 1.3 <= statistics.median(s.speed for s in walking) <= 2.0
        assert all(abs(s.x - walker.x) < 0.05 for s in walking)  # straight across
        assert track[seen[-1]].y == pytest.approx(FAR_SIDEWALK_Y, abs=0.25)
        assert seen[-1] + 1 < len(track) and track[seen[-1] + 1] is None  # then it goes

    def in_lane(i) -> bool:
        return any(t[i] is not None and abs(t[i].y - LANE_Y) < 1.75 for t in tracks)

    blocked = [i for i in range(len(trace.ego)) if in_lane(i)]
    assert blocked
    line = min(x for x, _ in GROUP) - WALKER_HALF_SIZE
    assert all(trace.ego[i].x + EGO_HALF_LENGTH < line for i in blocked)
    assert min(trace.ego[i].speed for i in blocked) < 0.05  # it waits
    assert max(e.x for e in trace.ego) > 120.0  # and drives on after
    assert not [e for e in outcome.events if e.startswith("COLLISION")]


def test_on_a_carla_town_the_group_stands_at_the_crosswalk_the_lane_enters(shared):
    # Town04's (and Town10HD's) crosswalks stand inside their junctions, 2 to 7 m past the
    # last lane point before them. The one around (196.2, -309.4) spans the road across: the
    # lane 10 m from its middle square to its long side, heading to it, enters the junction
    # through it (5 m past that lane's last point).
    world_map = Map.from_file(shared / "maps" / "carla" / "Town04.xodr")
    polygons = crosswalks(world_map)
    polygon = min(polygons, key=lambda p: _middle(p).distance(Location(196.2, -309.4, 0.0)))
    middle = _middle(polygon)
    edges = zip(polygon, [*polygon[1:], polygon[0]], strict=True)
    a, b = max(edges, key=lambda e: e[0].distance(e[1]))
    span = a.distance(b)
    across = ((b.x - a.x) / span, (b.y - a.y) / span)
    lane = None
    for sign in (1.0, -1.0):
        at = Location(middle.x - sign * 10.0 * across[1], middle.y + sign * 10.0 * across[0])
        wp = world_map.get_waypoint(at)
        heading = wp.transform.get_forward_vector()
        if not wp.is_junction and heading.x * (middle.x - at.x) + heading.y * (middle.y - at.y) > 0:
            lane = wp
    assert lane is not None
    plan, wp = [], lane
    for _ in range(30):  # a dense plan through the junction, 1 m apart
        plan.append((wp.transform, None))
        wp = wp.next(1.0)[0]
    world = World(world_map)
    world.apply_settings(WorldSettings(fixed_delta_seconds=TICK))
    ego = world.spawn_actor(blueprint("vehicle.lincoln.mkz_2020", "hero"), plan[0][0])
    ctx = ScenarioContext(world, ego, plan)
    rng = np.random.default_rng(0)
    scenario = SCENARIO_TYPES["PedestrianCrossing"](ctx, "pc", plan[0][0], {}, rng, 0)
    scenario.setup()
    # the crossing point: on the ego's lane, on the line square to it through the middle
    forward = lane.transform.get_forward_vector()
    right = lane.transform.get_right_vector()

    def along(where) -> float:
        return (where.x - middle.x) * forward.x + (where.y - middle.y) * forward.y

    def aside(where) -> float:
        return (where.x - middle.x) * right.x + (where.y - middle.y) * right.y

    crossing = scenario.crossing
    assert along(crossing) == pytest.approx(0.0, abs=1e-6)
    assert aside(crossing) == pytest.approx(aside(lane.transform.location), abs=0.1)
    walkers = scenario.walkers
    assert [round(along(w.get_location()), 2) for w in walkers] == [-0.6, 0.0, 0.6]
    for walker in walkers:  # right of the lane's edge, facing across to the left
        edge = aside(crossing) + 0.5 * lane.lane_width
        assert aside(walker.get_location()) - WALKER_HALF_SIZE > edge
        yaw = walker.get_transform().rotation.yaw
        assert (yaw - lane.transform.rotation.yaw) % 360.0 == pytest.approx(270.0, abs=1e-6)
    assert aside(crossing) < span / 2  # the crosswalk spans the lane
    scenario.cleanup()


def _middle(polygon) -> Location:
    n = len(polygon)
    return Location(sum(c.x for c in polygon) / n, sum(c.y for c in polygon) / n, 0.0)


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
