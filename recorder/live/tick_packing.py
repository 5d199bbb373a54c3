"""The compiled pass that lays a tick's frame out from the world's tables, in one call.

`pack_frame` first compares the world with the last frame recorded (the number of actor
rows, who is alive, every vehicle's doors): when anything changed it returns at once and
the recorder finds the events in Python, then packs again. Otherwise, or then, it writes
the frame's packets from VisualTime to WalkerBones in `ACarlaRecorder::Write`'s order
straight into the log writer's frame buffer, each record at its place: Position (every
live plain actor, vehicle and walker, in actor id order), State (the traffic lights),
AnimVehicle, AnimWalker, VehicleLight and, with additional data, Kinematics (vehicles and
walkers), PlatformTime and the WalkerBones of walkers with no bones posed; the event
packets come as one block the caller laid out (a constant when the frame has no event).
Then, to a file of the writer's own, it does the writer's part too: FrameStart and
FrameEnd around the body, this frame's delta into the last frame's duration (the last
frame lies right before it in the buffer) and the one write of both from that duration
on, advancing the writer's state (`LogWriter.stream`). Otherwise the writer writes the
frame (LogWriter.write_frame_in).

The kernel reads the world's columns through a table of their addresses (`columns`, built
by recorder.live.records.FramePacker, which keeps a reference to every column and takes
them again when a table grows): handed over as arrays, the two dozen columns cost more to
pass to a compiled call than the packing itself. The table also holds the last frame's
alive flags and doors (the recorder's own copies, brought up to date by every frame
packed) and counts.

Rotations are brought into CARLA's stored form with the same IEEE operations as
`recorder.logfile.rotation.recorder_rotation` (fmod, add, compare), so both give the same bits.
The records are packed little-endian, unaligned, as the log holds them: the stores are
the machine's own, so this module refuses a big-endian machine. Compiled like the world's
kernels (world.kernels.compiled, no fastmath); imported only when a Recorder starts, so
`import recorder` compiles nothing.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.animation import ANIM_VEHICLE, ANIM_WALKER
from recorder.logfile.packets.base import U16
from recorder.logfile.packets.frame import FRAME_START, TIME
from recorder.logfile.packets.kinematics import KINEMATICS
from recorder.logfile.packets.lights import VEHICLE_LIGHT
from recorder.logfile.packets.position import POSITION
from recorder.logfile.packets.state import STATE
from recorder.logfile.packets.walker_bones import RECORD_HEAD_SIZE
from recorder.logfile.writer import (
    DURATION_AT,
    FRAME_END_SIZE,
    FRAME_START_SIZE,
    PACKET_HEAD_SIZE,
    STREAM_SLOTS,
)
from world.kernels.compiled import from_numba, njit, running_ahead_of_time

__all__ = [
    "CHANGED",
    "COLUMNS",
    "LAID_OUT",
    "NO_ROOM",
    "POSED",
    "SLOTS",
    "TOO_MANY",
    "WRITTEN",
    "compiled_pack_frame",
    "pack_frame",
]

if sys.byteorder != "little":  # the log is little-endian and the stores are native
    raise ImportError("recorder.live.tick_packing packs records on little-endian machines only")

# numba's own pieces the kernels call (recorder.live.packing_intrinsics)
_store, _address, _memcpy, _pwrite, carray = from_numba(
    "recorder.live.packing_intrinsics", "store", "address", "memcpy", "pwrite", "carray"
)

# pack_frame's answer (the first of the three values it returns)
WRITTEN = 0  # the frame is in the log (handed to the OS) and the writer's stream advanced
LAID_OUT = 1  # the body is laid out up to the second value: the writer writes the frame
POSED = 2  # as LAID_OUT, and a walker has bones posed: WalkerBones goes at the third value
CHANGED = -1  # the world changed since the last frame: find the events, then pack again
NO_ROOM = -2  # the buffer lacks room after `at`: the second value is the bytes needed
TOO_MANY = -3  # a packet would hold more than 65535 records: the second value is how many

# the writer's state (LogWriter.stream), by slot
_STREAM_FD = STREAM_SLOTS.index("fd")
_STREAM_FRAME_ID = STREAM_SLOTS.index("frame_id")
_STREAM_FRAMES_WRITTEN = STREAM_SLOTS.index("frames_written")
_STREAM_POSITION = STREAM_SLOTS.index("position")
_STREAM_PREVIOUS_DURATION_AT = STREAM_SLOTS.index("previous_duration_at")
_STREAM_LAST_AT = STREAM_SLOTS.index("last_at")
_STREAM_FRAME_AT = STREAM_SLOTS.index("frame_at")
_STREAM_ELAPSED = STREAM_SLOTS.index("elapsed")

# The world's columns pack_frame reads: (table, column, dtype, row shape), in their order
# in the address table; then the recorder's own arrays and counts.
COLUMNS = (
    ("actors", "alive", np.bool_, ()),
    ("actors", "kind", np.int8, ()),
    ("actors", "pos", np.float64, (3,)),
    ("actors", "rot", np.float64, (3,)),
    ("actors", "vel", np.float64, (3,)),
    ("actors", "angvel", np.float64, (3,)),
    ("walkers", "actor", np.int32, ()),
    ("walkers", "speed", np.float32, ()),
    ("walkers", "bones", np.int32, ()),
    ("vehicles", "actor", np.int32, ()),
    ("vehicles", "steer", np.float32, ()),
    ("vehicles", "throttle", np.float32, ()),
    ("vehicles", "brake", np.float32, ()),
    ("vehicles", "hand_brake", np.bool_, ()),
    ("vehicles", "gear", np.int32, ()),
    ("vehicles", "lights", np.uint32, ()),
    ("vehicles", "doors", np.uint8, ()),
    ("lights", "ids", np.int64, ()),
    ("lights", "controller", np.int64, ()),
    ("lights", "controller_elapsed", np.float32, ()),
    ("lights", "state", np.int8, ()),
)
(
    _ALIVE,
    _KIND,
    _POS,
    _ROT,
    _VEL,
    _ANGVEL,
    _WALKER_OWNER,
    _WALKER_SPEED,
    _WALKER_BONES_POSED,
    _VEHICLE_OWNER,
    _STEER,
    _THROTTLE,
    _BRAKE,
    _HAND_BRAKE,
    _GEAR,
    _VEHICLE_LIGHTS,
    _DOORS,
    _LIGHT_IDS,
    _LIGHT_CONTROLLER,
    _CONTROLLER_ELAPSED,
    _LIGHT_STATE,
) = range(len(COLUMNS))
# after the columns: the recorder's copies of the last frame's alive flags and doors (their
# addresses and lengths), the actor rows and vehicles it had, the lights and controllers
SLOTS = (
    "last_alive",
    "last_alive_length",
    "last_doors",
    "last_doors_length",
    "seen",
    "seen_vehicles",
    "lights",
    "controllers",
)
(
    _LAST_ALIVE,
    _LAST_ALIVE_LENGTH,
    _LAST_DOORS,
    _LAST_DOORS_LENGTH,
    _SEEN,
    _SEEN_VEHICLES,
    _LIGHTS,
    _CONTROLLERS,
) = range(len(COLUMNS), len(COLUMNS) + len(SLOTS))

_FRAME_START = int(PacketId.FrameStart)
_FRAME_END = int(PacketId.FrameEnd)
_VISUAL_TIME = int(PacketId.VisualTime)
_POSITION = int(PacketId.Position)
_STATE = int(PacketId.State)
_ANIM_VEHICLE = int(PacketId.AnimVehicle)
_ANIM_WALKER = int(PacketId.AnimWalker)
_VEHICLE_LIGHT = int(PacketId.VehicleLight)
_KINEMATICS = int(PacketId.Kinematics)
_PLATFORM_TIME = int(PacketId.PlatformTime)
_WALKER_BONES = int(PacketId.WalkerBones)

# The records' sizes and their fields' places, from the packets' own layouts (numba takes
# these module constants into the kernels as literals).
_HEAD = PACKET_HEAD_SIZE  # a packet's id byte and uint32 size
_COUNTED = _HEAD + U16.size  # and a uint16 record count
_TIME_PACKET = _HEAD + TIME.size  # VisualTime and PlatformTime: the head and a float64
_FLOAT = 4  # a float32 of a vector field
_ROW = POSITION.size
_AT_LOCATION = POSITION.offsets["location"]
_AT_ROTATION = POSITION.offsets["rotation"]
_KINEMATICS_ROW = KINEMATICS.size
_AT_VELOCITY = KINEMATICS.offsets["linear_velocity"]
_AT_ANGULAR_VELOCITY = KINEMATICS.offsets["angular_velocity"]
_STATE_ROW = STATE.size
_AT_FROZEN = STATE.offsets["frozen"]
_AT_ELAPSED = STATE.offsets["elapsed"]
_AT_STATE = STATE.offsets["state"]
_ANIM_VEHICLE_ROW = ANIM_VEHICLE.size
_AT_STEERING = ANIM_VEHICLE.offsets["steering"]
_AT_THROTTLE = ANIM_VEHICLE.offsets["throttle"]
_AT_BRAKE = ANIM_VEHICLE.offsets["brake"]
_AT_HANDBRAKE = ANIM_VEHICLE.offsets["handbrake"]
_AT_GEAR = ANIM_VEHICLE.offsets["gear"]
_ANIM_WALKER_ROW = ANIM_WALKER.size
_AT_SPEED = ANIM_WALKER.offsets["speed"]
_VEHICLE_LIGHT_ROW = VEHICLE_LIGHT.size
_AT_LIGHTS = VEHICLE_LIGHT.offsets["state"]
_BARE_BONES_ROW = RECORD_HEAD_SIZE  # WalkerBones of a walker with no bones: id, count 0
_AT_BONE_COUNT = _BARE_BONES_ROW - U16.size
_ELAPSED_AT = _HEAD + FRAME_START.offsets["elapsed"]  # a FrameStart's elapsed time
assert FRAME_START.offsets["id"] == 0  # the frame id right after the head
# every record starts with its actor's uint32 id
assert all(
    layout.offsets["id"] == 0 and layout.dtype["id"] == np.dtype("<u4")
    for layout in (POSITION, KINEMATICS, STATE, ANIM_VEHICLE, ANIM_WALKER, VEHICLE_LIGHT)
)
assert POSITION.dtype["location"].base == np.dtype("<f4")
# VisualTime and PlatformTime, the heads of the seven counted packets
_FIXED = 2 * _TIME_PACKET + 7 * _COUNTED


@njit(cache=True)
def _u8(buf, at, value):
    _store(buf, at, np.uint8(value))


@njit(cache=True)
def _u32(buf, at, value):
    _store(buf, at, np.uint32(value))


@njit(cache=True)
def _f32(buf, at, value):
    _store(buf, at, np.float32(value))


@njit(cache=True)
def _counted(buf, at, packet_id, count, row):
    """The head of a packet of `count` records of `row` bytes at `at`: id byte, uint32
    size, uint16 count."""
    _u8(buf, at, packet_id)
    _u32(buf, at + 1, _COUNTED - _HEAD + count * row)
    _store(buf, at + _HEAD, np.uint16(count))


@njit(cache=True)
def _time(buf, at, packet_id, seconds):
    """A packet holding one float64; returns its end."""
    _u8(buf, at, packet_id)
    _u32(buf, at + 1, _TIME_PACKET - _HEAD)
    _store(buf, at + _HEAD, np.float64(seconds))
    return at + _TIME_PACKET


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
def _end_angle(angle: float) -> np.float32:
    """An angle in float32: one just above -180 rounds to -180, the range's other end."""
    out = np.float32(angle)
    if out == np.float32(-180.0):
        return np.float32(180.0)
    return out


@njit(cache=True)
def _changed(columns, alive, n, doors, vehicles):
    """Whether actors came or went or doors moved since the last frame packed."""
    if n != columns[_SEEN] or vehicles != columns[_SEEN_VEHICLES]:
        return True
    last_alive = carray(_address(columns[_LAST_ALIVE]), n, np.bool_)
    for r in range(n):
        if alive[r] != last_alive[r]:
            return True
    last_doors = carray(_address(columns[_LAST_DOORS]), vehicles, np.uint8)
    for i in range(vehicles):  # noqa: SIM110 (a compiled loop)
        if doors[i] != last_doors[i]:
            return True
    return False


@njit(cache=True)
def _remember(columns, n, vehicles):
    """The world as this frame saw it (alive flags, doors), for the next frame's comparison."""
    if n > columns[_LAST_ALIVE_LENGTH] or vehicles > columns[_LAST_DOORS_LENGTH]:
        raise IndexError("the recorder's copies of the last frame are too short")
    last_alive = carray(_address(columns[_LAST_ALIVE]), n, np.uint8)
    _memcpy(last_alive, 0, carray(_address(columns[_ALIVE]), n, np.uint8), 0, n)
    last_doors = carray(_address(columns[_LAST_DOORS]), vehicles, np.uint8)
    _memcpy(last_doors, 0, carray(_address(columns[_DOORS]), vehicles, np.uint8), 0, vehicles)
    columns[_SEEN] = n
    columns[_SEEN_VEHICLES] = vehicles


@njit(cache=True)
def _positions(buf, at, alive, kind, pos, rot, n):
    """Position: every live plain actor, vehicle and walker (cm, roll-pitch-yaw as CARLA
    stores them); returns the packet's end."""
    p = at + _COUNTED
    count = 0
    for r in range(n):
        k = kind[r]
        if not alive[r] or k < 0 or k > 2:
            continue
        pitch = _degrees(rot[r, 0])
        yaw = _degrees(rot[r, 1])
        roll = _degrees(rot[r, 2])
        if abs(pitch) > 90.0:
            pitch = math.copysign(180.0, pitch) - pitch
            yaw = _degrees(yaw + 180.0)
            roll = _degrees(roll + 180.0)
        _u32(buf, p, r + 1)
        for axis in range(3):
            _f32(buf, p + _AT_LOCATION + _FLOAT * axis, pos[r, axis] * 100.0)
        _store(buf, p + _AT_ROTATION, _end_angle(roll))
        _f32(buf, p + _AT_ROTATION + _FLOAT, pitch)
        _store(buf, p + _AT_ROTATION + 2 * _FLOAT, _end_angle(yaw))
        p += _ROW
        count += 1
    _counted(buf, at, _POSITION, count, _ROW)
    return p


@njit(cache=True)
def _kinematics(buf, at, alive, kind, vel, angvel, n):
    """Kinematics of the live vehicles and walkers (m/s, deg/s), left out when there is
    none; returns the packet's end."""
    p = at + _COUNTED
    count = 0
    for r in range(n):
        k = kind[r]
        if not alive[r] or k < 1 or k > 2:
            continue
        _u32(buf, p, r + 1)
        for axis in range(3):
            _f32(buf, p + _AT_VELOCITY + _FLOAT * axis, vel[r, axis])
            _f32(buf, p + _AT_ANGULAR_VELOCITY + _FLOAT * axis, angvel[r, axis])
        p += _KINEMATICS_ROW
        count += 1
    if count == 0:
        return at
    _counted(buf, at, _KINEMATICS, count, _KINEMATICS_ROW)
    return p


@njit(cache=True)
def _states(buf, at, ids, frozen, controller, controller_elapsed, state):
    """State of every traffic light (its controller's elapsed time); returns the end."""
    p = at + _COUNTED
    for i in range(len(ids)):
        _u32(buf, p, ids[i])
        _u8(buf, p + _AT_FROZEN, frozen)
        _f32(buf, p + _AT_ELAPSED, controller_elapsed[controller[i]])
        _store(buf, p + _AT_STATE, np.int8(state[i]))
        p += _STATE_ROW
    _counted(buf, at, _STATE, len(ids), _STATE_ROW)
    return p


@njit(cache=True)
def _anim_vehicles(buf, at, alive, owner, steer, throttle, brake, hand_brake, gear, vehicles):
    """AnimVehicle of each live vehicle (the control as applied, the gear it is in)."""
    p = at + _COUNTED
    count = 0
    for i in range(vehicles):
        row = owner[i]
        if not alive[row]:
            continue
        _u32(buf, p, row + 1)
        _f32(buf, p + _AT_STEERING, steer[i])
        _f32(buf, p + _AT_THROTTLE, throttle[i])
        _f32(buf, p + _AT_BRAKE, brake[i])
        _u8(buf, p + _AT_HANDBRAKE, hand_brake[i])
        _store(buf, p + _AT_GEAR, np.int32(gear[i]))
        p += _ANIM_VEHICLE_ROW
        count += 1
    _counted(buf, at, _ANIM_VEHICLE, count, _ANIM_VEHICLE_ROW)
    return p


@njit(cache=True)
def _vehicle_lights(buf, at, alive, owner, lights, vehicles):
    """VehicleLight of each live vehicle (its light flags)."""
    p = at + _COUNTED
    count = 0
    for i in range(vehicles):
        row = owner[i]
        if not alive[row]:
            continue
        _u32(buf, p, row + 1)
        _u32(buf, p + _AT_LIGHTS, lights[i])
        p += _VEHICLE_LIGHT_ROW
        count += 1
    _counted(buf, at, _VEHICLE_LIGHT, count, _VEHICLE_LIGHT_ROW)
    return p


@njit(cache=True)
def _anim_walkers(buf, at, alive, owner, speed, walkers):
    """AnimWalker of each live walker (`1e2f * speed`, cm/s, in float32)."""
    p = at + _COUNTED
    count = 0
    for i in range(walkers):
        row = owner[i]
        if not alive[row]:
            continue
        _u32(buf, p, row + 1)
        _store(buf, p + _AT_SPEED, np.float32(100.0) * speed[i])
        p += _ANIM_WALKER_ROW
        count += 1
    _counted(buf, at, _ANIM_WALKER, count, _ANIM_WALKER_ROW)
    return p


@njit(cache=True)
def _bare_bones(buf, at, alive, owner, bones, walkers):
    """WalkerBones with each live walker's id and no bones; returns the end and whether
    some live walker has bones posed (then the caller writes the real packet)."""
    p = at + _COUNTED
    count = 0
    posed = False
    for i in range(walkers):
        row = owner[i]
        if not alive[row]:
            continue
        _u32(buf, p, row + 1)
        _store(buf, p + _AT_BONE_COUNT, np.uint16(0))
        posed = posed or bones[i] > 0
        p += _BARE_BONES_ROW
        count += 1
    _counted(buf, at, _WALKER_BONES, count, _BARE_BONES_ROW)
    return p, posed


@njit(cache=True)
def _finish(buf, stream, delta, body_end):
    """FrameStart and FrameEnd around the body, the last frame's -1 made `delta` and both
    handed to the OS in one write from that duration on (LogWriter.write_frame_in's work,
    for a file of the writer's own whose last write was the last frame); the stream
    advanced. Otherwise, or when the OS takes less than the whole, (LAID_OUT, body_end, 0):
    the writer writes the frame (and raises the OS's error)."""
    fd, last, previous = (
        stream[_STREAM_FD],
        stream[_STREAM_LAST_AT],
        stream[_STREAM_PREVIOUS_DURATION_AT],
    )
    if fd < 0 or (last < 0 and previous > 0):
        return LAID_OUT, body_end, 0
    at, position = stream[_STREAM_FRAME_AT], stream[_STREAM_POSITION]
    times = stream.view(np.float64)
    elapsed = 0.0 if stream[_STREAM_FRAMES_WRITTEN] == 0 else times[_STREAM_ELAPSED] + delta
    frame_id = stream[_STREAM_FRAME_ID] + 1
    _u8(buf, at, _FRAME_START)
    _u32(buf, at + 1, FRAME_START_SIZE - _HEAD)
    _store(buf, at + _HEAD, np.uint64(frame_id))
    _store(buf, at + DURATION_AT, np.float64(-1.0))
    _store(buf, at + _ELAPSED_AT, np.float64(elapsed))
    _u8(buf, body_end, _FRAME_END)
    _u32(buf, body_end + 1, 0)
    end = body_end + FRAME_END_SIZE
    start, offset = at, position
    if last >= 0:
        _store(buf, last + DURATION_AT, np.float64(delta))
        start, offset = last + DURATION_AT, previous
    if _pwrite(fd, buf, start, end - start, offset) != end - start:
        return LAID_OUT, body_end, 0
    stream[_STREAM_FRAME_ID] = frame_id
    times[_STREAM_ELAPSED] = elapsed
    stream[_STREAM_FRAMES_WRITTEN] += 1
    stream[_STREAM_PREVIOUS_DURATION_AT] = position + DURATION_AT
    stream[_STREAM_POSITION] = position + end - at
    stream[_STREAM_LAST_AT] = at
    stream[_STREAM_FRAME_AT] = end
    return WRITTEN, 0, 0


@njit(cache=True)
def pack_frame(
    buf,
    stream,
    delta,
    visual_time,
    platform_time,
    check,
    blocks,
    extra_at,
    boxes_at,
    controls_at,
    additional,
    columns,
    n,
    walkers,
    vehicles,
    light_frozen,
):
    """The tick's frame laid out in the writer's frame buffer `buf` where its `stream`
    says the next frame goes, and written: the packets from VisualTime to WalkerBones
    from the world's columns at `columns` (`n` actor rows, `walkers`, `vehicles` in use),
    when (`check`) the world is as the last frame packed left it; then FrameStart,
    FrameEnd, the last frame's duration `delta` and the one write (`_finish`).

    `blocks` holds the packets the caller laid out: EventAdd to VehicleDoor up to
    `extra_at`, SceneLight to Weather up to `boxes_at`, BoundingBox and TriggerVolume up
    to `controls_at`, PhysicsControl and TrafficLightTime after. Returns (WRITTEN, 0, 0),
    (LAID_OUT, the body's end, 0), (POSED, the body's end, where WalkerBones starts), or
    (CHANGED, 0, 0), (NO_ROOM, bytes needed, 0) or (TOO_MANY, records, 0), having
    written nothing."""
    at = stream[_STREAM_FRAME_AT]
    alive = carray(_address(columns[_ALIVE]), n, np.bool_)
    doors = carray(_address(columns[_DOORS]), vehicles, np.uint8)
    if check and _changed(columns, alive, n, doors, vehicles):
        return CHANGED, 0, 0
    lights = columns[_LIGHTS]
    largest = max(n, vehicles, walkers, lights)
    if largest > 0xFFFF:
        return TOO_MANY, largest, 0
    need = (
        FRAME_START_SIZE
        + _FIXED
        + len(blocks)
        + (_ROW + _KINEMATICS_ROW) * n
        + (_ANIM_VEHICLE_ROW + _VEHICLE_LIGHT_ROW) * vehicles
        + (_ANIM_WALKER_ROW + _BARE_BONES_ROW) * walkers
        + _STATE_ROW * lights
        + FRAME_END_SIZE
    )
    if at < 0 or at + need > len(buf):
        return NO_ROOM, need, 0
    kind = carray(_address(columns[_KIND]), n, np.int8)
    walker_owner = carray(_address(columns[_WALKER_OWNER]), walkers, np.int32)
    vehicle_owner = carray(_address(columns[_VEHICLE_OWNER]), vehicles, np.int32)
    p = _time(buf, at + FRAME_START_SIZE, _VISUAL_TIME, visual_time)
    _memcpy(buf, p, blocks, 0, extra_at)
    p += extra_at
    p = _positions(
        buf,
        p,
        alive,
        kind,
        carray(_address(columns[_POS]), (n, 3), np.float64),
        carray(_address(columns[_ROT]), (n, 3), np.float64),
        n,
    )
    p = _states(
        buf,
        p,
        carray(_address(columns[_LIGHT_IDS]), lights, np.int64),
        light_frozen,
        carray(_address(columns[_LIGHT_CONTROLLER]), lights, np.int64),
        carray(_address(columns[_CONTROLLER_ELAPSED]), columns[_CONTROLLERS], np.float32),
        carray(_address(columns[_LIGHT_STATE]), lights, np.int8),
    )
    p = _anim_vehicles(
        buf,
        p,
        alive,
        vehicle_owner,
        carray(_address(columns[_STEER]), vehicles, np.float32),
        carray(_address(columns[_THROTTLE]), vehicles, np.float32),
        carray(_address(columns[_BRAKE]), vehicles, np.float32),
        carray(_address(columns[_HAND_BRAKE]), vehicles, np.bool_),
        carray(_address(columns[_GEAR]), vehicles, np.int32),
        vehicles,
    )
    walker_speed = carray(_address(columns[_WALKER_SPEED]), walkers, np.float32)
    p = _anim_walkers(buf, p, alive, walker_owner, walker_speed, walkers)
    vehicle_lights = carray(_address(columns[_VEHICLE_LIGHTS]), vehicles, np.uint32)
    p = _vehicle_lights(buf, p, alive, vehicle_owner, vehicle_lights, vehicles)
    _memcpy(buf, p, blocks, extra_at, boxes_at - extra_at)
    p += boxes_at - extra_at
    body_end, posed = p, False
    if additional:
        vel = carray(_address(columns[_VEL]), (n, 3), np.float64)
        angvel = carray(_address(columns[_ANGVEL]), (n, 3), np.float64)
        p = _kinematics(buf, p, alive, kind, vel, angvel, n)
        _memcpy(buf, p, blocks, boxes_at, controls_at - boxes_at)
        p += controls_at - boxes_at
        p = _time(buf, p, _PLATFORM_TIME, platform_time)
        _memcpy(buf, p, blocks, controls_at, len(blocks) - controls_at)
        p += len(blocks) - controls_at
        bones = carray(_address(columns[_WALKER_BONES_POSED]), walkers, np.int32)
        body_end, posed = _bare_bones(buf, p, alive, walker_owner, bones, walkers)
    _remember(columns, n, vehicles)
    if posed:
        return POSED, body_end, p
    return _finish(buf, stream, delta, body_end)


def compiled_pack_frame():
    """pack_frame for the argument types of recorder.live.packing_intrinsics.SIGNATURE, to be
    called directly: the ahead-of-time module's function, or numba's compile (or cache load)
    for those types, as numba's dispatcher, finding the compiled version from the types of
    fifteen arguments at every call, costs more than the packing. The caller passes
    arguments of these types only (Python scalars are converted; arrays must be of these
    dtypes, dimensions and layouts)."""
    if running_ahead_of_time():
        return pack_frame
    from recorder.live.packing_intrinsics import SIGNATURE

    return pack_frame.compile(SIGNATURE)
