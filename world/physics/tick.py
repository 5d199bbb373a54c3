"""One tick of physics: impulses, substeps of vehicles, walkers and collisions, attachments.

The whole tick but the attachments runs in one compiled function (numba, `_tick`): it
selects the bodies, applies the pushes (impulses), samples the ground under every body
once (the map's compiled query, world.map.ground_query, and for a body no lane covers the
carried ground, world.map.carried_ground, both run inside the same call on a real map; any
other map's `ground` answer is sampled before it), finds the collision
candidates (broad phase, world.physics.collisions), then every substep advances the vehicles
(world.physics.vehicle_dynamics), then the walkers (world.physics.walker_motion), then resolves the
candidates, all in place on the tables' columns; last it writes the accelerations, spends
the pushes and merges the collision records: a pair that touched in any substep is one
event of the tick, its impulses summed. One call, because a compiled call taking the
tables' columns costs microseconds to enter. Around it, the vehicles' body pitch on their
suspensions (world.physics.body_pitch) leaves the pose before and joins it after; the
attachments follow (world.actors.attachments).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from world.actors.attachments import update_attached
from world.actors.vehicle_state import ActorType
from world.kernels.array_table import ArrayTable, column, matrix
from world.kernels.compiled import njit
from world.map.carried_ground import NO_CARRIED_GROUND, CarriedGround, carried_into
from world.map.ground import GroundPlanes, planes_through, sample_ground
from world.map.ground_query import (
    NO_SURFACES,
    GroundMemory,
    SurfaceArrays,
    ground_memory,
    highest_remembered,
)
from world.physics import body_pitch, collisions, vehicle_dynamics, walker_motion
from world.physics.vehicle_dynamics import BodyColumns, VehicleColumns, columns
from world.physics.walker_motion import WalkerColumns
from world.state import ActorTable, VehicleTable, WalkerTable

__all__ = ["PHYSICS_TABLE_KINDS", "FleetCache", "step"]


class TickColumns(NamedTuple):
    """The actor table's columns the tick reads besides BodyColumns (world.state.ActorTable)."""

    alive: np.ndarray
    kind: np.ndarray
    body: np.ndarray
    simulate_physics: np.ndarray
    static_collider: np.ndarray
    depth: np.ndarray
    acc: np.ndarray
    impulse: np.ndarray
    ang_impulse: np.ndarray


class FleetCache:
    """The tables' columns as the compiled tick takes them, kept between ticks: one
    ArrayTable (world.kernels.array_table) of BodyColumns', VehicleColumns', WalkerColumns'
    and TickColumns' arrays and of what the tick remembers, made again when an array is
    replaced (handing the ~80 arrays over one by one cost their unboxing on every call,
    and two atomic reference counts each time a group was handed on to the substeps).

    A table replaces its arrays when it grows, which `table` notices; `stale()` drops
    them (the world calls it when a vehicle's physics parameters change).

    What the tick remembers from one tick to the next: the substeps' last yaw of each
    vehicle row with its cosine and sine (vehicle_dynamics.substep) and the ground query's
    last answer and slabs for each actor row (ground_query.highest_remembered), made again, empty,
    when a table grows or the map's surfaces are others.
    """

    def __init__(self) -> None:
        self._map: object = None
        self._map_arrays: tuple = ()
        self._columns: tuple | None = None
        self._pos: np.ndarray | None = None
        self._rpm: np.ndarray | None = None
        self._jump: np.ndarray | None = None
        self._heading = np.full((0, 3), np.nan)
        self._ground = ground_memory(0)
        self._surfaces: np.ndarray | None = None
        self._table: ArrayTable | None = None

    def stale(self) -> None:
        self._columns = None

    def map_arrays(self, ground_map: object) -> tuple:
        """(surface constants or None, SurfaceArrays' and CarriedGround's fields as plain
        tuples) of a map: its compiled ground index's and carried ground's arrays (made once
        per map, map.derived), or NO_SURFACES' for a map without the index (its own `ground`
        is sampled every tick: step). Kept while the map is the same object."""
        if self._map is not ground_map:
            index = getattr(ground_map, "surface_index", None)
            carried = getattr(ground_map, "carried_ground", None)
            carried = NO_CARRIED_GROUND if carried is None else carried()
            surfaces = NO_SURFACES if index is None else index().arrays
            segments = None if index is None else surfaces.segments
            self._map_arrays = (segments, tuple(surfaces), tuple(carried))
            self._map = ground_map
        return self._map_arrays

    def table(
        self, a: ActorTable, v: VehicleTable, w: WalkerTable, surfaces: np.ndarray
    ) -> np.ndarray:
        """The address table of the tick's columns and memory (PHYSICS_TABLE_KINDS), for the
        map whose surface constants are `surfaces`."""
        same = self._pos is a.pos and self._rpm is v.rpm and self._jump is w.jump
        if self._columns is None or not same:
            self._pos, self._rpm, self._jump = a.pos, v.rpm, w.jump
            if len(self._heading) != len(v.rpm):
                self._heading = np.full((len(v.rpm), 3), np.nan)
            if len(self._ground.known) != len(a.pos):
                self._ground = ground_memory(len(a.pos))
            self._columns = tuple(
                columns(kind, table)
                for kind, table in (
                    (BodyColumns, a),
                    (VehicleColumns, v),
                    (WalkerColumns, w),
                    (TickColumns, a),
                )
            )
            self._table = None
        if self._surfaces is not surfaces:
            self._surfaces = surfaces
            self._ground = ground_memory(len(self._ground.known))
            self._table = None
        if self._table is None:
            groups = (*self._columns, (self._heading,), self._ground)
            self._table = ArrayTable(groups, PHYSICS_TABLE_KINDS)
        return self._table.table


# The dtype and dimensions of each array of the tick's table, group by group, as
# _physics_groups makes them again: the columns, the substeps' last yaws, the ground memory
_F8, _F8_2, _F4, _F4_2 = (np.float64, 1), (np.float64, 2), (np.float32, 1), (np.float32, 2)
_I8, _I8_2, _I4, _I2 = (np.int64, 1), (np.int64, 2), (np.int32, 1), (np.int16, 1)
_I1, _B = (np.int8, 1), (np.bool_, 1)
PHYSICS_TABLE_KINDS = (
    BodyColumns(
        pos=_F8_2, rot=_F8_2, vel=_F8_2, angvel=_F8_2, force=_F8_2, torque=_F8_2, mass=_F8,
        extent=_F8_2, box_loc=_F8_2, gravity=_B, const_vel=_B, const_vel_local=_F8_2,
        vrow=_I4, wrow=_I4,
    ),
    VehicleColumns(
        throttle=_F4, steer=_F4, brake=_F4, hand_brake=_B, reverse=_B, manual_gear_shift=_B,
        control_gear=_I4, ackermann=_B, ack_steer=_F4, ack_speed=_F4, max_rpm=_F8, moi=_F8,
        damp_full=_F8, damp_engaged=_F8, damp_disengaged=_F8, clutch=_F8, autobox=_B,
        switch_time=_F8, final_ratio=_F8, drag=_F8, area=_F8, wheelbase=_F8, cg_front=_F8,
        max_steer=_F8, wheel_radius=_F8, brake_torque=_F8, handbrake_torque=_F8,
        friction=_F8, lat_stiff=_F8, torque_rpm=_F8_2, torque_nm=_F8_2, gear_ratio=_F8_2,
        gear_up=_F8_2, gear_down=_F8_2, n_gears=_I4, steer_kmh=_F8_2, steer_factor=_F8_2,
        in_throttle=_F8, in_brake=_F8, in_steer=_F8, gear=_I4, target_gear=_I4,
        shift_timer=_F8, since_shift=_F8, rpm=_F8, wheel_spin=_F8, steer_angle=_F8,
    ),
    WalkerColumns(direction=_F4_2, speed=_F4, jump=_B, on_ground=_B),
    TickColumns(
        alive=_B, kind=_I1, body=_B, simulate_physics=_B, static_collider=_B, depth=_I2,
        acc=_F8_2, impulse=_F8_2, ang_impulse=_F8_2,
    ),
    (_F8_2,),  # each vehicle row's last yaw (degrees), its cosine and sine
    GroundMemory(
        bits=_I8_2, z=_F8, normal=_F8_2, found=_B, known=_B, cell=_I8, region=_F8_2, held=_I8_2
    ),
)  # fmt: skip


# m/s²: no body speeds up faster than this by itself (a car's traction cap is ~10 m/s²)
MAX_ACCELERATION = 15.0

_VEHICLE, _WALKER = int(ActorType.Vehicle), int(ActorType.Walker)  # plain ints for the kernels
_NO_PLANES = (np.zeros((0, 2)), np.zeros(0), np.zeros((0, 2)), np.zeros(0, bool))  # GroundPlanes


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
    segments, surfaces, carried = cache.map_arrays(ground_map)
    if segments is not None:
        planes, sampled = _NO_PLANES, False
    else:  # a map without the compiled index: its own `ground`, sampled before the tick
        segments, planes, sampled = NO_SURFACES.segments, tuple(_planes_of(a, ground_map)), True
    body_pitch.take_out(
        a.rot, a.alive, a.simulate_physics, v.actor, v.road_pitch, v.body_pitch, v.n
    )
    result = _tick(
        cache.table(a, v, w, segments),
        a.n,
        surfaces,
        carried,
        planes,
        sampled,
        _VEHICLE,
        _WALKER,
        dt,
        substeps,
        MAX_ACCELERATION,
    )
    body_pitch.put_in(
        a.rot,
        a.acc,
        a.alive,
        a.simulate_physics,
        v.actor,
        v.pitch_gain,
        v.pitch_frequency,
        v.pitch_damping,
        v.pitch_limit,
        v.road_pitch,
        v.body_pitch,
        v.body_pitch_rate,
        v.n,
        dt,
    )
    update_attached(a)
    return result


def _planes_of(a: ActorTable, ground_map: object) -> GroundPlanes:
    """The ground planes under every body, vehicles' first, from `ground_map.ground`."""
    n = a.n
    _, cars, people = _choose_bodies(
        a.alive[:n],
        a.body[:n],
        a.simulate_physics[:n],
        a.kind[:n],
        int(ActorType.Vehicle),
        int(ActorType.Walker),
    )
    points = _ground_points(a.pos, a.extent, a.box_loc, np.concatenate([cars, people]))
    return sample_ground(ground_map, points)


@njit(cache=True)
def _ground_points(
    pos: np.ndarray, extent: np.ndarray, box_loc: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """Query points: each body's origin, lowered to its box's bottom (by the height its
    origin rests above the ground, as in the substeps)."""
    points = np.empty((len(rows), 3))
    for m in range(len(rows)):
        r = rows[m]
        points[m, 0], points[m, 1] = pos[r, 0], pos[r, 1]
        points[m, 2] = pos[r, 2] - max(extent[r, 2] - box_loc[r, 2], 0.0)
    return points


@njit(cache=True)
def _tick(
    table: np.ndarray,
    n: int,
    surface_arrays: tuple,
    carried_arrays: tuple,
    plane_arrays: tuple,
    sampled: bool,
    vehicle: int,
    walker: int,
    dt: float,
    substeps: int,
    max_acceleration: float,
) -> tuple:
    """The tick on the first n actor rows; the planes (GroundPlanes' fields) are the bodies'
    ground when `sampled`, else it is queried from the surfaces. The tables' columns and
    what the tick remembers come as FleetCache's table (PHYSICS_TABLE_KINDS), the map's
    arrays as plain tuples in their NamedTuples' field order. Returns the merged
    collisions."""
    body, veh, walkers, extra, heading, ground = _physics_groups(table)
    surfaces, carried = SurfaceArrays(*surface_arrays), CarriedGround(*carried_arrays)
    planes = GroundPlanes(*plane_arrays)
    alive = extra.alive[:n]
    prev_vel = body.vel[:n].copy()
    bodies, cars, people = _choose_bodies(
        alive, extra.body[:n], extra.simulate_physics[:n], extra.kind[:n], vehicle, walker
    )
    _apply_impulses(
        body.vel,
        body.angvel,
        extra.impulse,
        extra.ang_impulse,
        body.mass,
        body.extent,
        body.vrow,
        veh.cg_front,
        veh.wheelbase,
        bodies,
    )
    if not sampled:
        # one ground query for every body: the vehicles' planes first, then the walkers'
        queried = np.concatenate((cars, people))
        points = _ground_points(body.pos, body.extent, body.box_loc, queried)
        m = len(points)
        z, normal, found = np.empty(m), np.empty((m, 3)), np.empty(m, dtype=np.bool_)
        highest_remembered(surfaces, points, queried, ground, z, normal, found)
        carried_into(carried, points, surfaces.reach, z, normal, found)
        planes = planes_through(points, z, normal, found)
    rows, pair_i, pair_j, inv_mass = _contacts(body, walkers, extra, n, max_acceleration, dt)
    records = substeps * len(pair_i)
    out_i, out_j = np.empty(records, dtype=np.int64), np.empty(records, dtype=np.int64)
    out_impulse = np.empty((records, 3))
    h = dt / substeps
    steer_now, lifted, fixed = vehicle_dynamics.tick_setup(body, veh, cars, h)
    motion = walker_motion.crowd(body, walkers, people)
    grounded = np.empty(len(cars), dtype=np.bool_)
    moved = np.empty((len(cars), 5))
    count = 0
    for _ in range(substeps):
        vehicle_dynamics.substep(
            body, veh, planes, cars, steer_now, lifted, fixed, grounded, moved, heading, h
        )
        walker_motion.substep(body, walkers, planes, len(cars), people, motion, h)
        if len(pair_i):
            count = collisions.resolve(
                body.pos,
                body.rot,
                body.vel,
                body.extent,
                body.box_loc,
                rows,
                inv_mass,
                pair_i,
                pair_j,
                out_i,
                out_j,
                out_impulse,
                count,
                collisions.SEPARATION_SPEED * h,
            )
    _finish_pushes(
        alive,
        body.vel,
        prev_vel,
        dt,
        extra.acc,
        extra.impulse,
        body.force,
        extra.ang_impulse,
        body.torque,
    )
    return _merge_pairs(out_i[:count], out_j[:count], out_impulse[:count])


@njit
def _contacts(
    body: BodyColumns,
    walkers: WalkerColumns,
    extra: TickColumns,
    n: int,
    max_acceleration: float,
    dt: float,
) -> tuple:
    """The colliders that may touch during the tick: their rows, the candidate pairs (indices
    into them) and their inverse masses (collisions.contact_candidates).

    The broad phase grows each box by how far its body can travel in the tick (its speed,
    a walker's control speed, `max_acceleration` and its pushing force), so the substeps
    only test those pairs. A body knocked faster by a collision meets third bodies from the
    next tick."""
    colliders, moving, walk_speed = _choose_colliders(
        extra.alive[:n],
        extra.body[:n],
        extra.simulate_physics[:n],
        extra.static_collider[:n],
        extra.depth[:n],
        body.wrow[:n],
        walkers.speed,
    )
    if len(colliders) < 2:
        none = np.zeros(0, dtype=np.int64)
        return none, none, none, np.zeros(0)
    return collisions.contact_candidates(
        colliders,
        moving,
        body.mass,
        body.vel,
        body.force,
        walk_speed,
        body.pos,
        body.rot,
        body.extent,
        body.box_loc,
        max_acceleration,
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


@njit(cache=True, inline="always")
def _physics_groups(t):
    """_tick's groups made again from FleetCache's table (PHYSICS_TABLE_KINDS, in order)."""
    f8, f4, i8, i4, i2, i1, b = (
        np.float64,
        np.float32,
        np.int64,
        np.int32,
        np.int16,
        np.int8,
        np.bool_,
    )
    body = BodyColumns(
        matrix(t, 0, f8),
        matrix(t, 1, f8),
        matrix(t, 2, f8),
        matrix(t, 3, f8),
        matrix(t, 4, f8),
        matrix(t, 5, f8),
        column(t, 6, f8),
        matrix(t, 7, f8),
        matrix(t, 8, f8),
        column(t, 9, b),
        column(t, 10, b),
        matrix(t, 11, f8),
        column(t, 12, i4),
        column(t, 13, i4),
    )
    veh = VehicleColumns(
        column(t, 14, f4),
        column(t, 15, f4),
        column(t, 16, f4),
        column(t, 17, b),
        column(t, 18, b),
        column(t, 19, b),
        column(t, 20, i4),
        column(t, 21, b),
        column(t, 22, f4),
        column(t, 23, f4),
        column(t, 24, f8),
        column(t, 25, f8),
        column(t, 26, f8),
        column(t, 27, f8),
        column(t, 28, f8),
        column(t, 29, f8),
        column(t, 30, b),
        column(t, 31, f8),
        column(t, 32, f8),
        column(t, 33, f8),
        column(t, 34, f8),
        column(t, 35, f8),
        column(t, 36, f8),
        column(t, 37, f8),
        column(t, 38, f8),
        column(t, 39, f8),
        column(t, 40, f8),
        column(t, 41, f8),
        column(t, 42, f8),
        matrix(t, 43, f8),
        matrix(t, 44, f8),
        matrix(t, 45, f8),
        matrix(t, 46, f8),
        matrix(t, 47, f8),
        column(t, 48, i4),
        matrix(t, 49, f8),
        matrix(t, 50, f8),
        column(t, 51, f8),
        column(t, 52, f8),
        column(t, 53, f8),
        column(t, 54, i4),
        column(t, 55, i4),
        column(t, 56, f8),
        column(t, 57, f8),
        column(t, 58, f8),
        column(t, 59, f8),
        column(t, 60, f8),
    )
    walkers = WalkerColumns(
        matrix(t, 61, f4), column(t, 62, f4), column(t, 63, b), column(t, 64, b)
    )
    extra = TickColumns(
        column(t, 65, b),
        column(t, 66, i1),
        column(t, 67, b),
        column(t, 68, b),
        column(t, 69, b),
        column(t, 70, i2),
        matrix(t, 71, f8),
        matrix(t, 72, f8),
        matrix(t, 73, f8),
    )
    heading = matrix(t, 74, f8)
    ground = GroundMemory(
        matrix(t, 75, i8),
        column(t, 76, f8),
        matrix(t, 77, f8),
        column(t, 78, b),
        column(t, 79, b),
        column(t, 80, i8),
        matrix(t, 81, f8),
        matrix(t, 82, i8),
    )
    return body, veh, walkers, extra, heading, ground


@njit(cache=True)
def _merge_pairs(
    i: np.ndarray, j: np.ndarray, imp: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One record per pair (sorted by rows), its impulses summed in record order."""
    keys = (i << 32) | j
    order = np.argsort(keys, kind="mergesort")
    slot = np.empty(len(keys), dtype=np.int64)  # each record's pair, among the sorted pairs
    unique = np.empty(len(keys), dtype=np.int64)
    count = 0
    for p in range(len(order)):
        key = keys[order[p]]
        if count == 0 or unique[count - 1] != key:
            unique[count] = key
            count += 1
        slot[order[p]] = count - 1
    total = np.zeros((count, 3))
    for r in range(len(keys)):
        for c in range(3):
            total[slot[r], c] += imp[r, c]
    unique = unique[:count]
    return unique >> 32, unique & 0xFFFFFFFF, total
