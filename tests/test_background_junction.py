"""The background at a junction the route crosses: town_small's T-junction 14 (box centre
(100, -3.6), half sizes 9 x 5.4 m), the autopilot ego driving east on the top road
(y = 1.75) straight through it. Its other entries: from the east on the west-going lane
(y = -1.75, leaving the junction's lanes at x = 110) and from the south (x = 98.25, at
y = -10). Their sources stand 40 m upstream (ScenarioRunner's junction_sources_dist, 5 m
steps): (150, -1.75) and (98.25, -50).

- While the ego comes to the junction (from 30 m + 1.5 m per m/s before it) cars appear
  at the sources, each source's a spacing (15 m) apart in time, 15 m or more from the
  ego, and drive towards the junction and into it; none appear there before, none after
  the ego is out of it.
- When the ego leaves the junction, the source cars that did not come onto the route's
  road (either way) go.
- A scenario that stops the junction (ScenarioRunner's HandleJunctionScenario with
  clear_junction and stop_entries, the south entry removed), called at the start: no car
  appears at the south source, the east source's cars wait before the junction, and at
  every upkeep the junction's box holds no background car until the ego enters it.
- Two runs give identical logs."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from background_checks import SAFE_DISTANCE, UPKEEP_EVERY, first_seen, last_seen
from background_runs import run_background

from runner.log_compare import compare_logs
from world.geometry import Location

TOWN = str(Path(__file__).resolve().parent.parent / "configs" / "maps" / "town_small.xodr")
WAYPOINTS = [[20.0, 1.75, 0.0], [165.0, 1.75, 0.0]]
TICKS = 440  # 22 s: the ego is past the junction and short of the route's end
SOURCES = {"east": (150.0, -1.75), "south": (98.25, -50.0)}
BOX = (100.0, -3.6, 9.0, 5.4)
ENTRY_X, EXIT_X = 91.0, 109.0  # the route's last point before the junction, first after
DETECTION, PER_SPEED = 30.0, 1.5
NEAR_SOURCE = 2.0  # m


def _inside(x: float, y: float) -> bool:
    cx, cy, ex, ey = BOX
    return abs(x - cx) <= ex and abs(y - cy) <= ey


def _to_box(car) -> float:
    return math.hypot(car.x - BOX[0], car.y - BOX[1])


def _source_of(car) -> str | None:
    for name, (x, y) in SOURCES.items():
        if math.hypot(car.x - x, car.y - y) < NEAR_SOURCE:
            return name
    return None


def _stop_the_junction(run, k: int) -> None:
    if k == 0:
        south = run.world.get_map().get_waypoint(Location(98.25, -30.0, 0.0))
        run.background.handle_junction(
            clear_junction=True, clear_ego_entry=True, stop_entries=True, remove_entries=[south]
        )


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bg_junction")
    plain = [run_background(TOWN, WAYPOINTS, TICKS, log=folder / f"plain{k}.log") for k in range(2)]
    stopped = run_background(TOWN, WAYPOINTS, TICKS, on_tick=_stop_the_junction)
    return plain, stopped


def _born_at_sources(run) -> dict[int, tuple[int, str]]:
    out = {}
    for actor_id, k in first_seen(run.frames).items():
        name = _source_of(run.frames[k][actor_id])
        if name is not None:
            out[actor_id] = (k, name)
    return out


def test_sources_feed_the_junction_while_the_ego_crosses_it(runs):
    (run, _), _ = runs
    born = _born_at_sources(run)
    assert len(born) >= 3
    exit_tick = next(k for k, e in enumerate(run.ego_trace) if e[0] > EXIT_X)
    for actor_id, (k, _name) in born.items():
        ego_x, ego_y, _, _speed = run.ego_trace[k]
        assert ENTRY_X - ego_x < DETECTION + PER_SPEED * 15.0  # the ego near the junction...
        assert k <= exit_tick  # ... and not past it
        car = run.frames[k][actor_id]
        assert math.hypot(car.x - ego_x, car.y - ego_y) >= SAFE_DISTANCE
        track = [f[actor_id] for f in run.frames if actor_id in f]
        assert _to_box(track[-1]) < _to_box(track[0]) - 5.0  # it drove towards the junction
    entered = [a for a in born if any(_inside(f[a].x, f[a].y) for f in run.frames if a in f)]
    assert len(entered) >= 2
    first_tick = min(k for k, _ in born.values())
    ego_x, _, _, speed = run.ego_trace[first_tick]
    assert ENTRY_X - ego_x < DETECTION + PER_SPEED * speed + 1.0
    for name in SOURCES:  # one source's cars come at least 15 m apart
        ticks = sorted(k for k, n in born.values() if n == name)
        assert all(b - a >= 15.0 / 20.0 / 0.05 for a, b in itertools.pairwise(ticks))


def test_source_cars_off_the_route_s_road_go_when_the_ego_leaves(runs):
    (run, _), _ = runs
    exit_tick = next(k for k, e in enumerate(run.ego_trace) if e[2] >= 90)  # past x = 110
    after = (exit_tick // UPKEEP_EVERY + 1) * UPKEEP_EVERY  # the first upkeep then
    last = last_seen(run.frames)
    for actor_id in _born_at_sources(run):
        car = run.frames[min(last[actor_id], after - 1)][actor_id]
        on_route_road = abs(car.y) < 4.0 and car.x > BOX[0] - BOX[2]
        if not on_route_road:
            assert last[actor_id] < after, actor_id


def test_a_stopped_junction_stays_empty_until_the_ego_is_in(runs):
    _, run = runs
    born = _born_at_sources(run)
    assert not [a for a, (_, name) in born.items() if name == "south"]
    ego_in = next(k for k, e in enumerate(run.ego_trace) if _inside(e[0], e[1]))
    for k in range(UPKEEP_EVERY, ego_in, UPKEEP_EVERY):
        assert not [c.id for c in run.frames[k].values() if _inside(c.x, c.y)], k
    for actor_id, (k, _name) in born.items():
        track = [f[actor_id] for f in run.frames[k:ego_in] if actor_id in f]
        assert all(not _inside(c.x, c.y) for c in track)


def test_two_runs_identical_logs(runs):
    (one, two), _ = runs
    assert compare_logs(one.log, two.log) is None
