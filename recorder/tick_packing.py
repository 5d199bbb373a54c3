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

`pack_frame` runs those passes and lays the whole frame out in one byte buffer: the
packets from VisualTime to WalkerBones in `ACarlaRecorder::Write`'s order, the per-actor
ones from the staging arrays, the event packets as blocks the caller packed (usually a
constant: the frame has no event). The buffer's first bytes are left for FrameStart and
some after the body for FrameEnd, which the log writer fills in before its one write.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from recorder.packet_ids import PacketId
from recorder.packets import DTYPES
from recorder.writer import FRAME_START_SIZE  # the frame's body starts after it

__all__ = [
    "TickBuffers",
    "pack_actor_rows",
    "pack_frame",
    "pack_states",
    "pack_vehicles",
    "pack_walkers",
]

_VISUAL_TIME = int(PacketId.VisualTime)
_POSITION = int(PacketId.Position)
_STATE = int(PacketId.State)
_ANIM_VEHICLE = int(PacketId.AnimVehicle)
_ANIM_WALKER = int(PacketId.AnimWalker)
_VEHICLE_LIGHT = int(PacketId.VehicleLight)
_KINEMATICS = int(PacketId.Kinematics)
_PLATFORM_TIME = int(PacketId.PlatformTime)
_WALKER_BONES = int(PacketId.WalkerBones)


@njit(cache=True)
def _degrees(angle: float) -> float:
    if angle > -180.0 and angle <= 180.0:  # in range: fmod and both wraps leave it as is
        return angle
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
def pack_states(ids, frozen, controller, controller_elapsed, state, out):
    """State records of the traffic lights, from the world's light arrays (each light's
    elapsed time is its controller's)."""
    for i in range(len(ids)):
        out[i]["id"] = ids[i]
        out[i]["frozen"] = frozen
        out[i]["elapsed"] = controller_elapsed[controller[i]]
        out[i]["state"] = state[i]
    return len(ids)


@intrinsic
def _memcpy(typingctx, dst, at, src, count):
    """`count` bytes of the uint8 array `src` into the uint8 array `dst` from index `at`, as
    one C memcpy (numba's slice assignment copies byte by byte); bounds are the caller's."""
    sig = types.void(dst, types.intp, src, types.intp)

    def codegen(context, builder, signature, args):
        dst_array = context.make_array(signature.args[0])(context, builder, args[0])
        src_array = context.make_array(signature.args[2])(context, builder, args[2])
        start = builder.gep(dst_array.data, [args[1]])
        cgutils.raw_memcpy(builder, start, src_array.data, args[3], 1)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True)
def _copy(buf, at, src, count):
    """`src[:count]` into `buf[at:]`, checked; returns the end."""
    if at < 0 or count < 0 or at + count > len(buf) or count > len(src):
        raise IndexError("frame buffer overrun")
    _memcpy(buf, at, src, count)
    return at + count


@njit(cache=True)
def _head(buf, at, packet_id, size):
    """A packet's id byte and uint32 size (little-endian) at `at`; returns the body's start."""
    buf[at] = packet_id
    for k in range(4):
        buf[at + 1 + k] = (size >> (8 * k)) & 0xFF
    return at + 5


@njit(cache=True)
def _counted(buf, at, packet_id, count, rows, record_size):
    """A packet of `count` fixed-size records: head, uint16 count, the rows' bytes."""
    size = count * record_size
    at = _head(buf, at, packet_id, 2 + size)
    buf[at] = count & 0xFF
    buf[at + 1] = count >> 8
    return _copy(buf, at + 2, rows, size)


@njit(cache=True)
def _bytes(rows):
    """The bytes of a C-ordered 2-D staging array, row after row."""
    return rows.reshape(-1).view(np.uint8)


@njit(cache=True)
def _block(buf, at, block):
    """Packets already laid out, copied in."""
    return _copy(buf, at, block, len(block))


@njit(cache=True)
def _time(buf, at, packet_id, times, k):
    """A packet holding the k-th float64 of `times` (its bytes)."""
    at = _head(buf, at, packet_id, 8)
    return _copy(buf, at, times[8 * k :], 8)


@njit(cache=True)
def pack_frame(
    buf,
    visual_time,
    platform_time,
    events,
    extra,
    boxes,
    controls,
    additional,
    alive,
    kind,
    pos,
    rot,
    vel,
    angvel,
    n,
    walker_owner,
    walker_speed,
    walker_bones,
    walkers,
    vehicle_owner,
    steer,
    throttle,
    brake,
    hand_brake,
    gear,
    vehicle_lights,
    vehicles,
    light_ids,
    light_frozen,
    light_controller,
    controller_elapsed,
    light_state,
    pos_u,
    kin_u,
    walk_u,
    bare,
    anim,
    light_u,
    states,
):
    """The frame's packets from VisualTime to WalkerBones into `buf` from FRAME_START_SIZE.

    `events` (EventAdd to VehicleDoor), `extra` (SceneLight to Weather), `boxes`
    (BoundingBox, TriggerVolume) and `controls` (PhysicsControl, TrafficLightTime) are
    packets laid out by the caller; the records are staged in TickBuffers' arrays (uint32
    rows, or the packets' record dtypes) and copied in as bytes. Returns the
    body's end, where WalkerBones starts (additional data) and whether a live walker has
    bones posed (then the caller writes WalkerBones over the bare one from there), and the
    largest record count (a packet holds at most 65535)."""
    pos_f, kin_f, walk_f = pos_u.view(np.float32), kin_u.view(np.float32), walk_u.view(np.float32)
    n_pos, n_kin = pack_actor_rows(
        alive, kind, pos, rot, vel, angvel, n, additional, pos_u, pos_f, kin_u, kin_f
    )
    n_walk, posed = pack_walkers(
        alive, walker_owner, walker_speed, walker_bones, walkers, walk_u, walk_f, bare
    )
    n_veh = pack_vehicles(
        alive,
        vehicle_owner,
        steer,
        throttle,
        brake,
        hand_brake,
        gear,
        vehicle_lights,
        vehicles,
        anim,
        light_u,
    )
    n_states = pack_states(
        light_ids, light_frozen, light_controller, controller_elapsed, light_state, states
    )
    times = np.empty(2, np.float64)
    times[0] = visual_time
    times[1] = platform_time
    times = times.view(np.uint8)
    at = _time(buf, FRAME_START_SIZE, _VISUAL_TIME, times, 0)
    at = _block(buf, at, events)
    at = _counted(buf, at, _POSITION, n_pos, _bytes(pos_u), 4 * pos_u.shape[1])
    at = _counted(buf, at, _STATE, n_states, states.view(np.uint8), states.itemsize)
    at = _counted(buf, at, _ANIM_VEHICLE, n_veh, anim.view(np.uint8), anim.itemsize)
    at = _counted(buf, at, _ANIM_WALKER, n_walk, _bytes(walk_u), 4 * walk_u.shape[1])
    at = _counted(buf, at, _VEHICLE_LIGHT, n_veh, _bytes(light_u), 4 * light_u.shape[1])
    at = _block(buf, at, extra)
    bones_at = at
    if additional:
        if n_kin > 0:
            at = _counted(buf, at, _KINEMATICS, n_kin, _bytes(kin_u), 4 * kin_u.shape[1])
        at = _block(buf, at, boxes)
        at = _time(buf, at, _PLATFORM_TIME, times, 1)
        at = _block(buf, at, controls)
        bones_at = at
        at = _counted(buf, at, _WALKER_BONES, n_walk, _bytes(bare), 2 * bare.shape[1])
    return at, bones_at, posed, max(n_pos, n_kin, n_walk, n_veh, n_states)


class TickBuffers:
    """Reused staging arrays (uint32 rows with float32 views, the record dtypes), grown as
    the world grows; `staging` is what pack_frame takes."""

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
        self.staging = (
            self.pos_u,
            self.kin_u,
            self.walk_u,
            self.bare_bones,
            self.anim,
            self.light_u,
            self.states,
        )

    def fit(self, rows: int) -> None:
        if rows > self.capacity:
            self._grow(max(rows, 2 * self.capacity))
