"""`lockstep warmup`: compiles every kernel lockstep runs, ahead of the first real run.

numba compiles a kernel the first time it is called and keeps it in the kernels' cache
folder (world.physics.compiled_cache). The warm-up calls each system once on a small
generated town: the map's queries, the physics tick with a car and a walker, the traffic
lights, the traffic manager's autopilot and the walkers' AI, then a 2-second evaluation
(the autopilot agent, the criteria, the recorder with additional data), so that later
runs, tests and evaluations start at once.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from types import ModuleType

__all__ = ["WarmupReport", "kernel_dispatchers", "warm_up"]

PACKAGES = ("world.", "recorder.", "runner.", "scenarios.")  # whose kernels the report names

# the warm-up town: the committed small town's parameters, built in memory
TOWN = "town_small"
TICKS = 3
SYSTEMS = (
    "map queries (waypoints, spawn points, ground)",
    "physics tick (vehicles, walkers, collisions, attachments)",
    "traffic lights and signs",
    "traffic manager autopilot (2 cars)",
    "walker AI (2 walkers)",
    "an evaluation: a 2 s route, the autopilot agent, criteria, the recorder (additional data)",
)
# the warm-up route: east along town_small's top road
ROUTE = [[20.0, 1.75, 0.0], [60.0, 1.75, 0.0]]


@dataclass
class WarmupReport:
    """What a warm-up did: kernels compiled now, loaded from the cache, not run by it."""

    cache_dir: str
    compiled: list[str] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def text(self) -> str:
        lines = [
            f"lockstep warmup: a {TOWN} world, {TICKS} ticks of:",
            *(f"  {system}" for system in SYSTEMS),
            f"kernels: {len(self.compiled)} compiled, {len(self.loaded)} loaded from the cache, "
            f"in {self.seconds:.1f} s",
            f"cache: {self.cache_dir}",
        ]
        if self.unused and self.compiled:
            # (a kernel loaded from the cache brings its callees without naming them, so
            # the list says something only when this warm-up compiled)
            names = ", ".join(self.unused)
            lines.append(f"not called directly here (compiled into their callers): {names}")
        return "\n".join(lines)


def kernel_dispatchers() -> dict[str, object]:
    """Every cached numba kernel of lockstep's modules loaded now, by qualified name."""
    from numba.core.dispatcher import Dispatcher

    found: dict[str, object] = {}
    for name, module in sorted(sys.modules.items()):
        if not name.startswith(PACKAGES) or not isinstance(module, ModuleType):
            continue
        for value in vars(module).values():
            if (
                isinstance(value, Dispatcher)
                and value.py_func.__module__ == name
                and getattr(value._cache, "cache_path", None)
            ):
                found[f"{name}.{value.py_func.__qualname__}"] = value
    return dict(sorted(found.items()))


def _exercise() -> None:
    """Calls each system once on a small world (the kernels compile on these calls)."""
    from world import Location, Map, VehicleControl, World, WorldSettings
    from world.map.towngen import TOWN_PRESETS, render_town
    from world.traffic.scene import populate_traffic

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
    _evaluate(render_town(TOWN_PRESETS[TOWN]))


def _evaluate(town_text: str) -> None:
    """A 2-second evaluation on the town, recorded with additional data, in a scratch folder:
    the runner's, the agent's, the criteria's and the recorder's kernels compile on it."""
    import tempfile
    from pathlib import Path

    import yaml

    from runner.config import load_config
    from runner.evaluation import evaluate

    with tempfile.TemporaryDirectory(prefix="lockstep-warmup-") as scratch:
        folder = Path(scratch)
        (folder / f"{TOWN}.xodr").write_text(town_text, encoding="utf-8")
        config = {
            "name": "warmup",
            "seed": 0,
            "map": f"{TOWN}.xodr",
            "tick": 0.05,
            "agent": {"entry": "runner.agents.autopilot"},
            "traffic": {"vehicles": 2, "walkers": 2},
            "limits": {"route_seconds": 2.0},
            "record": {"additional_data": True},
            "routes": [{"id": 0, "waypoints": ROUTE}],
        }
        path = folder / "warmup.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        evaluate(load_config(path), folder / "run")


def warm_up() -> WarmupReport:
    """Compiles (or loads) every kernel the systems call; says which."""
    from world.physics.compiled_cache import cache_dir

    start = time.perf_counter()
    _exercise()
    report = WarmupReport(str(cache_dir()), seconds=time.perf_counter() - start)
    for name, dispatcher in kernel_dispatchers().items():
        hits = sum(dispatcher._cache_hits.values())
        misses = sum(dispatcher._cache_misses.values())
        if misses:
            report.compiled.append(name)
        elif hits:
            report.loaded.append(name)
        elif not dispatcher.signatures:
            report.unused.append(name)
    return report
