"""Makes `import carla` (and `from carla import command`) give lockstep's namespace."""

from __future__ import annotations

import sys

__all__ = ["bind_carla"]


def bind_carla() -> None:
    """Binds runner.carla as the module `carla` in this process (and carla.command)."""
    import runner.carla as namespace
    from runner.carla import command

    sys.modules["carla"] = namespace
    sys.modules["carla.command"] = command
