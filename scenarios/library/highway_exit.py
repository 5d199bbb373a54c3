"""HighwayExit (ScenarioRunner's actor_flow.py): a fast flow of vehicles drives from
`start_actor_flow` to `end_actor_flow` at `flow_speed` (m/s), a gap drawn from
`source_dist_interval` (m) between them, on the lane the ego must cross to take an exit;
the flow's lane is cleared of background traffic first. It ends when the ego has been
through the junction of the flow's path (the exit) and out of it (or after 240 s: a
ScenarioTimeoutTest failure)."""

from __future__ import annotations

from collections.abc import Callable

from scenarios.library._flows import (
    FlowScenario,
    first_junction_id,
    in_then_out_of_junction,
    lane_walk,
)


class HighwayExit(FlowScenario):
    type_name = "HighwayExit"
    clear_ego_entry = False
    lane_off = True  # only the flow's lane is left empty (RemoveRoadLane)

    def ended(self) -> Callable[[], bool]:
        path = lane_walk(self.source_wp, self.sink_wp.transform.location)
        junction = first_junction_id(path)
        return in_then_out_of_junction(self.ego, self.world.get_map(), junction)
