"""An agent's class from its module, as the leaderboard's evaluator finds it.

`agent.entry` names a module path (`runner.agents.autopilot`) or a `.py` file; the module's
`get_entry_point()` names the class. `import carla` and the leaderboard's agent module path
(`leaderboard.autoagents.autonomous_agent`) are bound to lockstep's first
(runner.carla.binding), so leaderboard agents import unchanged.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from runner.errors import AgentError

__all__ = ["load_agent_class"]


def load_agent_class(entry: str) -> type:
    """The class an agent module's get_entry_point() names (a module path or a .py file)."""
    from runner.carla.binding import bind_leaderboard

    bind_leaderboard()
    try:
        if entry.endswith(".py"):
            name = f"lockstep_agent_{Path(entry).stem}"
            spec = importlib.util.spec_from_file_location(name, entry)
            if spec is None or spec.loader is None:
                raise AgentError(f"agent {entry}: cannot be imported")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(entry)
    except ModuleNotFoundError as exc:
        raise AgentError(f"agent {entry}: module not found ({exc})") from None
    if not hasattr(module, "get_entry_point"):
        raise AgentError(f"agent {entry}: the module has no get_entry_point()")
    class_name = module.get_entry_point()
    cls = getattr(module, class_name, None)
    if cls is None:
        raise AgentError(f"agent {entry}: get_entry_point() names {class_name!r}, not in module")
    return cls
