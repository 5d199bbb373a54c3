"""A vehicle's physics parameters: CARLA 0.9.x (UE4 PhysX vehicle) VehiclePhysicsControl.

Fields and defaults are those of LibCarla's rpc/VehiclePhysicsControl.h,
WheelPhysicsControl.h and GearPhysicsControl.h in CARLA 0.9.12-0.9.15. Units as
CARLA's: rpm, N·m, kg, degrees; a wheel's `radius` is in centimetres and its
`position` is the wheel's world position in centimetres, as CARLA reports them
(the recorder logs exactly these numbers). Curves are lists of `Vector2D`
(x = rpm or km/h, y = N·m or steering factor); tuples are accepted and converted.

The defaults of a bare `VehiclePhysicsControl()` are CARLA's struct defaults (a
flat 500 N·m curve, no gears, no wheels); a spawned vehicle gets its blueprint's
values from `world.actors.vehicle_models`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields, is_dataclass
from functools import cache

from world.geometry import Vector2D, Vector3D

__all__ = ["GearPhysicsControl", "VehiclePhysicsControl", "WheelPhysicsControl"]


def _curve(points: Iterable[Vector2D | tuple[float, float]]) -> list[Vector2D]:
    out = []
    for p in points:
        out.append(Vector2D(p.x, p.y) if isinstance(p, Vector2D) else Vector2D(*p))
    return out


@dataclass(slots=True)
class GearPhysicsControl:
    """One forward gear: its ratio and the rpm fractions of max_rpm that shift down and up."""

    ratio: float = 1.0
    down_ratio: float = 0.5
    up_ratio: float = 0.65


@dataclass(slots=True)
class WheelPhysicsControl:
    """One wheel (CARLA 0.9.x): friction, damping, steering, radius (cm), brakes (N·m), tyre."""

    tire_friction: float = 2.0
    damping_rate: float = 0.25
    max_steer_angle: float = 70.0
    radius: float = 30.0
    max_brake_torque: float = 1500.0
    max_handbrake_torque: float = 3000.0
    lat_stiff_max_load: float = 2.0
    lat_stiff_value: float = 17.0
    long_stiff_value: float = 1000.0
    position: Vector3D = field(default_factory=Vector3D)


def _default_torque_curve() -> list[Vector2D]:
    return [Vector2D(0.0, 500.0), Vector2D(5000.0, 500.0)]


def _default_steering_curve() -> list[Vector2D]:
    return [Vector2D(0.0, 1.0), Vector2D(10.0, 0.5)]


@dataclass(slots=True)
class VehiclePhysicsControl:
    """Engine, transmission, body and wheels of a vehicle (CARLA's carla.VehiclePhysicsControl)."""

    torque_curve: list[Vector2D] = field(default_factory=_default_torque_curve)
    max_rpm: float = 5000.0
    moi: float = 1.0
    damping_rate_full_throttle: float = 0.15
    damping_rate_zero_throttle_clutch_engaged: float = 2.0
    damping_rate_zero_throttle_clutch_disengaged: float = 0.35
    use_gear_autobox: bool = True
    gear_switch_time: float = 0.5
    clutch_strength: float = 10.0
    final_ratio: float = 4.0
    forward_gears: list[GearPhysicsControl] = field(default_factory=list)
    mass: float = 1000.0
    drag_coefficient: float = 0.3
    center_of_mass: Vector3D = field(default_factory=Vector3D)
    steering_curve: list[Vector2D] = field(default_factory=_default_steering_curve)
    wheels: list[WheelPhysicsControl] = field(default_factory=list)
    use_sweep_wheel_collision: bool = False

    def __post_init__(self) -> None:
        self.torque_curve = _curve(self.torque_curve)
        self.steering_curve = _curve(self.steering_curve)
        self.forward_gears = list(self.forward_gears)
        self.wheels = list(self.wheels)

    def copy(self) -> VehiclePhysicsControl:
        """A deep copy (getters hand these out, so callers cannot change a vehicle by accident),
        built field by field: every spawn copies its blueprint's control, and copy.deepcopy's
        generic walk cost a millisecond each."""
        return _copied(self)


def _copied(value):
    """A copy of a control's field value: lists and the value types (vectors, gears, wheels,
    controls) field by field, numbers and flags as they are."""
    if isinstance(value, list):
        return [_copied(item) for item in value]
    names = _field_names(type(value))
    if names is not None:
        return type(value)(*[_copied(getattr(value, name)) for name in names])
    return value


@cache
def _field_names(kind: type) -> tuple[str, ...] | None:
    """The dataclass fields of `kind` in order (None: not a dataclass), looked up once per
    type: dataclasses' own lookups were most of a copy's cost."""
    return tuple(f.name for f in fields(kind)) if is_dataclass(kind) else None
