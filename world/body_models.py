"""What a spawned actor's body is: box, mass, semantic tag and (vehicles) physics control.

Bodies come per blueprint id. Until the blueprint catalogue's vehicle models
give them, a vehicle is a car: CARLA's Lincoln MKZ 2017 physics control as a
CARLA 0.9.12 server logs it (torque curve, gears, wheels), in a 4.9 x 2.1 x 1.5 m
box; a walker is a 0.5 x 0.5 x 1.86 m box of 70 kg whose origin is its centre,
as CARLA's walker capsule; a prop is a 0.5 m cube resting on its origin;
sensors and other actors have no body.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from world.geometry import Vector2D, Vector3D
from world.physics_control import GearPhysicsControl, VehiclePhysicsControl, WheelPhysicsControl
from world.vehicle_state import CityObjectLabel

__all__ = ["Body", "body_of", "car_physics_control"]


@dataclass(frozen=True, slots=True)
class Body:
    extent: np.ndarray
    box_loc: np.ndarray
    mass: float
    semantic_tag: CityObjectLabel
    physics_control: VehiclePhysicsControl | None = None


def car_physics_control() -> VehiclePhysicsControl:
    """The Lincoln MKZ 2017 as logged by CARLA 0.9.12 (wheel positions in cm, car frame)."""
    torque = [
        (1000, 347),
        (1500, 523),
        (2000, 606),
        (3000, 695),
        (4000, 677),
        (5300, 607),
        (6500, 466),
    ]
    gears = [(4.584, 0.54), (2.964, 0.5), (1.912, 0.46), (1.446, 0.46), (1.0, 0.46), (0.746, 0.46)]
    wheels = []
    for x, y, steer, hand in (
        (143.6, -78.5, 70.0, 0.0),
        (143.6, 78.5, 70.0, 0.0),
        (-143.6, -78.5, 0.0, 1600.0),
        (-143.6, 78.5, 0.0, 1600.0),
    ):
        wheels.append(
            WheelPhysicsControl(
                tire_friction=3.5,
                damping_rate=0.25,
                max_steer_angle=steer,
                radius=35.5,
                max_brake_torque=800.0,
                max_handbrake_torque=hand,
                position=Vector3D(x, y, 30.0),
            )
        )
    return VehiclePhysicsControl(
        torque_curve=[Vector2D(float(r), float(t)) for r, t in torque],
        max_rpm=6500.0,
        moi=1.0,
        damping_rate_full_throttle=0.05,
        damping_rate_zero_throttle_clutch_engaged=2.0,
        damping_rate_zero_throttle_clutch_disengaged=0.35,
        use_gear_autobox=True,
        gear_switch_time=0.5,
        clutch_strength=10.0,
        final_ratio=3.21,
        forward_gears=[GearPhysicsControl(r, 0.23, up) for r, up in gears],
        mass=1696.0,
        drag_coefficient=0.3,
        center_of_mass=Vector3D(0.6, 0.0, -0.3),
        steering_curve=[
            Vector2D(0.0, 1.0),
            Vector2D(20.0, 0.9),
            Vector2D(60.0, 0.8),
            Vector2D(120.0, 0.7),
        ],
        wheels=wheels,
    )


def body_of(type_id: str) -> Body:
    """The body of an actor spawned from blueprint `type_id`."""
    if type_id.startswith("vehicle."):
        pc = car_physics_control()
        return Body(
            np.array([2.45, 1.06, 0.755]),
            np.array([0.0, 0.0, 0.72]),
            pc.mass,
            CityObjectLabel.Car,
            pc,
        )
    if type_id.startswith("walker."):
        return Body(np.array([0.25, 0.25, 0.93]), np.zeros(3), 70.0, CityObjectLabel.Pedestrians)
    if type_id.startswith("static.prop."):
        return Body(np.full(3, 0.25), np.array([0.0, 0.0, 0.25]), 0.0, CityObjectLabel.Static)
    return Body(np.zeros(3), np.zeros(3), 0.0, CityObjectLabel.NONE)
