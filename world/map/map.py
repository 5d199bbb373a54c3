"""CARLA's Map API on an OpenDRIVE document: waypoints, topology, spawn points, landmarks, ground.

Semantics follow LibCarla's road::Map and client::Map. Waypoints keep CARLA's
epsilon shifts at lane ends (10 and 100 machine epsilons) so that walking a
route gives the same lanes and s as CARLA. Roads, sections and lanes are
visited in document order (lanes by ascending id); CARLA visits roads in its
hash-map order, so lists such as `get_topology()` hold the same pairs in a
different order.

`get_waypoint` finds the nearest lane-centre segment (3D distance, as CARLA's
R-tree) among lanes of the asked type through a grid index of centre samples at
most 1 m apart, then places the waypoint at the projected s on the exact centre.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from world import elementary as el
from world.errors import MapError
from world.geometry import BoundingBox, GeoLocation, Location, Rotation, Transform, Vector3D
from world.map.carried_ground import CarriedGround, build_carried_ground
from world.map.geolocation import geo_origin, to_geolocation
from world.map.ground_query import SurfaceIndex
from world.map.junction import Junction
from world.map.landmark import TRAFFIC_LIGHT_TYPES, Landmark, Placement
from world.map.lane_enums import (
    LaneChange,
    LaneMarking,
    LaneMarkingColor,
    LaneMarkingType,
    LaneType,
    lane_change_from_odr,
    lane_type_from_odr,
    marking_color_from_odr,
    marking_type_from_odr,
)
from world.map.lane_frames import RoadFrames
from world.map.lane_index import LaneSegments, SegmentGrid
from world.map.opendrive import RoadMark, RoadObject, Validity, parse_opendrive
from world.map.opendrive.evaluation import RoadEvaluator
from world.map.opendrive.limits import read_map_bytes
from world.map.opendrive.placement import signal_pose
from world.map.road_graph import LaneKey, LaneNode, RoadGraph
from world.map.waypoint import Waypoint

# The CARLA names that belong with the map are importable from here too (CONTRACTS.md).
__all__ = [
    "GroundSample",
    "Junction",
    "Landmark",
    "LaneChange",
    "LaneMarking",
    "LaneMarkingColor",
    "LaneMarkingType",
    "LaneProjection",
    "LaneType",
    "Map",
    "Waypoint",
]

EPSILON = 10.0 * np.finfo(float).eps
_SAMPLE_STEP = 1.0
_SPAWN_HEIGHT = 0.5
_GROUND_REACH = 1.0
# A centre-line step longer than this many times its s step (plus the slack) is a jump.
_JUMP_FACTOR = 3.0
_JUMP_SLACK = 0.5


@dataclass(slots=True)
class GroundSample:
    """Road surface under query points: z, unit normal (CARLA frame), and whether one was found."""

    z: np.ndarray
    normal: np.ndarray
    found: np.ndarray


@dataclass(slots=True)
class LaneProjection:
    """Batch get_waypoint answers as arrays, one row per query point.

    `node` indexes `Map.lane_keys` (-1: no lane of the type); `location` and `yaw`
    are interpolated between centre samples (<= 1 m apart); `distance` is 3D to the
    centre line, `inside` tells whether the point is within half the lane width (2D).
    """

    node: np.ndarray
    s: np.ndarray
    location: np.ndarray
    yaw: np.ndarray
    distance: np.ndarray
    inside: np.ndarray


class LanePoint(NamedTuple):
    """One point's LaneProjection row, in plain Python numbers (Map.project_point)."""

    node: int
    s: float
    location: tuple[float, float, float]
    yaw: float
    distance: float
    inside: bool


class Map:
    """An OpenDRIVE map with CARLA's carla.Map API."""

    def __init__(self, name: str, xodr_content: str, *, source: str | None = None) -> None:
        self._odr = parse_opendrive(xodr_content, source=source or name)
        self._name = name
        self._text = xodr_content
        self._graph = RoadGraph(self._odr)
        self._frames = {road_id: RoadFrames(road) for road_id, road in self._odr.roads.items()}
        self.lane_keys: list[LaneKey] = list(self._graph.nodes)
        self._node_index = {key: i for i, key in enumerate(self.lane_keys)}
        self._segments = self._build_segments()
        self._origin = geo_origin(self._odr.header.geo_reference or None)
        self._placements = self._build_placements()
        self._junctions: dict[str, Junction] = {}
        self._derived: dict[Hashable, Any] = {}

    @classmethod
    def from_file(cls, path: str | Path) -> Map:
        """A map read from an .xodr file, named after the file (without extension)."""
        path = Path(path)
        try:
            data = read_map_bytes(path)
        except OSError as exc:
            raise MapError(f"{path}: cannot read the OpenDRIVE file: {exc.strerror}") from exc
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise MapError(
                f"{path}:{line}: expected UTF-8 text, found byte 0x{data[exc.start]:02x} "
                f"at offset {exc.start}"
            ) from None
        return cls(path.stem, text, source=str(path))

    # -- carla.Map -----------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._name

    @property
    def opendrive(self):
        """The parsed OpenDRIVE document (world.map.opendrive.OpenDrive)."""
        return self._odr

    @property
    def warnings(self) -> list[str]:
        """What reading the file repaired of its sloppiness, one line per kind (tiny
        geometries dropped, an s past its road clamped: world.map.opendrive.parser)."""
        return list(self._odr.repairs)

    @property
    def objects(self) -> list[tuple[str, RoadObject]]:
        """Every road <object> (not landmarks) as (road id, object), in document order."""
        return [(road.id, obj) for road in self._odr.roads.values() for obj in road.objects]

    def road_evaluators(self) -> dict[str, RoadEvaluator]:
        """Each road's geometry evaluator (world.map.opendrive.evaluation) by road id: the
        map's own, for code that evaluates the roads itself (it need not build them again)."""
        return {road_id: frames.geometry for road_id, frames in self._frames.items()}

    def to_opendrive(self) -> str:
        return self._text

    def save_to_disk(self, path: str | Path = "") -> Path:
        """Writes the OpenDRIVE text to `path` (default: `<name>.xodr` here) and returns it."""
        target = Path(path) if str(path) else Path(f"{self._name}.xodr")
        try:
            target.write_text(self._text, encoding="utf-8")
        except OSError as exc:
            raise MapError(f"{target}: cannot write the OpenDRIVE file: {exc.strerror}") from exc
        return target

    def get_waypoint(
        self,
        location: Location,
        project_to_road: bool = True,
        lane_type: LaneType = LaneType.Driving,
    ) -> Waypoint | None:
        """The waypoint of the nearest lane of `lane_type` (CARLA's Map.get_waypoint).

        With `project_to_road=False` the point must also lie within half the lane's width
        of its centre (2D), else None.
        """
        point = self.project_point(location.x, location.y, location.z, lane_type)
        if point is None or not (project_to_road or point.inside):
            return None
        road, section, lane = self.lane_keys[point.node]
        return Waypoint(self, road, section, lane, point.s)

    def get_waypoints_batch(
        self,
        points: np.ndarray,
        project_to_road: bool = True,
        lane_type: LaneType = LaneType.Driving,
    ) -> list[Waypoint | None]:
        """get_waypoint for an (N, 3) array of CARLA-frame points."""
        proj = self.project_batch(points, lane_type)
        keep = proj.node >= 0
        if not project_to_road:
            keep &= proj.inside
        out: list[Waypoint | None] = []
        for node, s, ok in zip(proj.node.tolist(), proj.s.tolist(), keep.tolist(), strict=True):
            if not ok:
                out.append(None)
                continue
            road, section, lane = self.lane_keys[node]
            out.append(Waypoint(self, road, section, lane, s))
        return out

    def project_batch(
        self, points: np.ndarray, lane_type: LaneType = LaneType.Driving
    ) -> LaneProjection:
        """Nearest lane of `lane_type` for each of (N, 3) CARLA-frame points, as arrays."""
        pts = np.asarray(points, dtype=float).reshape(-1, 3)
        grid = self._grid(int(lane_type))
        seg, u, dist = grid.nearest(pts)
        n = len(pts)
        ok = seg >= 0
        sg = grid.segments
        k = np.where(ok, seg, 0)
        node = np.where(ok, sg.node[k] if len(sg) else -1, -1)
        s = np.zeros(n)
        location = np.zeros((n, 3))
        yaw = np.zeros(n)
        inside = np.zeros(n, dtype=bool)
        if len(sg):
            s = sg.s_a[k] + u * (sg.s_b[k] - sg.s_a[k])
            location = sg.a[k] + u[:, None] * (sg.b[k] - sg.a[k])
            yaw = sg.yaw_a[k] + u * (sg.yaw_b[k] - sg.yaw_a[k])
            planar = el.hypot_v(*(pts[:, :2] - location[:, :2]).T)
            inside = ok & (planar < 0.5 * sg.width[k])
        return LaneProjection(node, s, location, yaw, dist, inside)

    def project_point(
        self, x: float, y: float, z: float, lane_type: LaneType = LaneType.Driving
    ) -> LanePoint | None:
        """project_batch of the one point (x, y, z), None when the map has no lane of
        `lane_type`. The same numbers, worked in plain floats by the same IEEE operations
        (and elementary's scalar hypot, whose bits equal its array form's): a lookup a
        tick (get_waypoint, the criteria's lane) spares numpy's cost per call."""
        found = self._grid(int(lane_type)).nearest_one(x, y, z)
        if found[0] < 0:
            return None
        _, u, dist, (ax, ay, az, bx, by, bz, s_a, s_b, yaw_a, yaw_b, width, node) = found
        cx, cy, cz = ax + u * (bx - ax), ay + u * (by - ay), az + u * (bz - az)
        inside = el.hypot(x - cx, y - cy) < 0.5 * width
        return LanePoint(
            int(node),
            s_a + u * (s_b - s_a),
            (cx, cy, cz),
            yaw_a + u * (yaw_b - yaw_a),
            dist,
            bool(inside),
        )

    def centre_locations(self, waypoints: list[Waypoint]) -> np.ndarray:
        """(N, 3) CARLA-frame lane centres of `waypoints`, evaluated with numpy one lane
        section at a time (RoadFrames.centres): the numbers of `waypoint.transform.location`
        up to rounding (a few ulps), at a fraction of the cost of one pose each. For
        screening (which points need the exact pose), never for values that enter a run's
        state."""
        out = np.empty((len(waypoints), 3))
        groups: dict[tuple[str, int], list[int]] = {}
        for i, wp in enumerate(waypoints):
            groups.setdefault(wp.key[:2], []).append(i)
        for (road_id, index), rows in groups.items():
            s = np.array([waypoints[i].s for i in rows])
            lanes = np.array([waypoints[i].lane_id for i in rows])
            out[rows] = self._frames[road_id].centres(index, s, lanes)
        return out

    def get_waypoint_xodr(self, road_id: int | str, lane_id: int, s: float) -> Waypoint | None:
        """The waypoint at (road, lane, s), or None when the road, s or lane does not exist.
        Lane 0, the centre lane every section has, gives the reference line's point (as
        CARLA's: OpenSCENARIO's RoadPosition asks for it)."""
        road = self._odr.roads.get(str(road_id))
        if road is None or s < 0.0 or s >= road.length:
            return None
        index = self._frames[road.id].section_index(s)
        if lane_id not in road.lane_sections[index].lanes:
            return None
        return Waypoint(self, road.id, index, lane_id, s)

    def generate_waypoints(self, distance: float) -> list[Waypoint]:
        """Waypoints on every driving lane every `distance` metres of each road's s."""
        if not distance > 0.0:
            raise MapError(f"generate_waypoints: distance must be > 0, got {distance}")
        out = []
        for road in self._odr.roads.values():
            s = EPSILON
            while s < road.length - EPSILON:
                index = self._frames[road.id].section_index(s)
                for node in self._graph.by_road[road.id]:
                    if node.key[1] == index and node.lane_type & LaneType.Driving:
                        out.append(Waypoint(self, road.id, index, node.key[2], s))
                s += distance
        return out

    def get_topology(self) -> list[tuple[Waypoint, Waypoint]]:
        """(lane start, successor lane start) for every driving lane and each of its successors."""
        out = []
        for node in self._graph.nodes.values():
            if node.lane_type & LaneType.Driving:
                start = self._at_start(node)
                out.extend((start, self._at_start(self._graph.nodes[k])) for k in node.next)
        return out

    def get_spawn_points(self) -> list[Transform]:
        """Road entries of every driving lane outside junctions (lanes < 0 at s = 0, lanes > 0
        at the road's end), 0.5 m above the lane centre. CARLA makes road entries the spawn
        points of a map that has none (Map::GenerateWaypointsOnRoadEntries), junction roads'
        too; its towns, whose points stand in the level, have none on a junction's lanes,
        and a car there starts across the junction's conflicting lanes: lockstep keeps to
        the towns."""
        out = []
        for road in self._odr.roads.values():
            if road.junction != "-1":
                continue
            last = len(road.lane_sections) - 1
            entries = [(0, 0.0, -1), (last, road.length, 1)] if last >= 0 else []
            for index, s, side in entries:
                for lane_id in road.lane_sections[index].lanes:
                    node = self._graph.nodes.get((road.id, index, lane_id))
                    if lane_id * side <= 0 or node is None:
                        continue
                    if node.lane_type & LaneType.Driving:
                        tf = Waypoint(self, road.id, index, lane_id, s).transform
                        tf.location.z += _SPAWN_HEIGHT
                        out.append(tf)
        return out

    def get_all_landmarks(self) -> list[Landmark]:
        return [Landmark(p) for p in self._placements]

    def get_all_landmarks_from_id(self, opendrive_id: str) -> list[Landmark]:
        return [Landmark(p) for p in self._placements if p.signal.id == str(opendrive_id)]

    def get_all_landmarks_of_type(self, type: str) -> list[Landmark]:
        return [Landmark(p) for p in self._placements if p.signal.type == str(type)]

    def get_landmark_group(self, landmark: Landmark) -> list[Landmark]:
        """Landmarks of every signal that shares a controller with `landmark`'s signal."""
        out = []
        for controller in self._odr.controllers.values():
            ids = [c.signal_id for c in controller.controls]
            if landmark.id in ids:
                for signal_id in ids:
                    out.extend(self.get_all_landmarks_from_id(signal_id))
        return out

    def get_crosswalks(self) -> list[Location]:
        """Corners of every crosswalk outline, each polygon closed as in the file (CARLA's rule:
        the outline is placed at (s, t) from the centre lane, stretched 1 m along u)."""
        out = []
        for road in self._odr.roads.values():
            for obj in road.objects:
                if obj.type != "crosswalk" or not obj.outlines:
                    continue
                out.extend(self._crosswalk_corners(road.id, obj))
        return out

    def crosswalk_polygons(self) -> list[np.ndarray]:
        """`get_crosswalks` as one (n, 3) array of corners per crosswalk (CARLA's frame),
        each without the corner that closes it; polygons of fewer than 3 corners are left
        out."""
        out: list[np.ndarray] = []
        current: list[tuple[float, float, float]] = []
        for corner in self.get_crosswalks():
            p = (float(corner.x), float(corner.y), float(corner.z))
            start = current[0] if current else None
            if start is not None and abs(p[0] - start[0]) < 1e-6 and abs(p[1] - start[1]) < 1e-6:
                out.append(np.array(current))
                current = []
            else:
                current.append(p)
        if len(current) >= 3:
            out.append(np.array(current))
        return [polygon for polygon in out if len(polygon) >= 3]

    def transform_to_geolocation(self, location: Location, projection: Any = None) -> GeoLocation:
        """The location's latitude, longitude, altitude from the map's geo reference (the
        transverse Mercator CARLA uses by default; another `projection` is not supported)."""
        if projection is not None:
            raise MapError("transform_to_geolocation: lockstep has only the map's own projection")
        return to_geolocation(self._origin, location)

    def get_junction(self, waypoint: Waypoint) -> Junction | None:
        return waypoint.get_junction()

    def ground(self, points: np.ndarray) -> GroundSample:
        """Road surface (any lane) under each (N, 3) CARLA-frame point: among the surfaces
        covering the point, the highest one at most 1.0 m above the point's z (compiled,
        world.map.ground_query)."""
        z, normal, found = self.surface_index().highest(points)
        return GroundSample(z, normal, found)

    def surface_index(self) -> SurfaceIndex:
        """The index behind `ground` (built on first use), for the physics tick, which runs
        the same query inside its own compiled call."""
        return self.derived("surface index", lambda: SurfaceIndex(self._ground(), _GROUND_REACH))

    def carried_ground(self) -> CarriedGround:
        """The ground outside the lanes (world.map.carried_ground), built on first use."""
        return self.derived("carried ground", lambda: build_carried_ground(self._ground()))

    # -- the lane geometry other wings build on (the autopilot's lane paths, the walkers'
    # navigation, the traffic checks), read-only -------------------------------------------

    @property
    def road_graph(self) -> RoadGraph:
        """The lanes as a graph: one node per (road, section, lane), with its successors."""
        return self._graph

    @property
    def lane_segments(self) -> LaneSegments:
        """Every lane's centre line as segments (the nearest-lane index's arrays)."""
        return self._segments

    def lane_index(self, key: LaneKey) -> int:
        """The index of lane `key` in `lane_keys`."""
        return self._node_index[key]

    def road_junction(self, road_id: str) -> str:
        """The id of the junction road `road_id` belongs to ("-1" outside any)."""
        return self._odr.roads[road_id].junction

    def derived(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """What other wings work out from this map alone (the traffic's light layout, the
        autopilot's lane paths, the walkers' sidewalk graph...), built by `build` on the
        first ask for `key` and kept with the map: the worlds made on one Map share it, and
        a map kept on disk (runner.map_store) keeps it. Read only once built."""
        if key not in self._derived:
            self._derived[key] = build()
        return self._derived[key]

    def derived_keys(self) -> list[Hashable]:
        """The keys of what `derived` holds, in the order they were built."""
        return list(self._derived)

    def kill_height(self) -> float:
        """The height below which the world destroys a body (KILL_DEPTH under the lowest
        road surface)."""
        return self.carried_ground().kill_z

    # -- lane-level rules (road::Map), used by Waypoint ----------------------------------

    def _node(self, wp: Waypoint) -> LaneNode:
        return self._graph.nodes[wp.key]

    def _at_start(self, node: LaneNode) -> Waypoint:
        s = node.s0 + 10 * EPSILON if node.forward else node.s1 - 10 * EPSILON
        return Waypoint(self, *node.key, s)

    def _at_end(self, node: LaneNode) -> Waypoint:
        s = node.s1 - 10 * EPSILON if node.forward else node.s0 + 10 * EPSILON
        return Waypoint(self, *node.key, s)

    def _walk(self, wp: Waypoint, distance: float, ahead: bool) -> list[Waypoint]:
        if not distance > 0.0:
            raise MapError(f"waypoint step must be > 0, got {distance}")
        node = self._node(wp)
        forward = node.forward if ahead else not node.forward
        relative = wp.s - node.s0
        remaining = node.length - relative if forward else relative
        if distance <= remaining:
            s = wp.s + (distance if forward else -distance) + (-EPSILON if forward else EPSILON)
            return [Waypoint(self, *node.key, s)]
        out: list[Waypoint] = []
        links = node.next if ahead else node.previous
        for key in links:
            nxt = self._graph.nodes[key]
            start = self._at_start(nxt) if ahead else self._at_end(nxt)
            found = self._walk(start, distance - remaining, ahead)
            out = found + out if len(found) > len(out) else out + found
        return out

    def _next(self, wp: Waypoint, distance: float) -> list[Waypoint]:
        return self._walk(wp, distance, ahead=True)

    def _previous(self, wp: Waypoint, distance: float) -> list[Waypoint]:
        return self._walk(wp, distance, ahead=False)

    def _until_lane_end(self, wp: Waypoint, distance: float, forward: bool) -> list[Waypoint]:
        """CARLA's GetNextUntilLaneEnd (and its mirror): steps of `distance` while a single
        waypoint stays on this road, then one last step to just before the road's end."""
        step = self._next if forward else self._previous
        toward_end = forward == (wp.lane_id < 0)
        sign = 1.0 if toward_end else -1.0
        out: list[Waypoint] = []
        last = wp
        nxt = step(wp, distance)
        # A road linked to itself would loop for ever; a step that wraps around ends it.
        while len(nxt) == 1 and nxt[0].key[0] == wp.key[0] and (nxt[0].s - last.s) * sign > 0:
            out.append(nxt[0])
            last = out[-1]
            nxt = step(last, distance)
        length = self._odr.roads[wp.key[0]].length
        remaining = (length - last.s if toward_end else last.s) - np.finfo(float).eps
        tail = step(last, remaining) if remaining > 0.0 else []
        if tail:
            out.append(tail[0])
        return out

    def _sibling(self, wp: Waypoint, lane_id: int) -> Waypoint | None:
        key = (wp.key[0], wp.key[1], lane_id)
        if lane_id == 0 or key not in self._graph.nodes:
            return None
        return Waypoint(self, *key, wp.s)

    def odr_lane_type(self, key: tuple[str, int, int]) -> LaneType:
        """The OpenDRIVE type of a lane (road id, section index, lane id), also of one the
        lane graph does not hold (the centre lane, lane 0)."""
        road, index, lane = key
        return lane_type_from_odr(self._odr.roads[road].lane_sections[index].lanes[lane].type)

    def _pose(self, wp: Waypoint) -> tuple[float, ...]:
        """x, y, z, yaw, pitch, roll, width of the waypoint's lane centre."""
        road, index, lane = wp.key
        return self._frames[road].pose(index, lane, wp.s)

    def _mark_at(self, road_id: str, index: int, lane_id: int, s: float) -> RoadMark | None:
        section = self._odr.roads[road_id].lane_sections[index]
        lane = section.lanes.get(lane_id)
        if lane is None:
            return None
        current = None
        for mark in lane.road_marks:
            if mark.s_offset <= s - section.s:
                current = mark
        return current

    def _mark_pair(self, wp: Waypoint) -> tuple[RoadMark | None, RoadMark | None]:
        """(this lane's mark, the inner lane's mark) at the waypoint, as CARLA's GetMarkRecord."""
        road, index, lane = wp.key
        inner = lane + 1 if lane < 0 else lane - 1
        return self._mark_at(road, index, lane, wp.s), self._mark_at(road, index, inner, wp.s)

    def _markings(self, wp: Waypoint) -> tuple[LaneMarking | None, LaneMarking | None]:
        own, inner = self._mark_pair(wp)

        def marking(mark: RoadMark | None) -> LaneMarking | None:
            if mark is None:
                return None
            return LaneMarking(
                marking_type_from_odr(mark.type),
                marking_color_from_odr(mark.color),
                lane_change_from_odr(mark.lane_change),
                float(mark.width or 0.0),
            )

        return marking(own), marking(inner) if own is not None else None

    def _lane_change(self, wp: Waypoint) -> LaneChange:
        own, inner = self._mark_pair(wp)
        right = LaneChange.Both if own is None else lane_change_from_odr(own.lane_change)
        left = LaneChange.Both if inner is None else lane_change_from_odr(inner.lane_change)
        swap = {LaneChange.Right: LaneChange.Left, LaneChange.Left: LaneChange.Right}
        lane = wp.lane_id
        if lane > 0:
            right = swap.get(right, right)
        if (lane - 1 if lane > 0 else lane + 1) > 0:
            left = swap.get(left, left)
        return LaneChange((right & LaneChange.Right) | (left & LaneChange.Left))

    # -- landmarks -----------------------------------------------------------------------

    def _build_placements(self) -> list[Placement]:
        """One placement per <signal> and per <signalReference>, by road order then s."""
        homes = {
            signal.id: (road.id, signal)
            for road in self._odr.roads.values()
            for signal in road.signals
        }
        out = []
        for road in self._odr.roads.values():
            here = [(sig.s, sig.t, sig.orientation, sig.id, sig.validities) for sig in road.signals]
            for ref in road.signal_references:  # the parser checks that each names a signal
                here.append((ref.s, ref.t, ref.orientation, ref.id, ref.validities))
            for s, t, orientation, signal_id, validities in sorted(here, key=lambda r: r[0]):
                home, signal = homes[signal_id]
                out.append(
                    Placement(
                        road.id,
                        s,
                        t,
                        orientation,
                        signal,
                        self._signal_transform(home, signal),
                        list(validities) or self._default_validities(road.id, s, orientation),
                    )
                )
        return out

    def _default_validities(self, road_id: str, s: float, orientation: str) -> list[Validity]:
        """CARLA's defaults: '+' all left lanes, '-' all right lanes, otherwise both sides."""
        road = self._odr.roads[road_id]
        ids = list(road.lane_sections[self._frames[road_id].section_index(s)].lanes)
        lo, hi = min(ids), max(ids)
        out = []
        if orientation != "+" and lo <= -1:
            out.append(Validity(lo, -1))
        if orientation != "-" and hi >= 1:
            out.append(Validity(1, hi))
        return out

    def _signal_transform(self, road_id: str, signal) -> Transform:
        """CARLA's ComputeSignalTransform: the reference line at s (no laneOffset), moved t
        across, zOffset up; yaw from heading + hOffset; traffic lights 0.25 m forward."""
        x, y, z, heading = signal_pose(self._frames[road_id].geometry, signal)
        tf = Transform(
            Location(x, -y, z),
            Rotation(math.degrees(signal.pitch), -math.degrees(heading), math.degrees(signal.roll)),
        )
        if signal.type in TRAFFIC_LIGHT_TYPES:
            f = tf.get_forward_vector()
            tf.location = Location(
                tf.location.x + 0.25 * f.x, tf.location.y + 0.25 * f.y, tf.location.z + 0.25 * f.z
            )
        return tf

    def _landmarks_ahead(
        self, wp: Waypoint, distance: float, stop_at_junction: bool, type_: str | None
    ) -> list[Landmark]:
        seen: set[int] = set()
        out = []
        for placement, where, dist in self._signals_in_distance(wp, distance, stop_at_junction):
            if type_ is not None and placement.signal.type != type_:
                continue
            if id(placement) in seen:
                continue
            seen.add(id(placement))
            out.append(Landmark(placement, where, dist))
        return out

    def _signals_in_distance(self, wp: Waypoint, distance: float, stop_at_junction: bool):
        """CARLA's GetSignalsInDistance: (placement, waypoint at it, distance) along the lane."""
        node = self._node(wp)
        forward = node.forward
        relative = wp.s - node.s0
        remaining = node.length - relative if forward else relative
        reach = min(distance, remaining)
        lo, hi = (wp.s, wp.s + reach) if forward else (wp.s - reach, wp.s)
        found = []
        road_places = [p for p in self._placements if p.road == wp.key[0] and lo <= p.s <= hi]
        road_places.sort(key=lambda p: p.s if forward else -p.s)
        for p in road_places:
            if not p.valid_for(wp.lane_id):
                continue
            gap = p.s - wp.s if wp.lane_id < 0 else wp.s - p.s
            where = wp if gap == 0 else self._next(wp, gap)[0]
            found.append((p, where, gap))
        if distance <= remaining:
            return found
        for key in node.next:
            nxt = self._graph.nodes[key]
            if stop_at_junction and self.road_junction(key[0]) != "-1":
                continue
            more = self._signals_in_distance(
                self._at_start(nxt), distance - remaining, stop_at_junction
            )
            found.extend((p, where, gap + remaining) for p, where, gap in more)
        return found

    # -- junctions -----------------------------------------------------------------------

    def _junction_of(self, road_id: str) -> Junction:
        jid = self.road_junction(road_id)
        if jid not in self._junctions:
            self._junctions[jid] = Junction(self, jid, self._junction_box(jid))
        return self._junctions[jid]

    def _junction_lanes(self, junction_id: str, lane_type: int) -> list[LaneNode]:
        junction = self._odr.junctions.get(junction_id)
        if junction is None:
            return []
        return [
            node
            for connection in junction.connections
            for node in self._graph.by_road.get(connection.connecting_road, [])
            if node.lane_type & lane_type
        ]

    def _junction_waypoints(self, junction_id: str, lane_type: LaneType):
        return [
            (self._at_start(node), self._at_end(node))
            for node in self._junction_lanes(junction_id, int(lane_type))
        ]

    def _junction_box(self, junction_id: str) -> BoundingBox:
        """CARLA's junction box: centres of the connecting roads' lanes (LaneType.Any), 11
        samples along each."""
        points = []
        for node in self._junction_lanes(junction_id, int(LaneType.Any)):
            s = np.linspace(node.s0 + 10 * EPSILON, node.s1 - 10 * EPSILON, 11)
            f = self._frames[node.key[0]].frames(node.key[1], s)
            points.append(f.location[:, f.column(node.key[2])])
        if not points:
            return BoundingBox()
        p = np.concatenate(points)
        lo, hi = p.min(axis=0), p.max(axis=0)
        c, e = 0.5 * (lo + hi), 0.5 * (hi - lo)
        return BoundingBox(Location(*map(float, c)), Vector3D(*map(float, e)))

    # -- crosswalks ----------------------------------------------------------------------

    def _crosswalk_corners(self, road_id: str, obj: RoadObject) -> list[Location]:
        index = self._frames[road_id].section_index(obj.s)
        f = self._frames[road_id].frames(index, np.array([obj.s]))
        c = f.column(0)
        base = Transform(
            Location(*map(float, f.location[0, c])),
            Rotation(float(f.pitch[0, c]), float(f.yaw[0, c]), float(f.roll[0, c])),
        )
        pivot = base.copy()
        pivot.rotation.yaw -= math.degrees(obj.hdg) + 90.0
        centre = pivot.transform(Vector3D(obj.t, 0.0, 0.0))
        pivot = base.copy()
        pivot.location = Location(centre.x, centre.y, centre.z)
        pivot.rotation.yaw -= math.degrees(obj.hdg)
        out = []
        for corner in obj.outlines[0].corners:
            u = getattr(corner, "u", None)
            if u is None:
                continue
            v = Vector3D(u - 1.0 if u < 0 else u + 1.0, corner.v, corner.z)
            p = pivot.transform(v)
            out.append(Location(p.x, p.y, p.z))
        return out

    # -- index building ------------------------------------------------------------------

    def _build_segments(self) -> LaneSegments:
        """Centre-line segments of every lane, sampled per lane section <= 1 m apart in s."""
        parts: dict[str, list[np.ndarray]] = {f: [] for f in LaneSegments.__slots__}
        for road_id, frames in self._frames.items():
            for index, section in enumerate(self._odr.roads[road_id].lane_sections):
                s1 = self._graph.section_end(road_id, index)
                cols = [c for c, i in enumerate(section.lanes) if i != 0]
                if s1 <= section.s or not cols:
                    continue
                n = max(2, math.ceil((s1 - section.s) / _SAMPLE_STEP) + 1)
                s = np.linspace(section.s, s1, n)
                f = frames.frames(index, s)
                ids = [self._node_index[(road_id, index, int(f.lane_ids[c]))] for c in cols]
                loc = f.location[:, cols]
                yaw = np.degrees(np.unwrap(np.radians(f.yaw[:, cols]), axis=0))
                # A jump in the file's profiles (a laneOffset step, say) is no lane.
                step = np.linalg.norm(np.diff(loc, axis=0), axis=2)
                keep = (step <= _JUMP_FACTOR * np.diff(s)[:, None] + _JUMP_SLACK).T.ravel()
                # one row per segment, lane by lane (each lane's n - 1 segments in turn)
                columns = {
                    "a": _lane_major(loc[:-1]),
                    "b": _lane_major(loc[1:]),
                    "node": np.repeat(np.array(ids, dtype=np.int64), n - 1),
                    "s_a": np.tile(s[:-1], len(cols)),
                    "s_b": np.tile(s[1:], len(cols)),
                    "width": _lane_major(f.width[:-1, cols]),
                    "lateral": _lane_major(f.lateral[:-1, cols]),
                    "yaw_a": _lane_major(yaw[:-1]),
                    "yaw_b": _lane_major(yaw[1:]),
                }
                for name, rows in columns.items():
                    parts[name].append(rows[keep])
        if not parts["a"]:
            shapes = {"a": (0, 3), "b": (0, 3), "lateral": (0, 3)}
            return LaneSegments(
                *(
                    np.zeros(shapes.get(f, (0,)), dtype=np.int64 if f == "node" else float)
                    for f in LaneSegments.__slots__
                )
            )
        return LaneSegments(*(np.concatenate(parts[f]) for f in LaneSegments.__slots__))

    def _grid(self, lane_type: int) -> SegmentGrid:
        return self.derived(("lane grid", lane_type), lambda: self._build_grid(lane_type))

    def _build_grid(self, lane_type: int) -> SegmentGrid:
        types = np.array([int(self._graph.nodes[k].lane_type) for k in self.lane_keys])
        mask = (types[self._segments.node] & lane_type) > 0 if len(types) else np.zeros(0, bool)
        return SegmentGrid(self._segments.subset(mask))

    def _ground(self) -> SegmentGrid:
        return self.derived("ground grid", self._build_ground_grid)

    def _build_ground_grid(self) -> SegmentGrid:
        sg = self._segments.subset(self._segments.width > 0.0)
        reach = float(sg.width.max()) / 2.0 + _SAMPLE_STEP if len(sg) else 0.0
        return SegmentGrid(sg, cell=max(4.0, reach), levels=1)


def _lane_major(values: np.ndarray) -> np.ndarray:
    """(N, L, ...) samples by lane as rows (L * N, ...): lane 0's N samples, then lane 1's."""
    return values.swapaxes(0, 1).reshape(-1, *values.shape[2:])
