"""Junction control (traffic lights with controllers, stop and yield signs), speed-limit signs
and crosswalks, placed on the streets where they meet a junction.

Signal types are the ones CARLA's maps use: 1000001 traffic light, 206 stop, 205 yield, 274
maximum speed (subtype and value the limit, in km/h). A sign stands on the sidewalk at the
right of the traffic it governs, and its validity covers that traffic's driving lanes.
"""

from __future__ import annotations

from world.towngen.junctions import lane_id_at, node_end_of
from world.towngen.layout import SIGNALISED, STOP, YIELD, Layout, Node
from world.towngen.model import Controller, Crosswalk, Junction, Road, Signal

TRAFFIC_LIGHT, STOP_SIGN, YIELD_SIGN, MAX_SPEED = "1000001", "206", "205", "274"
SIGN_BEFORE_JUNCTION = 4.0  # m from the street's end to a junction's light or sign
SPEED_SIGN_AFTER_JUNCTION = 6.0  # m from the street's start to its speed-limit sign
CROSSWALK_LENGTH = 3.0
CROSSWALK_GAP = 0.5  # m between the street's end and its crosswalk


def minor_arms(layout: Layout, node: Node) -> tuple[str, ...]:
    """The arms that give way at a stop or yield junction: the stem of a T, else the street
    with fewer lanes (north-south on a tie)."""
    if len(node.arms) == 3:
        return tuple(arm for arm in node.arms if _opposite(arm) not in node.arms)
    lanes_ew = layout.row_lanes[node.j]
    lanes_ns = layout.col_lanes[node.i]
    return ("E", "W") if lanes_ew < lanes_ns else ("N", "S")


def _opposite(arm: str) -> str:
    return {"E": "W", "W": "E", "N": "S", "S": "N"}[arm]


def _placement(road: Road, lanes: int, arm: str, distance: float, inbound: bool, width: float):
    """(s, t, orientation, from_lane, to_lane) of a sign `distance` m from the end of the arm's
    street that touches the node, for traffic driving into the node (inbound) or out of it, on
    the sidewalk at that traffic's right."""
    s = distance if node_end_of(arm) == "start" else road.length - distance
    along_s = lane_id_at(arm, 1, inbound) < 0
    offset = lanes * road.right[0].width + 0.5 * width
    t = -offset if along_s else offset
    lanes_range = (-lanes, -1) if along_s else (1, lanes)
    return s, t, "+" if along_s else "-", lanes_range[0], lanes_range[1]


def add_junction_control(
    layout: Layout,
    node: Node,
    junction: Junction,
    street_roads: dict[str, Road],
    next_id,
) -> None:
    """Lights (one controller each, switched in turn) or signs at the node's approaches, and a
    crosswalk across each approach."""
    spec = layout.spec
    if node.kind == SIGNALISED:
        governed = node.arms
    elif node.kind in (STOP, YIELD):
        governed = minor_arms(layout, node)
    else:
        return  # a plain corner between two streets: nothing to give way to, no one crossing
    for arm in node.arms:
        street = layout.street_at(node.key, arm)[1]
        road = street_roads[arm]
        if arm in governed:
            s, t, orientation, lo, hi = _placement(
                road, street.lanes, arm, SIGN_BEFORE_JUNCTION, True, spec.sidewalk_width
            )
            signal = _control_signal(node.kind, next_id(), s, t, orientation, lo, hi)
            road.signals.append(signal)
            if node.kind == SIGNALISED:
                sequence = len(junction.controllers)
                junction.controllers.append(Controller(next_id(), sequence, (signal.id,)))
        along = CROSSWALK_GAP + 0.5 * CROSSWALK_LENGTH
        s = along if node_end_of(arm) == "start" else road.length - along
        road.crosswalks.append(
            Crosswalk(next_id(), s, 0.0, CROSSWALK_LENGTH, 2.0 * street.lanes * spec.lane_width)
        )


def _control_signal(kind, signal_id, s, t, orientation, lo, hi) -> Signal:
    if kind == SIGNALISED:
        return Signal(
            signal_id, "traffic_light", s, t, orientation, True, TRAFFIC_LIGHT, "-1", -1.0,
            lo, hi, z_offset=0.0, height=1.16, width=0.52,
        )  # fmt: skip
    code, name = (STOP_SIGN, "stop") if kind == STOP else (YIELD_SIGN, "yield")
    return Signal(
        signal_id, name, s, t, orientation, False, code, "-1", -1.0, lo, hi,
        z_offset=2.4, height=1.0, width=1.0,
    )  # fmt: skip


def add_speed_signs(layout: Layout, street_index: int, road: Road, next_id) -> None:
    """A maximum-speed sign for each direction, just after the street begins for that traffic."""
    street = layout.streets[street_index]
    start_arm = "E" if street.axis == "h" else "N"
    end_arm = "W" if street.axis == "h" else "S"
    for arm in (start_arm, end_arm):
        s, t, orientation, lo, hi = _placement(
            road,
            street.lanes,
            arm,
            SPEED_SIGN_AFTER_JUNCTION,
            False,
            layout.spec.sidewalk_width,
        )
        value = street.speed_kmh
        road.signals.append(
            Signal(
                next_id(), f"speed_{value}", s, t, orientation, False, MAX_SPEED, str(value),
                float(value), lo, hi, z_offset=2.0, height=0.8, width=0.8, unit="km/h",
            )
        )  # fmt: skip
