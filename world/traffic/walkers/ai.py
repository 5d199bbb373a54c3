"""AI walkers: the pedestrian system that walks `controller.ai.walker`s' walkers on sidewalks.

A controller (world.handles.WalkerAIController) is spawned attached to its walker, as
in CARLA (`world.spawn_actor(bp, Transform(), walker)`). `start()` hands the walker to the
world's pedestrian system, `go_to_location(loc)` routes it over the navigation
graph (world.traffic.walkers.navigation), `set_max_speed(speed)` sets its walking speed
(DEFAULT_WALKER_SPEED until set), `stop()` halts it and gives it back. A walker
that arrives picks its next destination from its controller's own generator
(spawned from the pedestrians' seed and the controller's actor id) and goes on.

Per tick ("traffic_manager" phase, before physics) the system steers every
started walker toward the next point of its route in one compiled call
(world.traffic.walkers.kernels.steer): one flat array holds all routes, each walker an
offset, a length and its progress; a walker within ARRIVE_RADIUS of its point
moves on to the next. The walker's WalkerControl (direction, speed) is written
to the walker table and the world's walker motion moves it.

`world.set_pedestrians_cross_factor(p)`: a walker started afterwards may cross
roads with probability p (drawn once at start); one that may not keeps to its
own sidewalk ring. `world.get_random_location_from_navigation()` draws a
sidewalk point from the pedestrians' generator (`set_pedestrians_seed`).
"""

from __future__ import annotations

import numpy as np

from world.errors import WorldError
from world.geometry import Location
from world.kernels.array_table import ArrayTable
from world.traffic.walkers.kernels import DEAD, STEER_TABLE_KINDS, STEERED, steer_table

__all__ = [
    "ARRIVE_RADIUS",
    "DEFAULT_CROSS_FACTOR",
    "DEFAULT_WALKER_SPEED",
    "WalkerAISystem",
]

DEFAULT_WALKER_SPEED = 1.4  # m/s
DEFAULT_CROSS_FACTOR = 0.0  # share of walkers that cross roads, as CARLA's example scripts
ARRIVE_RADIUS = 0.6  # m
ARRIVAL_PASSES = 2  # route points a walker may pass in one tick
VEHICLE_REACH = 6.0  # m: vehicles nearer than this are checked against a walker's next step
STEP_AHEAD = 0.5  # m
WALKER_RADIUS = 0.3  # m
WALKER_LOOK_AHEAD = 1.0  # s: walkers turn around each other when this much walking would meet
WALKER_MARGIN = 0.1  # m kept between two walkers' circles as they pass
DEFAULT_PEDESTRIANS_SEED = 0
# the steering's constants, in the order world.traffic.walkers.kernels.steer reads them
WALKER_CONSTANTS = np.array(
    [ARRIVE_RADIUS, VEHICLE_REACH, STEP_AHEAD, WALKER_RADIUS, WALKER_LOOK_AHEAD, WALKER_MARGIN]
)


class WalkerAISystem:
    """Every started AI walker: routes, speeds, progress; the navigation and its generator."""

    def __init__(self, world) -> None:
        self.world = world
        self._nav = None
        self._seed = DEFAULT_PEDESTRIANS_SEED
        self._rng = self._generator(())
        self.cross_factor = DEFAULT_CROSS_FACTOR
        self.controller = np.zeros(0, dtype=np.int64)  # controller actor rows
        self.walker = np.zeros(0, dtype=np.int64)  # walker actor rows
        self.speed = np.zeros(0)
        self.cross = np.zeros(0, dtype=bool)
        self.progress = np.zeros(0, dtype=np.int64)
        self.routes: list[np.ndarray] = []
        self.rngs: list[np.random.Generator] = []
        self._flat = np.zeros((0, 3))
        self._offset = np.zeros(0, dtype=np.int64)
        self._length = np.zeros(0, dtype=np.int64)
        self._dirty = True  # a route changed: _flatten writes the three arrays above again
        self._replaced = True  # start or _keep replaced the walkers' arrays: _flatten makes new
        self._flattened = 0  # counts the _flatten that made new arrays (the steering's table)
        self._table_key: tuple = ()
        self._table: ArrayTable | None = None

    @property
    def navigation(self):
        if self._nav is None:
            from world.traffic.walkers.navigation import WalkerNavigation

            if not hasattr(self.world.get_map(), "lane_keys"):
                raise WorldError("pedestrian navigation needs a map with sidewalks (this has none)")
            self._nav = WalkerNavigation.of_map(self.world.get_map())
            if not len(self._nav):
                raise WorldError(f"map {self.world.get_map().name}: no sidewalk lanes to walk on")
        return self._nav

    def _generator(self, key: tuple[int, ...]) -> np.random.Generator:
        sequence = np.random.SeedSequence(entropy=self._seed, spawn_key=key)
        return np.random.Generator(np.random.PCG64(sequence))

    def set_seed(self, seed: int) -> None:
        self._seed = int(seed)
        self._rng = self._generator(())

    def set_cross_factor(self, percentage: float) -> None:
        value = float(percentage)
        if not 0.0 <= value <= 1.0:
            raise WorldError(f"set_pedestrians_cross_factor: expected 0..1, got {value}")
        self.cross_factor = value

    def random_location(self, rng: np.random.Generator | None = None) -> Location:
        nav = self.navigation
        sidewalk = nav.sidewalk
        point = nav.points[sidewalk[int((rng or self._rng).integers(len(sidewalk)))]]
        return Location(float(point[0]), float(point[1]), float(point[2]))

    # -- controllers -----------------------------------------------------------------------

    def slot(self, controller_row: int) -> int:
        found = np.flatnonzero(self.controller == controller_row)
        return int(found[0]) if len(found) else -1

    def start(self, controller_row: int, walker_row: int) -> None:
        if self.slot(controller_row) >= 0:
            return
        rng = self._generator((controller_row + 1,))
        self.controller = np.append(self.controller, controller_row)
        self.walker = np.append(self.walker, walker_row)
        self.speed = np.append(self.speed, DEFAULT_WALKER_SPEED)
        self.cross = np.append(self.cross, bool(rng.random() < self.cross_factor))
        self.progress = np.append(self.progress, 0)
        self.rngs.append(rng)
        here = self.world.state_tables().actors.pos[walker_row]
        self.routes.append(here[None].copy())
        self._dirty = self._replaced = True

    def stop(self, controller_row: int) -> None:
        i = self.slot(controller_row)
        if i < 0:
            return
        w = self.world.state_tables().walkers
        wrow = int(self.world.state_tables().actors.wrow[self.walker[i]])
        w.speed[wrow] = 0.0
        self._keep(np.arange(len(self.controller)) != i)

    def _keep(self, keep: np.ndarray) -> None:
        for name in ("controller", "walker", "speed", "cross", "progress"):
            setattr(self, name, getattr(self, name)[keep])
        idx = np.flatnonzero(keep).tolist()
        self.routes = [self.routes[i] for i in idx]
        self.rngs = [self.rngs[i] for i in idx]
        self._dirty = self._replaced = True

    def go_to(self, i: int, goal: np.ndarray) -> None:
        nav = self.navigation
        here = self.world.state_tables().actors.pos[self.walker[i]]
        self.routes[i] = nav.points[nav.route(here, goal, bool(self.cross[i]))]
        self.progress[i] = 0
        self._dirty = True

    def set_speed(self, i: int, speed: float) -> None:
        self.speed[i] = max(float(speed), 0.0)

    # -- the tick --------------------------------------------------------------------------

    def tick(self, dt: float) -> None:
        """Steers every started walker (world.traffic.walkers.kernels.steer); gives walkers
        past their route's end a new one and drops controllers or walkers destroyed, between
        its calls."""
        if not len(self.controller):
            return
        a, _, w = self.world.state_tables()
        first_pass = 0
        while True:
            self._flatten()
            status = steer_table(self._steer_arrays(a, w), a.n, first_pass, ARRIVAL_PASSES)
            if status == STEERED:
                return
            if status == DEAD:
                self._keep(a.alive[self.controller] & a.alive[self.walker])
                if not len(self.controller):
                    return
                continue
            for i in np.flatnonzero(self.progress >= self._length).tolist():
                self.go_to(i, self._next_goal(i))
            first_pass = status

    def _next_goal(self, i: int) -> np.ndarray:
        loc = self.random_location(self.rngs[i])
        return np.array([loc.x, loc.y, loc.z])

    def _flatten(self) -> None:
        """The routes as one flat array (`_flat`), each walker's offset and length in it. A
        new route (a walker arrived, every few seconds among ten walkers) is written into
        the arrays in place while the points fit (`_flat` keeps room for twice the points it
        was made for; rows past the routes are never read), so the steering's table stays:
        making it costs ~10 us an array."""
        if not self._dirty:
            return
        length = np.array([len(r) for r in self.routes], dtype=np.int64)
        offset = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
        total = int(length.sum())
        if self._replaced or total > len(self._flat):
            self._flat = np.empty((2 * total, 3))
            self._length, self._offset = length, offset
            self._replaced = False
            self._flattened += 1
        else:
            self._length[:] = length
            self._offset[:] = offset
        np.concatenate(self.routes, out=self._flat[:total])
        self._dirty = False

    def _steer_arrays(self, a, w) -> np.ndarray:
        """steer_table's table of the arrays it reads and writes, made again only when one
        may have been replaced: the walkers' arrays (every change that replaces one marks the
        routes dirty, so _flatten runs), the actor or walker table grew. The table holds those
        arrays (world.kernels.array_table), so the ids in the key are those of live arrays."""
        key = (self._flattened, id(a.pos), id(w.direction))
        if self._table is None or key != self._table_key:
            self._table_key = key
            groups = (
                (a.alive, a.pos, a.rot, a.extent, a.vrow, a.wrow),
                (
                    self.controller,
                    self.walker,
                    self._flat,
                    self._offset,
                    self._length,
                    self.progress,
                    self.speed,
                ),
                (w.direction, w.speed),
                (WALKER_CONSTANTS,),
            )
            self._table = ArrayTable(groups, STEER_TABLE_KINDS)
        return self._table.table
