"""Background traffic around the ego on a route with scenarios, after ScenarioRunner's
BackgroundActivity (Leaderboard 2.0), built on the world's autopilot: a road bubble of
vehicles ahead and behind on each lane of the ego's direction, oncoming traffic on the
opposite lanes, sources feeding each junction the route crosses from its other roads,
and the knobs scenarios turn to clear lanes, hold traffic or stop a junction.

`BackgroundActivity` (scenarios.background.activity) is the whole of it; its `run` is
the task the route scenario starts. docs/scenarios.md describes the rules.
"""

from scenarios.background.activity import BackgroundActivity

__all__ = ["BackgroundActivity"]
