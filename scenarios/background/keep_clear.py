"""Places scenarios asked the background to keep free: stretches of the route's lane and
round areas, each until the ego's route point is past it. No background vehicle appears
in them (the vehicles there went when the scenario asked)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scenarios.background.route import RouteFrame
from world.geometry import Location

__all__ = ["KeepClear"]

ON_ROUTE = 1.5  # m from a route point: on the route's lane


@dataclass
class _Stretch:
    first: int
    last: int


@dataclass
class _Area:
    x: float
    y: float
    radius: float
    until: int  # plan index the ego passes to end it


class KeepClear:
    """The stretches and areas kept free of new background vehicles."""

    def __init__(self, route: RouteFrame) -> None:
        self.route = route
        self.stretches: list[_Stretch] = []
        self.areas: list[_Area] = []

    def add_stretch(self, first: int, last: int) -> None:
        last = min(int(last), len(self.route) - 1)
        if last >= first:
            self.stretches.append(_Stretch(max(int(first), 0), last))

    def add_area(self, location: Location, radius: float) -> None:
        """An area kept until the ego is `radius` m past the route point nearest to it."""
        xy = self.route.points[:, :2] - np.array([location.x, location.y])
        nearest = int(np.argmin((xy * xy).sum(axis=1)))
        until = self.route.index_at(float(self.route.accum[nearest]) + radius)
        self.areas.append(_Area(location.x, location.y, float(radius), until))

    def expire(self, index: int) -> None:
        self.stretches = [s for s in self.stretches if s.last >= index]
        self.areas = [a for a in self.areas if a.until >= index]

    def blocks(self, location: Location) -> bool:
        """Whether a vehicle at `location` would stand in a kept place."""
        for area in self.areas:
            dx, dy = location.x - area.x, location.y - area.y
            if dx * dx + dy * dy < area.radius * area.radius:
                return True
        here = np.array([location.x, location.y])
        for stretch in self.stretches:
            gap = self.route.points[stretch.first : stretch.last + 1, :2] - here
            if ((gap * gap).sum(axis=1) < ON_ROUTE * ON_ROUTE).any():
                return True
        return False
