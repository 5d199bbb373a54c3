"""A recorded run of the small generated town for the recorder suites: autopilot traffic, AI
walkers, the map's lights, a hero with a collision sensor driven into a car, actors spawned
and destroyed on known ticks. `record_town` keeps what the world held after every tick,
so the tests can hold the log against it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from recorder import Recorder
from world import Map, World, WorldSettings
from world.geometry import Location, Rotation, Transform, Vector3D
from world.traffic.autopilot.manager import street_spawn_points
from world.traffic.scene import populate_traffic
from world.traffic.signals.install import traffic_light_table

REPO = Path(__file__).resolve().parent.parent
TOWN = REPO / "configs" / "maps" / "town_small.xodr"
CAR = "vehicle.lincoln.mkz_2017"


@dataclass
class TickState:
    """The world after one tick, as the recorder should have written it."""

    ids: np.ndarray  # Position ids (live plain actors, vehicles, walkers), id order
    location_cm: np.ndarray  # float32, cm
    rotation: np.ndarray  # float64 (pitch, yaw, roll) as the world keeps them
    light_ids: np.ndarray
    light_state: np.ndarray
    light_elapsed: np.ndarray
    alive: set[int]
    hero_hits: list[int]  # ids the hero touched this tick, the world's event order


@dataclass
class TownRun:
    path: Path
    hero: int
    sensor: int
    victim: int
    spawned: dict[int, int] = field(default_factory=dict)  # actor id -> tick of its spawn
    destroyed: dict[int, int] = field(default_factory=dict)  # actor id -> tick of the frame
    ticks: list[TickState] = field(default_factory=list)


def _free_spot(world: World, spots: list[Transform], start: int) -> int:
    """The first street spawn point from `start` on with room for two cars facing."""
    bp = world.get_blueprint_library().find(CAR)
    for k in range(start, len(spots)):
        probe = world.try_spawn_actor(bp, spots[k])
        if probe is None:
            continue
        probe.destroy()
        f = spots[k].get_forward_vector()
        ahead = _ahead(spots[k], f, 9.0)
        probe = world.try_spawn_actor(bp, ahead)
        if probe is not None:
            probe.destroy()
            return k
    raise AssertionError("no free street spot for the hero")


def _ahead(spot: Transform, f: Vector3D, metres: float) -> Transform:
    loc = spot.location
    return Transform(
        Location(loc.x + metres * f.x, loc.y + metres * f.y, loc.z),
        Rotation(0.0, spot.rotation.yaw + 180.0, 0.0),
    )


def record_town(
    path: Path, ticks: int, seed: int = 5, additional_data: bool = True, date: int = 0
) -> TownRun:
    world = World(Map.from_file(TOWN))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    populate_traffic(world, 12, 8, seed)
    library = world.get_blueprint_library()
    spots = street_spawn_points(world.get_map())
    k = _free_spot(world, spots, 0)
    hero_bp = library.find(CAR)
    hero_bp.set_attribute("role_name", "hero")
    hero = world.spawn_actor(hero_bp, spots[k])
    f = spots[k].get_forward_vector()
    recorder = Recorder()
    recorder.start(world, path, "town_small", additional_data, date=date)
    run = TownRun(path, hero.id, 0, 0)
    victim = sensor = None
    for tick in range(1, ticks + 1):
        if tick == 3:  # spawned between two frames: an add, its parent, its collisions
            sensor = world.spawn_actor(
                library.find("sensor.other.collision"), Transform(), attach_to=hero
            )
            victim = world.spawn_actor(library.find(CAR), _ahead(spots[k], f, 9.0))
            run.sensor, run.victim = sensor.id, victim.id
            run.spawned[sensor.id] = run.spawned[victim.id] = tick
        if 3 <= tick <= 40 and victim is not None:
            hero.set_target_velocity(Vector3D(4.0 * f.x, 4.0 * f.y, 0.0))
            victim.set_target_velocity(Vector3D(-4.0 * f.x, -4.0 * f.y, 0.0))
        if tick == 60:  # a prop spawned and destroyed between two frames
            prop = world.spawn_actor(
                library.find("static.prop.streetbarrier"), _ahead(spots[k], f, -30.0)
            )
            run.spawned[prop.id] = tick
            prop.destroy()
            run.destroyed[prop.id] = tick
        world.tick()
        if tick == 30 and sensor is not None:  # destroyed after the tick, before the record
            sensor.destroy()
            run.destroyed[sensor.id] = tick
        if tick == 80:
            victim.destroy()
            run.destroyed[victim.id] = tick
        recorder.record(world)
        run.ticks.append(_state(world, hero.id))
    recorder.stop()
    return run


def _state(world: World, hero: int) -> TickState:
    actors = world.state_tables().actors
    n = actors.n
    rows = np.flatnonzero(actors.alive[:n] & (actors.kind[:n] <= 2))
    lights = traffic_light_table(world)
    hits = []
    for event in world.collision_events():
        if event.actor_id == hero:
            hits.append(event.other_id)
        elif event.other_id == hero:
            hits.append(event.actor_id)
    return TickState(
        rows + 1,
        (actors.pos[rows] * 100.0).astype(np.float32),
        actors.rot[rows].copy(),
        lights.ids.copy(),
        lights.state.copy(),
        lights.elapsed.copy(),
        set((np.flatnonzero(actors.alive[:n]) + 1).tolist()),
        hits,
    )
