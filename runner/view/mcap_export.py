"""`lockstep export LOG --mcap OUT.mcap`: a route for Foxglove, with Foxglove's own schemas
(foxglove-sdk, the `foxglove` extra; the only module that imports it).

| topic | schema | what |
|---|---|---|
| `/map` | SceneUpdate | once: the lanes by kind and the road paint (triangles) |
| `/route` | SceneUpdate | once: the route's polyline and its scenarios' triggers (arrows) |
| `/tf` | FrameTransforms | each frame: `map` -> `actor/<id>`, every actor's logged pose |
| `/actors` | SceneUpdate | each frame: every actor, a box in its own frame, in its colour |
| `/hero/pose` | PoseInFrame | each frame: the hero's pose in `map` |
| `/traffic_lights` | SceneUpdate | when a light changes: a sphere in its state's colour |
| `/infractions` | SceneUpdate | at each infraction: a marker and its text, for 5 s |
| `/infractions/log` | Log | at each infraction: its kind and text |

Poses and times are runner/view/export_frames.py's: right-handed, the log's date plus the
frame's time. Each frame's `/actors` update first deletes every entity of the frame before,
so the scene holds exactly that frame's actors.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from recorder.picture.map_layer import AREA_SECTIONS, MapLayer
from recorder.picture.palette import LIGHT_COLOURS, NAMED
from runner.errors import ViewError
from runner.view.export_frames import (
    LIGHT_STATES,
    ExportInfo,
    export_frames,
    lane_triangles,
    right_handed,
)
from runner.view.map_data import map_layer_of
from runner.view.route_data import RouteView
from runner.view.sources import RouteSource

INFRACTION_SHOW_NS = 5_000_000_000
_KIND_COLOUR = {1: "vehicle", 2: "walker"}


def export_mcap(route: RouteSource, out: Path) -> ExportInfo:
    """Writes `route` into the MCAP file `out` (replaced if it exists)."""
    try:
        import foxglove
        from foxglove import channels as ch
        from foxglove import messages as fm
        from foxglove.mcap import MCAPWriteOptions
    except ImportError:
        raise ViewError(
            "an MCAP export needs foxglove-sdk, which is not installed: "
            "pip install 'lockstep[foxglove]'"
        ) from None
    view = RouteView(route)
    actors = view.chunks.actors
    hero = view.hero
    layer, paint = map_layer_of(route.map_path)
    context = foxglove.Context()
    writer = foxglove.open_mcap(
        out, allow_overwrite=True, context=context,
        writer_options=MCAPWriteOptions(compression_threads=0),
    )  # fmt: skip
    topics = {
        "map": ch.SceneUpdateChannel("/map", context=context),
        "route": ch.SceneUpdateChannel("/route", context=context),
        "tf": ch.FrameTransformsChannel("/tf", context=context),
        "actors": ch.SceneUpdateChannel("/actors", context=context),
        "hero": ch.PoseInFrameChannel("/hero/pose", context=context),
        "lights": ch.SceneUpdateChannel("/traffic_lights", context=context),
        "infractions": ch.SceneUpdateChannel("/infractions", context=context),
        "log": ch.LogChannel("/infractions/log", context=context),
    }
    build = _Messages(fm)
    frames = 0
    marks = {}
    for mark in view.marks(actors[hero].id if hero is not None else None):
        marks.setdefault(mark.pos, []).append(mark)
    last_states: dict[int, int] = {}
    try:
        for frame in export_frames(view):
            stamp = build.stamp(frame.time_ns)
            if frames == 0:
                topics["map"].log(build.map_update(layer, paint, stamp), log_time=frame.time_ns)
                topics["route"].log(build.route_update(view, stamp), log_time=frame.time_ns)
            entities, transforms = [], []
            for slot, p, q in zip(frame.slots.tolist(), frame.position, frame.rotation,
                                  strict=True):  # fmt: skip
                actor = actors[slot]
                child = f"actor/{actor.id}"
                transforms.append(fm.FrameTransform(
                    timestamp=stamp, parent_frame_id="map", child_frame_id=child,
                    translation=build.vector(p), rotation=build.quaternion(q),
                ))  # fmt: skip
                entities.append(build.actor_entity(actor, child, stamp))
                if slot == hero:
                    topics["hero"].log(
                        fm.PoseInFrame(timestamp=stamp, frame_id="map", pose=build.pose(p, q)),
                        log_time=frame.time_ns,
                    )
            topics["tf"].log(fm.FrameTransforms(transforms=transforms), log_time=frame.time_ns)
            clear = fm.SceneEntityDeletion(timestamp=stamp, type=fm.SceneEntityDeletionType.All)
            topics["actors"].log(
                fm.SceneUpdate(deletions=[clear], entities=entities), log_time=frame.time_ns
            )
            changed = [
                (s, st)
                for s, st in zip(frame.light_slots.tolist(), frame.light_states.tolist(),
                                 strict=True)
                if last_states.get(s) != st
            ]  # fmt: skip
            if changed:
                last_states.update(changed)
                lights = [build.light_entity(actors[s], st, stamp) for s, st in changed]
                topics["lights"].log(fm.SceneUpdate(entities=lights), log_time=frame.time_ns)
            for mark in marks.get(frame.pos, []):
                place = _mark_place(mark, frame, hero)
                topics["infractions"].log(
                    fm.SceneUpdate(entities=[build.infraction_entity(mark, place, stamp)]),
                    log_time=frame.time_ns,
                )
                topics["log"].log(
                    fm.Log(timestamp=stamp, level=fm.LogLevel.Warning, message=mark.text,
                           name=mark.kind),
                    log_time=frame.time_ns,
                )  # fmt: skip
            frames += 1
    finally:
        writer.close()
    return ExportInfo(out, frames, sum(1 for a in actors if a.place is None))


def _mark_place(mark, frame, hero) -> tuple[float, float]:
    """An infraction's place, right-handed: its text's, else the hero's in that frame."""
    if mark.place is not None:
        return mark.place[0], -mark.place[1]
    rows = np.flatnonzero(frame.slots == hero) if hero is not None else []
    if len(rows):
        return float(frame.position[rows[0], 0]), float(frame.position[rows[0], 1])
    return 0.0, 0.0


class _Messages:
    """Foxglove messages of lockstep's things (`fm`: foxglove.messages)."""

    def __init__(self, fm):
        self.fm = fm

    def stamp(self, ns: int):
        return self.fm.Timestamp(ns // 1_000_000_000, ns % 1_000_000_000)

    def colour(self, name: str, alpha: float = 1.0):
        return self.rgb(NAMED[name], alpha)

    def rgb(self, rgb: tuple[int, int, int], alpha: float = 1.0):
        r, g, b = rgb
        return self.fm.Color(r=r / 255, g=g / 255, b=b / 255, a=alpha)

    def vector(self, p):
        return self.fm.Vector3(x=float(p[0]), y=float(p[1]), z=float(p[2]))

    def quaternion(self, q):
        return self.fm.Quaternion(x=float(q[0]), y=float(q[1]), z=float(q[2]), w=float(q[3]))

    def pose(self, p, q):
        return self.fm.Pose(position=self.vector(p), orientation=self.quaternion(q))

    def point(self, x: float, y: float, z: float = 0.0):
        return self.fm.Point3(x=float(x), y=float(y), z=float(z))

    def at(self, x: float, y: float, z: float = 0.0):
        return self.pose((x, y, z), (0.0, 0.0, 0.0, 1.0))

    def actor_entity(self, actor, frame_id: str, stamp):
        """The actor's box in its own frame (the box centre: x, -y, height)."""
        fm = self.fm
        colour = "hero" if actor.hero else _KIND_COLOUR.get(actor.type, "prop")
        half_z, centre_z = actor.height
        box = fm.CubePrimitive(
            pose=self.at(actor.centre[0], -actor.centre[1], centre_z),
            size=fm.Vector3(x=2 * actor.extent[0], y=2 * actor.extent[1], z=2 * max(half_z, 0.05)),
            color=self.colour(colour),
        )
        meta = [fm.KeyValuePair(key="blueprint", value=actor.blueprint)]
        if actor.role:
            meta.append(fm.KeyValuePair(key="role_name", value=actor.role))
        return fm.SceneEntity(timestamp=stamp, frame_id=frame_id, id=str(actor.id),
                              cubes=[box], metadata=meta)  # fmt: skip

    def light_entity(self, actor, state: int, stamp):
        fm = self.fm
        x, y = actor.place
        name = LIGHT_STATES[state] if 0 <= state < len(LIGHT_STATES) else str(state)
        return fm.SceneEntity(
            timestamp=stamp, frame_id="map", id=f"light/{actor.id}",
            spheres=[fm.SpherePrimitive(pose=self.at(x, -y, 3.0),
                                        size=fm.Vector3(x=1.0, y=1.0, z=1.0),
                                        color=self.colour(LIGHT_COLOURS.get(state, "light_off")))],
            metadata=[fm.KeyValuePair(key="state", value=name)],
        )  # fmt: skip

    def infraction_entity(self, mark, place, stamp):
        fm = self.fm
        x, y = place
        return fm.SceneEntity(
            timestamp=stamp, frame_id="map", id=f"infraction/{mark.pos}/{mark.kind}",
            lifetime=fm.Duration(INFRACTION_SHOW_NS // 1_000_000_000, 0),
            spheres=[fm.SpherePrimitive(pose=self.at(x, y, 1.0), size=fm.Vector3(x=3, y=3, z=3),
                                        color=self.colour("collision", 0.6))],
            texts=[fm.TextPrimitive(pose=self.at(x, y, 4.0), billboard=True, font_size=14,
                                    scale_invariant=True, color=self.colour("text"),
                                    text=mark.text)],
            metadata=[fm.KeyValuePair(key="kind", value=mark.kind)],
        )  # fmt: skip

    def map_update(self, layer: MapLayer, paint, stamp):
        """The lanes as triangles (each lane polygon is its outer border and its inner
        border back, of equal lengths: a strip) and the road paint's triangles (markings,
        crosswalks) by colour."""
        fm = self.fm
        triangles = []
        for kind in AREA_SECTIONS:
            points = []
            for poly in layer.areas.get(kind, []):
                points += [self.point(x, -y) for x, y in lane_triangles(poly).tolist()]
            if points:
                triangles.append(fm.TriangleListPrimitive(points=points, color=self.colour(kind)))
        paint_xy, paint_rgb = paint
        for rgb in np.unique(paint_rgb, axis=0).tolist():
            corners = paint_xy[np.all(paint_rgb == rgb, axis=1)].reshape(-1, 2)
            points = [self.point(x, -y, 0.02) for x, y in corners.tolist()]
            triangles.append(fm.TriangleListPrimitive(points=points, color=self.rgb(rgb)))
        entity = fm.SceneEntity(timestamp=stamp, frame_id="map", id="lanes",
                                triangles=triangles)  # fmt: skip
        return fm.SceneUpdate(entities=[entity])

    def route_update(self, view: RouteView, stamp):
        fm = self.fm
        entities = []
        points = view.route_points()
        if points:
            line = fm.LinePrimitive(
                type=fm.LinePrimitiveLineType.LineStrip, thickness=0.6,
                points=[self.point(x, -y, 0.05) for x, y in points],
                color=fm.Color(r=0.3, g=0.8, b=1.0, a=0.7),
            )  # fmt: skip
            entities.append(fm.SceneEntity(timestamp=stamp, frame_id="map", id="route",
                                           lines=[line]))  # fmt: skip
        for k, trigger in enumerate(view.triggers()):
            _, q = right_handed(np.zeros((1, 3)), np.array([[0.0, 0.0, trigger["yaw"]]]))
            arrow = fm.ArrowPrimitive(
                pose=self.pose((trigger["x"], -trigger["y"], 0.5), q[0]), shaft_length=3.0,
                shaft_diameter=0.4, head_length=1.5, head_diameter=1.2,
                color=fm.Color(r=1.0, g=0.6, b=0.0, a=1.0),
            )  # fmt: skip
            entities.append(fm.SceneEntity(
                timestamp=stamp, frame_id="map", id=f"trigger/{k}", arrows=[arrow],
                metadata=[fm.KeyValuePair(key="scenario", value=trigger["name"]),
                          fm.KeyValuePair(key="type", value=trigger["type"])],
            ))  # fmt: skip
        return fm.SceneUpdate(entities=entities)
