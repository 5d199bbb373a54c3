"""Registered types whose behaviour is not written yet: their parameter schemas
(ScenarioRunner's names and defaults), so route files naming them bind and a run fails
clearly. Writing a type: add its module to scenarios/library/ and delete its line here.
The parameter groups several written types share stay here too."""

from __future__ import annotations

from scenarios.params import Param

DIRECTION = Param("direction", "str", "right")
SPEED = Param("speed", "float", 60.0)
FREQUENCY = Param("frequency", "interval", (20.0, 100.0))
HAZARD = (
    Param("distance", "float", 100.0),
    SPEED,
    Param("bicycle_speed", "float", 10.0),
    Param("bicycle_drive_distance", "float", 50.0),
)
ACCIDENT = (Param("distance", "float", 120.0), DIRECTION, SPEED)
CONSTRUCTION = (Param("distance", "float", 100.0), SPEED, DIRECTION)

PENDING: dict[str, tuple[Param, ...]] = {}
