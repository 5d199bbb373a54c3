"""The lane graph CARLA builds from an OpenDRIVE document: lanes, their successors and predecessors.

A lane is addressed as CARLA does, by (road, lane section index, lane id). Its
next lanes follow CARLA's MapBuilder rules:

- a lane with id <= 0 drives along the road (toward the successor), a lane with
  id > 0 against it (toward the predecessor);
- inside a road the next lane is the lane named by the lane's successor (or
  predecessor) link in the neighbouring section; no link, no next lane;
- across roads the next lane is the linked lane of the linked road, entered at
  its start when that lane id is <= 0 and at its end otherwise;
- into a junction, every laneLink of a connection whose incoming road is this
  road and whose `from` is this lane gives a next lane on the connecting road.

Previous lanes are the inverse of next lanes. Roads, sections and lanes are
visited in document order, lanes in ascending id, so every list is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from world.map.lane_enums import LaneType, lane_type_from_odr
from world.map.opendrive import Lane, OpenDrive

__all__ = ["LaneKey", "LaneNode", "RoadGraph"]

LaneKey = tuple[str, int, int]
"""(road id, lane section index, lane id)."""


@dataclass(slots=True)
class LaneNode:
    """One non-centre lane of one lane section, with its s range and graph neighbours."""

    key: LaneKey
    lane: Lane
    lane_type: LaneType
    s0: float
    s1: float
    next: list[LaneKey] = field(default_factory=list)
    previous: list[LaneKey] = field(default_factory=list)

    @property
    def forward(self) -> bool:
        """True when traffic on this lane moves toward increasing s (lane id < 0)."""
        return self.key[2] <= 0

    @property
    def length(self) -> float:
        return self.s1 - self.s0


class RoadGraph:
    """Every lane of a document as a LaneNode, linked as CARLA links them."""

    def __init__(self, odr: OpenDrive) -> None:
        self.odr = odr
        self.nodes: dict[LaneKey, LaneNode] = {}
        self.by_road: dict[str, list[LaneNode]] = {road_id: [] for road_id in odr.roads}
        for road in odr.roads.values():
            for index, section in enumerate(road.lane_sections):
                s1 = self.section_end(road.id, index)
                for lane_id, lane in section.lanes.items():
                    if lane_id == 0:
                        continue
                    key = (road.id, index, lane_id)
                    node = LaneNode(key, lane, lane_type_from_odr(lane.type), section.s, s1)
                    self.nodes[key] = node
                    self.by_road[road.id].append(node)
        for node in self.nodes.values():
            node.next = [k for k in self._next_keys(node) if k in self.nodes]
        for node in self.nodes.values():
            for key in node.next:
                self.nodes[key].previous.append(node.key)

    def section_end(self, road_id: str, index: int) -> float:
        """End s of a lane section as CARLA measures lanes: the next section's start, or the
        road's length for the last section."""
        sections = self.odr.roads[road_id].lane_sections
        return (
            sections[index + 1].s if index + 1 < len(sections) else self.odr.roads[road_id].length
        )

    def _edge_key(self, road_id: str, lane_id: int) -> LaneKey | None:
        """The lane entered from another road: first section for ids <= 0, else the last."""
        road = self.odr.roads.get(road_id)
        if road is None or not road.lane_sections:
            return None
        index = 0 if lane_id <= 0 else len(road.lane_sections) - 1
        return (road_id, index, lane_id)

    def _next_keys(self, node: LaneNode) -> list[LaneKey]:
        road_id, index, lane_id = node.key
        road = self.odr.roads[road_id]
        forward = lane_id <= 0
        link_lane = node.lane.successor if forward else node.lane.predecessor
        inner_section = index + 1 < len(road.lane_sections) if forward else index > 0
        if inner_section:
            if not link_lane:
                return []
            return [(road_id, index + 1 if forward else index - 1, link_lane)]
        link = road.successor if forward else road.predecessor
        if link is None:
            return []
        if link.element_type == "junction":
            junction = self.odr.junctions.get(link.element_id)
            if junction is None:
                return []
            keys = []
            for connection in junction.connections:
                if connection.incoming_road != road_id:
                    continue
                for lane_link in connection.lane_links:
                    if lane_link.from_lane == lane_id:
                        key = self._edge_key(connection.connecting_road, lane_link.to_lane)
                        if key is not None:
                            keys.append(key)
            return keys
        if not link_lane:
            return []
        key = self._edge_key(link.element_id, link_lane)
        return [] if key is None else [key]
