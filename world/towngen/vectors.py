"""Points around a crossing in OpenDRIVE's frame: along an arm, and to the right of a heading."""

from __future__ import annotations

import math

from world.towngen.layout import ARM_HEADING, Node


def arm_point(node: Node, arm: str, along: float, right_of_inbound: float) -> tuple[float, float]:
    """The point `along` m out from the node's centre on `arm`, shifted `right_of_inbound` m to
    the right of a vehicle driving in on that arm (towards the centre)."""
    out = ARM_HEADING[arm]
    inbound = out + math.pi
    return (
        node.x + along * math.cos(out) + right_of_inbound * math.sin(inbound),
        node.y + along * math.sin(out) - right_of_inbound * math.cos(inbound),
    )
