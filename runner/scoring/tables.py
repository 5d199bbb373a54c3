"""The leaderboard master's scoring tables: penalty factors, infraction keys, labels, entry
statuses and the failure texts, in the order the results file lists them."""

from __future__ import annotations

from runner.scoring.events import TrafficEventType as T

# A fixed factor per event: the route's penalty is multiplied by it.
PENALTY_FACTORS: dict[T, float] = {
    T.COLLISION_PEDESTRIAN: 0.5,
    T.COLLISION_VEHICLE: 0.6,
    T.COLLISION_STATIC: 0.65,
    T.TRAFFIC_LIGHT_INFRACTION: 0.7,
    T.STOP_INFRACTION: 0.8,
    T.SCENARIO_TIMEOUT: 0.7,
    T.YIELD_TO_EMERGENCY_VEHICLE: 0.7,
}

# A factor that follows the event's dict['percentage'] p: (base, direction).
# "increases": x (1 - (1 - base) * p / 100); "decreases": x (1 - (1 - base) * (1 - p / 100)).
PERCENTAGE_PENALTIES: dict[T, tuple[float, str]] = {
    T.OUTSIDE_ROUTE_LANES_INFRACTION: (0.0, "increases"),
    T.MIN_SPEED_INFRACTION: (0.7, "decreases"),
}

# Infraction list per event kind, in the results file's key order; 'route_timeout' follows.
INFRACTION_KEYS: dict[T, str] = {
    T.COLLISION_STATIC: "collisions_layout",
    T.COLLISION_PEDESTRIAN: "collisions_pedestrian",
    T.COLLISION_VEHICLE: "collisions_vehicle",
    T.TRAFFIC_LIGHT_INFRACTION: "red_light",
    T.STOP_INFRACTION: "stop_infraction",
    T.OUTSIDE_ROUTE_LANES_INFRACTION: "outside_route_lanes",
    T.MIN_SPEED_INFRACTION: "min_speed_infractions",
    T.YIELD_TO_EMERGENCY_VEHICLE: "yield_emergency_vehicle_infractions",
    T.SCENARIO_TIMEOUT: "scenario_timeouts",
    T.ROUTE_DEVIATION: "route_dev",
    T.VEHICLE_BLOCKED: "vehicle_blocked",
}
ROUTE_TIMEOUT_KEY = "route_timeout"
ROUTE_TIMEOUT_MESSAGE = "Route timeout."
OUTSIDE_LANES_KEY = INFRACTION_KEYS[T.OUTSIDE_ROUTE_LANES_INFRACTION]

# The global 'values' (as str) and their 'labels', in the same order.
VALUE_ROWS: tuple[tuple[str, str], ...] = (
    ("scores_mean.score_composed", "Avg. driving score"),
    ("scores_mean.score_route", "Avg. route completion"),
    ("scores_mean.score_penalty", "Avg. infraction penalty"),
    ("infractions.collisions_pedestrian", "Collisions with pedestrians"),
    ("infractions.collisions_vehicle", "Collisions with vehicles"),
    ("infractions.collisions_layout", "Collisions with layout"),
    ("infractions.red_light", "Red lights infractions"),
    ("infractions.stop_infraction", "Stop sign infractions"),
    ("infractions.outside_route_lanes", "Off-road infractions"),
    ("infractions.route_dev", "Route deviations"),
    ("infractions.route_timeout", "Route timeouts"),
    ("infractions.vehicle_blocked", "Agent blocked"),
    ("infractions.yield_emergency_vehicle_infractions", "Yield emergency vehicles infractions"),
    ("infractions.scenario_timeouts", "Scenario timeouts"),
    ("infractions.min_speed_infractions", "Min speed infractions"),
)

ENTRY_ELIGIBLE: dict[str, bool] = {
    "Started": False,
    "Finished": True,
    "Rejected": False,
    "Crashed": False,
    "Invalid": False,
}

# Why a route stopped from outside the criteria: (entry status, failure message).
SIMULATION_CRASHED = ("Crashed", "Simulation crashed")
SENSORS_INVALID = ("Rejected", "Agent's sensors were invalid")
AGENT_SETUP_FAILED = ("Started", "Agent couldn't be set up")
AGENT_CRASHED = ("Started", "Agent crashed")

# Failure messages the criteria set.
ROUTE_TIMED_OUT = "Agent timed out"
ROUTE_DEVIATED = "Agent deviated from the route"
AGENT_BLOCKED = "Agent got blocked"

ROUND_DIGITS = 3
ROUND_DIGITS_SCORE = 6
