"""The road boxes of a map's lights and signs, built from its signal references and lanes.

For every reference to a light's signal (the signal's own road and each
`<signalReference>`, with their lane validities) and every driving lane it
names, a box goes 3 m before the reference against the lane's traffic: 3 m
long, half the lane wide, 2 m high, turned with the lane (widths are taken at
the reference, as CARLA's sign components take them). On a junction lane
with exactly one predecessor lane outside the junction, the box moves to that
predecessor, 3 m before its end. The offset follows world.trigger_boxes'
direction and section rules.

Speed-limit signs get a cube of half-size 0.9 * lane width / 2 on each lane
they name, offset by that half-size; stop and yield signs get such a cube 3 m
before the sign (their effect box). A speed sign made from a `Speed_NN` road
object names no lanes: it applies to the driving lanes on its side of the road
(orientation "-": the right lanes, "+": the left lanes, else both) at its s.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from world.geometry import Vector3D
from world.lane_enums import LaneType
from world.map import Map
from world.road_graph import LaneNode, RoadGraph
from world.traffic import BOX_EFFECT, BOX_LIGHT, BOX_SPEED
from world.traffic_placement import LightPlacement, SignPlacement
from world.trigger_boxes import LIGHT_BOX_EXTENT, LIGHT_BOX_OFFSET, TriggerBox, trigger_s
from world.waypoint import Waypoint

__all__ = ["BOX_WIDTH_SHARE", "TriggerBoxBuilder"]

BOX_WIDTH_SHARE = 0.9  # a sign's cube is 0.9 of the lane wide


class TriggerBoxBuilder:
    """Builds boxes on one map; keeps its lane graph for the predecessor moves."""

    def __init__(self, world_map: Map) -> None:
        self.map = world_map
        self.odr = world_map.opendrive
        self.graph = RoadGraph(self.odr)

    # -- lanes a reference names ------------------------------------------------------

    def _lanes_at(self, road_id: str, s: float, validities) -> Iterator[Waypoint]:
        """Driving-lane waypoints at (road, s) for each lane of the validity ranges, in order;
        a reference at the road's very end is taken just inside it."""
        s = min(s, math.nextafter(self.odr.roads[road_id].length, 0.0))
        for lo, hi in validities:
            step = 1 if hi >= lo else -1
            for lane in range(lo, hi + step, step):
                if lane == 0:
                    continue
                wp = self.map.get_waypoint_xodr(road_id, lane, s)
                if wp is not None and wp.lane_type == LaneType.Driving:
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
                for wp in self._lanes_at(road_id, s, validities):
                    half = 0.5 * BOX_WIDTH_SHARE * wp.lane_width
                    offset = half if speed else LIGHT_BOX_OFFSET
                    node = self.graph.nodes[wp.key]
                    cube = Vector3D(half, half, half)
                    out.append(self._box(node, wp.s, offset, cube, index, kind))
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
