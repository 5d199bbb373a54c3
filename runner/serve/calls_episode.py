"""The calls about the episode as a whole: version, episode and settings, the tick, maps,
weather, the level's objects and rays, lights, and the traffic managers' registry.

Each function takes the session and the call's arguments as CARLA's client sends them
(after the metadata) and returns the value CARLA's server would (runner.serve.dispatch
wraps it). Shapes: docs/serve.md.
"""

from __future__ import annotations

from typing import Any

from runner.carla.client import CARLA_VERSION
from runner.carla.maps import map_key
from runner.serve import shapes
from runner.serve.dispatch import VOID_RESULT, Method
from runner.serve.errors import CallError
from runner.serve.stream import WORLD_STREAM
from world import BoundingBox, CityObjectLabel, Color
from world.debug import ShapeKind

__all__ = ["METHODS"]

MAP_PATH = "Carla/Maps/"  # how CARLA's server names its maps in MapInfo
OPENDRIVE_MAP = "OpenDriveMap"  # the map name generate_opendrive_world loads


def version(session: Any) -> str:
    return CARLA_VERSION


def get_episode_info(session: Any) -> list:
    """EpisodeInfo: the episode id and the world stream's token."""
    session.world  # noqa: B018 - makes the episode when none is yet
    return [session.episode_id, [session.stream_token(WORLD_STREAM)]]


def get_sensor_token(session: Any, stream_id: Any) -> list:
    stream_id = shapes.integer(stream_id, "get_sensor_token: stream id", high=1 << 32)
    return [session.stream_token(stream_id)]


def get_episode_settings(session: Any) -> list:
    settings = session.world.get_settings()
    if session.asked_delta is None:
        settings.fixed_delta_seconds = None
    return shapes.settings_out(settings, session.synchronous)


def set_episode_settings(session: Any, settings: Any) -> int:
    """Applies the settings; returns the frame the client waits to see (the current one)."""
    world = session.world
    applied, synchronous, delta = shapes.settings_in(settings, world.get_settings())
    if delta is None:
        session.say_variable_step()
    world.apply_settings(applied)
    session.synchronous, session.asked_delta = synchronous, delta
    return world.get_snapshot().frame


def tick_cue(session: Any) -> int:
    """Steps the world once in synchronous mode and returns the frame it made; in
    asynchronous mode the server's clock steps it and this answers the current frame."""
    if not session.synchronous:
        return session.world.get_snapshot().frame
    return session.tick()


def get_available_maps(session: Any) -> list[str]:
    return session.client.get_available_maps()


def load_new_episode(session: Any, map_name: Any, reset_settings: Any = True, layers: Any = 0):
    """Loads a map by name as a new episode; the current map's name, or no name (CARLA's
    client's reload_world), reloads it."""
    name = shapes.text(map_name, "load_new_episode: map name")
    reset = shapes.boolean(reset_settings, "load_new_episode: reset_settings", True)
    client = session.client
    if map_key(name) == OPENDRIVE_MAP and session.opendrive_text is not None:
        text = session.opendrive_text
        session.load(lambda: client.generate_opendrive_world(text, None, reset), reset)
    elif name == "" or map_key(name) == session.map_name():
        session.load(lambda: client.reload_world(reset), reset)
    else:
        session.load(lambda: client.load_world(name, reset), reset)


def copy_opendrive_to_file(session: Any, opendrive: Any, parameters: Any = None) -> None:
    """Keeps the OpenDRIVE text the next `load_new_episode('OpenDriveMap')` loads."""
    session.opendrive_text = shapes.text(opendrive, "copy_opendrive_to_file: opendrive")


def load_map_layer(session: Any, layers: Any) -> None:
    """lockstep's maps have no layers to load or unload: accepted, as in-process."""
    shapes.integer(layers, "load_map_layer: layers", high=1 << 16)


def unload_map_layer(session: Any, layers: Any) -> None:
    shapes.integer(layers, "unload_map_layer: layers", high=1 << 16)


def set_annotations_traverse_translucency(session: Any, enable: Any) -> None:
    """Only the rendering sensors' annotations would change: accepted."""
    shapes.boolean(enable, "set_annotations_traverse_translucency: enable")


def get_map_info(session: Any) -> list:
    """MapInfo: the map's name and its recommended spawn points."""
    points = session.world.get_map().get_spawn_points()
    return [MAP_PATH + session.map_name(), [shapes.transform_out(t) for t in points]]


def get_map_data(session: Any) -> str:
    """The map's OpenDRIVE text: CARLA's client builds its own Map from it."""
    return session.world.get_map().to_opendrive()


def get_required_files(session: Any, folder: Any = "") -> list[str]:
    """The files CARLA's client caches: in "Nav", the pedestrians' navigation mesh (made
    from the map, runner.serve.navmesh); nothing else (the client builds its map and its
    traffic manager's map from the OpenDRIVE text)."""
    if shapes.text(folder, "get_required_files: folder") != "Nav":
        return []
    found = session.navigation()
    return [] if found is None else [found[0]]


def request_file(session: Any, name: Any) -> bytes:
    """A file named by get_required_files, and no other."""
    name = shapes.text(name, "request_file: name")
    found = session.navigation()
    if found is None or name != found[0]:
        raise CallError(f"request_file: lockstep serve has no file {name!r}")
    return found[1]


def get_navigation_mesh(session: Any) -> bytes:
    found = session.navigation()
    return b"" if found is None else found[1]


def get_weather_parameters(session: Any) -> list[float]:
    return shapes.weather_out(session.world.get_weather())


def set_weather_parameters(session: Any, weather: Any) -> None:
    session.world.set_weather(shapes.weather_in(weather))


def _label(value: Any, function: str) -> CityObjectLabel:
    tag = shapes.integer(value, f"{function}: tag", high=256)
    try:
        return CityObjectLabel(tag)
    except ValueError as exc:
        raise CallError(f"{function}: no CityObjectLabel {tag}") from exc


def get_all_level_BBs(session: Any, tag: Any) -> list:
    boxes = session.world.get_level_bbs(_label(tag, "get_all_level_BBs"))
    return [shapes.bounding_box_out(box) for box in boxes]


def get_environment_objects(session: Any, tag: Any) -> list:
    """EnvironmentObject: transform, bounding box, id (u64), name, type."""
    objects = session.world.get_environment_objects(_label(tag, "get_environment_objects"))
    return [
        [
            shapes.transform_out(o.transform),
            shapes.bounding_box_out(o.bounding_box),
            int(o.id),
            o.name,
            int(o.type),
        ]
        for o in objects
    ]


def enable_environment_objects(session: Any, ids: Any, enable: Any) -> None:
    """The level's objects are the map's lights and signs, always there: accepted."""
    shapes.boolean(enable, "enable_environment_objects: enable")


def project_point(session: Any, location: Any, direction: Any, search_distance: Any) -> list:
    """[found, LabelledPoint]."""
    point = session.world.project_point(
        shapes.location_in(location, "project_point: location"),
        shapes.vector_in(direction, "project_point: direction"),
        shapes.number(search_distance, "project_point: search_distance"),
    )
    if point is None:
        return [False, [[0.0, 0.0, 0.0], 0]]
    return [True, [shapes.vector_out(point.location), int(point.label)]]


def cast_ray(session: Any, start: Any, end: Any) -> list:
    points = session.world.cast_ray(
        shapes.location_in(start, "cast_ray: start"), shapes.location_in(end, "cast_ray: end")
    )
    return [[shapes.vector_out(p.location), int(p.label)] for p in points]


def get_vehicle_light_states(session: Any) -> list:
    """[actor id, light flags] of every vehicle."""
    actors, vehicles, _ = session.world.state_tables()
    n = vehicles.n
    rows = vehicles.actor[:n]
    alive = actors.alive[rows]
    ids = (rows[alive] + 1).tolist()
    flags = vehicles.lights[:n][alive].tolist()
    return [[i, f] for i, f in zip(ids, flags, strict=True)]


def query_lights_state(session: Any, client: Any) -> list:
    """The street lights of the light subsystem: lockstep's maps have none."""
    return []


def update_lights_state(session: Any, client: Any, lights: Any, discard: Any) -> None:
    return None


def update_day_night_cycle(session: Any, client: Any, active: Any) -> None:
    return None


# debug drawings --------------------------------------------------------------------------
_SHAPES = ("point", "line", "arrow", "box", "string")  # CARLA's DebugShape variant order


def draw_debug_shape(session: Any, shape: Any) -> None:
    """A DebugShape [primitive, color, life time, persistent] drawn with the world's
    DebugHelper (kept as data, world.debug); indices 5-8 are the HUD forms of 0-3."""
    if not isinstance(shape, list) or not shape or not isinstance(shape[0], list):
        raise CallError("draw_debug_shape: expected [[kind, primitive], color, life, persistent]")
    kind = shapes.integer(shape[0][0], "draw_debug_shape: kind", high=9)
    primitive = shape[0][1] if len(shape[0]) > 1 and isinstance(shape[0][1], list) else []
    rgb = shape[1] if len(shape) > 1 and isinstance(shape[1], list) else [255, 0, 0]
    color = Color(*[shapes.integer(c, "draw_debug_shape: color", high=256) for c in rgb[:3]])
    life = shapes.number(shape[2] if len(shape) > 2 else None, "draw_debug_shape: life", -1.0)
    persistent = shapes.boolean(shape[3] if len(shape) > 3 else None, "persistent", True)
    debug, hud = session.world.debug, kind >= 5
    name = _SHAPES[kind - 5 if hud else kind]
    p = (primitive + [None] * 3)[:3]
    keep = {} if hud else {"persistent_lines": persistent}
    where = f"draw_debug_shape: {name}"
    if name == "point":
        draw = debug.draw_hud_point if hud else debug.draw_point
        draw(shapes.location_in(p[0], where), shapes.number(p[1], where, 0.1), color, life, **keep)
    elif name == "line":
        draw = debug.draw_hud_line if hud else debug.draw_line
        begin, end = shapes.location_in(p[0], where), shapes.location_in(p[1], where)
        draw(begin, end, shapes.number(p[2], where, 0.1), color, life, **keep)
    elif name == "arrow":
        line = (p[0] if isinstance(p[0], list) else []) + [None] * 3
        draw = debug.draw_hud_arrow if hud else debug.draw_arrow
        begin, end = shapes.location_in(line[0], where), shapes.location_in(line[1], where)
        thickness = shapes.number(line[2], where, 0.1)
        draw(begin, end, thickness, shapes.number(p[1], where, 0.1), color, life, **keep)
    elif name == "box":
        box = (p[0] if isinstance(p[0], list) else []) + [None] * 3
        bounds = BoundingBox(shapes.location_in(box[0], where), shapes.vector_in(box[1], where))
        rotation = shapes.transform_in([[0, 0, 0], p[1] or [0, 0, 0]], where).rotation
        draw = debug.draw_hud_box if hud else debug.draw_box
        draw(bounds, rotation, shapes.number(p[2], where, 0.1), color, life, **keep)
    else:
        text = shapes.text(p[1], where)
        shadow = shapes.boolean(p[2], where)
        debug.draw_string(shapes.location_in(p[0], where), text, shadow, color, life, persistent)


def clear_debug_shape(session: Any) -> None:
    """Forgets every drawing but the texts (CARLA's clear of its shapes)."""
    debug = session.world.debug
    debug.shapes[:] = [s for s in debug.shapes if s.kind == ShapeKind.String]


def clear_debug_string(session: Any) -> None:
    debug = session.world.debug
    debug.shapes[:] = [s for s in debug.shapes if s.kind != ShapeKind.String]


# traffic managers' registry ---------------------------------------------------------------
def _port(value: Any, function: str) -> int:
    return shapes.integer(value, f"{function}: port", high=1 << 16)


def is_traffic_manager_running(session: Any, port: Any) -> bool:
    return _port(port, "is_traffic_manager_running") in session.traffic_managers


def get_traffic_manager_running(session: Any, port: Any) -> list:
    host, found, _owner = session.traffic_managers.get(
        _port(port, "get_traffic_manager_running"), ("", 0, None)
    )
    return [host, found]


def add_traffic_manager_running(session: Any, info: Any) -> bool:
    """Registers a client's traffic manager (CARLA's client then runs it in its process);
    it goes when that client's connection closes."""
    if not isinstance(info, list) or len(info) != 2:
        raise CallError("add_traffic_manager_running: expected [host, port]")
    host = shapes.text(info[0], "add_traffic_manager_running: host")
    port = _port(info[1], "add_traffic_manager_running")
    if port in session.traffic_managers:
        return False
    session.traffic_managers[port] = (host, port, session.caller)
    session.log(f"CARLA's traffic manager runs in a client, on port {port}")
    return True


def destroy_traffic_manager(session: Any, port: Any) -> bool:
    port = _port(port, "destroy_traffic_manager")
    found = session.traffic_managers.get(port)
    if found is None or found[2] is None:  # lockstep's own stays
        return False
    del session.traffic_managers[port]
    return True


METHODS: dict[str, Method] = {
    "version": Method(version),
    "get_episode_info": Method(get_episode_info),
    "get_sensor_token": Method(get_sensor_token),
    "get_episode_settings": Method(get_episode_settings),
    "set_episode_settings": Method(set_episode_settings),
    "tick_cue": Method(tick_cue),
    "get_available_maps": Method(get_available_maps),
    "load_new_episode": Method(load_new_episode, VOID_RESULT),
    "copy_opendrive_to_file": Method(copy_opendrive_to_file, VOID_RESULT),
    "load_map_layer": Method(load_map_layer, VOID_RESULT),
    "unload_map_layer": Method(unload_map_layer, VOID_RESULT),
    "set_annotations_traverse_translucency": Method(
        set_annotations_traverse_translucency, VOID_RESULT
    ),
    "get_map_info": Method(get_map_info),
    "get_map_data": Method(get_map_data),
    "get_required_files": Method(get_required_files),
    "request_file": Method(request_file),
    "get_navigation_mesh": Method(get_navigation_mesh),
    "get_weather_parameters": Method(get_weather_parameters),
    "set_weather_parameters": Method(set_weather_parameters, VOID_RESULT),
    "get_all_level_BBs": Method(get_all_level_BBs),
    "get_environment_objects": Method(get_environment_objects),
    "enable_environment_objects": Method(enable_environment_objects, VOID_RESULT),
    "project_point": Method(project_point),
    "cast_ray": Method(cast_ray),
    "get_vehicle_light_states": Method(get_vehicle_light_states),
    "query_lights_state": Method(query_lights_state),
    "update_lights_state": Method(update_lights_state, VOID_RESULT),
    "update_day_night_cycle": Method(update_day_night_cycle, VOID_RESULT),
    "draw_debug_shape": Method(draw_debug_shape, VOID_RESULT),
    "clear_debug_shape": Method(clear_debug_shape, VOID_RESULT),
    "clear_debug_string": Method(clear_debug_string, VOID_RESULT),
    "is_traffic_manager_running": Method(is_traffic_manager_running),
    "get_traffic_manager_running": Method(get_traffic_manager_running),
    "add_traffic_manager_running": Method(add_traffic_manager_running),
    "destroy_traffic_manager": Method(destroy_traffic_manager),
}
