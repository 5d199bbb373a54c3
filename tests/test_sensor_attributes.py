"""Bad attributes of a rendering sensor are refused at spawn, before anything is made."""

from __future__ import annotations

import pytest

from world import BlueprintError, FlatMap, Location, Transform, World


def _world() -> World:
    return World(FlatMap(), static_actor_providers=())


@pytest.mark.parametrize(
    ("blueprint", "attribute", "value", "shown"),
    [
        ("sensor.camera.rgb", "image_size_x", "100000", "[1, 16384]"),
        ("sensor.camera.depth", "image_size_y", "0", "[1, 16384]"),
        ("sensor.camera.semantic_segmentation", "fov", "180", "(0, 180)"),
        ("sensor.lidar.ray_cast", "points_per_second", "1000000000", "[0, 2e+07]"),
        ("sensor.lidar.ray_cast", "dropoff_general_rate", "1.5", "[0, 1]"),
        ("sensor.lidar.ray_cast_semantic", "upper_fov", "91", "[-90, 90]"),
        ("sensor.other.radar", "horizontal_fov", "nan", "(0, 180)"),
        ("sensor.camera.dvs", "positive_threshold", "0", "(0, 1e+06]"),
    ],
)
def test_an_attribute_out_of_range_is_refused(blueprint, attribute, value, shown):
    world = _world()
    before = len(world.get_actors())
    bp = world.get_blueprint_library().find(blueprint)
    bp.set_attribute(attribute, value)
    with pytest.raises(BlueprintError) as caught:
        world.spawn_actor(bp, Transform(Location(0, 0, 2)))
    text = str(caught.value)
    assert blueprint in text and attribute in text and shown in text and repr(value) in text
    assert len(world.get_actors()) == before  # nothing was made, no id used
    with pytest.raises(BlueprintError):
        world.try_spawn_actor(bp, Transform(Location(0, 0, 2)))


def test_carlas_defaults_and_the_leaderboards_settings_pass():
    world = _world()
    library = world.get_blueprint_library()
    for blueprint in ("sensor.camera.rgb", "sensor.lidar.ray_cast", "sensor.other.radar"):
        world.spawn_actor(library.find(blueprint), Transform(Location(0, 0, 2))).destroy()
    lidar = library.find("sensor.lidar.ray_cast")
    for key, value in {"range": "85", "channels": "64", "points_per_second": "600000"}.items():
        lidar.set_attribute(key, value)  # the leaderboard's LiDAR
    world.spawn_actor(lidar, Transform(Location(0, 0, 2)))
