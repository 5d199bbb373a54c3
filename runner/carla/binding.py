"""Makes `import carla` (and `from carla import command`) give lockstep's namespace, and the
leaderboard's agent module path (`leaderboard.autoagents.autonomous_agent`) give lockstep's
AutonomousAgent, so agents written for CARLA's leaderboard import unchanged."""

from __future__ import annotations

import sys
import types

__all__ = ["bind_carla", "bind_leaderboard"]

_LEADERBOARD_AGENT = "leaderboard.autoagents.autonomous_agent"


def bind_carla() -> None:
    """Binds runner.carla as the module `carla` in this process (and carla.command)."""
    import runner.carla as namespace
    from runner.carla import command

    sys.modules["carla"] = namespace
    sys.modules["carla.command"] = command


def bind_leaderboard() -> None:
    """Binds `carla` and, unless a leaderboard is importable already, the leaderboard's
    agent module to runner.agents.base (AutonomousAgent, Track)."""
    bind_carla()
    if _LEADERBOARD_AGENT in sys.modules:
        return
    from runner.agents import base

    for name in ("leaderboard", "leaderboard.autoagents"):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = []  # a namespace of lockstep's own, nothing on disk
            sys.modules[name] = package
    sys.modules[_LEADERBOARD_AGENT] = base
    sys.modules["leaderboard.autoagents"].autonomous_agent = base
