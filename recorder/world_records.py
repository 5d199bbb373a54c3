"""The per-tick records of a frame, packed straight from the world's struct-of-arrays tables.

Rows come in actor id order, as `ACarlaRecorder::Ticking` visits the registry: Position for
every plain actor, vehicle and walker; AnimVehicle and VehicleLight for vehicles;
AnimWalker for walkers; Kinematics (additional data) for vehicles and walkers together;
State for the traffic lights. `TickPacker` packs them with compiled passes
(recorder.tick_packing) into reused arrays and hands back packet bodies: no Python loop
runs over the actors.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from recorder.packet_ids import PacketId

__all__ = [
    "KIND_OTHER",
    "KIND_SENSOR",
    "KIND_TRAFFIC_LIGHT",
    "KIND_TRAFFIC_SIGN",
    "KIND_VEHICLE",
    "KIND_WALKER",
    "TickPacker",
]

# CARLA's FCarlaActor::ActorType, the kind the log's EventAdd carries (the world's `kind`).
KIND_OTHER, KIND_VEHICLE, KIND_WALKER = 0, 1, 2
KIND_TRAFFIC_LIGHT, KIND_TRAFFIC_SIGN, KIND_SENSOR = 3, 4, 5

_U16 = struct.Struct("<H")


def _rows(actors: Any, lowest: int, highest: int) -> np.ndarray:
    """Rows of live actors whose kind is in [lowest, highest]."""
    n = actors.n
    kind = actors.kind[:n]
    return np.flatnonzero(actors.alive[:n] & (kind >= lowest) & (kind <= highest))


class TickPacker:
    """The bodies of a tick's Position, Kinematics, AnimVehicle, VehicleLight, AnimWalker,
    State and (for walkers without posed bones) WalkerBones packets."""

    def __init__(self) -> None:
        from recorder import tick_packing  # numba: compiled when a recorder starts

        self._kernels = tick_packing
        self._buffers = tick_packing.TickBuffers()

    def pack(
        self, actors: Any, vehicles: Any, walkers: Any, lights: Any, additional: bool
    ) -> tuple[dict, bool]:
        """PacketId -> body bytes (a uint16 count, then the packed records), and whether a
        walker has bones posed (then WalkerBones is left to the caller)."""
        k, b = self._kernels, self._buffers
        b.fit(max(actors.n, vehicles.n, walkers.n, 0 if lights is None else len(lights.ids)))
        n_pos, n_kin = k.pack_actor_rows(
            actors.alive,
            actors.kind,
            actors.pos,
            actors.rot,
            actors.vel,
            actors.angvel,
            actors.n,
            additional,
            b.pos_u,
            b.pos_f,
            b.kin_u,
            b.kin_f,
        )
        n_walk, posed = k.pack_walkers(
            actors.alive,
            walkers.actor,
            walkers.speed,
            walkers.bones,
            walkers.n,
            b.walk_u,
            b.walk_f,
            b.bare_bones,
        )
        n_veh = k.pack_vehicles(
            actors.alive,
            vehicles.actor,
            vehicles.steer,
            vehicles.throttle,
            vehicles.brake,
            vehicles.hand_brake,
            vehicles.gear,
            vehicles.lights,
            vehicles.n,
            b.anim,
            b.light_u,
        )
        n_states = 0
        if lights is not None:
            n_states = k.pack_states(
                lights.ids, lights.frozen, lights.elapsed, lights.state, b.states
            )
        out = {
            PacketId.Position: _U16.pack(n_pos) + b.pos_u[:n_pos].tobytes(),
            PacketId.State: _U16.pack(n_states) + b.states[:n_states].tobytes(),
            PacketId.AnimVehicle: _U16.pack(n_veh) + b.anim[:n_veh].tobytes(),
            PacketId.AnimWalker: _U16.pack(n_walk) + b.walk_u[:n_walk].tobytes(),
            PacketId.VehicleLight: _U16.pack(n_veh) + b.light_u[:n_veh].tobytes(),
        }
        if additional:
            out[PacketId.Kinematics] = _U16.pack(n_kin) + b.kin_u[:n_kin].tobytes()
            if not posed:
                out[PacketId.WalkerBones] = _U16.pack(n_walk) + b.bare_bones[:n_walk].tobytes()
        return out, posed
