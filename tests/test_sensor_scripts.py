"""A script in the style of CARLA's PythonAPI examples (tutorial.py, lidar_to_camera.py): a car
on autopilot with a camera, a depth camera and a LiDAR, each listened to and saved to disk,
run by `lockstep exec` unchanged, as a CARLA user runs it against a server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image as PillowImage

REPO = Path(__file__).resolve().parents[1]

SCRIPT = """
import carla

client = carla.Client("localhost", 2000)
client.set_timeout(2.0)
world = client.get_world()
original_settings = world.get_settings()
settings = world.get_settings()
settings.synchronous_mode = True
settings.fixed_delta_seconds = 0.05
world.apply_settings(settings)
actor_list = []
try:
    blueprint_library = world.get_blueprint_library()
    vehicle = world.spawn_actor(blueprint_library.filter("model3")[0],
                                world.get_map().get_spawn_points()[0])
    actor_list.append(vehicle)
    vehicle.set_autopilot(True)
    camera_bp = blueprint_library.find("sensor.camera.rgb")
    camera_bp.set_attribute("image_size_x", "160")
    camera_bp.set_attribute("image_size_y", "120")
    camera_transform = carla.Transform(carla.Location(x=1.5, z=2.4))
    camera = world.spawn_actor(camera_bp, camera_transform, attach_to=vehicle)
    actor_list.append(camera)
    camera.listen(lambda image: image.save_to_disk("_out/%06d.png" % image.frame))
    depth_bp = blueprint_library.find("sensor.camera.depth")
    depth_bp.set_attribute("image_size_x", "160")
    depth_bp.set_attribute("image_size_y", "120")
    depth = world.spawn_actor(depth_bp, camera_transform, attach_to=vehicle)
    actor_list.append(depth)
    cc = carla.ColorConverter.LogarithmicDepth
    depth.listen(lambda image: image.save_to_disk("_out/depth_%06d.png" % image.frame, cc))
    lidar_bp = blueprint_library.find("sensor.lidar.ray_cast")
    lidar_bp.set_attribute("range", "50")
    lidar = world.spawn_actor(lidar_bp, carla.Transform(carla.Location(z=2.5)),
                              attach_to=vehicle)
    actor_list.append(lidar)
    lidar.listen(lambda points: points.save_to_disk("_out/lidar_%06d.ply" % points.frame))
    for _ in range(3):
        world.tick()
finally:
    world.apply_settings(original_settings)
    client.apply_batch([carla.command.DestroyActor(x) for x in actor_list])
    print("done.")
"""


def test_a_carla_style_script_writes_its_images(tmp_path):
    script = tmp_path / "camera_and_lidar.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, "-m", "runner.cli", "exec", str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("done.")
    out = tmp_path / "_out"
    frames = sorted(p.name for p in out.glob("0*.png"))
    assert frames == ["000001.png", "000002.png", "000003.png"]
    with PillowImage.open(out / "000003.png") as picture:
        assert picture.size == (160, 120) and picture.mode == "RGBA"
        assert len(np.unique(np.asarray(picture).reshape(-1, 4), axis=0)) > 20  # a scene
    with PillowImage.open(out / "depth_000003.png") as picture:
        assert picture.mode == "L"  # LogarithmicDepth's grey
    ply = (out / "lidar_000003.ply").read_text().splitlines()
    assert ply[0] == "ply" and ply[2].startswith("element vertex ")
    assert int(ply[2].split()[-1]) > 100 and len(ply) == int(ply[2].split()[-1]) + 8
