"""Per-blueprint bodies: vehicle boxes, wheel layouts and physics; walker and prop boxes.

Box sizes are CARLA 0.9.15's measured ones (`world.actors.model_dimensions`). The box
centre is not published except for the two vehicles of the real log, so a box
stands on the actor's origin (centre at half its height) unless a logged centre
is known. Walkers' boxes are centred on their origin, as CARLA's capsule is.

Physics follows the base type (car, truck, van, bus, motorcycle, bicycle). The
car and the van use the values CARLA 0.9.12 logged for vehicle.lincoln.mkz_2017
and vehicle.nissan.patrol (../shared/carla-logs/DistanceBetweenVehicles, the
"Physics Control" events and the raw wheel records); the other base types are
chosen and documented in docs/world-data.md. Wheel `position`s in the physics
controls handed out here are the wheel centres in the vehicle's own frame, in
centimetres; the world reports them in the world frame, as CARLA does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from world.actors.blueprint_catalog import VEHICLES, VehicleEntry
from world.actors.model_dimensions import PEDESTRIAN_SIZES, PROP_SIZES, VEHICLE_SIZES
from world.actors.vehicle_state import CityObjectLabel
from world.errors import BlueprintError
from world.geometry import BoundingBox, Location, Vector3D
from world.physics.control import GearPhysicsControl, VehiclePhysicsControl, WheelPhysicsControl

__all__ = [
    "BASE_TYPES",
    "SEMANTIC_TAGS",
    "VehicleModel",
    "prop_bounding_box",
    "vehicle_model",
    "walker_bounding_box",
]

BASE_TYPES = ("car", "truck", "van", "bus", "motorcycle", "bicycle")

# The semantic tag of each base type (CARLA 0.9.14+ ids); a van is tagged as a truck.
SEMANTIC_TAGS: dict[str, CityObjectLabel] = {
    "car": CityObjectLabel.Car,
    "truck": CityObjectLabel.Truck,
    "van": CityObjectLabel.Truck,
    "bus": CityObjectLabel.Bus,
    "motorcycle": CityObjectLabel.Motorcycle,
    "bicycle": CityObjectLabel.Bicycle,
}

Triple = tuple[float, float, float]
T = TypeVar("T")
R = TypeVar("R")

# Box centres CARLA 0.9.12 logged (BoundingBox packets of the real log, cm -> m).
_LOGGED_CENTRES: dict[str, Triple] = {
    "vehicle.lincoln.mkz_2017": (0.0040, 0.0, 0.7189),
    "vehicle.nissan.patrol": (-0.0574, 0.0002, 0.9351),
}

# Wheel centres CARLA 0.9.12 logged, relative to the spawn location (x front, y right), m.
_LOGGED_AXLES: dict[str, tuple[float, float, float]] = {
    # (front axle x, rear axle x, half track)
    "vehicle.lincoln.mkz_2017": (1.4775, -1.3936, 0.7848),
    "vehicle.nissan.patrol": (1.4578, -1.3807, 0.8150),
}

# Where a chosen layout puts the axles: fractions of the box's half length and half width
# (the mkz_2017's logged layout: 1.4775 / 2.4508 = 0.60, 1.3936 / 2.4508 = 0.57, 0.7848 /
# 1.0642 = 0.74).
_FRONT_AXLE, _REAR_AXLE, _TRACK = 0.60, 0.57, 0.74

_MKZ_TORQUE = [(1000, 347), (1500, 523), (2000, 606), (3000, 695), (4000, 677), (5300, 607),
               (6500, 466)]  # fmt: skip
_MKZ_GEARS = [(4.584, 0.23, 0.54), (2.964, 0.23, 0.5), (1.912, 0.23, 0.46), (1.446, 0.23, 0.46),
              (1.0, 0.23, 0.46), (0.746, 0.23, 0.46)]  # fmt: skip
_PATROL_TORQUE = [(1000, 262.2), (1500, 531.05), (2500, 881.6), (3100, 974.7), (3800, 974.7),
                  (4700, 897.75), (5500, 784.7), (6000, 632.7)]  # fmt: skip
_PATROL_GEARS = [(5.08, 0.25, 0.58), (2.804, 0.17, 0.54), (1.783, 0.17, 0.5), (1.26, 0.25, 0.5),
                 (1.0, 0.25, 0.5), (0.835, 0.25, 0.5)]  # fmt: skip
_STEERING = [(0, 1), (20, 0.9), (60, 0.8), (120, 0.7)]


@dataclass(frozen=True, slots=True)
class _Drive:
    """The numbers of one physics profile (see `_PROFILES`)."""

    torque: tuple[tuple[float, float], ...]
    max_rpm: float
    damping_full_throttle: float
    final_ratio: float
    gears: tuple[Triple, ...]
    mass: float
    drag: float
    centre_of_mass: Triple
    radius_cm: float
    brake: float
    handbrake: float
    lat_stiff_max_load: float
    lat_stiff_value: float
    long_stiff_value: float


def _scaled(curve: list[tuple[float, float]], k: float) -> tuple[tuple[float, float], ...]:
    return tuple((rpm, torque * k) for rpm, torque in curve)


# "car": values logged by CARLA 0.9.12 for this blueprint (vehicle.lincoln.mkz_2017);
# "patrol": values logged by CARLA 0.9.12 for this blueprint (vehicle.nissan.patrol),
# whose drivetrain "van" reuses with a chosen mass; the other profiles are chosen.
_PROFILES: dict[str, _Drive] = {
    "car": _Drive(tuple(_MKZ_TORQUE), 6500, 0.05, 3.21, tuple(_MKZ_GEARS), 1696, 0.3,
                  (0.6, 0.0, -0.3), 35.5, 800, 1600, 3, 20, 3000),
    "patrol": _Drive(tuple(_PATROL_TORQUE), 6000, 0.15, 4.814, tuple(_PATROL_GEARS), 2355, 0.3,
                     (0.3, 0.0, -0.3), 39, 1300, 2600, 5, 20, 4000),
    "van": _Drive(tuple(_PATROL_TORQUE), 6000, 0.15, 4.814, tuple(_PATROL_GEARS), 2600, 0.35,
                  (0.3, 0.0, -0.3), 39, 1500, 3000, 5, 20, 4000),
    "truck": _Drive(_scaled(_PATROL_TORQUE, 2.5), 6000, 0.15, 5.5, tuple(_PATROL_GEARS), 8000,
                    0.6, (0.0, 0.0, 0.0), 50, 4000, 8000, 5, 20, 6000),
    "bus": _Drive(_scaled(_PATROL_TORQUE, 2.5), 6000, 0.15, 5.5, tuple(_PATROL_GEARS), 10000,
                  0.65, (0.0, 0.0, 0.0), 50, 5000, 10000, 5, 20, 6000),
    "motorcycle": _Drive(_scaled(_MKZ_TORQUE, 0.3), 6500, 0.05, 3.21, tuple(_MKZ_GEARS), 250,
                         0.5, (0.0, 0.0, 0.0), 30, 400, 400, 2, 17, 1000),
    "bicycle": _Drive(((0, 15), (1000, 15)), 1000, 0.15, 4.0, ((1.0, 0.5, 0.65),), 90, 0.9,
                      (0.0, 0.0, 0.0), 33, 150, 150, 2, 17, 1000),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class VehicleModel:
    """A vehicle blueprint's body: base type, box and wheels, and its default physics."""

    blueprint_id: str
    base_type: str
    extent: Triple
    centre: Triple
    wheel_offsets: tuple[Triple, Triple, Triple, Triple]  # FL, FR, RL, RR, local, m
    _drive: _Drive

    @property
    def semantic_tag(self) -> CityObjectLabel:
        return SEMANTIC_TAGS[self.base_type]

    @property
    def mass(self) -> float:
        """Mass in kg (the physics control's)."""
        return float(self._drive.mass)

    @property
    def wheel_radius(self) -> float:
        """Wheel radius in metres."""
        return self._drive.radius_cm / 100.0

    def bounding_box(self) -> BoundingBox:
        """A fresh box (extent and centre in the actor's frame)."""
        return BoundingBox(Location(*self.centre), Vector3D(*self.extent))

    def physics_control(self) -> VehiclePhysicsControl:
        """A fresh VehiclePhysicsControl with this model's defaults."""
        d = self._drive
        wheels = []
        for index, (x, y, z) in enumerate(self.wheel_offsets):
            front = index < 2
            wheels.append(
                WheelPhysicsControl(
                    tire_friction=3.5,
                    damping_rate=0.25,
                    max_steer_angle=70.0 if front else 0.0,
                    radius=float(d.radius_cm),
                    max_brake_torque=float(d.brake),
                    max_handbrake_torque=0.0 if front else float(d.handbrake),
                    lat_stiff_max_load=float(d.lat_stiff_max_load),
                    lat_stiff_value=float(d.lat_stiff_value),
                    long_stiff_value=float(d.long_stiff_value),
                    position=Vector3D(x * 100.0, y * 100.0, z * 100.0),
                )
            )
        return VehiclePhysicsControl(
            torque_curve=[(float(r), float(t)) for r, t in d.torque],
            max_rpm=float(d.max_rpm),
            moi=1.0,
            damping_rate_full_throttle=d.damping_full_throttle,
            damping_rate_zero_throttle_clutch_engaged=2.0,
            damping_rate_zero_throttle_clutch_disengaged=0.35,
            use_gear_autobox=True,
            gear_switch_time=0.5,
            clutch_strength=10.0,
            final_ratio=d.final_ratio,
            forward_gears=[GearPhysicsControl(*g) for g in d.gears],
            mass=float(d.mass),
            drag_coefficient=d.drag,
            center_of_mass=Vector3D(*d.centre_of_mass),
            steering_curve=[(float(v), float(k)) for v, k in _STEERING],
            wheels=wheels,
        )


def _wheel_offsets(
    entry: VehicleEntry, extent: Triple, centre: Triple, radius: float
) -> tuple[Triple, Triple, Triple, Triple]:
    if entry.id in _LOGGED_AXLES:
        front, rear, half_track = _LOGGED_AXLES[entry.id]
    else:
        front, rear = _FRONT_AXLE * extent[0], -_REAR_AXLE * extent[0]
        # A two-wheeler's four physics wheels sit close together, as CARLA's do.
        half_track = _TRACK * extent[1] if entry.number_of_wheels == 4 else 0.1
    z = centre[2] - extent[2] + radius  # the wheel stands on the box's floor
    return (
        (front, -half_track, z),
        (front, half_track, z),
        (rear, -half_track, z),
        (rear, half_track, z),
    )


def _build_model(entry: VehicleEntry) -> VehicleModel:
    length, width, height = VEHICLE_SIZES[entry.id]
    extent = (length / 2.0, width / 2.0, height / 2.0)
    centre = _LOGGED_CENTRES.get(entry.id, (0.0, 0.0, extent[2]))
    drive = _PROFILES["patrol" if entry.id == "vehicle.nissan.patrol" else entry.kind]
    offsets = _wheel_offsets(entry, extent, centre, drive.radius_cm / 100.0)
    return VehicleModel(entry.id, entry.kind, extent, centre, offsets, drive)


_MODELS: dict[str, VehicleModel] = {v.id: _build_model(v) for v in VEHICLES}


def vehicle_model(blueprint_id: str) -> VehicleModel:
    """The body of a vehicle blueprint; BlueprintError for an id that is not a vehicle."""
    return _lookup(_MODELS, blueprint_id, "vehicle", lambda m: m)


def walker_bounding_box(blueprint_id: str) -> BoundingBox:
    """A pedestrian's box, centred on its origin."""
    return _lookup(
        PEDESTRIAN_SIZES,
        blueprint_id,
        "pedestrian",
        lambda s: BoundingBox(Location(), Vector3D(s[0] / 2, s[1] / 2, s[2] / 2)),
    )


def prop_bounding_box(blueprint_id: str) -> BoundingBox:
    """A static.prop.* box standing on its origin."""
    return _lookup(
        PROP_SIZES,
        blueprint_id.removeprefix("static.prop."),
        "prop",
        lambda s: BoundingBox(Location(0.0, 0.0, s[2] / 2), Vector3D(s[0] / 2, s[1] / 2, s[2] / 2)),
    )


def _lookup(table: dict[str, T], key: str, kind: str, make: Callable[[T], R]) -> R:
    if key not in table:
        raise BlueprintError(f"{key!r} is not a {kind} blueprint with a known body")
    return make(table[key])
