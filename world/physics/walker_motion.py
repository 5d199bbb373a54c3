"""Walker motion: WalkerControl direction * speed over the ground, jumps as ballistic hops.

A walker is a kinematic character, as in CARLA: on the ground its horizontal
velocity is its control's direction (normalised, horizontal part) times its
speed, it faces where it walks, and its z follows the ground plane under it
(world.map.ground). A jump on the ground starts a hop at JUMP_SPEED; off the ground
it falls freely (semi-implicit Euler) keeping its horizontal velocity. Compiled
with numba like the vehicles' substeps (world.physics.vehicle_dynamics).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from world import elementary as el
from world.kernels.compiled import njit
from world.map.ground import GroundPlanes, ground_height
from world.physics.vehicle_dynamics import CONTACT_TOLERANCE, GRAVITY, RAD_TO_DEG, BodyColumns

__all__ = ["JUMP_SPEED", "Crowd", "WalkerColumns", "crowd", "substep"]

JUMP_SPEED = 4.2  # m/s: UE4's default character jump velocity (420 cm/s), as CARLA's walkers


class WalkerColumns(NamedTuple):
    """The walker table's columns the substeps use (world.state.WalkerTable)."""

    direction: np.ndarray
    speed: np.ndarray
    jump: np.ndarray
    on_ground: np.ndarray


class Crowd(NamedTuple):
    """The stepped walkers' motion for a tick, from their controls (`crowd`)."""

    walk: np.ndarray  # (N, 2) horizontal velocity on the ground
    heading: np.ndarray  # yaw they face, degrees
    turns: np.ndarray  # whether they turn to face it (they walk)


@njit
def crowd(body: BodyColumns, walkers: WalkerColumns, rows: np.ndarray) -> Crowd:
    """Each walker's velocity on the ground and heading this tick, in actor `rows`' order."""
    m = len(rows)
    walk, heading, turns = np.empty((m, 2)), np.empty(m), np.empty(m, dtype=np.bool_)
    for i in range(m):
        row, k = rows[i], body.wrow[rows[i]]
        dx, dy = float(walkers.direction[k, 0]), float(walkers.direction[k, 1])
        norm = math.sqrt(dx * dx + dy * dy + 0.0)
        if norm > 0.0:
            dx, dy = dx / norm, dy / norm
        speed = float(walkers.speed[k])
        if body.const_vel[row]:
            walk[i, 0], walk[i, 1] = body.const_vel_local[row, 0], body.const_vel_local[row, 1]
        else:
            walk[i, 0], walk[i, 1] = dx * speed, dy * speed
        heading[i] = el.atan2(dy, dx) * RAD_TO_DEG
        turns[i] = norm > 0.0 and speed > 0.0
    return Crowd(walk, heading, turns)


@njit
def substep(
    body: BodyColumns,
    walkers: WalkerColumns,
    ground: GroundPlanes,
    first: int,
    rows: np.ndarray,
    motion: Crowd,
    dt: float,
) -> None:
    """Advances the walkers in actor `rows` (ground planes first.. in the same order) by dt."""
    pos, rot, vel, extent, box_loc = body.pos, body.rot, body.vel, body.extent, body.box_loc
    g_ref, g_z, g_grad, g_found = ground.ref, ground.z, ground.grad, ground.found
    walk, heading, turns = motion.walk, motion.heading, motion.turns
    jumps, on_ground = walkers.jump, walkers.on_ground
    for i in range(len(rows)):
        row, k, b = rows[i], body.wrow[rows[i]], first + i
        rest = max(extent[row, 2] - box_loc[row, 2], 0.0)
        z = pos[row, 2]
        floor = ground_height(g_ref, g_z, g_grad, b, pos[row, 0], pos[row, 1]) + rest
        on = g_found[b] and z <= floor + CONTACT_TOLERANCE and vel[row, 2] <= 0.0
        if on or body.const_vel[row]:
            vel[row, 0], vel[row, 1] = walk[i, 0], walk[i, 1]
        if on and turns[i]:
            rot[row, 1] = heading[i]
        jump = on and jumps[k]
        vz = JUMP_SPEED if jump else (0.0 if on else vel[row, 2])
        if not on and body.gravity[row]:
            vz = vz - GRAVITY * dt
        pos[row, 0] += vel[row, 0] * dt
        pos[row, 1] += vel[row, 1] * dt
        floor = ground_height(g_ref, g_z, g_grad, b, pos[row, 0], pos[row, 1]) + rest
        z_air = z + vz * dt
        stays = on and not jump
        settled = stays or (g_found[b] and z_air <= floor)
        pos[row, 2] = floor if settled else z_air
        vel[row, 2] = 0.0 if settled else vz
        rot[row, 0] = 0.0
        rot[row, 2] = 0.0
        on_ground[k] = settled
        if jump:
            jumps[k] = False  # a jump is one hop per control
