"""Runs seeded traffic with rendering sensors on the hero and prints their bytes' hashes.

The cross-CPU determinism test runs this in subprocesses whose environment makes numpy and
numba pick other code paths, then compares the hashes (tests/test_cross_cpu_determinism.py):

    python tests/cross_cpu_sensors.py MAP.xodr VEHICLES SEED TICKS
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

from world import Location, Map, Rotation, Transform, WeatherParameters, World, WorldSettings
from world.traffic.scene import populate_traffic

SENSORS = [  # blueprint, attributes: every kind of picture and cloud, noise drawn
    ("sensor.camera.rgb", {"image_size_x": "96", "image_size_y": "64"}),
    ("sensor.camera.depth", {"image_size_x": "96", "image_size_y": "64"}),
    ("sensor.camera.instance_segmentation", {"image_size_x": "96", "image_size_y": "64"}),
    ("sensor.camera.optical_flow", {"image_size_x": "96", "image_size_y": "64"}),
    (
        "sensor.lidar.ray_cast",
        {
            "channels": "32",
            "range": "60",
            "points_per_second": "100000",
            "noise_stddev": "0.02",
            "noise_seed": "5",
        },
    ),
    ("sensor.other.radar", {"points_per_second": "4000", "noise_seed": "6"}),
]


def main(argv: list[str]) -> int:
    town, vehicles, seed, ticks = Path(argv[0]), *map(int, argv[1:4])
    world = World(Map.from_file(town))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    world.set_weather(WeatherParameters(sun_altitude_angle=35.0, sun_azimuth_angle=120.0,
                                        fog_density=10.0, cloudiness=30.0))  # fmt: skip
    scene = populate_traffic(world, vehicles, 0, seed)
    hero = scene.vehicles[0]
    digest = hashlib.sha256()
    library = world.get_blueprint_library()
    for type_id, attributes in SENSORS:
        bp = library.find(type_id)
        for key, value in attributes.items():
            bp.set_attribute(key, value)
        mount = Transform(Location(0.8, 0.0, 1.8), Rotation(pitch=-5.0))
        sensor = world.spawn_actor(bp, mount, attach_to=hero)
        sensor.listen(lambda data: digest.update(bytes(data.raw_data)))
    hashes = []
    for _ in range(ticks):
        world.tick()
        hashes.append(digest.hexdigest()[:16])
    from numba.core import config as numba_config

    print(
        json.dumps(
            {
                "numpy_dispatch_on": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)],
                "numba_cpu": numba_config.CPU_NAME or "host",
                "hashes": hashes,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
