"""Traffic at scale: ticks/s and microseconds per vehicle-tick from 100 to 10,000 vehicles.

For each size, autopilot vehicles and a tenth as many AI walkers on a generated grid town
(2 lanes each way, 20 Hz ticks) big enough to hold them at about one vehicle per 50-80 m of
driving lane; the tick rate and the CPU time per vehicle and tick (this process's CPU
seconds, so time spent waiting for a shared core is left out), each tick phase's share, and
the growth of the cost per vehicle against the smallest size (goals: at most 1.15x at 1,000
vehicles and 1.4x at 10,000). Then SUMO beside it where it installs (`pip install
'lockstep[sumo]'`: eclipse-sumo and libsumo), on the same 6x6 grid of 200 m blocks rebuilt
with SUMO's netgenerate (the set-up of ../shared/peers/sumo.md), 100 and 1,000 vehicles,
lockstep and SUMO interleaved round by round on one core, with the ratios to SUMO and to
the goals (>= 4,500 and >= 400 ticks/s; aimed at: twice SUMO, 8,000 and 700). A plot of the
cost per vehicle-tick against the vehicles goes to --plot when Pillow is installed.

    .venv/bin/python benchmarks/bench_scale_traffic.py [--sizes 100,300,1000,3000,10000]
        [--rounds 3] [--seconds 4] [--no-sumo] [--plot scale.png]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from world import Map, World, WorldSettings  # noqa: E402
from world.map.towngen import TownSpec, render_town  # noqa: E402
from world.traffic.autopilot.lane_paths import LanePaths  # noqa: E402
from world.traffic.scene import populate_traffic  # noqa: E402

# vehicles -> (blocks across, block side m): about 65 m of driving lane per vehicle
TOWNS = {100: (2, 150.0), 300: (3, 200.0), 1000: (6, 200.0), 3000: (11, 200.0), 10000: (20, 200.0)}
GROWTH_GOALS = {1000: 1.15, 10000: 1.4}  # cost per vehicle-tick against the smallest size
# ticks/s on the 6x6 town, one core: the goal (ahead of SUMO) and the aim (twice SUMO)
GOALS = {100: (4500.0, 8000.0), 1000: (400.0, 700.0)}
SUMO_NOTE = "../shared/peers/sumo.md: SUMO 1.28 via libsumo, 4,110-4,360 and 328-352 steps/s"
PHASES = ("traffic_manager", "physics", "trigger_boxes", "light_groups", "sign_timers", "sensors")


def town(folder: Path, vehicles: int) -> Path:
    """The generated grid town for `vehicles` (written once into `folder`)."""
    blocks, side = TOWNS[vehicles]
    path = folder / f"grid{blocks}x{blocks}_{side:.0f}.xodr"
    if not path.exists():
        spec = TownSpec(
            seed=5, blocks_x=blocks, blocks_y=blocks, block_size=side, lanes=2, name=path.stem
        )
        path.write_text(render_town(spec), encoding="utf-8")
    return path


class Scene:
    """A world with the traffic of one size, its phases timed in CPU seconds when `timed`
    (two clock reads a phase: about 1 us each, a few per cent of a tick at 100 vehicles,
    so the side-by-side run with SUMO leaves them out)."""

    def __init__(self, path: Path, vehicles: int, seed: int, timed: bool = True) -> None:
        self.world = World(Map.from_file(path))
        self.world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
        scene = populate_traffic(self.world, vehicles, vehicles // 10, seed)
        self.vehicles, self.walkers = len(scene.vehicles), len(scene.walkers)
        paths = LanePaths.of_map(self.world.get_map())
        self.lane_per_vehicle = float(paths.length.sum()) / max(self.vehicles, 1)
        self.spent: dict[str, float] = dict.fromkeys(PHASES, 0.0)
        if not timed:
            return
        timed_systems = []
        for phase, system in self.world.tick_systems:

            def run(world, dt, system=system, phase=phase):
                t0 = time.process_time()
                system(world, dt)
                self.spent[phase] += time.process_time() - t0

            timed_systems.append((phase, run))
        self.world.tick_systems = timed_systems

    def run(self, seconds: float) -> tuple[int, float]:
        """Ticks for about `seconds` of CPU; (ticks, CPU seconds)."""
        ticks, t0 = 0, time.process_time()
        while time.process_time() - t0 < seconds:
            for _ in range(10):
                self.world.tick()
            ticks += 10
        return ticks, time.process_time() - t0


class Figures:
    """What the table prints of a scene, kept after its world is gone."""

    def __init__(self, scene: Scene) -> None:
        self.vehicles, self.walkers = scene.vehicles, scene.walkers
        self.lane_per_vehicle = scene.lane_per_vehicle


def sumo_network(folder: Path) -> Path | None:
    """SUMO's 6x6 grid of 200 m blocks, 2 lanes each way, lights at every crossing."""
    tool = shutil.which("netgenerate") or _sumo_binary("netgenerate")
    if tool is None:
        return None
    net = folder / "grid6.net.xml"
    subprocess.run(
        [tool, "--grid", "--grid.number", "6", "--grid.length", "200",
         "--default.lanenumber", "2", "--default-junction-type", "traffic_light",
         "--no-turnarounds", "true", "--seed", "1", "-o", str(net)],
        check=True, capture_output=True,
    )  # fmt: skip
    return net


def _sumo_binary(name: str) -> str | None:
    try:
        import sumo
    except ImportError:
        return None
    path = Path(sumo.SUMO_HOME) / "bin" / name
    return str(path) if path.exists() else None


def sumo_routes(net: Path, vehicles: int, out: Path) -> Path:
    """`vehicles` long random routes (a walk of 400 edges along the network's connections),
    departing over the first minute at free places, so the network holds them all."""
    root = ET.parse(net).getroot()
    edges = [e.get("id") for e in root.iter("edge") if e.get("function") != "internal"]
    onward: dict[str, list[str]] = {e: [] for e in edges}
    for c in root.iter("connection"):
        a, b = c.get("from"), c.get("to")
        if a in onward and b in onward and b not in onward[a]:
            onward[a].append(b)
    pick = random.Random(1)
    lines = ['<routes><vType id="car" length="4.9" accel="2.6" decel="4.5" maxSpeed="13.9"/>']
    for v in range(vehicles):
        walk = [pick.choice(edges)]
        while len(walk) < 400 and onward[walk[-1]]:
            walk.append(pick.choice(onward[walk[-1]]))
        depart = 60.0 * v / vehicles
        lines.append(
            f'<vehicle id="v{v}" type="car" depart="{depart:.2f}" departPos="random_free" '
            f'departLane="best"><route edges="{" ".join(walk)}"/></vehicle>'
        )
    lines.append("</routes>")
    out.write_text("\n".join(lines), encoding="utf-8")
    return out


def sumo_rate(net: Path, routes: Path, steps: int) -> tuple[float, int]:
    """SUMO's steps per CPU second after a 70 s warm-up, and the vehicles in the network."""
    import libsumo

    libsumo.start(
        ["sumo", "-n", str(net), "-r", str(routes), "--step-length", "0.05", "--seed", "1",
         "--no-step-log", "--no-warnings", "--time-to-teleport", "-1"]
    )  # fmt: skip
    try:
        while libsumo.simulation.getTime() < 70.0:
            libsumo.simulationStep()
        t0 = time.process_time()
        for _ in range(steps):
            libsumo.simulationStep()
        spent = time.process_time() - t0
        return steps / spent, libsumo.vehicle.getIDCount()
    finally:
        libsumo.close()


def plot(path: Path, points: list[tuple[int, float]]) -> str:
    """µs per vehicle-tick against vehicles (log x) as a PNG; what was done."""
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        return "no plot: Pillow is not installed (pip install 'lockstep[pictures]')"
    from world import elementary as el

    width, height, margin = 640, 400, 50
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    top = max(cost for _, cost in points) * 1.2
    lo, hi = el.log(points[0][0]), el.log(points[-1][0])

    def at(vehicles: int, cost: float) -> tuple[float, float]:
        x = margin + (width - 2 * margin) * (el.log(vehicles) - lo) / max(hi - lo, 1e-9)
        return x, height - margin - (height - 2 * margin) * cost / top

    draw.line(
        [(margin, margin), (margin, height - margin), (width - margin, height - margin)], "black"
    )
    draw.line([at(v, c) for v, c in points], "blue", 2)
    for v, c in points:
        x, y = at(v, c)
        draw.ellipse([x - 3, y - 3, x + 3, y + 3], "blue")
        draw.text((x - 15, height - margin + 8), f"{v:,}", "black")
        draw.text((x + 6, y - 14), f"{c:.1f}", "black")
    draw.text((margin, 15), "lockstep: CPU us per vehicle-tick against vehicles (log)", "black")
    image.save(path)
    return f"plot: {path}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,300,1000,3000,10000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0, help="CPU s of ticks per round")
    parser.add_argument("--warmup", type=int, default=100, help="ticks before timing")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-sumo", action="store_true")
    parser.add_argument("--plot", type=Path, default=None)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    unknown = [s for s in sizes if s not in TOWNS]
    if unknown:
        parser.error(f"--sizes: no town for {unknown}; expected among {sorted(TOWNS)}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (CPU time is timed)")
    folder = Path(tempfile.mkdtemp(prefix="bench-scale-traffic-"))
    rows: list[tuple] = []
    for vehicles in sizes:
        path = town(folder, vehicles)
        t0 = time.process_time()
        scene = Scene(path, vehicles, args.seed)
        setup = time.process_time() - t0
        for _ in range(args.warmup):
            scene.world.tick()
        scene.spent = dict.fromkeys(PHASES, 0.0)
        costs, total_ticks, total_cpu = [], 0, 0.0
        for _ in range(args.rounds):
            ticks, cpu = scene.run(args.seconds)
            costs.append(cpu / ticks / scene.vehicles * 1e6)
            total_ticks, total_cpu = total_ticks + ticks, total_cpu + cpu
        costs.sort()
        shares = {p: s / total_cpu for p, s in scene.spent.items()}
        resident = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB
        print(
            f"{scene.vehicles:,} vehicles: set-up {setup:.1f} s of CPU (map, lane paths, "
            f"spawns), peak resident memory so far {resident:,.0f} MiB",
            flush=True,
        )
        rows.append((vehicles, Figures(scene), costs, total_ticks / total_cpu, shares))
        del scene  # its world goes before the next size's is made
        gc.collect()
    base = rows[0][2][len(rows[0][2]) // 2]
    print()
    print(
        "| vehicles | walkers | lane m/vehicle | ticks/s | us/vehicle-tick (min-median-max) "
        "| x smallest | traffic manager | physics | trigger boxes | lights+signs | sensors |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    points = []
    for _, scene, costs, rate, shares in rows:
        median = costs[len(costs) // 2]
        points.append((scene.vehicles, median))
        lights = shares["light_groups"] + shares["sign_timers"]
        print(
            f"| {scene.vehicles:,} | {scene.walkers:,} | {scene.lane_per_vehicle:.0f} | "
            f"{rate:,.0f} | {costs[0]:.2f}-{median:.2f}-{costs[-1]:.2f} | {median / base:.2f} | "
            f"{shares['traffic_manager']:.0%} | {shares['physics']:.0%} | "
            f"{shares['trigger_boxes']:.0%} | {lights:.0%} | {shares['sensors']:.0%} |"
        )
    medians = {asked: costs[len(costs) // 2] for asked, _, costs, _, _ in rows}
    for vehicles, goal in GROWTH_GOALS.items():
        if vehicles in medians and vehicles != sizes[0]:
            growth = medians[vehicles] / base
            print(f"cost at {vehicles:,} / at {sizes[0]:,}: {growth:.2f} (goal <= {goal})")
    if args.plot is not None and len(points) > 1:
        print(plot(args.plot, points))
    if not args.no_sumo:
        compare_with_sumo(folder, args)
    return 0


def compare_with_sumo(folder: Path, args: argparse.Namespace) -> None:
    """lockstep and SUMO on the 6x6 town, 100 and 1,000 vehicles, interleaved by round."""
    print()
    try:
        import libsumo  # noqa: F401
    except ImportError:
        print(
            "SUMO: libsumo is not installed here (pip install 'lockstep[sumo]': eclipse-sumo "
            f"and libsumo); its published figures: {SUMO_NOTE}"
        )
        return
    net = sumo_network(folder)
    if net is None:
        print("SUMO: netgenerate not found (eclipse-sumo's binaries); no side-by-side run")
        return
    path = town(folder, 1000)  # the 6x6 town of 200 m blocks
    print("| vehicles | lockstep ticks/s | SUMO steps/s | lockstep / SUMO | goal | aim |")
    print("|---|---|---|---|---|---|")
    for vehicles in (100, 1000):
        routes = sumo_routes(net, vehicles, folder / f"grid6_{vehicles}.rou.xml")
        scene = Scene(path, vehicles, args.seed, timed=False)
        for _ in range(args.warmup):
            scene.world.tick()
        ours, theirs = [], []
        for _ in range(args.rounds):
            ticks, cpu = scene.run(args.seconds)
            ours.append(ticks / cpu)
            rate, in_net = sumo_rate(net, routes, 2000)
            theirs.append(rate)
        ours.sort()
        theirs.sort()
        mine, peer = ours[len(ours) // 2], theirs[len(theirs) // 2]
        goal, aim = GOALS[vehicles]
        print(
            f"| {vehicles:,} ({in_net:,} in SUMO's network) | {ours[0]:,.0f}-{mine:,.0f}-"
            f"{ours[-1]:,.0f} | {theirs[0]:,.0f}-{peer:,.0f}-{theirs[-1]:,.0f} | "
            f"{mine / peer:.2f}x | {goal:,.0f}: {mine / goal:.2f}x | "
            f"{aim:,.0f}: {mine / aim:.2f}x |"
        )


if __name__ == "__main__":
    raise SystemExit(main())
