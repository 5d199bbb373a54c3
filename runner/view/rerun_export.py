"""`lockstep export LOG --rerun OUT.rrd`: a route for the Rerun viewer (rerun-sdk, the
`rerun` extra; the only module that imports it).

| entity | archetype | what |
|---|---|---|
| `world` | ViewCoordinates | right-handed, z up (static) |
| `world/map/<kind>` | Mesh3D | the lanes by kind (static) |
| `world/map/paint` | Mesh3D | the road paint: markings, crosswalks (static) |
| `world/route` | LineStrips3D | the route (static) |
| `world/triggers` | Arrows3D | its scenarios' triggers (static) |
| `world/actors` | Boxes3D | each frame: every actor's box, labelled with its id |
| `world/hero` | Transform3D | each frame: the hero's logged pose |
| `world/traffic_lights` | Points3D | when a light changes: every light in its state's colour |
| `world/infractions`, `infractions` | Points3D, TextLog | at each infraction: its place and text |

Two timelines: `log_time` (the log's date plus the frame's time) and `frame` (the log's
frame id). Poses are runner/view/export_frames.py's, right-handed. The recording's id is
derived from the log's bytes' name and date, so the same log gives the same recording id.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import numpy as np

from recorder.picture.map_layer import AREA_SECTIONS
from recorder.picture.palette import LIGHT_COLOURS, NAMED
from runner.errors import ViewError
from runner.view.export_frames import (
    ExportInfo,
    export_frames,
    lane_triangles,
    right_handed,
)
from runner.view.map_data import map_layer_of
from runner.view.route_data import RouteView
from runner.view.sources import RouteSource

_KIND_COLOUR = {1: "vehicle", 2: "walker"}


def export_rerun(route: RouteSource, out: Path) -> ExportInfo:
    """Writes `route` into the Rerun file `out` (replaced if it exists)."""
    try:
        import rerun as rr
    except ImportError:
        raise ViewError(
            "a Rerun export needs rerun-sdk, which is not installed: pip install 'lockstep[rerun]'"
        ) from None
    view = RouteView(route)
    actors = view.chunks.actors
    hero = view.hero
    name = f"{route.log.name} {view.log.header.date}"
    rec = rr.RecordingStream("lockstep", recording_id=uuid.uuid5(uuid.NAMESPACE_URL, name))
    rec.save(str(out))
    rec.log("world", rr.ViewCoordinates.RIGHT_HAND_Z_UP, static=True)
    _static_map(rec, rr, *map_layer_of(route.map_path))
    _static_route(rec, rr, view)
    half = np.array([(a.extent[0], a.extent[1], max(a.height[0], 0.05)) for a in actors] or
                    [(0.0, 0.0, 0.0)])  # fmt: skip
    local = np.array([(a.centre[0], -a.centre[1], a.height[1]) for a in actors] or [(0, 0, 0)])
    colours = np.array([NAMED["hero" if a.hero else _KIND_COLOUR.get(a.type, "prop")]
                        for a in actors] or [(0, 0, 0)], np.uint8)  # fmt: skip
    labels = [str(a.id) for a in actors]
    lights = [s for s, a in enumerate(actors) if a.place is not None]
    light_xyz = np.array([(actors[s].place[0], -actors[s].place[1], 3.0) for s in lights])
    marks: dict[int, list] = {}
    for mark in view.marks(actors[hero].id if hero is not None else None):
        marks.setdefault(mark.pos, []).append(mark)
    states: dict[int, int] = {}
    frames = 0
    for frame in export_frames(view):
        rec.set_time("log_time", timestamp=np.datetime64(frame.time_ns, "ns"))
        rec.set_time("frame", sequence=frame.frame)
        slots = frame.slots
        centres = frame.position + _rotate(frame.rotation, local[slots])
        rec.log("world/actors", rr.Boxes3D(
            centers=centres, half_sizes=half[slots], quaternions=frame.rotation,
            colors=colours[slots], labels=[labels[s] for s in slots.tolist()],
            show_labels=False, fill_mode="solid",
        ))  # fmt: skip
        at = np.flatnonzero(slots == hero) if hero is not None else []
        if len(at):
            rec.log("world/hero", rr.Transform3D(translation=frame.position[at[0]],
                                                 quaternion=frame.rotation[at[0]]))  # fmt: skip
        new = dict(zip(frame.light_slots.tolist(), frame.light_states.tolist(), strict=True))
        if lights and any(states.get(s) != st for s, st in new.items()):
            states.update(new)
            light_colours = [
                NAMED[LIGHT_COLOURS.get(states.get(s, 3), "light_off")] for s in lights
            ]
            rec.log("world/traffic_lights",
                    rr.Points3D(light_xyz, colors=light_colours, radii=0.5))  # fmt: skip
        for mark in marks.get(frame.pos, []):
            place = _place(mark, frame, at)
            rec.log("world/infractions", rr.Points3D([place], colors=[NAMED["collision"]],
                                                     radii=1.5, labels=[mark.kind]))  # fmt: skip
            rec.log("infractions", rr.TextLog(f"{mark.kind}: {mark.text}", level="WARN"))
        frames += 1
    rec.flush()
    rec.disconnect()
    return ExportInfo(out, frames, sum(1 for a in actors if a.place is None))


def _rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Vectors v (N, 3) turned by unit quaternions q (N, 4; x, y, z, w)."""
    u, w = q[:, :3], q[:, 3:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def _place(mark, frame, at) -> tuple[float, float, float]:
    if mark.place is not None:
        return (mark.place[0], -mark.place[1], 1.0)
    if len(at):
        p = frame.position[at[0]]
        return (float(p[0]), float(p[1]), 1.0)
    return (0.0, 0.0, 1.0)


def _static_map(rec, rr, layer, paint) -> None:
    for kind in AREA_SECTIONS:
        polys = layer.areas.get(kind, [])
        if polys:
            _mesh(rec, rr, f"world/map/{kind}", np.concatenate([lane_triangles(p) for p in polys]),
                  NAMED[kind], 0.0)  # fmt: skip
    paint_xy, paint_rgb = paint
    if len(paint_xy):
        vertices = paint_xy.reshape(-1, 2)
        vertices = np.column_stack([vertices[:, 0], -vertices[:, 1], np.full(len(vertices), 0.02)])
        indices = np.arange(len(vertices), dtype=np.uint32).reshape(-1, 3)
        rec.log("world/map/paint", rr.Mesh3D(vertex_positions=vertices, triangle_indices=indices,
                                             vertex_colors=np.repeat(paint_rgb, 3, axis=0)),
                static=True)  # fmt: skip


def _mesh(rec, rr, path: str, triangles_xy: np.ndarray, colour, z: float) -> None:
    vertices = np.column_stack([triangles_xy[:, 0], -triangles_xy[:, 1],
                                np.full(len(triangles_xy), z)])  # fmt: skip
    indices = np.arange(len(vertices), dtype=np.uint32).reshape(-1, 3)
    rec.log(path, rr.Mesh3D(vertex_positions=vertices, triangle_indices=indices,
                            albedo_factor=[*colour, 255]), static=True)  # fmt: skip


def _static_route(rec, rr, view: RouteView) -> None:
    points = view.route_points()
    if points:
        xyz = np.array([(x, -y, 0.05) for x, y in points])
        rec.log("world/route", rr.LineStrips3D([xyz], colors=[(80, 200, 255)], radii=0.3),
                static=True)  # fmt: skip
    triggers = view.triggers()
    if triggers:
        _, q = right_handed(np.zeros((len(triggers), 3)),
                            np.array([[0.0, 0.0, t["yaw"]] for t in triggers]))  # fmt: skip
        forward = _rotate(q, np.tile([3.0, 0.0, 0.0], (len(triggers), 1)))
        origins = np.array([(t["x"], -t["y"], 0.5) for t in triggers])
        rec.log("world/triggers", rr.Arrows3D(origins=origins, vectors=forward,
                                              labels=[t["type"] for t in triggers],
                                              colors=[(255, 150, 0)]), static=True)  # fmt: skip
