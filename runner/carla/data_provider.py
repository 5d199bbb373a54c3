"""scenario_runner's CarlaDataProvider filled for agents run by lockstep's runner.

Leaderboard agents and most research agents' experts read the world through scenario_runner's
CarlaDataProvider, which CARLA's leaderboard evaluator fills: the client, the world, the
traffic manager's port, the ego in its actor pool, and the per-tick update of the actors'
poses and speeds. `lockstep run` does the same when scenario_runner (and CARLA's `agents`
package it imports) can be imported; otherwise nothing happens. Under `lockstep exec` the
evaluator fills it itself.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DataProviderSession", "fill_data_provider"]


class DataProviderSession:
    """A filled CarlaDataProvider for one route: `release()` empties it at the route's end."""

    def __init__(self, world: Any, callback_id: int) -> None:
        self._world, self._callback_id = world, callback_id

    def release(self) -> None:
        from srunner.scenariomanager.carla_data_provider import CarlaDataProvider

        from runner.carla.client import attach_world

        self._world.remove_on_tick(self._callback_id)
        # the route's world is thrown away: forget its actors without destroying them
        CarlaDataProvider._carla_actor_pool.clear()
        CarlaDataProvider.cleanup()
        attach_world(None, "")


def fill_data_provider(world: Any, ego: Any, map_name: str) -> DataProviderSession | None:
    """Fills CarlaDataProvider as the leaderboard does for a route whose ego is `ego`; None
    when scenario_runner is not importable."""
    from runner.carla.binding import bind_carla
    from runner.carla.client import TM_DEFAULT_PORT, Client, attach_world

    bind_carla()  # (scenario_runner imports carla)
    try:
        from srunner.scenariomanager.carla_data_provider import CarlaDataProvider
    except ImportError:
        return None
    attach_world(world, map_name)
    CarlaDataProvider.set_client(Client())
    CarlaDataProvider.set_world(world)
    CarlaDataProvider.set_traffic_manager_port(TM_DEFAULT_PORT)
    # the leaderboard spawns the ego through request_new_actor, which keeps it in the pool
    # (get_hero_actor reads the pool); lockstep's runner spawned it, so it is put there
    CarlaDataProvider._carla_actor_pool[ego.id] = ego
    CarlaDataProvider.register_actor(ego, ego.get_transform())
    callback_id = world.on_tick(lambda _snapshot: CarlaDataProvider.on_carla_tick())
    return DataProviderSession(world, callback_id)
