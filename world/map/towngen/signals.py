"""Junction control (traffic lights with controllers, stop and yield signs), speed-limit signs
and crosswalks, placed on the streets where they meet a junction.

Signal types are the ones CARLA's maps use: 1000001 traffic light, 206 stop, 205 yield, 274
maximum speed (subtype and value the limit, in km/h). A sign stands on the sidewalk at the
right of the traffic it governs, and its validity covers that traffic's driving lanes.
"""

from __future__ import annotations

from world.map.opendrive.model import (
    Control,
    Controller,
    CornerLocal,
    Junction,
    JunctionController,
    Outline,
    Road,
    RoadObject,
    Signal,
    Validity,
)
from world.map.towngen.junctions import lane_id_at, node_end_of
from world.map.towngen.layout import SIGNALISED, STOP, YIELD, Layout, Node, Street
from world.map.towngen.records import speed_kmh

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


def _sign(
    layout: Layout,
    street: Street,
    road: Road,
    arm: str,
    distance: float,
    inbound: bool,
    **attributes,
) -> Signal:
    """A sign `distance` m from the end of the arm's street that touches the node, for the
    traffic driving into the node (inbound) or out of it: on the sidewalk at that traffic's
    right, facing it, valid for its driving lanes."""
    spec = layout.spec
    lanes = street.lanes
    s = distance if node_end_of(arm) == "start" else road.length - distance
    along_s = lane_id_at(arm, 1, inbound) < 0
    offset = lanes * spec.lane_width + 0.5 * spec.sidewalk_width
    validity = Validity(-lanes, -1) if along_s else Validity(1, lanes)
    return Signal(
        s=s,
        t=-offset if along_s else offset,
        orientation="+" if along_s else "-",
        country="OpenDRIVE",
        validities=[validity],
        **attributes,
    )


def add_junction_control(
    layout: Layout,
    node: Node,
    junction: Junction,
    arm_roads: dict[str, tuple[Street, Road]],
    next_id,
) -> list[Controller]:
    """Lights (one controller each, switched in turn) or signs at the node's approaches, and a
    crosswalk across each approach; returns the lights' controllers."""
    if node.kind == SIGNALISED:
        governed = node.arms
    elif node.kind in (STOP, YIELD):
        governed = minor_arms(layout, node)
    else:
        return []  # a plain corner between two streets: nothing to give way to, no one crossing
    controllers = []
    for arm in node.arms:
        street, road = arm_roads[arm]
        if arm in governed:
            signal = _sign(
                layout,
                street,
                road,
                arm,
                SIGN_BEFORE_JUNCTION,
                True,
                id=next_id(),
                **_CONTROL_SIGNS[node.kind],
            )
            road.signals.append(signal)
            if node.kind == SIGNALISED:
                controller = Controller(next_id(), "", len(controllers), [Control(signal.id, "0")])
                controller.name = f"ctrl{controller.id}"
                controllers.append(controller)
                junction.controllers.append(
                    JunctionController(controller.id, "0", controller.sequence)
                )
        road.objects.append(_crosswalk(layout, street, road, arm, next_id()))
    return controllers


_CONTROL_SIGNS = {
    SIGNALISED: dict(
        name="traffic_light",
        dynamic=True,
        type=TRAFFIC_LIGHT,
        subtype="-1",
        value=-1.0,
        height=1.16,
        width=0.52,
    ),
    **{
        kind: dict(
            name=kind, type=code, subtype="-1", value=-1.0, z_offset=2.4, height=1.0, width=1.0
        )
        for kind, code in ((STOP, STOP_SIGN), (YIELD, YIELD_SIGN))
    },
}


def _crosswalk(layout: Layout, street: Street, road: Road, arm: str, object_id: str) -> RoadObject:
    """A crosswalk over the street's driving lanes, CROSSWALK_GAP m from the junction."""
    along = CROSSWALK_GAP + 0.5 * CROSSWALK_LENGTH
    s = along if node_end_of(arm) == "start" else road.length - along
    width = 2.0 * street.lanes * layout.spec.lane_width
    du, dv = 0.5 * CROSSWALK_LENGTH, 0.5 * width
    corners = [CornerLocal(u, v) for u, v in ((du, dv), (-du, dv), (-du, -dv), (du, -dv))]
    return RoadObject(
        id=object_id,
        s=s,
        t=0.0,
        type="crosswalk",
        name="crosswalk",
        length=CROSSWALK_LENGTH,
        width=width,
        outlines=[Outline(corners=[*corners, corners[0]])],
    )


def add_speed_signs(layout: Layout, street: Street, road: Road, next_id) -> None:
    """A maximum-speed sign for each direction, just after the street begins for that traffic."""
    arms = ("E", "W") if street.axis == "h" else ("N", "S")
    value = speed_kmh(road)
    for arm in arms:
        road.signals.append(
            _sign(
                layout,
                street,
                road,
                arm,
                SPEED_SIGN_AFTER_JUNCTION,
                False,
                id=next_id(),
                name=f"speed_{value}",
                type=MAX_SPEED,
                subtype=str(value),
                value=float(value),
                unit="km/h",
                z_offset=2.0,
                height=0.8,
                width=0.8,
            )
        )
