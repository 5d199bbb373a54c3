"""Maps kept on disk between processes (runner.map_store): the first process builds the
map, its planner and what the routes derive from it, and stores them; the next loads them
and runs the same bits; a store that is not a map's is rebuilt."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from runner_helpers import write_config

from runner import map_store
from runner.log_compare import compare_logs

ROOT = Path(__file__).resolve().parent.parent
TOWN = ROOT / "configs" / "maps" / "town_small.xodr"

RUN = """
import sys
from pathlib import Path
from runner import map_store
from runner.config import load_config
from runner.execution.driver import evaluate
stored = map_store.stored_path(Path(sys.argv[3]))
before = stored.stat().st_mtime_ns if stored.exists() else 0
(outcome,) = evaluate(load_config(Path(sys.argv[1])), Path(sys.argv[2]))
after = stored.stat().st_mtime_ns if stored.exists() else 0
print(outcome.ticks, before == after, sorted(map(str, map_store.map_and_planner(
    Path(sys.argv[3]))[0].derived_keys())))
"""


def _config(folder: Path, town: Path) -> Path:
    return write_config(
        folder,
        "store",
        seed=2,
        map=str(town),
        traffic={"vehicles": 8, "walkers": 3},
        limits={"route_seconds": 5.0},
        routes=[{"id": 0, "waypoints": [[20.0, 1.75, 0.0], [180.0, 1.75, 0.0]]}],
    )


def _run(config: Path, out: Path, town: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(config), str(out), str(town)],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().split(" ", 2)


def test_the_next_process_loads_the_stored_map_and_runs_the_same_bits(tmp_path: Path) -> None:
    town = tmp_path / "store_town.xodr"  # a path of its own: a store file of its own
    shutil.copyfile(TOWN, town)
    stored = map_store.stored_path(town)
    config = _config(tmp_path, town)
    try:
        assert not stored.exists()
        first = _run(config, tmp_path / "first", town)
        assert stored.is_file()
        second = _run(config, tmp_path / "second", town)
    finally:
        stored.unlink(missing_ok=True)
    # 5 s at 20 Hz; the first process wrote the store, the second found it whole
    assert first[:2] == ["100", "False"] and second[:2] == ["100", "True"]
    # what the route derived (lights, lanes, sidewalks, ground) came along in the file
    assert first[2] == second[2]
    for key in ("lane paths", "walker navigation", "traffic layout", "carried ground"):
        assert key in first[2]
    log = "RouteScenario_0_rep0.log"
    assert compare_logs(tmp_path / "first" / log, tmp_path / "second" / log) is None


def test_a_store_that_is_not_a_map_is_built_again(tmp_path: Path) -> None:
    town = tmp_path / "broken_store_town.xodr"
    shutil.copyfile(TOWN, town)
    stored = map_store.stored_path(town)
    try:
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_bytes(b"not a pickle of a map")
        ticks, unchanged, _ = _run(_config(tmp_path, town), tmp_path / "run", town)
        assert (ticks, unchanged) == ("100", "False")  # built, then stored whole
        assert stored.read_bytes()[:1] == b"\x80"  # a pickle now
    finally:
        stored.unlink(missing_ok=True)


def test_the_code_stamp_follows_the_code(tmp_path: Path, monkeypatch) -> None:
    package = tmp_path / "world"
    package.mkdir()
    module = package / "a.py"
    module.write_text("X = 1\n")
    monkeypatch.setattr(map_store, "_ROOT", tmp_path)
    monkeypatch.setattr(map_store, "_CODE", (package,))
    monkeypatch.setattr(map_store, "_STAMP", None)
    before = map_store.code_stamp()
    monkeypatch.setattr(map_store, "_STAMP", None)
    module.write_text("X = 22\n")
    assert map_store.code_stamp() != before
