"""CARLA's file-info query (`QueryInfo`, `client.show_recorder_file_info`), text exact.

Without `show_all` it lists each frame's events (actors made and removed, parents,
collisions, weather); with it, every packet it knows and every frame. CARLA's quirks kept:

* a newline at every FrameEnd, and the last FrameEnd read twice, so the text ends with one
  more blank line before `Frames:`; a log with no frame shows `Frame 0 at 0 seconds`;
* a VehicleDoor value outside 0-6 prints `  Doors opened: ` with no newline;
* lights print in CARLA's order (Interior before Fog); bits above 1024 are ignored;
* PhysicsControl prints after CARLA's rpc -> UE -> rpc round trip: the curves re-sorted by
  FRichCurve::AddKey, `center_of_mass` as `1e-2f * (1e2f * x)`, `gear_switch_time` the rpc
  default 0.5 (it is not in the file).

Where CARLA misreads 0.9.10's 36-byte wheels, the wheel size is taken from the packet size
and the right text printed. A CARLA 0.10 (UE5) log prints as CARLA 0.10's query prints it:
doubles where UE4 had floats (the same 6-digit text), no Weather packet, a blank line after
each WalkerBones packet, and the Chaos physics control (recorder/queries/physics_ue5.py).
Fixed-size records are formatted a packet at a time from numpy.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from recorder.logfile.cformat import c_general, general_rows
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.physics_control import rich_curve_keys
from recorder.logfile.reader import LogReader
from recorder.queries.common import Chunk, Source, answer, c_text, open_query
from recorder.queries.physics_ue5 import physics_text_ue5

_EVENT_IDS = (
    int(PacketId.EventAdd),
    int(PacketId.EventDel),
    int(PacketId.EventParent),
    int(PacketId.Collision),
    int(PacketId.Weather),
)
_DOORS = ("Front Left", "Front Right", "Rear Left", "Rear Right", "Hood", "Trunk", "All")
# (bit, name) in the order CARLA lists enabled lights.
_LIGHTS = (
    (1, "Position"),
    (2, "LowBeam"),
    (4, "HighBeam"),
    (8, "Brake"),
    (16, "RightBlinker"),
    (32, "LeftBlinker"),
    (64, "Reverse"),
    (256, "Interior"),
    (128, "Fog"),
    (512, "Special1"),
    (1024, "Special2"),
)
_WEATHER = (
    "Cloudiness",
    "Precipitation",
    "PrecipitationDeposits",
    "WindIntensity",
    "SunAzimuthAngle",
    "SunAltitudeAngle",
    "FogDensity",
    "FogDistance",
    "FogFalloff",
    "Wetness",
    "ScatteringIntensity",
    "MieScatteringScale",
    "RayleighScatteringScale",
    "DustStorm",
)
_WEATHER_ROW = "  " + " ".join(f"{name}: %g" for name in _WEATHER) + "\n"
# Fixed-size packets printed a packet at a time: (title, row template with the record's
# fields in dtype order).
_BULK = {
    PacketId.Position: (
        " Positions: ",
        "  Id: %d Location: (%g, %g, %g) Rotation: (%g, %g, %g)\n",
    ),
    PacketId.AnimVehicle: (
        " Vehicle animations: ",
        "  Id: %d Steering: %g Throttle: %g Brake: %g Handbrake: %d Gear: %d\n",
    ),
    PacketId.AnimWalker: (" Walker animations: ", "  Id: %d speed: %g\n"),
    PacketId.Kinematics: (
        " Dynamic actors: ",
        "  Id: %d linear_velocity: (%g, %g, %g) angular_velocity: (%g, %g, %g)\n",
    ),
    PacketId.BoundingBox: (
        " Actor bounding boxes: ",
        "  Id: %d origin: (%g, %g, %g) extension: (%g, %g, %g)\n",
    ),
    PacketId.TriggerVolume: (
        " Actor trigger volumes: ",
        "  Id: %d origin: (%g, %g, %g) extension: (%g, %g, %g)\n",
    ),
    PacketId.TrafficLightTime: (
        " Traffic Light time events: ",
        "  Id: %d green_time: %g yellow_time: %g red_time: %g\n",
    ),
}
_BULK = {int(pid): value for pid, value in _BULK.items()}
_F32 = np.float32
_FRAME_START, _FRAME_END = int(PacketId.FrameStart), int(PacketId.FrameEnd)
_WEATHER_ID = int(PacketId.Weather)


def query_info(
    source: Source, show_all: bool = False, *, local_time: bool = False, lenient: bool = True
) -> str:
    """The file-info query's text for a log (path or bytes).

    `lenient=False` makes a log that ends inside a frame an error (see queries/common.py).
    """
    return answer(info_pieces(source, show_all, local_time=local_time, lenient=lenient))


def info_pieces(
    source: Source, show_all: bool = False, *, local_time: bool = False, lenient: bool = True
) -> Iterator[str]:
    """The file-info query's text in pieces, a chunk of the log at a time (NotARecorderError
    for a file that is not a log)."""
    text, log = open_query(source, local_time, lenient)
    yield text
    printer = _Printer(log.reader)
    for chunk in log.chunks():
        printer.chunk = chunk
        ids = chunk.ids
        if show_all:
            for p, pid in enumerate(ids.tolist()):
                printer.packet(p, pid)
        else:
            # Only event packets print; each FrameEnd in between prints a newline.
            picked = np.flatnonzero(np.isin(ids, _EVENT_IDS))
            picked = picked[(chunk.counts(picked) != 0) | (ids[picked] == _WEATHER_ID)]
            is_end = ids == _FRAME_END
            ends_before = np.cumsum(is_end) - is_end
            done = 0
            for p, pid, ends in zip(
                picked.tolist(), ids[picked].tolist(), ends_before[picked].tolist(), strict=True
            ):
                printer.out.append("\n" * (ends - done))
                done = ends
                printer.packet(p, pid)
            printer.out.append("\n" * (int(is_end.sum()) - done))
        yield printer.take()
    if log.packets:
        yield "\n"  # the failed last read keeps the FrameEnd id: once more
    elif show_all:
        yield "Frame 0 at 0 seconds\n"  # the zeroed header id is FrameStart
    yield log.closing_text()


class _Printer:
    """CARLA's QueryInfo switch, one packet at a time, into a list of text pieces."""

    def __init__(self, reader: LogReader):
        self.reader = reader
        self.chunk: Chunk
        self.out: list[str] = []
        self.printed_frame = -2  # the frame number whose line is printed (bFramePrinted)
        self.ue5 = reader.variant == "ue5"

    def take(self) -> str:
        """The text printed since the last call."""
        text = "".join(self.out)
        self.out.clear()
        return text

    def frame_line(self, p: int) -> None:
        chunk = self.chunk
        number = int(chunk.frame[p])
        if number < 0:
            frame_id, elapsed = 0, 0.0
        else:
            at = number - chunk.first_frame
            frame_id, elapsed = int(chunk.frame_id[at]), float(chunk.elapsed[at])
        self.out.append(f"Frame {frame_id} at {c_general(elapsed)} seconds\n")
        self.printed_frame = number

    def counted(self, p: int, count: int) -> None:
        if count > 0 and self.printed_frame != self.chunk.frame[p]:
            self.frame_line(p)

    def titled(self, p: int, records, title: str):
        """The frame line if due, then CARLA's `title` + count line; gives the records."""
        self.counted(p, len(records))
        self.out.append(f"{title}{len(records)}\n")
        return records

    def packet(self, p: int, pid: int) -> None:
        if pid == _FRAME_END:
            self.out.append("\n")
        elif pid == _FRAME_START:
            self.frame_line(p)
        elif pid in _HANDLERS:
            _HANDLERS[pid](self, p, self.chunk.raw(p))
        elif pid in _BULK:
            self.bulk(p, pid)

    def bulk(self, p: int, pid: int) -> None:
        title, row = _BULK[pid]
        array = self.titled(p, self.reader.array(self.chunk.raw(p)), title)
        if len(array):
            self.out.append(general_rows(row, _widened(array)))

    def event_add(self, p: int, packet) -> None:
        records = self.reader.records(packet)
        self.counted(p, len(records))
        out = self.out
        for r in records:
            x, y, z = (c_general(v) for v in r.location)
            out.append(f" Create {r.id}: {c_text(r.blueprint)} ({r.type}) at ({x}, {y}, {z})\n")
            for attribute in r.attributes:
                out.append(f"  {c_text(attribute.id)} = {c_text(attribute.value)}\n")

    def event_del(self, p: int, packet) -> None:
        ids = self.reader.array(packet)["id"].tolist()
        self.counted(p, len(ids))
        self.out.extend(f" Destroy {i}\n" for i in ids)

    def event_parent(self, p: int, packet) -> None:
        array = self.reader.array(packet)
        self.counted(p, len(array))
        for child, parent in array[["id", "parent"]].tolist():
            self.out.append(f" Parenting {child} with {parent} (parent)\n")

    def collision(self, p: int, packet) -> None:
        array = self.reader.array(packet)
        self.counted(p, len(array))
        for cid, id1, id2, hero1, hero2 in array[["id", "id1", "id2", "hero1", "hero2"]].tolist():
            first = " (hero) " if hero1 else ""
            second = " (hero) " if hero2 else ""
            self.out.append(f" Collision id {cid} between {id1}{first} with {id2}{second}\n")

    def weather(self, p: int, packet) -> None:
        array = self.titled(p, self.reader.array(packet), " Weathers: ")
        if len(array):
            self.out.append(general_rows(_WEATHER_ROW, _widened(array)))

    def state(self, p: int, packet) -> None:
        array = self.titled(p, self.reader.array(packet), " State traffic lights: ")
        for sid, frozen, elapsed, state in array[["id", "frozen", "elapsed", "state"]].tolist():
            shown = bytes([(0x30 + state) & 0xFF]).decode("utf-8", "surrogateescape")
            self.out.append(
                f"  Id: {sid} state: {shown} frozen: {int(bool(frozen))} "
                f"elapsedTime: {c_general(elapsed)}\n"
            )

    def vehicle_door(self, p: int, packet) -> None:
        array = self.titled(p, self.reader.array(packet), " Vehicle door animations: ")
        for vid, door in array[["id", "doors"]].tolist():
            self.out.append(f"  Id: {vid}\n  Doors opened: ")
            if door < len(_DOORS):
                self.out.append(f" {_DOORS[door]} \n")

    def vehicle_light(self, p: int, packet) -> None:
        array = self.titled(p, self.reader.array(packet), " Vehicle light animations: ")
        for lid, flags in array[["id", "state"]].tolist():
            names = " ".join(name for bit, name in _LIGHTS if flags & bit) or "None"
            self.out.append(f"  Id: {lid} {names}\n")

    def scene_light(self, p: int, packet) -> None:
        records = self.titled(p, self.reader.records(packet), " Scene light changes: ")
        for r in records:
            red, green, blue = (c_general(v) for v in r.color[:3])
            self.out.append(
                f"  Id: {r.id} enabled: {'True' if r.on else 'False'} intensity: "
                f"{c_general(r.intensity)} RGB_color: ({red}, {green}, {blue})\n"
            )

    def platform_time(self, p: int, packet) -> None:
        if self.printed_frame != self.chunk.frame[p]:
            self.frame_line(p)
        (record,) = self.reader.records(packet)
        self.out.append(f" Current platform time: {c_general(record.time)}\n")

    def physics_control(self, p: int, packet) -> None:
        records = self.titled(p, self.reader.records(packet), " Physics Control events: ")
        text = physics_text_ue5 if self.ue5 else _physics_text
        for r in records:
            self.out.append(text(r))

    def walker_bones(self, p: int, packet) -> None:
        records = self.titled(p, self.reader.records(packet), " Walkers Bones: ")
        out = self.out
        for r in records:
            out.append(f"  Id: {r.id}\n")
            for bone in r.bones:
                loc = ", ".join(c_general(v) for v in bone.location)
                rot = ", ".join(c_general(v) for v in bone.rotation)
                out.append(f'     Bone: "{c_text(bone.name)}" relative: Loc({loc}) Rot({rot})\n')
        if self.ue5:
            out.append("\n")


_HANDLERS = {
    PacketId.EventAdd: _Printer.event_add,
    PacketId.EventDel: _Printer.event_del,
    PacketId.EventParent: _Printer.event_parent,
    PacketId.Collision: _Printer.collision,
    PacketId.Weather: _Printer.weather,
    PacketId.State: _Printer.state,
    PacketId.VehicleDoor: _Printer.vehicle_door,
    PacketId.VehicleLight: _Printer.vehicle_light,
    PacketId.SceneLight: _Printer.scene_light,
    PacketId.PlatformTime: _Printer.platform_time,
    PacketId.PhysicsControl: _Printer.physics_control,
    PacketId.WalkerBones: _Printer.walker_bones,
}
_HANDLERS = {int(pid): handler for pid, handler in _HANDLERS.items()}


def _widened(array: np.ndarray) -> np.ndarray:
    """A structured array's fields as float64 columns (a signalling NaN widens quietly)."""
    from numpy.lib.recfunctions import structured_to_unstructured  # loads numpy.ma: not at start-up

    with np.errstate(invalid="ignore"):
        return structured_to_unstructured(array, np.float64)


def _centre_of_mass(x: float) -> float:
    """rpc metres -> UE centimetres -> rpc metres, in float arithmetic."""
    with np.errstate(over="ignore", invalid="ignore"):
        return float(_F32(1e-2) * (_F32(1e2) * _F32(x)))


def _g(values) -> str:
    return ", ".join(c_general(v) for v in values)


def _physics_text(r) -> str:
    """One physics-control record as CARLA prints it after the rpc/UE round trip."""
    lines = [
        f"  Id: {r.id}\n",
        f"   max_rpm = {c_general(r.max_rpm)}\n",
        f"   MOI = {c_general(r.moi)}\n",
        f"   damping_rate_full_throttle = {c_general(r.damping_rate_full_throttle)}\n",
        "   damping_rate_zero_throttle_clutch_engaged = "
        f"{c_general(r.damping_rate_zero_throttle_clutch_engaged)}\n",
        "   damping_rate_zero_throttle_clutch_disengaged = "
        f"{c_general(r.damping_rate_zero_throttle_clutch_disengaged)}\n",
        f"   use_gear_auto_box = {'true' if r.use_gear_autobox else 'false'}\n",
        "   gear_switch_time = 0.5\n",
        f"   clutch_strength = {c_general(r.clutch_strength)}\n",
        f"   final_ratio = {c_general(r.final_ratio)}\n",
        f"   mass = {c_general(r.mass)}\n",
        f"   drag_coefficient = {c_general(r.drag_coefficient)}\n",
        f"   center_of_mass = ({_g(_centre_of_mass(v) for v in r.center_of_mass)})\n",
        "   torque_curve ="
        + "".join(f" ({_g(k)})" for k in rich_curve_keys(r.torque_curve))
        + "\n",
        "   steering_curve =" + "".join(f" ({_g(k)})" for k in rich_curve_keys(r.steering_curve)),
        "\n   forward_gears:\n",
    ]
    for number, gear in enumerate(r.forward_gears):
        lines.append(
            f"    gear {number}: ratio {c_general(gear.ratio)} down_ratio "
            f"{c_general(gear.down_ratio)} up_ratio {c_general(gear.up_ratio)}\n"
        )
    lines.append("   wheels:\n")
    for number, wheel in enumerate(r.wheels):
        lines.append(_wheel_text(number, wheel))
    return "".join(lines)


def _wheel_text(number: int, wheel) -> str:
    """A wheel line; the 208-byte (Chaos) wheel prints its nearest fields (documented)."""
    if hasattr(wheel, "tire_friction"):
        friction, damping = wheel.tire_friction, wheel.damping_rate
        radius, brake = wheel.radius, wheel.max_brake_torque
        handbrake, position = wheel.max_handbrake_torque, wheel.position
    else:
        friction, damping = wheel.friction_force_multiplier, wheel.suspension_damping_ratio
        radius, brake = wheel.wheel_radius, wheel.max_brake_torque
        handbrake, position = wheel.max_hand_brake_torque, wheel.location
    return (
        f"    wheel {number}: tire_friction {c_general(friction)} damping_rate "
        f"{c_general(damping)} max_steer_angle {c_general(wheel.max_steer_angle)} radius "
        f"{c_general(radius)} max_brake_torque {c_general(brake)} max_handbrake_torque "
        f"{c_general(handbrake)} position ({_g(position)})\n"
    )
