"""The names of CARLA 0.9.16's Python API (`carla` and `carla.command`), class by class.

lockstep's namespace is measured against this table: runner.carla binds a clear
"not implemented" error to every name here that lockstep lacks, and
`python -m runner.carla.compat_table` writes docs/carla-compat.md from it. Members are
methods and properties alike; enums list no members (their values are compared by name).
"""

from __future__ import annotations

__all__ = ["CARLA_API", "COMMAND_API", "ENUMS"]

_ACTOR = (
    "id type_id parent semantic_tags is_alive is_active is_dormant attributes bounding_box"
    " actor_state add_angular_impulse add_force add_impulse add_torque destroy"
    " disable_constant_velocity enable_constant_velocity get_acceleration"
    " get_angular_velocity get_location get_transform get_velocity get_world"
    " get_component_world_transform get_component_relative_transform get_bone_names"
    " get_socket_names get_actor_component_names set_enable_gravity set_location"
    " set_simulate_physics set_target_angular_velocity set_target_velocity set_transform"
)
_VEHICLE = (
    "apply_ackermann_control apply_ackermann_controller_settings apply_control"
    " apply_physics_control close_door enable_carsim enable_chrono_physics"
    " get_ackermann_controller_settings get_control get_failure_state get_light_state"
    " get_physics_control get_speed_limit get_telemetry_data get_traffic_light"
    " get_traffic_light_state get_vehicle_bone_world_transforms get_wheel_steer_angle"
    " is_at_traffic_light open_door set_autopilot set_light_state show_debug_telemetry"
    " set_wheel_steer_direction use_carsim_road"
)

_SENSOR = (
    " is_listening listen stop disable_for_ros enable_for_ros is_enabled_for_ros"
    " listen_to_gbuffer stop_gbuffer is_listening_gbuffer send"
)
# CARLA's RSS build (`make PythonAPI.rss`; the package index's carla wheel has none of these)
_RSS_API: dict[str, tuple[str, ...]] = {
    "RssSensor": tuple(
        (
            _ACTOR + _SENSOR + " ego_vehicle_dynamics other_vehicle_dynamics pedestrian_dynamics"
            " road_boundaries_mode routing_targets append_routing_target drop_route"
            " register_actor_constellation_callback reset_routing_targets set_log_level"
            " set_map_log_level"
        ).split()
    ),
    "RssResponse": tuple(
        [
            "response_valid",
            "proper_response",
            "rss_state_snapshot",
            "situation_snapshot",
            "world_model",
            "ego_dynamics_on_route",
        ]
    ),
    "RssEgoDynamicsOnRoute": tuple(
        [
            "timestamp",
            "time_since_epoch_check_start_ms",
            "time_since_epoch_check_end_ms",
            "ego_speed",
            "min_stopping_distance",
            "ego_center",
            "ego_heading",
            "ego_center_within_route",
            "crossing_border",
            "route_heading",
            "route_nominal_center",
            "heading_diff",
            "route_speed_lat",
            "route_speed_lon",
            "route_accel_lat",
            "route_accel_lon",
            "avg_route_accel_lat",
            "avg_route_accel_lon",
        ]
    ),
    "RssActorConstellationData": tuple(
        [
            "ego_match_object",
            "ego_route",
            "ego_dynamics_on_route",
            "other_match_object",
            "other_actor",
        ]
    ),
    "RssActorConstellationResult": tuple(
        [
            "rss_calculation_mode",
            "restrict_speed_limit_mode",
            "ego_vehicle_dynamics",
            "actor_object_type",
            "actor_dynamics",
        ]
    ),
    "RssRestrictor": tuple(["restrict_vehicle_control"]),
}

CARLA_API: dict[str, tuple[str, ...]] = {
    "Client": tuple(
        [
            "apply_batch",
            "apply_batch_sync",
            "generate_opendrive_world",
            "get_available_maps",
            "get_client_version",
            "get_required_files",
            "get_server_version",
            "get_trafficmanager",
            "get_world",
            "load_world",
            "load_world_if_different",
            "reload_world",
            "replay_file",
            "request_file",
            "set_files_base_folder",
            "set_replayer_ignore_hero",
            "set_replayer_ignore_spectator",
            "set_replayer_time_factor",
            "set_timeout",
            "show_recorder_actors_blocked",
            "show_recorder_collisions",
            "show_recorder_file_info",
            "start_recorder",
            "stop_recorder",
            "stop_replayer",
        ]
    ),
    "World": tuple(
        [
            "id",
            "debug",
            "apply_color_texture_to_object",
            "apply_color_texture_to_objects",
            "apply_float_color_texture_to_object",
            "apply_float_color_texture_to_objects",
            "apply_settings",
            "apply_textures_to_object",
            "apply_textures_to_objects",
            "cast_ray",
            "enable_environment_objects",
            "freeze_all_traffic_lights",
            "get_actor",
            "get_actors",
            "get_blueprint_library",
            "get_environment_objects",
            "get_level_bbs",
            "get_lightmanager",
            "get_map",
            "get_names_of_all_objects",
            "get_random_location_from_navigation",
            "get_settings",
            "get_snapshot",
            "get_spectator",
            "get_traffic_light",
            "get_traffic_light_from_opendrive_id",
            "get_traffic_lights_from_waypoint",
            "get_traffic_lights_in_junction",
            "get_vehicles_light_states",
            "get_weather",
            "ground_projection",
            "load_map_layer",
            "on_tick",
            "project_point",
            "remove_on_tick",
            "reset_all_traffic_lights",
            "set_pedestrians_cross_factor",
            "set_pedestrians_seed",
            "set_weather",
            "spawn_actor",
            "tick",
            "try_spawn_actor",
            "unload_map_layer",
            "wait_for_tick",
            "set_annotations_traverse_translucency",
            "get_pose_from_animation",
        ]
    ),
    "DebugHelper": tuple(
        [
            "draw_arrow",
            "draw_box",
            "draw_hud_arrow",
            "draw_hud_box",
            "draw_hud_line",
            "draw_hud_point",
            "draw_line",
            "draw_point",
            "draw_string",
        ]
    ),
    "WorldSettings": tuple(
        [
            "synchronous_mode",
            "no_rendering_mode",
            "fixed_delta_seconds",
            "substepping",
            "max_substep_delta_time",
            "max_substeps",
            "max_culling_distance",
            "deterministic_ragdolls",
            "tile_stream_distance",
            "actor_active_distance",
            "spectator_as_ego",
        ]
    ),
    "WorldSnapshot": tuple(["id", "frame", "timestamp", "find", "has_actor", "get_actor_ids"]),
    "ActorSnapshot": tuple(
        ["id", "get_acceleration", "get_angular_velocity", "get_transform", "get_velocity"]
    ),
    "Timestamp": tuple(["frame", "elapsed_seconds", "delta_seconds", "platform_timestamp"]),
    "Actor": tuple(_ACTOR.split()),
    "Vehicle": tuple((_ACTOR + " " + _VEHICLE).split()),
    "Walker": tuple(
        (
            _ACTOR + " apply_control blend_pose get_bones get_control get_pose_from_animation"
            " hide_pose set_bones show_pose"
        ).split()
    ),
    "WalkerAIController": tuple((_ACTOR + " go_to_location set_max_speed start stop").split()),
    "TrafficSign": tuple((_ACTOR + " trigger_volume").split()),
    "TrafficLight": tuple(
        (
            _ACTOR + " trigger_volume state freeze get_affected_lane_waypoints"
            " get_elapsed_time get_green_time get_group_traffic_lights get_light_boxes"
            " get_opendrive_id get_pole_index get_red_time get_state get_stop_waypoints"
            " get_yellow_time is_frozen reset_group set_green_time set_red_time set_state"
            " set_yellow_time"
        ).split()
    ),
    "Sensor": tuple((_ACTOR + _SENSOR).split()),
    "ActorList": tuple(["filter", "find"]),
    "ActorBlueprint": tuple(
        ["id", "tags", "get_attribute", "has_attribute", "has_tag", "match_tags", "set_attribute"]
    ),
    "BlueprintLibrary": tuple(["filter", "filter_by_attribute", "find"]),
    "ActorAttribute": tuple(
        [
            "id",
            "is_modifiable",
            "recommended_values",
            "type",
            "as_bool",
            "as_color",
            "as_float",
            "as_int",
            "as_str",
        ]
    ),
    "Map": tuple(
        [
            "name",
            "cook_in_memory_map",
            "generate_waypoints",
            "get_all_landmarks",
            "get_all_landmarks_from_id",
            "get_all_landmarks_of_type",
            "get_crosswalks",
            "get_landmark_group",
            "get_spawn_points",
            "get_topology",
            "get_waypoint",
            "get_waypoint_xodr",
            "save_to_disk",
            "to_opendrive",
            "transform_to_geolocation",
            "geolocation_to_transform",
        ]
    ),
    "Waypoint": tuple(
        [
            "id",
            "transform",
            "road_id",
            "section_id",
            "lane_id",
            "s",
            "is_junction",
            "is_intersection",
            "junction_id",
            "lane_width",
            "lane_change",
            "lane_type",
            "right_lane_marking",
            "left_lane_marking",
            "get_junction",
            "get_landmarks",
            "get_landmarks_of_type",
            "get_left_lane",
            "get_right_lane",
            "next",
            "next_until_lane_end",
            "previous",
            "previous_until_lane_start",
        ]
    ),
    "Junction": tuple(["id", "bounding_box", "get_waypoints"]),
    "Landmark": tuple(
        [
            "road_id",
            "distance",
            "s",
            "t",
            "id",
            "name",
            "is_dynamic",
            "orientation",
            "z_offset",
            "country",
            "type",
            "sub_type",
            "value",
            "unit",
            "height",
            "width",
            "text",
            "h_offset",
            "pitch",
            "roll",
            "waypoint",
            "transform",
            "get_lane_validities",
        ]
    ),
    "Location": tuple(
        ["x", "y", "z", "distance", "distance_2d", "distance_squared", "distance_squared_2d"]
    ),
    "Vector3D": tuple(
        [
            "x",
            "y",
            "z",
            "abs",
            "cross",
            "distance",
            "distance_2d",
            "distance_squared",
            "distance_squared_2d",
            "dot",
            "dot_2d",
            "get_vector_angle",
            "length",
            "make_unit_vector",
            "squared_length",
        ]
    ),
    "Vector2D": tuple(["x", "y", "length", "make_unit_vector", "squared_length"]),
    "Rotation": tuple(
        ["pitch", "yaw", "roll", "get_forward_vector", "get_right_vector", "get_up_vector"]
    ),
    "Transform": tuple(
        [
            "location",
            "rotation",
            "get_forward_vector",
            "get_inverse_matrix",
            "get_matrix",
            "get_right_vector",
            "get_up_vector",
            "inverse_transform",
            "transform",
            "transform_vector",
        ]
    ),
    "BoundingBox": tuple(
        ["location", "extent", "rotation", "contains", "get_local_vertices", "get_world_vertices"]
    ),
    "GeoLocation": tuple(["latitude", "longitude", "altitude"]),
    "VehicleControl": tuple(
        ["throttle", "steer", "brake", "hand_brake", "reverse", "manual_gear_shift", "gear"]
    ),
    "VehicleAckermannControl": tuple(["steer", "steer_speed", "speed", "acceleration", "jerk"]),
    "WalkerControl": tuple(["direction", "speed", "jump"]),
    "VehiclePhysicsControl": tuple(
        [
            "torque_curve",
            "max_rpm",
            "moi",
            "damping_rate_full_throttle",
            "damping_rate_zero_throttle_clutch_engaged",
            "damping_rate_zero_throttle_clutch_disengaged",
            "use_gear_autobox",
            "gear_switch_time",
            "clutch_strength",
            "final_ratio",
            "forward_gears",
            "mass",
            "drag_coefficient",
            "center_of_mass",
            "steering_curve",
            "use_sweep_wheel_collision",
            "wheels",
        ]
    ),
    "WheelPhysicsControl": tuple(
        [
            "tire_friction",
            "damping_rate",
            "max_steer_angle",
            "radius",
            "max_brake_torque",
            "max_handbrake_torque",
            "position",
        ]
    ),
    "GearPhysicsControl": tuple(["ratio", "down_ratio", "up_ratio"]),
    "WeatherParameters": tuple(
        [
            "cloudiness",
            "precipitation",
            "precipitation_deposits",
            "wind_intensity",
            "sun_azimuth_angle",
            "sun_altitude_angle",
            "fog_density",
            "fog_distance",
            "fog_falloff",
            "wetness",
            "scattering_intensity",
            "mie_scattering_scale",
            "rayleigh_scattering_scale",
            "dust_storm",
        ]
    ),
    "TrafficManager": tuple(
        [
            "auto_lane_change",
            "collision_detection",
            "distance_to_leading_vehicle",
            "force_lane_change",
            "get_all_actions",
            "get_next_action",
            "get_port",
            "global_lane_offset",
            "global_percentage_speed_difference",
            "ignore_lights_percentage",
            "ignore_signs_percentage",
            "ignore_vehicles_percentage",
            "ignore_walkers_percentage",
            "keep_right_rule_percentage",
            "random_left_lanechange_percentage",
            "random_right_lanechange_percentage",
            "set_boundaries_respawn_dormant_vehicles",
            "set_desired_speed",
            "set_global_distance_to_leading_vehicle",
            "set_hybrid_physics_mode",
            "set_hybrid_physics_radius",
            "set_osm_mode",
            "set_path",
            "set_random_device_seed",
            "set_respawn_dormant_vehicles",
            "set_route",
            "set_synchronous_mode",
            "shut_down",
            "update_vehicle_lights",
            "vehicle_lane_offset",
            "vehicle_percentage_speed_difference",
        ]
    ),
    "Color": tuple(["r", "g", "b", "a"]),
    "CollisionEvent": tuple(["actor", "other_actor", "normal_impulse"]),
    "LaneInvasionEvent": tuple(["actor", "crossed_lane_markings"]),
    "ObstacleDetectionEvent": tuple(["actor", "other_actor", "distance"]),
    "GnssMeasurement": tuple(["altitude", "latitude", "longitude"]),
    "IMUMeasurement": tuple(["accelerometer", "compass", "gyroscope"]),
    "SensorData": tuple(["frame", "timestamp", "transform"]),
    "LabelledPoint": tuple(["location", "label"]),
    "EnvironmentObject": tuple(["id", "name", "type", "transform", "bounding_box"]),
    "Image": tuple(["width", "height", "fov", "raw_data", "convert", "save_to_disk"]),
    "LidarMeasurement": tuple(
        ["channels", "horizontal_angle", "raw_data", "get_point_count", "save_to_disk"]
    ),
    "SemanticLidarMeasurement": tuple(
        ["channels", "horizontal_angle", "raw_data", "get_point_count", "save_to_disk"]
    ),
    "LidarDetection": tuple(["point", "intensity"]),
    "SemanticLidarDetection": tuple(["point", "cos_inc_angle", "object_idx", "object_tag"]),
    "RadarMeasurement": tuple(["raw_data", "get_detection_count"]),
    "RadarDetection": tuple(["velocity", "azimuth", "altitude", "depth"]),
    "DVSEvent": tuple(["x", "y", "t", "pol"]),
    "DVSEventArray": tuple(
        [
            "width",
            "height",
            "fov",
            "raw_data",
            "to_array",
            "to_array_x",
            "to_array_y",
            "to_array_t",
            "to_array_pol",
            "to_image",
        ]
    ),
    "OpticalFlowImage": tuple(["width", "height", "fov", "raw_data", "get_color_coded_flow"]),
    "OpticalFlowPixel": tuple(["x", "y"]),
    "LightManager": tuple(
        [
            "get_all_lights",
            "get_color",
            "get_intensity",
            "get_light_group",
            "get_light_state",
            "get_turned_off_lights",
            "get_turned_on_lights",
            "is_active",
            "set_active",
            "set_color",
            "set_colors",
            "set_day_night_cycle",
            "set_intensities",
            "set_intensity",
            "set_light_group",
            "set_light_groups",
            "set_light_state",
            "set_light_states",
            "turn_off",
            "turn_on",
        ]
    ),
    "Light": tuple(
        [
            "color",
            "id",
            "intensity",
            "is_on",
            "light_group",
            "light_state",
            "location",
            "set_color",
            "set_intensity",
            "set_light_group",
            "set_light_state",
            "turn_off",
            "turn_on",
        ]
    ),
    "OpendriveGenerationParameters": tuple(
        [
            "vertex_distance",
            "max_road_length",
            "wall_height",
            "additional_width",
            "smooth_junctions",
            "enable_mesh_visibility",
            "enable_pedestrian_navigation",
        ]
    ),
    "Osm2Odr": tuple(["convert"]),
    "Osm2OdrSettings": tuple(
        ["use_offsets", "offset_x", "offset_y", "default_lane_width", "elevation_layer_height"]
    ),
    "FloatColor": tuple(["r", "g", "b", "a"]),
    "TextureColor": tuple(["width", "height", "get", "set"]),
    "TextureFloatColor": tuple(["width", "height", "get", "set"]),
    "WalkerBoneControlIn": tuple(["bone_transforms"]),
    "WalkerBoneControlOut": tuple(["bone_transforms"]),
    "BoneTransformDataOut": tuple(["name", "world", "relative", "component"]),
    "LightState": tuple(["intensity", "color", "group", "active"]),
    **_RSS_API,
}

ENUMS: tuple[str, ...] = (
    "ActorAttributeType",
    "ActorState",
    "AttachmentType",
    "CityObjectLabel",
    "ColorConverter",
    "LandmarkOrientation",
    "LandmarkType",
    "LaneChange",
    "LaneMarkingColor",
    "LaneMarkingType",
    "LaneType",
    "LightGroup",
    "MapLayer",
    "MaterialParameter",
    "RssLogLevel",
    "RssRoadBoundariesMode",
    "TrafficLightState",
    "VehicleDoor",
    "VehicleFailureState",
    "VehicleLightState",
    "VehicleWheelLocation",
)

COMMAND_API: dict[str, tuple[str, ...]] = {
    "Response": ("actor_id", "error", "has_error"),
    "SpawnActor": ("transform", "parent_id", "then"),
    "DestroyActor": ("actor_id",),
    "ApplyVehicleControl": ("actor_id", "control"),
    "ApplyVehicleAckermannControl": ("actor_id", "control"),
    "ApplyWalkerControl": ("actor_id", "control"),
    "ApplyVehiclePhysicsControl": ("actor_id", "physics_control"),
    "ApplyTransform": ("actor_id", "transform"),
    "ApplyWalkerState": ("actor_id", "transform", "speed"),
    "ApplyTargetVelocity": ("actor_id", "velocity"),
    "ApplyTargetAngularVelocity": ("actor_id", "angular_velocity"),
    "ApplyImpulse": ("actor_id", "impulse"),
    "ApplyForce": ("actor_id", "force"),
    "ApplyAngularImpulse": ("actor_id", "impulse"),
    "ApplyTorque": ("actor_id", "torque"),
    "SetSimulatePhysics": ("actor_id", "enabled"),
    "SetEnableGravity": ("actor_id", "enabled"),
    "SetAutopilot": ("actor_id", "enabled", "port"),
    "SetVehicleLightState": ("actor_id", "light_state"),
    "ShowDebugTelemetry": ("actor_id", "enabled"),
    "FutureActor": (),
}
