"""EnterActorFlow and EnterActorFlowV2 (ScenarioRunner's actor_flow.py): the ego enters a
road through a junction and merges into a flow of vehicles driving from
`start_actor_flow` to `end_actor_flow` at `flow_speed` (m/s), a gap drawn from
`source_dist_interval` (m) between them. EnterActorFlow runs one flow on each lane of the
source's direction (paired with the sink's lanes, leftmost first); V2 (a highway entry
with its own lane) one flow from the source lane. Both end when the ego comes within 2 m
of a lane of the sink's direction (or after 240 s: a ScenarioTimeoutTest failure)."""

from __future__ import annotations

from typing import Any

from scenarios.library._flows import FlowScenario, same_direction_lanes


class EnterActorFlow(FlowScenario):
    type_name = "EnterActorFlow"

    def flows(self) -> list[tuple[Any, Any, bool]]:
        sources = same_direction_lanes(self.source_wp)
        sinks = same_direction_lanes(self.sink_wp)
        return [(source, sink, True) for source, sink in zip(sources, sinks, strict=False)]


class EnterActorFlowV2(FlowScenario):
    type_name = "EnterActorFlowV2"
