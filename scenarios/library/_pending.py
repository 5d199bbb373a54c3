"""Registered types whose behaviour is not written yet: their parameter schemas
(ScenarioRunner's names and defaults), so route files naming them bind and a run fails
clearly. Writing a type: add its module to scenarios/library/ and delete its line here."""

from __future__ import annotations

from scenarios.params import Param

DIRECTION = Param("direction", "str", "right")
SPEED = Param("speed", "float", 60.0)
FREQUENCY = Param("frequency", "interval", (20.0, 100.0))
FLOW = (
    Param("start_actor_flow", "location"),
    Param("end_actor_flow", "location"),
    Param("flow_speed", "float", 10.0),
    Param("source_dist_interval", "interval", (20.0, 50.0)),
)
JUNCTION_FLOW = (
    Param("flow_speed", "float", 20.0),
    Param("source_dist_interval", "interval", (25.0, 50.0)),
)
HAZARD = (
    Param("distance", "float", 100.0),
    SPEED,
    Param("bicycle_speed", "float", 10.0),
    Param("bicycle_drive_distance", "float", 50.0),
)
ACCIDENT = (Param("distance", "float", 120.0), DIRECTION, SPEED)
CONSTRUCTION = (Param("distance", "float", 100.0), SPEED, DIRECTION)

PENDING: dict[str, tuple[Param, ...]] = {
    "BlockedIntersection": (),
    "CrossingBicycleFlow": (FLOW[0], *FLOW[2:]),
    "DynamicObjectCrossing": (
        Param("distance", "float", 12.0),
        DIRECTION,
        Param("blocker_model", "str", "static.prop.vendingmachine"),
        Param("crossing_angle", "float", 0.0),
    ),
    "EnterActorFlow": FLOW,
    "EnterActorFlowV2": FLOW,
    "HighwayCutIn": (Param("other_actor_location", "location"),),
    "HighwayExit": FLOW,
    "InterurbanActorFlow": FLOW,
    "InterurbanAdvancedActorFlow": FLOW,
    "MergerIntoSlowTraffic": FLOW,
    "MergerIntoSlowTrafficV2": FLOW,
    "NonSignalizedJunctionLeftTurn": JUNCTION_FLOW,
    "NonSignalizedJunctionRightTurn": JUNCTION_FLOW,
    "OppositeVehicleRunningRedLight": (DIRECTION,),
    "OppositeVehicleTakingPriority": (DIRECTION,),
    "ParkingCrossingPedestrian": (
        Param("distance", "float", 12.0),
        Param("crossing_angle", "float", 0.0),
        DIRECTION,
    ),
    "ParkingCutIn": (DIRECTION,),
    "PedestrianCrossing": (),
    "PriorityAtJunction": (),
    "SignalizedJunctionLeftTurn": JUNCTION_FLOW,
    "SignalizedJunctionRightTurn": JUNCTION_FLOW,
    "StaticCutIn": (Param("distance", "float", 100.0), DIRECTION),
    "VehicleTurningRoute": (),
    "VehicleTurningRoutePedestrian": (),
    "YieldToEmergencyVehicle": (Param("distance", "float", 140.0),),
}
