"""The per-tick records of a frame, packed straight from the world's struct-of-arrays tables.

Each function takes the tables (`World.state_tables()`) and returns a numpy structured
array of the packet's record dtype, rows in actor id order, as `ACarlaRecorder::Ticking`
visits the registry: Position for every plain actor, vehicle and walker; AnimVehicle and
VehicleLight for vehicles; AnimWalker for walkers; Kinematics (additional data) for
vehicles and walkers together. No Python loop runs over the actors: a tick of 150 actors
is a few dozen numpy calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from recorder.packet_ids import PacketId
from recorder.packets import DTYPES
from recorder.rotation import recorder_rotation

__all__ = [
    "KIND_OTHER",
    "KIND_SENSOR",
    "KIND_TRAFFIC_LIGHT",
    "KIND_TRAFFIC_SIGN",
    "KIND_VEHICLE",
    "KIND_WALKER",
    "anim_vehicle_records",
    "anim_walker_records",
    "kinematics_records",
    "position_records",
    "state_records",
    "vehicle_light_records",
]

# CARLA's FCarlaActor::ActorType, the kind the log's EventAdd carries (the world's `kind`).
KIND_OTHER, KIND_VEHICLE, KIND_WALKER = 0, 1, 2
KIND_TRAFFIC_LIGHT, KIND_TRAFFIC_SIGN, KIND_SENSOR = 3, 4, 5

_CM = np.float32(100.0)


def _rows(actors: Any, kinds: tuple[int, ...]) -> np.ndarray:
    n = actors.n
    return np.flatnonzero(actors.alive[:n] & np.isin(actors.kind[:n], kinds))


def position_records(actors: Any) -> np.ndarray:
    """Position: every live plain actor, vehicle and walker; location in cm, rotation as
    CARLA stores it (roll, pitch, yaw)."""
    rows = _rows(actors, (KIND_OTHER, KIND_VEHICLE, KIND_WALKER))
    out = np.empty(len(rows), DTYPES[PacketId.Position])
    out["id"] = rows + 1
    out["location"] = actors.pos[rows] * 100.0
    out["rotation"] = recorder_rotation(actors.rot[rows])
    return out


def _live_vehicle_rows(actors: Any, vehicles: Any) -> np.ndarray:
    """Vehicle-table rows of live vehicles (vehicle rows are made in actor id order)."""
    owner = vehicles.actor[: vehicles.n]
    return np.flatnonzero(actors.alive[owner])


def _live_walker_rows(actors: Any, walkers: Any) -> np.ndarray:
    owner = walkers.actor[: walkers.n]
    return np.flatnonzero(actors.alive[owner])


def anim_vehicle_records(actors: Any, vehicles: Any) -> np.ndarray:
    """AnimVehicle: each vehicle's control as applied (float32) and the gear it is in."""
    k = _live_vehicle_rows(actors, vehicles)
    out = np.empty(len(k), DTYPES[PacketId.AnimVehicle])
    out["id"] = vehicles.actor[k] + 1
    out["steering"] = vehicles.steer[k]
    out["throttle"] = vehicles.throttle[k]
    out["brake"] = vehicles.brake[k]
    out["handbrake"] = vehicles.hand_brake[k]
    out["gear"] = vehicles.gear[k]
    return out


def vehicle_light_records(actors: Any, vehicles: Any) -> np.ndarray:
    """VehicleLight: each vehicle's light flags."""
    k = _live_vehicle_rows(actors, vehicles)
    out = np.empty(len(k), DTYPES[PacketId.VehicleLight])
    out["id"] = vehicles.actor[k] + 1
    out["state"] = vehicles.lights[k]
    return out


def anim_walker_records(actors: Any, walkers: Any) -> np.ndarray:
    """AnimWalker: each walker's control speed in cm/s (CARLA's `1e2f * speed`, in float)."""
    k = _live_walker_rows(actors, walkers)
    out = np.empty(len(k), DTYPES[PacketId.AnimWalker])
    out["id"] = walkers.actor[k] + 1
    out["speed"] = _CM * walkers.speed[k].astype(np.float32)
    return out


def kinematics_records(actors: Any) -> np.ndarray:
    """Kinematics: velocity (m/s) and angular velocity (deg/s) of every vehicle and walker."""
    rows = _rows(actors, (KIND_VEHICLE, KIND_WALKER))
    out = np.empty(len(rows), DTYPES[PacketId.Kinematics])
    out["id"] = rows + 1
    out["linear_velocity"] = actors.vel[rows]
    out["angular_velocity"] = actors.angvel[rows]
    return out


def state_records(table: Any) -> np.ndarray:
    """State: each traffic light's group freeze, controller elapsed time and state, from the
    world's light table (`world.traffic.signals.install.traffic_light_table`)."""
    out = np.empty(len(table.ids), DTYPES[PacketId.State])
    out["id"] = table.ids
    out["frozen"] = table.frozen
    out["elapsed"] = table.elapsed
    out["state"] = table.state
    return out
