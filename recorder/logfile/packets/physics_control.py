"""CarlaRecorderPhysicsControl: a vehicle's `carla::rpc::VehiclePhysicsControl` as written.

The record is the LibCarla (rpc) side: centre of mass in metres, curves as `std::vector`s of
(x, y) float pairs (uint32 count), gears as (ratio, down_ratio, up_ratio). A wheel is a raw copy
of LibCarla's `WheelPhysicsControl`, whose size changed across CARLA versions:

* 36 bytes (0.9.10): six floats and a position;
* 48 bytes (0.9.11-0.9.16, UE4): three lateral/longitudinal stiffness floats more;
* 208 bytes (the newer, Chaos-based struct): many more fields, C++ padding, and the three
  pointers of the `lateral_slip_graph` vector, written as zeros (an empty vector).

The wheel size is not in the file. A reader tells them apart by the packet size: the one wheel
size that makes every record of the packet end exactly at the packet end.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import U16, U32, FixedLayout, LogFormatError, PacketCodec, Vec3


@dataclass(slots=True)
class GearRecord:
    ratio: float
    down_ratio: float
    up_ratio: float


@dataclass(slots=True)
class Wheel36:
    """WheelPhysicsControl of CARLA 0.9.10."""

    tire_friction: float
    damping_rate: float
    max_steer_angle: float
    radius: float
    max_brake_torque: float
    max_handbrake_torque: float
    position: Vec3


@dataclass(slots=True)
class Wheel48:
    """WheelPhysicsControl of CARLA 0.9.11-0.9.16 (UE4)."""

    tire_friction: float
    damping_rate: float
    max_steer_angle: float
    radius: float
    max_brake_torque: float
    max_handbrake_torque: float
    lat_stiff_max_load: float
    lat_stiff_value: float
    long_stiff_value: float
    position: Vec3


_ZERO3 = (0.0, 0.0, 0.0)


@dataclass(slots=True)
class Wheel208:
    """The newer LibCarla WheelPhysicsControl, byte for byte (defaults are LibCarla's)."""

    axle_type: int = 0
    padding0: tuple[int, int, int] = (0, 0, 0)
    offset: Vec3 = _ZERO3
    wheel_radius: float = 30.0
    wheel_width: float = 30.0
    wheel_mass: float = 30.0
    cornering_stiffness: float = 1000.0
    friction_force_multiplier: float = 3.0
    side_slip_modifier: float = 1.0
    slip_threshold: float = 20.0
    skid_threshold: float = 20.0
    max_steer_angle: float = 70.0
    affected_by_steering: bool = True
    affected_by_brake: bool = True
    affected_by_handbrake: bool = True
    affected_by_engine: bool = True
    abs_enabled: bool = False
    traction_control_enabled: bool = False
    padding1: tuple[int, int] = (0, 0)
    max_wheelspin_rotation: float = 30.0
    external_torque_combine_method: int = 0
    padding2: tuple[int, ...] = (0,) * 7
    lateral_slip_graph: tuple[int, int, int] = (0, 0, 0)
    suspension_axis: Vec3 = (0.0, 0.0, -1.0)
    suspension_force_offset: Vec3 = _ZERO3
    suspension_max_raise: float = 10.0
    suspension_max_drop: float = 10.0
    suspension_damping_ratio: float = 0.5
    wheel_load_ratio: float = 0.5
    spring_rate: float = 250.0
    spring_preload: float = 50.0
    suspension_smoothing: int = 0
    rollbar_scaling: float = 0.15000000596046448
    sweep_shape: int = 0
    sweep_type: int = 0
    padding3: tuple[int, int] = (0, 0)
    max_brake_torque: float = 1500.0
    max_hand_brake_torque: float = 3000.0
    wheel_index: int = -1
    location: Vec3 = _ZERO3
    old_location: Vec3 = _ZERO3
    velocity: Vec3 = _ZERO3
    padding4: tuple[int, int, int, int] = (0, 0, 0, 0)


_F = [("tire_friction", "f", 1), ("damping_rate", "f", 1), ("max_steer_angle", "f", 1)]
_F += [("radius", "f", 1), ("max_brake_torque", "f", 1), ("max_handbrake_torque", "f", 1)]
_STIFF = [("lat_stiff_max_load", "f", 1), ("lat_stiff_value", "f", 1), ("long_stiff_value", "f", 1)]
WHEEL_36 = FixedLayout(Wheel36, [*_F, ("position", "f", 3)])
WHEEL_48 = FixedLayout(Wheel48, [*_F, *_STIFF, ("position", "f", 3)])
_CODES_208 = {"axle_type": "B", "external_torque_combine_method": "B", "sweep_shape": "B"}
_CODES_208 |= {"sweep_type": "B", "suspension_smoothing": "i", "wheel_index": "i"}


def _layout_208() -> FixedLayout:
    spec = []
    for name, default in zip(
        Wheel208.__dataclass_fields__,
        [f.default for f in Wheel208.__dataclass_fields__.values()],
        strict=True,
    ):
        if name.startswith("padding"):
            spec.append((name, "B", len(default)))
        elif name == "lateral_slip_graph":
            spec.append((name, "Q", 3))
        elif isinstance(default, tuple):
            spec.append((name, "f", 3))
        elif isinstance(default, bool):
            spec.append((name, "?", 1))
        else:
            spec.append((name, _CODES_208.get(name, "f"), 1))
    return FixedLayout(Wheel208, spec)


WHEEL_208 = _layout_208()
WHEEL_LAYOUTS = {36: WHEEL_36, 48: WHEEL_48, 208: WHEEL_208}
# The order a reader tries the sizes in: the common one first.
WHEEL_SIZES = (48, 36, 208)
GEAR = FixedLayout(GearRecord, [("ratio", "f", 1), ("down_ratio", "f", 1), ("up_ratio", "f", 1)])


@dataclass(slots=True)
class PhysicsControlRecord:
    """The rpc VehiclePhysicsControl fields in write order; `wheel_size` picks the wheel layout."""

    id: int
    max_rpm: float
    moi: float
    damping_rate_full_throttle: float
    damping_rate_zero_throttle_clutch_engaged: float
    damping_rate_zero_throttle_clutch_disengaged: float
    use_gear_autobox: bool
    clutch_strength: float
    final_ratio: float
    mass: float
    drag_coefficient: float
    center_of_mass: Vec3
    torque_curve: list[tuple[float, float]] = field(default_factory=list)
    forward_gears: list[GearRecord] = field(default_factory=list)
    steering_curve: list[tuple[float, float]] = field(default_factory=list)
    wheels: list = field(default_factory=list)
    wheel_size: int = 48


_HEAD = struct.Struct("<I5fB4f3f")
_PAIR = struct.Struct("<2f")


def rich_curve_keys(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The keys Unreal's FRichCurve::AddKey builds from points added in turn: each goes before
    the first key whose time is not less than its own, so the keys come out sorted by time,
    equal times in reverse order (and a NaN time, less than nothing, goes first)."""
    keys: list[tuple[float, float]] = []
    for t, v in points:
        at = 0
        while at < len(keys) and keys[at][0] < t:
            at += 1
        keys.insert(at, (t, v))
    return keys


def pack_pairs(points: list[tuple[float, float]]) -> bytes:
    return U32.pack(len(points)) + b"".join(_PAIR.pack(*p) for p in points)


def pack_physics_control(r: PhysicsControlRecord) -> bytes:
    layout = WHEEL_LAYOUTS[r.wheel_size]
    head = _HEAD.pack(
        r.id,
        r.max_rpm,
        r.moi,
        r.damping_rate_full_throttle,
        r.damping_rate_zero_throttle_clutch_engaged,
        r.damping_rate_zero_throttle_clutch_disengaged,
        int(r.use_gear_autobox),
        r.clutch_strength,
        r.final_ratio,
        r.mass,
        r.drag_coefficient,
        *r.center_of_mass,
    )
    return b"".join(
        [
            head,
            pack_pairs(r.torque_curve),
            U32.pack(len(r.forward_gears)),
            *(GEAR.pack(g) for g in r.forward_gears),
            pack_pairs(r.steering_curve),
            U32.pack(len(r.wheels)),
            *(layout.pack(w) for w in r.wheels),
        ]
    )


def read_count(data: bytes, offset: int, end: int, item: int, what: str) -> tuple[int, int]:
    if offset + 4 > end:
        raise LogFormatError(f"PhysicsControl {what} count runs past the packet end", offset)
    (n,) = U32.unpack_from(data, offset)
    if n * item > end - offset - 4:
        raise LogFormatError(f"PhysicsControl claims {n} {what}, past the packet end", offset)
    return n, offset + 4


def read_pairs(data: bytes, offset: int, end: int, what: str) -> tuple[list, int]:
    n, offset = read_count(data, offset, end, 8, what)
    return [_PAIR.unpack_from(data, offset + 8 * i) for i in range(n)], offset + 8 * n


def unpack_physics_control(
    data: bytes, offset: int, end: int, wheel_size: int = 48
) -> tuple[PhysicsControlRecord, int]:
    """One record, reading its wheels with the given wheel size."""
    if offset + _HEAD.size > end:
        raise LogFormatError("PhysicsControl record runs past the packet end", offset)
    v = _HEAD.unpack_from(data, offset)
    offset += _HEAD.size
    torque, offset = read_pairs(data, offset, end, "torque curve points")
    n, offset = read_count(data, offset, end, GEAR.size, "gears")
    gears = [GEAR.unpack_from(data, offset + GEAR.size * i) for i in range(n)]
    offset += GEAR.size * n
    steering, offset = read_pairs(data, offset, end, "steering curve points")
    layout = WHEEL_LAYOUTS[wheel_size]
    n, offset = read_count(data, offset, end, layout.size, "wheels")
    wheels = [layout.unpack_from(data, offset + layout.size * i) for i in range(n)]
    offset += layout.size * n
    autobox = bool(v[6]) if v[6] in (0, 1) else v[6]
    record = PhysicsControlRecord(
        *v[0:6], autobox, *v[7:11], v[11:14], torque, gears, steering, wheels, wheel_size
    )
    return record, offset


def unpack_physics_packet(data: bytes, body_offset: int, size: int) -> list[PhysicsControlRecord]:
    """All records of a packet, with the wheel size that ends them exactly at the packet end."""
    end = body_offset + size
    if size < 2:
        raise LogFormatError("PhysicsControl packet has no record count", body_offset)
    (count,) = U16.unpack_from(data, body_offset)
    first_error: LogFormatError | None = None
    for wheel_size in WHEEL_SIZES:
        offset = body_offset + 2
        records = []
        try:
            for _ in range(count):
                record, offset = unpack_physics_control(data, offset, end, wheel_size)
                records.append(record)
        except LogFormatError as exc:
            first_error = first_error or exc
            continue
        if offset == end:
            return records
        if first_error is None:
            first_error = LogFormatError(
                f"PhysicsControl packet: {wheel_size}-byte wheels end its records at "
                f"{offset - body_offset} bytes, its size says {size}",
                body_offset,
            )
    assert first_error is not None
    raise LogFormatError(
        f"PhysicsControl packet fits no wheel size of {WHEEL_SIZES}: {first_error}", body_offset
    )


PHYSICS_CONTROL_CODEC = PacketCodec(
    PacketId.PhysicsControl,
    "physics_control",
    PhysicsControlRecord,
    pack_physics_control,
    unpack_physics_control,
    unpack_packet=unpack_physics_packet,
)
