"""An agent's class from its module, as the leaderboard's evaluator finds it.

`agent.entry` names a module path (`runner.agents.autopilot`) or a `.py` file; the module's
`get_entry_point()` names the class. As the leaderboard does, a file's folder goes first
on `sys.path`, so the agent imports its neighbours (`from my_net import Net` beside
`my_agent.py`). `import carla` and the leaderboard's agent module
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

# lockstep's own top-level packages: bound before an agent's folder goes on the path, so a
# folder of the same name beside an agent (a team's scenarios/, say) never shadows them
_OWN_PACKAGES = ("world", "recorder", "scenarios", "runner")


def load_agent_class(entry: str) -> type:
    """The class an agent module's get_entry_point() names (a module path or a .py file)."""
    from runner.carla.binding import bind_leaderboard

    bind_leaderboard()
    try:
        module = _file_module(Path(entry)) if entry.endswith(".py") else _named_module(entry)
    except ModuleNotFoundError as exc:
        raise AgentError(f"agent {entry}: module not found ({exc})") from None
    if not hasattr(module, "get_entry_point"):
        raise AgentError(f"agent {entry}: the module has no get_entry_point()")
    class_name = module.get_entry_point()
    cls = getattr(module, class_name, None)
    if cls is None:
        raise AgentError(f"agent {entry}: get_entry_point() names {class_name!r}, not in module")
    return cls


def _named_module(entry: str):
    return importlib.import_module(entry)


def _file_module(path: Path):
    """The module of an agent file, executed afresh, under a name of lockstep's
    (`lockstep_agent_<stem>`: a file named like a module already loaded, `world.py` say,
    is still the agent's)."""
    name = f"lockstep_agent_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise AgentError(f"agent {path}: cannot be imported")
    for package in _OWN_PACKAGES:
        importlib.import_module(package)
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]  # a module that failed to load is not kept half made
        raise
    return module
