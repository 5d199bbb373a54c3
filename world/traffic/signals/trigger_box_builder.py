"""The road boxes of a map's lights and signs, built from its signal references and lanes.

For every reference to a light's signal (the signal's own road and each
`<signalReference>`, with their lane validities) and every driving lane it
names, a box goes 3 m before the reference against the lane's traffic: 3 m
long, half the lane wide, 2 m high, turned with the lane (widths are taken at
the reference, as CARLA's sign components take them). On a junction lane
with exactly one predecessor lane outside the junction, the box moves to that
predecessor, 3 m before its end. The offset follows world.traffic.signals.trigger_boxes'
direction and section rules.

Speed-limit signs get a cube of half-size 0.9 * lane width / 2 on each lane
they name, offset by that half-size; stop and yield signs get such a cube 3 m
before the sign (their effect box). A stop or yield reference on a junction
road also gets check boxes (CARLA's sign components): on every driving lane of
each junction road that crosses it (their lane centres intersect) and does not
come from a road the sign's lanes come from, cubes of that lane's size every
2 half-sizes along the lane from its start, and back along the lanes before it
for 0.1 s at the road's speed (30 km/h where the road gives none).

A speed sign made from a `Speed_NN` road object names no lanes: it applies to
the driving lanes on its side of the road (orientation "-": the right lanes,
"+": the left lanes, else both) at its s.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from world.geometry import Vector3D
from world.map.lane_enums import LaneType
from world.map.map import Map
from world.map.road_graph import LaneNode, RoadGraph
from world.map.waypoint import Waypoint
from world.traffic.signals.placement import LightPlacement, SignPlacement
from world.traffic.signals.system import BOX_CHECK, BOX_EFFECT, BOX_LIGHT, BOX_SPEED
from world.traffic.signals.trigger_boxes import (
    LIGHT_BOX_EXTENT,
    LIGHT_BOX_OFFSET,
    TriggerBox,
    trigger_s,
)

__all__ = ["ANTICIPATION_TIME", "BOX_WIDTH_SHARE", "TriggerBoxBuilder", "lane_waypoints"]

BOX_WIDTH_SHARE = 0.9  # a sign's cube is 0.9 of the lane wide
ANTICIPATION_TIME = 0.1  # s of driving covered by check boxes before a junction road
DEFAULT_SPEED_KMH = 30.0
_CENTRE_STEP = 1.0  # m between lane-centre samples for the crossing test


def lane_waypoints(
    world_map: Map, road_id: str | int, s: float, validities: list[tuple[int, int]]
) -> Iterator[Waypoint]:
    """The waypoint at (road, s) of each lane of the validity ranges (from -> to, lane 0 left
    out), in order, where the lane exists; an s at the road's very end is taken just inside."""
    road = world_map.opendrive.roads[str(road_id)]
    s = min(s, math.nextafter(road.length, 0.0))
    for lo, hi in validities:
        step = 1 if hi >= lo else -1
        for lane in range(lo, hi + step, step):
            wp = None if lane == 0 else world_map.get_waypoint_xodr(road.id, lane, s)
            if wp is not None:
                yield wp


class TriggerBoxBuilder:
    """Builds boxes on one map; keeps its lane graph for the predecessor moves."""

    def __init__(self, world_map: Map) -> None:
        self.map = world_map
        self.odr = world_map.opendrive
        self.graph = RoadGraph(self.odr)

    # -- lanes a reference names ------------------------------------------------------

    def _lanes_at(self, road_id: str, s: float, validities) -> Iterator[Waypoint]:
        """Driving-lane waypoints at (road, s) for each lane of the validity ranges, in order."""
        for wp in lane_waypoints(self.map, road_id, s, validities):
            if wp.lane_type == LaneType.Driving:
                yield wp

    def _references(self, signal_id: str) -> Iterator[tuple[str, float, list[tuple[int, int]]]]:
        for landmark in self.map.get_all_landmarks_from_id(signal_id):
            yield str(landmark.road_id), landmark.s, landmark.get_lane_validities()

    def _box(
        self, node: LaneNode, s: float, offset: float, extent: Vector3D, owner: int, kind: int
    ) -> TriggerBox:
        road = self.odr.roads[node.key[0]]
        centre = trigger_s(s, node.key[2], road.rule == "LHT", node.s0, node.s1, offset)
        return TriggerBox(Waypoint(self.map, *node.key, centre).transform, extent, owner, kind)

    def _box_lane(self, wp: Waypoint) -> tuple[LaneNode, float]:
        """The lane (and s) that receives a light's box: a junction lane's single outside
        predecessor, at its end, else the waypoint's own lane."""
        node = self.graph.nodes[wp.key]
        if self.odr.roads[node.key[0]].junction != "-1" and len(node.previous) == 1:
            before = self.graph.nodes[node.previous[0]]
            if self.odr.roads[before.key[0]].junction == "-1":
                return before, before.s1 if before.forward else before.s0
        return node, wp.s

    # -- boxes ------------------------------------------------------------------------

    def light_boxes(self, lights: list[LightPlacement]) -> list[TriggerBox]:
        hx, hy, hz = LIGHT_BOX_EXTENT
        out = []
        for index, light in enumerate(lights):
            for road_id, s, validities in self._references(light.signal_id):
                for wp in self._lanes_at(road_id, s, validities):
                    node, at = self._box_lane(wp)
                    extent = Vector3D(hx, hy * wp.lane_width, hz)
                    out.append(self._box(node, at, LIGHT_BOX_OFFSET, extent, index, BOX_LIGHT))
        return out

    def sign_boxes(self, signs: list[SignPlacement]) -> list[TriggerBox]:
        out = []
        for index, sign in enumerate(signs):
            speed = sign.speed_limit is not None
            kind = BOX_SPEED if speed else BOX_EFFECT
            if sign.from_object:
                places = [(sign.road_id, sign.s, self._side_lanes(sign))]
            else:
                places = list(self._references(sign.opendrive_id))
            for road_id, s, validities in places:
                sources: list[str] = []
                for wp in self._lanes_at(road_id, s, validities):
                    half = 0.5 * BOX_WIDTH_SHARE * wp.lane_width
                    offset = half if speed else LIGHT_BOX_OFFSET
                    node = self.graph.nodes[wp.key]
                    cube = Vector3D(half, half, half)
                    out.append(self._box(node, wp.s, offset, cube, index, kind))
                    sources += [k[0] for k in node.previous if k[0] not in sources]
                if not speed and self.odr.roads[road_id].junction != "-1":
                    out += self._check_boxes(road_id, sources, index)
        return out

    # -- check boxes --------------------------------------------------------------------

    def _centre_line(self, node: LaneNode) -> list[tuple[float, float]]:
        n = max(2, int((node.s1 - node.s0) / _CENTRE_STEP) + 1)
        out = []
        for k in range(n):
            s = node.s0 + (node.s1 - node.s0) * min(max(k / (n - 1), 1e-6), 1.0 - 1e-6)
            loc = Waypoint(self.map, *node.key, s).transform.location
            out.append((loc.x, loc.y))
        return out

    def _driving_lanes(self, road_id: str) -> list[LaneNode]:
        return [n for n in self.graph.by_road[road_id] if n.lane_type == LaneType.Driving]

    def _conflicts(self, road_id: str) -> list[str]:
        """The other roads of the junction whose driving-lane centres cross this road's."""
        junction = self.odr.roads[road_id].junction
        mine = [self._centre_line(n) for n in self._driving_lanes(road_id)]
        out = []
        for other in self.odr.roads.values():
            if other.id == road_id or other.junction != junction:
                continue
            theirs = [self._centre_line(n) for n in self._driving_lanes(other.id)]
            if any(_polylines_cross(a, b) for a in mine for b in theirs):
                out.append(other.id)
        return out

    def _check_boxes(self, road_id: str, sources: list[str], owner: int) -> list[TriggerBox]:
        out = []
        for conflict in self._conflicts(road_id):
            for node in self._driving_lanes(conflict):
                if any(k[0] in sources for k in node.previous):
                    continue
                start = node.s0 + 1e-6 if node.forward else node.s1 - 1e-6
                first = Waypoint(self.map, *node.key, start)
                half = 0.5 * BOX_WIDTH_SHARE * first.lane_width
                cube = Vector3D(half, half, half)
                wp = first
                while True:
                    out.append(TriggerBox(wp.transform, cube, owner, BOX_CHECK))
                    ahead = wp.next(2.0 * half)
                    if len(ahead) != 1 or ahead[0].key[0] != conflict:
                        break
                    wp = ahead[0]
                queue = [(ANTICIPATION_TIME, w) for w in first.previous(2.0 * half)]
                while queue:
                    left, wp = queue.pop(0)
                    out.append(TriggerBox(wp.transform, cube, owner, BOX_CHECK))
                    road = self.odr.roads[wp.key[0]]
                    kmh = road.speed_limit_kmh(wp.s) or DEFAULT_SPEED_KMH
                    left -= half / (kmh / 3.6)
                    if left > 0.0:
                        queue += [(left, w) for w in wp.previous(2.0 * half)]
        return out

    def _side_lanes(self, sign: SignPlacement) -> list[tuple[int, int]]:
        road = self.odr.roads[sign.road_id]
        section = road.lane_sections[
            max(i for i, sec in enumerate(road.lane_sections) if sec.s <= sign.s)
        ]
        ids = list(section.lanes)
        obj = next(o for o in road.objects if o.id == sign.opendrive_id)
        out = []
        if obj.orientation != "+" and min(ids) < 0:
            out.append((-1, min(ids)))
        if obj.orientation != "-" and max(ids) > 0:
            out.append((1, max(ids)))
        return out


def _polylines_cross(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> bool:
    """Whether two 2D polylines have a pair of segments that properly intersect."""
    pa, pb = np.array(a), np.array(b)
    p, r = pa[:-1, None, :], (pa[1:] - pa[:-1])[:, None, :]
    q, t = pb[None, :-1, :], (pb[1:] - pb[:-1])[None, :, :]
    denom = r[..., 0] * t[..., 1] - r[..., 1] * t[..., 0]
    d = q - p
    with np.errstate(divide="ignore", invalid="ignore"):
        u = (d[..., 0] * t[..., 1] - d[..., 1] * t[..., 0]) / denom
        v = (d[..., 0] * r[..., 1] - d[..., 1] * r[..., 0]) / denom
    hit = (np.abs(denom) > 1e-12) & (u >= 0.0) & (u <= 1.0) & (v >= 0.0) & (v <= 1.0)
    return bool(hit.any())
