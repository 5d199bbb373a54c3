"""The server's pieces without a client: msgpack-rpc framing and its bounds, tokens, the
world snapshot's byte layout, and how the dispatcher answers what it cannot serve.

Layouts are checked against CARLA 0.9.16's, as measured with its client (the probe notes in
../shared/carla-rpc/PROTOCOL.md): offsets written out below, values set by the test.
"""

from __future__ import annotations

import struct

import msgpack
import pytest

from runner.carla.client import Client, configure
from runner.serve.dispatch import VALUE, VOID_RESULT, Dispatcher, Method
from runner.serve.episode_state import EpisodeStateWriter
from runner.serve.errors import CallError, MalformedStreamError
from runner.serve.stream import token
from runner.serve.wire import BadRequest, Request, RpcReader
from world import Location, Rotation, Transform, Vector3D, VehicleControl, WalkerControl


def test_a_token_packs_as_carla_s_token_data():
    # PROTOCOL.md (c): stream 1 on 127.0.0.1:2001 is 01000000 d107 01 01 7f000001 + 12 zeros
    assert token(1, "127.0.0.1", 2001).hex() == "01000000d10701017f000001" + "00" * 12


def test_requests_are_cut_from_a_byte_stream_with_carla_s_metadata():
    reader = RpcReader()
    control = [0.5, 0.0, 0.0, False, False, False, 0]
    data = msgpack.packb([0, 7, "tick_cue", [[False]]]) + msgpack.packb(
        [0, 8, "apply_control_to_vehicle", [[True], 101, control]]
    )
    first = reader.feed(data[:5])
    rest = reader.feed(data[5:])
    assert first == []
    assert rest == [
        Request(7, "tick_cue", False, []),
        Request(
            8, "apply_control_to_vehicle", True, [101, [0.5, 0.0, 0.0, False, False, False, 0]]
        ),
    ]


def test_a_message_that_is_not_a_call_is_a_bad_request_and_broken_bytes_end_the_stream():
    reader = RpcReader()
    assert reader.feed(msgpack.packb({"a": 1}))[0] == BadRequest(
        None, "a message must be an array, found dict"
    )
    assert reader.feed(msgpack.packb([0, 3, "version", [1]])) == [
        BadRequest(3, "version: the first parameter must be CARLA's [asynchronous]")
    ]
    with pytest.raises(MalformedStreamError, match="exceeds max_array_len"):
        RpcReader().feed(b"\xdd\xff\xff\xff\xff")  # an array of 2**32 - 1 items announced
    small = RpcReader(max_message=1000)
    with pytest.raises(MalformedStreamError, match="longer than 1000 bytes"):
        small.feed(b"\x94\xda\xff\xff" + b"x" * 2000)  # a 65535-byte string never finishing


def test_the_traffic_manager_s_plain_rpclib_calls_have_no_metadata():
    reader = RpcReader(metadata=False)
    assert reader.feed(msgpack.packb([0, 1, "set_synchronous_mode", [True]])) == [
        Request(1, "set_synchronous_mode", False, [True])
    ]


def _world():
    configure()
    return Client("127.0.0.1", 1).get_world()


def test_the_world_snapshot_has_carla_s_header_and_119_byte_records():
    world = _world()
    library = world.get_blueprint_library()
    car = world.spawn_actor(library.find("vehicle.tesla.model3"), Transform(Location(5, 1.75, 0.3)))
    car.apply_control(VehicleControl(0.5, -0.25, 0.125, True, False, True, 3))
    walker = world.spawn_actor(
        library.filter("walker.pedestrian.*")[0], Transform(Location(5, 40, 1), Rotation(0, 90, 0))
    )
    walker.apply_control(WalkerControl(Vector3D(0, 1, 0), 1.5, True))
    world.tick()
    payload = EpisodeStateWriter(world).message(episode_id=4, flags=1)
    sensor_type, frame, timestamp = struct.unpack_from("<QQd", payload, 0)
    # the elapsed time a client reads is CARLA's sum of float32 steps (world.world)
    assert (sensor_type, frame, timestamp) == (17, 1, 0.05000000074505806)
    episode, platform, delta = struct.unpack_from("<Qdf", payload, 48)
    origin = struct.unpack_from("<3i", payload, 68)
    (flags,) = struct.unpack_from("<I", payload, 80)
    assert (episode, platform, delta, origin, flags) == (4, 0.0, pytest.approx(0.05), (0, 0, 0), 1)
    alive = len(world.get_actors())
    assert len(payload) == 84 + 119 * alive
    records = {
        struct.unpack_from("<I", payload, 84 + 119 * i)[0]: payload[
            84 + 119 * i : 84 + 119 * (i + 1)
        ]
        for i in range(alive)
    }
    assert sorted(records) == [a.id for a in world.get_actors()]
    rec = records[car.id]
    assert rec[4] == 1  # Active
    assert struct.unpack_from("<3f", rec, 5) == pytest.approx(tuple(car.get_location()), abs=1e-5)
    throttle, steer, brake, hand_brake, reverse, manual, gear = struct.unpack_from(
        "<3f3Bi", rec, 65
    )
    assert (throttle, steer, brake, hand_brake, reverse, manual) == (0.5, -0.25, 0.125, 1, 0, 1)
    assert gear == car.get_control().gear
    limit, tl_state, has_light, light_id = struct.unpack_from("<fBBI", rec, 84)
    assert (limit, tl_state, has_light, light_id) == (30.0, 2, 0, 0)  # no light: Green, id 0
    assert rec[94:] == bytes(25)
    rec = records[walker.id]
    jump = walker.get_control().jump  # the physics takes the jump in the tick
    assert struct.unpack_from("<3ffB", rec, 65) == (0.0, 1.0, 0.0, 1.5, int(jump))
    light = world.get_actors().filter("traffic.traffic_light")[0]
    rec = records[light.id]
    sign_id = rec[65:97].rstrip(b"\0").decode()
    assert sign_id == light.get_opendrive_id()
    green, yellow, red, _elapsed, pole, frozen, state = struct.unpack_from("<4fIBB", rec, 97)
    assert (green, yellow, red) == (light.get_green_time(), light.get_yellow_time(), 2.0)
    assert (pole, frozen, state) == (light.get_pole_index(), 0, int(light.get_state()))


class _Session:
    pass


def _raises(session):
    raise ValueError("boom")


def _refuses(session, actor_id):
    raise CallError(f"no actor {actor_id}")


def test_the_dispatcher_answers_in_the_form_each_call_expects():
    said: list[str] = []
    methods = {
        "one": Method(lambda session: 1),
        "set": Method(lambda session, value: None, VOID_RESULT),
        "boom": Method(_raises),
        "refuse": Method(_refuses),
    }
    dispatch = Dispatcher(_Session(), methods, {"get_actor_bone_names": VALUE}, said.append)
    assert dispatch.answer("one", []) == ([[1, 1]], None)
    assert dispatch.answer("set", [3]) == ([[False]], None)
    assert dispatch.answer("set", []) == ([[True, ["set: expected 1 arguments, found 0"]]], None)
    assert dispatch.answer("refuse", [9]) == ([[0, ["no actor 9"]]], None)
    message = "lockstep serve: internal error in boom: ValueError: boom"
    assert dispatch.answer("boom", []) == ([[0, [message]]], None)
    unserved = "lockstep serve does not serve 'get_actor_bone_names' (a CARLA call lockstep lacks)"
    assert dispatch.answer("get_actor_bone_names", [1]) == ([[0, [unserved]]], None)
    assert dispatch.answer("no_such_call", []) == (None, "unknown method 'no_such_call'")
    assert said == [
        "set: expected 1 arguments, found 0",
        message,
        unserved,
        "unknown method 'no_such_call'",
    ]
    reply = msgpack.unpackb(dispatch(Request(5, "one", False, [])))
    assert reply == [1, 5, None, [[1, 1]]]
    assert dispatch(Request(None, "one", False, [])) is None  # a notification: no reply


def test_rendering_sensors_data_have_carla_s_stream_layouts():
    from runner.serve.sensor_streams import serialise
    from world.sensors.images import Image
    from world.sensors.point_clouds import LidarMeasurement, RadarMeasurement

    where = Transform(Location(1.0, 2.0, 3.0), Rotation(-10.0, 90.0, 0.0))
    head = struct.Struct("<QQd6f")
    pixels = bytes(range(8))  # two BGRA pixels
    image = Image(7, 0.35, where, width=2, height=1, fov=90.0, buffer=bytearray(pixels))
    out = serialise(image, "rgb", lambda actor: [])
    assert head.unpack_from(out) == (13, 7, 0.35, 1.0, 2.0, 3.0, -10.0, 90.0, 0.0)
    assert out[48:] == struct.pack("<IIf", 2, 1, 90.0) + pixels  # ImageSerializer
    depth = serialise(image, "depth", lambda actor: [])
    assert head.unpack_from(depth)[0] == 1 and depth[48:] == out[48:]
    points = struct.pack("<4f4f4f", 1, 2, 3, 0.5, 4, 5, 6, 0.25, 7, 8, 9, 1.0)
    lidar = LidarMeasurement(
        8,
        0.4,
        where,
        buffer=bytearray(points),
        channels=2,
        horizontal_angle=1.5,
        point_counts=(2, 1),
    )
    out = serialise(lidar, "lidar", lambda actor: [])
    assert head.unpack_from(out)[0] == 11
    # LidarSerializer: the angle (f32), the channel count, the points per channel, the points
    assert out[48:] == struct.pack("<fIII", 1.5, 2, 2, 1) + points
    detections = struct.pack("<4f", -1.0, 0.1, 0.2, 30.0)
    radar = RadarMeasurement(9, 0.45, where, buffer=bytearray(detections))
    out = serialise(radar, "radar", lambda actor: [])
    assert head.unpack_from(out)[0] == 9 and out[48:] == detections


def test_debug_shapes_from_the_wire_are_the_world_s_drawings():
    from runner.serve.calls_episode import clear_debug_shape, draw_debug_shape
    from world.debug import ShapeKind

    class Session:
        world = _world()

    session = Session()
    red, green = [255, 0, 0], [0, 255, 0]
    # DebugShape [[kind, primitive], color, life time, persistent lines]; kinds in CARLA's
    # variant order: Point, Line, Arrow, Box, String, then the HUD forms of the first four
    draw_debug_shape(session, [[0, [[1.0, 2.0, 3.0], 0.2]], red, 5.0, True])
    draw_debug_shape(session, [[1, [[0, 0, 0], [10, 0, 0], 0.3]], green, -1.0, False])
    draw_debug_shape(session, [[2, [[[0, 0, 0], [0, 5, 0], 0.1], 0.4]], red, 1.0, True])
    box = [[[5, 5, 1], [2, 1, 0.5], [0, 0, 0]], [0, 45, 0], 0.05]
    draw_debug_shape(session, [[3, box], green, 2.0, True])
    draw_debug_shape(session, [[4, [[1, 1, 1], "hello", True]], red, 3.0, True])
    draw_debug_shape(session, [[6, [[0, 0, 0], [1, 1, 1], 0.1]], red, 1.0, True])
    shapes = session.world.debug.shapes
    assert [s.kind for s in shapes] == [
        ShapeKind.Point,
        ShapeKind.Line,
        ShapeKind.Arrow,
        ShapeKind.Box,
        ShapeKind.String,
        ShapeKind.Line,
    ]
    assert tuple(shapes[0].points[0]) == (1.0, 2.0, 3.0) and shapes[0].life_time == 5.0
    assert shapes[1].color == (0, 255, 0, 255) and shapes[1].persistent is False
    assert shapes[2].arrow_size == pytest.approx(0.4)
    assert shapes[3].rotation.yaw == 45.0 and tuple(shapes[3].box_extent) == (2.0, 1.0, 0.5)
    assert shapes[4].text == "hello" and shapes[5].hud is True
    clear_debug_shape(session)
    assert [s.kind for s in session.world.debug.shapes] == [ShapeKind.String]
