"""InterurbanActorFlow and InterurbanAdvancedActorFlow (ScenarioRunner's actor_flow.py):
junctions of interurban roads, where the ego turns across a flow of vehicles driving
from `start_actor_flow` to `end_actor_flow` at `flow_speed` (m/s), a gap drawn from
`source_dist_interval` (m) between them (no vehicles placed ahead of time: the flow
starts at the trigger).

InterurbanActorFlow: the ego leaves the road turning left across the opposite flow; it
ends when the ego has been through a junction and out of it.
InterurbanAdvancedActorFlow: the ego joins the road turning left, first crossing the flow
and then merging into a second one, from the lane left of the first flow's sink to the
lane left of its source; it ends when the ego is past the second flow's sink.
Both end after 240 s at the latest (a ScenarioTimeoutTest failure)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scenarios.behaviours import is_in_front
from scenarios.errors import ScenarioError
from scenarios.library._flows import FlowScenario, in_then_out_of_junction
from world.map.lane_enums import LaneType


class InterurbanActorFlow(FlowScenario):
    type_name = "InterurbanActorFlow"
    oncoming_off = True

    def flows(self) -> list[tuple[Any, Any, bool]]:
        return [(self.source_wp, self.sink_wp, False)]

    def ended(self) -> Callable[[], bool]:
        return in_then_out_of_junction(self.ego, self.world.get_map(), None)


def _left_driving(wp: Any, what: str, scenario: str) -> Any:
    left = wp.get_left_lane()
    if left is None or left.lane_type != LaneType.Driving:
        raise ScenarioError(
            f"scenario {scenario}: no driving lane left of the {what} at "
            f"{wp.transform.location} for the second flow"
        )
    return left


class InterurbanAdvancedActorFlow(FlowScenario):
    type_name = "InterurbanAdvancedActorFlow"
    oncoming_off = True

    def setup(self) -> None:
        super().setup()
        self.second_source = _left_driving(self.sink_wp, "first flow's sink", self.name)
        self.second_sink = _left_driving(self.source_wp, "first flow's source", self.name)

    def flows(self) -> list[tuple[Any, Any, bool]]:
        return [
            (self.source_wp, self.sink_wp, False),
            (self.second_source, self.second_sink, False),
        ]

    def ended(self) -> Callable[[], bool]:
        sink = _Marker(self.second_sink.transform)
        return lambda: is_in_front(self.ego, sink)


class _Marker:
    """A fixed transform with the two methods is_in_front asks of an actor."""

    def __init__(self, transform: Any) -> None:
        self._transform = transform

    def get_transform(self) -> Any:
        return self._transform

    def get_location(self) -> Any:
        return self._transform.location
