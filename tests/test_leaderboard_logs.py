"""A route's log is a leaderboard route's log: the ego carries the `sensor.other.collision`
the leaderboard's CollisionTest attaches (added after the recorder starts, parented to the
ego, never deleted in the log: it goes after the last frame), and the ego's collisions
are in the log, so CARLA's collision query lists them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from runner_helpers import write_config

from recorder import open_log
from recorder.logfile.packet_ids import PacketId
from runner.cli import main
from runner.config import load_config
from runner.route import run_route
from world.geometry import Location, Transform

FULL_THROTTLE = """from runner.agents.base import AutonomousAgent
from world.actors.controls import VehicleControl


def get_entry_point():
    return "Ram"


class Ram(AutonomousAgent):
    def sensors(self):
        return [{"type": "sensor.speedometer", "id": "speed"}]

    def run_step(self, input_data, timestamp):
        return VehicleControl(throttle=1.0)
"""
WALKER_X = 36.0  # m, standing on the ego's lane (y = 1.75) 16 m ahead of its start


def _walker_ahead(loop, world, ego) -> None:
    """A pedestrian standing in the ego's lane, spawned before the first tick."""
    blueprint = world.get_blueprint_library().find("walker.pedestrian.0001")
    world.spawn_actor(blueprint, Transform(Location(WALKER_X, 1.75, 1.0)))


@pytest.fixture(scope="module")
def rammed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rammed")
    agent = folder / "ram_agent.py"
    agent.write_text(FULL_THROTTLE, encoding="utf-8")
    config = load_config(
        write_config(
            folder,
            name="ram",
            agent={"entry": str(agent)},
            traffic={"vehicles": 0},
            routes=[{"id": 0, "waypoints": [[20.0, 1.75, 0.0], [60.0, 1.75, 0.0]]}],
            limits={"route_seconds": 4.0},
        )
    )
    log = folder / "ram.log"
    result = run_route(config, config.routes[0], 0, log, setup_tasks=_walker_ahead)
    return result, log


def test_the_ego_carries_the_leaderboard_s_collision_sensor(rammed):
    _, log = rammed
    recorded = open_log(log)
    (hero,) = [a for a in recorded.actors if a.attributes.get("role_name") == "hero"]
    (sensor,) = [a for a in recorded.actors if a.blueprint == "sensor.other.collision"]
    assert sensor.type == 5  # FCarlaActor::ActorType::Sensor
    assert sensor.first_frame == 1  # spawned before the first tick, with the ego's frame
    parents = [(r.id, r.parent) for f in recorded.frames for r in f.records(PacketId.EventParent)]
    assert (sensor.id, hero.id) in parents
    deleted = [r.id for f in recorded.frames for r in f.records(PacketId.EventDel)]
    assert sensor.id not in deleted  # destroyed after the last frame, as CARLA's log has it


def test_the_ego_s_collision_is_in_the_log_and_in_carla_s_query(rammed, shared, capsys):
    result, log = rammed
    hits = [e for events in result.criteria for e in events if e["kind"] == "COLLISION_PEDESTRIAN"]
    assert len(hits) == 1  # the leaderboard's criterion counts the pedestrian once
    recorded = open_log(log)
    (hero,) = [a for a in recorded.actors if a.attributes.get("role_name") == "hero"]
    (walker,) = [a for a in recorded.actors if a.blueprint == "walker.pedestrian.0001"]
    records = [
        (f.id, r.id1, r.id2, r.hero1, r.hero2)
        for f in recorded.frames
        for r in f.records(PacketId.Collision)
    ]
    # the sensor hears each tick the two touch, the first in the criterion's frame (the log's
    # frame k holds world frame k)
    assert records and records[0][0] == hits[0]["frame"]
    assert {r[1:] for r in records} == {(hero.id, walker.id, True, False)}
    # CARLA's query, hero against anything: one row, at the first frame of the touching run,
    # in the columns of CARLA's own text (a golden row: time right-aligned to column 8,
    # types at 11 and 13, the first id right-aligned to 22, its blueprint from 23 in 40,
    # the second id right-aligned to 65, its blueprint from 66 in 35)
    golden = (shared / "carla-golden" / "town_drive" / "collisions_h_a.txt").read_text()
    assert golden.splitlines()[5] == (
        f"{2:>8}   v v{24:>8} {'vehicle.bh.crossbike':<40}{27:>2} {'vehicle.ford.mustang':<35}"
    )
    assert main(["collisions", "-f", str(log), "-t", "ha"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if line.strip() and line.split()[0].isdigit()]
    time = int(recorded.frames[records[0][0] - 1].elapsed)
    assert rows == [
        f"{time:>8}   v w{hero.id:>8} {'vehicle.lincoln.mkz_2020':<40}"
        f"{walker.id:>2} {'walker.pedestrian.0001':<35}"
    ]


def test_a_route_without_collisions_logs_the_sensor_and_no_collision(tmp_path):
    config = write_config(tmp_path, traffic={"vehicles": 0}, limits={"route_seconds": 1.0})
    assert main(["run", str(config), "-o", str(tmp_path / "out"), "--workers", "1"]) == 0
    recorded = open_log(tmp_path / "out" / "RouteScenario_0_rep0.log")
    assert [a.blueprint for a in recorded.actors].count("sensor.other.collision") == 1
    assert not any(f.records(PacketId.Collision) for f in recorded.frames)
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["_checkpoint"]["records"][0]["infractions"]["collisions_pedestrian"] == []


def test_render_rings_the_ego_s_collision(rammed, tmp_path):
    """`lockstep render` (its map found from the log's header: town_small among lockstep's
    maps) draws the ring of the ego's collision record at the frame it is in."""
    pytest.importorskip("PIL", reason="render needs the pictures extra (Pillow)")
    from PIL import Image

    _, log = rammed
    recorded = open_log(log)
    first = min(f.id for f in recorded.frames if f.records(PacketId.Collision))
    ring = (255, 60, 0)  # recorder/picture/palette.py: the collision ring

    def ring_pixels(at: float) -> int:
        out = tmp_path / f"at{at}.png"
        assert main(["render", str(log), "-o", str(out), "-s", f"{at}", "--size", "160"]) == 0
        return int((np.asarray(Image.open(out).convert("RGB")) == ring).all(axis=2).sum())

    assert ring_pixels(recorded.frames[first - 1].elapsed) > 10  # frame k is the k-th
    assert ring_pixels(0.0) == 0
