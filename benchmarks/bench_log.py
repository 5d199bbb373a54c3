"""Times the log tools on a deterministic ~100 MB log, against CARLA's own C++ figures.

The log has the shape of the one timed in ../shared/carla-golden/README.md: 20,000 frames
at 0.05 s, 180 moving vehicles with a Position record every frame (each stops now and
then, so the blocked query has rows), 40 collisions, no additional data. It is written
with the project's LogWriter (timed: CARLA writes it in 3.4-3.7 s), or taken from --log.

First the commands as users run them: whole `lockstep` processes (Python's start-up, the
imports, reading the file and printing included), the median of --runs runs each, with
each process's peak memory (its max RSS, from os.wait4), next to Python's own start-up
(`python -c pass`, `import numpy`, `import recorder`); a process's peak is read by a small
launcher that forks it, whose own ~5 MiB is the floor. Then the same work in this process:
the three queries, info -a, the packet walk, the frame index and seeks, open_log's poses,
the JSON dump, each with MB/s. Every time is given as a ratio to CARLA's where the README
gives one (below 1 = faster), with the goal it is held to.

CARLA's figures: ../shared/carla-golden/README.md, section "Timings of CARLA's own code on
a 100 MB log (this machine kind, 2 cores)": CARLA's query code built with clang -O2 and
libc++, run outside Unreal on a generated log of this shape, median of 3 runs, with peak
memory.

    python benchmarks/bench_log.py [--frames N] [--keep PATH | --log PATH] [--runs N]
                                   [--skip-dump] [--skip-in-process]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from recorder import (
    LogReader,
    LogWriter,
    PacketId,
    dump_log,
    open_log,
    query_blocked,
    query_collisions,
    query_info,
)
from recorder.logfile.packets import DTYPES, ActorAttribute, CollisionRecord, EventAddRecord

FRAMES = 20_000
ACTORS = 180
DELTA = 0.05
COLLISIONS = 40
# CARLA's query code on the README's 100 MB log (median of 3, seconds), from the table in
# ../shared/carla-golden/README.md, "Timings of CARLA's own code on a 100 MB log".
CARLA = {
    "info": 0.41,
    "info -a": 19.5,
    "collisions a a": 0.45,
    "collisions h v": 0.44,
    "blocked 30 10": 1.28,
    "blocked 5 100": 1.27,
    "blocked 1 1": 1.23,
    "write log": 3.4,
}
# The README's peak memory of CARLA's query processes (MB as the README writes them).
CARLA_PEAK_MB = {"info": 3.4, "info -a": 627, "collisions a a": 3.2, "collisions h v": 3.2}
CARLA_PEAK_MB |= {"blocked 30 10": 3.4, "blocked 5 100": 3.4, "blocked 1 1": 3.4}
# The goals: in-process no slower than CARLA (1.5x for info -a); the whole info and
# collisions processes at most half CARLA's time and 64 MiB of peak memory.
GOAL = {"info -a": 1.5}
PROCESS_GOAL = {"info": 0.5, "collisions a a": 0.5, "collisions h v": 0.5}
PEAK_GOAL_MIB = 64
# Whole-process commands: (label, arguments after `lockstep`, with LOG for the log's path).
COMMANDS = [
    ("info", ["info", "-f", "LOG"]),
    ("collisions a a", ["collisions", "-f", "LOG"]),
    ("collisions h v", ["collisions", "-f", "LOG", "-t", "hv"]),
    ("blocked 30 10", ["blocked", "-f", "LOG", "-t", "30", "-d", "10"]),
]


def actor_tracks(frames: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions (frames, actors, 3) in cm and yaw (frames, actors): each vehicle drives a
    circle at its own speed and stands still for 8 s out of every 40 s, phase-shifted."""
    t = np.arange(frames)[:, None] * DELTA
    k = np.arange(ACTORS)[None, :]
    speed = 500.0 + 10.0 * k  # cm/s
    cycle = 40.0
    phase = (t + 0.37 * k) % cycle
    moving_time = np.minimum(phase, cycle - 8.0) + np.floor((t + 0.37 * k) / cycle) * (cycle - 8)
    radius = 5000.0 + 100.0 * k
    angle = speed * moving_time / radius
    xyz = np.stack(
        [radius * np.cos(angle), radius * np.sin(angle), np.full_like(angle, 30.0)], axis=-1
    )
    return xyz.astype(np.float32), np.degrees(angle + np.pi / 2).astype(np.float32)


def build(path: Path, frames: int) -> float:
    """Writes the log; returns the seconds spent writing frames."""
    xyz, yaw = actor_tracks(frames)
    ids = np.arange(100, 100 + ACTORS, dtype=np.uint32)
    records = np.zeros(ACTORS, DTYPES[PacketId.Position])
    records["id"] = ids
    adds = []
    for n, i in enumerate(ids.tolist()):
        role = ActorAttribute(2, "role_name", "hero" if n == 0 else "autopilot")
        where = tuple(map(float, xyz[0, n]))
        turn = (0.0, 0.0, float(yaw[0, n]))
        adds.append(EventAddRecord(i, 1, where, turn, i, "vehicle.tesla.model3", [role]))
    hits = {}
    step = frames // COLLISIONS
    for c in range(COLLISIONS):
        frame = 10 + c * step
        a, b = int(ids[c % ACTORS]), int(ids[(c * 7 + 3) % ACTORS])
        hits[frame] = [CollisionRecord(c, a, b, a == int(ids[0]), b == int(ids[0]))]
    start = time.perf_counter()
    with LogWriter(path, map_name="Carla/Maps/Town10HD_Opt", date=1767225600) as writer:
        for f in range(frames):
            records["location"] = xyz[f]
            records["rotation"][:, 2] = yaw[f]
            packets = {PacketId.Position: records}
            if f == 0:
                packets[PacketId.EventAdd] = adds
            if f in hits:
                packets[PacketId.Collision] = hits[f]
            writer.write_frame(np.float32(DELTA), packets, visual_time=f * DELTA)
    return time.perf_counter() - start


# Runs one command and reports its wall time and peak RSS. A child's max RSS counts the
# memory of the process it was forked from (Linux keeps the pre-exec high-water mark), so
# the command is forked from this small launcher (about 5 MiB), not from the benchmark.
_LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    try:
        os.execv(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
cpu = usage.ru_utime + usage.ru_stime
print(time.perf_counter() - start, cpu, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


# As an installed package runs: with its bytecode cached (PYTHONDONTWRITEBYTECODE would make
# every process compile lockstep's modules again).
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_process(argv: list[str]) -> tuple[float, float, int]:
    """One whole process: (wall seconds, CPU seconds, peak RSS in bytes), its output thrown
    away."""
    launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER, *argv]
    done = subprocess.run(launcher, capture_output=True, text=True, check=False, env=_ENV)
    try:
        seconds, cpu, peak_kib, code = done.stdout.split()
    except ValueError:
        raise SystemExit(f"could not run {' '.join(argv)}: {done.stderr.strip()}") from None
    if int(code) != 0:
        raise SystemExit(f"{' '.join(argv)} exited {code}: {done.stderr.strip()}")
    return float(seconds), float(cpu), int(peak_kib) * 1024  # Linux gives kilobytes


def timed_process(label: str, argv: list[str], runs: int) -> tuple[float, int]:
    """The median wall time of `runs` processes (and their median CPU time, user + system:
    what the wall time is on an idle machine) and the highest peak RSS, printed with the
    ratios to CARLA's figures where the README gives them."""
    run_process(argv)  # warm-up, not counted: bytecode written, the log in the OS's cache
    results = [run_process(argv) for _ in range(runs)]
    seconds = statistics.median(r[0] for r in results)
    cpu = statistics.median(r[1] for r in results)
    peak = max(r[2] for r in results)
    line = f"{label:24s} {seconds:7.3f} s (cpu {cpu:6.3f} s)  peak {peak / 2**20:6.1f} MiB"
    if label in CARLA:
        r, rc = seconds / CARLA[label], cpu / CARLA[label]
        goal = PROCESS_GOAL.get(label)
        verdict = f", goal {goal}: {'ok' if r <= goal else 'SLOW'}" if goal else ""
        line += f"  x{r:5.2f} (cpu x{rc:5.2f}) of CARLA's {CARLA[label]:.2f} s{verdict}"
    if label in CARLA_PEAK_MB:
        mem = f"  (CARLA {CARLA_PEAK_MB[label]} MB"
        if label in PROCESS_GOAL:
            mem += f"; goal {PEAK_GOAL_MIB} MiB: {'ok' if peak <= PEAK_GOAL_MIB << 20 else 'OVER'}"
        line += mem + ")"
    print(line)
    return seconds, peak


def lockstep_command() -> list[str]:
    """The installed `lockstep` console script beside this Python, else `python -m`."""
    script = Path(sys.executable).with_name("lockstep")
    if script.exists():
        return [str(script)]
    found = shutil.which("lockstep")
    return [found] if found else [sys.executable, "-m", "runner.cli"]


def whole_processes(path: Path, runs: int, with_all: bool) -> None:
    """Python's start-up, then each command as a whole process (see the module)."""
    python = sys.executable
    print(f"whole processes, median of {runs} runs (start-up included, output discarded):")
    timed_process("python -c pass", [python, "-c", "pass"], runs)
    timed_process("python: import numpy", [python, "-c", "import numpy"], runs)
    timed_process("python: import recorder", [python, "-c", "import recorder"], runs)
    lockstep = lockstep_command()
    print(f"  ({' '.join(lockstep)} ...)")
    for label, args in COMMANDS:
        timed_process(label, [*lockstep, *(str(path) if a == "LOG" else a for a in args)], runs)
    if with_all:
        timed_process("info -a", [*lockstep, "info", "-f", str(path), "-a"], 1)


def timed(label: str, size_mb: float, run, extra: str = "") -> float:
    start = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - start
    ratio = ""
    if label in CARLA:
        r = seconds / CARLA[label]
        goal = GOAL.get(label, 1.0)
        ratio = f"  x{r:5.2f} of CARLA's {CARLA[label]:.2f} s ({'ok' if r <= goal else 'SLOW'})"
    detail = extra or (
        f"  -> {len(result) / 1e6:.1f} MB of text" if isinstance(result, str) else ""
    )
    print(f"{label:16s} {seconds:8.3f} s {size_mb / seconds:9.1f} MB/s{ratio}{detail}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=FRAMES)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--keep", type=Path, help="write the log here and keep it")
    where.add_argument("--log", type=Path, help="time this log (made by --keep) instead")
    parser.add_argument("--runs", type=int, default=5, help="runs of each whole process (5)")
    parser.add_argument("--skip-dump", action="store_true", help="leave out the JSON dump")
    parser.add_argument("--skip-in-process", action="store_true", help="only the whole processes")
    parser.add_argument(
        "--with-all", action="store_true", help="also the whole `info -a` process (one run)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.log or args.keep or Path(tmp) / "bench.log"
        write = None if args.log else build(path, args.frames)
        size_mb = path.stat().st_size / 1e6
        print(f"log: {path} ({path.stat().st_size:,} bytes)")
        if write is not None:
            r = write / CARLA["write log"]
            print(f"  {args.frames} frames, {ACTORS} actors")
            print(
                f"{'write log':16s} {write:8.3f} s {size_mb / write:9.1f} MB/s  x{r:5.2f} of "
                f"CARLA's {CARLA['write log']:.2f} s ({'ok' if r <= 1 else 'SLOW'})"
            )
        whole_processes(path, args.runs, args.with_all)
        if not args.skip_in_process:
            in_process(path, size_mb, args.skip_dump)
    return 0


def in_process(path: Path, size_mb: float, skip_dump: bool) -> None:
    """The queries and tools in this process, on the file (mapped as the CLI maps it)."""
    print("in this process (imports done; the file is read by each query):")
    timed("info", size_mb, lambda: query_info(path))
    timed("collisions a a", size_mb, lambda: query_collisions(path, "a", "a"))
    timed("collisions h v", size_mb, lambda: query_collisions(path, "h", "v"))
    timed("blocked 30 10", size_mb, lambda: query_blocked(path, 30, 10))
    timed("blocked 5 100", size_mb, lambda: query_blocked(path, 5, 100))
    timed("blocked 1 1", size_mb, lambda: query_blocked(path, 1, 1))
    timed("info -a", size_mb, lambda: query_info(path, show_all=True))
    timed("packets()", size_mb, lambda: sum(1 for _ in LogReader(path).packets()))
    reader = LogReader(path)
    timed("index build", size_mb, lambda: reader.frame_index)
    last = int(reader.frame_index.frame_id[-1])
    start = time.perf_counter()
    for k in range(1000):
        reader.seek_frame(1 + (k * 7919) % last)
        reader.seek_time((k * 0.37) % (last * DELTA))
    print(f"{'seek':16s} {(time.perf_counter() - start) / 2000 * 1e6:8.2f} us a seek")
    timed("poses()", size_mb, lambda: open_log(path).poses())
    if not skip_dump:
        timed("dump", size_mb, lambda: dump_log(reader))


if __name__ == "__main__":
    sys.exit(main())
