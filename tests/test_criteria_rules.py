"""The route criteria on hand-made ticks: ScenarioRunner's thresholds and messages worked by
hand on a straight 100 m route, and their events scored by the statistics."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from runner.criteria import (
    AgentBlockedTest,
    CollisionTest,
    InRouteTest,
    MinSpeedTest,
    NearScreen,
    RouteCompletionTest,
    RouteTimeout,
    ScenarioTimeoutTest,
    TickView,
)
from runner.statistics import (
    EvaluationSession,
    MemoryResultsFile,
    ScoredRoute,
    TrafficEventType,
    route_name,
)
from world.geometry import Location, Rotation, Transform, Vector3D

T = TrafficEventType
ROUTE = [Transform(Location(float(x), 0.0, 0.0), Rotation(0.0, 0.0, 0.0)) for x in range(101)]


def tick(x: float, y: float = 0.0, t: float = 0.0, speed: float = 5.0, frame: int = 1, **kw):
    return TickView(
        kw.get("world"),
        kw.get("ego"),
        frame,
        t,
        Transform(Location(x, y, 0.0), Rotation()),
        Vector3D(speed, 0.0, 0.0),
        speed,
    )


def test_route_completion_int_zero_then_percent_then_int_100() -> None:
    test = RouteCompletionTest(ROUTE)
    event = test.events[0]
    assert (event.frame, event.data, event.message) == (
        0,
        {"route_completed": 0},
        "Agent has completed 0 of the route",
    )
    for k in range(51):  # at x = k + 0.5 the ego has passed point k
        test.update(tick(k + 0.5))
    assert event.data == {"route_completed": 50.0}
    assert event.message == "Agent has completed 50.0 of the route"
    for k in range(51, 101):
        test.update(tick(k + 0.5))
    assert test.test_status == "SUCCESS" and not test.stops_route  # ends on the next tick
    test.update(tick(100.6))
    assert test.stops_route
    test.terminate(None)
    assert event.data == {"route_completed": 100}
    assert type(event.data["route_completed"]) is int


def test_route_completion_never_started_fails_with_int_zero() -> None:
    test = RouteCompletionTest(ROUTE)
    test.update(tick(-5.0))
    test.terminate(None)
    assert test.events[0].data == {"route_completed": 0}


def test_in_route_30_m_away_deviates_at_once() -> None:
    test = InRouteTest(ROUTE)
    test.update(tick(3.0, 29.9))  # point 3 is in the window (points 0 to 5)
    assert test.events == []
    test.update(tick(3.0, 30.0))
    assert [e.kind for e in test.events] == [T.ROUTE_DEVIATION]
    assert test.events[0].message == "Agent deviated from the route at (x=3.0, y=30.0, z=0.0)"
    assert test.stops_route


def test_in_route_beyond_15_m_for_more_than_30_percent_deviates() -> None:
    test = InRouteTest(ROUTE)
    deviated_at = None
    for k in range(60):  # 20 m to the side: each metre forward counts as outside
        test.update(tick(float(k), 20.0))
        if test.events and deviated_at is None:
            deviated_at = k
    assert deviated_at == 31  # 31 m > 30 % of 100 m
    assert len(test.events) == 1


def test_blocked_after_more_than_180_s_below_0_1() -> None:
    test = AgentBlockedTest()
    for k in range(1, 200):
        test.update(tick(0.0, t=float(k), speed=0.09, frame=k))
        if test.events:
            break
    # the first slow tick (t = 1) starts the clock; 182 - 1 > 180 is the first failure
    assert test.events[0].frame == 182
    assert test.events[0].message == "Agent got blocked at (x=0.0, y=0.0, z=0.0)"
    assert test.stops_route


def test_blocked_clock_restarts_when_moving() -> None:
    test = AgentBlockedTest()
    for k in range(1, 400):
        speed = 0.5 if k == 150 else 0.0
        test.update(tick(0.0, t=float(k), speed=speed, frame=k))
        if test.events:
            break
    assert test.events[0].frame == 331  # 331 - 150 > 180


def test_route_timeout_300_s_plus_route_at_a_tenth_of_the_limit() -> None:
    ego = SimpleNamespace(get_speed_limit=lambda: 30.0)
    timeout = RouteTimeout(ROUTE)
    timeout.update(tick(0.0, t=1.0, ego=ego))
    for k in range(1, 101):  # one metre a tick, window 3: every point is reached
        timeout.update(tick(k + 0.5, t=1.0 + k * 0.1, ego=ego))
    # 300 s + 100 m / (30 km/h / 3.6 x 10 %) = 300 + 120 s
    assert abs(timeout.timeout_value - 420.0) < 1e-9
    timeout.update(tick(101.0, t=420.9, ego=ego))
    assert not timeout.timed_out
    timeout.update(tick(101.0, t=421.1, ego=ego))
    assert timeout.timed_out


def test_collisions_repeats_and_slow_ones_dropped() -> None:
    test = CollisionTest()
    test.on_collision(tick(0.0, t=0.0, speed=0.05), 7, "vehicle.audi.a2")  # below 0.1 m/s
    test.on_collision(tick(0.0, t=0.0), 7, "vehicle.audi.a2")  # counted
    test._expire(tick(10.0, t=1.0))  # 10 m on: the place is forgotten, not the id
    test.on_collision(tick(10.0, t=1.0), 7, "vehicle.audi.a2")  # same actor within 5 s
    test.on_collision(tick(10.0, t=1.0), 8, "walker.pedestrian.0001")  # counted
    test.on_collision(tick(13.0, t=2.0), 9, "vehicle.audi.a2")  # within 5 m of the last
    test._expire(tick(30.0, t=7.0))
    test.on_collision(tick(30.0, t=7.0), 0, "static.prop.barrel")  # counted, layout id 0
    test._expire(tick(40.0, t=8.0))
    test.on_collision(tick(40.0, t=8.0), 7, "vehicle.audi.a2")  # 8 s later: counted
    assert [e.kind for e in test.events] == [
        T.COLLISION_VEHICLE,
        T.COLLISION_PEDESTRIAN,
        T.COLLISION_STATIC,
        T.COLLISION_VEHICLE,
    ]
    assert test.events[1].message == (
        "Agent collided against object with type=walker.pedestrian.0001 and id=8 "
        "at (x=10.0, y=0.0, z=0.0)"
    )


def test_min_speed_half_the_traffic_speed_four_checkpoints_scored() -> None:
    background = SimpleNamespace(
        id=5,
        is_alive=True,
        attributes={"role_name": "background"},
        get_velocity=lambda: Vector3D(6.0, 8.0, 3.0),  # planar speed 10 m/s
    )

    class Snapshot:
        def __len__(self) -> int:
            return 1

        def find(self, actor_id: int):
            return background if actor_id == 5 else None

    # the actor table the criterion reads speeds from: row 4 is actor 5 (world.state)
    velocities = np.zeros((5, 3))
    velocities[4] = (6.0, 8.0, 3.0)
    actors = SimpleNamespace(alive=np.ones(5, dtype=bool), vel=velocities)
    world = SimpleNamespace(
        get_actors=lambda: SimpleNamespace(filter=lambda _: [background]),
        get_snapshot=Snapshot,
        state_tables=lambda: SimpleNamespace(actors=actors),
        roster=0,  # no spawn or destroy after the first look
    )
    test = MinSpeedTest(ROUTE)
    for k in range(101):
        test.update(tick(k + 0.5, speed=5.0, world=world, frame=k))
    test.terminate(None)
    assert [e.data for e in test.events] == [{"percentage": 50.0}] * 4
    assert test.events[0].message == "Average speed is 50.0% of the surrounding traffic's one"

    store = MemoryResultsFile()
    session = EvaluationSession(store, [route_name("0")], 1)
    entry = session.next_route()
    completion = RouteCompletionTest(ROUTE)
    session.route_loaded(ScoredRoute([[t.location.x, 0, 0] for t in ROUTE], [completion, test]))
    session.agent_ready(["carla_gnss"])
    record = session.route_finished(entry)
    # each checkpoint: 1 - 0.3 x (1 - 50/100) = 0.85; 0.85^4 = 0.52200625
    assert record["scores"]["score_penalty"] == 0.522006
    assert record["infractions"]["min_speed_infractions"] == [test.events[0].message] * 4


def test_scenario_timeout_event_at_the_end() -> None:
    test = ScenarioTimeoutTest("HardBreakRoute_1")
    test.mark_timed_out()
    assert test.events == []
    test.terminate(tick(0.0, frame=42))
    assert [(e.kind, e.frame, e.message) for e in test.events] == [
        (T.SCENARIO_TIMEOUT, 42, "Agent timed out a scenario")
    ]


def test_near_screen_leaves_out_only_points_beyond_the_radius() -> None:
    # 25 points on a 5 x 5 grid 8 m apart; the location walks a diagonal in 0.7 m steps,
    # so the screen looks again every 10 m or so: at every step, every point within 15 m
    # (by the distance worked here) is a candidate, and the candidates keep the points' order
    points = [Location(8.0 * i, 8.0 * j, 0.5 * (i - j)) for i in range(5) for j in range(5)]
    screen = NearScreen(points, 15.0)
    # at the start, (32, 32) is 64 m away (beyond 15 m + the 10 m reach): left out
    assert 24 not in screen.candidates(Location(-20.0, -10.0, 0.0))
    for k in range(120):
        where = Location(-20.0 + 0.7 * k, -10.0 + 0.5 * k, 0.0)
        candidates = screen.candidates(where)
        near = [i for i, p in enumerate(points) if p.distance(where) <= 15.0]
        assert set(near) <= set(candidates), k
        assert candidates == sorted(candidates)
    assert screen.candidates(Location(1e6, 0.0, 0.0)) == []  # far away: none
