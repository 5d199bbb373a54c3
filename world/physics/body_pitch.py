"""The body's pitch on its suspension: squat under acceleration, dive under braking.

CARLA's vehicles ride on PhysX suspensions, so their bodies pitch on the wheels; lockstep's
dynamics move a rigid body whose pitch is its ground's. This module adds the suspension's
pitch to the pose the world reports (get_transform, the snapshots, the recorder, attached
sensors) and keeps it out of the dynamics, whose pitch stays the road's (the gravity term
reads it): after the physics, each simulated vehicle's pitch becomes road pitch + body
pitch; before the next, it goes back to the road pitch the dynamics left, unless the pose
was set in between (then the pose set is the dynamics' pitch). The trajectories are as
without it.

The model (docs/world-physics.md, "Body pitch"): PhysX sets each wheel's spring to
omega^2 times the mass it carries (UE4's suspension natural frequency, CARLA's wheel
blueprints), so every spring sags alike and the body stands level whatever the centre of
mass; a longitudinal acceleration a moves m a h / L of load from the front axle to the rear
(h: the centre of mass's height, L the wheelbase), and the pitch stiffness omega^2 m a_f a_r
(a_f, a_r: the centre of mass to each axle) turns it into a pitch of a h / (omega^2 a_f a_r)
radians, nose up when speeding up. The body follows that pitch as a damped oscillator of
the same natural frequency (a pitch inertia m a_f a_r, as the yaw's in the dynamics) and
the blueprint's damping ratio, stepped once a tick by implicit Euler (stable at any step),
within the suspension's travel.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from world import elementary as el
from world.actors.vehicle_models import vehicle_model
from world.kernels.compiled import njit
from world.physics.control import VehiclePhysicsControl
from world.state import VehicleTable

__all__ = ["SUSPENSIONS", "Suspension", "load_suspension", "put_in", "suspension_of", "take_out"]

DEG_TO_RAD = np.pi / 180.0
RAD_TO_DEG = 180.0 / np.pi


class Suspension(NamedTuple):
    """A wheel blueprint's suspension: natural frequency (UE4's SuspensionNaturalFrequency,
    the square root of spring strength over sprung mass, rad/s), damping ratio, and how far
    the wheel may rise and drop from rest (m)."""

    frequency: float
    damping: float
    max_raise: float
    max_drop: float


# CARLA's five suspension groups (its "Customize vehicle suspension" tutorial: every wheel
# of a vehicle alike; Max Raise and Drop in cm there)
SUSPENSIONS: dict[str, Suspension] = {
    "coupe": Suspension(10.0, 1.0, 0.075, 0.075),
    "off-road": Suspension(7.0, 0.5, 0.15, 0.15),
    "truck": Suspension(6.0, 0.4, 0.17, 0.17),
    "urban": Suspension(9.0, 0.8, 0.08, 0.08),
    "van": Suspension(9.0, 0.9, 0.09, 0.09),
}

# The blueprints the tutorial names, by group (0.9.16's ids)
_GROUPS: dict[str, str] = {
    **dict.fromkeys(
        (
            "seat.leon",
            "audi.a2",
            "audi.tt",
            "tesla.model3",
            "lincoln.mkz_2017",
            "mercedes.coupe",
        ),
        "coupe",
    ),
    **dict.fromkeys(
        ("audi.etron", "nissan.patrol", "tesla.cybertruck", "jeep.wrangler_rubicon"), "off-road"
    ),
    "carlamotors.carlacola": "truck",
    **dict.fromkeys(
        (
            "nissan.micra",
            "ford.mustang",
            "mini.cooper_s",
            "citroen.c3",
            "chevrolet.impala",
            "toyota.prius",
            "dodge.charger_police",
            "bmw.grandtourer",
        ),
        "urban",
    ),
    "volkswagen.t2": "van",
}

# The others by base type (chosen): cars and two-wheelers urban, vans van, trucks and buses
# truck (the softest)
_BY_BASE_TYPE = {"van": "van", "truck": "truck", "bus": "truck"}


def suspension_of(type_id: str) -> Suspension:
    """The suspension of vehicle blueprint `type_id`: its group's, else its base type's."""
    group = _GROUPS.get(type_id.removeprefix("vehicle."))
    if group is None:
        group = _BY_BASE_TYPE.get(vehicle_model(type_id).base_type, "urban")
    return SUSPENSIONS[group]


def load_suspension(
    v: VehicleTable,
    i: int,
    suspension: Suspension,
    pc: VehiclePhysicsControl,
    extent: np.ndarray,
    box_loc: np.ndarray,
) -> None:
    """Writes vehicle row `i`'s pitch response: the pitch per m/s² (degrees), the frequency,
    damping ratio and the pitch the suspension's travel allows (degrees).

    The centre of mass is the box's centre (the mesh's own, CARLA computes it from the body)
    moved by the physics control's `center_of_mass` (m, the vehicle's frame); its height is
    above the box's bottom, on the ground. The axles are those the dynamics read from the
    wheels (row `i`'s wheelbase and front axle, loaded first by
    vehicle_dynamics.load_physics_control); a centre of mass beyond an axle counts as 5 % of
    the wheelbase inside it."""
    cg_x = float(box_loc[0]) + pc.center_of_mass.x
    height = max(float(extent[2]) + pc.center_of_mass.z, 0.0)
    wheelbase, front_x = float(v.wheelbase[i]), float(v.cg_front[i])
    rear_x = front_x - wheelbase
    to_front = max(front_x - cg_x, 0.05 * wheelbase)
    to_rear = max(cg_x - rear_x, 0.05 * wheelbase)
    omega = suspension.frequency
    v.pitch_gain[i] = height / (omega * omega * to_front * to_rear) * RAD_TO_DEG
    v.pitch_frequency[i] = omega
    v.pitch_damping[i] = suspension.damping
    v.pitch_limit[i] = (suspension.max_raise + suspension.max_drop) / wheelbase * RAD_TO_DEG


@njit(cache=True)
def take_out(
    rot: np.ndarray,
    alive: np.ndarray,
    simulate: np.ndarray,
    actor: np.ndarray,
    road_pitch: np.ndarray,
    body_pitch: np.ndarray,
    n: int,
) -> None:
    """Before the physics: each simulated vehicle's pitch back to the road pitch the dynamics
    left, where it still is road + body pitch (a pose set since is kept as it is)."""
    for k in range(n):
        r = actor[k]
        # moved by the physics this tick (as world.physics.tick chooses)
        if r >= 0 and alive[r] and simulate[r] and rot[r, 0] == road_pitch[k] + body_pitch[k]:
            rot[r, 0] = road_pitch[k]


@njit(cache=True)
def put_in(
    rot: np.ndarray,
    acc: np.ndarray,
    alive: np.ndarray,
    simulate: np.ndarray,
    actor: np.ndarray,
    gain: np.ndarray,
    frequency: np.ndarray,
    damping: np.ndarray,
    limit: np.ndarray,
    road_pitch: np.ndarray,
    body_pitch: np.ndarray,
    pitch_rate: np.ndarray,
    n: int,
    dt: float,
) -> None:
    """After the physics: each simulated vehicle's body pitch one tick on toward the pitch
    of its longitudinal acceleration over the tick (`acc`, world frame), and its pitch
    the road's plus it (degrees)."""
    for k in range(n):
        r = actor[k]
        if not (r >= 0 and alive[r] and simulate[r]):  # not moved by the physics
            continue
        road_pitch[k] = rot[r, 0]
        yaw = rot[r, 1] * DEG_TO_RAD
        sin_yaw, cos_yaw = el.sin_cos(yaw)
        along = acc[r, 0] * cos_yaw + acc[r, 1] * sin_yaw
        target = min(max(gain[k] * along, -limit[k]), limit[k])
        omega = frequency[k]
        stiff = omega * omega * dt
        rate = (pitch_rate[k] + stiff * (target - body_pitch[k])) / (
            1.0 + 2.0 * damping[k] * omega * dt + stiff * dt
        )
        pitch = body_pitch[k] + dt * rate
        if abs(pitch) >= limit[k]:  # on the bump stop: the travel ends, the motion stops
            pitch, rate = min(max(pitch, -limit[k]), limit[k]), 0.0
        body_pitch[k], pitch_rate[k] = pitch, rate
        rot[r, 0] = road_pitch[k] + pitch
