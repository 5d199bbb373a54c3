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

from world.actors.attachments import update_rows
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


class PoseColumns(NamedTuple):
    """The actor table's columns the attachments read besides the pose
    (world.actors.attachments)."""

    parent: np.ndarray
    rel_pos: np.ndarray
    rel_rot: np.ndarray


class PitchColumns(NamedTuple):
    """The vehicle table's columns of the body pitch (world.physics.body_pitch)."""

    actor: np.ndarray
    pitch_gain: np.ndarray
    pitch_frequency: np.ndarray
    pitch_damping: np.ndarray
    pitch_limit: np.ndarray
    road_pitch: np.ndarray
    body_pitch: np.ndarray
    body_pitch_rate: np.ndarray


class MapGroup(NamedTuple):
    """A map's arrays the ground query reads (SurfaceArrays' and CarriedGround's), their
    scalars in one array (`scalars`: MAP_SCALARS)."""

    near_starts: np.ndarray
    near_segment: np.ndarray
    near_box: np.ndarray
    slab_starts: np.ndarray
    slab_segment: np.ndarray
    slab_box: np.ndarray
    segments: np.ndarray
    carried_z: np.ndarray
    scalars: np.ndarray


# MapGroup.scalars: SurfaceArrays' reach, cell, origin and shape (integers, exact in float64),
# CarriedGround's corner, cell and kill height
MAP_SCALARS = ("reach", "cell", "origin_x", "origin_y", "shape_x", "shape_y", "x0", "y0")
MAP_SCALARS += ("carried_cell", "kill_z")


def map_group(surfaces: SurfaceArrays, carried: CarriedGround) -> MapGroup:
    """The MapGroup of a map's surfaces and carried ground."""
    scalars = (*surfaces[:6], carried.x0, carried.y0, carried.cell, carried.kill_z)
    return MapGroup(
        *(np.ascontiguousarray(array) for array in surfaces[6:]),
        np.ascontiguousarray(carried.z, dtype=np.float64),
        np.array(scalars, dtype=np.float64),
    )


class FleetCache:
    """The tables' columns and the map's arrays as the compiled tick takes them, kept between
    ticks: one ArrayTable (world.kernels.array_table) of BodyColumns', VehicleColumns',
    WalkerColumns', TickColumns', PoseColumns' and PitchColumns' arrays, of what the tick
    remembers and of the map's MapGroup, made again when an array is replaced (handing the
    ~100 arrays over one by one cost their unboxing on every call, and two atomic reference
    counts each time a group was handed on to the substeps).

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
        self._surfaces: MapGroup | None = None
        self._table: ArrayTable | None = None

    def stale(self) -> None:
        self._columns = None

    def map_arrays(self, ground_map: object) -> tuple[bool, MapGroup]:
        """(whether the map has the compiled ground index, its MapGroup): its index's and
        carried ground's arrays (made once per map, map.derived), or NO_SURFACES' for a map
        without the index (its own `ground` is sampled every tick: step). Kept while the map
        is the same object."""
        if self._map is not ground_map:
            index = getattr(ground_map, "surface_index", None)
            carried = getattr(ground_map, "carried_ground", None)
            carried = NO_CARRIED_GROUND if carried is None else carried()
            surfaces = NO_SURFACES if index is None else index().arrays
            self._map_arrays = (index is not None, map_group(surfaces, carried))
            self._map = ground_map
        return self._map_arrays

    def table(
        self, a: ActorTable, v: VehicleTable, w: WalkerTable, surfaces: MapGroup
    ) -> np.ndarray:
        """The address table of the tick's columns, memory and map arrays
        (PHYSICS_TABLE_KINDS), for the map whose arrays are `surfaces`."""
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
                    (PoseColumns, a),
                    (PitchColumns, v),
                )
            )
            self._table = None
        if self._surfaces is not surfaces:
            self._surfaces = surfaces
            self._ground = ground_memory(len(self._ground.known))
            self._table = None
        if self._table is None:
            body, vehicles, walkers, extra, pose, pitch = self._columns
            groups = (body, vehicles, walkers, extra, (self._heading,), self._ground)
            groups += (pose, pitch, surfaces)
            self._table = ArrayTable(groups, PHYSICS_TABLE_KINDS)
        return self._table.table


# The dtype and dimensions of each array of the tick's table, group by group, as
# _physics_groups makes them again: the columns, the substeps' last yaws, the ground memory,
# the attachments' and the body pitch's columns, the map's arrays
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
    PoseColumns(parent=_I4, rel_pos=_F8_2, rel_rot=_F8_2),
    PitchColumns(
        actor=_I4, pitch_gain=_F8, pitch_frequency=_F8, pitch_damping=_F8, pitch_limit=_F8,
        road_pitch=_F8, body_pitch=_F8, body_pitch_rate=_F8,
    ),
    MapGroup(
        near_starts=_I8, near_segment=_I8, near_box=_F8_2, slab_starts=_I8, slab_segment=_I8,
        slab_box=_F8_2, segments=_F8_2, carried_z=_F8_2, scalars=_F8,
    ),
)  # fmt: skip
# the ground planes' kinds (GroundPlanes), the tick's second table
PLANE_KINDS = (GroundPlanes(ref=_F8_2, z=_F8, grad=_F8_2, found=_B),)


# m/s²: no body speeds up faster than this by itself (a car's traction cap is ~10 m/s²)
MAX_ACCELERATION = 15.0

_VEHICLE, _WALKER = int(ActorType.Vehicle), int(ActorType.Walker)  # plain ints for the kernels
# no planes: what a map with the compiled index hands the tick (it queries its own)
_NO_PLANES = ArrayTable(
    ((np.zeros((0, 2)), np.zeros(0), np.zeros((0, 2)), np.zeros(0, bool)),), PLANE_KINDS
)


_NO_COLLISIONS = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((0, 3)))


def step(
    a: ActorTable,
    v: VehicleTable,
    w: WalkerTable,
    ground_map: object,
    dt: float,
    substeps: int,
    cache: FleetCache,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Advances the world by dt in `substeps` equal steps, the body pitch and the attachments
    with it.

    Returns the rows (i < j) of the pairs that collided and the impulse i received.
    """
    indexed, surfaces = cache.map_arrays(ground_map)
    # a map without the compiled index: its own `ground`, sampled before the tick
    planes = _NO_PLANES if indexed else _sampled_planes(a, ground_map)
    merged = _tick(
        cache.table(a, v, w, surfaces),
        planes.table,
        a.n,
        v.n,
        not indexed,
        _VEHICLE,
        _WALKER,
        dt,
        substeps,
        MAX_ACCELERATION,
    )
    if not len(merged):  # (most ticks have no collision)
        return _NO_COLLISIONS
    return merged[:, 0].astype(np.int64), merged[:, 1].astype(np.int64), merged[:, 2:].copy()


def _sampled_planes(a: ActorTable, ground_map: object) -> ArrayTable:
    """The ground planes under every body from `ground_map.ground`, as the tick's second
    table (the points are the bodies' positions: the body pitch does not move them)."""
    return ArrayTable((tuple(_planes_of(a, ground_map)),), PLANE_KINDS)


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
    plane_table: np.ndarray,
    n: int,
    vehicles: int,
    sampled: bool,
    vehicle: int,
    walker: int,
    dt: float,
    substeps: int,
    max_acceleration: float,
) -> tuple:
    """The tick on the first n actor rows (and the first `vehicles` vehicle rows), with the
    body pitch taken out before it and put in after it, and the attachments moved last;
    the planes (`plane_table`, PLANE_KINDS) are the bodies' ground when `sampled`, else it is
    queried from the map's surfaces. The tables' columns, what the tick remembers and the
    map's arrays come as FleetCache's table (PHYSICS_TABLE_KINDS). Returns the merged
    collisions as one (pairs, 5) array: the rows i < j, then the impulse i received."""
    body, veh, walkers, extra, heading, ground, pose, pitch, arrays = _physics_groups(table)
    surfaces, carried = _map_views(arrays)
    planes = GroundPlanes(
        matrix(plane_table, 0, np.float64),
        column(plane_table, 1, np.float64),
        matrix(plane_table, 2, np.float64),
        column(plane_table, 3, np.bool_),
    )
    body_pitch.take_out(
        body.rot,
        extra.alive,
        extra.simulate_physics,
        pitch.actor,
        pitch.road_pitch,
        pitch.body_pitch,
        vehicles,
    )
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
    body_pitch.put_in(
        body.rot,
        extra.acc,
        extra.alive,
        extra.simulate_physics,
        pitch.actor,
        pitch.pitch_gain,
        pitch.pitch_frequency,
        pitch.pitch_damping,
        pitch.pitch_limit,
        pitch.road_pitch,
        pitch.body_pitch,
        pitch.body_pitch_rate,
        vehicles,
        dt,
    )
    update_rows(
        extra.depth[:n],
        alive,
        pose.parent,
        body.pos,
        body.rot,
        pose.rel_pos,
        pose.rel_rot,
    )
    pair_a, pair_b, total = _merge_pairs(out_i[:count], out_j[:count], out_impulse[:count])
    # one array back (each array a compiled call hands back costs ~1.5 us to box): the
    # rows, exact in float64, then the impulse
    merged = np.empty((len(pair_a), 5))
    for k in range(len(pair_a)):
        merged[k, 0], merged[k, 1] = pair_a[k], pair_b[k]
        merged[k, 2], merged[k, 3], merged[k, 4] = total[k, 0], total[k, 1], total[k, 2]
    return merged


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
    pose = PoseColumns(column(t, 83, i4), matrix(t, 84, f8), matrix(t, 85, f8))
    pitch = PitchColumns(
        column(t, 86, i4),
        column(t, 87, f8),
        column(t, 88, f8),
        column(t, 89, f8),
        column(t, 90, f8),
        column(t, 91, f8),
        column(t, 92, f8),
        column(t, 93, f8),
    )
    surfaces = MapGroup(
        column(t, 94, i8),
        column(t, 95, i8),
        matrix(t, 96, f8),
        column(t, 97, i8),
        column(t, 98, i8),
        matrix(t, 99, f8),
        matrix(t, 100, f8),
        matrix(t, 101, f8),
        column(t, 102, f8),
    )
    return body, veh, walkers, extra, heading, ground, pose, pitch, surfaces


@njit(cache=True, inline="always")
def _map_views(group: MapGroup) -> tuple:
    """The SurfaceArrays and CarriedGround of a MapGroup (its scalars: MAP_SCALARS)."""
    scalars = group.scalars
    surfaces = SurfaceArrays(
        scalars[0],
        scalars[1],
        int(scalars[2]),
        int(scalars[3]),
        int(scalars[4]),
        int(scalars[5]),
        group.near_starts,
        group.near_segment,
        group.near_box,
        group.slab_starts,
        group.slab_segment,
        group.slab_box,
        group.segments,
    )
    carried = CarriedGround(scalars[6], scalars[7], scalars[8], group.carried_z, scalars[9])
    return surfaces, carried


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
