"""Rendering sensors' speed on one core, beside CARLA's GPU figures, and a town's scene memory.

One command: `python benchmarks/bench_sensors.py [--ticks N] [--map NAME]`. Each sensor set
runs as its own `lockstep exec` process pinned to one core (taskset), a script written in
the style of CARLA's PythonAPI/util/performance_benchmark.py: synchronous mode at 20 Hz, 30
autopilot cars, the set's sensors on the first car, every sensor listened to. Printed per
set: ticks per second over the measured ticks (the steady state, as CARLA's figures are
frame rates), the whole process's wall time (start-up, map and scene included), and the
ticks per second of the process's CPU time over the measured ticks (on a shared machine,
time spent waiting for the core is not counted).

The sets: performance_benchmark.py's seven (1 to 4 RGB cameras of 1920x1080, fov 100, at
yaw 0/90/180/270; one 32-channel LiDAR, 200 m, 10 Hz, upper 15 / lower -30 degrees, at 100k,
500k and 1M points per second), one 800x600 RGB camera (goal >= 60 frames/s), and a
64-channel LiDAR at 20 Hz with 1.2 M points/s (goal >= 100 ticks/s). Last, the memory of
Town04's static scene and render index (goal <= 1 GiB): the scene built in a fresh process,
its arrays' bytes and the process's peak resident memory.

CARLA's figures, all on a GPU, synchronous mode:
* carla-simulator/carla#1771 (2019, a 0.9.5-era build, -quality-level=Low): "on all maps,
  on all sensor sets defined in performance_benchmark.py I'm receiving ~21fps";
* carla-simulator/carla#2582 (2020): synchronous mode at most 23 frames/s, "regardless of the
  amount of vehicles";
* carla-simulator/carla#8481 (the 0.10.0 release note, 2024): "the best we've achieved so
  far is 24/25 FPS" with an RGB camera (Unreal 5, -RenderOffScreen).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LOCKSTEP = Path(sys.executable).parent / "lockstep"

CARLA_FIGURES = [
    ("carla#1771 (0.9.5-era, every set, synchronous)", 21.0),
    ("carla#2582 (synchronous, at most)", 23.0),
    ("carla#8481 (0.10.0 release note, RGB camera, best)", 25.0),
]


def _camera(yaw: float, width: int = 1920, height: int = 1080, fov: float = 100.0) -> dict:
    return {"type": "sensor.camera.rgb", "x": 0.7, "z": 1.6, "yaw": yaw,
            "attributes": {"image_size_x": width, "image_size_y": height, "fov": fov}}  # fmt: skip


def _lidar(points: int, channels: int = 32, frequency: float = 10.0, reach: float = 200.0,
           upper: float = 15.0, lower: float = -30.0) -> dict:  # fmt: skip
    return {
        "type": "sensor.lidar.ray_cast", "x": 0.7, "z": 1.6, "yaw": 0.0,
        "attributes": {"range": reach, "rotation_frequency": frequency, "channels": channels,
                       "upper_fov": upper, "lower_fov": lower, "points_per_second": points},
    }  # fmt: skip


SETS: list[tuple[str, list[dict], float | None]] = [
    ("0. cam-1920x1080", [_camera(0)], None),
    ("1. 2 x cam-1920x1080", [_camera(0), _camera(180)], None),
    ("2. 3 x cam-1920x1080", [_camera(0), _camera(90), _camera(180)], None),
    ("3. 4 x cam-1920x1080", [_camera(y) for y in (0, 90, 180, 270)], None),
    ("4. LIDAR: 100k", [_lidar(100_000)], None),
    ("5. LIDAR: 500k", [_lidar(500_000)], None),
    ("6. LIDAR: 1M", [_lidar(1_000_000)], None),
    ("cam-800x600 (goal)", [_camera(0, 800, 600, 90)], 60.0),
    ("LIDAR 64 ch, 20 Hz, 1.2M (goal)", [_lidar(1_200_000, 64, 20.0, 100.0, 10.0, -30.0)], 100.0),
]

SCRIPT = """
import json, sys, time
import carla

sensors, ticks, warm = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
client = carla.Client("localhost", 2000)
world = client.get_world()
settings = world.get_settings()
settings.synchronous_mode = True
settings.fixed_delta_seconds = 0.05
world.apply_settings(settings)
tm = client.get_trafficmanager()
tm.set_synchronous_mode(True)
library = world.get_blueprint_library()
car_bp = library.find("vehicle.audi.a2")
cars = []
for spot in world.get_map().get_spawn_points():
    car = world.try_spawn_actor(car_bp, spot)
    if car is not None:
        car.set_autopilot(True, tm.get_port())
        cars.append(car)
    if len(cars) == 30:
        break
received = [0]
for spec in sensors:
    bp = library.find(spec["type"])
    for key, value in spec["attributes"].items():
        bp.set_attribute(key, str(value))
    place = carla.Location(x=spec["x"], z=spec["z"])
    mount = carla.Transform(place, carla.Rotation(yaw=spec["yaw"]))
    sensor = world.spawn_actor(bp, mount, attach_to=cars[0])
    sensor.listen(lambda data: received.__setitem__(0, received[0] + 1))
for _ in range(warm):
    world.tick()
start, cpu = time.perf_counter(), time.process_time()
for _ in range(ticks):
    world.tick()
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"cars": len(cars), "seconds": seconds, "cpu": cpu, "measurements": received[0]}))
"""

MEMORY = """
import json, resource, sys, time
from world.map.map import Map
from world.sensors.scene_frame import static_index
start = time.perf_counter()
town = Map.from_file(sys.argv[1])
index = static_index(town)
print(json.dumps({"seconds": time.perf_counter() - start, "index_bytes": index.nbytes,
                  "triangles": index.triangle_count,
                  "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def _pinned(command: list[str]) -> list[str]:
    """The command on one core (taskset), as the figures are one core's."""
    taskset = shutil.which("taskset")
    return [taskset, "-c", "0", *command] if taskset else command


def run_set(name: str, sensors: list[dict], ticks: int, warm: int, town: str, folder: Path):
    script = folder / "bench_set.py"
    script.write_text(SCRIPT)
    command = _pinned([str(LOCKSTEP), "exec", "--map", town, str(script),
                       json.dumps(sensors), str(ticks), str(warm)])  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=folder, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{name}: lockstep exec failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return ticks / result["seconds"], ticks / result["cpu"], wall, result


def run_memory(xodr: Path, folder: Path) -> dict:
    script = folder / "bench_memory.py"
    script.write_text(MEMORY)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(_pinned([sys.executable, str(script), str(xodr)]), capture_output=True,
                          text=True, env=env, check=False)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"Town04's scene failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=100, help="measured ticks a set (100)")
    parser.add_argument("--warm", type=int, default=5, help="ticks before measuring (5)")
    parser.add_argument("--map", default="town_medium", help="the town (town_medium)")
    parser.add_argument("--shared", default=os.environ.get("LOCKSTEP_SHARED",
                        str(REPO.parent / "shared")), help="the shared data (Town04)")  # fmt: skip
    parser.add_argument("--only", default=None, help="run the sets whose name has this text")
    args = parser.parse_args()
    best_carla = max(fps for _, fps in CARLA_FIGURES)
    print("CARLA on a GPU, synchronous: " + "; ".join(f"{n}: {f:g} fps" for n, f in CARLA_FIGURES))
    print(f"lockstep on one core, {args.map}, 30 autopilot cars, 20 Hz, {args.ticks} ticks a set")
    print(f"{'set':34} {'ticks/s':>8} {'x CARLA':>8} {'goal':>6} {'process s':>10} {'CPU':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, sensors, goal in SETS:
            if args.only and args.only not in name:
                continue
            rate, cpu_rate, wall, result = run_set(
                name, sensors, args.ticks, args.warm, args.map, folder
            )
            goal_text = "" if goal is None else ("met" if rate >= goal else f"{rate / goal:.0%}")
            print(f"{name:34} {rate:8.1f} {rate / best_carla:8.2f} {goal_text:>6} {wall:10.1f}"
                  f" {cpu_rate:7.1f}"
                  f"   ({result['cars']} cars, {result['measurements']} measurements)")  # fmt: skip
        town04 = Path(args.shared) / "maps" / "carla" / "Town04.xodr"
        if town04.is_file() and not args.only:
            memory = run_memory(town04, folder)
            gib = memory["peak_kib"] / 2**20
            print(f"Town04's scene: {memory['triangles']:,} triangles, index "
                  f"{memory['index_bytes'] / 2**20:.0f} MiB, process peak {gib:.2f} GiB "
                  f"(goal <= 1 GiB: {'met' if gib <= 1.0 else 'missed'}), built in "
                  f"{memory['seconds']:.1f} s")  # fmt: skip
    return 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main())
