"""RunningRedLightTest: the ego's tail crossing the stop line of a red light that governs its
lane (ScenarioRunner's rule: the line across the lane at the light's waypoints, 1.2 lane
widths wide, against the segment from 0.8 to 1 extent + 1 m behind the ego's centre)."""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from runner.criteria.base import Criterion, NearScreen, TickView, at_text
from runner.scoring.events import TrafficEvent, TrafficEventType
from world import TrafficLightState
from world import elementary as el
from world.geometry import Location, Vector3D

DISTANCE_LIGHT = 15  # m: lights whose box centre is farther are not looked at


def rotate_point(x: float, y: float, z: float, angle: float) -> Vector3D:
    """(x, y, z) turned `angle` degrees about z."""
    c, s = el.cos(math.radians(angle)), el.sin(math.radians(angle))
    return Vector3D(c * x - s * y, s * x + c * y, z)


def _cross(o: Vector3D, a: Vector3D, b: Vector3D) -> float:
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)


def _within(a: Vector3D, b: Vector3D, p: Vector3D) -> bool:
    return min(a.x, b.x) <= p.x <= max(a.x, b.x) and min(a.y, b.y) <= p.y <= max(a.y, b.y)


def segments_touch(a: Vector3D, b: Vector3D, c: Vector3D, d: Vector3D) -> bool:
    """Whether the plan-view segments ab and cd share a point (touching counts)."""
    d1, d2 = _cross(c, d, a), _cross(c, d, b)
    d3, d4 = _cross(a, b, c), _cross(a, b, d)
    if ((d1 > 0) != (d2 > 0) and d1 != 0 and d2 != 0) and (
        (d3 > 0) != (d4 > 0) and d3 != 0 and d4 != 0
    ):
        return True
    return (
        (d1 == 0 and _within(c, d, a))
        or (d2 == 0 and _within(c, d, b))
        or (d3 == 0 and _within(a, b, c))
        or (d4 == 0 and _within(a, b, d))
    )


def light_stop_waypoints(light, map_) -> tuple[Location, list]:
    """The centre of a light's box and, per lane the box spans, the waypoint where the lane
    enters the junction (the box sampled every 1 m over 0.9 of its length, then each lane's
    waypoint moved on 0.5 m at a time to the last one before the junction)."""
    base = light.get_transform()
    volume = light.trigger_volume
    centre = base.transform(Location(volume.location.x, volume.location.y, volume.location.z))
    ext = volume.extent
    waypoints = []
    for x in np.arange(-0.9 * ext.x, 0.9 * ext.x, 1.0).tolist():
        offset = rotate_point(x, 0.0, ext.z, base.rotation.yaw)
        wp = map_.get_waypoint(Location(centre.x + offset.x, centre.y + offset.y, centre.z))
        if wp is None:
            continue
        last = waypoints[-1] if waypoints else None
        if last is None or last.road_id != wp.road_id or last.lane_id != wp.lane_id:
            waypoints.append(wp)
    stops = []
    for wp in waypoints:
        while not wp.is_junction:
            following = wp.next(0.5)
            if following and not following[0].is_junction:
                wp = following[0]
            else:
                break
        stops.append(wp)
    return Location(centre.x, centre.y, centre.z), stops


_STOPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def kept_stop_waypoints(light, map_: Any) -> tuple[Location, list]:
    """light_stop_waypoints, worked out once per map and light pose and box in a process:
    they depend on nothing else, so the routes a process runs on one map share them (a
    route's lights cost ~0.5 ms on town_small)."""
    kept = _STOPS.get(map_)
    if kept is None:
        kept = _STOPS[map_] = {}
    base, volume = light.get_transform(), light.trigger_volume
    place, rotation = base.location, base.rotation
    centre, extent = volume.location, volume.extent
    key = (
        (place.x, place.y, place.z, rotation.pitch, rotation.yaw, rotation.roll),
        (centre.x, centre.y, centre.z, extent.x, extent.y, extent.z),
    )
    if key not in kept:
        kept[key] = light_stop_waypoints(light, map_)
    return kept[key]


class RunningRedLightTest(Criterion):
    name = "RunningRedLightTest"

    def __init__(self, world) -> None:
        super().__init__()
        self.actual_value = 0
        self._map = world.get_map()
        self._lights = [
            (light, *kept_stop_waypoints(light, self._map))
            for light in world.get_actors().filter("traffic.traffic_light")
        ]
        self._near = NearScreen([centre for _, centre, _ in self._lights], DISTANCE_LIGHT)
        self._last_red_light_id: int | None = None
        self._lines: dict[int, list[tuple]] = {}  # _stop_lines' answers, by light

    def update(self, tick: TickView) -> None:
        transform = tick.transform
        location = transform.location
        tail = None  # the ego's tail segment and forward: made when a light needs them
        tail_wp = None  # the lane at the tail's far end: looked up when a stop line is crossed
        for index in self._near.candidates(location):  # the others are beyond DISTANCE_LIGHT
            light, centre, stops = self._lights[index]
            if self._last_red_light_id and self._last_red_light_id == light.id:
                continue
            if centre.distance(location) > DISTANCE_LIGHT:
                continue
            if light.get_state() != TrafficLightState.Red:
                continue
            if tail is None:
                tail = self._tail(tick)
            tail_close, tail_far, forward = tail
            # a stop counts when the tail crosses its line heading its way, on its lane: the
            # lane (a lookup) is asked last, of a crossed line only, as the three tests are
            # independent and the first stop passing all of them is the same in any order
            for road_id, lane_id, line_forward, left, right in self._stop_lines(index, stops):
                if forward.dot(line_forward) > 0 and segments_touch(
                    tail_close, tail_far, left, right
                ):
                    if tail_wp is None:
                        tail_wp = self._map.get_waypoint(tail_far)
                    if tail_wp.road_id == road_id and tail_wp.lane_id == lane_id:
                        self._record(tick, light)
                        break

    def _stop_lines(self, index: int, stops: list) -> list[tuple]:
        """Light `index`'s stop lines, worked out on its first red near the ego: for each
        stop waypoint its road and lane, its forward vector and the line's ends, 0.6 lane
        widths to either side (they depend on the waypoint alone)."""
        lines = self._lines.get(index)
        if lines is None:
            lines = self._lines[index] = []
            for wp in stops:
                wp_transform = wp.transform
                wp_yaw = wp_transform.rotation.yaw
                half = 0.6 * wp.lane_width
                wl = wp_transform.location
                left = rotate_point(half, 0.0, 0.0, wp_yaw + 90)
                right = rotate_point(half, 0.0, 0.0, wp_yaw - 90)
                left = Location(wl.x + left.x, wl.y + left.y, wl.z)
                right = Location(wl.x + right.x, wl.y + right.y, wl.z)
                forward = wp_transform.get_forward_vector()
                lines.append((wp.road_id, wp.lane_id, forward, left, right))
        return lines

    def _tail(self, tick: TickView) -> tuple:
        """The segment from 0.8 to 1 extent + 1 m behind the ego's centre and the ego's
        forward vector."""
        transform = tick.transform
        location = transform.location
        yaw = transform.rotation.yaw
        extent = tick.ego.bounding_box.extent.x
        close = rotate_point(-0.8 * extent, 0.0, 0.0, yaw)
        far = rotate_point(-extent - 1, 0.0, 0.0, yaw)
        tail_close = Location(location.x + close.x, location.y + close.y, location.z + close.z)
        tail_far = Location(location.x + far.x, location.y + far.y, location.z + far.z)
        return tail_close, tail_far, transform.get_forward_vector()

    def _record(self, tick: TickView, light) -> None:
        self.test_status = "FAILURE"
        self.actual_value += 1
        where = light.get_transform().location
        self.events.append(
            TrafficEvent(
                TrafficEventType.TRAFFIC_LIGHT_INFRACTION,
                tick.frame,
                f"Agent ran a red light {light.id} at {at_text(where)}",
                {"id": light.id, "location": where},
            )
        )
        self._last_red_light_id = light.id
