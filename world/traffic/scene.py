"""Background traffic for a world: seeded autopilot vehicles and AI walkers, and a monitor.

`populate_traffic(world, vehicles, walkers, seed)` spawns cars mid-street
(world.traffic.autopilot.manager.street_spawn_points, drawn with a generator spawned
from the seed) on the traffic manager, and walkers at random navigation points
with started AI controllers heading to random destinations. The traffic
manager and the pedestrians are seeded from the same seed. A map holds at most
`traffic_capacity(map)` of each (its street spawn points, its sidewalk points): more
asked spawns that many, and the walkers' spawn attempts are bounded by it.

`TrafficMonitor` watches a run tick by tick and counts what must not happen:
vehicles off the road, vehicles entering a junction while the light whose box
they last crossed is red (read from the traffic module's light states),
collisions between autopilot vehicles, walkers off the sidewalks away from a
crossing; it also keeps a hash of the world's state arrays per tick.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from world import elementary as el
from world.actors.vehicle_state import TrafficLightState
from world.geometry import Transform
from world.map.lane_enums import LaneType
from world.traffic.autopilot.manager import street_spawn_points
from world.traffic.walkers.navigation import WalkerNavigation

__all__ = ["TrafficMonitor", "TrafficScene", "populate_traffic", "traffic_capacity"]

CAR_BLUEPRINT = "vehicle.lincoln.mkz_2017"
WALKER_BLUEPRINT = "walker.pedestrian.0001"
CROSSING_CORRIDOR = 2.5  # m either side of a crossing edge where a walker may be off sidewalk
WALKER_HALF_HEIGHT = 0.93  # m from a walker's origin down to its feet


@dataclass
class TrafficScene:
    vehicles: list = field(default_factory=list)
    walkers: list = field(default_factory=list)
    controllers: list = field(default_factory=list)


def traffic_capacity(world_map) -> tuple[int, int]:
    """(vehicles, walkers) the map holds at most: its street spawn points, and the points of
    its sidewalks (about 2 m apart) that walkers spawn at."""
    sidewalk = WalkerNavigation.of_map(world_map).sidewalk
    return len(street_spawn_points(world_map)), len(sidewalk)


def populate_traffic(
    world, vehicles: int, walkers: int, seed: int, cross_factor: float = 0.2, port: int = 8000
) -> TrafficScene:
    """Spawns and starts the traffic; fewer vehicles or walkers when space runs out."""
    scene = TrafficScene()
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(1,))))
    library = world.get_blueprint_library()
    car = library.find(CAR_BLUEPRINT)
    tm = world.get_trafficmanager(port)
    tm.set_random_device_seed(seed)
    spots = street_spawn_points(world.get_map())
    for index in rng.permutation(len(spots)).tolist():
        if len(scene.vehicles) >= vehicles:
            break
        actor = world.try_spawn_actor(car, spots[index])
        if actor is not None:
            actor.set_autopilot(True, port)
            scene.vehicles.append(actor)
    if walkers:
        world.set_pedestrians_seed(seed)
        world.set_pedestrians_cross_factor(cross_factor)
        person = library.find(WALKER_BLUEPRINT)
        brain = library.find("controller.ai.walker")
        # four draws for each walker the sidewalks can hold: a bound however many are asked
        places = len(WalkerNavigation.of_map(world.get_map()).sidewalk)
        for _ in range(4 * min(walkers, places)):
            if len(scene.walkers) >= walkers:
                break
            loc = world.get_random_location_from_navigation()
            loc.z += WALKER_HALF_HEIGHT + 0.05
            walker = world.try_spawn_actor(person, Transform(loc))
            if walker is None:
                continue
            scene.walkers.append(walker)
            scene.controllers.append(world.spawn_actor(brain, Transform(), walker))
        for controller in scene.controllers:
            controller.start()
            controller.go_to_location(world.get_random_location_from_navigation())
    return scene


class TrafficMonitor:
    """Per-tick checks of a traffic scene (call `observe()` after each tick)."""

    def __init__(self, world, scene: TrafficScene) -> None:
        self.world = world
        self.scene = scene
        self.map = world.get_map()
        self.vehicle_rows = np.array([v.id - 1 for v in scene.vehicles], dtype=np.int64)
        self.walker_rows = np.array([w.id - 1 for w in scene.walkers], dtype=np.int64)
        self._junction_node = np.array(
            [self.map.road_junction(k[0]) != "-1" for k in self.map.lane_keys]
        )
        self._in_junction = np.zeros(len(self.vehicle_rows), dtype=bool)
        self._last_light = np.full(len(self.vehicle_rows), -1, dtype=np.int64)
        self._light_lane = np.full(len(self.vehicle_rows), -1, dtype=np.int64)
        self._autopilot = set((self.vehicle_rows + 1).tolist())
        self.off_road = 0
        self.red_runs = 0
        self.collisions: set[tuple[int, int]] = set()
        self.walkers_off = 0
        self.hashes: list[str] = []
        self._widths: dict[int, float] = {}  # lane node -> mean width
        self._crossings = self._crossing_segments()

    def _crossing_segments(self) -> np.ndarray:
        if not len(self.walker_rows):
            return np.zeros((0, 2, 2))
        return self.world.walker_ai().navigation.crossing_segments()

    def observe(self) -> None:
        world = self.world
        a, v, _ = world.state_tables()
        self.hashes.append(self.state_hash())
        if len(self.vehicle_rows):
            self._check_vehicles(a, v)
        for event in world.collision_events():
            pair = (min(event.actor_id, event.other_id), max(event.actor_id, event.other_id))
            if pair[0] in self._autopilot and pair[1] in self._autopilot:
                self.collisions.add(pair)
        if len(self.walker_rows):
            self._check_walkers(a)

    def _check_vehicles(self, a, v) -> None:
        rows = self.vehicle_rows
        pos = a.pos[rows]
        proj = self.map.project_batch(pos, LaneType.Driving)
        planar = el.hypot_v(*(pos[:, :2] - proj.location[:, :2]).T)
        width = np.array([self._lane_width(n) for n in proj.node.tolist()])
        on_road = (proj.node >= 0) & (proj.inside | (planar < width))
        self.off_road += int((~on_road).sum())
        light = v.tl_actor[a.vrow[rows]]
        traffic = getattr(self.world, "_traffic", None)
        in_junction = (proj.node >= 0) & self._junction_node[np.maximum(proj.node, 0)] & proj.inside
        # a light counts from its box until the vehicle is in a junction or on another lane
        self._last_light = np.where(light >= 0, light, self._last_light)
        self._light_lane = np.where(light >= 0, proj.node, self._light_lane)
        elsewhere = ~in_junction & (proj.node != self._light_lane)
        self._last_light = np.where(elsewhere, -1, self._last_light)
        entered = in_junction & ~self._in_junction
        if traffic is not None and entered.any():
            system = traffic.system
            for i in np.flatnonzero(entered & (self._last_light >= 0)).tolist():
                index = int(system.light_of_row[self._last_light[i]])
                if system.groups.state[index] == TrafficLightState.Red:
                    self.red_runs += 1
        self._last_light = np.where(entered, -1, self._last_light)
        self._in_junction = in_junction

    def _lane_width(self, node: int) -> float:
        if node < 0:
            return 0.0
        if node not in self._widths:
            sg = self.map.lane_segments
            self._widths[node] = float(sg.width[sg.node == node].mean())
        return self._widths[node]

    def _check_walkers(self, a) -> None:
        rows = self.walker_rows
        feet = a.pos[rows].copy()
        feet[:, 2] -= WALKER_HALF_HEIGHT
        proj = self.map.project_batch(feet, LaneType.Sidewalk)
        off = ~proj.inside
        if off.any() and len(self._crossings):
            p = feet[off, :2]
            s0, s1 = self._crossings[:, 0], self._crossings[:, 1]
            ab = s1 - s0
            t = np.einsum("pk,sk->ps", p, ab) - np.einsum("sk,sk->s", s0, ab)[None, :]
            t = np.clip(t / np.maximum(np.einsum("sk,sk->s", ab, ab), 1e-9)[None, :], 0.0, 1.0)
            foot = s0[None] + t[..., None] * ab[None]
            near = (np.linalg.norm(p[:, None, :] - foot, axis=2) < CROSSING_CORRIDOR).any(axis=1)
            off[np.flatnonzero(off)[near]] = False
        self.walkers_off += int(off.sum())

    def state_hash(self) -> str:
        """A hash of every actor's pose and motion and every vehicle's control this tick."""
        a, v, _ = self.world.state_tables()
        h = hashlib.blake2b(digest_size=16)
        for column in (a.alive, a.pos, a.rot, a.vel, a.angvel):
            h.update(np.ascontiguousarray(column[: a.n]).tobytes())
        for column in (v.throttle, v.steer, v.brake, v.gear, v.tl_state):
            h.update(np.ascontiguousarray(column[: v.n]).tobytes())
        return h.hexdigest()
