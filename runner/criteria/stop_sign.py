"""RunningStopTest: entering a stop sign's box and leaving it without having dropped below
0.1 m/s (ScenarioRunner's rule: the ego's waypoint and those up to 4 m ahead, against the
sign's box grown by 1.2)."""

from __future__ import annotations

import math
import weakref
from bisect import bisect_right
from typing import Any

import numpy as np

from runner.criteria.base import Criterion, NearScreen, TickView, at_text
from runner.scoring.events import TrafficEvent, TrafficEventType
from world.geometry import Location, Rotation
from world.map.lane_enums import LaneType
from world.map.waypoint import Waypoint

PROXIMITY_THRESHOLD = 4.0  # m: signs whose box centre is farther are not looked at
SPEED_THRESHOLD = 0.1  # m/s: below this the ego has stopped
WAYPOINT_STEP = 0.5  # m
BACKWARDS_DOT = -0.17  # about 100 degrees
ZONE_STEP = 0.05  # m of s between the lane-centre samples of a _LaneZone
ZONE_SLACK = 0.05  # m added to the samples' spacing when growing the box for a _LaneZone
OUT, MAYBE, IN = 0, 1, 2  # whether a lane point lies in a sign's box, as a _LaneZone knows it


def point_in_box(point: Location, centre: Location, extent, multiplier: float = 1.2) -> bool:
    """Whether `point` lies strictly inside the plan-view axis-aligned box at `centre` with
    half-sizes `extent` grown by `multiplier` (corners A, B = A + x side, D = A + y side)."""
    ax, ay = centre.x - multiplier * extent.x, centre.y - multiplier * extent.y
    bx = centre.x + multiplier * extent.x
    dy = centre.y + multiplier * extent.y
    abx, ady = bx - ax, dy - ay
    amx, amy = point.x - ax, point.y - ay
    am_ab, ab_ab = amx * abx, abx * abx
    am_ad, ad_ad = amy * ady, ady * ady
    return 0 < am_ab < ab_ab and 0 < am_ad < ad_ad


def _box_centre(sign) -> Location:
    volume = sign.trigger_volume.location
    return sign.get_transform().transform(Location(volume.x, volume.y, volume.z))


class _LaneZone:
    """Where one lane can come near one sign's box: its centre sampled every ZONE_STEP m of
    s over the lane section, and for each gap between two samples whether a point in it
    may lie in the box (a sample within the box grown by the lane's largest sample spacing
    and ZONE_SLACK) and whether it surely does (both samples within the box shrunk by as
    much). A lane point lies within that spacing of both samples of its gap (the chord
    between them, up to ZONE_SLACK, which also covers the samples' few ulps), so points in
    no near gap are outside the box, and points in a sure gap inside it, without their
    exact pose."""

    def __init__(self, map_: Any, key: tuple, centre: Location, extent, multiplier=1.2) -> None:
        road_id, index, lane_id = key
        road = map_.opendrive.roads[road_id]
        sections = road.lane_sections
        s0 = sections[index].s
        s1 = sections[index + 1].s if index + 1 < len(sections) else road.length
        n = max(2, math.ceil((s1 - s0) / ZONE_STEP) + 1)
        s = np.linspace(s0, s1, n)
        xy = map_.centre_locations([Waypoint(map_, road_id, index, lane_id, v) for v in s])
        xy = xy[:, :2]
        spacing = float(np.sqrt(((xy[1:] - xy[:-1]) ** 2).sum(axis=1)).max())
        grow = spacing + ZONE_SLACK
        half = np.array([multiplier * extent.x + grow, multiplier * extent.y + grow])
        offset = np.abs(xy - np.array([centre.x, centre.y]))
        near = (offset <= half).all(axis=1)
        inner = np.array([multiplier * extent.x - grow, multiplier * extent.y - grow])
        inside = (offset < inner).all(axis=1)  # none when the box is thinner than 2 grow
        self.s = s.tolist()
        self.near = (near[:-1] | near[1:]).tolist()
        self.inside = (inside[:-1] & inside[1:]).tolist()

    def holds(self, s: float) -> int:
        """Whether the lane point at `s` lies in the box: OUT, MAYBE (its exact pose will
        tell; always outside the sampled s) or IN."""
        gap = bisect_right(self.s, s) - 1
        if not 0 <= gap < len(self.near):
            return MAYBE
        if self.inside[gap]:
            return IN
        return MAYBE if self.near[gap] else OUT


_ZONES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _zones_on(map_: Any) -> dict[tuple, _LaneZone]:
    """The lane zones made on `map_` so far, by (the sign's box centre and extent, the lane):
    a zone depends on the map and the box alone, so the routes a process runs on one map
    share them (each is made on its first use)."""
    zones = _ZONES.get(map_)
    if zones is None:
        zones = _ZONES[map_] = {}
    return zones


class _AheadPoints:
    """The ego's lane point and the lane points every 0.5 m up to 4 m ahead, made only when
    a sign is near enough to need them. The points ahead are walked with `Waypoint.next`
    (cheap); a point's exact pose (costly) is taken only where its lane may come near the
    sign's box (see _LaneZone), so the answers are those of the exact points."""

    def __init__(self, tick: TickView, zones: dict) -> None:
        spot = tick.lane(LaneType.Driving)
        self.first = spot.location
        self._yaw = spot.yaw
        self._waypoint = spot.waypoint
        self._map = tick.world.get_map()
        self._zones = zones
        self._ahead: list | None = None

    @property
    def lane_forward(self):
        """The forward vector of the ego's lane point."""
        return Rotation(0.0, self._yaw, 0.0).get_forward_vector()

    def near(self, centre: Location) -> bool:
        """Whether a sign's box centre is within PROXIMITY_THRESHOLD of the ego's lane point."""
        return not centre.distance(self.first) > PROXIMITY_THRESHOLD

    def _walk(self) -> list:
        if self._ahead is None:
            points = []
            wp = self._waypoint
            for _ in range(int(PROXIMITY_THRESHOLD / WAYPOINT_STEP)):
                following = wp.next(WAYPOINT_STEP)
                if not following:
                    break
                wp = following[0]
                points.append(wp)
            self._ahead = points
        return self._ahead

    def any_in_box(self, centre: Location, extent) -> bool:
        """Whether the ego's lane point or one of the points ahead lies in the sign's box."""
        if point_in_box(self.first, centre, extent):
            return True
        for waypoint in self._walk():
            key = (centre.x, centre.y, centre.z, extent.x, extent.y, extent.z, waypoint.key)
            zone = self._zones.get(key)
            if zone is None:
                zone = _LaneZone(self._map, waypoint.key, centre, extent)
                self._zones[key] = zone
            holds = zone.holds(waypoint.s)
            if holds == IN or (
                holds == MAYBE and point_in_box(waypoint.transform.location, centre, extent)
            ):
                return True
        return False


class RunningStopTest(Criterion):
    name = "RunningStopTest"

    def __init__(self, world) -> None:
        super().__init__()
        self.actual_value = 0
        self._signs = [
            (sign, _box_centre(sign), sign.trigger_volume.extent)
            for sign in world.get_actors()
            if "traffic.stop" in sign.type_id
        ]
        self._near = NearScreen([centre for _, centre, _ in self._signs], PROXIMITY_THRESHOLD)
        self._zones = _zones_on(world.get_map())
        self._target = None
        self._stop_completed = False
        self._last_failed_stop: int | None = None

    def _affected(self, ahead: _AheadPoints, sign_entry) -> bool:
        _sign, centre, extent = sign_entry
        if not ahead.near(centre):
            return False
        return ahead.any_in_box(centre, extent)

    def _scan(self, tick: TickView, ahead: _AheadPoints, candidates: list[int]):
        # no sign near: none is affected, whatever the directions below say (they only
        # decide between None and a sign), so the directions are not worked out; a sign
        # the screen leaves out is beyond PROXIMITY_THRESHOLD of the lane point (not near)
        signs = [self._signs[i] for i in candidates]
        if not any(ahead.near(centre) for _, centre, _ in signs):
            return None
        forward = tick.transform.get_forward_vector()
        if tick.velocity.dot(forward) < BACKWARDS_DOT:
            return None
        if forward.dot(ahead.lane_forward) < BACKWARDS_DOT:
            return None
        for entry in signs:
            if self._affected(ahead, entry):
                return entry
        return None

    def update(self, tick: TickView) -> None:
        if not self._signs:
            return
        if self._target is None:
            # the screen's candidates around the ego's lane point (the points ahead start
            # there): none, and no sign is near it, so none is affected (most ticks)
            candidates = self._near.candidates(tick.lane(LaneType.Driving).location)
            if candidates:
                self._target = self._scan(tick, _AheadPoints(tick, self._zones), candidates)
            return
        ahead = _AheadPoints(tick, self._zones)
        if not self._stop_completed and tick.speed < SPEED_THRESHOLD:
            self._stop_completed = True
        if not self._affected(ahead, self._target):
            sign = self._target[0]
            if not self._stop_completed and self._last_failed_stop != sign.id:
                self.actual_value += 1
                self.test_status = "FAILURE"
                where = sign.get_transform().location
                self.events.append(
                    TrafficEvent(
                        TrafficEventType.STOP_INFRACTION,
                        tick.frame,
                        f"Agent ran a stop with id={sign.id} at {at_text(where)}",
                        {"id": sign.id, "location": where},
                    )
                )
                self._last_failed_stop = sign.id
            self._target = None
            self._stop_completed = False
