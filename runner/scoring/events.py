"""Traffic events: what a criterion reports, in ScenarioRunner's shape (type, frame, message,
dict), so the statistics read them exactly as the leaderboard does."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class TrafficEventType(enum.Enum):
    """ScenarioRunner's event kinds; the member names are what results and specs spell."""

    NORMAL_DRIVING = 0
    COLLISION_STATIC = 1
    COLLISION_VEHICLE = 2
    COLLISION_PEDESTRIAN = 3
    ROUTE_DEVIATION = 4
    ROUTE_COMPLETION = 5
    ROUTE_COMPLETED = 6
    TRAFFIC_LIGHT_INFRACTION = 7
    WRONG_WAY_INFRACTION = 8
    ON_SIDEWALK_INFRACTION = 9
    STOP_INFRACTION = 10
    OUTSIDE_LANE_INFRACTION = 11
    OUTSIDE_ROUTE_LANES_INFRACTION = 12
    VEHICLE_BLOCKED = 13
    MIN_SPEED_INFRACTION = 14
    YIELD_TO_EMERGENCY_VEHICLE = 15
    SCENARIO_TIMEOUT = 16

    def __str__(self) -> str:
        return self.name


@dataclass
class TrafficEvent:
    """One infraction or report. `data` is the event's dict (None when never set); criteria
    that keep one event up to date (outside route lanes, route completion) mutate it."""

    kind: TrafficEventType
    frame: int
    message: str = ""
    data: dict[str, Any] | None = None
