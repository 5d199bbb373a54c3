"""AI walkers walking toward each other on a straight sidewalk pass on their right without
their bodies overlapping; one walking behind another at the same speed keeps its line."""

from __future__ import annotations

import numpy as np

from world import Location, Map, Transform, World, WorldSettings
from world.traffic.walkers.ai import ARRIVE_RADIUS, WALKER_RADIUS

# One straight road along +x: a 3.5 m driving lane, then a 3 m sidewalk whose centre line
# (the walkers' route nodes, every 2 m) is at y = 3.5 + 1.5 = 5 m (CARLA's y is OpenDRIVE's -y).
SIDEWALK = (
    '<?xml version="1.0" encoding="UTF-8"?><OpenDRIVE>'
    '<header revMajor="1" revMinor="4" name="sidewalk"/>'
    '<road id="1" name="sidewalk" length="40.0" junction="-1"><planView>'
    '<geometry s="0.0" x="0.0" y="0.0" hdg="0.0" length="40.0"><line/></geometry>'
    '</planView><lanes><laneSection s="0.0">'
    '<center><lane id="0" type="none" level="false"/></center><right>'
    '<lane id="-1" type="driving" level="false">'
    '<width sOffset="0.0" a="3.5" b="0.0" c="0.0" d="0.0"/></lane>'
    '<lane id="-2" type="sidewalk" level="false">'
    '<width sOffset="0.0" a="3.0" b="0.0" c="0.0" d="0.0"/></lane>'
    "</right></laneSection></lanes></road></OpenDRIVE>"
)


def walk(starts: list[float], goals: list[float], ticks: int) -> np.ndarray:
    """(tick, walker, xy) of AI walkers started at x = `starts` on the sidewalk's centre line
    and sent to x = `goals` on it, over `ticks` ticks of 0.05 s."""
    world = World(Map("sidewalk", SIDEWALK))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    library = world.get_blueprint_library()
    walkers = []
    for x, goal in zip(starts, goals, strict=True):
        walker = world.spawn_actor(
            library.find("walker.pedestrian.0001"), Transform(Location(x, 5.0, 1.0))
        )
        brain = world.spawn_actor(library.find("controller.ai.walker"), Transform(), walker)
        brain.start()
        brain.go_to_location(Location(goal, 5.0, 0.0))
        walkers.append(walker)
    track = np.empty((ticks, len(walkers), 2))
    for t in range(ticks):
        world.tick()
        for k, walker in enumerate(walkers):
            loc = walker.get_location()
            track[t, k] = (loc.x, loc.y)
    return track


def test_walkers_facing_each_other_pass_without_overlapping_and_reach_their_goals():
    # 4 m apart, each going to the other's start at 1.4 m/s: closing at 2.8 m/s, they would
    # meet at x = 20 after ~1.4 s. Each turns to its right (A toward +y, B toward -y) along the
    # circle of 2 * 0.3 + 0.1 = 0.7 m round the other once their next second's walk would
    # pass inside it, so their centres stay >= 0.7 m apart (bodies 0.6 m) while they pass.
    track = walk([18.0, 22.0], [22.0, 18.0], ticks=80)
    gap = np.linalg.norm(track[:, 0] - track[:, 1], axis=1)
    assert gap.min() >= 2 * WALKER_RADIUS - 0.01
    # both step aside to their own right while passing (CARLA's y is to the right of +x);
    # after ~2.9 s they have arrived and walk on to new goals
    passing = int(np.argmin(gap[:40]))
    assert track[passing, 0, 1] > 5.2 and track[passing, 1, 1] < 4.8
    # and both get to within the arrival radius of their goal (then draw a new one)
    assert np.hypot(track[:, 0, 0] - 22.0, track[:, 0, 1] - 5.0).min() < ARRIVE_RADIUS
    assert np.hypot(track[:, 1, 0] - 18.0, track[:, 1, 1] - 5.0).min() < ARRIVE_RADIUS


def test_a_walker_behind_another_at_the_same_speed_keeps_its_line():
    # A 2 m behind B, both heading +x at 1.4 m/s: relative to B, A's walk over the next second
    # is nil, so it stays 2 m from B, outside 0.7 m: neither turns, both stay on y = 5.
    track = walk([16.0, 18.0], [30.0, 32.0], ticks=100)
    assert np.abs(track[:, :, 1] - 5.0).max() < 1e-6
    assert (track[-1, :, 0] > track[0, :, 0] + 6.0).all()
