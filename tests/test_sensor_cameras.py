"""The cameras on scenes whose every pixel is worked out by hand from CARLA's definitions.

A pinhole of W pixels and fov 90 degrees has f = W / (2 tan 45) = W / 2; a point (x, y, z) in
the camera's frame lands at u = f·y/x + W/2, v = −f·z/x + H/2; pixel (i, j) is the one whose
centre (i + 0.5, j + 0.5) is covered.
"""

from __future__ import annotations

import math

import numpy as np

from tests.sensor_scenes import box, ground, listen, scene_world, wall
from world import ColorConverter, Location, Rotation, Transform, WeatherParameters
from world.actors.vehicle_state import CityObjectLabel
from world.sensors.color_converter import depth_metres

AT_ORIGIN = Transform(Location(0.0, 0.0, 0.0), Rotation())


def _bgra(image) -> np.ndarray:
    return np.frombuffer(image.raw_data, np.uint8).reshape(image.height, image.width, 4)


def test_a_box_lands_on_the_pixels_the_pinhole_puts_it():
    # front face x = 10, y and z in [-1, 1]: u = 50 * y / 10 + 50 in [45, 55], the same for v;
    # the centres 45.5 ... 54.5 are inside: columns and rows 45 to 54
    world = scene_world(box((10.5, 0.0, 0.0), (0.5, 1.0, 1.0), int(CityObjectLabel.Car), 7))
    images = listen(
        world, "sensor.camera.semantic_segmentation", AT_ORIGIN, image_size_x=100,
        image_size_y=100, fov=90,
    )  # fmt: skip
    world.tick()
    red = _bgra(images[0])[..., 2]
    expected = np.full((100, 100), int(CityObjectLabel.Sky))
    expected[45:55, 45:55] = int(CityObjectLabel.Car)
    assert (red == expected).all()
    assert (_bgra(images[0])[..., :2] == 0).all()  # green and blue are 0


def test_semantic_pixels_take_the_cityscapes_palette():
    world = scene_world(box((10.5, 0.0, 0.0), (0.5, 1.0, 1.0), int(CityObjectLabel.Car), 7))
    images = listen(world, "sensor.camera.semantic_segmentation", AT_ORIGIN, image_size_x=20,
                    image_size_y=20, fov=90)  # fmt: skip
    world.tick()
    images[0].convert(ColorConverter.CityScapesPalette)
    rgb = _bgra(images[0])[..., 2::-1]
    assert rgb[10, 10].tolist() == [0, 0, 142]  # Car
    assert rgb[0, 0].tolist() == [70, 130, 180]  # Sky


def test_instance_segmentation_carries_tag_and_instance():
    world = scene_world(box((10.5, 0.0, 0.0), (0.5, 1.0, 1.0), int(CityObjectLabel.Car), 0x1234))
    images = listen(world, "sensor.camera.instance_segmentation", AT_ORIGIN, image_size_x=20,
                    image_size_y=20, fov=90)  # fmt: skip
    world.tick()
    assert _bgra(images[0])[10, 10].tolist() == [0x12, 0x34, 14, 255]  # B high, G low, R tag


def test_a_wall_at_ten_metres_reads_ten_metres():
    world = scene_world(wall(10.0))
    images = listen(world, "sensor.camera.depth", AT_ORIGIN, image_size_x=64, image_size_y=48)
    world.tick()
    metres = depth_metres(_bgra(images[0]))
    assert np.abs(metres - 10.0).max() < 0.01  # planar depth: 10 m at every pixel
    images[0].convert(ColorConverter.LogarithmicDepth)
    # 1 + ln(167772 / 16777215) / 5.70378 = 0.19261 -> 0.19261 * 255 + 0.5 -> 49
    assert (_bgra(images[0])[..., 0] == 49).all()


def test_normals_face_the_camera_in_world_axes():
    world = scene_world(wall(10.0))
    images = listen(world, "sensor.camera.normals", AT_ORIGIN, image_size_x=8, image_size_y=6)
    world.tick()
    # the wall's normal toward the camera is (-1, 0, 0): (0, 127.5, 127.5) -> R 0, G 128, B 128
    assert (_bgra(images[0]) == [128, 128, 0, 255]).all()


def _srgb(linear: float) -> int:
    """The sRGB code nearest in linear light (the standard curve, by hand)."""
    codes = [c / 255.0 for c in range(256)]
    lin = [c / 12.92 if c <= 0.04045 else math.pow((c + 0.055) / 1.055, 2.4) for c in codes]
    return min(range(256), key=lambda k: abs(lin[k] - min(max(linear, 0.0), 1.0)))


def test_rgb_ground_is_its_albedo_lit_by_the_sun():
    world = scene_world(ground(0.0))
    world.set_weather(WeatherParameters(sun_altitude_angle=90.0, sun_azimuth_angle=0.0))
    up = Transform(Location(0.0, 0.0, 2.0), Rotation())
    images = listen(world, "sensor.camera.rgb", up, image_size_x=40, image_size_y=30)
    world.tick()
    bgra = _bgra(images[0])
    # the sun overhead (d = 1, day 1, no clouds): ambient 0.03 + 0.32 = 0.35, sun 1.1, n.s = 1
    albedo = [128, 64, 128]
    expected = [_srgb(_linear(a) * (0.35 + 1.1)) for a in albedo]
    assert (bgra[20:, :, 2::-1] == expected).all()  # every ground pixel alike: no texture
    assert not (bgra[:15] == bgra[20]).all()  # the sky above the horizon differs


def test_rgb_ground_follows_the_sun_from_frame_to_frame():
    # one camera, the weather changed between its frames: each frame has its own light
    world = scene_world(ground(0.0))
    up = Transform(Location(0.0, 0.0, 2.0), Rotation())
    images = listen(world, "sensor.camera.rgb", up, image_size_x=40, image_size_y=30)
    albedo = [128, 64, 128]
    world.set_weather(WeatherParameters(sun_altitude_angle=90.0, sun_azimuth_angle=0.0))
    world.tick()
    world.set_weather(WeatherParameters(sun_altitude_angle=30.0, sun_azimuth_angle=0.0))
    world.tick()
    # overhead: ambient 0.35, sun 1.1, n.s = 1; at 30 degrees (d = 0.5, day still 1):
    # ambient 0.35, sun 1.1 * sqrt(0.5), n.s = sin 30 = 0.5
    overhead = [_srgb(_linear(a) * (0.35 + 1.1)) for a in albedo]
    low = [_srgb(_linear(a) * (0.35 + 1.1 * math.sqrt(0.5) * 0.5)) for a in albedo]
    assert overhead != low
    assert (_bgra(images[0])[20:, :, 2::-1] == overhead).all()
    assert (_bgra(images[1])[20:, :, 2::-1] == low).all()


def _linear(code: int) -> float:
    c = code / 255.0
    return c / 12.92 if c <= 0.04045 else math.pow((c + 0.055) / 1.055, 2.4)


def test_night_is_darker_and_fog_greys_the_distance():
    def mean(weather: WeatherParameters) -> float:
        world = scene_world(ground(0.0), wall(60.0))
        world.set_weather(weather)
        images = listen(world, "sensor.camera.rgb", Transform(Location(0, 0, 2)),
                        image_size_x=32, image_size_y=24)  # fmt: skip
        world.tick()
        return _bgra(images[0])[..., :3].astype(float)

    noon = mean(WeatherParameters(sun_altitude_angle=70.0))
    night = mean(WeatherParameters(sun_altitude_angle=-30.0))
    foggy = mean(WeatherParameters(sun_altitude_angle=70.0, fog_density=100.0))
    assert night.mean() < 0.3 * noon.mean()
    # fog pulls the far wall toward the horizon's colour: its pixels spread less
    assert foggy[6:12].std() < noon[6:12].std()


def test_the_same_scene_gives_the_same_bytes():
    def picture() -> bytes:
        world = scene_world(ground(0.0), box((8.0, 1.0, 1.0), (1.0, 1.0, 1.0), 14, 3))
        images = listen(world, "sensor.camera.rgb", Transform(Location(0, 0, 2)),
                        image_size_x=32, image_size_y=24)  # fmt: skip
        world.tick()
        return bytes(images[0].raw_data)

    assert picture() == picture()


def test_an_unheard_camera_renders_nothing_and_sensor_tick_spaces_images():
    world = scene_world(wall(10.0))
    bp = world.get_blueprint_library().find("sensor.camera.depth")
    bp.set_attribute("sensor_tick", "0.1")
    camera = world.spawn_actor(bp, AT_ORIGIN)
    world.tick()  # not listening: nothing is made
    got: list = []
    camera.listen(got.append)
    assert camera.is_listening()
    for _ in range(4):
        world.tick()
    # 0.05 s ticks, one image per 0.1 s gathered: frames 2 and 4 (0.1 s since frame 0's start)
    assert [image.frame for image in got] == [2, 4]
    camera.stop()
    world.tick()
    world.tick()
    assert len(got) == 2 and not camera.is_listening()
