"""Evaluations at scale: one route repetition after another, two worker processes and a
local Ray instance write the same logs (less the header date and PlatformTime), the same
results.json (less wall times) and the same manifest; a driver killed at random moments
resumes to the uninterrupted run's results with every task once and no worker left
behind; a worker that dies is retried once, then its route is "Simulation crashed"."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_helpers import REPO, TOWN, manifest_less_output, results_without_wall_times

import runner.execution.checkpoint
import runner.execution.driver
from runner.check import check_run
from runner.cli import main
from runner.config import load_config
from runner.execution.driver import evaluate
from runner.log_compare import compare_logs

# five routes of town_small (three 160 m ones that a 25 s limit cuts short, two 40 m ones
# the autopilot finishes), two repetitions each: ten tasks of a fraction of a second
ROUTES = [
    {"id": 0, "waypoints": [[20.0, 1.75, 0.0], [180.0, 1.75, 0.0]]},
    {"id": 1, "waypoints": [[120.0, -98.25, 0.0], [198.25, -50.0, 0.0]]},
    {"id": 2, "waypoints": [[80.0, -101.75, 0.0], [-1.75, -40.0, 0.0]]},
    {"id": 3, "waypoints": [[20.0, 1.75, 0.0], [60.0, 1.75, 0.0]]},
    {"id": 4, "waypoints": [[120.0, 1.75, 0.0], [160.0, 1.75, 0.0]]},
]
ROUTE_IDS = [f"RouteScenario_{r['id']}_rep{k}" for r in ROUTES for k in range(2)]


def write_ten(folder: Path, **overrides) -> Path:
    data = {
        "name": "ten",
        "seed": 5,
        "map": str(TOWN),
        "tick": 0.05,
        "repetitions": 2,
        "agent": {"entry": "runner.agents.autopilot"},
        "traffic": {"vehicles": 2},
        "limits": {"route_seconds": 25.0},
        "routes": ROUTES,
    }
    data.update(overrides)
    path = folder / "ten.yaml"
    path.write_text(json.dumps(data), encoding="utf-8")  # JSON is YAML
    return path


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The config run one route after another in this process: what every mode must match."""
    folder = tmp_path_factory.mktemp("scale")
    config = write_ten(folder)
    evaluate(load_config(config), folder / "one")
    return config, folder / "one"


def assert_same_run(run: Path, reference: Path, sensors: list[str] | None = None) -> None:
    """The run's logs, results (less wall times; `sensors` in place of the reference's
    when given) and manifest are the reference's."""
    logs = sorted(p.name for p in reference.glob("*.log"))
    assert logs == sorted(f"{r}.log" for r in ROUTE_IDS)
    assert sorted(p.name for p in run.iterdir()) == sorted([*logs, "manifest.yaml", "results.json"])
    for name in logs:
        assert compare_logs(reference / name, run / name) is None, name
    want = results_without_wall_times(reference / "results.json")
    if sensors is not None:
        want["sensors"] = sensors
    assert results_without_wall_times(run / "results.json") == want
    # the same manifest, but for the run directory it names (the run's -o, the config's)
    assert (
        manifest_less_output(run / "manifest.yaml")[0]
        == (manifest_less_output(reference / "manifest.yaml")[0])
    )


def test_reference_run_has_every_task_in_route_order(reference):
    _, one = reference
    data = json.loads((one / "results.json").read_text(encoding="utf-8"))
    records = data["_checkpoint"]["records"]
    assert [r["route_id"] for r in records] == ROUTE_IDS
    assert [r["index"] for r in records] == list(range(10))
    assert data["_checkpoint"]["progress"] == [10, 10]
    assert data["entry_status"] == "Finished"


def test_two_workers_same_bytes(reference, tmp_path):
    config, one = reference
    assert main(["run", str(config), "-o", str(tmp_path / "two"), "--workers", "2"]) == 0
    assert_same_run(tmp_path / "two", one)


def test_ray_same_bytes(reference, tmp_path):
    ray = pytest.importorskip("ray", reason="the Ray test needs the ray extra (lockstep[ray])")
    config, one = reference
    try:
        assert main(["run", str(config), "-o", str(tmp_path / "ray"), "--ray"]) == 0
    finally:
        ray.shutdown()
    assert_same_run(tmp_path / "ray", one)


def test_ray_missing_is_a_clear_error(reference, tmp_path, monkeypatch, capsys):
    config, _ = reference
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    assert main(["run", str(config), "-o", str(tmp_path / "x"), "--ray"]) == 2
    err = capsys.readouterr().err
    assert "--ray needs the ray package" in err
    assert "pip install 'lockstep[ray]'" in err


# -- a killed driver -----------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    """Every live descendant of `pid`, from /proc (the ppid follows the command's ')')."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        kids = [p for p, pp in parents.items() if pp == parent]
        found += kids
        frontier += kids
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _driver(config: Path, out: Path, resume: bool) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "runner.cli", "run", str(config), "-o", str(out)]
    cmd += ["--workers", "2"] + (["--resume"] if resume else [])
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen(
        cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_killed_driver_resumes_to_the_same_results(reference, tmp_path):
    config, one = reference
    out = tmp_path / "killed"
    rng = random.Random(15)
    kills_mid_run = 0
    # each attempt is killed a seeded moment after a given count of tasks has finished
    # (their logs in place), so the kills fall mid-run however fast the machine is
    for attempt, finished in enumerate((2, 4, 6)):
        driver = _driver(config, out, resume=attempt > 0)
        give_up = time.monotonic() + 120.0
        children: set[int] = set()
        while (
            len(list(out.glob("*.log"))) < finished
            and driver.poll() is None
            and time.monotonic() < give_up
        ):
            children.update(_children(driver.pid))
            time.sleep(0.01)
        deadline = time.monotonic() + rng.uniform(0.0, 0.1)
        while time.monotonic() < deadline and driver.poll() is None:
            children.update(_children(driver.pid))
            time.sleep(0.01)
        if driver.poll() is None:
            kills_mid_run += 1
            children.update(_children(driver.pid))
            driver.send_signal(signal.SIGKILL)
        driver.wait()
        # no orphans: every worker (and multiprocessing's helpers) goes with the driver
        gone_by = time.monotonic() + 10.0
        while any(_alive(p) for p in children) and time.monotonic() < gone_by:
            time.sleep(0.05)
        assert not [p for p in children if _alive(p)], "worker processes outlived the driver"
    assert kills_mid_run >= 2
    # the leaderboard's rule (its golden case resume_finished_noop): a resume with no route
    # left to run sets no agent up, so it saves no sensors
    nothing_left = len(_finished_tasks(out)) == len(ROUTE_IDS)
    final = _driver(config, out, resume=True)
    _, err = final.communicate(timeout=300)
    assert final.returncode == 0, err.decode()
    assert_same_run(out, one, sensors=[] if nothing_left else None)
    assert list(_manifest_routes(out)) == ROUTE_IDS
    assert [c.divergence for c in check_run(out)] == [None] * 10


def _finished_tasks(run: Path) -> set[str]:
    """The route repetitions a killed run finished: merged into results.json, or waiting in
    the task checkpoint (tasks/<route id>.json)."""
    merged = set()
    if (run / "results.json").is_file():
        data = json.loads((run / "results.json").read_text(encoding="utf-8"))
        merged = {r["route_id"] for r in data["_checkpoint"]["records"]}
    waiting = {p.stem for p in (run / runner.execution.checkpoint.TASKS_DIR).glob("*.json")}
    return merged | waiting


def _manifest_routes(run: Path) -> dict:
    import yaml

    return yaml.safe_load((run / "manifest.yaml").read_text(encoding="utf-8"))["routes"]


# -- a worker that dies ---------------------------------------------------------------------------


def _exit_config(folder: Path, mode: str, routes: list[dict]) -> Path:
    agent_conf = folder / "exit.txt"
    agent_conf.write_text(mode, encoding="utf-8")
    agent = {"entry": str(REPO / "tests" / "agents" / "exit_agent.py"), "config": str(agent_conf)}
    return write_ten(folder, agent=agent, repetitions=1, routes=routes)


def test_worker_death_is_retried_once(tmp_path):
    config = _exit_config(tmp_path, "once", ROUTES[3:4])  # starts at x = 20 m: the agent dies
    out = tmp_path / "out"
    assert main(["run", str(config), "-o", str(out), "--workers", "2"]) == 0
    assert (tmp_path / "exit.txt.died").exists()  # the first attempt died
    data = results_without_wall_times(out / "results.json")
    records = data["_checkpoint"]["records"]
    assert [r["route_id"] for r in records] == ["RouteScenario_3_rep0"]
    assert records[0]["status"] == "Perfect"  # the 40 m route, driven to its end
    assert data["entry_status"] == "Finished"
    assert [c.divergence for c in check_run(out)] == [None]


def test_worker_dying_twice_is_a_simulation_crash(tmp_path):
    # route 3 starts at x = 20 m (the agent dies there), route 4 at x = 120 m
    config = _exit_config(tmp_path, "always", ROUTES[3:])
    out = tmp_path / "out"
    assert main(["run", str(config), "-o", str(out), "--workers", "2"]) == 1
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    records = data["_checkpoint"]["records"]
    # the leaderboard's texts: the route "Failed - Simulation crashed", the entry "Crashed",
    # and the evaluation stops there
    assert [r["route_id"] for r in records] == ["RouteScenario_3_rep0"]
    assert records[0]["status"] == "Failed - Simulation crashed"
    assert data["entry_status"] == "Crashed"
    assert data["_checkpoint"]["global_record"] == {}  # a crashed evaluation is not summed up
    # route 4 may have run on the other worker meanwhile: it is not kept
    assert sorted(p.name for p in out.iterdir()) == ["manifest.yaml", "results.json"]


class _DiesAfter:
    """An in-process scheduler whose driver 'dies' (raises) after `n` finished tasks."""

    wants_log_paths = True
    parallel = False

    def __init__(self, n: int) -> None:
        self.n, self.running = n, 0

    def run(self, tasks):
        from runner.execution.scheduling import InlineScheduler

        for count, done in enumerate(InlineScheduler().run(tasks), start=1):
            yield done
            if count == self.n:
                raise SystemExit("killed")


def test_resume_when_results_and_manifest_lag_the_task_checkpoint(reference, tmp_path, monkeypatch):
    """With the files' pacing holding back every rewrite after the first, a driver killed
    after 4 tasks leaves results.json and the manifest with no route at all: the resume
    takes the 4 from tasks/ and ends with the uninterrupted run's files."""
    config, one = reference
    out = tmp_path / "lag"
    monkeypatch.setattr(runner.execution.checkpoint, "PACE", 1e9)
    monkeypatch.setattr(runner.execution.checkpoint.PacedResultsFile, "flush", _flush_first_only())
    monkeypatch.setattr(runner.execution.driver._Merger, "write_manifest", lambda self: None)
    with pytest.raises(SystemExit):
        evaluate(load_config(config), out, scheduler=_DiesAfter(4))
    assert json.loads((out / "results.json").read_text())["_checkpoint"]["records"] == []
    assert len(list((out / "tasks").glob("*.json"))) == 4
    monkeypatch.undo()
    evaluate(load_config(config), out, resume=True)
    assert_same_run(out, one)


def _flush_first_only():
    """PacedResultsFile.flush that writes the first time only (the empty checkpoint)."""
    real = runner.execution.checkpoint.PacedResultsFile.flush
    calls = []

    def flush(self):
        if not calls:
            calls.append(1)
            real(self)

    return flush


def test_workers_take_the_longest_routes_first() -> None:
    """Key-point polylines of 10, 30 (3-4-5 steps of 5 m and 25 m), 20 and 30 m: the two
    30 m routes first, in evaluation order, then 20, then 10."""
    from types import SimpleNamespace

    from runner.execution.driver import longest_first
    from runner.execution.tasks import RouteTask

    polylines = [
        ((0.0, 0.0, 0.0), (10.0, 0.0, 0.0)),
        ((0.0, 0.0, 0.0), (3.0, 4.0, 0.0), (3.0, 4.0, 25.0)),
        ((0.0, 0.0, 0.0), (0.0, -20.0, 0.0)),
        ((5.0, 5.0, 0.0), (5.0, 35.0, 0.0)),
    ]
    routes = [SimpleNamespace(definition=SimpleNamespace(points=p)) for p in polylines]
    config = SimpleNamespace(routes=routes)
    tasks = [RouteTask(config, SimpleNamespace(route_id=f"r{i}"), i, None) for i in range(4)]
    assert [t.route_index for t in longest_first(tasks)] == [1, 3, 2, 0]


def test_route_result_json_text() -> None:
    """A task's result as the driver reads it back: the fields in their order, the failure
    as its value, a Location in an event's data as {x, y, z} and a numpy integer as a
    plain one (the text written out by hand); from_json gives the same text again."""
    import numpy as np

    from runner.route import RouteResult
    from runner.statistics import Failure
    from world.geometry import Location

    event = {"kind": "COLLISION_VEHICLE", "frame": 7, "message": "m"}
    event["data"] = {"location": Location(1.5, -2.0, 0.25), "id": np.int64(4)}
    result = RouteResult(
        "RouteScenario_0_rep0",
        failure=Failure.AGENT_RUNTIME,
        points=[[0.0, 1.0, 2.0]],
        criteria=[[event]],
        ticks=3,
    )
    text = result.to_json()
    assert text.startswith(
        b'{"route_id": "RouteScenario_0_rep0", "failure": "'
        + Failure.AGENT_RUNTIME.value.encode()
        + b'", "message": "", "traceback": "", "scored": false, "points": [[0.0, 1.0, 2.0]], '
        b'"criteria": [[{"kind": "COLLISION_VEHICLE", "frame": 7, "message": "m", "data": '
        b'{"location": {"x": 1.5, "y": -2.0, "z": 0.25}, "id": 4}}]], "timed_out": false, '
        b'"sensor_icons": null, "sensors": [], "wall_seconds": 0.0, "game_seconds": 0.0, '
        b'"agent_wall_seconds": 0.0, "ticks": 3, '
    )
    assert text.endswith(b'"has_log": false, "worker_died": false}')
    assert RouteResult.from_json(text).to_json() == text
