"""Walker motion: WalkerControl direction * speed over the ground, jumps as ballistic hops.

A walker is a kinematic character, as in CARLA: on the ground its horizontal
velocity is its control's direction (normalised, horizontal part) times its
speed, it faces where it walks, and its z follows the ground plane under it
(world.ground). A jump on the ground starts a hop at JUMP_SPEED; off the ground
it falls freely (semi-implicit Euler) keeping its horizontal velocity.
"""

from __future__ import annotations

import numpy as np

from world.ground import GroundPlanes
from world.state import ActorTable, WalkerTable
from world.vehicle_dynamics import CONTACT_TOLERANCE, GRAVITY, rest_height

__all__ = ["JUMP_SPEED", "substep"]

JUMP_SPEED = 4.2  # m/s: UE4's default character jump velocity (420 cm/s), as CARLA's walkers


def substep(
    a: ActorTable, w: WalkerTable, rows: np.ndarray, ground: GroundPlanes, dt: float
) -> None:
    """Advances the walkers of actor `rows` (ground planes in the same order) by dt."""
    k = a.wrow[rows]
    pos, rot, vel = a.pos[rows], a.rot[rows], a.vel[rows]
    direction = w.direction[k].astype(np.float64)
    direction[:, 2] = 0.0
    norm = np.linalg.norm(direction, axis=1)
    unit = np.where(norm[:, None] > 0.0, direction / np.where(norm > 0.0, norm, 1.0)[:, None], 0.0)
    speed = w.speed[k].astype(np.float64)
    rest = rest_height(a.extent[rows], a.box_loc[rows])
    floor = ground.height_at(pos[:, :2]) + rest
    on = ground.found & (pos[:, 2] <= floor + CONTACT_TOLERANCE) & (vel[:, 2] <= 0.0)
    const = a.const_vel[rows]
    walk = np.where(const[:, None], a.const_vel_local[rows, :2], unit[:, :2] * speed[:, None])
    vel[:, :2] = np.where(on[:, None] | const[:, None], walk, vel[:, :2])
    moving = on & (speed > 0.0) & (norm > 0.0)
    rot[:, 1] = np.where(moving, np.degrees(np.arctan2(unit[:, 1], unit[:, 0])), rot[:, 1])
    jump = on & w.jump[k]
    vz = np.where(jump, JUMP_SPEED, np.where(on, 0.0, vel[:, 2]))
    vz = np.where(~on & a.gravity[rows], vz - GRAVITY * dt, vz)
    pos[:, :2] += vel[:, :2] * dt
    floor = ground.height_at(pos[:, :2]) + rest
    z_air = pos[:, 2] + vz * dt
    stays = on & ~jump
    lands = ground.found & ~stays & (z_air <= floor)
    pos[:, 2] = np.where(stays | lands, floor, z_air)
    vel[:, 2] = np.where(stays | lands, 0.0, vz)
    rot[:, 0] = 0.0
    rot[:, 2] = 0.0
    a.pos[rows], a.rot[rows], a.vel[rows] = pos, rot, vel
    w.on_ground[k] = stays | lands
    w.jump[k] &= ~jump  # a jump is one hop per control
