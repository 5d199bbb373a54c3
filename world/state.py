"""The world's state as struct-of-arrays tables (numpy), one row per actor, vehicle and walker.

Actor row `r` is actor id `r + 1`: ids start at 1 and are never reused, and a
destroyed actor keeps its row marked dead, so iterating rows is iterating ids.
Vehicles and walkers also own a row in their own table (`vrow`, `wrow` of the
actor). Tables grow by doubling; code must re-read a column after a spawn
(growth replaces the arrays), never keep one across calls.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple

import numpy as np

from world.kernels.compiled import njit

__all__ = [
    "CURVE_POINTS",
    "ActorTable",
    "StateTables",
    "Table",
    "VehicleTable",
    "WalkerTable",
]

CURVE_POINTS = 16  # most points of a torque or steering curve, most forward gears

# name -> (dtype, trailing shape, fill value)
Columns = dict[str, tuple[type, tuple[int, ...], float]]


class Table:
    """Columns of equal length that grow by doubling; `n` rows are in use."""

    COLUMNS: ClassVar[Columns] = {}

    def __init__(self, capacity: int = 16) -> None:
        self.n = 0
        self.capacity = capacity
        for name, (dtype, shape, fill) in self.COLUMNS.items():
            setattr(self, name, np.full((capacity, *shape), fill, dtype=dtype))

    def add_row(self) -> int:
        """Appends a row filled with the column defaults and returns its index."""
        if self.n == self.capacity:
            self._grow(2 * self.capacity)
        self.n += 1
        return self.n - 1

    def _grow(self, capacity: int) -> None:
        for name, (dtype, shape, fill) in self.COLUMNS.items():
            old = getattr(self, name)
            new = np.full((capacity, *shape), fill, dtype=dtype)
            new[: self.n] = old[: self.n]
            setattr(self, name, new)
        self.capacity = capacity

    def arrays(self) -> dict[str, np.ndarray]:
        """The rows in use of every column (views), for hashing and inspection."""
        return {name: getattr(self, name)[: self.n] for name in self.COLUMNS}


class ActorTable(Table):
    """Every actor: kind (ActorType value), pose, motion, box, body flags, attachment."""

    COLUMNS: ClassVar[Columns] = {
        "alive": (np.bool_, (), False),
        "kind": (np.int8, (), 0),
        "parent": (np.int32, (), -1),  # parent row, -1 for none
        "depth": (np.int16, (), 0),  # attachment depth: 0 free, 1 child of a free actor...
        "pos": (np.float64, (3,), 0.0),  # x, y, z in m
        "rot": (np.float64, (3,), 0.0),  # pitch, yaw, roll in degrees
        "vel": (np.float64, (3,), 0.0),  # m/s, world frame
        "angvel": (np.float64, (3,), 0.0),  # deg/s, world frame
        "acc": (np.float64, (3,), 0.0),  # m/s², velocity change over the last tick
        "extent": (np.float64, (3,), 0.0),  # box half-extents in m
        "box_loc": (np.float64, (3,), 0.0),  # box centre in the actor's frame
        "rel_pos": (np.float64, (3,), 0.0),  # pose in the parent's frame (attached actors)
        "rel_rot": (np.float64, (3,), 0.0),
        "mass": (np.float64, (), 0.0),  # kg; 0 for actors without a body
        "body": (np.bool_, (), False),  # a vehicle or walker: moves by physics, collides
        "static_collider": (np.bool_, (), False),  # a prop: collides, never moves
        "gravity": (np.bool_, (), True),
        "simulate_physics": (np.bool_, (), True),
        "const_vel": (np.bool_, (), False),
        "const_vel_local": (np.float64, (3,), 0.0),  # m/s in the actor's frame
        "impulse": (np.float64, (3,), 0.0),  # N·s to apply at the next tick
        "force": (np.float64, (3,), 0.0),  # N applied during the next tick
        "ang_impulse": (np.float64, (3,), 0.0),  # N·m·s (about z used for bodies)
        "torque": (np.float64, (3,), 0.0),  # N·m during the next tick
        "vrow": (np.int32, (), -1),
        "wrow": (np.int32, (), -1),
        # how the actor came and went, for the recorder's events: the transform given to
        # spawn (in the parent's frame when attached), the parent row then, and the frames
        # (World.tick count) at spawn and destroy (-1 while alive)
        "spawn_pos": (np.float64, (3,), 0.0),
        "spawn_rot": (np.float64, (3,), 0.0),
        "spawn_parent": (np.int32, (), -1),
        "spawn_frame": (np.int64, (), 0),
        "destroy_frame": (np.int64, (), -1),
    }

    def lowest(self) -> float:
        """The least z of the rows in use (NaN when one is NaN, as numpy's minimum has it;
        +inf without rows): the world's kill-height test each tick, in one compiled call
        (a numpy reduction cost several microseconds there)."""
        return _lowest_z(self.pos, self.n)


class VehicleTable(Table):
    """Every vehicle: its control (float32, as logged), physics parameters, drivetrain state."""

    COLUMNS: ClassVar[Columns] = {
        "actor": (np.int32, (), -1),
        # control as the client sent it (float32) and as the physics reads it
        "throttle": (np.float32, (), 0.0),
        "steer": (np.float32, (), 0.0),
        "brake": (np.float32, (), 0.0),
        "hand_brake": (np.bool_, (), False),
        "reverse": (np.bool_, (), False),
        "manual_gear_shift": (np.bool_, (), False),
        "control_gear": (np.int32, (), 0),
        # Ackermann control (when active it replaces throttle/brake/steer)
        "ackermann": (np.bool_, (), False),
        "ack_steer": (np.float32, (), 0.0),  # rad
        "ack_speed": (np.float32, (), 0.0),  # m/s
        "ack_accel": (np.float32, (), 0.0),  # m/s²
        # physics parameters (from VehiclePhysicsControl), SI units
        "max_rpm": (np.float64, (), 5000.0),
        "moi": (np.float64, (), 1.0),
        "damp_full": (np.float64, (), 0.15),
        "damp_engaged": (np.float64, (), 2.0),
        "damp_disengaged": (np.float64, (), 0.35),
        "clutch": (np.float64, (), 10.0),  # clutch strength, N·m·s/rad
        "autobox": (np.bool_, (), True),
        "switch_time": (np.float64, (), 0.5),
        "final_ratio": (np.float64, (), 4.0),
        "drag": (np.float64, (), 0.3),
        "area": (np.float64, (), 2.2),  # frontal area m²
        "wheelbase": (np.float64, (), 2.8),
        "cg_front": (np.float64, (), 1.4),  # CG to front axle
        "max_steer": (np.float64, (), 1.2217),  # front wheel angle at steer 1, rad
        "wheel_radius": (np.float64, (), 0.3),
        "brake_torque": (np.float64, (), 6000.0),  # sum over wheels, N·m
        "handbrake_torque": (np.float64, (), 6000.0),
        "friction": (np.float64, (), 2.0),
        "lat_stiff": (np.float64, (), 17.0),  # cornering stiffness per unit of axle load, 1/rad
        "torque_rpm": (np.float64, (CURVE_POINTS,), 0.0),  # torque curve, padded with its last
        "torque_nm": (np.float64, (CURVE_POINTS,), 0.0),
        "gear_ratio": (np.float64, (CURVE_POINTS,), 1.0),  # forward gears, padded
        "gear_up": (np.float64, (CURVE_POINTS,), 1e9),
        "gear_down": (np.float64, (CURVE_POINTS,), 0.0),
        "n_gears": (np.int32, (), 1),
        "steer_kmh": (np.float64, (CURVE_POINTS,), 0.0),  # steering curve: km/h -> factor
        "steer_factor": (np.float64, (CURVE_POINTS,), 1.0),
        # inputs as the vehicle applies them: the controls after UE4's input rise/fall rates
        "in_throttle": (np.float64, (), 0.0),
        "in_brake": (np.float64, (), 0.0),
        "in_steer": (np.float64, (), 0.0),
        # drivetrain state
        "gear": (np.int32, (), 0),  # current gear: -1 reverse, 0 neutral (or shifting), 1..
        "target_gear": (np.int32, (), 0),
        "shift_timer": (np.float64, (), 0.0),
        "since_shift": (np.float64, (), 1e9),  # s since the last gear change ended
        "rpm": (np.float64, (), 0.0),  # engine speed
        "wheel_spin": (np.float64, (), 0.0),  # wheel rotation angle, rad
        "steer_angle": (np.float64, (), 0.0),  # front wheel angle, rad (+ = right)
        # the body's pitch on its suspension (world.physics.body_pitch): its response (degrees
        # per m/s² of longitudinal acceleration, natural frequency rad/s, damping ratio, the
        # travel's limit in degrees), its state (degrees, deg/s) and the road pitch the
        # dynamics left under it (degrees; the reported pitch is the sum)
        "pitch_gain": (np.float64, (), 0.0),
        "pitch_frequency": (np.float64, (), 10.0),
        "pitch_damping": (np.float64, (), 1.0),
        "pitch_limit": (np.float64, (), 0.0),
        "body_pitch": (np.float64, (), 0.0),
        "body_pitch_rate": (np.float64, (), 0.0),
        "road_pitch": (np.float64, (), 0.0),
        # signals, lights and doors (the traffic system fills the signal fields)
        "speed_limit": (np.float64, (), 30.0),  # km/h
        "tl_state": (np.int8, (), 2),  # TrafficLightState, Green when none
        "tl_actor": (np.int32, (), -1),  # row of the affecting traffic light
        "sign_boxes": (np.int8, (), 0),  # stop and yield signs' effect boxes it overlaps
        "lights": (np.uint32, (), 0),
        "doors": (np.uint8, (), 0),  # bit k: VehicleDoor k is open
    }


class WalkerTable(Table):
    """Every walker: its control (float32) and whether it is on the ground."""

    COLUMNS: ClassVar[Columns] = {
        "actor": (np.int32, (), -1),
        "direction": (np.float32, (3,), 0.0),
        "speed": (np.float32, (), 0.0),
        "jump": (np.bool_, (), False),
        "on_ground": (np.bool_, (), False),
        "bones": (np.int32, (), 0),  # bones posed by set_bones (their transforms: ActorInfo)
    }


class StateTables(NamedTuple):
    """A world's three tables, for readers such as the recorder (read them, never write)."""

    actors: ActorTable
    vehicles: VehicleTable
    walkers: WalkerTable


@njit(cache=True)
def _lowest_z(pos: np.ndarray, n: int) -> float:
    """np.minimum.reduce(pos[:n, 2]) for n > 0 (the first NaN wins), +inf for n = 0."""
    low = np.inf
    for r in range(n):
        z = pos[r, 2]
        if z != z:
            return z
        if z < low:
            low = z
    return low
