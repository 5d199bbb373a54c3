"""OppositeVehicleTakingPriority (ScenarioRunner's opposite_vehicle_taking_priority.py,
the non-signalized version): at a junction without lights a vehicle (an ambulance) comes
from the ego's `direction` ("right" or "left") and crosses straight at 60 km/h, ignoring
the ego and every priority, timed to meet the ego where their paths cross.

It waits 30 m back from its junction entry (or at the previous junction, if nearer),
starts once the ego is 2.2 s from the crossing point (at its current speed) or within
12 m of it, and holds 60 km/h along its heading until it is 10 m past the junction (or for
the time that takes), then is destroyed; the scenario ends when the ego leaves the
junction. The background clears the junction and the ego's way into it, sends nothing
from the ambulance's entry nor into its exit, and holds its other entries' traffic before
the junction (ScenarioRunner's HandleJunctionScenario).
"""

from __future__ import annotations

from scenarios.base import Scenario
from scenarios.behaviours import (
    destroy_actor,
    in_time_to_arrival,
    in_trigger_distance,
    keep_velocity,
    stop_vehicle,
    wait_until,
)
from scenarios.errors import ScenarioError
from scenarios.library._junctions import (
    clear_junction,
    crossing_point,
    downstream,
    entry_on,
    exit_of,
    in_junction,
    route_junction,
    upstream,
)
from scenarios.params import Param
from world.actors.controls import VehicleControl
from world.geometry import Location, Transform

SOURCE_DISTANCE = 30.0  # m before the adversary's entry
SINK_DISTANCE = 10.0  # m past the junction
SPEED = 60.0 / 3.6  # m/s
SYNC_TIME = 2.2  # s the ego has to react
TRIGGER_DISTANCE = 12.0  # m from the crossing point
BLUEPRINT = "vehicle.ford.ambulance"
SPAWN_LIFT = 0.1  # m


class OppositeVehicleTakingPriority(Scenario):
    type_name = "OppositeVehicleTakingPriority"
    parameters = (Param("direction", "str", "right"),)

    def setup(self) -> None:
        direction = self.params["direction"]
        if direction not in ("left", "right"):
            raise ScenarioError(
                f"scenario {self.name}: direction must be 'left' or 'right', not {direction!r}"
            )
        self.route = route_junction(self, self.name)
        entry = entry_on(self.route.junction, self.route.entry, direction, self.name)
        self.start = upstream(entry, SOURCE_DISTANCE)
        self.sink = downstream(exit_of(entry, "straight"), SINK_DISTANCE)
        self.collision = crossing_point(self.route.entry, entry)
        if self.collision is None:
            raise ScenarioError(f"scenario {self.name}: the two entries never cross")
        where = self.start.transform
        lifted = Transform(where.location + Location(0.0, 0.0, SPAWN_LIFT), where.rotation)
        self.adversary = self.spawn(BLUEPRINT, lifted)
        stop_vehicle(self.adversary)  # waits at its place, off the autopilot

    def behaviour(self) -> None:
        clear_junction(self, self.route, remove_entries=[self.start], remove_exits=[self.sink])
        timed = in_time_to_arrival(self.ego, self.collision, SYNC_TIME)
        close = in_trigger_distance(self.ego, self.collision, TRIGGER_DISTANCE)
        wait_until(lambda: timed() or close())
        self.adversary.apply_control(VehicleControl())  # the brake off
        sink = self.sink.transform.location
        total = self.start.transform.location.distance(sink)
        keep_velocity(
            self.adversary,
            SPEED,
            duration=total / SPEED,
            until=in_trigger_distance(self.adversary, sink, 2.0),
        )
        destroy_actor(self.adversary)
        inside = in_junction(self.world, self.ego)
        wait_until(inside)
        wait_until(lambda: not inside())
