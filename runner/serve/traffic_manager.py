"""lockstep's own Traffic Manager on a Traffic Manager port (`--traffic-manager lockstep`).

CARLA's client asks the server whether a traffic manager runs on a port; lockstep says yes
for its own, and the client then talks to it as to a remote CARLA Traffic Manager: plain
rpclib calls (no metadata, plain results) on that port (LibCarla's TrafficManagerServer
names). They are answered by the world's traffic manager of that port
(world.traffic.autopilot.manager), which steps inside the world's tick: the client's
`synchronous_tick` after each world tick has nothing left to do.

A knob lockstep's manager does not have fails the call with a message that names it (the
client raises RuntimeError; the server's log says which).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runner.serve import shapes
from runner.serve.dispatch import BARE, Method
from runner.serve.errors import CallError

__all__ = ["ROAD_OPTIONS", "UNSERVED", "traffic_manager_methods"]

# CARLA's RoadOption numbers (a Route on the wire is their bytes)
ROAD_OPTIONS = {
    0: "Void",
    1: "Left",
    2: "Right",
    3: "Straight",
    4: "LaneFollow",
    5: "ChangeLaneLeft",
    6: "ChangeLaneRight",
    7: "RoadEnd",
}


# CARLA's Traffic Manager knobs lockstep's manager lacks (and the names CARLA's client sends
# for three of them, which differ from its server's)
UNSERVED = dict.fromkeys(
    (
        "set_lane_offset",
        "set_global_lane_offset",
        "set_collision_detection",
        "set_percentage_keep_slow_lane_rule",
        "set_percentage_random_left_lanechange",
        "set_percentage_random_right_lanechange",
        "keep_slow_lane_rule_percentage",
        "random_left_lanechange_percentage",
        "random_right_lanechange_percentage",
        "remove_custom_path",
        "update_custom_path",
        "remove_imported_route",
        "update_imported_route",
        "set_max_boundaries",
    ),
    BARE,
)


def traffic_manager_methods(port: int) -> dict[str, Method]:
    """The calls of the traffic manager on `port`."""

    def manager(session: Any) -> Any:
        """The world's manager of the port (the session readies it with each world)."""
        return session.world.get_trafficmanager(port)

    def vehicle(session: Any, actor: Any, name: str) -> Any:
        actor_id = actor[0] if isinstance(actor, list) and actor else actor
        return session.actor(actor_id, name)

    def vehicles(session: Any, actors: Any, name: str) -> list:
        if not isinstance(actors, list):
            raise CallError(f"{name}: expected an array of actors")
        return [vehicle(session, a, name) for a in actors]

    def register_vehicle(session: Any, actors: Any) -> None:
        manager(session).register_vehicles(vehicles(session, actors, "register_vehicle"))

    def unregister_vehicle(session: Any, actors: Any) -> None:
        manager(session).unregister_vehicles(vehicles(session, actors, "unregister_vehicle"))

    def per_vehicle(method: str, name: str, read: Callable[[Any, str], Any]):
        def call(session: Any, actor: Any, value: Any) -> None:
            getattr(manager(session), method)(vehicle(session, actor, name), read(value, name))

        return call

    def global_knob(method: str, name: str, read: Callable[[Any, str], Any]):
        def call(session: Any, value: Any) -> None:
            getattr(manager(session), method)(read(value, name))

        return call

    def accepted(session: Any, *args: Any) -> None:
        """What lockstep's manager does by itself (it steps in the world's tick)."""
        return None

    def synchronous_tick(session: Any) -> bool:
        return True

    def set_path(session: Any, actor: Any, path: Any, empty_buffer: Any = False) -> None:
        if not isinstance(path, list):
            raise CallError("set_path: expected an array of locations")
        points = [shapes.location_in(p, "set_path: location") for p in path]
        manager(session).set_path(vehicle(session, actor, "set_path"), points)

    def set_imported_route(session: Any, actor: Any, route: Any, empty_buffer: Any = False):
        options = route if isinstance(route, bytes | list) else []
        names = [ROAD_OPTIONS.get(int(o), "Void") for o in options]
        manager(session).set_route(vehicle(session, actor, "set_imported_route"), names)

    def set_random_device_seed(session: Any, seed: Any) -> None:
        manager(session).set_random_device_seed(
            shapes.integer(seed, "set_random_device_seed: seed")
        )

    number, flag = shapes.number, shapes.boolean
    calls = {
        "register_vehicle": register_vehicle,
        "unregister_vehicle": unregister_vehicle,
        "set_percentage_speed_difference": per_vehicle(
            "vehicle_percentage_speed_difference", "set_percentage_speed_difference", number
        ),
        "set_desired_speed": per_vehicle("set_desired_speed", "set_desired_speed", number),
        "update_vehicle_lights": per_vehicle(
            "update_vehicle_lights", "update_vehicle_lights", flag
        ),
        "set_global_percentage_speed_difference": global_knob(
            "global_percentage_speed_difference", "set_global_percentage_speed_difference", number
        ),
        "set_force_lane_change": per_vehicle("force_lane_change", "set_force_lane_change", flag),
        "set_auto_lane_change": per_vehicle("auto_lane_change", "set_auto_lane_change", flag),
        "set_distance_to_leading_vehicle": per_vehicle(
            "distance_to_leading_vehicle", "set_distance_to_leading_vehicle", number
        ),
        "set_global_distance_to_leading_vehicle": global_knob(
            "set_global_distance_to_leading_vehicle",
            "set_global_distance_to_leading_vehicle",
            number,
        ),
        "set_percentage_running_light": per_vehicle(
            "ignore_lights_percentage", "set_percentage_running_light", number
        ),
        "set_percentage_running_sign": per_vehicle(
            "ignore_signs_percentage", "set_percentage_running_sign", number
        ),
        "set_percentage_ignore_walkers": per_vehicle(
            "ignore_walkers_percentage", "set_percentage_ignore_walkers", number
        ),
        "set_percentage_ignore_vehicles": per_vehicle(
            "ignore_vehicles_percentage", "set_percentage_ignore_vehicles", number
        ),
        "set_hybrid_physics_mode": global_knob(
            "set_hybrid_physics_mode", "set_hybrid_physics_mode", flag
        ),
        "set_hybrid_physics_radius": global_knob(
            "set_hybrid_physics_radius", "set_hybrid_physics_radius", number
        ),
        "set_osm_mode": global_knob("set_osm_mode", "set_osm_mode", flag),
        "set_respawn_dormant_vehicles": global_knob(
            "set_respawn_dormant_vehicles", "set_respawn_dormant_vehicles", flag
        ),
        "set_boundaries_respawn_dormant_vehicles": accepted,
        "set_path": set_path,
        "set_imported_route": set_imported_route,
        "set_synchronous_mode": global_knob("set_synchronous_mode", "set_synchronous_mode", flag),
        "set_synchronous_mode_timeout_in_milisecond": accepted,
        "set_random_device_seed": set_random_device_seed,
        "synchronous_tick": synchronous_tick,
        "health_check_remote_TM": accepted,
        "get_next_action": accepted,
        "get_all_actions": accepted,
        "shut_down": accepted,
    }
    return {name: Method(function, BARE) for name, function in calls.items()}
