"""A map's picture layer (recorder/picture/map_layer.py) for the page and the exports: built
once per map and kept with it (Map.derived), so the map store keeps it on disk and the next
process loads it instead of building it again."""

from __future__ import annotations

from pathlib import Path

from recorder.picture.map_layer import MapLayer, map_layer

_LAYER_KEY = ("runner.view", "map layer", 1)


def map_layer_of(path: Path) -> MapLayer:
    """The layer of the OpenDRIVE map at `path` (runner/map_store.py keeps the map)."""
    from runner import map_store

    town, _ = map_store.map_and_planner(path)
    built = _LAYER_KEY in town.derived_keys()
    layer = town.derived(_LAYER_KEY, lambda: map_layer(town))
    if not built:
        map_store.keep(path)
    return layer
