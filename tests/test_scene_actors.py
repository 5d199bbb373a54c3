"""The actors' shapes posed from the state tables (world.scene.actor_shapes), worked by hand.

A row's box is extent (half sizes) about box_loc in the actor's frame; CARLA's rotation
with yaw 90 deg turns the actor's forward (+x) to the world's +y and its right (+y) to
the world's -x, so a local point (lx, ly, lz) lands at pos + (-ly, lx, lz).
"""

from __future__ import annotations

import numpy as np
import pytest

from world.actors.vehicle_state import ActorType, TrafficLightState
from world.actors.vehicle_state import CityObjectLabel as Label
from world.scene.actor_shapes import LAMP_COLOURS, ActorShapes, actor_shapes
from world.state import ActorTable


def _table(rows: list[dict]) -> ActorTable:
    table = ActorTable()
    for values in rows:
        r = table.add_row()
        table.alive[r] = values.get("alive", True)
        table.kind[r] = int(values.get("kind", ActorType.Other))
        for name in ("pos", "rot", "extent", "box_loc"):
            getattr(table, name)[r] = values.get(name, (0.0, 0.0, 0.0))
    return table


CAR = {
    "kind": ActorType.Vehicle,
    "pos": (10.0, 5.0, 0.0),
    "rot": (0.0, 90.0, 0.0),
    "extent": (2.0, 1.0, 0.75),
    "box_loc": (0.0, 0.0, 0.75),
}


def test_a_car_fills_its_box_and_turns_with_its_yaw():
    """extent (2, 1, 0.75) about (0, 0, 0.75), yaw 90 at (10, 5, 0): the local box x -2..2,
    y -1..1, z 0..1.5 lands at world x 10 - (-1..1) = 9..11, y 5 + (-2..2) = 3..7, z 0..1.5.
    The car's front lies at world y = 7."""
    mesh = actor_shapes(_table([CAR]), ["vehicle.tesla.model3"], [{"color": "10,20,30"}])
    lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    assert lo == pytest.approx([9.0, 3.0, 0.0], abs=1e-12)
    assert hi == pytest.approx([11.0, 7.0, 1.5], abs=1e-12)
    # the body box's front face (local x = 2) is at world y = 7, across the car's width
    front = mesh.vertices[np.abs(mesh.vertices[:, 1] - 7.0) < 1e-12]
    assert front[:, 0].min() == pytest.approx(9.0) and front[:, 0].max() == pytest.approx(11.0)
    assert set(mesh.tag.tolist()) == {int(Label.Car)}
    assert set(mesh.instance.tolist()) == {1}
    assert (10, 20, 30) in {tuple(c) for c in mesh.colour.tolist()}
    mesh.validate("car")


def test_turning_the_yaw_turns_the_shape_and_nothing_else():
    """The same car at yaw 0 spans x 10 +- 2 and y 5 +- 1: the yaw-90 shape's vertices are
    its own turned by 90 deg about (10, 5)."""
    straight = dict(CAR, rot=(0.0, 0.0, 0.0))
    a = actor_shapes(_table([straight]), ["vehicle.tesla.model3"], [{}])
    b = actor_shapes(_table([CAR]), ["vehicle.tesla.model3"], [{}])
    local = a.vertices - [10.0, 5.0, 0.0]
    turned = np.column_stack([10.0 - local[:, 1], 5.0 + local[:, 0], local[:, 2]])
    assert b.vertices == pytest.approx(turned, abs=1e-12)
    assert (a.triangles == b.triangles).all()


def test_each_kind_gets_its_tags_and_sensors_and_the_dead_get_none():
    rows = [
        CAR,
        dict(CAR, pos=(30.0, 0.0, 0.0)),
        {"kind": ActorType.Walker, "extent": (0.2, 0.2, 0.9)},
        {"kind": ActorType.Sensor},
        {"kind": ActorType.Other},
        dict(CAR, alive=False),
        dict(CAR, pos=(50.0, 0.0, 0.0)),
    ]
    ids = [
        "vehicle.carlamotors.carlacola",
        "vehicle.diamondback.century",
        "walker.pedestrian.0001",
        "sensor.camera.rgb",
        "spectator",
        "vehicle.tesla.model3",
        "vehicle.unknown.model",
    ]
    mesh = actor_shapes(_table(rows), ids, [{}, {}, {}, {}, {}, {}, {"base_type": "bus"}])
    tags = {int(i): set(mesh.tag[mesh.instance == i].tolist()) for i in np.unique(mesh.instance)}
    assert tags == {
        1: {int(Label.Truck)},
        2: {int(Label.Bicycle), int(Label.Rider)},
        3: {int(Label.Pedestrians)},
        7: {int(Label.Bus)},
    }


def test_a_light_shows_its_state_and_stands_on_its_origin():
    """A light's pole stands on the actor's origin (z 0) and its lamps face the actor's +y;
    the lamp of its state is lit, the others dark; a sign's plate is TrafficSigns."""
    rows = [
        {"kind": ActorType.TrafficLight, "pos": (0.0, 0.0, 1.0), "extent": (0.3, 0.3, 2.5)},
        {"kind": ActorType.TrafficLight, "pos": (5.0, 0.0, 0.0), "extent": (0.3, 0.3, 2.5)},
        {"kind": ActorType.TrafficSign, "pos": (9.0, 0.0, 0.0), "extent": (0.1, 0.4, 1.2)},
    ]
    table = _table(rows)
    ids = ["traffic.traffic_light", "traffic.traffic_light", "traffic.stop"]
    states = np.array([TrafficLightState.Green, TrafficLightState.Red, 0], dtype=np.int8)
    mesh = ActorShapes().mesh(table, ids, [{}, {}, {}], states)
    first = mesh.instance == 1
    assert mesh.vertices[mesh.triangles[first]].reshape(-1, 3)[:, 2].min() == pytest.approx(1.0)
    colours = {int(i): {tuple(c) for c in mesh.colour[mesh.instance == i].tolist()} for i in (1, 2)}
    green_lit, green_dark = LAMP_COLOURS[int(TrafficLightState.Green)]
    red_lit, red_dark = LAMP_COLOURS[int(TrafficLightState.Red)]
    assert green_lit in colours[1] and red_dark in colours[1] and red_lit not in colours[1]
    assert red_lit in colours[2] and green_dark in colours[2] and green_lit not in colours[2]
    assert set(mesh.tag[first].tolist()) == {int(Label.Poles), int(Label.TrafficLight)}
    lamps = mesh.triangles[first & np.isin(mesh.colour, [green_lit]).all(axis=1)]
    assert mesh.vertices[lamps][..., 1].max() > 0.1  # on the +y face of the head
    assert set(mesh.tag[mesh.instance == 3].tolist()) == {int(Label.Poles), int(Label.TrafficSigns)}


def test_a_frame_is_posed_again_from_the_moved_rows():
    table = _table([CAR])
    shapes = ActorShapes()
    first = shapes.mesh(table, ["vehicle.tesla.model3"], [{}])
    table.pos[0] = (20.0, 5.0, 0.0)
    second = shapes.mesh(table, ["vehicle.tesla.model3"], [{}])
    moved = first.vertices + np.array([10.0, 0.0, 0.0])
    assert second.vertices == pytest.approx(moved, abs=1e-12)


def test_a_frame_sees_new_actors_the_dead_and_the_lights_new_state():
    """One ActorShapes over three frames: a light turns from Red to Green, a car spawned
    after the first frame appears (instance 3), a car destroyed leaves (instance 2)."""
    light = {"kind": ActorType.TrafficLight, "extent": (0.3, 0.3, 2.5)}
    table = _table([light, CAR])
    ids = ["traffic.traffic_light", "vehicle.tesla.model3", "vehicle.tesla.model3"]
    shapes = ActorShapes()
    red = np.array([TrafficLightState.Red, 0, 0], dtype=np.int8)
    first = shapes.mesh(table, ids, [{}] * 3, red)
    r = table.add_row()
    table.alive[r], table.kind[r] = True, int(ActorType.Vehicle)
    table.extent[r], table.pos[r] = (2.0, 1.0, 0.75), (40.0, 0.0, 0.0)
    table.alive[1] = False
    green = np.array([TrafficLightState.Green, 0, 0], dtype=np.int8)
    second = shapes.mesh(table, ids, [{}] * 3, green)
    assert set(first.instance.tolist()) == {1, 2}
    assert set(second.instance.tolist()) == {1, 3}
    lit = {
        int(s): LAMP_COLOURS[int(s)][0] for s in (TrafficLightState.Red, TrafficLightState.Green)
    }
    colours = [{tuple(c) for c in m.colour[m.instance == 1].tolist()} for m in (first, second)]
    assert lit[int(TrafficLightState.Red)] in colours[0]
    assert lit[int(TrafficLightState.Green)] not in colours[0]
    assert lit[int(TrafficLightState.Green)] in colours[1]
    assert lit[int(TrafficLightState.Red)] not in colours[1]


def test_a_light_moved_is_posed_again_and_one_left_alone_keeps_its_place():
    """Two lights over two frames: the first moved 3 m along x between them (CARLA lets a
    light's transform be set), the second not; each frame's vertices are the light's shape
    on its own origin (the second frame's first light: the first frame's plus (3, 0, 0))."""
    light = {"kind": ActorType.TrafficLight, "extent": (0.3, 0.3, 2.5)}
    table = _table([light, {**light, "pos": (8.0, 0.0, 0.0)}])
    ids = ["traffic.traffic_light"] * 2
    shapes = ActorShapes()
    first = shapes.mesh(table, ids, [{}] * 2)
    table.pos[0] = (3.0, 0.0, 0.0)
    second = shapes.mesh(table, ids, [{}] * 2)
    for instance, shift in ((1, 3.0), (2, 0.0)):
        before = first.vertices[np.unique(first.triangles[first.instance == instance])]
        after = second.vertices[np.unique(second.triangles[second.instance == instance])]
        assert after == pytest.approx(before + np.array([shift, 0.0, 0.0]), abs=1e-12)
