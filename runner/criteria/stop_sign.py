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


class _AheadPoints:
    """The ego's lane point and the lane points every 0.5 m up to 4 m ahead, made only when
    a sign is near enough to need them (each lane point costs a full waypoint pose)."""

    def __init__(self, tick: TickView) -> None:
        spot = tick.lane(LaneType.Driving)
        self.first = spot.location
        self.lane_forward = Rotation(0.0, spot.yaw, 0.0).get_forward_vector()
        self._waypoint = spot.waypoint
        self._all: list[Location] | None = None

    def all(self) -> list[Location]:
        if self._all is None:
            points = [self.first]
            wp = self._waypoint
            for _ in range(int(PROXIMITY_THRESHOLD / WAYPOINT_STEP)):
                following = wp.next(WAYPOINT_STEP)
                if not following:
                    break
                wp = following[0]
                points.append(wp.transform.location)
            self._all = points
        return self._all


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
        return any(point_in_box(point, centre, extent) for point in ahead.all())

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
