"""The controls a client sends to its actors: vehicles, Ackermann vehicles, walkers, walker bones.

CARLA keeps every number of a control as a C++ `float`, and the recorder logs
them as float32. Here each number is rounded through `numpy.float32` when it is
set, so a control read back (or replayed from a log) is the same float32 value
the physics receives.

The structs do not clamp, as CARLA's `rpc::VehicleControl` does not, and
`get_control()` reports the control as it was sent. The clamping happens where
the physics reads the inputs (UE4's vehicle movement clamps them to [-1, 1] and
drives with the positive part of throttle and brake): `VehicleControl.clamped()`
gives that form, throttle and brake in [0, 1] and steer in [-1, 1].
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from world.geometry import Transform, Vector3D

__all__ = [
    "BoneTransformDataIn",
    "BoneTransformDataOut",
    "VehicleAckermannControl",
    "VehicleControl",
    "WalkerBoneControlIn",
    "WalkerBoneControlOut",
    "WalkerControl",
]


_FLOAT32 = struct.Struct("f")


def f32(value: float) -> float:
    """`value` rounded to the nearest float32, as a Python float (a C++ `float` field).
    Through a C float by `struct` (the same rounding as numpy.float32, at half the cost: a
    control is made several times a tick); what struct refuses (beyond float32's range,
    text, None) goes through numpy.float32, which answers as it always did."""
    try:
        return _FLOAT32.unpack(_FLOAT32.pack(value))[0]
    except (OverflowError, TypeError, struct.error):
        return float(np.float32(value))


def _bool_text(value: bool) -> str:
    return "True" if value else "False"


def clamp(value: float, low: float, high: float) -> float:
    """`value` within [low, high] (min of max: NaN stays NaN, as the physics reads it)."""
    return min(max(value, low), high)


class VehicleControl:
    """Throttle, steer, brake, hand brake, reverse and gear (CARLA's carla.VehicleControl)."""

    # __dict__: a script may hang its own attributes on a control, as on CARLA's
    __slots__ = (
        "__dict__",
        "_brake",
        "_steer",
        "_throttle",
        "gear",
        "hand_brake",
        "manual_gear_shift",
        "reverse",
        "timestamp",
    )

    def __init__(
        self,
        throttle: float = 0.0,
        steer: float = 0.0,
        brake: float = 0.0,
        hand_brake: bool = False,
        reverse: bool = False,
        manual_gear_shift: bool = False,
        gear: int = 0,
        timestamp: float = 0.0,
    ) -> None:
        self.timestamp = float(timestamp)
        self.throttle = throttle
        self.steer = steer
        self.brake = brake
        self.hand_brake = bool(hand_brake)
        self.reverse = bool(reverse)
        self.manual_gear_shift = bool(manual_gear_shift)
        self.gear = int(gear)

    @classmethod
    def of_float32(
        cls,
        throttle: float,
        steer: float,
        brake: float,
        hand_brake: bool,
        reverse: bool,
        manual_gear_shift: bool,
        gear: int,
    ) -> VehicleControl:
        """A control of numbers that are float32 values already (a vehicle table's row, as
        Python floats and bools): rounding them to float32 gives them back, so they are kept
        as they are (Vehicle.get_control makes one a tick for an agent)."""
        control = cls.__new__(cls)
        control.timestamp = 0.0
        control._throttle, control._steer, control._brake = throttle, steer, brake
        control.hand_brake, control.reverse = hand_brake, reverse
        control.manual_gear_shift, control.gear = manual_gear_shift, gear
        return control

    @property
    def throttle(self) -> float:
        return self._throttle

    @throttle.setter
    def throttle(self, value: float) -> None:
        self._throttle = f32(value)

    @property
    def steer(self) -> float:
        return self._steer

    @steer.setter
    def steer(self, value: float) -> None:
        self._steer = f32(value)

    @property
    def brake(self) -> float:
        return self._brake

    @brake.setter
    def brake(self, value: float) -> None:
        self._brake = f32(value)

    def _key(self) -> tuple:
        return (
            self._throttle,
            self._steer,
            self._brake,
            self.hand_brake,
            self.reverse,
            self.manual_gear_shift,
            self.gear,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VehicleControl):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable, as CARLA's

    def copy(self) -> VehicleControl:
        return VehicleControl(*self._key())

    def clamped(self) -> VehicleControl:
        """The control as a vehicle applies it: throttle, brake in [0, 1], steer in [-1, 1]."""
        return VehicleControl(
            clamp(self._throttle, 0.0, 1.0),
            clamp(self._steer, -1.0, 1.0),
            clamp(self._brake, 0.0, 1.0),
            self.hand_brake,
            self.reverse,
            self.manual_gear_shift,
            self.gear,
        )

    def __repr__(self) -> str:
        return (
            f"VehicleControl(throttle={self._throttle:f}, steer={self._steer:f}, "
            f"brake={self._brake:f}, hand_brake={_bool_text(self.hand_brake)}, "
            f"reverse={_bool_text(self.reverse)}, "
            f"manual_gear_shift={_bool_text(self.manual_gear_shift)}, gear={self.gear})"
        )

    __str__ = __repr__


_ACKERMANN_FIELDS = ("steer", "steer_speed", "speed", "acceleration", "jerk")


class VehicleAckermannControl:
    """Steer (rad), steer speed (rad/s), speed (m/s), acceleration (m/s²), jerk (m/s³).

    CARLA's carla.VehicleAckermannControl; every field is a float32.
    """

    __slots__ = ("__dict__", "timestamp", *(f"_{name}" for name in _ACKERMANN_FIELDS))

    def __init__(
        self,
        steer: float = 0.0,
        steer_speed: float = 0.0,
        speed: float = 0.0,
        acceleration: float = 0.0,
        jerk: float = 0.0,
        timestamp: float = 0.0,
    ) -> None:
        self.timestamp = float(timestamp)
        self.steer = steer
        self.steer_speed = steer_speed
        self.speed = speed
        self.acceleration = acceleration
        self.jerk = jerk

    def _key(self) -> tuple[float, ...]:
        return tuple(getattr(self, name) for name in _ACKERMANN_FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VehicleAckermannControl):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> VehicleAckermannControl:
        return VehicleAckermannControl(*self._key())

    def __repr__(self) -> str:
        text = ", ".join(f"{name}={getattr(self, name):f}" for name in _ACKERMANN_FIELDS)
        return f"VehicleAckermannControl({text})"

    __str__ = __repr__


def _float32_property(name: str) -> property:
    slot = f"_{name}"

    def get(self) -> float:
        return getattr(self, slot)

    def set_(self, value: float) -> None:
        setattr(self, slot, f32(value))

    return property(get, set_)


for _name in _ACKERMANN_FIELDS:
    setattr(VehicleAckermannControl, _name, _float32_property(_name))
del _name


class WalkerControl:
    """A walker's direction (world frame, CARLA normalises it), speed (m/s) and jump.

    CARLA's carla.WalkerControl; direction components and speed are float32.
    """

    __slots__ = ("__dict__", "_direction", "_speed", "jump", "timestamp")

    def __init__(
        self,
        direction: Vector3D | None = None,
        speed: float = 0.0,
        jump: bool = False,
        timestamp: float = 0.0,
    ) -> None:
        self.timestamp = float(timestamp)
        self.direction = Vector3D(1.0, 0.0, 0.0) if direction is None else direction
        self.speed = speed
        self.jump = bool(jump)

    @property
    def direction(self) -> Vector3D:
        d = self._direction
        return Vector3D(d.x, d.y, d.z)

    @direction.setter
    def direction(self, value: Vector3D) -> None:
        self._direction = Vector3D(f32(value.x), f32(value.y), f32(value.z))

    @property
    def speed(self) -> float:
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        self._speed = f32(value)

    def _key(self) -> tuple:
        d = self._direction
        return (d.x, d.y, d.z, self._speed, self.jump)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WalkerControl):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> WalkerControl:
        return WalkerControl(self.direction, self._speed, self.jump)

    def __repr__(self) -> str:
        d = self._direction
        return (
            f"WalkerControl(direction=Vector3D(x={d.x:f}, y={d.y:f}, z={d.z:f}), "
            f"speed={self._speed:f}, jump={_bool_text(self.jump)})"
        )

    __str__ = __repr__


# CARLA's BoneTransformDataIn is a std::pair<std::string, Transform>: the bone's name
# and its transform relative to its parent bone.
BoneTransformDataIn = tuple[str, Transform]


@dataclass(slots=True)
class BoneTransformDataOut:
    """One bone as a walker reports it: name and its world, component and relative transforms."""

    bone_name: str = ""
    world: Transform = field(default_factory=Transform)
    component: Transform = field(default_factory=Transform)
    relative: Transform = field(default_factory=Transform)


@dataclass(slots=True)
class WalkerBoneControlIn:
    """Bones to pose: (bone name, transform relative to its parent) pairs, in the given order."""

    bone_transforms: list[BoneTransformDataIn] = field(default_factory=list)


@dataclass(slots=True)
class WalkerBoneControlOut:
    """A walker's bones as `get_bones()` reports them."""

    bone_transforms: list[BoneTransformDataOut] = field(default_factory=list)
