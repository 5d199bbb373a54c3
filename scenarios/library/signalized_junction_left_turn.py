"""SignalizedJunctionLeftTurn and NonSignalizedJunctionLeftTurn (ScenarioRunner's
signalized_junction_left_turn.py): the ego turns left at the route's junction across a
flow of vehicles coming straight from the opposite entry; signalized, the flow has
green and the ego waits 5 s at red first (scenarios/library/_junction_turn.py)."""

from __future__ import annotations

from scenarios.library._junction_turn import JunctionTurn


class SignalizedJunctionLeftTurn(JunctionTurn):
    type_name = "SignalizedJunctionLeftTurn"
    flow_side = "opposite"
    signalized = True
    clear_flow_exit = True
    oncoming_off = True


class NonSignalizedJunctionLeftTurn(JunctionTurn):
    type_name = "NonSignalizedJunctionLeftTurn"
    flow_side = "opposite"
    signalized = False
    stop_other_entries = True
    clear_flow_exit = True
    oncoming_off = True
