"""The compiled passes that pack a tick's per-actor records from the world's tables.

One loop over the actor rows writes the Position records (every live plain actor, vehicle
and walker) and, with additional data, the Kinematics records (vehicles and walkers), in
actor id order, straight into arrays laid out as the packed records (id, then six
float32s; 28 bytes). A loop over the walkers writes AnimWalker (id, speed in cm/s) and the
WalkerBones of walkers with no bones posed; one over the vehicles AnimVehicle and
VehicleLight; one over the lights State. Rotations are brought into CARLA's stored form
with the same IEEE operations as `recorder.rotation.recorder_rotation` (fmod, add,
compare), so both give the same bits. Compiled with numba (no fastmath), cached on disk
like the world's kernels; imported only when a Recorder starts, so `import recorder`
compiles nothing.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from recorder.packet_ids import PacketId
from recorder.packets import DTYPES

__all__ = ["TickBuffers", "pack_actor_rows", "pack_states", "pack_vehicles", "pack_walkers"]


@njit(cache=True)
def _degrees(angle: float) -> float:
    out = np.fmod(angle, 360.0)  # exact, as C fmod
    if out > 180.0:
        out -= 360.0
    if out <= -180.0:
        out += 360.0
    return out


@njit(cache=True)
def pack_actor_rows(alive, kind, pos, rot, vel, angvel, n, kinematics, pos_u, pos_f, kin_u, kin_f):
    """Fills Position (and Kinematics when `kinematics`) rows; returns both counts."""
    count_pos = 0
    count_kin = 0
    for r in range(n):
        if not alive[r]:
            continue
        k = kind[r]
        if k < 0 or k > 2:
            continue
        pos_u[count_pos, 0] = r + 1
        pos_f[count_pos, 1] = pos[r, 0] * 100.0
        pos_f[count_pos, 2] = pos[r, 1] * 100.0
        pos_f[count_pos, 3] = pos[r, 2] * 100.0
        pitch = _degrees(rot[r, 0])
        yaw = _degrees(rot[r, 1])
        roll = _degrees(rot[r, 2])
        if abs(pitch) > 90.0:
            pitch = math.copysign(180.0, pitch) - pitch
            yaw = _degrees(yaw + 180.0)
            roll = _degrees(roll + 180.0)
        pos_f[count_pos, 4] = roll
        pos_f[count_pos, 5] = pitch
        pos_f[count_pos, 6] = yaw
        # an angle just above -180 rounds to -180 in float32: the range's other end
        for column in (4, 6):
            if pos_f[count_pos, column] == -180.0:
                pos_f[count_pos, column] = 180.0
        count_pos += 1
        if kinematics and k > 0:
            kin_u[count_kin, 0] = r + 1
            for axis in range(3):
                kin_f[count_kin, 1 + axis] = vel[r, axis]
                kin_f[count_kin, 4 + axis] = angvel[r, axis]
            count_kin += 1
    return count_pos, count_kin


@njit(cache=True)
def pack_walkers(alive, owner, speed, bones, n, out_u, out_f, bare):
    """AnimWalker rows (id, `1e2f * speed` in float32) and bare WalkerBones rows (id, no
    bones; uint16 words); returns the count and whether any live walker has bones posed."""
    count = 0
    posed = False
    for i in range(n):
        row = owner[i]
        if not alive[row]:
            continue
        out_u[count, 0] = row + 1
        out_f[count, 1] = np.float32(100.0) * speed[i]
        bare[count, 0] = (row + 1) & 0xFFFF
        bare[count, 1] = (row + 1) >> 16
        bare[count, 2] = 0
        posed = posed or bones[i] > 0
        count += 1
    return count, posed


@njit(cache=True)
def pack_vehicles(alive, owner, steer, throttle, brake, hand_brake, gear, lights, n, anim, light_u):
    """AnimVehicle records (control as applied, the gear it is in) and VehicleLight rows
    (id, flags); returns the count."""
    count = 0
    for i in range(n):
        row = owner[i]
        if not alive[row]:
            continue
        anim[count]["id"] = row + 1
        anim[count]["steering"] = steer[i]
        anim[count]["throttle"] = throttle[i]
        anim[count]["brake"] = brake[i]
        anim[count]["handbrake"] = hand_brake[i]
        anim[count]["gear"] = gear[i]
        light_u[count, 0] = row + 1
        light_u[count, 1] = lights[i]
        count += 1
    return count


@njit(cache=True)
def pack_states(ids, frozen, elapsed, state, out):
    """State records of the traffic lights, from the world's light table."""
    for i in range(len(ids)):
        out[i]["id"] = ids[i]
        out[i]["frozen"] = frozen[i]
        out[i]["elapsed"] = elapsed[i]
        out[i]["state"] = state[i]
    return len(ids)


class TickBuffers:
    """Reused output arrays (uint32 rows and their float32 view), grown as the world grows."""

    def __init__(self) -> None:
        self.capacity = 0
        self._grow(64)

    def _grow(self, capacity: int) -> None:
        self.capacity = capacity
        self.pos_u = np.zeros((capacity, 7), np.uint32)
        self.kin_u = np.zeros((capacity, 7), np.uint32)
        self.walk_u = np.zeros((capacity, 2), np.uint32)
        self.light_u = np.zeros((capacity, 2), np.uint32)
        self.bare_bones = np.zeros((capacity, 3), np.uint16)
        self.anim = np.zeros(capacity, DTYPES[PacketId.AnimVehicle])
        self.states = np.zeros(capacity, DTYPES[PacketId.State])
        self.pos_f = self.pos_u.view(np.float32)
        self.kin_f = self.kin_u.view(np.float32)
        self.walk_f = self.walk_u.view(np.float32)

    def fit(self, rows: int) -> None:
        if rows > self.capacity:
            self._grow(max(rows, 2 * self.capacity))
