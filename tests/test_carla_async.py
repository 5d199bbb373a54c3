"""Asynchronous mode under `lockstep exec`: a script in the style of CARLA's dynamic_weather.py
(the world left asynchronous, a `wait_for_tick` loop) runs, stops and gives the same log
twice; a sleeping script moves an asynchronous world; `--frames` interrupts a script that
loops forever, as Ctrl+C does."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from runner.log_compare import compare_logs

REPO = Path(__file__).resolve().parent.parent

WEATHER_SCRIPT = """
import argparse
import carla

parser = argparse.ArgumentParser()
parser.add_argument("--log")
parser.add_argument("--seconds", type=float, default=3.0)
args = parser.parse_args()

client = carla.Client("127.0.0.1", 2000)
client.set_timeout(2.0)
world = client.get_world()  # CARLA's defaults: asynchronous, variable step
tm = client.get_trafficmanager()
tm.set_random_device_seed(5)
blueprint = world.get_blueprint_library().find("vehicle.lincoln.mkz_2020")
batch = [
    carla.command.SpawnActor(blueprint, t).then(
        carla.command.SetAutopilot(carla.command.FutureActor, True, tm.get_port()))
    for t in world.get_map().get_spawn_points()[:4]
]
client.apply_batch_sync(batch)
client.start_recorder(args.log, True)
weather = world.get_weather()
elapsed = 0.0
ticks = []
world.on_tick(lambda snapshot: ticks.append(snapshot.frame))
while elapsed < args.seconds:
    timestamp = world.wait_for_tick(seconds=30.0).timestamp
    elapsed += timestamp.delta_seconds
    weather.sun_altitude_angle = 10.0 + elapsed
    world.set_weather(weather)
client.stop_recorder()
print("frames", len(ticks), "last", world.get_snapshot().frame)
"""


def _exec(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "runner.cli", "exec", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )


def test_a_wait_for_tick_loop_advances_an_asynchronous_world_the_same_every_run(tmp_path):
    script = tmp_path / "weather.py"
    script.write_text(textwrap.dedent(WEATHER_SCRIPT))
    logs = []
    for run in range(2):
        log = tmp_path / f"run{run}.log"
        done = _exec(str(script), "--log", str(log), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        # each wait one step of the variable step's stand-in, 0.05 s, which the client reads
        # as CARLA's float32 delta 0.05000000074505806: sixty add up to 3.0000000447, >= 3.0
        assert done.stdout.split() == ["frames", "60", "last", "60"]
        assert done.stderr.count("fixed_delta_seconds is None") == 1
        logs.append(log)
    assert compare_logs(logs[0], logs[1]) is None


SLEEPER = """
import threading
import time
import carla

world = carla.Client().get_world()
settings = world.get_settings()
settings.fixed_delta_seconds = 0.1
world.apply_settings(settings)
time.sleep(2.0)
print("after sleep", world.get_snapshot().frame)
waiter = threading.Thread(target=time.sleep, args=(0.05,))
waiter.start()
waiter.join()
print("a thread's sleep", world.get_snapshot().frame)
settings.synchronous_mode = True
world.apply_settings(settings)
time.sleep(0.01)
print("synchronous sleep", world.get_snapshot().frame)
"""


def test_a_sleep_moves_an_asynchronous_world_and_not_a_synchronous_one(tmp_path):
    script = tmp_path / "sleeper.py"
    script.write_text(textwrap.dedent(SLEEPER))
    done = _exec(str(script), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # 2 s of sleep at 0.1 s a step: 20 steps; another thread's sleep (a library's watchdog)
    # moves nothing, nor does a sleep while the world is synchronous
    assert done.stdout.splitlines() == [
        "after sleep 20",
        "a thread's sleep 20",
        "synchronous sleep 20",
    ]


FOREVER = """
import carla

world = carla.Client().get_world()
try:
    while True:
        world.wait_for_tick()
except KeyboardInterrupt:
    print("interrupted at", world.get_snapshot().frame)
"""


def test_frames_interrupts_a_script_that_waits_forever(tmp_path):
    script = tmp_path / "forever.py"
    script.write_text(textwrap.dedent(FOREVER))
    done = _exec("--frames", "30", str(script), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "interrupted at 30"


FRAME_LOOP = """
import carla
import pygame

world = carla.Client().get_world()  # asynchronous, as CARLA's default
settings = world.get_settings()
settings.fixed_delta_seconds = 0.05
world.apply_settings(settings)
server_clock = pygame.time.Clock()
ticks = []
# no_rendering_mode.py's callback: it ticks a clock of its own inside the world's tick
world.on_tick(lambda snapshot: (ticks.append(snapshot.frame), server_clock.tick(60)))
clock = pygame.time.Clock()
for _ in range(10):
    clock.tick_busy_loop(20)
clock.tick(10)
clock.tick()
print(world.get_snapshot().frame, len(ticks), clock.get_fps(), *pygame.time.waits)
"""

# a stand-in for pygame's frame clock: it counts the real waits it is asked for
FAKE_PYGAME = {
    "__init__.py": "from pygame import time\n",
    "time.py": """
waits = []


class Clock:
    def tick(self, framerate=0):
        if framerate:
            waits.append(framerate)
        return 0

    tick_busy_loop = tick

    def get_fps(self):
        return 42.0
""",
}


def test_a_pygame_frame_clock_moves_an_asynchronous_world(tmp_path):
    script = tmp_path / "frames.py"
    script.write_text(textwrap.dedent(FRAME_LOOP))
    (tmp_path / "pygame").mkdir()
    for name, text in FAKE_PYGAME.items():
        (tmp_path / "pygame" / name).write_text(textwrap.dedent(text))
    done = _exec(str(script), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # ten frames at 20 fps are 0.05 s each, one step of 0.05 s each; one at 10 fps is
    # 0.1 s, two steps; a clock without a frame limit does not wait: 12 steps. The clock
    # the tick callback ticks at 60 fps inside a step moves nothing and waits as pygame's
    # would: the only real waits are those twelve
    assert done.stdout.split() == ["12", "12", "42.0", *["60"] * 12]
