"""The actor registry: ids, spawn failures, attachments, destroy, snapshots, pushes."""

from __future__ import annotations

import math

import pytest
from world_helpers import at, blueprint, flat_world

from world.actors.vehicle_state import ActorType, VehicleDoor, VehicleLightState
from world.errors import WorldError
from world.geometry import Location, Rotation, Transform, Vector3D
from world.handles import Sensor, Spectator, TrafficLight, Vehicle, Walker
from world.map.flat_map import FlatMap
from world.weather import WeatherParameters
from world.world import World

CAR = blueprint("vehicle.lincoln.mkz_2017", "hero")
WALKER = blueprint("walker.pedestrian.0001")
CAMERA = blueprint("sensor.camera.rgb")


def test_spectator_is_actor_one_then_map_actors_then_spawns():
    def lights(world: World) -> None:
        for x in (10.0, 20.0):
            world.register_static_actor("traffic.traffic_light", ActorType.TrafficLight, at(x))

    world = World(FlatMap(), static_actor_providers=[lights])
    assert isinstance(world.get_spectator(), Spectator)
    assert world.get_spectator().id == 1
    assert [a.type_id for a in world.get_actors()] == ["spectator", *["traffic.traffic_light"] * 2]
    assert isinstance(world.get_actor(2), TrafficLight)
    car = world.spawn_actor(CAR, at(0, 50))
    assert car.id == 4
    with pytest.raises(WorldError, match="when the world is made"):
        world.register_static_actor("traffic.stop", ActorType.TrafficSign, at())


def test_failed_spawn_uses_no_id_and_changes_nothing():
    world = flat_world()
    first = world.spawn_actor(CAR, at(0, 0, 0.1))
    # a second car 3 m ahead overlaps: the boxes are 4.9 m long
    assert world.try_spawn_actor(CAR, at(3.0, 0, 0.1)) is None
    with pytest.raises(WorldError, match="collides"):
        world.spawn_actor(CAR, at(0, 1.0, 0.1))
    assert len(world.get_actors()) == 2
    # a walker's 0.375 m box beside the car's 2.13 m width: 1.064 + 0.188 < 1.4 leaves a gap
    walker = world.spawn_actor(WALKER, at(0, 1.4, 1.0))
    assert (first.id, walker.id) == (2, 3)
    # turned 90 degrees, a car 3 m to the side overlaps (its half length 2.45 > 3 - 1.064)
    assert world.try_spawn_actor(CAR, at(0, -3.0, 0.1, yaw=90)) is None
    assert world.spawn_actor(CAR, at(0, -3.0, 0.1)).id == 4


def test_sensors_do_not_block_spawns_and_bodies_have_no_parent():
    world = flat_world()
    car = world.spawn_actor(CAR, at(0, 0, 0.1))
    cam = world.spawn_actor(CAMERA, at(), attach_to=car)
    assert isinstance(cam, Sensor)
    assert cam.parent == car
    with pytest.raises(WorldError, match="cannot have a parent"):
        world.spawn_actor(WALKER, at(), attach_to=car)


def test_get_actors_filter_find_and_order():
    world = flat_world()
    ids = [world.spawn_actor(CAR, at(10.0 * i, 0, 0.1)).id for i in range(3)]
    world.spawn_actor(WALKER, at(0, 10, 1))
    actors = world.get_actors()
    assert [a.id for a in actors] == [1, *ids, 5]
    assert [a.id for a in actors.filter("vehicle.*")] == ids
    assert [a.id for a in actors.filter("*pedestrian*")] == [5]
    assert actors.find(3).id == 3 and actors.find(99) is None
    # the ids asked, in their order, twice when asked twice (CARLA's client walks the ids
    # given: CachedActorList::GetActorsById); an id of no live actor is left out
    assert [a.id for a in world.get_actors([5, 2, 99, 2])] == [5, 2, 2]
    assert isinstance(actors.find(2), Vehicle) and isinstance(actors.find(5), Walker)
    attributes = actors.find(2).attributes
    assert attributes["role_name"] == "hero"
    assert attributes["base_type"] == "car"


def test_destroy_keeps_ids_unused_and_snapshot_drops_the_actor():
    world = flat_world()
    car = world.spawn_actor(CAR, at(0, 0, 0.1))
    assert car.destroy() is True
    assert car.is_alive is False
    assert car.destroy() is False
    assert world.get_spectator().destroy() is False
    again = world.spawn_actor(CAR, at(0, 0, 0.1))
    assert again.id == 3
    world.tick()
    snap = world.get_snapshot()
    assert not snap.has_actor(2) and snap.has_actor(3)
    assert [a.id for a in snap] == [1, 3]
    assert len(snap) == 2
    with pytest.raises(WorldError, match="destroyed"):
        car.set_location(Location(1, 2, 3))


def test_attachment_follows_its_parent_rigidly():
    world = flat_world()
    car = world.spawn_actor(CAR, at(0, 0, 0.1))
    mount = Transform(Location(1.5, 0.5, 2.4), Rotation(-10.0, 30.0, 0.0))
    cam = world.spawn_actor(CAMERA, mount, attach_to=car)
    car.set_transform(Transform(Location(10.0, 20.0, 0.035), Rotation(0.0, 90.0, 0.0)))
    world.tick()
    # yaw 90: the car's forward is +y, its right is -x; the mount is 1.5 forward, 0.5 right
    car_t = car.get_transform()
    got = cam.get_transform()
    assert got.location.x == pytest.approx(car_t.location.x - 0.5, abs=1e-9)
    assert got.location.y == pytest.approx(car_t.location.y + 1.5, abs=1e-9)
    assert got.location.z == pytest.approx(car_t.location.z + 2.4, abs=1e-9)
    assert got.rotation.yaw == pytest.approx(120.0, abs=1e-9)
    assert got.rotation.pitch == pytest.approx(-10.0, abs=1e-9)
    car.destroy()
    world.tick()
    assert cam.get_transform().location.x == pytest.approx(got.location.x, abs=1e-9)


def test_free_fall_over_one_tick_matches_semi_implicit_euler():
    # Semi-implicit Euler, n substeps of h: v_k = -g h k and z_n = z0 - g h^2 n(n+1)/2, which is
    # g t^2/2 (t = n h) plus g t h / 2: the integrator's known error, 0.0245 m here.
    world = flat_world(dt=0.05)
    car = world.spawn_actor(CAR, at(0, 0, 100.0))
    world.tick()
    g, h, n = 9.81, 0.01, 5
    drop = 100.0 - car.get_location().z
    assert drop == pytest.approx(g * h * h * n * (n + 1) / 2, abs=1e-9)
    assert drop == pytest.approx(g * 0.05**2 / 2 + g * 0.05 * h / 2, abs=1e-9)
    assert car.get_velocity().z == pytest.approx(-g * 0.05, abs=1e-9)
    assert car.get_acceleration().z == pytest.approx(-g, abs=1e-9)


def test_gravity_off_impulse_and_target_velocity():
    world = flat_world(dt=0.05)
    car = world.spawn_actor(CAR, at(0, 0, 50.0))
    car.set_enable_gravity(False)
    car.add_impulse(Vector3D(0.0, 0.0, 1696.0))  # 1 m/s up on a 1696 kg car
    world.tick()
    assert car.get_velocity().z == pytest.approx(1.0, abs=1e-12)
    assert car.get_location().z == pytest.approx(50.05, abs=1e-9)
    car.set_target_velocity(Vector3D(0.0, 0.0, -2.0))
    world.tick()
    assert car.get_location().z == pytest.approx(49.95, abs=1e-9)


def test_lights_doors_speed_limit_and_autopilot():
    world = flat_world()
    car = world.spawn_actor(CAR, at(0, 0, 0.1))
    assert car.get_speed_limit() == 30.0
    car.set_light_state(VehicleLightState.LowBeam | VehicleLightState.Brake)
    assert car.get_light_state() == VehicleLightState(0x2 | 0x8)
    car.open_door(VehicleDoor.FL)
    assert car.is_door_open(VehicleDoor.FL) and not car.is_door_open(VehicleDoor.All)
    car.open_door(VehicleDoor.All)
    car.close_door(VehicleDoor.FL)
    assert not car.is_door_open(VehicleDoor.FL) and car.is_door_open(VehicleDoor.Trunk)
    with pytest.raises(WorldError, match="traffic manager"):
        car.set_autopilot(True)


def test_snapshot_is_frozen_at_its_tick():
    world = flat_world()
    car = world.spawn_actor(CAR, at(0, 0, 10.0))
    world.tick()
    snap = world.get_snapshot()
    z = snap.find(car.id).get_transform().location.z
    world.tick()
    assert snap.find(car.id).get_transform().location.z == z
    assert world.get_snapshot().find(car.id).get_transform().location.z < z
    assert snap.frame == 1 and world.get_snapshot().frame == 2
    # the episode id is fixed (no memory address or clock), so it is the same in every run
    assert snap.id == world.id == 1
    assert math.isclose(snap.find(car.id).get_velocity().z, -9.81 * 0.05)


def test_tick_systems_run_in_the_seeds_phase_order():
    world = flat_world()
    car = world.spawn_actor(CAR, at(0, 0, 10.0))
    calls = []

    def recorder(name):
        def system(w, dt):
            calls.append((name, w.get_snapshot().frame, round(car.get_location().z, 6), dt))

        return system

    world.add_tick_system("sensors", recorder("sensors"))
    world.add_tick_system("trigger_boxes", recorder("triggers"))
    world.add_tick_system("sign_timers", recorder("signs"))
    world.add_tick_system("light_groups", recorder("lights"))
    world.add_tick_system("sign_timers", recorder("signs 2"))
    with pytest.raises(WorldError, match="unknown phase"):
        world.add_tick_system("render", recorder("x"))
    world.tick()
    names = [c[0] for c in calls]
    assert names == ["signs", "signs 2", "lights", "triggers", "sensors"]
    # signs and lights run before the physics moves the car, triggers and sensors after;
    # all run before the new snapshot (still frame 0), with the tick's step
    assert calls[0][2] == calls[2][2] == 10.0
    assert calls[3][2] < 10.0 and calls[4][2] < 10.0
    assert {c[1] for c in calls} == {0} and {c[3] for c in calls} == {0.05}
    assert world.get_snapshot().frame == 1


def test_weather_is_kept_as_a_copy():
    world = flat_world()
    assert world.get_weather() == WeatherParameters()
    world.set_weather(WeatherParameters.HardRainNight)
    got = world.get_weather()
    assert got == WeatherParameters.HardRainNight
    got.precipitation = 0.0
    assert world.get_weather() == WeatherParameters.HardRainNight


def test_a_tick_wraps_yaws_into_carla_s_range_unless_one_is_nan():
    # the tick's end moves a yaw outside (-180, 180] by whole turns: 190 - 360 = -170,
    # -180 + 360 = 180, 540 - 360 = 180; one NaN yaw in the table leaves every yaw as it is
    world = flat_world()
    props = [
        world.spawn_actor(blueprint("static.prop.streetbarrier"), at(10.0 * k, 30.0))
        for k in range(4)
    ]
    rot = world.state_tables().actors.rot
    for prop, yaw in zip(props[:3], (190.0, -180.0, 540.0), strict=True):
        rot[prop.id - 1, 1] = yaw
    world.tick()
    got = [world.get_snapshot().find(p.id).get_transform().rotation.yaw for p in props[:3]]
    assert got == [-170.0, 180.0, 180.0]
    rot[props[0].id - 1, 1] = 190.0
    rot[props[3].id - 1, 1] = math.nan
    world.tick()
    assert rot[props[0].id - 1, 1] == 190.0
    assert world.get_snapshot().find(props[0].id).get_transform().rotation.yaw == 190.0
