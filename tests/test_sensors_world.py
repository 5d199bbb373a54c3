"""Sensors in a world: GNSS by CARLA's formula, IMU at rest, collisions, lane invasion, obstacle."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.traffic_helpers import blueprint, world_on
from world.geometry import Location, Rotation, Transform, Vector3D
from world.map.flat_map import FlatMap
from world.map.lane_enums import LaneChange, LaneMarkingType
from world.map.map import Map
from world.sensors.pseudo import OpenDriveMapReader, SpeedometerReader
from world.settings import WorldSettings
from world.world import World

CAR = "vehicle.lincoln.mkz_2017"
STRAIGHT = Path(__file__).parent / "maps" / "straight.xodr"


def carla_geolocation(lat0: float, lon0: float, x: float, y: float) -> tuple[float, float]:
    """CARLA 0.9.x GeoLocation::Transform, written out: Mercator at the origin's scale."""
    r = 6378137.0
    scale = math.cos(lat0 * math.pi / 180.0)
    mx = scale * (lon0 * math.pi / 180.0) * r + x
    my = scale * r * math.log(math.tan((90.0 + lat0) * math.pi / 360.0)) - y
    lon = mx * 180.0 / (math.pi * r * scale)
    lat = 360.0 * math.atan(math.exp(my / (r * scale))) / math.pi - 90.0
    return lat, lon


@pytest.fixture(scope="module")
def town01_map(shared):
    return Map.from_file(shared / "maps/carla/Town01.xodr")


def test_gnss_follows_carla_formula_at_ten_points():
    text = STRAIGHT.read_text().replace("+lat_0=0 +lon_0=0", "+lat_0=49.0 +lon_0=8.0")
    world = world_on(Map("geo", text))
    gnss = world.spawn_actor(blueprint("sensor.other.gnss"), Transform())
    got = []
    gnss.listen(got.append)
    points = [(10.0 * k - 20.0, 7.5 * k - 30.0, 0.5 * k) for k in range(10)]
    for x, y, z in points:
        gnss.set_transform(Transform(Location(x, y, z), Rotation()))
        world.tick()
    assert len(got) == 10
    for (x, y, z), m in zip(points, got, strict=True):
        lat, lon = carla_geolocation(49.0, 8.0, x, y)
        assert abs(m.latitude - lat) < 1e-9 and abs(m.longitude - lon) < 1e-9
        assert m.altitude == pytest.approx(z, abs=1e-12)
    # 10 m east at 49 deg N is 10 / (R cos 49) rad of longitude: about 1.37e-4 deg.
    assert got[1].longitude - got[0].longitude == pytest.approx(
        math.degrees(10.0 / (6378137.0 * math.cos(math.radians(49.0)))), rel=1e-9
    )


def test_gnss_bias_and_seeded_noise():
    def run(seed: str) -> list[float]:
        world = world_on(Map("geo", STRAIGHT.read_text()))
        bp = blueprint(
            "sensor.other.gnss",
            noise_lat_bias="0.001",
            noise_lon_stddev="0.0001",
            noise_seed=seed,
        )
        gnss = world.spawn_actor(bp, Transform(Location(5.0, 0.0, 0.0), Rotation()))
        got = []
        gnss.listen(got.append)
        for _ in range(3):
            world.tick()
        lat, lon = carla_geolocation(0.0, 0.0, 5.0, 0.0)
        assert all(m.latitude == pytest.approx(lat + 0.001, abs=1e-12) for m in got)
        return [m.longitude - lon for m in got]

    first, again, other = run("3"), run("3"), run("4")
    assert first == again and first != other
    assert all(0.0 < abs(v) < 0.001 for v in first)


def test_imu_of_a_vehicle_at_rest_reads_gravity_up(town01_map):
    world = world_on(town01_map)
    car = world.spawn_actor(blueprint(CAR), town01_map.get_spawn_points()[5])
    imu = world.spawn_actor(
        blueprint("sensor.other.imu"), Transform(Location(0.0, 0.0, 1.0)), attach_to=car
    )
    got = []
    imu.listen(got.append)
    for _ in range(60):
        world.tick()
    last = got[-1]
    assert last.accelerometer.z == pytest.approx(9.81, abs=1e-9)
    assert abs(last.accelerometer.x) < 1e-9 and abs(last.accelerometer.y) < 1e-9
    assert last.gyroscope.length() < 1e-9
    # The spawn point faces +x (yaw ~0): east, a quarter turn from north (-y).
    yaw = car.get_transform().rotation.yaw
    assert last.compass == pytest.approx(math.radians(yaw % 360.0 + 90.0) % (2 * math.pi), abs=1e-9)
    assert SpeedometerReader(car).read() == {"speed": 0.0}
    assert OpenDriveMapReader(world).read()["opendrive"] == town01_map.to_opendrive()


def test_collision_sensor_reports_one_event_per_pair_per_tick(town01_map):
    world = world_on(town01_map)
    start = town01_map.get_spawn_points()[5]
    a = world.spawn_actor(blueprint(CAR), start)
    ahead = start.copy()
    f = start.get_forward_vector()
    ahead.location = Location(start.location.x + 8 * f.x, start.location.y + 8 * f.y, 0.5)
    ahead.rotation = Rotation(0.0, start.rotation.yaw + 180.0, 0.0)
    b = world.spawn_actor(blueprint(CAR), ahead)
    events_a, events_b = [], []
    world.spawn_actor(blueprint("sensor.other.collision"), Transform(), attach_to=a).listen(
        events_a.append
    )
    world.spawn_actor(blueprint("sensor.other.collision"), Transform(), attach_to=b).listen(
        events_b.append
    )
    touching = 0
    for _ in range(40):
        a.set_target_velocity(Vector3D(4.0 * f.x, 4.0 * f.y, 0.0))
        b.set_target_velocity(Vector3D(-4.0 * f.x, -4.0 * f.y, 0.0))
        world.tick()
        pairs = world.collision_events()
        touching += bool(pairs)
        frame = world.get_snapshot().frame
        this_a = [e for e in events_a if e.frame == frame]
        this_b = [e for e in events_b if e.frame == frame]
        assert len(this_a) == len(this_b) == len(pairs)
        for ea, eb in zip(this_a, this_b, strict=True):
            assert ea.actor.id == a.id and ea.other_actor.id == b.id
            assert eb.actor.id == b.id and eb.other_actor.id == a.id
            assert ea.normal_impulse.x == -eb.normal_impulse.x
    assert touching >= 10, touching  # they keep pushing: contact tick after tick
    assert len(events_a) == touching


def test_lane_invasion_across_a_broken_line():
    # straight.xodr: one road along +x (5 % up), right lanes -1 (CARLA y 0..3.5) and -2
    # (3.5..7), each 3.5 m; lane -1's outer mark (at y = 3.5) is broken, lane -2's (y = 7)
    # solid; then a sidewalk. A car's box corners (half-width w) go from lane -1 (y = 1.75)
    # into lane -2 (y = 5.25): all four cross to the right of the lane direction, from
    # lane -1 into lane -2, so each crosses lane -1's right marking: four Broken markings.
    world = world_on(Map.from_file(STRAIGHT))
    car = world.spawn_actor(blueprint(CAR), Transform(Location(30.0, 1.75, 1.6), Rotation()))
    sensor = world.spawn_actor(blueprint("sensor.other.lane_invasion"), Transform(), attach_to=car)
    got = []
    sensor.listen(got.append)
    half_width = car.bounding_box.extent.y
    assert 1.75 + half_width < 3.5 < 5.25 - half_width
    for _ in range(3):
        world.tick()
    assert got == []  # within its lane
    car.set_transform(Transform(Location(30.0, 5.25, 1.6), Rotation()))
    world.tick()
    assert len(got) == 1
    marks = got[0].crossed_lane_markings
    assert [m.type for m in marks] == [LaneMarkingType.Broken] * 4
    assert all(m.lane_change == LaneChange.Both for m in marks)
    # On past lane -2's solid edge (y = 7) onto the sidewalk, which is not a marked lane:
    # the origin's right marking, solid, for the corners that left the road.
    car.set_transform(Transform(Location(30.0, 7.0 + half_width + 0.3, 1.6), Rotation()))
    world.tick()
    marks = got[-1].crossed_lane_markings
    assert len(got) == 2 and marks and all(m.type == LaneMarkingType.Solid for m in marks)


def test_obstacle_ahead_at_its_swept_distance(town01_map):
    world = world_on(town01_map)
    start = town01_map.get_spawn_points()[5]
    car = world.spawn_actor(blueprint(CAR), start)
    f = start.get_forward_vector()
    ext = car.bounding_box.extent
    gap = 3.0  # between the two boxes, along the lane
    centre_gap = 2.0 * ext.x + gap
    ahead = Transform(
        Location(start.location.x + centre_gap * f.x, start.location.y + centre_gap * f.y, 0.5),
        start.rotation,
    )
    other = world.spawn_actor(blueprint(CAR), ahead)
    # The sensor sits at the car's front (box centre + extent.x forward): the other's grown
    # box (hit_radius 0.5) begins gap - 0.5 = 2.5 m ahead, within distance 5.
    front = Location(car.bounding_box.location.x + ext.x, 0.0, 1.0)
    sensor = world.spawn_actor(blueprint("sensor.other.obstacle"), Transform(front), attach_to=car)
    got = []
    sensor.listen(got.append)
    for _ in range(10):
        world.tick()
    assert got and got[-1].other_actor.id == other.id
    b = other.bounding_box
    rear = (other.get_location() - sensor.get_location()).dot(f) + b.location.x - b.extent.x
    assert got[-1].distance == pytest.approx(rear - 0.5, abs=1e-6)
    assert got[-1].distance == pytest.approx(2.5, abs=0.05)


def test_sensors_work_in_a_world_made_without_traffic():
    world = World(FlatMap(), static_actor_providers=())
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    imu = world.spawn_actor(blueprint("sensor.other.imu"), Transform(Location(0, 0, 2)))
    got = []
    imu.listen(got.append)
    world.tick()
    world.tick()
    assert [m.frame for m in got] == [1, 2]
    assert got[-1].accelerometer.z == pytest.approx(9.81, abs=1e-12)
    imu.stop()
    world.tick()
    assert len(got) == 2 and not imu.is_listening()


def test_speedometer_reads_the_velocity_along_the_vehicle_forward(town01_map):
    # Worked by hand: yaw 90 degrees faces +y (sin 90 deg = 1.0 exactly, pitch 0: cos 0 = 1),
    # so a velocity of (0, 5, 0) reads 5 m/s and (0, -3, 0), reversing, -3 m/s; a velocity
    # across the car, (4, 0, 0), reads 4 * cos(90 deg) (6.1e-17 in doubles): about 0.
    world = world_on(town01_map)
    spot = town01_map.get_spawn_points()[5]
    car = world.spawn_actor(blueprint(CAR), spot)
    car.set_transform(Transform(spot.location, Rotation(0.0, 90.0, 0.0)))
    speedometer = SpeedometerReader(car)
    row = car.id - 1
    velocities = world.state_tables().actors.vel
    velocities[row] = (0.0, 5.0, 0.0)
    assert speedometer.read() == {"speed": 5.0}
    velocities[row] = (0.0, -3.0, 0.0)
    assert speedometer.read() == {"speed": -3.0}
    velocities[row] = (4.0, 0.0, 0.0)
    assert abs(speedometer.read()["speed"]) < 1e-15
    # any pose: the same bits as the leaderboard's reading through the public API
    car.set_transform(Transform(spot.location, Rotation(2.1, 33.7, -1.3)))
    velocities[row] = (3.3, -1.7, 0.2)
    forward = car.get_transform().get_forward_vector()
    assert speedometer.read()["speed"] == car.get_velocity().dot(forward)
