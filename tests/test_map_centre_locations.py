"""Map.centre_locations, the vectorised lane centres the planner and the stop-sign test screen
on: the same points as each waypoint's exact pose, to a few ulps."""

from __future__ import annotations

import numpy as np
import pytest
from runner_helpers import TOWN

from world import Map

MAPS = ["esmini/curves_elevation", "esmini/crest-curve", "esmini/fabriksgatan"]


def _check(world_map: Map, step: float) -> None:
    waypoints = world_map.generate_waypoints(step)
    # a few lanes' points out of document order, as a walk across lanes gives them
    waypoints = waypoints[::-1][: len(waypoints) // 2] + waypoints[: len(waypoints) // 2]
    got = world_map.centre_locations(waypoints)
    exact = np.array(
        [
            [w.transform.location.x, w.transform.location.y, w.transform.location.z]
            for w in waypoints
        ]
    )
    assert got.shape == (len(waypoints), 3)
    assert np.abs(got - exact).max() < 1e-9  # the screens' margin is 1e-6 m


def test_town_small():
    _check(Map.from_file(TOWN), 0.73)


@pytest.mark.parametrize("name", MAPS)
def test_shared_maps(shared, name):
    _check(Map.from_file(shared / "maps" / f"{name}.xodr"), 1.37)


def test_empty():
    assert Map.from_file(TOWN).centre_locations([]).shape == (0, 3)


@pytest.mark.parametrize("name", ["town_small", "esmini/fabriksgatan", "esmini/curves_elevation"])
def test_road_centres_are_the_frames_locations(shared, name):
    """RoadFrames.centres evaluates only the lanes asked for: the locations `frames` gives
    them, bit for bit."""
    path = TOWN if name == "town_small" else shared / "maps" / f"{name}.xodr"
    world_map = Map.from_file(path)
    rng = np.random.default_rng(4)
    for frames in world_map._frames.values():
        for index, section in enumerate(frames.geometry.sections):
            s = rng.uniform(section.s0, frames.road.length, 9)
            full = frames.frames(index, s)
            lanes = rng.choice(full.lane_ids, 9)
            got = frames.centres(index, s, lanes)
            want = full.location[np.arange(9), [full.column(int(lane)) for lane in lanes]]
            assert got.tobytes() == want.tobytes()
