"""An actor as ad-rss sees it: its pose in the map's ENU frame, matched to the map's lanes.

CARLA's frame is left-handed (y right), ENU is right-handed: ENU x = x, ENU y = -y,
heading = -yaw in radians; height is 0 (CARLA's RssCheck matches on the ground plane). The
position is the actor's origin, the box its blueprint's extent, as CARLA's GetMatchObject.
"""

from __future__ import annotations

import math
from typing import Any

from world.geometry import Transform, Vector3D
from world.sensors.rss.bindings import ad

__all__ = ["MATCH_SAMPLING", "MatchCache", "heading_change", "match_object", "signed_speed"]

MATCH_SAMPLING = 2.0  # m: how far an object may lie from its lanes and still match them


def match_object(transform: Transform, extent: Vector3D) -> Any:
    """The ad.map.match.Object of a box `extent` (half-sizes) at `transform`."""
    lib = ad()
    point, physics = lib.map.point, lib.physics
    found = lib.map.match.Object()
    position = found.enu_position
    location = transform.location
    position.center_point = point.createENUPoint(location.x, -location.y, 0.0)
    position.heading = point.createENUHeading(-math.radians(transform.rotation.yaw))
    position.dimension.length = physics.Distance(2.0 * extent.x)
    position.dimension.width = physics.Distance(2.0 * extent.y)
    position.dimension.height = physics.Distance(2.0 * extent.z)
    position.enu_reference_point = lib.map.access.getENUReferencePoint()
    found.map_matched_bounding_box = lib.map.match.AdMapMatching().getMapMatchedBoundingBox(
        position, physics.Distance(MATCH_SAMPLING)
    )
    return found


class MatchCache:
    """Each actor's last match, reused while its pose and box stay the same: a standing car
    is matched once, not every tick (a match is ~7 ms of ad-map-access's work, and a
    function of the map, the pose and the box alone, so reusing it changes no result)."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[tuple[float, ...], Any]] = {}

    def match(self, actor_id: int, transform: Transform, extent: Vector3D) -> Any:
        """A copy of the actor's match (the callback may change what it is handed)."""
        location = transform.location
        key = (location.x, location.y, transform.rotation.yaw, extent.x, extent.y, extent.z)
        found = self._by_id.get(actor_id)
        if found is None or found[0] != key:
            found = (key, match_object(transform, extent))
            self._by_id[actor_id] = found
        return ad().map.match.Object(found[1])

    def keep(self, actor_ids: set[int]) -> None:
        """Forgets the actors not in `actor_ids` (gone, or too far to be checked)."""
        for actor_id in [i for i in self._by_id if i not in actor_ids]:
            del self._by_id[actor_id]


def signed_speed(transform: Transform, velocity: Vector3D) -> float:
    """The speed in the actor's ground plane, negative when it moves backwards (CARLA's
    RssCheck::GetSpeed)."""
    local = transform.rotation.inverse_rotate_vector(velocity)
    speed = math.sqrt(local.x * local.x + local.y * local.y)
    return -speed if local.x < 0.0 else speed


def heading_change(angular_velocity: Vector3D) -> float:
    """The ENU heading's rate in rad/s from CARLA's yaw rate in deg/s."""
    return -math.radians(angular_velocity.z)
