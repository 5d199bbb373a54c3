"""CarlaRecorderPhysicsControl of CARLA 0.10 (UE5): LibCarla's Chaos VehiclePhysicsControl.

The UE5 plugin writes the rpc control field by field (each at its own size, no padding):
the id, the engine (max torque, max/idle rpm, brake effect, rev-up MOI, rev-down rate), the
differential (uint8 type, front/rear split), the transmission (bool automatic gears, gear
change time, final ratio, change up/down rpm, efficiency), the body (mass, drag coefficient,
centre of mass, chassis width and height, downforce coefficient, drag area, inertia tensor
scale, sleep threshold and slope limit, bool sweep wheel collision), then five vectors, each
a uint32 count and its items: torque curve (x, y float pairs), forward and reverse gear
ratios (floats), steering curve (pairs) and wheels (the 208-byte WheelPhysicsControl).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import U32, FixedLayout, LogFormatError, PacketCodec, Vec3
from recorder.logfile.packets.physics_control import WHEEL_208, pack_pairs, read_count, read_pairs

_FLOAT = struct.Struct("<f")
_ZERO3 = (0.0, 0.0, 0.0)


@dataclass(slots=True)
class PhysicsControlUE5Record:
    """The UE5 rpc VehiclePhysicsControl in write order (defaults are LibCarla's)."""

    id: int = 0
    max_torque: float = 300.0
    max_rpm: float = 5000.0
    idle_rpm: float = 1.0
    brake_effect: float = 1.0
    rev_up_moi: float = 1.0
    rev_down_rate: float = 600.0
    differential_type: int = 0
    front_rear_split: float = 0.5
    use_automatic_gears: bool = True
    gear_change_time: float = 0.5
    final_ratio: float = 4.0
    change_up_rpm: float = 4500.0
    change_down_rpm: float = 2000.0
    transmission_efficiency: float = 0.9
    mass: float = 1000.0
    drag_coefficient: float = 0.3
    center_of_mass: Vec3 = _ZERO3
    chassis_width: float = 180.0
    chassis_height: float = 140.0
    downforce_coefficient: float = 0.3
    drag_area: float = 0.0
    inertia_tensor_scale: Vec3 = (1.0, 1.0, 1.0)
    sleep_threshold: float = 10.0
    sleep_slope_limit: float = 0.866
    use_sweep_wheel_collision: bool = False
    torque_curve: list[tuple[float, float]] = field(default_factory=list)
    forward_gear_ratios: list[float] = field(default_factory=list)
    reverse_gear_ratios: list[float] = field(default_factory=list)
    steering_curve: list[tuple[float, float]] = field(default_factory=list)
    wheels: list = field(default_factory=list)


def _head_spec() -> list[tuple[str, str, int]]:
    codes = {"id": "I", "differential_type": "B"}
    codes |= {"use_automatic_gears": "?", "use_sweep_wheel_collision": "?"}
    spec = []
    for name, f in PhysicsControlUE5Record.__dataclass_fields__.items():
        if name == "torque_curve":
            break
        count = 3 if isinstance(f.default, tuple) else 1
        spec.append((name, codes.get(name, "f"), count))
    return spec


HEAD_UE5 = FixedLayout(PhysicsControlUE5Record, _head_spec())


def _pack_floats(values: list[float]) -> bytes:
    return U32.pack(len(values)) + b"".join(_FLOAT.pack(v) for v in values)


def pack_physics_control_ue5(r: PhysicsControlUE5Record) -> bytes:
    return b"".join(
        [
            HEAD_UE5.pack(r),
            pack_pairs(r.torque_curve),
            _pack_floats(r.forward_gear_ratios),
            _pack_floats(r.reverse_gear_ratios),
            pack_pairs(r.steering_curve),
            U32.pack(len(r.wheels)),
            *(WHEEL_208.pack(w) for w in r.wheels),
        ]
    )


def _floats(data: bytes, offset: int, end: int, what: str) -> tuple[list[float], int]:
    n, offset = read_count(data, offset, end, 4, what)
    values = [v for (v,) in _FLOAT.iter_unpack(data[offset : offset + 4 * n])]
    return values, offset + 4 * n


def unpack_physics_control_ue5(
    data: bytes, offset: int, end: int
) -> tuple[PhysicsControlUE5Record, int]:
    """One record; every count is checked against the bytes left before it is used."""
    if offset + HEAD_UE5.size > end:
        raise LogFormatError("PhysicsControl record runs past the packet end", offset)
    record = HEAD_UE5.unpack_from(data, offset)
    offset += HEAD_UE5.size
    record.torque_curve, offset = read_pairs(data, offset, end, "torque curve points")
    record.forward_gear_ratios, offset = _floats(data, offset, end, "forward gear ratios")
    record.reverse_gear_ratios, offset = _floats(data, offset, end, "reverse gear ratios")
    record.steering_curve, offset = read_pairs(data, offset, end, "steering curve points")
    n, offset = read_count(data, offset, end, WHEEL_208.size, "wheels")
    record.wheels = [WHEEL_208.unpack_from(data, offset + WHEEL_208.size * i) for i in range(n)]
    return record, offset + WHEEL_208.size * n


PHYSICS_CONTROL_UE5_CODEC = PacketCodec(
    PacketId.PhysicsControl,
    "physics_control",
    PhysicsControlUE5Record,
    pack_physics_control_ue5,
    unpack_physics_control_ue5,
)
