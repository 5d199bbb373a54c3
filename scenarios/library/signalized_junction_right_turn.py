"""SignalizedJunctionRightTurn and NonSignalizedJunctionRightTurn (ScenarioRunner's
signalized_junction_right_turn.py): the ego turns right at the route's junction into the
path of a flow of vehicles coming straight from its left; signalized, the flow has green
and the ego waits 5 s at red first (scenarios/library/_junction_turn.py)."""

from __future__ import annotations

from scenarios.library._junction_turn import JunctionTurn


class SignalizedJunctionRightTurn(JunctionTurn):
    type_name = "SignalizedJunctionRightTurn"
    flow_side = "left"
    signalized = True


class NonSignalizedJunctionRightTurn(JunctionTurn):
    type_name = "NonSignalizedJunctionRightTurn"
    flow_side = "left"
    signalized = False
    stop_other_entries = True
