"""CARLA's msgpack shapes of its values, to and from lockstep's (world/) types.

A CARLA struct travels as an array of its fields in declaration order (LibCarla's
MSGPACK_DEFINE_ARRAY); a shorter array leaves the trailing fields at their defaults and
longer ones are cut, as msgpack-c reads them. Numbers coming in must be finite (a NaN or an
infinity in a pose or a control is refused with CallError naming the argument); booleans
must be booleans, as CARLA's client sends them.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from runner.serve.errors import CallError
from world import (
    BoundingBox,
    GearPhysicsControl,
    Location,
    Rotation,
    Transform,
    Vector2D,
    Vector3D,
    VehicleAckermannControl,
    VehicleControl,
    VehiclePhysicsControl,
    WalkerControl,
    WeatherParameters,
    WheelPhysicsControl,
    WorldSettings,
)

__all__ = [
    "ATTRIBUTE_TYPES",
    "ackermann_control_in",
    "boolean",
    "bounding_box_out",
    "integer",
    "location_in",
    "number",
    "physics_control_in",
    "physics_control_out",
    "settings_in",
    "settings_out",
    "text",
    "transform_in",
    "transform_out",
    "vector_in",
    "vector_out",
    "vehicle_control_in",
    "vehicle_control_out",
    "walker_control_in",
    "weather_in",
    "weather_out",
]

# CARLA 0.9.16's ActorAttributeType numbers on the wire, by lockstep's type names
ATTRIBUTE_TYPES = {"Bool": 1, "Int": 2, "Float": 3, "String": 4, "RGBColor": 5}


def _fields(value: Any, count: int, what: str) -> list:
    if not isinstance(value, list | tuple):
        raise CallError(f"{what}: expected an array, found {type(value).__name__}")
    return list(value[:count]) + [None] * (count - len(value))


def number(value: Any, what: str, default: float = 0.0) -> float:
    """A finite number (None: `default`, a missing trailing field)."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CallError(f"{what}: expected a number, found {value!r:.40}")
    out = float(value)
    if not math.isfinite(out):
        raise CallError(f"{what}: expected a finite number, found {value!r}")
    return out


def integer(value: Any, what: str, default: int = 0, low: int = 0, high: int = 1 << 64) -> int:
    """An integer in [low, high) (None: `default`)."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value < high:
        raise CallError(f"{what}: expected an integer in [{low}, {high}), found {value!r:.40}")
    return int(value)


def boolean(value: Any, what: str, default: bool = False) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise CallError(f"{what}: expected true or false, found {value!r:.40}")
    return value


def text(value: Any, what: str, default: str = "") -> str:
    if value is None:
        return default
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        raise CallError(f"{what}: expected a string, found {type(value).__name__}")
    return value


def _xyz(value: Any, what: str) -> tuple[float, float, float]:
    x, y, z = _fields(value, 3, what)
    return number(x, f"{what}.x"), number(y, f"{what}.y"), number(z, f"{what}.z")


def vector_in(value: Any, what: str) -> Vector3D:
    return Vector3D(*_xyz(value, what))


def location_in(value: Any, what: str) -> Location:
    return Location(*_xyz(value, what))


def transform_in(value: Any, what: str) -> Transform:
    location, rotation = _fields(value, 2, what)
    pitch, yaw, roll = _fields([] if rotation is None else rotation, 3, f"{what}.rotation")
    return Transform(
        Location(*_xyz([] if location is None else location, f"{what}.location")),
        Rotation(
            number(pitch, f"{what}.pitch"), number(yaw, f"{what}.yaw"), number(roll, f"{what}.roll")
        ),
    )


def vector_out(v: Any) -> list[float]:
    return [float(v.x), float(v.y), float(v.z)]


def transform_out(t: Any) -> list:
    loc, rot = t.location, t.rotation
    return [
        [float(loc.x), float(loc.y), float(loc.z)],
        [float(rot.pitch), float(rot.yaw), float(rot.roll)],
    ]


def bounding_box_out(box: BoundingBox) -> list:
    """[location, extent, rotation] (geom/BoundingBox.h)."""
    rotation = getattr(box, "rotation", None) or Rotation()
    return [
        vector_out(box.location),
        vector_out(box.extent),
        [float(rotation.pitch), float(rotation.yaw), float(rotation.roll)],
    ]


def vehicle_control_in(value: Any, what: str) -> VehicleControl:
    """[throttle, steer, brake, hand_brake, reverse, manual_gear_shift, gear]."""
    throttle, steer, brake, hand_brake, reverse, manual, gear = _fields(value, 7, what)
    return VehicleControl(
        throttle=number(throttle, f"{what}.throttle"),
        steer=number(steer, f"{what}.steer"),
        brake=number(brake, f"{what}.brake"),
        hand_brake=boolean(hand_brake, f"{what}.hand_brake"),
        reverse=boolean(reverse, f"{what}.reverse"),
        manual_gear_shift=boolean(manual, f"{what}.manual_gear_shift"),
        gear=integer(gear, f"{what}.gear", low=-(1 << 31), high=1 << 31),
    )


def vehicle_control_out(c: VehicleControl) -> list:
    return [
        float(c.throttle),
        float(c.steer),
        float(c.brake),
        bool(c.hand_brake),
        bool(c.reverse),
        bool(c.manual_gear_shift),
        int(c.gear),
    ]


def ackermann_control_in(value: Any, what: str) -> VehicleAckermannControl:
    """[steer, steer_speed, speed, acceleration, jerk]."""
    names = ("steer", "steer_speed", "speed", "acceleration", "jerk")
    values = _fields(value, len(names), what)
    return VehicleAckermannControl(
        **{n: number(v, f"{what}.{n}") for n, v in zip(names, values, strict=True)}
    )


def walker_control_in(value: Any, what: str) -> WalkerControl:
    """[direction, speed, jump]."""
    direction, speed, jump = _fields(value, 3, what)
    return WalkerControl(
        vector_in([1.0, 0.0, 0.0] if direction is None else direction, f"{what}.direction"),
        number(speed, f"{what}.speed"),
        boolean(jump, f"{what}.jump"),
    )


# EpisodeSettings' fields are WorldSettings' own, in the same order
_SETTINGS = tuple(f.name for f in dataclasses.fields(WorldSettings))


def settings_out(s: WorldSettings, synchronous: bool) -> list:
    """EpisodeSettings; `synchronous` is the mode the client asked for (the server's clock
    decides who ticks, the world steps the same either way)."""
    delta = s.fixed_delta_seconds
    return [
        bool(synchronous),
        bool(s.no_rendering_mode),
        [False] if delta is None else [True, float(delta)],
        bool(s.substepping),
        float(s.max_substep_delta_time),
        int(s.max_substeps),
        float(s.max_culling_distance),
        bool(s.deterministic_ragdolls),
        float(s.tile_stream_distance),
        float(s.actor_active_distance),
        bool(s.spectator_as_ego),
    ]


def settings_in(value: Any, base: WorldSettings) -> tuple[WorldSettings, bool, float | None]:
    """(settings for the world, the synchronous mode asked, the fixed delta asked or None).

    The world keeps a fixed step either way (lockstep steps in fixed ticks): a client that
    asks for a variable step gets `base`'s step in the world and None in its own view."""
    what = "EpisodeSettings"
    fields = dict(zip(_SETTINGS, _fields(value, len(_SETTINGS), what), strict=True))
    delta_field = fields["fixed_delta_seconds"]
    asked_delta = None
    if delta_field is not None:
        engaged = _fields(delta_field, 2, f"{what}.fixed_delta_seconds")
        if boolean(engaged[0], f"{what}.fixed_delta_seconds (engaged)"):
            asked_delta = number(engaged[1], f"{what}.fixed_delta_seconds")
    out = base.copy()
    for name in ("no_rendering_mode", "substepping", "deterministic_ragdolls", "spectator_as_ego"):
        setattr(out, name, boolean(fields[name], f"{what}.{name}", getattr(base, name)))
    for name in (
        "max_substep_delta_time",
        "max_culling_distance",
        "tile_stream_distance",
        "actor_active_distance",
    ):
        setattr(out, name, number(fields[name], f"{what}.{name}", getattr(base, name)))
    out.max_substeps = integer(
        fields["max_substeps"], f"{what}.max_substeps", base.max_substeps, -(1 << 31), 1 << 31
    )
    if asked_delta is not None:
        out.fixed_delta_seconds = asked_delta
    synchronous = boolean(fields["synchronous_mode"], f"{what}.synchronous_mode")
    return out, synchronous, asked_delta


def weather_out(w: WeatherParameters) -> list[float]:
    """WeatherParameters: its 14 fields in CARLA's order (the struct's, the constructor's)."""
    return [float(v) for v in w.values()]


def weather_in(value: Any) -> WeatherParameters:
    defaults = WeatherParameters().values()
    values = _fields(value, len(defaults), "WeatherParameters")
    return WeatherParameters(
        *[
            number(v, f"WeatherParameters[{i}]", default)
            for i, (v, default) in enumerate(zip(values, defaults, strict=True))
        ]
    )


_WHEEL = (
    "tire_friction",
    "damping_rate",
    "max_steer_angle",
    "radius",
    "max_brake_torque",
    "max_handbrake_torque",
    "lat_stiff_max_load",
    "lat_stiff_value",
    "long_stiff_value",
)
_GEAR = ("ratio", "down_ratio", "up_ratio")
_PHYSICS_FLOATS = (
    "max_rpm",
    "moi",
    "damping_rate_full_throttle",
    "damping_rate_zero_throttle_clutch_engaged",
    "damping_rate_zero_throttle_clutch_disengaged",
)
_CURVE_MAX = 256  # points of a torque or steering curve, gears, wheels


def physics_control_out(pc: VehiclePhysicsControl) -> list:
    """VehiclePhysicsControl, 17 fields (rpc/VehiclePhysicsControl.h)."""
    return [
        [[float(p.x), float(p.y)] for p in pc.torque_curve],
        *[float(getattr(pc, name)) for name in _PHYSICS_FLOATS],
        bool(pc.use_gear_autobox),
        float(pc.gear_switch_time),
        float(pc.clutch_strength),
        float(pc.final_ratio),
        [[float(getattr(g, n)) for n in _GEAR] for g in pc.forward_gears],
        float(pc.mass),
        float(pc.drag_coefficient),
        vector_out(pc.center_of_mass),
        [[float(p.x), float(p.y)] for p in pc.steering_curve],
        [[*[float(getattr(w, n)) for n in _WHEEL], vector_out(w.position)] for w in pc.wheels],
        bool(pc.use_sweep_wheel_collision),
    ]


def _list(value: Any, what: str) -> list:
    if not isinstance(value, list) or len(value) > _CURVE_MAX:
        raise CallError(f"{what}: expected an array of at most {_CURVE_MAX} items")
    return value


def _curve(value: Any, what: str) -> list[Vector2D]:
    out = []
    for i, point in enumerate(_list(value, what)):
        x, y = _fields(point, 2, f"{what}[{i}]")
        out.append(Vector2D(number(x, f"{what}[{i}].x"), number(y, f"{what}[{i}].y")))
    return out


def physics_control_in(value: Any) -> VehiclePhysicsControl:
    what = "VehiclePhysicsControl"
    f = _fields(value, 17, what)
    pc = VehiclePhysicsControl()
    if f[0] is not None:
        pc.torque_curve = _curve(f[0], f"{what}.torque_curve")
    for name, v in zip(_PHYSICS_FLOATS, f[1:6], strict=True):
        setattr(pc, name, number(v, f"{what}.{name}", getattr(pc, name)))
    pc.use_gear_autobox = boolean(f[6], f"{what}.use_gear_autobox", pc.use_gear_autobox)
    pc.gear_switch_time = number(f[7], f"{what}.gear_switch_time", pc.gear_switch_time)
    pc.clutch_strength = number(f[8], f"{what}.clutch_strength", pc.clutch_strength)
    pc.final_ratio = number(f[9], f"{what}.final_ratio", pc.final_ratio)
    if f[10] is not None:
        gears = []
        for i, g in enumerate(_list(f[10], f"{what}.forward_gears")):
            gear = GearPhysicsControl()
            for name, v in zip(_GEAR, _fields(g, 3, f"{what}.forward_gears[{i}]"), strict=True):
                setattr(
                    gear, name, number(v, f"{what}.forward_gears[{i}].{name}", getattr(gear, name))
                )
            gears.append(gear)
        pc.forward_gears = gears
    pc.mass = number(f[11], f"{what}.mass", pc.mass)
    pc.drag_coefficient = number(f[12], f"{what}.drag_coefficient", pc.drag_coefficient)
    if f[13] is not None:
        pc.center_of_mass = vector_in(f[13], f"{what}.center_of_mass")
    if f[14] is not None:
        pc.steering_curve = _curve(f[14], f"{what}.steering_curve")
    if f[15] is not None:
        wheels = []
        for i, w in enumerate(_list(f[15], f"{what}.wheels")):
            values = _fields(w, 10, f"{what}.wheels[{i}]")
            wheel = WheelPhysicsControl()
            for name, v in zip(_WHEEL, values[:9], strict=True):
                setattr(wheel, name, number(v, f"{what}.wheels[{i}].{name}", getattr(wheel, name)))
            if values[9] is not None:
                wheel.position = vector_in(values[9], f"{what}.wheels[{i}].position")
            wheels.append(wheel)
        pc.wheels = wheels
    pc.use_sweep_wheel_collision = boolean(f[16], f"{what}.use_sweep_wheel_collision")
    return pc
