"""What a spawned actor's body is: box, mass, semantic tag, and (vehicles) physics and wheels.

Boxes and vehicle physics come from the blueprint catalogue's models
(world.actors.vehicle_models). A walker weighs WALKER_MASS; a prop whose model has no
measured box is a PROP_EXTENT cube standing on its origin; sensors and other
actors have no body.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from world.actors.vehicle_models import prop_bounding_box, vehicle_model, walker_bounding_box
from world.actors.vehicle_state import CityObjectLabel
from world.errors import BlueprintError
from world.physics.control import VehiclePhysicsControl

__all__ = ["PROP_EXTENT", "WALKER_MASS", "Body", "body_of"]

WALKER_MASS = 70.0  # kg
PROP_EXTENT = 0.25  # m, half size of a prop without a measured box


@dataclass(frozen=True, slots=True)
class Body:
    """Box (half extents and centre, actor frame, m), mass (kg), tag, vehicle physics."""

    extent: np.ndarray
    box_loc: np.ndarray
    mass: float
    semantic_tag: CityObjectLabel
    physics_control: VehiclePhysicsControl | None = None


def _box(bbox) -> tuple[np.ndarray, np.ndarray]:
    e, c = bbox.extent, bbox.location
    return np.array([e.x, e.y, e.z]), np.array([c.x, c.y, c.z])


def body_of(type_id: str) -> Body:
    """The body of an actor spawned from blueprint `type_id` (BlueprintError: unknown vehicle)."""
    if type_id.startswith("vehicle."):
        model = vehicle_model(type_id)
        pc = model.physics_control()
        return Body(np.array(model.extent), np.array(model.centre), pc.mass, model.semantic_tag, pc)
    if type_id.startswith("walker."):
        extent, centre = _box(walker_bounding_box(type_id))
        return Body(extent, centre, WALKER_MASS, CityObjectLabel.Pedestrians)
    if type_id.startswith("static.prop."):
        try:
            extent, centre = _box(prop_bounding_box(type_id))
        except BlueprintError:
            extent, centre = np.full(3, PROP_EXTENT), np.array([0.0, 0.0, PROP_EXTENT])
        return Body(extent, centre, 0.0, CityObjectLabel.Static)
    return Body(np.zeros(3), np.zeros(3), 0.0, CityObjectLabel.NONE)
