"""Where scenario actors go: waypoints moved along a lane (stopping short of junctions),
the outermost lane to a side, and transforms shifted sideways from a lane's centre, as
ScenarioRunner's scenarios place their obstacles, props and walkers."""

from __future__ import annotations

from typing import Any

from world.geometry import Location, Rotation, Transform
from world.map.lane_enums import LaneType

__all__ = [
    "crosswalks",
    "inside",
    "move_forward",
    "outer_part",
    "outermost_lane",
    "shifted",
    "side_lane",
]


def move_forward(wp: Any, distance: float) -> Any:
    """The waypoint `distance` m further along the lane in 1 m steps, stopping at the last
    one before a junction."""
    travelled = 0.0
    while travelled < distance:
        ahead = wp.next(1.0)
        if not ahead or ahead[0].is_junction:
            break
        wp = ahead[0]
        travelled += 1.0
    return wp


def outermost_lane(wp: Any, direction: str, lane_types: tuple = (LaneType.Driving,)) -> Any:
    """The last lane of `lane_types` from `wp` toward `direction` ("right" or "left") on
    the same side of the road (`wp` itself when there is none)."""
    step = "get_right_lane" if direction == "right" else "get_left_lane"
    out = wp
    side = getattr(wp, step)()
    while side is not None and side.lane_id * wp.lane_id > 0 and side.lane_type in lane_types:
        out = side
        side = getattr(side, step)()
    return out


def side_lane(wp: Any, direction: str, lane_type: Any) -> Any | None:
    """The first lane of `lane_type` toward `direction` on the same side of the road."""
    step = "get_right_lane" if direction == "right" else "get_left_lane"
    side = getattr(wp, step)()
    while side is not None and side.lane_id * wp.lane_id > 0:
        if side.lane_type == lane_type:
            return side
        side = getattr(side, step)()
    return None


def shifted(
    wp: Any, offset: float, direction: str = "right", *, lift: float = 0.0, yaw: float = 0.0
) -> Transform:
    """`wp`'s transform moved `offset` m to its right (left for direction "left"), raised
    `lift` m, turned `yaw` degrees (mirrored for the left)."""
    tf = wp.transform
    right = tf.get_right_vector()
    sign = 1.0 if direction == "right" else -1.0
    loc = tf.location
    where = Location(loc.x + sign * offset * right.x, loc.y + sign * offset * right.y, loc.z + lift)
    rot = tf.rotation
    return Transform(where, Rotation(rot.pitch, rot.yaw + sign * yaw, rot.roll))


def outer_part(wp: Any, actor: Any, direction: str, lift: float = 0.0) -> Location:
    """Where `actor` stands at the outer part of `wp`'s lane (toward `direction`): a quarter
    of (lane width - its half width) off the centre, as ScenarioRunner parks its cars."""
    inward = (wp.lane_width - actor.bounding_box.extent.y) / 4.0
    return shifted(wp, inward, direction, lift=lift).location


def crosswalks(world_map: Any) -> list[list[Location]]:
    """The map's crosswalk outlines, one polygon (its distinct corners) each:
    `Map.get_crosswalks()` gives them one after another, each closed by repeating its
    first corner."""
    polygons: list[list[Location]] = []
    corners: list[Location] = []
    for corner in world_map.get_crosswalks():
        if len(corners) >= 3 and corner.distance(corners[0]) < 1e-6:
            polygons.append(corners)
            corners = []
        else:
            corners.append(corner)
    return polygons


def inside(polygon: list[Location], where: Location) -> bool:
    """Whether `where` lies inside `polygon` seen from above (even-odd rule)."""
    found = False
    last = polygon[-1]
    for corner in polygon:
        if (corner.y > where.y) != (last.y > where.y):
            t = (where.y - corner.y) / (last.y - corner.y)
            if where.x < corner.x + t * (last.x - corner.x):
                found = not found
        last = corner
    return found
