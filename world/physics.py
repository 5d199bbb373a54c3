"""One tick of physics: impulses, substeps of vehicles, walkers and collisions, attachments.

Vectorised over bodies (live vehicles and walkers that simulate physics). The
ground under each body is sampled once per tick (world.ground). Collisions are
resolved after each substep; a pair that touched in any substep is one event of
the tick, its impulses summed.
"""

from __future__ import annotations

import numpy as np

from world import collisions, vehicle_dynamics, walker_motion
from world.attachments import update_attached
from world.ground import sample_ground
from world.state import ActorTable, VehicleTable, WalkerTable
from world.vehicle_dynamics import rest_height
from world.vehicle_state import ActorType

__all__ = ["FleetCache", "step"]


def _ground_points(a: ActorTable, rows: np.ndarray) -> np.ndarray:
    """Query points: each body's origin, lowered to its box's bottom."""
    points = a.pos[rows].copy()
    points[:, 2] -= rest_height(a.extent[rows], a.box_loc[rows])
    return points


class FleetCache:
    """Keeps the vehicles' gathered parameters between ticks while they stay valid.

    `stale()` must be called whenever a vehicle's physics parameters change; a change in
    which vehicles are stepped (spawn, destroy, physics off) is seen by the rows.
    """

    def __init__(self) -> None:
        self._fleet: vehicle_dynamics.Fleet | None = None

    def stale(self) -> None:
        self._fleet = None

    def fleet(self, a: ActorTable, v: VehicleTable, rows: np.ndarray) -> vehicle_dynamics.Fleet:
        fleet = self._fleet
        if fleet is None or not np.array_equal(fleet.rows, rows):
            fleet = self._fleet = vehicle_dynamics.Fleet(a, v, rows)
        fleet.refresh(a, v)
        return fleet


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
    bodies = np.flatnonzero(alive & a.body[:n] & a.simulate_physics[:n])
    kind = a.kind[bodies]
    cars = bodies[kind == ActorType.Vehicle]
    people = bodies[kind == ActorType.Walker]
    mass = a.mass[bodies]
    a.vel[bodies] += a.impulse[bodies] / mass[:, None]
    yaw_inertia = _yaw_inertia(a, v, bodies)
    a.angvel[bodies, 2] += np.degrees(a.ang_impulse[bodies, 2] / yaw_inertia)
    car_ground = sample_ground(ground_map, _ground_points(a, cars))
    people_ground = sample_ground(ground_map, _ground_points(a, people))
    contacts = _Contacts(a, w, alive, dt)
    fleet = cache.fleet(a, v, cars)
    crowd = walker_motion.Crowd(a, w, people)
    h = dt / substeps
    pairs_i, pairs_j, impulses = [], [], []
    for _ in range(substeps):
        if len(cars):
            vehicle_dynamics.substep(a, fleet, car_ground, h)
        if len(people):
            walker_motion.substep(a, crowd, people_ground, h)
        if contacts.rows.size:
            rows = contacts.rows
            pos, vel = a.pos[rows], a.vel[rows]
            fp = collisions.footprints(pos, a.rot[rows, 1], a.extent[rows], a.box_loc[rows])
            i, j, imp = collisions.resolve(pos, vel, contacts.inv_mass, fp, contacts.i, contacts.j)
            if len(i):
                a.pos[rows], a.vel[rows] = pos, vel
                pairs_i.append(rows[i])
                pairs_j.append(rows[j])
                impulses.append(imp)
    crowd.store(w)
    fleet.store(v)
    a.acc[:n] = np.where(alive[:, None], (a.vel[:n] - prev_vel) / dt, 0.0)
    for column in (a.impulse, a.force, a.ang_impulse, a.torque):
        column[:n] = 0.0
    update_attached(a)
    return _merge_pairs(pairs_i, pairs_j, impulses)


# m/s²: no body speeds up faster than this by itself (a car's traction cap is ~10 m/s²)
MAX_ACCELERATION = 15.0


class _Contacts:
    """The colliders that may touch during a tick, found once per tick.

    The broad phase grows each box by how far its body can travel in the tick (its speed, a
    walker's control speed, MAX_ACCELERATION and its pushing force), so the substeps only test
    those pairs. A body knocked faster by a collision meets third bodies from the next tick.
    """

    def __init__(self, a: ActorTable, w: WalkerTable, alive: np.ndarray, dt: float) -> None:
        n = a.n
        # props attached to an actor move with it and do not collide (not even with it)
        props = a.static_collider[:n] & (a.depth[:n] == 0)
        colliders = np.flatnonzero(alive & (a.body[:n] | props))
        self.rows = np.zeros(0, dtype=np.int64)
        if len(colliders) < 2:
            return
        moving = a.body[colliders] & a.simulate_physics[colliders]
        mass = np.maximum(a.mass[colliders], 1e-9)
        speed = np.linalg.norm(a.vel[colliders], axis=1)
        wrow = a.wrow[colliders]
        speed += np.where(wrow >= 0, w.speed[np.maximum(wrow, 0)], 0.0)
        speed += (MAX_ACCELERATION + np.linalg.norm(a.force[colliders], axis=1) / mass) * dt
        margin = np.where(moving, speed * dt + 0.05, 0.0)
        fp = collisions.footprints(
            a.pos[colliders], a.rot[colliders, 1], a.extent[colliders], a.box_loc[colliders]
        )
        i, j = collisions.candidate_pairs(fp, margin)
        keep = moving[i] | moving[j]
        i, j = i[keep], j[keep]
        if len(i) == 0:
            return
        involved = np.zeros(len(colliders), dtype=bool)
        involved[i] = involved[j] = True
        local = np.cumsum(involved) - 1  # collider index -> index among the involved
        self.rows = colliders[involved]
        self.i, self.j = local[i], local[j]
        self.inv_mass = np.where(moving[involved], 1.0 / mass[involved], 0.0)


def _yaw_inertia(a: ActorTable, v: VehicleTable, rows: np.ndarray) -> np.ndarray:
    """Yaw moment of inertia: m·a·b for vehicles (single track), m·r² of the box for others."""
    inertia = a.mass[rows] * (a.extent[rows, 0] ** 2 + a.extent[rows, 1] ** 2) / 3.0
    k = a.vrow[rows]
    car = k >= 0
    cg_a = v.cg_front[k[car]]
    inertia[car] = a.mass[rows[car]] * cg_a * (v.wheelbase[k[car]] - cg_a)
    return np.maximum(inertia, 1e-9)


def _merge_pairs(
    pairs_i: list, pairs_j: list, impulses: list
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not pairs_i:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros((0, 3))
    i, j, imp = np.concatenate(pairs_i), np.concatenate(pairs_j), np.concatenate(impulses)
    keys, inverse = np.unique(i.astype(np.int64) << 32 | j.astype(np.int64), return_inverse=True)
    total = np.zeros((len(keys), 3))
    np.add.at(total, inverse, imp)
    return keys >> 32, keys & 0xFFFFFFFF, total
