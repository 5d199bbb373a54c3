"""MergerIntoSlowTraffic and MergerIntoSlowTrafficV2 (ScenarioRunner's actor_flow.py): at
a highway entry the ego merges into a slow flow of vehicles driving from
`start_actor_flow` to `end_actor_flow` at `flow_speed` (m/s), a gap drawn from
`source_dist_interval` (m) between them; the flow's lane is cleared of background
traffic first. Both end when the ego comes within 2 m of a lane of the sink's direction
(or after 240 s: a ScenarioTimeoutTest failure); they differ in ScenarioRunner only in
how the background's junction handling is set up, which lockstep's simpler background
does not have."""

from __future__ import annotations

from scenarios.library._flows import FlowScenario


class MergerIntoSlowTraffic(FlowScenario):
    type_name = "MergerIntoSlowTraffic"


class MergerIntoSlowTrafficV2(FlowScenario):
    type_name = "MergerIntoSlowTrafficV2"
