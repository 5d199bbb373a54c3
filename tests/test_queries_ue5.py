"""The three queries on a CARLA 0.10 (UE5) log made by hand.

The log follows CARLA's UE5 plugin (Unreal/CarlaUnreal/.../Recorder on ue5-dev): header
version 1, vectors as doubles, VehicleDoor numbered 21, no Weather packet (byte 24 is an
unknown packet there, skipped), and the Chaos PhysicsControl record. The expected texts are
worked by hand in the UE4 golden texts' format, with the UE5 query's differences: a blank
line after each WalkerBones packet, the Chaos physics-control lines, and distances in double.
"""

from __future__ import annotations

import struct

from recorder import LogReader, query_blocked, query_collisions, query_info
from recorder.logfile.packets.physics_control_ue5 import pack_physics_control_ue5

HEADER = "Version: 1\nMap: T5\nDate: 01/01/70 00:00:00\n\n"
_WHEEL = struct.Struct("<B3x3f9f6?2xfB7x3Q3f3f6fif2B2x2fi3f3f3f4x")
_PHYSICS_HEAD = struct.Struct("<I6fBf?7f3f4f3f2f?")


def _packet(pid: int, body: bytes) -> bytes:
    return struct.pack("<BI", pid, len(body)) + body


def _frame(frame_id: int, duration: float, elapsed: float, *packets: bytes) -> bytes:
    start = _packet(0, struct.pack("<Qdd", frame_id, duration, elapsed))
    return start + b"".join(packets) + _packet(1, b"")


def _positions(*rows) -> bytes:
    """(id, x, y, z, yaw) rows: a UE5 Position record is the id and six doubles."""
    body = b"".join(struct.pack("<I6d", i, x, y, z, 0.0, 0.0, yaw) for i, x, y, z, yaw in rows)
    return _packet(6, struct.pack("<H", len(rows)) + body)


def _string(text: str) -> bytes:
    return struct.pack("<H", len(text)) + text.encode()


def _physics() -> bytes:
    head = _PHYSICS_HEAD.pack(
        7, 400, 6000, 900, 1, 2.5, 600, 0, 0.5, True, 0.5, 4, 4500, 2000, 0.75, 1500, 0.25,
        0.5, 0, -0.25, 180, 140, 0.3, 0, 1, 1, 1, 10, 0.866, False,
    )  # fmt: skip
    curves = struct.pack("<I4f", 2, 0, 400, 6000, 300) + struct.pack("<I2f", 2, 3.5, 2)
    # The steering curve is stored out of time order; the query prints it sorted (AddKey).
    curves += struct.pack("<If", 1, 3) + struct.pack("<I4f", 2, 100, 0.5, 0, 1)
    wheel = _WHEEL.pack(
        1, 0, 0, 0, 35.5, 30, 30, 1000, 3, 1, 20, 20, 70, True, True, True, True, False, False,
        30, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 10, 10, 0.5, 0.5, 250, 50, 0, 0.15, 0, 0, 1500, 3000,
        0, 1.5, -2, 0.25, 0, 0, 0, 0, 0, 0,
    )  # fmt: skip
    assert _WHEEL.size == 208
    return _packet(15, struct.pack("<H", 1) + head + curves + struct.pack("<I", 1) + wheel)


def ue5_log() -> bytes:
    header = struct.pack("<HH", 1, 14) + b"CARLA_RECORDER" + struct.pack("<q", 0) + _string("T5")
    add = struct.pack("<HIB6dI", 2, 7, 1, 150.5, -20, 5, 0, 0, 90, 7) + _string("vehicle.car")
    add += struct.pack("<H", 1) + struct.pack("<B", 2) + _string("role_name") + _string("hero")
    add += struct.pack("<IB6dI", 8, 2, 16777216, 0, 0, 0, 0, 0, 8) + _string("walker.w")
    add += struct.pack("<H", 0)
    door = _packet(21, struct.pack("<HIB?", 1, 7, 0, True))
    bones = struct.pack("<HIH", 1, 8, 1) + _string("root") + struct.pack("<6d", 1, 2, 3, 0, 0, 0)
    unknown = _packet(24, b"\x01\x02\x03\x04")  # Weather in UE4; no such packet in UE5
    collision = struct.pack("<HIII??", 1, 0, 7, 8, True, False)
    return header + b"".join(
        [
            _frame(
                1,
                2.0,
                0.0,
                _packet(2, add),
                _positions((7, 150.5, -20, 5, 90), (8, 16777216, 0, 0, 0)),
                door,
                _physics(),
                _packet(19, bones),
                unknown,
            ),
            _frame(
                2,
                2.0,
                2.0,
                _packet(5, collision),
                _positions((7, 150.9, -20, 5, 90), (8, 16777216.5, 0, 0, 0)),
            ),
            _frame(3, -1.0, 4.25, _positions((7, 500, -20, 5, 90), (8, 18000000, 0, 0, 0))),
        ]
    )


CREATES = (
    " Create 7: vehicle.car (1) at (150.5, -20, 5)\n  role_name = hero\n"
    " Create 8: walker.w (2) at (1.67772e+07, 0, 0)\n"
)
COLLISION = " Collision id 0 between 7 (hero)  with 8\n"
END = "\nFrames: 3\nDuration: 4.25 seconds\n"


def test_info_lists_events_and_skips_the_unknown_byte_24():
    # Frame 1's events, a newline per FrameEnd (3) and one more for the last one read twice.
    expected = f"{HEADER}Frame 1 at 0 seconds\n{CREATES}\nFrame 2 at 2 seconds\n{COLLISION}\n\n\n"
    assert query_info(ue5_log()) == expected + END


WHEEL = (
    "\nwheel #0:\n axle_type: \x01 offset: (0.000000, 0.000000, 0.000000) wheel_radius: 35.5"
    " wheel_width: 30 wheel_mass: 30 cornering_stiffness: 1000 friction_force_multiplier: 3"
    " side_slip_modifier: 1 slip_threshold: 20 skid_threshold: 20 max_steer_angle: 70"
    " affected_by_steering: 1 affected_by_brake: 1 affected_by_handbrake: 1"
    " affected_by_engine: 1 abs_enabled: 0 traction_control_enabled: 0"
    " max_wheelspin_rotation: 30 external_torque_combine_method: \x00 lateral_slip_graph: []"
    " suspension_axis: (0.000000, 0.000000, -1.000000)"
    " suspension_force_offset: (0.000000, 0.000000, 0.000000) suspension_max_raise: 10"
    " suspension_max_drop: 10 suspension_damping_ratio: 0.5 wheel_load_ratio: 0.5"
    " spring_rate: 250 spring_preload: 50 suspension_smoothing: 0 rollbar_scaling: 0.15"
    " sweep_shape: \x00 sweep_type: \x00 max_brake_torque: 1500 max_hand_brake_torque: 3000"
    " wheel_index: 0 location: (1.500000, -2.000000, 0.250000)"
    " old_location: (0.000000, 0.000000, 0.000000) velocity: (0.000000, 0.000000, 0.000000)\n"
)
PHYSICS = (
    " Physics Control events: 1\n  Id: 7\n   max_torque = 400\n   max_rpm = 6000\n"
    "   MOI = 2.5\n   rev_down_rate = 600\n   differential_type = \x00\n"
    "   front_rear_split = 0.5\n   use_gear_auto_box = true\n   gear_change_time = 0.5\n"
    "   final_ratio = 4\n   change_up_rpm = 4500\n   change_down_rpm = 2000\n"
    "   transmission_efficiency = 0.75\n   mass = 1500\n   drag_coefficient = 0.25\n"
    "   center_of_mass = (0.5, 0, -0.25)\n   torque_curve = (0, 400) (6000, 300)\n"
    "   steering_curve = (0, 1) (100, 0.5)\n   forward_gear_ratios:\n    gear 0: ratio 3.5\n"
    "    gear 1: ratio 2\n   reverse_gear_ratios:\n    gear 0: ratio 3\n   wheels:" + WHEEL
)


def _positions_text(x7: str, x8: str) -> str:
    return (
        f" Positions: 2\n  Id: 7 Location: ({x7}, -20, 5) Rotation: (0, 0, 90)\n"
        f"  Id: 8 Location: ({x8}, 0, 0) Rotation: (0, 0, 0)\n"
    )


def test_info_all_prints_every_packet_with_the_ue5_layouts():
    frame1 = (
        f"Frame 1 at 0 seconds\n{CREATES}{_positions_text('150.5', '1.67772e+07')}"
        " Vehicle door animations: 1\n  Id: 7\n  Doors opened:  Front Left \n"
        f"{PHYSICS}"
        ' Walkers Bones: 1\n  Id: 8\n     Bone: "root" relative: Loc(1, 2, 3) Rot(0, 0, 0)\n'
        "\n"  # UE5's query ends a WalkerBones packet with a blank line
        "\n"  # FrameEnd
    )
    frame2 = f"Frame 2 at 2 seconds\n{COLLISION}{_positions_text('150.9', '1.67772e+07')}\n"
    frame3 = f"Frame 3 at 4.25 seconds\n{_positions_text('500', '1.8e+07')}\n"
    expected = HEADER + frame1 + frame2 + frame3 + "\n" + END
    assert query_info(ue5_log(), show_all=True) == expected


def test_collisions_name_the_actors_of_a_ue5_log():
    row = f"       2   v w       7 {'vehicle.car':<35}      8 {'walker.w':<35}\n"
    title = f"{'Time':>8} {'Types':>6} {'Id':>6} {'Actor 1':<35} {'Id':>6} {'Actor 2':<35}\n"
    # After a row the stream stays fixed with no decimals: 4.25 prints as 4.
    fixed_end = "\nFrames: 3\nDuration: 4 seconds\n"
    assert query_collisions(ue5_log(), "a", "a") == HEADER + title + row + fixed_end
    assert query_collisions(ue5_log(), "h", "w") == HEADER + title + row + fixed_end
    assert query_collisions(ue5_log(), "w", "h") == HEADER + title + END


def test_blocked_measures_ue5_distances_in_double():
    title = f"{'Time':>8} {'Id':>6} {'Actor':<35} {'Duration':>10}\n"
    # Minimum 1 cm: in frame 2 actor 7 moved 0.4 cm and actor 8 0.5 cm, so both stop at 2 s
    # and gain frame 2's 2 s; both move away in frame 3 and print, in the order they stopped.
    rows = (
        f"       2      7 {'vehicle.car':<35}          2\n"
        f"       2      8 {'walker.w':<35}          2\n"
    )
    assert query_blocked(ue5_log(), 1, 1) == HEADER + title + rows + END
    # Minimum 0.3 cm: both moved far enough in frame 2. In float32 actor 8's x of
    # 16777216.5 rounds to 16777216 (a distance of 0) and it would show as stopped.
    assert query_blocked(ue5_log(), 1, 0.3) == HEADER + title + END


def test_ue5_physics_control_decodes_and_packs_back_to_its_bytes():
    packet = _physics()
    reader = LogReader(ue5_log(), variant="ue5")
    (raw,) = [p for p in reader.packets() if p.id == 15]
    (record,) = reader.records(raw)
    assert (record.id, record.max_torque, record.differential_type) == (7, 400, 0)
    assert (record.forward_gear_ratios, record.reverse_gear_ratios) == ([3.5, 2], [3])
    assert record.wheels[0].location == (1.5, -2, 0.25)
    assert pack_physics_control_ue5(record) == packet[5 + 2 :]
