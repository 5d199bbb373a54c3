"""ConstructionObstacle and ConstructionObstacleTwoWays (ScenarioRunner's
construction_crash_vehicle.py): `distance` m ahead of the trigger a construction site
fills the ego's lane: a traffic-warning board 5 m before the site's point, dirt debris 2 m
past it, and cones: four 2 m apart along the lane from the point (0.85 of half the lane
width off the centre, on the side away from `direction`), then three 1 m apart across
the lane; a construction warning sign at the road's side at the trigger. Once the ego is
within 30 m of the site and 5 s later, the two-ways type runs an oncoming flow (gaps from
`frequency`) on the lane left of the site. The scenario ends 50 m past the site (or after
240 s, a ScenarioTimeoutTest failure)."""

from __future__ import annotations

from typing import Any

from scenarios.errors import ScenarioError
from scenarios.library._blockers import (
    END_DISTANCE,
    LaneBlockScenario,
    check_direction,
    clear_stretch,
    spawn_side_prop,
)
from scenarios.library._pending import CONSTRUCTION, FREQUENCY
from scenarios.placement import move_forward
from world.geometry import Location, Rotation, Transform, Vector3D

TRIGGER_DISTANCE = 30.0  # m from the site: the oncoming traffic changes
CONE = "static.prop.constructioncone"
BOARD = "static.prop.trafficwarning"
DEBRIS = "static.prop.dirtdebris02"
SIGN = "static.prop.warningconstruction"
BOARD_BACK = 5.0  # m before the site's point
DEBRIS_AHEAD, DEBRIS_LIFT = 2.0, 1.0  # m past it, m up (it settles)
CONE_SIDE = 0.85  # of half the lane width, off the lane centre
CONE_ROWS = ((4, 2.0), (3, 1.0))  # (cones, m apart): along the lane, then across it
CONE_LIFT = 0.1  # m, each cone


def _forward(yaw: float) -> Vector3D:
    return Rotation(0.0, yaw, 0.0).get_forward_vector()


def _at(loc: Location, direction: Vector3D, distance: float, lift: float = 0.0) -> Location:
    return Location(loc.x + distance * direction.x, loc.y + distance * direction.y, loc.z + lift)


def site_layout(site: Transform, lane_width: float, direction: str) -> list[tuple[str, Transform]]:
    """The construction's props and where they go (ScenarioRunner's layout)."""
    yaw, loc, rot = site.rotation.yaw, site.location, site.rotation
    out = [
        (
            BOARD,
            Transform(
                _at(loc, _forward(yaw + 180.0), BOARD_BACK),
                Rotation(rot.pitch, yaw + 270.0, rot.roll),
            ),
        ),
        (
            DEBRIS,
            Transform(
                _at(loc, _forward(yaw), DEBRIS_AHEAD, DEBRIS_LIFT),
                Rotation(rot.pitch, yaw + 90.0, rot.roll),
            ),
        ),
    ]
    # the cones start off the centre on the side away from `direction`
    away = -1.0 if direction == "right" else 1.0
    here = _at(loc, _forward(yaw + 90.0), away * CONE_SIDE * lane_width / 2.0)
    heading = yaw
    for row, (count, spacing) in enumerate(CONE_ROWS):
        ahead = _forward(heading)
        for k in range(1, count + 1):
            where = _at(here, ahead, k * spacing, CONE_LIFT * (row + 1))
            out.append((CONE, Transform(where, Rotation(rot.pitch, heading, rot.roll))))
        here = _at(here, ahead, count * spacing, CONE_LIFT)
        heading += -90.0 if row == 0 and direction == "left" else 90.0
    return out


class ConstructionObstacle(LaneBlockScenario):
    type_name = "ConstructionObstacle"
    parameters = CONSTRUCTION
    trigger_distance = TRIGGER_DISTANCE

    def setup(self) -> None:
        direction = self.params["direction"]
        check_direction(self.name, direction)
        clear_stretch(self, self.params["distance"] + 20.0)
        start = self.start_wp()
        spawn_side_prop(self, start, direction, SIGN)
        ahead = start.next(self.params["distance"])
        if not ahead:
            raise ScenarioError(f"scenario {self.name}: no place for the construction site")
        self.obstacle_wp = ahead[0]
        self.props: list[Any] = []
        for blueprint, tf in site_layout(self.obstacle_wp.transform, start.lane_width, direction):
            prop = self.spawn(blueprint, tf)
            prop.set_simulate_physics(blueprint == DEBRIS)
            self.props.append(prop)
        self.near = self.obstacle_wp.transform.location
        self.end_wp = move_forward(self.obstacle_wp, END_DISTANCE)
        self.clear_distance = self.params["distance"] + 20.0


class ConstructionObstacleTwoWays(ConstructionObstacle):
    type_name = "ConstructionObstacleTwoWays"
    parameters = (*CONSTRUCTION, FREQUENCY)
    two_ways = True
