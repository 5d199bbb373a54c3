"""Lights and signs placed on CARLA's towns, against a real CARLA log and the map files."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.reader import LogReader
from world import Map
from world.map.opendrive import load_opendrive
from world.traffic.signals.placement import place_traffic

LOG = "carla-logs/DistanceBetweenVehicles/recording.log"


def first_frame_actors(path) -> list:
    """EventAdd records of the log's first frame (location cm, rotation roll/pitch/yaw deg)."""
    reader = LogReader(path)
    out, frames = [], 0
    for packet in reader.packets():
        if packet.id == PacketId.FrameStart:
            frames += 1
            if frames > 1:
                break
        elif packet.id == PacketId.EventAdd:
            out += reader.records(packet)
    return out


def yaw_gap(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


@pytest.fixture(scope="module")
def town01(shared):
    return place_traffic(load_opendrive(shared / "maps/carla/Town01.xodr"))


def test_town01_lights_and_speed_signs_match_carla(shared, town01):
    actors = first_frame_actors(shared / LOG)
    carla_lights = [a for a in actors if a.type == 3]
    carla_signs = [a for a in actors if a.type == 4]
    assert len(carla_lights) == 36 and len(carla_signs) == 21
    assert {a.blueprint for a in carla_lights} == {"traffic.traffic_light"}
    assert len(town01.lights) == 36
    assert len(town01.signs) == 21
    assert sorted(s.blueprint_id for s in town01.signs) == sorted(a.blueprint for a in carla_signs)

    def match(carla, ours, blueprint_of):
        left = list(ours)
        for actor in carla:
            loc = np.array(actor.location) / 100.0
            dist = [
                np.linalg.norm(
                    loc
                    - np.array(
                        [p.transform.location.x, p.transform.location.y, p.transform.location.z]
                    )
                )
                for p in left
            ]
            best = int(np.argmin(dist))
            mine = left.pop(best)
            assert dist[best] < 0.5, (actor.id, actor.blueprint, dist[best])
            assert blueprint_of(mine) == actor.blueprint
            assert yaw_gap(mine.transform.rotation.yaw, actor.rotation[2]) < 1.0, actor.id
        assert not left

    match(carla_lights, town01.lights, lambda p: "traffic.traffic_light")
    match(carla_signs, town01.signs, lambda p: p.blueprint_id)


def test_town01_speed_sign_values_and_the_doubled_speed_90(shared, town01):
    # The file has 22 Speed_NN objects; objects 450 and 433 (both Speed_90) share road 8's
    # s = 17.838..., t = -4.296...: one sign.
    root = ET.parse(shared / "maps/carla/Town01.xodr").getroot()
    names = [o.get("name") for o in root.iter("object") if o.get("name", "").startswith("Speed_")]
    assert len(names) == 22
    ids = {s.opendrive_id for s in town01.signs}
    assert ("450" in ids) != ("433" in ids)
    assert sorted(s.speed_limit for s in town01.signs) == sorted(
        [30.0] * 11 + [60.0] * 5 + [90.0] * 5
    )


def test_town01_light_groups_follow_the_junction_controllers(shared, town01):
    # Every Town01 light belongs to a controller named by a junction: 12 junctions with
    # controllers, 36 controllers, one light each.
    root = ET.parse(shared / "maps/carla/Town01.xodr").getroot()
    junctions = [j for j in root.iter("junction") if j.find("controller") is not None]
    assert len(town01.groups) == len(junctions)
    signal_of = {p_index: p.signal_id for p_index, p in enumerate(town01.lights)}
    for group, junction in zip(town01.groups, junctions, strict=True):
        assert group.junction_id == junction.get("id")
        expected = [
            c.get("id")
            for c in sorted(junction.findall("controller"), key=lambda c: int(c.get("sequence")))
        ]
        assert [c[0] for c in group.controllers] == expected
        for controller_id, members, red in group.controllers:
            ctrl = next(c for c in root.findall("controller") if c.get("id") == controller_id)
            assert [signal_of[m] for m in members] == [ctrl.find("control").get("signalId")]
            assert red is None
    assert sum(len(c[1]) for g in town01.groups for c in g.controllers) == 36


def test_town04_light_count_and_groups(shared):
    placed = place_traffic(load_opendrive(shared / "maps/carla/Town04.xodr"))
    root = ET.parse(shared / "maps/carla/Town04.xodr").getroot()
    lights = [s for s in root.iter("signal") if s.get("type") == "1000001"]
    assert len(placed.lights) == len(lights) == 43
    controlled = {c.get("signalId") for c in root.iter("control")}
    assert all(light.get("id") in controlled for light in lights)
    assert all(g.junction_id is not None for g in placed.groups)
    assert math.isclose(sum(len(c[1]) for g in placed.groups for c in g.controllers), 43)


def test_lone_lights_get_their_own_group_with_a_ten_second_red(shared):
    # esmini's fabriksgatan_traffic_lights: three traffic-light signals (ids 1, 2, 3; types
    # 1000001 and 1000002) on road 3, outside any junction, and no controller at all.
    placed = place_traffic(load_opendrive(shared / "maps/esmini/fabriksgatan_traffic_lights.xodr"))
    assert [p.signal_id for p in placed.lights] == ["1", "2", "3"]
    assert [(g.junction_id, g.controllers) for g in placed.groups] == [
        (None, ((None, (0,), 10.0),)),
        (None, ((None, (1,), 10.0),)),
        (None, ((None, (2,), 10.0),)),
    ]


def test_speed_signals_need_a_speed_subtype(shared):
    # esmini's straight_500m_signs has six type-274 signals with an empty subtype (the
    # speed only in `value`): CARLA places no sign model for them.
    placed = place_traffic(load_opendrive(shared / "maps/esmini/straight_500m_signs.xodr"))
    assert placed.signs == []


@pytest.mark.parametrize("name", ["carla/Town01", "esmini/fabriksgatan_traffic_lights"])
def test_a_maps_own_road_evaluators_place_the_same(shared, name):
    """Placing with a Map's road evaluators (as a world does) gives what evaluators built
    for the placement give."""
    world_map = Map.from_file(shared / f"maps/{name}.xodr")
    alone = place_traffic(world_map.opendrive)
    assert alone.lights or alone.signs
    assert place_traffic(world_map.opendrive, world_map.road_evaluators()) == alone
