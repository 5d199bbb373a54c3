"""The autopilot agent: drives the route with the world's autopilot, as a real driver would.

It keeps its own traffic manager (not in the world's tick: the agent runs it
in `run_step`), with the ego as its only vehicle and the route's junction
exits as the path, so at every junction it takes the route's exit. The
autopilot stops for red lights and stop signs, yields at junctions, keeps its
distance to whatever is ahead and follows the speed limit; lane changes are
off, so it stays on the route's lanes. `run_step` returns the control the
autopilot computed for this tick, which the loop then applies.
"""

from __future__ import annotations

from runner.agents.base import AutonomousAgent
from world.actors.controls import VehicleControl
from world.traffic.autopilot.manager import TrafficManager

__all__ = ["AutopilotAgent", "get_entry_point", "junction_exits"]

AGENT_PORT = -1  # names the agent's own manager; no world traffic manager uses it
SPEED_DIFFERENCE = 20.0  # % below the speed limit


def get_entry_point() -> str:
    return "AutopilotAgent"


def junction_exits(world_map, plan: list) -> list:
    """The location where the plan leaves each junction it crosses, in order."""
    out = []
    inside = False
    previous = None
    for transform, _option in plan:
        waypoint = world_map.get_waypoint(transform.location)
        in_junction = waypoint is not None and waypoint.is_junction
        if inside and not in_junction and previous is not None:
            out.append(previous)
        inside = in_junction
        previous = transform.location
    return out


class AutopilotAgent(AutonomousAgent):
    """Follows the global plan with the autopilot's driver (it reads the world, not sensors)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._tm: TrafficManager | None = None
        self._dense_plan: list = []

    def sensors(self) -> list[dict]:
        """The speedometer only (the leaderboard marks an entry without sensors Invalid)."""
        return [{"type": "sensor.speedometer", "id": "speed", "reading_frequency": 20}]

    def set_global_plan(self, global_plan_gps: list, global_plan_world_coord: list) -> None:
        super().set_global_plan(global_plan_gps, global_plan_world_coord)
        self._dense_plan = list(global_plan_world_coord)

    def _manager(self) -> TrafficManager:
        if self._tm is None:
            tm = TrafficManager(self.world, AGENT_PORT)
            tm.set_random_device_seed(self.seed)
            tm.register_vehicles([self.ego])
            tm.auto_lane_change(self.ego, False)
            tm.vehicle_percentage_speed_difference(self.ego, SPEED_DIFFERENCE)
            tm.set_path(self.ego, junction_exits(self.world.get_map(), self._dense_plan))
            self._tm = tm
        return self._tm

    def run_step(self, input_data: dict, timestamp: float) -> VehicleControl:
        tm = self._tm if self._tm is not None else self._manager()
        tm.step(self.world.get_settings().fixed_delta_seconds)
        return self.ego.get_control()

    def destroy(self) -> None:
        self._tm = None
