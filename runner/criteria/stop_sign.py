"""RunningStopTest: entering a stop sign's box and leaving it without having dropped below
0.1 m/s (ScenarioRunner's rule: the ego's waypoint and those up to 4 m ahead, against the
sign's box grown by 1.2)."""

from __future__ import annotations

from runner.criteria.base import Criterion, TickView, at_text
from runner.scoring.events import TrafficEvent, TrafficEventType
from world.geometry import Location, Rotation
from world.map.lane_enums import LaneType

PROXIMITY_THRESHOLD = 4.0  # m: signs whose box centre is farther are not looked at
SPEED_THRESHOLD = 0.1  # m/s: below this the ego has stopped
WAYPOINT_STEP = 0.5  # m
BACKWARDS_DOT = -0.17  # about 100 degrees
SCREEN_MARGIN = 1e-6  # m: a screened lane point this near a box side takes its exact pose


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


def _box_margin(point, centre: Location, extent, multiplier: float = 1.2) -> float:
    """The plan-view distance from `point` (x, y) to the nearest side of point_in_box's box."""
    x, y = point
    half_x, half_y = multiplier * extent.x, multiplier * extent.y
    return min(
        abs(x - (centre.x - half_x)),
        abs(x - (centre.x + half_x)),
        abs(y - (centre.y - half_y)),
        abs(y - (centre.y + half_y)),
    )


class _AheadPoints:
    """The ego's lane point and the lane points every 0.5 m up to 4 m ahead, made only when
    a sign is near enough to need them.

    A lane point's exact pose is costly, so the points ahead are screened on the map's
    vectorised lane centres (equal to the poses to ~1e-13 m): only a point within
    SCREEN_MARGIN of a box side takes its exact pose, and the answers are those of the
    exact points."""

    def __init__(self, tick: TickView) -> None:
        spot = tick.lane(LaneType.Driving)
        self.first = spot.location
        self.lane_forward = Rotation(0.0, spot.yaw, 0.0).get_forward_vector()
        self._waypoint = spot.waypoint
        self._map = tick.world.get_map()
        self._ahead: list | None = None
        self._approx: list[tuple[float, float]] = []

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
            if points:
                self._approx = [tuple(p) for p in self._map.centre_locations(points)[:, :2]]
        return self._ahead

    def any_in_box(self, centre: Location, extent) -> bool:
        """Whether the ego's lane point or one of the points ahead lies in the sign's box."""
        if point_in_box(self.first, centre, extent):
            return True
        for waypoint, approx in zip(self._walk(), self._approx, strict=True):
            if _box_margin(approx, centre, extent) <= SCREEN_MARGIN:
                inside = point_in_box(waypoint.transform.location, centre, extent)
            else:
                inside = point_in_box(Location(approx[0], approx[1], 0.0), centre, extent)
            if inside:
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
        self._target = None
        self._stop_completed = False
        self._last_failed_stop: int | None = None

    def _affected(self, ahead: _AheadPoints, sign_entry) -> bool:
        _sign, centre, extent = sign_entry
        if centre.distance(ahead.first) > PROXIMITY_THRESHOLD:
            return False
        return ahead.any_in_box(centre, extent)

    def _scan(self, tick: TickView, ahead: _AheadPoints):
        forward = tick.transform.get_forward_vector()
        if tick.velocity.dot(forward) < BACKWARDS_DOT:
            return None
        if forward.dot(ahead.lane_forward) < BACKWARDS_DOT:
            return None
        for entry in self._signs:
            if self._affected(ahead, entry):
                return entry
        return None

    def update(self, tick: TickView) -> None:
        if not self._signs:
            return
        ahead = _AheadPoints(tick)
        if self._target is None:
            self._target = self._scan(tick, ahead)
            return
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
