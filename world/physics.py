"""One tick of physics: impulses, substeps of vehicles, walkers and collisions, attachments.

The substeps run in one compiled function (numba, `_substeps`): every substep advances
the vehicles (world.vehicle_dynamics), then the walkers (world.walker_motion), then
resolves the collision candidates (world.collisions), all in place on the tables'
columns. Once per tick, the pushes (impulses before the substeps; accelerations and
spent pushes after) and the collision broad phase run compiled too, the ground query
is the map's (compiled on a real map, world.ground_query), and the selection of rows
and the attachments stay in numpy. The ground under each body is sampled once per
tick (world.ground). A pair that touched in any substep is one event of the
tick, its impulses summed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from numba import njit

from world import collisions, ground, vehicle_dynamics, walker_motion
from world.attachments import update_attached
from world.ground import GroundPlanes, sample_ground
from world.state import ActorTable, VehicleTable, WalkerTable
from world.vehicle_dynamics import BodyColumns, VehicleColumns, columns, rest_height
from world.vehicle_state import ActorType
from world.walker_motion import WalkerColumns

__all__ = ["FleetCache", "step"]


def sources_digest(*modules: object) -> str:
    """sha256 over the source files of `modules`."""
    digest = hashlib.sha256()
    for module in modules:
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()


def _ground_points(a: ActorTable, rows: np.ndarray) -> np.ndarray:
    """Query points: each body's origin, lowered to its box's bottom."""
    points = a.pos[rows].copy()
    points[:, 2] -= rest_height(a.extent[rows], a.box_loc[rows])
    return points


class FleetCache:
    """The tables' columns as the compiled substeps take them, kept between ticks.

    A table replaces its arrays when it grows, which `columns` notices; `stale()` drops
    them (the world calls it when a vehicle's physics parameters change).
    """

    def __init__(self) -> None:
        self._columns: tuple | None = None

    def stale(self) -> None:
        self._columns = None

    def columns(self, a: ActorTable, v: VehicleTable, w: WalkerTable) -> tuple:
        cached = self._columns
        if cached is None or not (
            cached[0].pos is a.pos and cached[1].rpm is v.rpm and cached[2].jump is w.jump
        ):
            cached = self._columns = (
                columns(BodyColumns, a),
                columns(VehicleColumns, v),
                columns(WalkerColumns, w),
            )
        return cached


def _compile_substeps(sources: str):
    """The tick's compiled substep loop. numba keys its on-disk cache on the defining file
    only, though the compiled loop holds the code of every kernel it calls (vehicles,
    walkers, collisions, ground); it also keys it on a closure's contents, so the loop
    closes over `sources`, the digest of those files, and recompiles when any changes."""

    @njit(cache=True)
    def run(
        body: BodyColumns,
        veh: VehicleColumns,
        walkers: WalkerColumns,
        ground: GroundPlanes,
        cars: np.ndarray,
        people: np.ndarray,
        contact_rows: np.ndarray,
        inv_mass: np.ndarray,
        pair_i: np.ndarray,
        pair_j: np.ndarray,
        h: float,
        substeps: int,
        out_i: np.ndarray,
        out_j: np.ndarray,
        out_impulse: np.ndarray,
    ) -> int:
        """Runs the tick's substeps of h; returns how many collision records `out_*` hold."""
        sources  # noqa: B018 (the digest is part of the cache key)
        steer_now, lifted = vehicle_dynamics.tick_setup(body, veh, cars)
        motion = walker_motion.crowd(body, walkers, people)
        grounded = np.empty(len(cars), dtype=np.bool_)
        count = 0
        for _ in range(substeps):
            vehicle_dynamics.substep(body, veh, ground, cars, steer_now, lifted, grounded, h)
            walker_motion.substep(body, walkers, ground, len(cars), people, motion, h)
            if len(pair_i):
                count = collisions.resolve(
                    body.pos,
                    body.rot,
                    body.vel,
                    body.extent,
                    body.box_loc,
                    contact_rows,
                    inv_mass,
                    pair_i,
                    pair_j,
                    out_i,
                    out_j,
                    out_impulse,
                    count,
                )
        return count

    return run


_substeps = _compile_substeps(sources_digest(collisions, ground, vehicle_dynamics, walker_motion))


def step(
    a: ActorTable,
    v: VehicleTable,
    w: WalkerTable,
    ground_map: object,
    dt: float,
    substeps: int,
    cache: FleetCache,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Advances the world by dt in `substeps` equal steps.

    Returns the rows (i < j) of the pairs that collided and the impulse i received.
    """
    n = a.n
    alive = a.alive[:n]
    prev_vel = a.vel[:n].copy()
    bodies, cars, people = _choose_bodies(
        alive,
        a.body[:n],
        a.simulate_physics[:n],
        a.kind[:n],
        int(ActorType.Vehicle),
        int(ActorType.Walker),
    )
    _apply_impulses(
        a.vel,
        a.angvel,
        a.impulse,
        a.ang_impulse,
        a.mass,
        a.extent,
        a.vrow,
        v.cg_front,
        v.wheelbase,
        bodies,
    )
    # one ground query for every body: the vehicles' planes first, then the walkers'
    planes = sample_ground(ground_map, _ground_points(a, np.concatenate([cars, people])))
    contacts = _Contacts(a, w, alive, dt)
    records = substeps * len(contacts.i)
    out_i, out_j = np.empty(records, dtype=np.int64), np.empty(records, dtype=np.int64)
    out_impulse = np.empty((records, 3))
    count = _substeps(
        *cache.columns(a, v, w),
        planes,
        cars,
        people,
        contacts.rows,
        contacts.inv_mass,
        contacts.i,
        contacts.j,
        dt / substeps,
        substeps,
        out_i,
        out_j,
        out_impulse,
    )
    _finish_pushes(alive, a.vel, prev_vel, dt, a.acc, a.impulse, a.force, a.ang_impulse, a.torque)
    update_attached(a)
    return _merge_pairs(out_i[:count], out_j[:count], out_impulse[:count])


# m/s²: no body speeds up faster than this by itself (a car's traction cap is ~10 m/s²)
MAX_ACCELERATION = 15.0


class _Contacts:
    """The colliders that may touch during a tick, found once per tick.

    The broad phase (collisions.contact_candidates) grows each box by how far its body can
    travel in the tick (its speed, a walker's control speed, MAX_ACCELERATION and its pushing
    force), so the substeps only test those pairs. A body knocked faster by a collision meets
    third bodies from the next tick.
    """

    def __init__(self, a: ActorTable, w: WalkerTable, alive: np.ndarray, dt: float) -> None:
        n = a.n
        colliders, moving, walk_speed = _choose_colliders(
            alive,
            a.body[:n],
            a.simulate_physics[:n],
            a.static_collider[:n],
            a.depth[:n],
            a.wrow[:n],
            w.speed,
        )
        self.rows = self.i = self.j = np.zeros(0, dtype=np.int64)
        self.inv_mass = np.zeros(0)
        if len(colliders) < 2:
            return
        self.rows, self.i, self.j, self.inv_mass = collisions.contact_candidates(
            colliders,
            moving,
            a.mass,
            a.vel,
            a.force,
            walk_speed,
            a.pos,
            a.rot,
            a.extent,
            a.box_loc,
            MAX_ACCELERATION,
            dt,
        )


@njit(cache=True)
def _choose_bodies(
    alive: np.ndarray,
    body: np.ndarray,
    simulate: np.ndarray,
    kind: np.ndarray,
    vehicle: int,
    walker: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows, ascending, of the live simulated bodies: all of them, the vehicles', the
    walkers'."""
    n = len(alive)
    bodies = np.empty(n, dtype=np.int64)
    cars = np.empty(n, dtype=np.int64)
    people = np.empty(n, dtype=np.int64)
    nb = nc = nw = 0
    for r in range(n):
        if alive[r] and body[r] and simulate[r]:
            bodies[nb] = r
            nb += 1
            if kind[r] == vehicle:
                cars[nc] = r
                nc += 1
            elif kind[r] == walker:
                people[nw] = r
                nw += 1
    return bodies[:nb], cars[:nc], people[:nw]


@njit(cache=True)
def _choose_colliders(
    alive: np.ndarray,
    body: np.ndarray,
    simulate: np.ndarray,
    static_collider: np.ndarray,
    depth: np.ndarray,
    wrow: np.ndarray,
    walker_speed: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows, ascending, of the live colliders (bodies and props; a prop attached to an
    actor moves with it and does not collide, not even with it), whether each is a simulated
    body, and each one's walking speed (0 for non-walkers)."""
    n = len(alive)
    rows = np.empty(n, dtype=np.int64)
    moving = np.empty(n, dtype=np.bool_)
    speed = np.empty(n, dtype=np.float64)
    k = 0
    for r in range(n):
        if alive[r] and (body[r] or (static_collider[r] and depth[r] == 0)):
            rows[k] = r
            moving[k] = body[r] and simulate[r]
            speed[k] = np.float64(walker_speed[wrow[r]]) if wrow[r] >= 0 else 0.0
            k += 1
    return rows[:k], moving[:k], speed[:k]


@njit(cache=True)
def _apply_impulses(
    vel: np.ndarray,
    angvel: np.ndarray,
    impulse: np.ndarray,
    ang_impulse: np.ndarray,
    mass: np.ndarray,
    extent: np.ndarray,
    vrow: np.ndarray,
    cg_front: np.ndarray,
    wheelbase: np.ndarray,
    bodies: np.ndarray,
) -> None:
    """The pushes of `add_impulse` (velocity J/m) and the yaw part of `add_angular_impulse`
    (deg/s, J over the yaw inertia: m a b for vehicles (single track), m r^2 / 3 of the box
    for others, at least 1e-9) on the rows `bodies`."""
    for b in bodies:
        m = mass[b]
        for i in range(3):
            vel[b, i] += impulse[b, i] / m
        k = vrow[b]
        if k >= 0:
            cg_a = cg_front[k]
            inertia = m * cg_a * (wheelbase[k] - cg_a)
        else:
            inertia = m * (extent[b, 0] ** 2 + extent[b, 1] ** 2) / 3.0
        angvel[b, 2] += np.degrees(ang_impulse[b, 2] / max(inertia, 1e-9))


@njit(cache=True)
def _finish_pushes(
    alive: np.ndarray,
    vel: np.ndarray,
    prev_vel: np.ndarray,
    dt: float,
    acc: np.ndarray,
    impulse: np.ndarray,
    force: np.ndarray,
    ang_impulse: np.ndarray,
    torque: np.ndarray,
) -> None:
    """Each live row's acceleration over the tick (0 for dead rows) from its velocity
    before it (`prev_vel`); the tick's pushes spent (zeroed)."""
    for r in range(len(alive)):
        for i in range(3):
            acc[r, i] = (vel[r, i] - prev_vel[r, i]) / dt if alive[r] else 0.0
            impulse[r, i] = force[r, i] = ang_impulse[r, i] = torque[r, i] = 0.0


def _merge_pairs(
    i: np.ndarray, j: np.ndarray, imp: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One record per pair (sorted by rows), its impulses summed in record order."""
    if len(i) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros((0, 3))
    keys, inverse = np.unique(i << 32 | j, return_inverse=True)
    total = np.zeros((len(keys), 3))
    np.add.at(total, inverse, imp)
    return keys >> 32, keys & 0xFFFFFFFF, total
