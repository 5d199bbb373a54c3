"""The leaderboard's AutonomousAgent interface, for agents that run in lockstep.

An agent module has `get_entry_point()` naming its class. lockstep makes the
class as the leaderboard 2.0 evaluator does (`cls(host, port, debug)`), calls
`setup(path_to_conf_file)`, reads `sensors()`, hands it the route with
`set_global_plan(gps_plan, world_plan)` (downsampled as the leaderboard's
base class does), then calls `run_step(input_data, timestamp)` once per tick
and `destroy()` at the end of the route. `input_data` is `{id: (frame, data)}`.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from runner.errors import AgentError
from runner.planner import RoadOption
from world.actors.controls import VehicleControl

__all__ = ["AutonomousAgent", "Track", "check_track", "downsample_route"]

PLAN_SAMPLE_DISTANCE = 200.0  # m between kept plan points on a straight (leaderboard 2.0)


class Track(Enum):
    """The leaderboard's tracks: SENSORS may not use the OpenDRIVE map pseudo-sensor."""

    SENSORS = "SENSORS"
    MAP = "MAP"
    SENSORS_QUALIFIER = "SENSORS_QUALIFIER"
    MAP_QUALIFIER = "MAP_QUALIFIER"


def check_track(agent_track: Track, selected: str | None) -> None:
    """The leaderboard's first sensor check: the agent declares the track it is evaluated
    on (`selected`, None: any)."""
    if selected is not None and Track(selected) != agent_track:
        raise AgentError(f"You are submitting to the wrong track [{Track(selected)}]!")


def downsample_route(route: list[tuple[Any, RoadOption]], sample_factor: float) -> list[int]:
    """Indices of the plan points an agent keeps: lane changes, changes of RoadOption, one
    every `sample_factor` metres in between, and the last (the leaderboard's downsample_route)."""
    keep: list[int] = []
    previous = None
    dist = 0.0
    lane_changes = (RoadOption.CHANGELANELEFT, RoadOption.CHANGELANERIGHT)
    for i, (transform, option) in enumerate(route):
        changed = previous != option and previous not in lane_changes
        if option in lane_changes or changed or dist > sample_factor or i == len(route) - 1:
            keep.append(i)
            dist = 0.0
        else:
            dist += transform.location.distance(route[i - 1][0].location)
        previous = option
    return keep


class AutonomousAgent:
    """Base class of agents: override setup, sensors and run_step (and destroy if needed)."""

    def __init__(self, carla_host: str = "localhost", carla_port: int = 2000, debug: bool = False):
        self.track = Track.SENSORS
        self._global_plan: list = []
        self._global_plan_world_coord: list = []
        self.wallclock_t0 = None
        # lockstep hands built-in agents the world and their vehicle (leaderboard agents reach
        # them through CarlaDataProvider; lockstep has none)
        self.world: Any = None
        self.ego: Any = None
        self.seed: int = 0

    def setup(self, path_to_conf_file: str | None) -> None:
        """Reads the agent's config file (None when the config names none)."""

    def sensors(self) -> list[dict]:
        """The leaderboard's sensor specs: {'type', 'id', 'x', 'y', 'z', ...}."""
        return []

    def run_step(self, input_data: dict, timestamp: float) -> VehicleControl:
        return VehicleControl()

    def destroy(self) -> None:
        """Called once at the end of each route."""

    def set_global_plan(self, global_plan_gps: list, global_plan_world_coord: list) -> None:
        """Keeps the downsampled route: GPS points and (transform, RoadOption) pairs."""
        keep = downsample_route(global_plan_world_coord, PLAN_SAMPLE_DISTANCE)
        self._global_plan_world_coord = [global_plan_world_coord[i] for i in keep]
        self._global_plan = [global_plan_gps[i] for i in keep]
