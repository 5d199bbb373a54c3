"""The route criteria on town_small: a car driven with apply_control through a red light, into
a parked car, and a car that stands still for 180 s, with the events' messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.criteria import (
    AgentBlockedTest,
    CollisionTest,
    OutsideRouteLanesTest,
    RouteCriteria,
    RunningRedLightTest,
    RunningStopTest,
    TickView,
)
from runner.scoring.events import TrafficEventType
from runner.statistics import (
    EvaluationSession,
    Failure,
    MemoryResultsFile,
    ScoredRoute,
    route_name,
)
from tests.world_helpers import blueprint
from world import Map, TrafficLightState, VehicleControl, World, WorldSettings
from world.geometry import Location, Rotation, Transform

TOWN_SMALL = Path(__file__).resolve().parents[1] / "configs" / "maps" / "town_small.xodr"
CAR = "vehicle.lincoln.mkz_2017"
# Road 3, lane -1 runs along +x at y = -98.25 into the junction at x = 91, where light 4 stands.
LANE_Y = -98.25
LIGHT = 4


def town() -> World:
    world = World(Map.from_file(TOWN_SMALL))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    return world


def car_at(world: World, x: float):
    return world.spawn_actor(blueprint(CAR), Transform(Location(x, LANE_Y, 0.5), Rotation()))


def drive_through(light_state: TrafficLightState) -> tuple[RunningRedLightTest, float, object]:
    world = town()
    ego = car_at(world, 61.0)
    light = world.get_actor(LIGHT)
    light.set_state(light_state)
    light.freeze(True)
    test = RunningRedLightTest(world)
    for _ in range(160):
        ego.apply_control(VehicleControl(throttle=0.6))
        world.tick()
        test.update(TickView.capture(world, ego))
    return test, ego.get_location().x, light


def test_running_a_red_light() -> None:
    test, x, light = drive_through(TrafficLightState.Red)
    assert x > 110.0  # the car crossed the junction
    where = light.get_transform().location
    assert [(e.kind, e.message) for e in test.events] == [
        (
            TrafficEventType.TRAFFIC_LIGHT_INFRACTION,
            f"Agent ran a red light {LIGHT} at "
            f"(x={round(where.x, 3)}, y={round(where.y, 3)}, z={round(where.z, 3)})",
        )
    ]
    assert test.events[0].data["id"] == LIGHT


def test_a_green_light_is_no_infraction() -> None:
    test, x, _light = drive_through(TrafficLightState.Green)
    assert x > 110.0
    assert test.events == []


def test_collision_with_a_parked_car_counts_once() -> None:
    world = town()
    ego = car_at(world, 61.0)
    parked = car_at(world, 80.0)
    test = CollisionTest()
    touching = 0
    pushing = 60  # ticks (3 s) of throttle after the hit, then the brake
    for _ in range(200):
        pushing -= bool(test.events)
        go = pushing > 0
        ego.apply_control(VehicleControl(throttle=0.6 if go else 0.0, brake=0.0 if go else 1.0))
        world.tick()
        test.update(TickView.capture(world, ego))
        touching += any(ego.id in (p.actor_id, p.other_id) for p in world.collision_events())
    assert touching > 1  # the pair touched on several ticks, one collision was counted
    assert len(test.events) == 1
    event = test.events[0]
    assert event.kind is TrafficEventType.COLLISION_VEHICLE
    assert event.message.startswith(
        f"Agent collided against object with type={CAR} and id={parked.id} at (x="
    )


def test_standing_still_180_s_is_blocked() -> None:
    world = town()
    ego = car_at(world, 61.0)
    test = AgentBlockedTest()
    for _ in range(3700):
        world.tick()
        test.update(TickView.capture(world, ego))
        if test.events:
            break
    # The clock starts at the first tick's time t1; blocked at the first tick whose time,
    # the sum of the 0.05 s steps, is more than 180 s past t1.
    elapsed, frame, t1 = 0.0, 0, None
    while True:
        frame += 1
        elapsed += 0.05
        t1 = elapsed if t1 is None else t1
        if elapsed - t1 > 180.0:
            break
    assert [e.frame for e in test.events] == [frame]
    assert test.events[0].message.startswith("Agent got blocked at (x=61.0, y=-98.25, z=")
    assert test.stops_route


# Stop sign 13 governs road 3, lane 1 (westward, y = -101.75); its box is centred at x = 16.
STOP_SIGN = 13


def approach_stop(stop_first: bool) -> tuple[RunningStopTest, float]:
    world = town()
    ego = world.spawn_actor(
        blueprint(CAR), Transform(Location(46.0, -101.75, 0.5), Rotation(0.0, 180.0, 0.0))
    )
    test = RunningStopTest(world)
    held = 0
    for _ in range(420):
        x = ego.get_location().x
        if stop_first and x < 19.0 and held < 40:  # brake to a standstill, wait, go on
            held += ego.get_velocity().length() < 0.01
            control = VehicleControl(brake=1.0)
        else:
            control = VehicleControl(throttle=0.4)
        ego.apply_control(control)
        world.tick()
        test.update(TickView.capture(world, ego))
    return test, ego.get_location().x


def test_running_a_stop_sign() -> None:
    test, x = approach_stop(stop_first=False)
    assert x < 10.0  # well past the sign's box
    assert [(e.kind, e.message) for e in test.events] == [
        (
            TrafficEventType.STOP_INFRACTION,
            f"Agent ran a stop with id={STOP_SIGN} at (x=13.0, y=-104.5, z=0.15)",
        )
    ]


def test_stopping_at_the_sign_is_no_infraction() -> None:
    test, x = approach_stop(stop_first=True)
    assert x < 10.0
    assert test.events == []


def test_route_criteria_complete_a_short_route_and_score_it() -> None:
    world = town()
    ego = car_at(world, 55.0)
    start = world.get_map().get_waypoint(Location(56.0, LANE_Y, 0.0))
    route = [start]
    while route[-1].transform.location.x < 85.0:
        route.append(route[-1].next(1.0)[0])
    transforms = [wp.transform for wp in route]
    criteria = RouteCriteria(world, ego, transforms)
    reason = ""
    for _ in range(400):
        ego.apply_control(VehicleControl(throttle=0.4))
        world.tick()
        criteria.update(world, ego)
        reason = criteria.stop_reason()
        if reason:
            break
    criteria.terminate()
    assert reason == "completed"
    points = [[t.location.x, t.location.y, t.location.z] for t in transforms]
    store = MemoryResultsFile()
    session = EvaluationSession(store, [route_name("0")], 1)
    entry = session.next_route()
    session.route_loaded(ScoredRoute(points, criteria, criteria.timeout.timed_out))
    session.agent_ready(["carla_speedometer"])
    record = session.route_finished(entry, Failure.NONE, 1.0, 10.0)
    assert record["status"] == "Perfect"
    assert record["scores"] == {"score_route": 100, "score_penalty": 1.0, "score_composed": 100.0}


def test_driving_in_the_opposite_lane_counts_as_outside_the_route_lanes() -> None:
    world = town()
    ego = car_at(world, 56.0)
    ego.set_simulate_physics(False)
    start = world.get_map().get_waypoint(Location(56.0, LANE_Y, 0.0))
    route = [start]
    while len(route) < 31:
        route.append(route[-1].next(1.0)[0])
    test = OutsideRouteLanesTest([wp.transform for wp in route], world, ego)
    for k in range(62):  # 0.5 m a tick, x = 56 ... 86.5; x in [66, 76) in lane 1 (westward)
        x = 56.0 + 0.5 * k
        y = -101.75 if 66.0 <= x < 76.0 else LANE_Y
        ego.set_transform(Transform(Location(x, y, 0.0), Rotation()))
        world.tick()
        test.update(TickView.capture(world, ego))
    # route points 66 ... 75 were passed in the wrong lane: 10 of the 30 metres passed
    assert len(test.events) == 1
    event = test.events[0]
    assert event.kind is TrafficEventType.OUTSIDE_ROUTE_LANES_INFRACTION
    assert event.data["distance"] == pytest.approx(10.0, abs=1e-4)
    assert event.data["percentage"] == pytest.approx(100 * 10 / 30, abs=1e-3)
    assert event.message == (
        "Agent went outside its route lanes for about 10.0 meters (33.33% of the completed route)"
    )


def test_stop_sign_screening_gives_the_exact_points_answer() -> None:
    """The stop-sign test takes the exact pose of a lane point ahead only where its lane
    comes near the sign's box; whether a point is in the box is the answer ScenarioRunner's
    rule gives on the exact waypoint poses (the ego's lane point, then waypoint.next(0.5)
    eight times), at every spot of an approach to and past sign 13, a centimetre apart."""
    from runner.criteria.base import lane_spot
    from runner.criteria.stop_sign import _AheadPoints, point_in_box
    from world.map.lane_enums import LaneType

    world = town()
    world_map = world.get_map()
    test = RunningStopTest(world)
    ((_sign, centre, extent),) = [e for e in test._signs if e[0].id == STOP_SIGN]
    zones: dict = {}

    class Tick:
        def __init__(self, where: Location) -> None:
            self.world, self._spot = world, lane_spot(world_map, where, LaneType.Driving)

        def lane(self, lane_type):
            return self._spot

    answers, ahead_only = set(), 0
    for k in range(2400):
        where = Location(28.0 - 0.01 * k, -101.75 + 0.3 * (k % 3 - 1), 0.0)
        tick = Tick(where)
        points, wp = [tick._spot.location], tick._spot.waypoint
        for _ in range(8):
            wp = wp.next(0.5)[0]
            points.append(wp.transform.location)
        exact = any(point_in_box(p, centre, extent) for p in points)
        assert _AheadPoints(tick, zones).any_in_box(centre, extent) == exact, where
        answers.add(exact)
        ahead_only += exact and not point_in_box(points[0], centre, extent)
    assert answers == {True, False}
    assert ahead_only > 50  # spots where only a point ahead is in the box
    assert any(any(zone.inside) for zone in zones.values())  # some answered without a pose
