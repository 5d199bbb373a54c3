"""Pictures of recorded runs: `lockstep render` draws a log on its map, seen from above.

The map is drawn once into a base image (map_layer.py); each output frame copies it and
draws only what moves (frame_drawing.py): actors as oriented boxes, traffic lights in
their state's colour, collisions, the run's debug drawings (recorder/logfile/debug_sidecar.py),
the time and frame. The log is read a frame at a time (log_scenes.py), and a GIF is
written a picture at a time (gif_stream.py). Pictures never
feed a run's state or its log, so this package alone may use numpy's transcendental
functions (np.cos, np.sin) for the box corners; the simulation modules must not.
Pillow (the `pictures` extra) is imported only here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RenderInfo", "RenderOptions", "render_log"]


def __getattr__(name: str) -> Any:
    """The renderer's names, imported on first use: a stored map holds the picture map layer
    (runner/map_store.py), so every route's process imports this package when it loads a
    map, and the renderer (the log reader, drawing, GIF writing) is tens of milliseconds of
    imports it never uses."""
    if name in __all__:
        from recorder.picture import render

        return getattr(render, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
