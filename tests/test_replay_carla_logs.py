"""Real CARLA logs (../shared/carla-logs, Town01) replayed into a lockstep World on Town01.

Each log plays to its end with no error. Every actor its `info` text creates is made with
its blueprint (or the nearest of lockstep's catalogue, reported), its lights and signs are
found among the world's, and the hero's pose follows the log.
"""

from __future__ import annotations

import collections
import math
import re

import numpy as np
import pytest

from recorder import open_log
from recorder.replay.replayer import Replayer

CREATE = re.compile(r"^ Create (\d+): (\S+) \(\d+\) at ")
CASES = {
    # log: (hero log id, blueprints lockstep lacks and what they replay as)
    "DistanceBetweenVehicles": (174, {}),
    "DistanceToLaneCenter_2020": (
        259,
        {"static.prop": "static.prop.atm", "vehicle.lincoln.mkz2017": "vehicle.lincoln.mkz_2017"},
    ),
}


def _creates(info: str) -> list[tuple[int, str]]:
    return [(int(m[1]), m[2]) for line in info.splitlines() if (m := CREATE.match(line))]


@pytest.mark.parametrize("case", sorted(CASES))
def test_real_log_replays_to_the_end(shared, case):
    from world.map.map import Map
    from world.settings import WorldSettings
    from world.world import World

    folder = shared / "carla-logs" / case
    town = shared / "maps" / "carla" / "Town01.xodr"
    world = World(Map.from_file(town))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    replayer = Replayer()
    text = replayer.replay_file(world, folder / "recording.log", replay_sensors=True)
    assert text.startswith(f"Replaying File: {folder / 'recording.log'}\nTotal time recorded: ")
    helper = replayer.helper
    hero_id, unknown = CASES[case]
    hero_track = open_log(folder / "recording.log").trajectory(hero_id)
    hero = replayer.mapped_ids[hero_id]
    far = 0.0
    ticks = 0
    while replayer.is_enabled():
        replayer.step(world)
        ticks += 1
        if world.get_actor(hero) is not None:
            p = world.get_actor(hero).get_location()
            near = np.hypot(hero_track["x"] - p.x, hero_track["y"] - p.y).min()
            far = max(far, float(near))
    assert ticks == math.ceil(replayer.total_time / 0.05 - 1e-9)
    creates = _creates((folder / "info_0.txt").read_text(encoding="utf-8"))
    expected = collections.Counter(bp for _, bp in creates if bp != "spectator")
    made = collections.Counter(bp for bp, _ in helper.created + helper.matched)
    assert made == expected
    assert len(helper.created) + len(helper.matched) + 1 == len(creates)  # + the spectator
    assert helper.unknown_blueprints() == unknown
    for blueprint, world_id in helper.created:
        actor = world.get_actor(world_id)
        if actor is not None:
            assert actor.type_id == unknown.get(blueprint, blueprint)
    # every light and sign of the log is one of the world's, each a different one
    assert len({world_id for _, world_id in helper.matched}) == len(helper.matched) == 57
    assert far < 0.5  # metres between the replayed hero and the nearest logged pose
