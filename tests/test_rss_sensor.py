"""sensor.other.rss on CARLA's Town01, checked against RSS's rules worked by hand.

The situation: two Lincoln MKZs in lane -1 of Town01's road 4 (224 m, straight), the
follower (the ego, carrying the sensor) at the road's start, the leader `gap` metres of
free road ahead (between the boxes), both at 5 m/s. With CARLA's default dynamics (ego:
response time rho = 1 s, a_max = 3.5, brake_min = 4, brake_min_correct = 3; the leader:
brake_max = 8), RSS's safe longitudinal distance for a follower is

    d_min = v_r rho + a_max rho^2 / 2 + (v_r + rho a_max)^2 / (2 brake_min) - v_f^2 / (2 brake_max)
          = 5 + 1.75 + 8.5^2 / 8 - 25 / 16 = 5 + 1.75 + 9.03125 - 1.5625 = 14.21875 m.

(8.5 m/s after the response time stays below the road's 25 mph = 11.176 m/s plus 10 %,
the cap CARLA's IncreasedSpeedLimit10 sets, so the cap does not shorten the term.) Below
d_min the follower is in danger: the proper response is BrakeMin, the ego may accelerate
between -brake_max = -8 and -brake_min = -4 m/s²; above it nothing is restricted: -8 to
a_max = 3.5 m/s².
"""

from __future__ import annotations

import pytest

from tests.traffic_helpers import blueprint, world_on
from world.actors.controls import VehicleControl
from world.actors.vehicle_state import TrafficLightState
from world.errors import WorldError
from world.geometry import Location, Transform, Vector3D
from world.map.map import Map
from world.physics.control import VehiclePhysicsControl, WheelPhysicsControl
from world.sensors.rss import (
    RssActorConstellationResult,
    RssEgoDynamicsOnRoute,
    RssRestrictor,
    RssRoadBoundariesMode,
    bindings,
)
from world.sensors.rss.dynamics import vehicle_dynamics
from world.sensors.rss.world_model import LightMatches, green_lights_on_route

if not bindings.available():
    pytest.skip(
        "the RSS libraries are not installed (pip install 'lockstep[rss]')",
        allow_module_level=True,
    )

CAR = "vehicle.lincoln.mkz_2017"
SPEED = 5.0  # m/s, both cars
D_MIN = 14.21875  # m, worked in the module's docstring
STOPPING = 6.75 + 8.5 * 8.5 / 6.0  # m: 5 * 1 + 3.5 / 2, then 8.5 m/s braked at 3 m/s²


@pytest.fixture(scope="module")
def town01(shared):
    return Map.from_file(shared / "maps/carla/Town01.xodr")


def _spawn_on(world, waypoint):
    t = waypoint.transform
    return world.spawn_actor(
        blueprint(CAR),
        Transform(Location(t.location.x, t.location.y, t.location.z + 0.5), t.rotation),
    )


def _pair(town01, gap: float, constellation_callback=None):
    """A world with the ego and its leader `gap` m ahead, both at SPEED, and a listening RSS
    sensor on the ego; returns (world, ego, leader, sensor, responses)."""
    world = world_on(town01)
    start = town01.get_waypoint(town01.get_spawn_points()[8].location)  # road 4, lane -1, s 0
    assert (start.road_id, start.lane_id) == (4, -1)
    ego = _spawn_on(world, start)
    length = 2.0 * ego.bounding_box.extent.x
    leader = _spawn_on(world, start.next(length + gap)[0])
    sensor = world.spawn_actor(blueprint("sensor.other.rss"), Transform(), attach_to=ego)
    if constellation_callback is not None:
        sensor.register_actor_constellation_callback(constellation_callback)
    responses = []
    sensor.listen(responses.append)
    for car in (ego, leader):
        # at SPEED from the start: jolted from rest, a body would pitch on its suspension
        # (world.physics.body_pitch) and its speed along its heading would read a little less
        car.set_target_velocity(car.get_transform().get_forward_vector() * SPEED)
        car.enable_constant_velocity(Vector3D(SPEED, 0.0, 0.0))
    return world, ego, leader, sensor, responses


def _longitudinal(response):
    (state,) = response.rss_state_snapshot.individual_responses
    return state.longitudinal_state


def test_the_follower_is_in_danger_below_the_rss_distance_and_safe_above(town01):
    for gap, safe in ((13.9, False), (14.5, True)):
        world, _, leader, _, responses = _pair(town01, gap)
        world.tick()
        (response,) = responses
        lon = _longitudinal(response)
        info = lon.rss_state_information
        assert float(info.safe_distance) == pytest.approx(D_MIN, abs=1e-9)
        assert float(info.current_distance) == pytest.approx(gap, abs=1e-6)
        assert response.rss_state_snapshot.individual_responses[0].object_id == leader.id
        assert bool(lon.is_safe) is safe
        assert bool(response.proper_response.is_safe) is safe


def test_the_proper_response_brakes_the_follower_in_danger(town01):
    world, *_, responses = _pair(town01, 10.0)
    world.tick()
    proper = responses[0].proper_response
    assert str(proper.longitudinal_response) == "BrakeMin"
    lon = proper.acceleration_restrictions.longitudinal_range
    assert (float(lon.minimum), float(lon.maximum)) == (-8.0, -4.0)  # -brake_max, -brake_min
    world, *_, responses = _pair(town01, 20.0)
    world.tick()
    proper = responses[0].proper_response
    assert str(proper.longitudinal_response) == "None"
    lon = proper.acceleration_restrictions.longitudinal_range
    assert (float(lon.minimum), float(lon.maximum)) == (-8.0, 3.5)  # -brake_max, a_max


def test_the_ego_dynamics_on_its_route(town01):
    world, ego, *_, responses = _pair(town01, 20.0)
    world.tick()
    motion = responses[0].ego_dynamics_on_route
    assert float(motion.ego_speed) == pytest.approx(SPEED, abs=1e-9)
    assert float(motion.min_stopping_distance) == pytest.approx(STOPPING, abs=1e-4)
    assert motion.ego_center_within_route and not motion.crossing_border
    # straight along the lane: all of the speed along the route, none across it
    assert float(motion.route_speed_lon) == pytest.approx(SPEED, abs=1e-6)
    assert float(motion.route_speed_lat) == pytest.approx(0.0, abs=1e-6)
    location = ego.get_location()  # ENU: x, -y
    assert float(motion.ego_center.x) == pytest.approx(location.x, abs=1e-9)
    assert float(motion.ego_center.y) == pytest.approx(-location.y, abs=1e-9)
    assert motion.time_since_epoch_check_start_ms == 0.0  # no wall clock in sensor data


def test_the_listener_gets_one_response_per_tick_with_frame_and_time(town01):
    world, _, _, sensor, responses = _pair(town01, 20.0)
    for _ in range(4):
        world.tick()
    snapshot = world.get_snapshot()
    assert [r.frame for r in responses] == [snapshot.frame - 3 + k for k in range(4)]
    assert [r.timestamp for r in responses] == pytest.approx([0.05, 0.1, 0.15, 0.2])
    assert all(r.response_valid for r in responses)
    assert responses[-1].transform == sensor.get_transform()
    sensor.stop()
    world.tick()
    assert len(responses) == 4 and not sensor.is_listening()


def test_the_same_run_gives_the_same_responses(town01):
    def run() -> tuple[list[str], list[VehicleControl]]:
        # the ego drives itself from 5 m/s towards a leader at 3 m/s, its control restricted
        # by the last response: RSS feeds the world only through the applied control
        world, ego, leader, _, responses = _pair(town01, 16.0)
        ego.disable_constant_velocity()
        ego.set_target_velocity(Vector3D(SPEED, 0.0, 0.0))  # road 4 runs along +x
        leader.enable_constant_velocity(Vector3D(3.0, 0.0, 0.0))
        restrictor, physics, applied = RssRestrictor(), ego.get_physics_control(), []
        for tick in range(16):
            control = VehicleControl(throttle=0.5, steer=0.02 if tick > 8 else 0.0)
            if responses:
                last = responses[-1]
                control = restrictor.restrict_vehicle_control(
                    control, last.proper_response, last.ego_dynamics_on_route, physics
                )
            ego.apply_control(control)
            applied.append(control)
            world.tick()
        return [str(r) for r in responses], applied

    first, second = run(), run()
    assert len(first[0]) == 16 and first == second
    assert any("BrakeMin" in text for text in first[0])  # the run does reach danger
    assert any(control.brake > 0.0 for control in first[1])  # and the restrictor brakes


def test_a_constellation_callback_decides_which_pairs_count(town01):
    asked = []

    def callback(data):
        asked.append(None if data.other_actor is None else data.other_actor.id)
        # NotRelevant: the pair is not checked; the ego keeps CARLA's dynamics
        return RssActorConstellationResult(ego_vehicle_dynamics=vehicle_dynamics())

    world, _, leader, _, responses = _pair(town01, 10.0, callback)
    world.tick()
    # at listen and each tick once for the ego alone, then once per other road user
    assert asked == [None, None, leader.id]
    assert responses[0].proper_response.is_safe  # 10 m < d_min, but not checked


def test_routing_targets_and_settings(town01):
    world, _, _, sensor, _ = _pair(town01, 20.0)
    target = Transform(Location(200.0, 133.4, 5.0))
    sensor.append_routing_target(target)
    assert sensor.routing_targets == []  # taken on at the next tick, as CARLA's
    world.tick()
    assert [t.location for t in sensor.routing_targets] == [Location(200.0, 133.4, 0.0)]
    sensor.reset_routing_targets()
    assert sensor.routing_targets == []
    dynamics = sensor.ego_vehicle_dynamics
    dynamics.response_time = 0.5
    sensor.ego_vehicle_dynamics = dynamics
    assert float(sensor.ego_vehicle_dynamics.response_time) == 0.5
    assert float(sensor.other_vehicle_dynamics.response_time) == 2.0


def test_settings_while_not_listening_have_no_effect_and_say_so(town01):
    world = world_on(town01)
    ego = _spawn_on(world, town01.get_waypoint(town01.get_spawn_points()[8].location))
    sensor = world.spawn_actor(blueprint("sensor.other.rss"), Transform(), attach_to=ego)
    with pytest.warns(RuntimeWarning, match="not yet listening"):
        sensor.road_boundaries_mode = 1
    with pytest.warns(RuntimeWarning, match="not yet listening"):
        assert float(sensor.ego_vehicle_dynamics.response_time) == 1.0  # CARLA's default


def test_an_unknown_road_boundaries_mode_or_log_level_is_refused_in_one_line(town01):
    _world, _, _, sensor, _ = _pair(town01, 20.0)
    for bad in (2, -1, "On", 1.0, True):
        with pytest.raises(WorldError, match=r"road_boundaries_mode .* Off \(0\) and On \(1\)$"):
            sensor.road_boundaries_mode = bad
    assert sensor.road_boundaries_mode == RssRoadBoundariesMode.Off  # left as it was
    sensor.road_boundaries_mode = 1  # a member's number is taken, as the member
    assert sensor.road_boundaries_mode is RssRoadBoundariesMode.On
    with pytest.raises(WorldError, match=r"set_log_level\('warn'\): expected a carla.RssLogLevel"):
        sensor.set_log_level("warn")


def test_listening_needs_a_vehicle_parent(town01):
    world = world_on(town01)
    spot = town01.get_spawn_points()[8]
    free = world.spawn_actor(blueprint("sensor.other.rss"), spot)
    with pytest.raises(WorldError, match="not attached"):
        free.listen(print)
    walker = world.spawn_actor(blueprint("walker.pedestrian.0001"), spot)
    on_walker = world.spawn_actor(blueprint("sensor.other.rss"), Transform(), attach_to=walker)
    with pytest.raises(WorldError, match="not a vehicle"):
        on_walker.listen(print)


def _restriction(lateral_left_max: float, lon: tuple[float, float]):
    """A proper response with the given longitudinal range and left lateral maximum."""
    lib = bindings.ad()
    acceleration = lib.physics.Acceleration
    proper = lib.rss.state.ProperResponse()
    limits = proper.acceleration_restrictions
    limits.longitudinal_range.minimum = acceleration(lon[0])
    limits.longitudinal_range.maximum = acceleration(lon[1])
    limits.lateral_left_range.minimum = acceleration(-0.8)
    limits.lateral_left_range.maximum = acceleration(lateral_left_max)
    limits.lateral_right_range.minimum = acceleration(-0.8)
    limits.lateral_right_range.maximum = acceleration(0.2)
    return proper


def test_the_restrictor_brakes_and_steers_back_as_carla_works_it():
    lib = bindings.ad()
    # four wheels of 30 cm and 1500 N·m each (6000 N·m), the front ones steering 70°, 1500 kg
    front = WheelPhysicsControl(radius=30.0, max_brake_torque=1500.0, max_steer_angle=70.0)
    rear = WheelPhysicsControl(radius=30.0, max_brake_torque=1500.0, max_steer_angle=0.0)
    physics = VehiclePhysicsControl(mass=1500.0, wheels=[front, front, rear, rear])
    motion = RssEgoDynamicsOnRoute()
    motion.route_speed_lon = lib.physics.Speed(10.0)
    motion.route_speed_lat = lib.physics.Speed(-1.0)  # drifting left at 1 m/s
    restrictor = RssRestrictor()
    control = VehicleControl(throttle=0.7, steer=-0.3)
    # in danger ahead (at most -4 m/s², brake at 8) and no more acceleration to the left:
    #   brake = 1500 kg * 8 m/s² * 0.30 m / 6000 N·m = 0.6, throttle 0;
    #   steer back by the drift's angle atan(-1 / 10) = -0.0996687 rad = -5.710593°:
    #   -180 * (-0.0996687 / pi) / 70 = 0.0815799, above -0.3, so it replaces it
    restricted = restrictor.restrict_vehicle_control(
        control, _restriction(0.0, (-8.0, -4.0)), motion, physics
    )
    assert restricted.throttle == 0.0
    assert restricted.brake == pytest.approx(0.6, abs=1e-7)
    assert restricted.steer == pytest.approx(0.0815799, abs=1e-7)
    motion.crossing_border = True  # over the border already: 0.1 more
    restricted = restrictor.restrict_vehicle_control(
        control, _restriction(0.0, (-8.0, -4.0)), motion, physics
    )
    assert restricted.steer == pytest.approx(0.1815799, abs=1e-7)
    # nothing restricted: the control passes unchanged; in reverse it always does
    free = _restriction(0.2, (-8.0, 3.5))
    assert restrictor.restrict_vehicle_control(control, free, motion, physics) == control
    backwards = VehicleControl(throttle=0.7, steer=-0.3, reverse=True)
    danger = _restriction(0.0, (-8.0, -4.0))
    assert restrictor.restrict_vehicle_control(backwards, danger, motion, physics) == backwards


def test_a_green_light_on_the_route_gives_the_ego_priority(town01):
    # the ego 8 m before light 362's stop line (road 0, lane -1): its route runs into the
    # junction the light guards, so the light's colour decides the ego's priority there
    world = world_on(town01)
    light = world.get_traffic_light_from_opendrive_id("362")
    ego = _spawn_on(world, light.get_stop_waypoints()[0].previous(8.0)[0])
    routes = []

    def callback(data):
        routes.append(data.ego_route)
        return RssActorConstellationResult(ego_vehicle_dynamics=vehicle_dynamics())

    sensor = world.spawn_actor(blueprint("sensor.other.rss"), Transform(), attach_to=ego)
    sensor.register_actor_constellation_callback(callback)
    sensor.listen(lambda response: None)
    world.tick()
    stand_in = bindings.ad().map.landmark.LandmarkId.getMax()  # CARLA's id for "the light"
    light.freeze(True)
    light.set_state(TrafficLightState.Green)
    green = green_lights_on_route(world, routes[-1], LightMatches())
    assert len(green) == 1 and green.count(stand_in) == 1
    light.set_state(TrafficLightState.Red)
    assert len(green_lights_on_route(world, routes[-1], LightMatches())) == 0


def test_the_carla_namespace_has_the_rss_build_s_names(town01):
    import runner.carla as carla

    assert carla.ad is bindings.ad()  # `from carla import ad`, as CARLA's RSS examples
    assert isinstance(carla.ad.rss.world.RssDynamics(), carla.ad.rss.world.RssDynamics)
    world = world_on(town01)
    ego = _spawn_on(world, town01.get_waypoint(town01.get_spawn_points()[8].location))
    sensor = world.spawn_actor(blueprint("sensor.other.rss"), Transform(), attach_to=ego)
    assert type(sensor) is carla.RssSensor
    assert str(carla.RssRoadBoundariesMode.On) == "On" and int(carla.RssLogLevel.off) == 6


def test_the_sensor_goes_quiet_when_its_vehicle_is_gone(town01):
    world, ego, _, sensor, responses = _pair(town01, 20.0)
    world.tick()
    ego.destroy()
    world.tick()
    assert len(responses) == 1 and sensor.is_alive and sensor.parent is None
