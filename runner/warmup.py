"""`lockstep warmup`: compiles every kernel lockstep runs, ahead of the first real run.

The warm-up calls each system once on a small generated town: the map's queries, the
physics tick with a car and a walker, the traffic lights, the traffic manager's autopilot
and the walkers' AI, then a 20-second evaluation (the autopilot agent, the criteria, the
recorder with additional data). In a process running numba's JIT that compiles every kernel
into numba's cache (world.kernels.compiled_cache); then a fresh process runs it again with
numba's kernels loaded from the cache, so exactly the kernels Python calls hold a signature,
and builds them into the ahead-of-time module (world.kernels.ahead_of_time), which later
processes run without numba. A process that already runs the module just exercises it.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["WarmupReport", "kernel_dispatchers", "warm_up"]

BUILD_TIMEOUT = 1800  # s: the build process compiles every kernel again at worst

# the warm-up town: the committed small town's parameters, built in memory
TOWN = "town_small"
TICKS = 3
SYSTEMS = (
    "the elementary functions (scalar and array forms)",
    "map queries (waypoints, spawn points, ground)",
    "physics tick (vehicles, walkers, collisions, attachments)",
    "traffic lights and signs",
    "traffic manager autopilot (2 cars)",
    "walker AI (2 walkers)",
    "the renderer (a camera's visibility and ray casts on a few boxes)",
    "the rendering sensors (an RGB camera on a car, its shading; a LiDAR, its sweep)",
    "an evaluation: a 20 s route, the autopilot agent, criteria, the recorder (additional data)",
)
# the warm-up route: east along town_small's top road, then right at the corner (a turn)
ROUTE = [[20.0, 1.75, 0.0], [198.25, -50.0, 0.0]]


@dataclass
class WarmupReport:
    """What a warm-up did: kernels compiled now, loaded from numba's cache, not run by it,
    and the ahead-of-time module built, found up to date, or not built (and why)."""

    cache_dir: str
    compiled: list[str] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)
    seconds: float = 0.0
    module: str = ""  # the ahead-of-time module's path, when there is one
    module_kernels: int = 0
    module_built: bool = False
    module_error: str = ""
    ran_module: bool = False  # this warm-up ran the ahead-of-time module (numba compiled nothing)

    def text(self) -> str:
        lines = [
            f"lockstep warmup: a {TOWN} world, {TICKS} ticks of:",
            *(f"  {system}" for system in SYSTEMS),
        ]
        if self.ran_module:
            lines.append(f"kernels: the ahead-of-time module's, in {self.seconds:.1f} s")
        else:
            lines.append(
                f"kernels: {len(self.compiled)} compiled, {len(self.loaded)} loaded from the "
                f"cache, in {self.seconds:.1f} s"
            )
        lines.append(f"cache: {self.cache_dir}")
        if self.unused and self.compiled:
            # (a kernel loaded from the cache brings its callees without naming them, so
            # the list says something only when this warm-up compiled)
            names = ", ".join(self.unused)
            lines.append(f"not called directly here (compiled into their callers): {names}")
        if self.module_error:
            lines.append(
                f"ahead-of-time module not built, kernels run in numba's JIT: {self.module_error}"
            )
        elif self.module:
            state = "built" if self.module_built else "up to date"
            lines.append(
                f"ahead-of-time module ({self.module_kernels} kernels, {state}): {self.module}"
            )
        return "\n".join(lines)


def kernel_dispatchers() -> dict[str, object]:
    """numba's dispatcher of every kernel defined so far, by qualified name (in a process
    running numba's JIT)."""
    from world.kernels.compiled import kernels

    return {name: kernel.bound for name, kernel in sorted(kernels().items())}


def _exercise() -> None:
    """Calls each system once on a small world (the kernels compile on these calls)."""
    from world import Location, Map, Transform, VehicleControl, World, WorldSettings
    from world.map.towngen import TOWN_PRESETS, render_town
    from world.traffic.scene import populate_traffic

    _elementary()
    town = Map(TOWN, render_town(TOWN_PRESETS[TOWN]))
    spots = town.get_spawn_points()
    waypoint = town.get_waypoint(spots[0].location)
    waypoint.next(10.0)
    town.get_waypoint(Location(0.0, 0.0, 0.0), project_to_road=False)
    world = World(town)
    world.apply_settings(WorldSettings(synchronous_mode=True, fixed_delta_seconds=0.05))
    library = world.get_blueprint_library()
    car = world.spawn_actor(library.find("vehicle.lincoln.mkz_2017"), spots[-1])
    car.apply_control(VehicleControl(throttle=0.5))
    populate_traffic(world, vehicles=2, walkers=2, seed=0)
    for _ in range(TICKS):
        world.tick()
    _lane_search(world)
    _render()
    camera_bp = library.find("sensor.camera.rgb")
    camera_bp.set_attribute("image_size_x", "32")
    camera_bp.set_attribute("image_size_y", "24")
    camera = world.spawn_actor(camera_bp, Transform(Location(1.5, 0.0, 2.4)), attach_to=car)
    camera.listen(lambda image: None)
    lidar_bp = library.find("sensor.lidar.ray_cast")
    lidar_bp.set_attribute("points_per_second", "2000")
    lidar = world.spawn_actor(lidar_bp, Transform(Location(0.0, 0.0, 2.4)), attach_to=car)
    lidar.listen(lambda measurement: None)
    world.tick()  # the camera's compiled shading, the LiDAR's sweep
    _evaluate(render_town(TOWN_PRESETS[TOWN]))


def _lane_search(world) -> None:
    """The search an autopilot lane change makes on its new lane (LanePaths.locate), which a
    few ticks of traffic seldom reach."""
    import numpy as np

    paths = world.traffic_managers()[0].fleet.paths
    paths.locate(np.zeros(1, dtype=np.int64), np.zeros(1), np.zeros((1, 2)))


def _elementary() -> None:
    """Each of world.elementary's functions, on a float and on an array of floats."""
    import numpy as np

    from world import elementary as el

    binary = {"atan2", "hypot", "atan2_v", "hypot_v"}
    for name in el.__all__:
        if name == "cos_sin3":
            args: tuple = (0.1, 0.2, 0.3)
        else:
            value = np.linspace(0.1, 0.9, 4) if name.endswith("_v") else 0.5
            args = (value, value) if name in binary else (value,)
        getattr(el, name)(*args)


def _render() -> None:
    """A camera's visibility buffers and a fan of rays on a static box and a moving one (the
    renderer's kernels, both passes: static and dynamic)."""
    import numpy as np

    from world.render import MeshIndex, PinholeCamera, SceneView, cast_rays, visibility
    from world.scene.mesh import Mesh

    corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)
    faces = np.array(
        [
            [0, 1, 3],
            [0, 3, 2],
            [4, 6, 7],
            [4, 7, 5],
            [0, 4, 5],
            [0, 5, 1],
            [2, 3, 7],
            [2, 7, 6],
            [0, 2, 6],
            [0, 6, 4],
            [1, 5, 7],
            [1, 7, 3],
        ],
        np.int32,
    )

    def box(offset: tuple[float, float, float]) -> Mesh:
        count = len(faces)
        return Mesh(
            corners * 2.0 + np.array(offset),
            faces,
            np.full(count, 3, np.uint8),
            np.arange(count, dtype=np.uint32),
            np.zeros((count, 3), np.uint8),
        )

    view = SceneView(MeshIndex.build(box((10.0, -1.0, -1.0))), box((6.0, 1.0, -1.0)))
    camera = PinholeCamera(
        (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), 64, 48, 90.0
    )
    seen = visibility(view, camera)
    _ = seen.depth  # the planar depth's kernel, which depth and optical flow cameras read
    view.tag(seen.number)
    view.instance(seen.number)
    view.colour(seen.number)
    view.normal(seen.number)
    directions = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.6, 0.8, 0.0]])
    cast_rays(view, np.zeros(3), directions, 100.0)


def _evaluate(town_text: str) -> None:
    """A 20-second evaluation on the town, recorded with additional data, in a scratch folder
    (long enough for cars to drive on past their lanes): the runner's, the agent's, the
    criteria's and the recorder's kernels compile on it."""
    import tempfile
    from pathlib import Path

    import yaml

    from runner.config import load_config
    from runner.execution.driver import evaluate

    with tempfile.TemporaryDirectory(prefix="lockstep-warmup-") as scratch:
        folder = Path(scratch)
        (folder / f"{TOWN}.xodr").write_text(town_text, encoding="utf-8")
        config = {
            "name": "warmup",
            "seed": 0,
            "map": f"{TOWN}.xodr",
            "tick": 0.05,
            "agent": {"entry": "runner.agents.autopilot"},
            "traffic": {"vehicles": 4, "walkers": 2},
            "limits": {"route_seconds": 20.0},
            "record": {"additional_data": True},
            "routes": [{"id": 0, "waypoints": ROUTE}],
        }
        path = folder / "warmup.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        evaluate(load_config(path), folder / "run")


def warm_up() -> WarmupReport:
    """Compiles (or loads) every kernel the systems call; says which; builds the
    ahead-of-time module when this process runs numba's JIT."""
    from world.kernels.compiled import (
        MODE_VARIABLE,
        ahead_of_time_path,
        kernels,
        manifest,
        running_ahead_of_time,
    )
    from world.kernels.compiled_cache import cache_dir

    start = time.perf_counter()
    _exercise()
    report = WarmupReport(str(cache_dir()), seconds=time.perf_counter() - start)
    if running_ahead_of_time():
        report.ran_module = True
        report.module = str(ahead_of_time_path())
        report.module_kernels = _module_kernels()
        if (manifest() or {}).get("workload") == workload_digest():
            return report
        report.module = ""  # built by an older warm-up: built again from this one's calls
        _build_in_fresh_process(report)
        return report
    for name, kernel in sorted(kernels().items()):
        if not kernel.options.get("cache"):
            continue  # compiled only into the kernels that call it
        dispatcher = kernel.bound
        stats = dispatcher.stats  # numba's public counters of cache hits and misses
        hits = sum(stats.cache_hits.values())
        misses = sum(stats.cache_misses.values())
        if misses:
            report.compiled.append(name)
        elif hits:
            report.loaded.append(name)
        elif not dispatcher.signatures:
            report.unused.append(name)
    if os.environ.get(MODE_VARIABLE, "") != "jit":
        _build_in_fresh_process(report)
    return report


def workload_digest() -> str:
    """sha256 (16 hex digits) of this module: the work whose kernel calls the ahead-of-time
    module holds."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def _module_kernels() -> int:
    from world.kernels.compiled import manifest

    return len((manifest() or {}).get("kernels", {}))


def _build_in_fresh_process(report: WarmupReport) -> None:
    """Runs `python -m runner.warmup --build` (numba's JIT, kernels from its cache)."""
    from world.kernels.compiled import MODE_VARIABLE

    env = {**os.environ, MODE_VARIABLE: "jit"}
    done = subprocess.run(
        [sys.executable, "-m", "runner.warmup", "--build"],
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        error = (done.stderr.strip().splitlines() or ["no output"])[-1]
        report.module_error = f"the build process failed ({error})"
        return
    report.module, report.module_kernels, report.module_built = lines[-1], _module_kernels(), True


def _build() -> int:
    """The build process: the workload once more, then the module of the kernels it called."""
    from world.kernels.ahead_of_time import AheadOfTimeError, build_module, called_kernels

    _exercise()
    try:
        path = build_module(called_kernels(), workload_digest())
    except AheadOfTimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    if sys.argv[1:] != ["--build"]:
        raise SystemExit("usage: python -m runner.warmup --build (lockstep warmup runs it)")
    raise SystemExit(_build())
