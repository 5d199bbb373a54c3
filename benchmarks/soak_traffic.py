"""The full autopilot soak: traffic left running 20,000 ticks keeps the rules and repeats.

Two scenes: 100 vehicles and 50 AI walkers on the medium town (the default), and 1,000
vehicles and 100 walkers on the 6x6 town of 200 m blocks, 2 lanes each way (`--scene
grid`: issue 27's town, about 65 m of driving lane per vehicle). Counts what must not
happen (vehicle-ticks off the road, red lights run, collision pairs between autopilot
vehicles, walker-ticks off the sidewalks away from a crossing), then runs the same seed
again in another process and compares the per-tick state hashes, a second seed for its first
ticks, and the same seed in a process whose numpy has every SIMD dispatch target switched
off (the cross-CPU test's restricted CPU, tests/test_cross_cpu_determinism.py); the two
other processes run beside this one's own run. It exits 1 unless
the traffic is clean (0 off-road, 0 red lights run, at most 5 collision pairs) and the
three runs of the seed agree at every tick.

    .venv/bin/python benchmarks/soak_traffic.py [--scene medium|grid] [--ticks 20000]
        [--vehicles N] [--walkers N] [--no-cross-cpu]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__  # noqa: E402

from world import Map, World, WorldSettings  # noqa: E402
from world.map.towngen import TownSpec, render_town  # noqa: E402
from world.traffic.scene import TrafficMonitor, populate_traffic  # noqa: E402

TOWN_MEDIUM = REPO / "configs" / "maps" / "town_medium.xodr"
SCENES = {"medium": (100, 50), "grid": (1000, 100)}  # vehicles, walkers
MAX_COLLISION_PAIRS = 5  # issue 27's acceptance and tests/test_traffic_soak.py's full soak
# the restricted CPU: every numpy dispatch target this CPU has beyond numpy's baseline off
DISABLED = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]


def town(scene: str) -> Path:
    """The scene's map: town_medium, or the 6x6 grid town generated into a temp folder."""
    if scene == "medium":
        return TOWN_MEDIUM
    path = Path(tempfile.gettempdir()) / f"lockstep-soak-grid6-{os.getuid()}.xodr"
    spec = TownSpec(seed=5, blocks_x=6, blocks_y=6, block_size=200.0, lanes=2, name="grid6")
    text = render_town(spec)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path


def run(world_map: Map, vehicles: int, walkers: int, ticks: int, seed: int) -> TrafficMonitor:
    """The scene ticked `ticks` times, watched; its progress every 2,000 ticks on stderr
    (with the digest of its state so far, to compare runs that have not finished)."""
    world = World(world_map)
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    monitor = TrafficMonitor(world, populate_traffic(world, vehicles, walkers, seed))
    t0 = time.process_time()
    for tick in range(1, ticks + 1):
        world.tick()
        monitor.observe()
        if tick % 2000 == 0 or tick == ticks:
            rate = tick / max(time.process_time() - t0, 1e-9)
            print(
                f"  {'restricted ' if os.environ.get('NPY_DISABLE_CPU_FEATURES') else ''}"
                f"seed {seed} tick {tick}: off-road {monitor.off_road}, red runs "
                f"{monitor.red_runs}, collisions {len(monitor.collisions)}, walkers off "
                f"{monitor.walkers_off}, digest so far {digest(monitor.hashes)} "
                f"({rate:.0f} ticks/s of CPU)",
                file=sys.stderr,
                flush=True,
            )
    return monitor


def digest(hashes: list[str]) -> str:
    """One hash of the per-tick state hashes."""
    return hashlib.blake2b("".join(hashes).encode(), digest_size=16).hexdigest()


def worker(args: argparse.Namespace, restricted: bool) -> subprocess.Popen:
    """The same seed in a subprocess, started now (it runs beside this process's own run on
    a machine with cores to spare), with numpy's SIMD dispatch targets off when `restricted`;
    its JSON answer (figures and per-tick hashes) comes on its stdout."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if restricted:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(DISABLED)
    command = [sys.executable, __file__, "--worker", "--scene", args.scene, "--seed",
               str(args.seed), "--ticks", str(args.ticks), "--vehicles", str(args.vehicles),
               "--walkers", str(args.walkers)]  # fmt: skip
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)


def answer(process: subprocess.Popen, what: str) -> dict:
    """A worker's JSON answer, once it is done."""
    out, _ = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"the {what} run failed (exit {process.returncode})")
    return json.loads(out.strip().splitlines()[-1])


def figures(monitor: TrafficMonitor) -> dict:
    return {
        "vehicles": len(monitor.scene.vehicles),
        "walkers": len(monitor.scene.walkers),
        "off_road": monitor.off_road,
        "red_runs": monitor.red_runs,
        "collisions": sorted(monitor.collisions),
        "walkers_off": monitor.walkers_off,
        "hashes": monitor.hashes,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", choices=tuple(SCENES), default="medium")
    parser.add_argument("--vehicles", type=int, default=None)
    parser.add_argument("--walkers", type=int, default=None)
    parser.add_argument("--ticks", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-cross-cpu", action="store_true", help="skip the restricted run")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.vehicles = SCENES[args.scene][0] if args.vehicles is None else args.vehicles
    args.walkers = SCENES[args.scene][1] if args.walkers is None else args.walkers
    world_map = Map.from_file(town(args.scene))
    if args.worker:
        monitor = run(world_map, args.vehicles, args.walkers, args.ticks, args.seed)
        print(json.dumps(figures(monitor)))
        return 0
    print(f"{args.scene}: {args.vehicles} vehicles, {args.walkers} walkers, {args.ticks} ticks")
    again = worker(args, restricted=False)
    restricted = None if args.no_cross_cpu else worker(args, restricted=True)
    t0 = time.process_time()
    first = run(world_map, args.vehicles, args.walkers, args.ticks, args.seed)
    cpu = time.process_time() - t0
    short = min(args.ticks, 200)
    other = run(world_map, args.vehicles, args.walkers, short, args.seed + 1)
    same = answer(again, "second")["hashes"] == first.hashes
    differs = other.hashes != first.hashes[:short]
    clean = first.off_road == 0 and first.red_runs == 0
    clean = clean and len(first.collisions) <= MAX_COLLISION_PAIRS
    print(f"vehicles {len(first.scene.vehicles)}, walkers {len(first.scene.walkers)}")
    print(f"vehicle-ticks off the road: {first.off_road} (goal 0)")
    print(f"red lights run: {first.red_runs} (goal 0)")
    print(
        f"autopilot collision pairs: {len(first.collisions)} (goal <= {MAX_COLLISION_PAIRS}) "
        f"{sorted(first.collisions)}"
    )
    print(f"walker-ticks off the sidewalks away from crossings: {first.walkers_off}")
    print(f"first run: {args.ticks / cpu:.0f} ticks/s of CPU, digest {digest(first.hashes)}")
    print(f"same seed in another process, identical state at every tick: {same}")
    print(f"other seed, different traffic: {differs}")
    restricted_same = True
    if restricted is not None:
        hashes = answer(restricted, "restricted")["hashes"]
        restricted_same = hashes == first.hashes
        print(
            f"numpy without {' '.join(DISABLED) or 'nothing (no dispatch targets)'}: "
            f"digest {digest(hashes)}, identical at every tick: {restricted_same}"
        )
    return 0 if clean and same and differs and restricted_same else 1


if __name__ == "__main__":
    raise SystemExit(main())
