"""Every call the server answers, and CARLA 0.9.16's calls it does not (with their result
forms, so their errors reach the client as CARLA's own error answers)."""

from __future__ import annotations

from runner.serve import calls_actors, calls_batch, calls_episode, calls_recorder
from runner.serve.dispatch import VALUE, VOID_RESULT, Method

__all__ = ["METHODS", "UNSERVED"]

METHODS: dict[str, Method] = {
    **calls_episode.METHODS,
    **calls_actors.METHODS,
    **calls_batch.METHODS,
    **calls_recorder.METHODS,
}

# CARLA's server calls (Unreal/.../Server/CarlaServer.cpp) that lockstep does not serve.
UNSERVED: dict[str, str] = {
    name: VOID_RESULT
    for name in (
        "apply_color_texture_to_objects",
        "apply_float_color_texture_to_objects",
        "set_imui_gravity",
        "enable_actor_for_ros",
        "disable_actor_for_ros",
        "send",
        "set_ignored_vehicles",
        "set_wheel_steer_direction",
        "set_wheel_pitch_angle",
        "set_actor_dead",
        "apply_ackermann_controller_settings",
        "enable_carsim",
        "use_carsim_road",
        "enable_chrono_physics",
        "restore_physx_physics",
        "enable_gbuffers",
    )
} | {
    name: VALUE
    for name in (
        "get_names_of_all_objects",
        "get_imui_gravity",
        "console_command",
        "is_actor_enabled_for_ros",
        "get_actor_component_world_transform",
        "get_actor_component_relative_transform",
        "get_actor_bone_world_transforms",
        "get_vehicle_bone_world_transforms",
        "get_actor_bone_relative_transforms",
        "get_actor_component_names",
        "get_actor_bone_names",
        "get_actor_socket_world_transforms",
        "get_actor_socket_relative_transforms",
        "get_actor_socket_names",
        "get_wheel_pitch_angle",
        "get_ackermann_controller_settings",
        "get_gbuffer_token",
        "are_gbuffers_enabled",
    )
}
