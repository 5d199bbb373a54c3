"""Writes docs/sensors/*.png: one moment of town_medium seen by every camera type.

    python docs/make_sensor_pictures.py

A car of 12 autopilot cars (seed 7) carries, 6 m behind and 3 m above it, one camera of
each type at 320x180; after 40 ticks (2 s) each picture is saved as a CARLA user saves it:
rgb raw, depth through LogarithmicDepth, semantic segmentation through CityScapesPalette,
instance segmentation and normals raw, optical flow through get_color_coded_flow, and the
DVS's events through to_image (between the last two ticks). The same command writes the
same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from world import (
    ColorConverter,
    Location,
    Map,
    Rotation,
    Transform,
    WeatherParameters,
    World,
    WorldSettings,
)
from world.sensors.picture_file import save_picture
from world.traffic.scene import populate_traffic

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "docs" / "sensors"
KINDS = ("rgb", "depth", "semantic_segmentation", "instance_segmentation", "normals",
         "optical_flow", "dvs")  # fmt: skip


def main() -> int:
    world = World(Map.from_file(REPO / "configs" / "maps" / "town_medium.xodr"))
    world.apply_settings(WorldSettings(synchronous_mode=True, fixed_delta_seconds=0.05))
    world.set_weather(WeatherParameters(sun_altitude_angle=40.0, sun_azimuth_angle=130.0,
                                        cloudiness=20.0, fog_density=5.0))  # fmt: skip
    hero = populate_traffic(world, 12, 0, 7).vehicles[0]
    library = world.get_blueprint_library()
    latest: dict[str, object] = {}
    mount = Transform(Location(-6.0, 0.0, 3.0), Rotation(pitch=-12.0))
    for kind in KINDS:
        bp = library.find(f"sensor.camera.{kind}")
        bp.set_attribute("image_size_x", "320")
        bp.set_attribute("image_size_y", "180")
        world.spawn_actor(bp, mount, attach_to=hero).listen(
            lambda data, kind=kind: latest.__setitem__(kind, data)
        )
    for _ in range(40):
        world.tick()
    OUT.mkdir(parents=True, exist_ok=True)
    latest["rgb"].save_to_disk(str(OUT / "rgb.png"))
    latest["depth"].save_to_disk(str(OUT / "depth.png"), ColorConverter.LogarithmicDepth)
    latest["semantic_segmentation"].save_to_disk(
        str(OUT / "semantic_segmentation.png"), ColorConverter.CityScapesPalette
    )
    latest["instance_segmentation"].save_to_disk(str(OUT / "instance_segmentation.png"))
    latest["normals"].save_to_disk(str(OUT / "normals.png"))
    flow = latest["optical_flow"].get_color_coded_flow()
    bgra = np.frombuffer(flow.raw_data, np.uint8).reshape(flow.height, flow.width, 4).copy()
    bgra[..., 3] = 255  # CARLA's flow picture has alpha 0: opaque here, to be seen
    save_picture(OUT / "optical_flow.png", bgra[..., [2, 1, 0, 3]])
    events = latest.get("dvs")
    picture = np.zeros((180, 320, 4), np.uint8)
    picture[..., 3] = 255
    if events is not None:
        colours = events.to_image()
        picture[..., 0] = np.array([c.r for c in colours], np.uint8).reshape(180, 320)
        picture[..., 2] = np.array([c.b for c in colours], np.uint8).reshape(180, 320)
    save_picture(OUT / "dvs.png", picture)
    for path in sorted(OUT.glob("*.png")):
        print(f"{path.relative_to(REPO)}: {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
