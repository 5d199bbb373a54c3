"""Fidelity of lockstep's vehicle physics against a real CARLA log.

Reads ../shared/carla-logs/DistanceBetweenVehicles/recording.log (CARLA 0.9.12
era, Town01): the hero vehicle.lincoln.mkz_2017's PhysicsControl, its start pose,
its control every frame (AnimVehicle) and its velocity every frame (Kinematics),
at the server's frame durations (~0.029 s). Spawns the same blueprint at the
logged start pose, applies the logged physics control and, frame by frame, the
logged control with the logged frame duration, and prints the RMS and maximum
speed error against CARLA's speeds and the time from the first throttle to
10 m/s (CARLA: 4.4 s). Goal: RMS <= 1.0 m/s, time within 10 %.

    python benchmarks/fidelity_carla.py [LOG] [XODR]
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from recorder.logfile.packet_ids import PacketId  # noqa: E402
from recorder.logfile.reader import LogReader  # noqa: E402
from world.actors.controls import VehicleControl  # noqa: E402
from world.geometry import Location, Rotation, Transform, Vector2D, Vector3D  # noqa: E402
from world.map.flat_map import FlatMap  # noqa: E402
from world.physics.control import (  # noqa: E402
    GearPhysicsControl,
    VehiclePhysicsControl,
    WheelPhysicsControl,
)
from world.settings import WorldSettings  # noqa: E402
from world.world import World  # noqa: E402

SHARED = REPO.parent / "shared"
LOG = SHARED / "carla-logs" / "DistanceBetweenVehicles" / "recording.log"
TOWN01 = SHARED / "maps" / "carla" / "Town01.xodr"
HERO_TYPE = "vehicle.lincoln.mkz_2017"
CARLA_TIME_TO_10 = 4.4  # s, from the first throttle, measured in the log


@dataclass
class HeroTrack:
    """The hero's logged data, one entry per frame from its first Kinematics record."""

    actor_id: int
    start: Transform
    physics: VehiclePhysicsControl
    duration: np.ndarray  # s, each frame's step
    elapsed: np.ndarray
    controls: list[VehicleControl]
    speed: np.ndarray  # m/s, |linear_velocity|
    gear: np.ndarray  # the gear CARLA's gearbox was in (0 while shifting)


def _hero_id(reader: LogReader) -> int:
    for packet in reader.packets():
        if packet.id == PacketId.EventAdd:
            for event in reader.records(packet):
                if event.blueprint == HERO_TYPE:
                    return int(event.id)
    raise SystemExit(f"{reader.name}: no {HERO_TYPE} created")


def _physics(record) -> VehiclePhysicsControl:
    return VehiclePhysicsControl(
        torque_curve=[Vector2D(x, y) for x, y in record.torque_curve],
        max_rpm=record.max_rpm,
        moi=record.moi,
        damping_rate_full_throttle=record.damping_rate_full_throttle,
        damping_rate_zero_throttle_clutch_engaged=record.damping_rate_zero_throttle_clutch_engaged,
        damping_rate_zero_throttle_clutch_disengaged=(
            record.damping_rate_zero_throttle_clutch_disengaged
        ),
        use_gear_autobox=record.use_gear_autobox,
        clutch_strength=record.clutch_strength,
        final_ratio=record.final_ratio,
        forward_gears=[
            GearPhysicsControl(g.ratio, g.down_ratio, g.up_ratio) for g in record.forward_gears
        ],
        mass=record.mass,
        drag_coefficient=record.drag_coefficient,
        center_of_mass=Vector3D(*record.center_of_mass),
        steering_curve=[Vector2D(x, y) for x, y in record.steering_curve],
        wheels=[
            WheelPhysicsControl(
                tire_friction=w.tire_friction,
                damping_rate=w.damping_rate,
                max_steer_angle=w.max_steer_angle,
                radius=w.radius,
                max_brake_torque=w.max_brake_torque,
                max_handbrake_torque=w.max_handbrake_torque,
                lat_stiff_max_load=w.lat_stiff_max_load,
                lat_stiff_value=w.lat_stiff_value,
                long_stiff_value=w.long_stiff_value,
                position=Vector3D(*w.position),
            )
            for w in record.wheels
        ],
    )


def read_hero(path: Path = LOG) -> HeroTrack:
    """The hero's start pose, physics control, per-frame controls and speeds from the log."""
    reader = LogReader(path)
    hero = _hero_id(reader)
    start = physics = None
    frames: list[dict] = []
    for packet in reader.packets():
        pid = packet.id
        if pid == PacketId.FrameStart:
            (record,) = reader.records(packet)
            frames.append({"duration": record.duration, "elapsed": record.elapsed})
        elif pid == PacketId.Position and start is None:
            for r in reader.records(packet):
                if r.id == hero:
                    (x, y, z), (roll, pitch, yaw) = r.location, r.rotation
                    start = Transform(
                        Location(x / 100, y / 100, z / 100), Rotation(pitch, yaw, roll)
                    )
        elif pid == PacketId.PhysicsControl and physics is None:
            for r in reader.records(packet):
                if r.id == hero:
                    physics = _physics(r)
        elif pid == PacketId.AnimVehicle:
            for r in reader.records(packet):
                if r.id == hero:
                    frames[-1]["control"] = VehicleControl(
                        r.throttle, r.steering, r.brake, bool(r.handbrake)
                    )
                    frames[-1]["gear"] = r.gear
        elif pid == PacketId.Kinematics:
            for r in reader.records(packet):
                if r.id == hero:
                    frames[-1]["speed"] = float(np.linalg.norm(r.linear_velocity))
    frames = [f for f in frames if "speed" in f and "control" in f]
    if start is None or physics is None or not frames:
        raise SystemExit(f"{path}: the hero's pose, physics control or frames are missing")
    return HeroTrack(
        hero,
        start,
        physics,
        np.array([f["duration"] for f in frames]),
        np.array([f["elapsed"] for f in frames]),
        [f["control"] for f in frames],
        np.array([f["speed"] for f in frames]),
        np.array([f["gear"] for f in frames]),
    )


def load_map(xodr: Path = TOWN01):
    """Town01 through world.map.map when it is there, else flat ground at z = 0 (its height)."""
    try:
        from world.map.map import Map
    except ImportError:
        return FlatMap("Town01")
    return Map.from_file(xodr)


def replay(track: HeroTrack, ground_map) -> np.ndarray:
    """lockstep's speeds, frame by frame, driving the logged controls with the logged steps."""
    world = World(ground_map)
    car = world.spawn_actor(world.get_blueprint_library().find(HERO_TYPE), track.start)
    car.apply_physics_control(track.physics)
    speeds = np.empty(len(track.speed))
    # a few server frames are long (0.12 s): enough 0.01 s substeps for the longest
    settings = WorldSettings(max_substeps=int(np.ceil(track.duration.max() / 0.01)) + 1)
    for k, (dt, control) in enumerate(zip(track.duration, track.controls, strict=True)):
        car.apply_control(control)
        settings.fixed_delta_seconds = float(max(dt, 1e-6))
        world.apply_settings(settings)
        world.tick()
        v = car.get_velocity()
        speeds[k] = np.sqrt(v.x * v.x + v.y * v.y + v.z * v.z)
    return speeds


def time_to(speed: np.ndarray, elapsed: np.ndarray, throttle: np.ndarray, target: float) -> float:
    """Seconds from the first frame with throttle to the first frame at `target` m/s."""
    first = int(np.argmax(throttle > 0.0))
    reached = np.flatnonzero(speed[first:] >= target)
    return float(elapsed[first + reached[0]] - elapsed[first]) if len(reached) else float("nan")


def compare(track: HeroTrack, speeds: np.ndarray) -> dict[str, float]:
    err = speeds - track.speed
    throttle = np.array([c.throttle for c in track.controls])
    return {
        "rms": float(np.sqrt(np.mean(err**2))),
        "max": float(np.max(np.abs(err))),
        "t10_carla": time_to(track.speed, track.elapsed, throttle, 10.0),
        "t10_lockstep": time_to(speeds, track.elapsed, throttle, 10.0),
    }


def main(argv: list[str]) -> int:
    log = Path(argv[1]) if len(argv) > 1 else LOG
    xodr = Path(argv[2]) if len(argv) > 2 else TOWN01
    track = read_hero(log)
    ground_map = load_map(xodr)
    speeds = replay(track, ground_map)
    r = compare(track, speeds)
    print(
        f"log: {log} ({len(track.speed)} frames, {track.elapsed[-1]:.1f} s), map: "
        f"{type(ground_map).__name__}"
    )
    print(
        f"speed error vs CARLA: RMS {r['rms']:.3f} m/s (goal <= 1.0, ratio "
        f"{r['rms'] / 1.0:.2f}), max {r['max']:.3f} m/s"
    )
    print(
        f"time to 10 m/s from the first throttle: lockstep {r['t10_lockstep']:.2f} s, CARLA "
        f"{r['t10_carla']:.2f} s (ratio {r['t10_lockstep'] / r['t10_carla']:.3f}, goal "
        "within 10 %)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
