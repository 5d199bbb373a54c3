"""The background's vehicles: spawning them on the world's traffic manager, what each one
is for (road bubble, oncoming lane, junction), the holds scenarios put on them, and
their target speeds, as small numpy columns in creation order.

Reading positions goes through the world's state tables (one gather for all vehicles);
target speeds reach the traffic manager only when they change by a whole step, since
every per-vehicle setting there makes it rebuild its columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from scenarios.behaviours import TM_PORT
from world import elementary as el
from world.geometry import Location, Transform, Vector3D

__all__ = [
    "BRAKED",
    "ENTRY",
    "EXIT",
    "FREE",
    "JUNCTION",
    "MIDDLE",
    "OPPOSITE",
    "ROAD",
    "STOPPED",
    "Fleet",
]

ROAD, OPPOSITE, JUNCTION = 0, 1, 2  # what a vehicle is for
FREE, BRAKED, STOPPED = 0, 1, 2  # holds: none; off the autopilot, braking; target speed 0
ENTRY, MIDDLE, EXIT = 0, 1, 2  # a junction vehicle: before, in, past its junction

ROLE = "background"
FALLBACK_BLUEPRINT = "vehicle.lincoln.mkz_2017"
SPAWN_LIFT = 0.5  # m above the lane
CLEARANCE = 6.0  # m ahead or behind a new vehicle's place, on its lane, kept free...
LANE_BAND = 2.0  # m either side of its line (the lanes beside are 3 m or more away)
NEAR_CLEARANCE = 2.5  # m all round (a prop, a walker at the lane's edge)
LEADING_DISTANCE = 10.0  # m the background keeps to the vehicle ahead (ScenarioRunner's)
SPEED_STEP = 2.0  # km/h: target speeds are set in these steps
SPEED_CAP = 90.0  # km/h


def _car_blueprints(world: Any) -> list[str]:
    """Cars with lights and nothing special (ScenarioRunner's background filter), by id."""
    ids = []
    for bp in world.get_blueprint_library().filter("vehicle.*"):
        attrs = {
            k: bp.get_attribute(k).value
            for k in ("base_type", "special_type", "has_lights")
            if bp.has_attribute(k)
        }
        plain = attrs.get("base_type") == "car" and not attrs.get("special_type")
        if plain and attrs.get("has_lights") == "true":
            ids.append(bp.id)
    return sorted(ids) or [FALLBACK_BLUEPRINT]


class Fleet:
    """The background's vehicles, one row each in creation order."""

    def __init__(self, world: Any, rng: np.random.Generator) -> None:
        self.world = world
        self.rng = rng
        self.tm = world.get_trafficmanager(TM_PORT)
        self.library = world.get_blueprint_library()
        self.blueprints = _car_blueprints(world)
        self.actors: list[Any] = []
        self.ids = np.zeros(0, dtype=np.int64)
        self.group = np.zeros(0, dtype=np.int8)
        self.junction = np.zeros(0, dtype=np.int64)  # ordinal of its junction, -1
        self.source = np.zeros(0, dtype=np.int64)  # id of the source that made it, -1
        self.state = np.zeros(0, dtype=np.int8)
        self.hold = np.zeros(0, dtype=np.int8)
        self.speed = np.zeros(0)  # km/h last given to the traffic manager (nan: none yet)
        self.spawned = 0  # vehicles made so far
        self.version = 0  # counts changes of membership

    _COLUMNS = ("ids", "group", "junction", "source", "state", "hold", "speed")

    def __len__(self) -> int:
        return len(self.actors)

    # -- membership --------------------------------------------------------------------------

    def free_at(self, transform: Transform) -> bool:
        """No vehicle, walker or prop centre within CLEARANCE ahead or behind of
        `transform` on its lane (LANE_BAND either side of its line), nor within
        NEAR_CLEARANCE of it."""
        a = self.world.state_tables().actors
        n = a.n
        solid = a.alive[:n] & (a.body[:n] | a.static_collider[:n])
        loc = transform.location
        gap = a.pos[:n, :2][solid] - np.array([loc.x, loc.y])
        yaw = float(np.radians(transform.rotation.yaw))
        cos, sin = el.cos(yaw), el.sin(yaw)
        along = gap[:, 0] * cos + gap[:, 1] * sin
        across = gap[:, 1] * cos - gap[:, 0] * sin
        on_lane = (np.abs(along) < CLEARANCE) & (np.abs(across) < LANE_BAND)
        close = along * along + across * across < NEAR_CLEARANCE * NEAR_CLEARANCE
        return not bool((on_lane | close).any())

    def spawn(
        self,
        wp: Any,
        group: int,
        *,
        junction: int = -1,
        source: int = -1,
        state: int = ENTRY,
        speed: float = 0.0,
        ignore_lights: bool = False,
    ) -> Any | None:
        """A car on `wp`'s lane, on the autopilot (lane changes off, lights on, 10 m to the
        car ahead) and moving at `speed` m/s; None when the place is not free."""
        tf = wp.transform
        where = Transform(
            Location(tf.location.x, tf.location.y, tf.location.z + SPAWN_LIFT), tf.rotation
        )
        if not self.free_at(where):
            return None
        name = self.blueprints[int(self.rng.integers(len(self.blueprints)))]
        bp = self.library.find(name).copy()
        bp.set_attribute("role_name", ROLE)
        actor = self.world.try_spawn_actor(bp, where)
        if actor is None:
            return None
        actor.set_autopilot(True, TM_PORT)
        self.tm.auto_lane_change(actor, False)
        self.tm.update_vehicle_lights(actor, True)
        self.tm.distance_to_leading_vehicle(actor, LEADING_DISTANCE)
        if ignore_lights:
            self.tm.ignore_lights_percentage(actor, 100.0)
            self.tm.ignore_signs_percentage(actor, 100.0)
        if speed > 0.0:
            yaw = float(np.radians(tf.rotation.yaw))
            actor.set_target_velocity(Vector3D(el.cos(yaw) * speed, el.sin(yaw) * speed, 0.0))
        self.actors.append(actor)
        row = (actor.id, group, junction, source, state, FREE, np.nan)
        for column, value in zip(self._COLUMNS, row, strict=True):
            old = getattr(self, column)
            setattr(self, column, np.concatenate([old, np.array([value], dtype=old.dtype)]))
        self.spawned += 1
        self.version += 1
        return actor

    def _keep(self, keep: np.ndarray) -> None:
        self.version += 1
        for name in self._COLUMNS:
            setattr(self, name, getattr(self, name)[keep])
        self.actors = [a for a, k in zip(self.actors, keep.tolist(), strict=True) if k]

    def destroy(self, rows: Sequence[int] | np.ndarray) -> list[Any]:
        """Destroys the vehicles at `rows`; returns them."""
        rows = sorted({int(r) for r in rows})
        if not rows:
            return []
        gone = [self.actors[r] for r in rows]
        for actor in gone:
            if actor.is_alive:
                actor.destroy()
        keep = np.ones(len(self.actors), dtype=bool)
        keep[rows] = False
        self._keep(keep)
        return gone

    def prune(self) -> None:
        """Forgets vehicles destroyed by someone else."""
        if not len(self.actors):
            return
        alive = self.world.state_tables().actors.alive[self.ids - 1]
        if not alive.all():
            self._keep(alive)

    def row_of(self, actor: Any) -> int:
        found = np.flatnonzero(self.ids == actor.id)
        return int(found[0]) if len(found) else -1

    # -- reading -----------------------------------------------------------------------------

    def view(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Positions (V, 3), yaws (V, degrees) and planar speeds (V,)."""
        a = self.world.state_tables().actors
        rows = self.ids - 1
        vel = a.vel[rows, :2]
        return a.pos[rows], a.rot[rows, 1], np.sqrt((vel * vel).sum(axis=1))

    # -- holds and speeds ----------------------------------------------------------------------

    def brake(self, rows: Sequence[int]) -> list[Any]:
        """Takes the vehicles off the autopilot with full brake (ScenarioRunner's hard stop)."""
        from scenarios.behaviours import stop_vehicle

        out = []
        for r in rows:
            stop_vehicle(self.actors[r], 1.0)
            self.hold[r] = BRAKED
            out.append(self.actors[r])
        return out

    def release(self, kind: int) -> None:
        """Every vehicle held with `kind` back to its speed on the autopilot."""
        for r in np.flatnonzero(self.hold == kind).tolist():
            if kind == BRAKED:
                self.actors[r].set_autopilot(True, TM_PORT)
            self.hold[r] = FREE
            self.speed[r] = np.nan

    def set_speeds(self, kmh: np.ndarray) -> None:
        """Target speeds (km/h), in SPEED_STEP steps, for the vehicles not braked off the
        autopilot; vehicles held to a stop get 0. Only changes reach the traffic manager."""
        kmh = np.minimum(kmh, SPEED_CAP)
        kmh = np.where(self.hold == STOPPED, 0.0, np.rint(kmh / SPEED_STEP) * SPEED_STEP)
        change = (self.hold != BRAKED) & ~(kmh == self.speed)
        for r in np.flatnonzero(change).tolist():
            self.tm.set_desired_speed(self.actors[r], float(kmh[r]))
        self.speed = np.where(change, kmh, self.speed)
