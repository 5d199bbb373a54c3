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

__all__ = ["JUMP_SPEED", "Crowd", "substep"]

JUMP_SPEED = 4.2  # m/s: UE4's default character jump velocity (420 cm/s), as CARLA's walkers


class Crowd:
    """The stepped walkers' controls, gathered once per tick; `store` writes what changed."""

    def __init__(self, a: ActorTable, w: WalkerTable, rows: np.ndarray) -> None:
        k = a.wrow[rows]
        self.rows, self.k = rows, k
        direction = w.direction[k].astype(np.float64)
        direction[:, 2] = 0.0
        norm = np.linalg.norm(direction, axis=1)
        self.walking = norm > 0.0
        unit = direction / np.where(self.walking, norm, 1.0)[:, None]
        self.speed = w.speed[k].astype(np.float64)
        self.const = a.const_vel[rows]
        self.walk = np.where(
            self.const[:, None], a.const_vel_local[rows, :2], unit[:, :2] * self.speed[:, None]
        )
        self.heading = np.degrees(np.arctan2(unit[:, 1], unit[:, 0]))
        self.turns = self.walking & (self.speed > 0.0)
        self.rest = rest_height(a.extent[rows], a.box_loc[rows])
        self.gravity = a.gravity[rows]
        self.jump = w.jump[k].copy()
        self.on_ground = w.on_ground[k].copy()

    def store(self, w: WalkerTable) -> None:
        w.jump[self.k] = self.jump
        w.on_ground[self.k] = self.on_ground


def substep(a: ActorTable, c: Crowd, ground: GroundPlanes, dt: float) -> None:
    """Advances the walkers of `c` (ground planes in the same order) by dt."""
    rows = c.rows
    pos, rot, vel = a.pos[rows], a.rot[rows], a.vel[rows]
    floor = ground.height_at(pos[:, :2]) + c.rest
    on = ground.found & (pos[:, 2] <= floor + CONTACT_TOLERANCE) & (vel[:, 2] <= 0.0)
    if on.all() and not c.jump.any():
        # everyone walks on the ground: no hop, no fall
        vel[:, :2] = c.walk
        vel[:, 2] = 0.0
        rot[:, 1] = np.where(c.turns, c.heading, rot[:, 1])
        pos[:, :2] += c.walk * dt
        pos[:, 2] = ground.height_at(pos[:, :2]) + c.rest
        rot[:, 0] = rot[:, 2] = 0.0
        a.pos[rows], a.rot[rows], a.vel[rows] = pos, rot, vel
        c.on_ground = on
        return
    vel[:, :2] = np.where(on[:, None] | c.const[:, None], c.walk, vel[:, :2])
    rot[:, 1] = np.where(on & c.turns, c.heading, rot[:, 1])
    jump = on & c.jump
    vz = np.where(jump, JUMP_SPEED, np.where(on, 0.0, vel[:, 2]))
    vz = np.where(~on & c.gravity, vz - GRAVITY * dt, vz)
    pos[:, :2] += vel[:, :2] * dt
    floor = ground.height_at(pos[:, :2]) + c.rest
    z_air = pos[:, 2] + vz * dt
    stays = on & ~jump
    lands = ground.found & ~stays & (z_air <= floor)
    settled = stays | lands
    pos[:, 2] = np.where(settled, floor, z_air)
    vel[:, 2] = np.where(settled, 0.0, vz)
    rot[:, 0] = 0.0
    rot[:, 2] = 0.0
    a.pos[rows], a.rot[rows], a.vel[rows] = pos, rot, vel
    c.on_ground = settled
    c.jump &= ~jump  # a jump is one hop per control
