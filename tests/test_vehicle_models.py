"""Vehicle bodies and physics against the real CARLA log and CARLA's published sizes."""

import re

import pytest

from world.actors.vehicle_models import (
    BASE_TYPES,
    prop_bounding_box,
    vehicle_model,
    walker_bounding_box,
)
from world.errors import BlueprintError
from world.geometry import Vector2D


def test_mkz_box_matches_the_logged_box(shared):
    # The real log's BoundingBox packet for actor 174 (vehicle.lincoln.mkz_2017), in cm.
    text = (shared / "carla-logs/DistanceBetweenVehicles/info_1.txt").read_text()
    m = re.search(r"Id: 174 origin: \(([^)]*)\) extension: \(([^)]*)\)", text)
    origin = [float(v) / 100 for v in m.group(1).split(",")]
    extent = [float(v) / 100 for v in m.group(2).split(",")]
    box = vehicle_model("vehicle.lincoln.mkz_2017").bounding_box()
    assert box.extent.x == pytest.approx(extent[0], abs=1e-4)
    assert box.extent.y == pytest.approx(extent[1], abs=1e-4)
    assert box.extent.z == pytest.approx(extent[2], abs=1e-4)
    assert box.location.z == pytest.approx(origin[2], abs=1e-4)


def test_mkz_physics_matches_the_logged_physics_control(shared):
    text = (shared / "carla-logs/DistanceBetweenVehicles/info_1.txt").read_text()
    block = text[text.index("Physics Control events") :].split("Id: 175")[0]
    p = vehicle_model("vehicle.lincoln.mkz_2017").physics_control()
    assert f"max_rpm = {p.max_rpm:g}" in block
    assert f"mass = {p.mass:g}" in block
    assert f"final_ratio = {p.final_ratio:g}" in block
    assert f"damping_rate_full_throttle = {p.damping_rate_full_throttle:g}" in block
    for name, points in (("torque_curve", p.torque_curve), ("steering_curve", p.steering_curve)):
        curve = " ".join(f"({v.x:g}, {v.y:g})" for v in points)
        assert f"{name} = {curve}\n" in block
    # As many gears and wheels as the log lists, each with the logged numbers.
    assert len(p.forward_gears) == len(re.findall(r"\n +gear \d+:", block)) == 6
    for i, g in enumerate(p.forward_gears):
        assert (
            f"gear {i}: ratio {g.ratio:g} down_ratio {g.down_ratio:g} up_ratio {g.up_ratio:g}"
            in block
        )
    assert len(p.wheels) == len(re.findall(r"\n +wheel \d+:", block)) == 4
    for i, w in enumerate(p.wheels):
        assert (
            f"wheel {i}: tire_friction {w.tire_friction:g} damping_rate {w.damping_rate:g} "
            f"max_steer_angle {w.max_steer_angle:g} radius {w.radius:g} "
            f"max_brake_torque {w.max_brake_torque:g} "
            f"max_handbrake_torque {w.max_handbrake_torque:g}"
        ) in block


def test_mkz_wheel_layout_from_the_log():
    # Logged wheel centres (cm) minus the spawn location (10700, 13300): front x 10847.75,
    # rear x 10560.64, y 13221.52 and 13378.48.
    offsets = vehicle_model("vehicle.lincoln.mkz_2017").wheel_offsets
    assert offsets[0][:2] == (1.4775, -0.7848)
    assert offsets[3][:2] == (-1.3936, 0.7848)


def test_every_base_type_has_a_model():
    kinds = {vehicle_model(bp).base_type for bp in ("vehicle.audi.a2", "vehicle.ford.ambulance",
             "vehicle.carlamotors.carlacola", "vehicle.mitsubishi.fusorosa",
             "vehicle.yamaha.yzf", "vehicle.bh.crossbike")}  # fmt: skip
    assert kinds == set(BASE_TYPES)
    # A base type CARLA reports empty is driven as a car.
    assert vehicle_model("vehicle.mini.cooper_s").base_type == "car"


def test_sizes_are_carla_measured():
    # CARLA 0.9.15's carlacola box: 5.2038 x 2.6270 x 2.4674 m, standing on its origin.
    box = vehicle_model("vehicle.carlamotors.carlacola").bounding_box()
    assert (box.extent.x, box.extent.y, box.extent.z) == (2.6019, 1.3135, 1.2337)
    assert box.location.z == 1.2337
    truck = vehicle_model("vehicle.carlamotors.carlacola").physics_control()
    assert truck.mass > 5000 and len(truck.wheels) == 4


def test_physics_controls_are_fresh():
    a = vehicle_model("vehicle.audi.a2").physics_control()
    a.torque_curve[0] = Vector2D(0, 0)
    b = vehicle_model("vehicle.audi.a2").physics_control()
    assert b.torque_curve[0] == Vector2D(1000.0, 347.0)
    assert b.wheels[0].max_steer_angle == 70.0 and b.wheels[2].max_steer_angle == 0.0


def test_walker_and_prop_boxes():
    adult = walker_bounding_box("walker.pedestrian.0001")
    assert (adult.extent.x, adult.extent.z) == (0.1877, 0.93)
    assert adult.location.z == 0.0
    child = walker_bounding_box("walker.pedestrian.0009")
    assert (child.extent.x, child.extent.z) == (0.25, 0.55)
    cone = prop_bounding_box("static.prop.constructioncone")
    assert cone.extent.z == pytest.approx(0.5858 / 2)
    with pytest.raises(BlueprintError, match="not a vehicle"):
        vehicle_model("walker.pedestrian.0001")


def test_semantic_tags_by_base_type():
    from world.actors.vehicle_state import CityObjectLabel

    assert vehicle_model("vehicle.tesla.model3").semantic_tag == CityObjectLabel.Car
    assert vehicle_model("vehicle.mitsubishi.fusorosa").semantic_tag == CityObjectLabel.Bus
    assert vehicle_model("vehicle.kawasaki.ninja").semantic_tag == CityObjectLabel.Motorcycle
    assert vehicle_model("vehicle.nissan.patrol").mass == 2355.0  # logged by CARLA 0.9.12
