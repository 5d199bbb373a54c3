"""Junctions: one per crossing, a connecting road for every allowed movement and lane pair.

Movements are straight on, left and right (no U-turns); `lane_pairs` says which lanes each
joins. A connecting road's reference line joins the two streets' centre lines (a straight
line, or a quarter arc with a straight piece before or after it); its one driving lane is
moved out to the lanes it joins by a smooth laneOffset. The outermost right turn also carries the
corner's sidewalk.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from world.map.opendrive.model import Connection, Junction, LaneLink, Road, RoadLink
from world.map.towngen.layout import ARM_HEADING, Layout, Node, Street, arm_point
from world.map.towngen.path import PathBuilder
from world.map.towngen.records import NO_MARK, lane, road
from world.map.towngen.roads import smooth_shift

STRAIGHT, LEFT, RIGHT = "straight", "left", "right"


@dataclass(frozen=True)
class Movement:
    """One connecting road's job: from lane `lane_in` of arm `arm_in` to `lane_out` of `arm_out`
    (lane indices count from the centre line, 1 = innermost)."""

    arm_in: str
    arm_out: str
    turn: str
    lane_in: int
    lane_out: int


def turn_of(arm_in: str, arm_out: str) -> str | None:
    """straight, left or right for a vehicle entering on `arm_in` and leaving on `arm_out`."""
    delta = (ARM_HEADING[arm_out] - ARM_HEADING[arm_in] - math.pi) % (2.0 * math.pi)
    for turn, angle in ((STRAIGHT, 0.0), (LEFT, 0.5 * math.pi), (RIGHT, 1.5 * math.pi)):
        if abs(delta - angle) < 1e-9:
            return turn
    return None


def lane_pairs(turn: str, lanes_in: int, lanes_out: int) -> list[tuple[int, int]]:
    """The (incoming, outgoing) lane indices a movement joins. Straight on keeps the index. A
    turn joins a staircase of pairs from (1, 1) to (lanes_in, lanes_out), stepping in both
    indices by turns: left turns step the outgoing index first (lane k reaches k and k + 1),
    right turns the incoming one (lane k reaches k and k - 1). The pairs never cross, every lane
    on either side takes part, and lanes change index only at turns, so every driving lane of
    the town can reach every other one by lane links alone."""
    if turn == STRAIGHT:
        return [(k, k) for k in range(1, lanes_in + 1)]
    i = j = 1
    pairs = [(i, j)]
    step_out = turn == LEFT
    while (i, j) != (lanes_in, lanes_out):
        if (step_out and j < lanes_out) or i == lanes_in:
            j += 1
        else:
            i += 1
        pairs.append((i, j))
        step_out = not step_out
    return pairs


def movements(layout: Layout, node: Node) -> list[Movement]:
    """Every movement through a junction, by incoming arm, then outgoing arm, then lane."""
    found = []
    for arm_in in node.arms:
        lanes_in = layout.street_at(node.key, arm_in)[1].lanes
        for arm_out in node.arms:
            turn = turn_of(arm_in, arm_out) if arm_out != arm_in else None
            if turn is None:
                continue
            lanes_out = layout.street_at(node.key, arm_out)[1].lanes
            for lane_in, lane_out in lane_pairs(turn, lanes_in, lanes_out):
                found.append(Movement(arm_in, arm_out, turn, lane_in, lane_out))
    return found


def lane_id_at(arm: str, index: int, inbound: bool) -> int:
    """OpenDRIVE lane id of lane `index` on the street of `arm`, for traffic driving into the
    node (inbound) or out of it. Streets run east/north, so the node is the start of the
    streets on arms E and N: traffic leaving along s uses right lanes (negative ids)."""
    node_is_start = arm in ("E", "N")
    along_s = node_is_start != inbound
    return -index if along_s else index


def node_end_of(arm: str) -> str:
    """Which end ("start" or "end") of the arm's street touches the node."""
    return "start" if arm in ("E", "N") else "end"


def _sidewalk_of(outer_lane: int, street: Street) -> int:
    """The id of the sidewalk beside driving lane `outer_lane` (past the parking lane, if any)."""
    step = 1 + int(street.parking)
    return outer_lane + (step if outer_lane > 0 else -step)


def build_junction(
    layout: Layout, node: Node, junction_id: str, street_ids: list[str], next_id
) -> tuple[Junction, list[Road]]:
    """The junction element of a crossing and its connecting roads (ids from `next_id()`)."""
    spec = layout.spec
    junction = Junction(junction_id, f"Junction {node.i},{node.j}")
    roads = []
    for movement in movements(layout, node):
        index_in, street_in = layout.street_at(node.key, movement.arm_in)
        index_out, street_out = layout.street_at(node.key, movement.arm_out)
        road_id = next_id()
        x, y = arm_point(node, movement.arm_in, node.extent[movement.arm_in], 0.0)
        path = PathBuilder(x, y, ARM_HEADING[movement.arm_in] + math.pi)
        reach_in, reach_out = node.extent[movement.arm_in], node.extent[movement.arm_out]
        if movement.turn == STRAIGHT:
            path.line(reach_in + reach_out)
        else:
            path.quarter_turn(reach_in, reach_out, 1 if movement.turn == LEFT else -1)
        offset = smooth_shift(
            -(movement.lane_in - 1) * spec.lane_width,
            -(movement.lane_out - 1) * spec.lane_width,
            path.s,
        )
        lane_from = lane_id_at(movement.arm_in, movement.lane_in, inbound=True)
        lane_to = lane_id_at(movement.arm_out, movement.lane_out, inbound=False)
        lanes = [lane(-1, "driving", spec.lane_width, NO_MARK, lane_from, lane_to)]
        links = [LaneLink(lane_from, -1)]
        outermost = (
            movement.turn == RIGHT
            and movement.lane_in == street_in.lanes
            and movement.lane_out == street_out.lanes
        )
        if outermost:
            walk_from = _sidewalk_of(lane_from, street_in)
            walk_to = _sidewalk_of(lane_to, street_out)
            walk = lane(
                -2,
                "sidewalk",
                spec.sidewalk_width,
                NO_MARK,
                walk_from,
                walk_to,
                spec.sidewalk_height,
            )
            lanes.append(walk)
            links.append(LaneLink(walk_from, -2))
        roads.append(
            road(
                road_id,
                f"Junction {node.i},{node.j} {movement.arm_in}>{movement.arm_out} "
                f"lane {movement.lane_in}>{movement.lane_out}",
                junction_id,
                path.geometries,
                lanes,
                NO_MARK,
                min(street_in.speed_kmh, street_out.speed_kmh),
                (node.z, 0.0, 0.0, 0.0),
                RoadLink("road", street_ids[index_in], node_end_of(movement.arm_in)),
                RoadLink("road", street_ids[index_out], node_end_of(movement.arm_out)),
                lane_offset=offset,
            )
        )
        junction.connections.append(
            Connection(
                str(len(junction.connections)), street_ids[index_in], road_id, "start", links
            )
        )
    return junction, roads
