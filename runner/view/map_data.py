"""A map's picture layer and road paint (recorder/picture/map_layer.py) for the page and the
exports: built once per map and kept with it (Map.derived, as the 3-D scene the paint comes
from), so the map store keeps them on disk and the next process loads them instead of
building them again."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from recorder.picture.map_layer import MapLayer, map_layer, road_paint

_LAYER_KEY = ("runner.view", "map layer", 2)


def map_layer_of(path: Path) -> tuple[MapLayer, tuple[np.ndarray, np.ndarray]]:
    """The layer and road paint of the OpenDRIVE map at `path` (runner/map_store.py keeps
    the map)."""
    from runner import map_store

    town, _ = map_store.map_and_planner(path)
    built = _LAYER_KEY in town.derived_keys()
    drawn = town.derived(_LAYER_KEY, lambda: (map_layer(town), road_paint(town)))
    if not built:
        map_store.keep(path)
    return drawn
