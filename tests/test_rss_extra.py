"""The RSS sensor without its extra: spawning it names the extra to install."""

from __future__ import annotations

import pytest

from tests.world_helpers import blueprint, flat_world
from world.errors import WorldError
from world.geometry import Transform
from world.sensors.rss import bindings


def test_spawning_the_rss_sensor_without_the_libraries_names_the_extra(monkeypatch):
    monkeypatch.setattr(bindings, "available", lambda: False)
    world = flat_world()
    with pytest.raises(WorldError, match=r"sensor.other.rss .*pip install 'lockstep\[rss\]'"):
        world.spawn_actor(blueprint("sensor.other.rss"), Transform())
    assert [a.type_id for a in world.get_actors()] == ["spectator"]  # nothing was made


def test_carla_ad_without_the_libraries_names_the_extra(monkeypatch):
    import runner.carla as carla

    monkeypatch.setattr(bindings, "available", lambda: False)
    with pytest.raises(AttributeError, match=r"carla.ad needs .*pip install 'lockstep\[rss\]'"):
        carla.ad  # noqa: B018
    assert not hasattr(carla, "ad")  # an AttributeError, as for any missing name


def test_the_restrictor_without_the_libraries_names_the_extra(monkeypatch):
    from world.sensors.rss import RssRestrictor

    monkeypatch.setattr(bindings, "available", lambda: False)
    with pytest.raises(
        WorldError, match=r"^carla.RssRestrictor needs .*pip install 'lockstep\[rss\]'$"
    ):
        RssRestrictor()
