"""The Recorder's frames on small hand-made worlds: rotations as CARLA stores them, doors,
weather, the records CARLA's simulator reports (add_*), collision numbering, modes."""

from __future__ import annotations

import numpy as np
import pytest
from world_helpers import at, blueprint, flat_world

from recorder import PacketId, Recorder, RecorderError, open_log, recorder_rotation
from world.actors.vehicle_state import VehicleDoor
from world.geometry import Location, Rotation, Transform, Vector2D, Vector3D
from world.weather import WeatherParameters

CAR = "vehicle.lincoln.mkz_2017"


def _frames(rec: Recorder):
    return open_log(rec.bytes()).frames


@pytest.mark.parametrize(
    ("pitch_yaw_roll", "roll_pitch_yaw"),
    [
        ((0.0, 190.0, 0.0), (0.0, 0.0, -170.0)),  # yaw past 180 comes round
        ((0.0, -180.0, 540.0), (180.0, 0.0, 180.0)),  # -180 is written 180
        ((0.0, 725.0, -370.0), (-10.0, 0.0, 5.0)),
        ((100.0, 10.0, 20.0), (-160.0, 80.0, -170.0)),  # past the pole: 180-p, y+180, r+180
        ((-100.0, -170.0, 0.0), (180.0, -80.0, 10.0)),
        ((90.0, 30.0, 0.0), (0.0, 90.0, 30.0)),  # the pole itself stays
    ],
)
def test_recorder_rotation_worked_examples(pitch_yaw_roll, roll_pitch_yaw):
    got = recorder_rotation(np.array([pitch_yaw_roll]))[0]
    assert got.dtype == np.float32
    assert got.tolist() == list(roll_pitch_yaw)


def test_in_memory_recording_without_additional_data():
    world = flat_world()
    car = world.spawn_actor(blueprint(CAR), at(10.0, 2.0, 0.5, yaw=30.0))
    rec = Recorder()
    assert rec.start(world, None, "flat", date=7) == ""
    rec.tick(world)
    rec.tick(world)
    first = rec.bytes()
    rec.stop()
    assert rec.bytes() == first and not rec.is_enabled()
    log = open_log(first)
    assert log.header.map_name == "flat" and log.header.date == 7 and log.header.version == 1
    f1 = log.frames[0]
    assert [r.id for r in f1.records(PacketId.EventAdd)] == [1, car.id]
    add = f1.records(PacketId.EventAdd)[1]
    assert add.location == (1000.0, 200.0, 50.0) and add.rotation == (0.0, 0.0, 30.0)
    assert add.blueprint == CAR and add.uid > 0
    kinds = {a.id: a.type for a in add.attributes}
    assert kinds["role_name"] == 3 and kinds["sticky_control"] == 0 and kinds["color"] == 4
    packets = [p.id for p in f1.packets()]
    assert PacketId.Kinematics not in packets and PacketId.PlatformTime not in packets
    assert packets[0] == PacketId.FrameStart and packets[1] == PacketId.VisualTime


def test_doors_give_one_event_for_each_door_that_moved():
    world = flat_world()
    car = world.spawn_actor(blueprint(CAR), at(0.0, 0.0, 0.5))
    rec = Recorder()
    rec.start(world, None, "flat")
    rec.tick(world)
    car.open_door(VehicleDoor.FL)
    car.open_door(VehicleDoor.Trunk)
    rec.tick(world)
    rec.tick(world)
    car.close_door(VehicleDoor.All)
    rec.tick(world)
    doors = [f.records(PacketId.VehicleDoor) for f in _frames(rec)]
    assert doors[0] == [] and doors[2] == []
    assert [(d.id, d.doors, d.open) for d in doors[1]] == [(car.id, 0, True), (car.id, 5, True)]
    assert [(d.doors, d.open) for d in doors[3]] == [(0, False), (5, False)]


def test_weather_is_written_first_and_when_it_changes():
    world = flat_world()
    rec = Recorder()
    rec.start(world, None, "flat")
    rec.tick(world)
    rec.tick(world)
    world.set_weather(WeatherParameters(cloudiness=40.0, fog_distance=0.75))
    rec.tick(world)
    world.set_weather(world.get_weather())  # set again, unchanged: nothing written
    rec.tick(world)
    weather = [f.records(PacketId.Weather) for f in _frames(rec)]
    assert len(weather[0]) == 1 and weather[1] == [] and weather[3] == []
    assert weather[2][0].cloudiness == 40.0 and weather[2][0].fog_distance == 0.75


def test_records_the_simulator_reports_go_into_the_next_frame():
    world = flat_world()
    car = world.spawn_actor(blueprint(CAR), at(0.0, 0.0, 0.5))
    rec = Recorder()
    rec.start(world, None, "flat", additional_data=True)
    rec.tick(world)
    pc = car.get_physics_control()
    pc.mass = 1234.0
    car.apply_physics_control(pc)
    rec.add_physics_control(car)
    rec.add_light_scene(7, 500.0, (1.0, 0.5, 0.25, 1.0), True, 2)
    rec.add_anim_wheels(car, [(0, 10.0, 90.0), (1, 10.0, 90.0)])
    rec.add_anim_biker(car.id, 1200.0, 0.5)
    rec.tick(world)
    rec.tick(world)
    f1, f2, f3 = _frames(rec)
    (spawned,) = f1.records(PacketId.PhysicsControl)  # the car's own, with the first frame
    assert spawned.id == car.id and spawned.mass != 1234.0
    assert [p.mass for p in f2.records(PacketId.PhysicsControl)] == [1234.0]
    light = f2.records(PacketId.SceneLight)[0]
    assert (light.id, light.intensity, light.color, light.on, light.type) == (
        7,
        500.0,
        (1.0, 0.5, 0.25, 1.0),
        True,
        2,
    )
    wheels = f2.records(PacketId.AnimVehicleWheels)[0]
    assert wheels.id == car.id and [w.location for w in wheels.wheels] == [0, 1]
    assert f2.records(PacketId.AnimBiker)[0].forward_speed == 1200.0
    assert PacketId.SceneLight not in [p.id for p in f3.packets()]
    assert f3.records(PacketId.AnimVehicleWheels) == []


def test_physics_control_record_is_carlas():
    """The centre of mass goes cm and back in float (1e-2f * (1e2f * x)); curves are sorted
    by time as FRichCurve keeps them."""
    world = flat_world()
    car = world.spawn_actor(blueprint(CAR), at(0.0, 0.0, 0.5))
    pc = car.get_physics_control()
    pc.center_of_mass = Vector3D(0.1, 0.0, -0.3)
    pc.torque_curve = [Vector2D(5000.0, 400.0), Vector2D(0.0, 500.0)]
    car.apply_physics_control(pc)
    rec = Recorder()
    rec.start(world, None, "flat", additional_data=True)
    rec.tick(world)
    record = _frames(rec)[0].records(PacketId.PhysicsControl)[0]
    f = np.float32
    assert record.center_of_mass[0] == float(f(1e-2) * (f(1e2) * f(0.1)))
    assert record.center_of_mass[2] == float(f(1e-2) * (f(1e2) * f(-0.3)))
    assert record.torque_curve == [(0.0, 500.0), (5000.0, 400.0)]
    assert len(record.wheels) == 4 and record.wheel_size == 48


def test_two_sensors_on_one_car_give_one_record_and_use_two_numbers():
    world = flat_world()
    a = world.spawn_actor(blueprint(CAR, role_name="hero"), at(0.0, 0.0, 0.5))
    b = world.spawn_actor(blueprint(CAR), at(6.0, 0.0, 0.5, yaw=180.0))
    for _ in range(2):
        world.spawn_actor(blueprint("sensor.other.collision"), Transform(), attach_to=a)
    world.spawn_actor(blueprint("sensor.other.collision"), Transform(), attach_to=b)
    rec = Recorder()
    rec.start(world, None, "flat")
    hits = []
    for _ in range(20):
        a.set_target_velocity(Vector3D(3.0, 0.0, 0.0))
        b.set_target_velocity(Vector3D(-3.0, 0.0, 0.0))
        rec.tick(world)
        hits.append(len(world.collision_events()))
    rows = [f.records(PacketId.Collision) for f in _frames(rec)]
    touching = [k for k, h in enumerate(hits) if h]
    assert touching, "the cars never touched"
    number = 0
    for k in touching:
        got = [(r.id, r.id1, r.id2, r.hero1, r.hero2) for r in rows[k]]
        # a's two sensors report (a, b): one record, two numbers; then b's sensor (b, a).
        # CARLA's set (libc++) holds two buckets after its first insert and links a node
        # new to its bucket in front of the whole list, so (b, a) iterates first
        assert got == [(number + 2, b.id, a.id, False, True), (number, a.id, b.id, True, False)]
        number += 3


def test_a_repeated_record_call_writes_no_second_deletion_or_collision():
    world = flat_world()
    a = world.spawn_actor(blueprint(CAR), at(0.0, 0.0, 0.5))
    b = world.spawn_actor(blueprint(CAR), at(6.0, 0.0, 0.5, yaw=180.0))
    sensor = world.spawn_actor(blueprint("sensor.other.collision"), Transform(), attach_to=a)
    rec = Recorder()
    rec.start(world, None, "flat")
    for _ in range(20):
        a.set_target_velocity(Vector3D(3.0, 0.0, 0.0))
        rec.tick(world)
        if world.collision_events():
            break
    assert world.collision_events(), "the cars never touched"
    sensor.destroy()
    rec.record(world)  # the same world frame again: the deletion now, no collision again
    rec.tick(world)
    frames = _frames(rec)
    dels = [[d.id for d in f.records(PacketId.EventDel)] for f in frames]
    assert dels == [[]] * (len(frames) - 2) + [[sensor.id], []]
    collisions = [[(c.id1, c.id2) for c in f.records(PacketId.Collision)] for f in frames]
    assert collisions == [[]] * (len(frames) - 3) + [[(a.id, b.id)], [], []]
    assert rec._collisions.sensors == []


def test_attached_spawn_is_in_the_parents_frame_then_parented():
    world = flat_world()
    car = world.spawn_actor(blueprint(CAR), at(50.0, 0.0, 0.5, yaw=90.0))
    rec = Recorder()
    rec.start(world, None, "flat")
    rec.tick(world)
    camera_pose = Transform(Location(-5.0, 0.0, 2.5), Rotation(-10.0, 0.0, 0.0))
    gnss = world.spawn_actor(blueprint("sensor.other.imu"), camera_pose, attach_to=car)
    rec.tick(world)
    f2 = _frames(rec)[1]
    add = f2.records(PacketId.EventAdd)[0]
    assert add.id == gnss.id and add.location == (-500.0, 0.0, 250.0)
    assert add.rotation == (0.0, -10.0, 0.0)
    assert [(p.id, p.parent) for p in f2.records(PacketId.EventParent)] == [(gnss.id, car.id)]
    positions = f2.records(PacketId.Position)
    assert gnss.id not in [p.id for p in positions]  # sensors have no Position, as in CARLA


def test_misuse_is_refused():
    world, other = flat_world(), flat_world()
    rec = Recorder()
    with pytest.raises(RecorderError, match="not started"):
        rec.record(world)
    rec.start(world, None, "flat")
    with pytest.raises(RecorderError, match="another world"):
        rec.record(other)
    with pytest.raises(RecorderError, match="cannot open"):
        Recorder().start(world, "/nonexistent-dir/x.log", "flat")


def test_walkers_speed_is_written_in_cm_per_second():
    from world.actors.controls import WalkerBoneControlIn, WalkerControl

    world = flat_world()
    walker = world.spawn_actor(blueprint("walker.pedestrian.0001"), at(0.0, 5.0, 1.0))
    walker.apply_control(WalkerControl(Vector3D(1.0, 0.0, 0.0), 1.3))
    rec = Recorder()
    rec.start(world, None, "flat", additional_data=True)
    rec.tick(world)
    f1 = _frames(rec)[0]
    speed = f1.records(PacketId.AnimWalker)[0].speed
    assert speed == float(np.float32(100.0) * np.float32(1.3))
    bones = f1.records(PacketId.WalkerBones)
    assert [(b.id, b.bones) for b in bones] == [(walker.id, [])]
    assert len(f1.records(PacketId.Kinematics)) == 1
    pose = Transform(Location(0.0, 0.1, 0.9), Rotation(0.0, 0.0, 200.0))
    walker.set_bones(WalkerBoneControlIn([("crl_hips__C", pose)]))
    rec.tick(world)
    (posed,) = _frames(rec)[1].records(PacketId.WalkerBones)
    (bone,) = posed.bones
    assert bone.name == "crl_hips__C"
    assert bone.location == tuple(float(np.float32(v * 100.0)) for v in (0.0, 0.1, 0.9))
    assert bone.rotation == (-160.0, 0.0, 0.0)


def test_kinematics_is_left_out_of_frames_without_vehicles_or_walkers():
    # CarlaRecorderActorsKinematics::Write returns before the packet id when it holds none.
    world = flat_world()
    world.spawn_actor(blueprint("static.prop.streetbarrier"), at(5.0, 0.0, 0.5))
    rec = Recorder()
    rec.start(world, None, "flat", additional_data=True)
    rec.tick(world)
    car = world.spawn_actor(blueprint(CAR), at(0.0, 0.0, 0.5))
    rec.tick(world)
    first, second = _frames(rec)
    assert PacketId.Kinematics not in [p.id for p in first.packets()]
    assert [k.id for k in second.records(PacketId.Kinematics)] == [car.id]


def test_tables_growing_and_actors_going_while_recording_keep_every_frame_true():
    # Spawns past the world tables' first sizes replace their arrays; each frame still holds
    # every live car (and the spectator) where the world has it, and each spawn or destroy
    # gets its event, also in frames where nothing else changed.
    world = flat_world()
    spectator = world.get_spectator()
    cars = [world.spawn_actor(blueprint(CAR), at(0.0, 0.0, 0.5))]
    rec = Recorder()
    rec.start(world, None, "flat", additional_data=True)
    expected, spawned, destroyed = [], {}, {}
    for k in range(60):
        if k % 2 == 0 and k < 50:
            cars.append(world.spawn_actor(blueprint(CAR), at(10.0 * k, 8.0, 0.5, yaw=3.0 * k)))
            spawned[k] = cars[-1].id
        if k in (31, 45):
            gone = cars.pop(3)
            destroyed[k] = gone.id
            gone.destroy()
        world.tick()
        rec.record(world)
        # what the world holds after the tick, in id order
        expected.append({a.id: a.get_transform().location for a in [spectator, *cars]})
    frames = _frames(rec)
    assert len(frames) == 60 and len(cars) == 24
    for k, (frame, want) in enumerate(zip(frames, expected, strict=True)):
        positions = frame.records(PacketId.Position)
        assert [p.id for p in positions] == list(want), f"frame {k + 1}"
        for p in positions:
            loc = want[p.id]
            assert p.location == tuple(float(np.float32(v * 100.0)) for v in (loc.x, loc.y, loc.z))
        assert [a.id for a in frame.records(PacketId.AnimVehicle)] == list(want)[1:]
        added = [a.id for a in frame.records(PacketId.EventAdd)]
        assert added == ([spectator.id, cars[0].id] if k == 0 else []) + (
            [spawned[k]] if k in spawned else []
        )
        assert [d.id for d in frame.records(PacketId.EventDel)] == (
            [destroyed[k]] if k in destroyed else []
        )


@pytest.mark.parametrize("refused", [False, True])
def test_a_recording_to_a_file_equals_the_same_recording_in_memory(tmp_path, monkeypatch, refused):
    # To a file the compiled pass writes a frame itself; in memory, with a walker's bones
    # posed, or when the OS refuses that write (`refused`: a descriptor that is no file),
    # the log writer writes it. The bytes are the same.
    import recorder.live.recorder as recorder_module
    from recorder.logfile.writer import STREAM_SLOTS
    from world.actors.controls import WalkerBoneControlIn, WalkerControl

    def run(path):
        clock = iter(range(1000))
        monkeypatch.setattr(recorder_module.time, "monotonic", lambda: next(clock) / 8)
        world = flat_world()
        cars = [world.spawn_actor(blueprint(CAR), at(12.0 * k, 0.0, 0.5)) for k in range(3)]
        walker = world.spawn_actor(blueprint("walker.pedestrian.0001"), at(0.0, 9.0, 1.0))
        walker.apply_control(WalkerControl(Vector3D(1.0, 0.0, 0.0), 1.3))
        rec = Recorder()
        rec.start(world, path, "flat", additional_data=True, date=5)
        if refused and path is not None:
            rec._writer.stream[STREAM_SLOTS.index("fd")] = 1 << 30
        for k in range(24):
            if k == 5:
                cars.append(world.spawn_actor(blueprint(CAR), at(50.0, 4.0, 0.5)))
            if k == 9:
                cars.pop(0).destroy()
            if k == 14:
                pose = Transform(Location(0.0, 0.1, 0.9), Rotation(0.0, 0.0, 20.0))
                walker.set_bones(WalkerBoneControlIn([("crl_hips__C", pose)]))
            rec.tick(world)
        rec.stop()
        return rec.bytes()

    on_disk, in_memory = run(tmp_path / "run.log"), run(None)
    assert len(open_log(on_disk).frames) == 24
    assert on_disk == in_memory
