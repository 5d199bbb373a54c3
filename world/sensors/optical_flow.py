"""sensor.camera.optical_flow: how far what each pixel sees moved on the image since the last
tick, as CARLA's velocity-buffer camera gives it.

For the surface seen at a pixel, its point a tick ago is found by carrying the point with the
actor it belongs to (its pose then and now; the map's scene does not move) and projected
with the camera's pose a tick ago; the sky is a direction, turned with the camera alone.
The flow is the move in Unreal's screen units, as CARLA's raw data: x = 2 (u − u₀) / W,
y = −2 (v − v₀) / H for the pixel (u, v) now and (u₀, v₀) a tick ago (u right, v down), so
pixels = (x · W / 2, −y · H / 2). A point that was behind the camera has no flow (0, 0). The
picture is an OpticalFlowImage of two float32 per pixel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from world.geometry import rotation_matrices
from world.sensors.base import SensorContext
from world.sensors.cameras import CameraSensor
from world.sensors.images import OpticalFlowImage
from world.sensors.pinhole import focal_length, pixel_rays, to_local, to_world

__all__ = ["OpticalFlowCamera", "flow_of_points"]


def flow_of_points(
    previous_local: np.ndarray, u: np.ndarray, v: np.ndarray, width: int, height: int, f: float
) -> np.ndarray:
    """(N, 2) float32 flow of N pixels at (u, v) whose points a tick ago were at
    `previous_local` (N, 3) in the camera's frame of a tick ago."""
    ahead = previous_local[:, 0]
    front = ahead > 0.0
    safe = np.where(front, ahead, 1.0)
    u0 = f * previous_local[:, 1] / safe + width / 2.0
    v0 = -f * previous_local[:, 2] / safe + height / 2.0
    flow = np.stack([2.0 * (u - u0) / width, -2.0 * (v - v0) / height], 1)
    flow[~front] = 0.0
    return flow.astype(np.float32)


class OpticalFlowCamera(CameraSensor):
    """The optical flow camera (see the module)."""

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        super().__init__(sensor, attributes)
        self._now: tuple | None = None  # (camera origin, axes, actor pos, actor rot) now
        self._before: tuple | None = None  # the same a tick ago

    def observe(self, ctx: SensorContext) -> None:
        transform = self.sensor.get_transform()
        actors = ctx.world.state_tables().actors
        n = actors.n
        self._before = self._now
        self._now = (
            transform.location.as_array(),
            transform.rotation.matrix(),
            actors.pos[:n].copy(),
            actors.rot[:n].copy(),
        )

    def measure(self, ctx: SensorContext) -> list[OpticalFlowImage]:
        scene, transform, axes, visible = self.buffers(ctx)
        triangle, depth = visible.number, visible.depth
        origin = transform.location.as_array()
        before = self._before or self._now
        origin0, axes0, pos0, rot0 = before
        _o, _a, pos, rot = self._now
        local = pixel_rays(self.width, self.height, self.fov)
        rays = to_world(local, axes)  # (H, W, 3), forward component 1 in the camera's frame
        seen = triangle >= 0
        points = np.where(
            seen[..., None], origin + rays * np.where(seen, depth, 0.0)[..., None], 0.0
        )
        rows = np.full(triangle.shape, -1, np.int64)
        rows[seen] = scene.actor_rows(triangle[seen])
        moved = rows >= 0
        moved[moved] = rows[moved] < len(pos0)  # an actor spawned this tick did not move
        if moved.any():
            r = rows[moved]
            now_axes = rotation_matrices(rot[r, 0], rot[r, 1], rot[r, 2])
            then_axes = rotation_matrices(rot0[r, 0], rot0[r, 1], rot0[r, 2])
            offset = points[moved] - pos[r]
            body = sum(offset[:, i : i + 1] * now_axes[:, i, :] for i in range(3))
            points[moved] = sum(body[:, j : j + 1] * then_axes[:, :, j] for j in range(3)) + pos0[r]
        previous = np.where(
            seen[..., None], to_local(points - origin0, axes0), to_local(rays, axes0)
        ).reshape(-1, 3)  # the sky: the same world direction, seen from the old pose
        u = np.broadcast_to(np.arange(self.width) + 0.5, triangle.shape).reshape(-1)
        v = np.broadcast_to((np.arange(self.height) + 0.5)[:, None], triangle.shape).reshape(-1)
        f = focal_length(self.width, self.fov)
        flow = flow_of_points(previous, u, v, self.width, self.height, f)
        return [
            OpticalFlowImage(
                ctx.frame,
                ctx.timestamp,
                transform,
                self.width,
                self.height,
                self.fov,
                bytearray(flow.tobytes()),
            )
        ]
