"""Renders a seeded scene and prints digests of the camera's buffers and the ray casts as JSON.

The cross-CPU determinism test runs this in subprocesses whose environment makes numpy and
numba pick other code paths (fewer SIMD features, a generic CPU, the ahead-of-time module or
numba's JIT), then compares the digests:

    python tests/cross_cpu_render.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.render_scenes import box, quad
from world import elementary as el
from world.kernels.compiled import running_ahead_of_time
from world.render import MeshIndex, PinholeCamera, SceneView, cast_rays, visibility
from world.scene.mesh import Mesh


def scene() -> tuple[Mesh, Mesh]:
    """Ground, 200 boxes at odd angles (turned about z) and 20 small 'cars'."""
    rng = np.random.default_rng(23)
    parts = [
        quad(
            [-300.0, -300.0, 0.0],
            [300.0, -300.0, 0.0],
            [300.0, 300.0, 0.0],
            [-300.0, 300.0, 0.0],
            tag=1,
        )
    ]
    for k in range(200):
        lo = rng.uniform([-150.0, -150.0, 0.0], [150.0, 150.0, 0.5])
        part = box(lo, lo + rng.uniform(1.0, 25.0, 3), first_instance=1000 * k)
        c, s = rng.uniform(-1.0, 1.0, 2)
        norm = np.sqrt(c * c + s * s)
        x, y = part.vertices[:, 0].copy(), part.vertices[:, 1].copy()
        part.vertices[:, 0] = x * (c / norm) - y * (s / norm)
        part.vertices[:, 1] = x * (s / norm) + y * (c / norm)
        parts.append(part)
    cars = [
        box(p, [p[0] + 4.5, p[1] + 1.9, p[2] + 1.5], tag=14, first_instance=10 + k)
        for k, p in enumerate(rng.uniform([-60.0, -60.0, 0.0], [60.0, 60.0, 0.0], (20, 3)))
    ]
    return Mesh.concatenate(parts), Mesh.concatenate(cars)


def digest(*arrays: np.ndarray) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def main() -> int:
    static, dynamic = scene()
    view = SceneView(MeshIndex.build(static), dynamic)
    out: dict[str, object] = {}
    for k, (yaw, pitch) in enumerate([(0.0, 0.0), (33.0, -8.0), (217.0, 4.0)]):
        # the camera's axes by lockstep's own sin and cos: the same bits on every CPU
        cy, sy = el.cos(np.radians(yaw)), el.sin(np.radians(yaw))
        cp, sp = el.cos(np.radians(pitch)), el.sin(np.radians(pitch))
        forward, right, up = (cp * cy, cp * sy, sp), (-sy, cy, 0.0), (-sp * cy, -sp * sy, cp)
        camera = PinholeCamera((1.5, -2.25, 1.6), forward, right, up, 400, 300, 100.0)
        seen = visibility(view, camera)
        out[f"camera{k}"] = digest(seen.number, seen.depth)
        out[f"camera{k}_covered"] = int((seen.number >= 0).sum())
    elevation = np.radians(np.linspace(10.0, -30.0, 64))
    azimuth = np.radians(np.arange(0.0, 360.0, 0.4))
    e, a = np.meshgrid(elevation, azimuth, indexing="ij")
    directions = np.stack(
        [el.cos_v(e) * el.cos_v(a), el.cos_v(e) * el.sin_v(a), el.sin_v(e)], axis=-1
    )
    directions = directions.reshape(-1, 3)
    hits = cast_rays(view, np.array([0.5, 0.25, 2.4]), directions, 100.0)
    out["lidar"] = digest(hits.distance, hits.number)
    out["lidar_hits"] = int((hits.number >= 0).sum())
    out["numpy_dispatch_on"] = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    out["ahead_of_time"] = running_ahead_of_time()
    if "numba" in sys.modules:
        from numba.core import config as numba_config

        out["numba_cpu"] = numba_config.CPU_NAME or "host"
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
