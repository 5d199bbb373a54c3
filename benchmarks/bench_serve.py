"""Synchronous ticks per second through `lockstep serve` with CARLA's real client.

For 0, 10 and 100 autopilot cars on the medium town, the rate a CARLA client script gets from
`world.tick()` (wall clock, in the client) with CARLA's own Traffic Manager (it runs in the
client and drives by apply_batch) and with lockstep's (served on a Traffic Manager port), next
to lockstep's in-process tick rate with its traffic manager and the same cars. Ratios: to the
goal (500 ticks/s with 100 cars on lockstep's manager through the wire) and to CARLA with its
traffic manager: 15 FPS at 100 vehicles with physics and traffic manager on, from CARLA's
Docs/adv_benchmarking.md, "CARLA performance report" (synchronous mode, no rendering; CARLA
0.9.x, dev branch of 2021-01-29, a Xeon E5-1620 v3 with a GTX 1080 Ti), the goal being 15
times that. Each figure is the median of --repeat runs; on a busy machine they are noisy.

Needs CARLA's client: pip install carla==0.9.16 (the test extra has it).

    .venv/bin/python benchmarks/bench_serve.py [--ticks 1000] [--repeat 3] [--cars 0,10,100]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOWN = REPO / "configs" / "maps" / "town_medium.xodr"
GOAL = 500.0  # ticks/s, 100 cars on lockstep's manager through the wire
CARLA_WITH_TM = 15.0  # FPS, CARLA's performance report (see the docstring)

CLIENT = """
import sys, time, carla
from carla import command
port, tm_port, cars, warmup, ticks = (int(a) for a in sys.argv[1:6])
client = carla.Client("127.0.0.1", port)
client.set_timeout(60.0)
world = client.reload_world()
settings = world.get_settings()
settings.synchronous_mode = True
settings.fixed_delta_seconds = 0.05
world.apply_settings(settings)
tm = client.get_trafficmanager(tm_port)
tm.set_synchronous_mode(True)
tm.set_random_device_seed(1)
points = world.get_map().get_spawn_points()
blueprint = world.get_blueprint_library().find("vehicle.tesla.model3")
step = max(1, len(points) // max(cars, 1))
fleet = []
for i in range(len(points)):
    if len(fleet) == cars:
        break
    car = world.try_spawn_actor(blueprint, points[(i * step) % len(points)])
    if car is not None:
        fleet.append(car)
batch = [command.SetAutopilot(car, True, tm_port) for car in fleet]
spawned = [r for r in client.apply_batch_sync(batch, True) if not r.error]
for _ in range(warmup):
    world.tick()
start = time.perf_counter()
for _ in range(ticks):
    world.tick()
print(len(spawned), ticks / (time.perf_counter() - start))
sys.stdout.flush()
import os
os._exit(0)  # CARLA's client library's teardown aborts now and then: the figure is out
"""


def _free_port() -> int:
    while True:
        with socket.socket() as a, socket.socket() as b:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            try:
                b.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
            return port


class _Server:
    def __init__(self, folder: Path, *args: str) -> None:
        self.port = _free_port()
        self.log = folder / f"serve_{self.port}.log"
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "runner.cli", "serve", "--port", str(self.port), *args],
                cwd=REPO,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 300.0
        while "serving" not in self.log.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"lockstep serve did not start:\n{self.log.read_text()}")
            time.sleep(0.1)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait()


def _through_the_wire(
    folder: Path, server: _Server, tm_port: int, cars: int, warmup: int, ticks: int
) -> float:
    script = folder / "client.py"
    script.write_text(textwrap.dedent(CLIENT))
    command = [sys.executable, "-u", str(script), str(server.port), str(tm_port)]
    command += [str(cars), str(warmup), str(ticks)]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            cwd=folder,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(folder)},
            timeout=120 + 0.2 * (warmup + ticks),
        )
    except subprocess.TimeoutExpired:
        # CARLA 0.9.16's traffic manager, in the client, can deadlock in synchronous mode
        # (carla-simulator/carla#9172, fixed after 0.9.16 by #9344): run the bench again
        raise SystemExit("the client hung (CARLA's traffic manager's race, carla#9172)") from None
    # judged by its line, not by how CARLA's client library ended the process
    if len(done.stdout.split()) != 2:
        raise SystemExit(f"the client failed ({done.returncode}):\n{done.stderr[-3000:]}")
    spawned, rate = done.stdout.split()
    if int(spawned) != cars:
        raise SystemExit(f"only {spawned} of {cars} cars spawned")
    return float(rate)


def _in_process(cars: int, warmup: int, ticks: int) -> float:
    from world import Map, World, WorldSettings

    world = World(Map.from_file(TOWN))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    points = world.get_map().get_spawn_points()
    blueprint = world.get_blueprint_library().find("vehicle.tesla.model3")
    step = max(1, len(points) // max(cars, 1))
    fleet = []
    for i in range(len(points)):
        if len(fleet) == cars:
            break
        car = world.try_spawn_actor(blueprint, points[(i * step) % len(points)])
        if car is not None:
            fleet.append(car)
    if fleet:
        tm = world.get_trafficmanager(8000)
        tm.set_random_device_seed(1)
        tm.register_vehicles(fleet)
    for _ in range(warmup):
        world.tick()
    start = time.perf_counter()
    for _ in range(ticks):
        world.tick()
    return ticks / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cars", default="0,10,100")
    args = parser.parse_args()
    counts = [int(c) for c in args.cars.split(",")]
    try:
        import carla  # noqa: F401 - CARLA's client, only to say it is missing
    except ImportError:
        print("bench_serve: CARLA's client is missing (pip install carla==0.9.16)")
        return 1

    rows: dict[int, dict[str, float]] = {c: {} for c in counts}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        tm_port = _free_port()
        for manager, extra in (
            ("carla", []),
            ("lockstep", ["--traffic-manager", "lockstep", "--tm-port", str(tm_port)]),
        ):
            server = _Server(folder, "--map", str(TOWN), *extra)
            try:
                port = tm_port if manager == "lockstep" else server.port + 5
                for cars in counts:
                    rates = [
                        _through_the_wire(folder, server, port, cars, args.warmup, args.ticks)
                        for _ in range(args.repeat)
                    ]
                    rows[cars][manager] = statistics.median(rates)
            finally:
                server.stop()
        for cars in counts:
            rates = [_in_process(cars, args.warmup, args.ticks) for _ in range(args.repeat)]
            rows[cars]["in-process"] = statistics.median(rates)

    print(f"town_medium, {args.ticks} synchronous ticks of 0.05 s, median of {args.repeat}")
    print(f"{'cars':>5} {'CARLA TM':>10} {'lockstep TM':>12} {'in-process':>11} {'wire/in':>8}")
    for cars in counts:
        row = rows[cars]
        ratio = row["lockstep"] / row["in-process"]
        print(
            f"{cars:>5} {row['carla']:>10.1f} {row['lockstep']:>12.1f} "
            f"{row['in-process']:>11.1f} {ratio:>8.2f}"
        )
    top = rows[max(counts)]
    print(
        f"{max(counts)} cars, lockstep's manager through the wire: {top['lockstep']:.0f} ticks/s, "
        f"{top['lockstep'] / GOAL:.2f}x the goal ({GOAL:.0f}), "
        f"{top['lockstep'] / CARLA_WITH_TM:.1f}x CARLA with its manager "
        f"({CARLA_WITH_TM:.0f} FPS, Docs/adv_benchmarking.md); with CARLA's manager "
        f"{top['carla'] / CARLA_WITH_TM:.1f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
