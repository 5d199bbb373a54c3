"""Stop signs in a world on the T junction test map: effect box, check boxes, timers.

tjunction.xodr: roads 1 (west) and 2 (east) along CARLA y = 0 meet junction 100;
road 3 leaves it to the south (CARLA +y) from (0, 10). The stop signal 30 stands
on road 3 at s = 2, orientation "+", so it holds lane 1 (travelling north, with
decreasing s); its effect box is 3 m back against that traffic, at s = 5:
CARLA (1.75, 15), a cube of half-size 0.9 * 3.5 / 2 = 1.575 m.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.traffic_helpers import blueprint, world_on
from world.actors.vehicle_state import TrafficLightState as S
from world.geometry import Location, Rotation, Transform
from world.map.map import Map
from world.traffic.signals.system import BOX_CHECK, BOX_EFFECT

TJUNCTION = Path(__file__).parent / "maps" / "tjunction.xodr"
CAR = "vehicle.lincoln.mkz_2017"
# A reference of the stop sign on junction road 12 (the left turn from road 3 to road 1),
# which crosses junction road 10 (straight, both lanes): that brings check boxes on road 10.
REFERENCE = (
    '<signals><signalReference id="30" s="0.5" t="0.0" orientation="-">'
    '<validity fromLane="-1" toLane="-1"/></signalReference></signals>\n    </road>\n    <junction'
)


def with_reference() -> Map:
    text = TJUNCTION.read_text().replace("    </road>\n    <junction", REFERENCE)
    return Map("tjunction_ref", text)


def test_stop_sign_effect_box_where_worked_by_hand():
    world = world_on(Map.from_file(TJUNCTION))
    assert [a.type_id for a in world.get_actors()] == ["spectator", "traffic.stop"]
    (box,) = world._traffic.boxes
    assert box.kind == BOX_EFFECT
    loc = box.transform.location
    assert (loc.x, loc.y) == pytest.approx((1.75, 15.0), abs=1e-9)
    assert box.extent.x == box.extent.y == box.extent.z == pytest.approx(1.575)


def stop_and_wait(world, car, ticks):
    states = []
    for _ in range(ticks):
        world.tick()
        states.append(car.get_traffic_light_state())
    return states


def test_stop_sign_lets_a_vehicle_go_after_two_seconds():
    # 0.05 s ticks: entry on tick 1 (red), the 2 s timer fires on tick 41 (green).
    world = world_on(Map.from_file(TJUNCTION))
    car = world.spawn_actor(blueprint(CAR), Transform(Location(1.75, 15.0, 0.0), Rotation(yaw=-90)))
    states = stop_and_wait(world, car, 45)
    assert states[0] == S.Red and states[39] == S.Red
    assert states[40] == S.Green


def test_the_effect_box_holds_a_car_once_its_front_is_in():
    # The car drives north (yaw -90: forward is CARLA -y) towards the effect box, which spans
    # y 15 +- 1.575. The mkz_2017's front is 2.4548 m ahead of its origin (half length 2.4508
    # about a centre 0.004 m ahead). Origin at y = 15 + 1.575 + 2 = 18.575, 2 m outside the
    # box: the front at y = 16.12 is 0.455 m in, so the sign tells it red on the first tick.
    # Origin 4.5 m outside (y = 21.075): the front at 18.62 is short of the box, no red.
    world = world_on(Map.from_file(TJUNCTION))
    outside = world.spawn_actor(
        blueprint(CAR), Transform(Location(1.75, 21.075, 0.0), Rotation(yaw=-90))
    )
    assert stop_and_wait(world, outside, 2) == [S.Green] * 2
    outside.set_transform(Transform(Location(1.75, 18.575, 0.0), Rotation(yaw=-90)))
    assert stop_and_wait(world, outside, 1) == [S.Red]


def test_check_boxes_on_the_crossing_road_hold_the_stop():
    world = world_on(with_reference())
    checks = [b for b in world._traffic.boxes if b.kind == BOX_CHECK]
    # Road 10's two lanes (from roads 1 and 2, not from road 3): 20 m at 3.15 m steps is 7
    # boxes each, plus one 3.15 m back on the road before each (0.1 s at 30 km/h is less
    # than the next step's 1.575 / 8.33 = 0.19 s).
    assert len(checks) == 16
    ys = sorted({round(b.transform.location.y, 6) for b in checks})
    assert ys == [-1.75, 1.75]
    blocker = world.spawn_actor(blueprint(CAR), Transform(Location(-0.55, 1.75, 0.0), Rotation()))
    car = world.spawn_actor(blueprint(CAR), Transform(Location(1.75, 15.0, 0.0), Rotation(yaw=-90)))
    states = stop_and_wait(world, car, 60)
    assert all(s == S.Red for s in states)  # checked at 2 s (tick 41) and every second after
    # The blocker leaves on tick 61 (after that tick's timers, whose 1 s check still saw it
    # and asked again for tick 81): the check 0.5 s after the leaving, tick 71, lets go.
    blocker.set_transform(Transform(Location(-40.0, 1.75, 0.0), Rotation()))
    states = stop_and_wait(world, car, 12)
    assert all(s == S.Red for s in states[:10])
    assert states[10] == S.Green


def test_yield_sign_goes_at_once_when_free_and_rechecks_every_half_second():
    # The same map with signal 30 made a yield sign (type 205) and the junction reference.
    text = TJUNCTION.read_text().replace('type="206"', 'type="205"')
    text = text.replace("    </road>\n    <junction", REFERENCE)
    world = world_on(Map("tjunction_yield", text))
    assert [a.type_id for a in world.get_actors()] == ["spectator", "traffic.yield"]
    car = world.spawn_actor(blueprint(CAR), Transform(Location(1.75, 15.0, 0.0), Rotation(yaw=-90)))
    assert stop_and_wait(world, car, 3) == [S.Green] * 3  # checked at once: nobody crossing
    world = world_on(Map("tjunction_yield", text))
    blocker = world.spawn_actor(blueprint(CAR), Transform(Location(-0.55, 1.75, 0.0), Rotation()))
    car = world.spawn_actor(blueprint(CAR), Transform(Location(1.75, 15.0, 0.0), Rotation(yaw=-90)))
    # Entry on tick 1: red at once, checked again on ticks 11, 21, ... (0.5 s = 10 ticks).
    assert stop_and_wait(world, car, 25) == [S.Red] * 25
    # The blocker leaves on tick 26; the running check on tick 31 lets the car go.
    blocker.set_transform(Transform(Location(-40.0, 1.75, 0.0), Rotation()))
    states = stop_and_wait(world, car, 6)
    assert states[:5] == [S.Red] * 5 and states[5] == S.Green
