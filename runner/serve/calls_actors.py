"""The calls about actors: blueprints, spawn and destroy, poses and motion, vehicles,
walkers, traffic lights. Each takes the session and CARLA's arguments; the actor is found
by id (CARLA's not-found error otherwise) and the call is the in-process handle's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runner.serve import shapes
from runner.serve.dispatch import VOID_RESULT, Method
from runner.serve.errors import CallError
from world import (
    Actor,
    AttachmentType,
    BlueprintError,
    Location,
    TrafficLight,
    TrafficLightState,
    TrafficSign,
    Transform,
    Vector3D,
    Vehicle,
    VehicleDoor,
    VehicleLightState,
    VehicleWheelLocation,
    Walker,
    WalkerBoneControlIn,
    WalkerControl,
)

__all__ = ["METHODS", "SPAWN_COLLISION", "spawn"]

SPAWN_COLLISION = "Spawn failed because of collision at spawn position"
MAX_IDS = 1 << 20


def get_actor_definitions(session: Any) -> list:
    return session.definitions()


def get_spectator(session: Any) -> list:
    return session.rpc_actor(session.world.get_spectator())


def get_actors_by_id(session: Any, ids: Any) -> list:
    """rpc::Actor of each id that is alive, in the order asked."""
    if not isinstance(ids, list) or len(ids) > MAX_IDS:
        raise CallError(f"get_actors_by_id: expected an array of at most {MAX_IDS} ids")
    world = session.world
    out = []
    for value in ids:
        actor = world.get_actor(shapes.integer(value, "get_actors_by_id: id", high=1 << 32))
        if actor is not None:
            out.append(session.rpc_actor(actor))
    return out


def _blueprint(session: Any, description: Any) -> Any:
    """The library's blueprint of an ActorDescription [uid, id, [[attribute, type, value]]],
    with the description's values set."""
    if not isinstance(description, list) or len(description) < 2:
        raise CallError("spawn_actor: expected an ActorDescription [uid, id, attributes]")
    type_id = shapes.text(description[1], "spawn_actor: blueprint id")
    library = session.world.get_blueprint_library()
    if type_id not in library:
        raise CallError(f"spawn_actor: no blueprint {type_id!r} in lockstep's library")
    blueprint = library.find(type_id)
    attributes = description[2] if len(description) > 2 else []
    if not isinstance(attributes, list):
        raise CallError("spawn_actor: the attributes must be an array")
    for item in attributes:
        if not isinstance(item, list) or len(item) < 3:
            raise CallError("spawn_actor: an attribute must be [id, type, value]")
        name = shapes.text(item[0], "spawn_actor: attribute id")
        value = shapes.text(item[2], f"spawn_actor: attribute {name}")
        if not blueprint.has_attribute(name):
            continue
        attribute = blueprint.get_attribute(name)
        if attribute.is_modifiable and attribute.value != value:
            try:
                blueprint.set_attribute(name, value)
            except BlueprintError as exc:
                raise CallError(f"spawn_actor: {exc}") from exc
    return blueprint


def spawn(
    session: Any, description: Any, transform: Any, parent_id: int | None, attachment: Any = 0
) -> Actor:
    """Spawns an ActorDescription (CallError with CARLA's text when it cannot)."""
    world = session.world
    blueprint = _blueprint(session, description)
    where = shapes.transform_in(transform, "spawn_actor: transform")
    parent = None if not parent_id else session.actor(parent_id, "spawn_actor_with_parent")
    kind = shapes.integer(attachment, "spawn_actor: attachment type", high=256)
    attachment_type = AttachmentType(kind) if kind in (0, 1, 2) else AttachmentType.Rigid
    actor = world.try_spawn_actor(blueprint, where, parent, attachment_type)
    if actor is None:
        raise CallError(SPAWN_COLLISION)
    return actor


def spawn_actor(session: Any, description: Any, transform: Any) -> list:
    return session.rpc_actor(spawn(session, description, transform, None))


def spawn_actor_with_parent(
    session: Any,
    description: Any,
    transform: Any,
    parent: Any,
    attachment_type: Any = 0,
    socket_name: Any = "",
) -> list:
    parent_id = shapes.integer(parent, "spawn_actor_with_parent: parent", high=1 << 32)
    return session.rpc_actor(spawn(session, description, transform, parent_id, attachment_type))


def destroy_actor(session: Any, actor_id: Any) -> bool:
    """Destroys the actor; False for the map's own actors (the spectator, lights, signs)."""
    value = shapes.integer(actor_id, "destroy_actor: actor id", high=1 << 32)
    actor = session.world.get_actor(value)
    if actor is None:
        raise CallError("unable to destroy actor: not found")
    destroyed = actor.destroy()
    if destroyed:
        session.forget_actor(actor.id)
    return destroyed


def get_actor_bounding_box(session: Any, actor_id: Any) -> list:
    return shapes.bounding_box_out(session.actor(actor_id, "get_actor_bounding_box").bounding_box)


# pose and motion --------------------------------------------------------------------------
def set_actor_location(session: Any, actor_id: Any, location: Any) -> None:
    actor = session.actor(actor_id, "set_actor_location")
    actor.set_location(shapes.location_in(location, "set_actor_location: location"))


def set_actor_transform(session: Any, actor_id: Any, transform: Any) -> None:
    actor = session.actor(actor_id, "set_actor_transform")
    actor.set_transform(shapes.transform_in(transform, "set_actor_transform: transform"))


def set_walker_state(session: Any, actor_id: Any, transform: Any, speed: Any) -> None:
    """Places a walker and walks it along its heading at `speed` (CARLA's ApplyWalkerState)."""
    walker = _of(session.actor(actor_id, "set_walker_state"), Walker, "set_walker_state")
    walker_state(walker, shapes.transform_in(transform, "set_walker_state: transform"), speed)


def walker_state(walker: Walker, transform: Transform, speed: Any) -> None:
    """CARLA's ApplyWalkerState: the transform's location is on the ground (where the
    client's navigation puts its walkers), the walker's body stands on it; it walks along
    the transform's heading at `speed`."""
    box = walker.bounding_box
    rest = max(box.extent.z - box.location.z, 0.0)  # the body's origin above its feet
    loc = transform.location
    walker.set_transform(Transform(Location(loc.x, loc.y, loc.z + rest), transform.rotation))
    forward = transform.rotation.get_forward_vector()
    walker.apply_control(WalkerControl(forward, shapes.number(speed, "walker state: speed")))


def _setter(method: str, name: str, read: Callable[[Any, str], Any], kind: type = Actor):
    """A call `name(actor id, value)` that runs the handle's `method(read(value))` on an
    actor of `kind`."""

    def call(session: Any, actor_id: Any, value: Any) -> None:
        actor = _of(session.actor(actor_id, name), kind, name)
        getattr(actor, method)(read(value, f"{name}: argument 2"))

    call.__name__ = name
    return call


def _at_location(session: Any, actor_id: Any, vector: Any, location: Any, name: str, kind: str):
    """A push at a point: the push itself and the turn it gives about the body's centre
    (r x F, whose yaw part lockstep's bodies take)."""
    actor = session.actor(actor_id, name)
    push = shapes.vector_in(vector, f"{name}: {kind}")
    at = shapes.location_in(location, f"{name}: location")
    here = actor.get_location()
    rx, ry, rz = at.x - here.x, at.y - here.y, at.z - here.z
    turn = Vector3D(ry * push.z - rz * push.y, rz * push.x - rx * push.z, rx * push.y - ry * push.x)
    if kind == "impulse":
        actor.add_impulse(push)
        actor.add_angular_impulse(turn)
    else:
        actor.add_force(push)
        actor.add_torque(turn)


def add_actor_impulse_at_location(session: Any, actor_id: Any, impulse: Any, location: Any):
    _at_location(session, actor_id, impulse, location, "add_actor_impulse_at_location", "impulse")


def add_actor_force_at_location(session: Any, actor_id: Any, force: Any, location: Any):
    _at_location(session, actor_id, force, location, "add_actor_force_at_location", "force")


def disable_actor_constant_velocity(session: Any, actor_id: Any) -> None:
    session.actor(actor_id, "disable_actor_constant_velocity").disable_constant_velocity()


def set_actor_collisions(session: Any, actor_id: Any, enabled: Any) -> None:
    """lockstep's bodies always collide: turning collisions off (CARLA's client does it to
    the walkers its AI controllers walk) is accepted and said once on the log."""
    actor = session.actor(actor_id, "set_actor_collisions")
    if not shapes.boolean(enabled, "set_actor_collisions: enabled"):
        session.say_once(
            "set_actor_collisions",
            f"set_actor_collisions(False) on {actor.type_id} {actor.id} and later ones: "
            "accepted, but lockstep's bodies always collide",
        )


# vehicles ---------------------------------------------------------------------------------
def _of(actor: Actor, kind: type, name: str) -> Any:
    if not isinstance(actor, kind):
        raise CallError(
            f"Responding error from function {name}: Actor does not match the expected type. "
            f" Actor Id: {actor.id}"
        )
    return actor


def _vehicle(session: Any, actor_id: Any, name: str) -> Vehicle:
    return _of(session.actor(actor_id, name), Vehicle, name)


def apply_control_to_vehicle(session: Any, actor_id: Any, control: Any) -> None:
    vehicle = _vehicle(session, actor_id, "apply_control_to_vehicle")
    vehicle.apply_control(shapes.vehicle_control_in(control, "VehicleControl"))


def apply_ackermann_control_to_vehicle(session: Any, actor_id: Any, control: Any) -> None:
    vehicle = _vehicle(session, actor_id, "apply_ackermann_control_to_vehicle")
    vehicle.apply_ackermann_control(shapes.ackermann_control_in(control, "AckermannControl"))


def get_physics_control(session: Any, actor_id: Any) -> list:
    vehicle = _vehicle(session, actor_id, "get_physics_control")
    return shapes.physics_control_out(vehicle.get_physics_control())


def apply_physics_control(session: Any, actor_id: Any, control: Any) -> None:
    vehicle = _vehicle(session, actor_id, "apply_physics_control")
    vehicle.apply_physics_control(shapes.physics_control_in(control))


def get_vehicle_light_state(session: Any, actor_id: Any) -> list:
    """VehicleLightState: [flags]."""
    return [int(_vehicle(session, actor_id, "get_vehicle_light_state").get_light_state())]


def set_vehicle_light_state(session: Any, actor_id: Any, state: Any) -> None:
    vehicle = _vehicle(session, actor_id, "set_vehicle_light_state")
    flags = state[0] if isinstance(state, list) and state else state
    vehicle.set_light_state(
        VehicleLightState(shapes.integer(flags, "set_vehicle_light_state: flags", high=1 << 32))
    )


def _door(value: Any, name: str) -> VehicleDoor:
    return VehicleDoor(shapes.integer(value, f"{name}: door", high=len(VehicleDoor)))


def open_vehicle_door(session: Any, actor_id: Any, door: Any) -> None:
    _vehicle(session, actor_id, "open_vehicle_door").open_door(_door(door, "open_vehicle_door"))


def close_vehicle_door(session: Any, actor_id: Any, door: Any) -> None:
    vehicle = _vehicle(session, actor_id, "close_vehicle_door")
    vehicle.close_door(_door(door, "close_vehicle_door"))


def get_wheel_steer_angle(session: Any, actor_id: Any, wheel: Any) -> float:
    vehicle = _vehicle(session, actor_id, "get_wheel_steer_angle")
    index = shapes.integer(wheel, "get_wheel_steer_angle: wheel", high=4)
    return vehicle.get_wheel_steer_angle(VehicleWheelLocation(index))


def set_actor_autopilot(session: Any, actor_id: Any, enabled: Any) -> None:
    """The server-side autopilot: lockstep's traffic manager of the default port."""
    vehicle = _vehicle(session, actor_id, "set_actor_autopilot")
    vehicle.set_autopilot(shapes.boolean(enabled, "set_actor_autopilot: enabled"))


def get_telemetry_data(session: Any, actor_id: Any) -> list:
    """VehicleTelemetryData: speed, steer, throttle, brake, engine rpm, gear, drag, wheels
    (lockstep's single-track model has no per-wheel telemetry: none are given)."""
    data = _vehicle(session, actor_id, "get_telemetry_data").get_telemetry_data()
    return [
        float(data["speed"]),
        float(data["steer"]),
        float(data["throttle"]),
        float(data["brake"]),
        float(data["engine_rpm"]),
        int(data["gear"]),
        0.0,
        [],
    ]


def show_vehicle_debug_telemetry(session: Any, actor_id: Any, enabled: Any) -> None:
    """CARLA draws telemetry on its screen; lockstep has none: accepted."""
    _vehicle(session, actor_id, "show_vehicle_debug_telemetry")


# walkers ----------------------------------------------------------------------------------
def _walker(session: Any, actor_id: Any, name: str) -> Walker:
    return _of(session.actor(actor_id, name), Walker, name)


def apply_control_to_walker(session: Any, actor_id: Any, control: Any) -> None:
    walker = _walker(session, actor_id, "apply_control_to_walker")
    walker.apply_control(shapes.walker_control_in(control, "WalkerControl"))


def get_bones_transform(session: Any, actor_id: Any) -> list:
    """WalkerBoneControlOut: [[name, world, component, relative], ...]."""
    bones = _walker(session, actor_id, "get_bones_transform").get_bones()
    return [
        [
            [
                b.bone_name,
                shapes.transform_out(b.world),
                shapes.transform_out(b.component),
                shapes.transform_out(b.relative),
            ]
            for b in bones.bone_transforms
        ]
    ]


def set_bones_transform(session: Any, actor_id: Any, bones: Any) -> None:
    walker = _walker(session, actor_id, "set_bones_transform")
    items = bones[0] if isinstance(bones, list) and bones else []
    if not isinstance(items, list) or len(items) > MAX_IDS:
        raise CallError("set_bones_transform: expected [[name, transform], ...]")
    pairs = []
    for item in items:
        if not isinstance(item, list) or len(item) != 2:
            raise CallError("set_bones_transform: a bone is [name, transform]")
        name = shapes.text(item[0], "set_bones_transform: bone name")
        pairs.append((name, shapes.transform_in(item[1], f"set_bones_transform: {name}")))
    walker.set_bones(WalkerBoneControlIn(pairs))


def blend_pose(session: Any, actor_id: Any, blend: Any) -> None:
    walker = _walker(session, actor_id, "blend_pose")
    walker.blend_pose(shapes.number(blend, "blend_pose: blend"))


def get_pose_from_animation(session: Any, actor_id: Any) -> None:
    _walker(session, actor_id, "get_pose_from_animation").get_pose_from_animation()


# traffic lights ---------------------------------------------------------------------------
def _light(session: Any, actor_id: Any, name: str) -> TrafficLight:
    return _of(session.actor(actor_id, name), TrafficLight, name)


def set_traffic_light_state(session: Any, actor_id: Any, state: Any) -> None:
    light = _light(session, actor_id, "set_traffic_light_state")
    value = shapes.integer(state, "set_traffic_light_state: state", high=len(TrafficLightState))
    light.set_state(TrafficLightState(value))


def freeze_traffic_light(session: Any, actor_id: Any, freeze: Any) -> None:
    light = _light(session, actor_id, "freeze_traffic_light")
    light.freeze(shapes.boolean(freeze, "freeze_traffic_light: freeze"))


def reset_traffic_light_group(session: Any, actor_id: Any) -> None:
    _light(session, actor_id, "reset_traffic_light_group").reset_group()


def reset_all_traffic_lights(session: Any) -> None:
    session.world.reset_all_traffic_lights()


def freeze_all_traffic_lights(session: Any, frozen: Any) -> None:
    session.world.freeze_all_traffic_lights(shapes.boolean(frozen, "freeze_all_traffic_lights"))


def get_group_traffic_lights(session: Any, actor_id: Any) -> list[int]:
    light = _light(session, actor_id, "get_group_traffic_lights")
    return [other.id for other in light.get_group_traffic_lights()]


def get_light_boxes(session: Any, actor_id: Any) -> list:
    light = _light(session, actor_id, "get_light_boxes")
    return [shapes.bounding_box_out(box) for box in light.get_light_boxes()]


def trigger_volume(actor: Actor) -> Any:
    """What CARLA's client reads as a light's or sign's `trigger_volume` (the box of its
    rpc::Actor), None for other actors."""
    if isinstance(actor, TrafficLight | TrafficSign):
        return actor.trigger_volume
    return None


METHODS: dict[str, Method] = {
    "get_actor_definitions": Method(get_actor_definitions),
    "get_spectator": Method(get_spectator),
    "get_actors_by_id": Method(get_actors_by_id),
    "spawn_actor": Method(spawn_actor),
    "spawn_actor_with_parent": Method(spawn_actor_with_parent),
    "destroy_actor": Method(destroy_actor),
    "get_actor_bounding_box": Method(get_actor_bounding_box),
    "set_actor_location": Method(set_actor_location, VOID_RESULT),
    "set_actor_transform": Method(set_actor_transform, VOID_RESULT),
    "set_walker_state": Method(set_walker_state, VOID_RESULT),
    "set_actor_target_velocity": Method(
        _setter("set_target_velocity", "set_actor_target_velocity", shapes.vector_in), VOID_RESULT
    ),
    "set_actor_target_angular_velocity": Method(
        _setter(
            "set_target_angular_velocity", "set_actor_target_angular_velocity", shapes.vector_in
        ),
        VOID_RESULT,
    ),
    "enable_actor_constant_velocity": Method(
        _setter("enable_constant_velocity", "enable_actor_constant_velocity", shapes.vector_in),
        VOID_RESULT,
    ),
    "disable_actor_constant_velocity": Method(disable_actor_constant_velocity, VOID_RESULT),
    "add_actor_impulse": Method(
        _setter("add_impulse", "add_actor_impulse", shapes.vector_in), VOID_RESULT
    ),
    "add_actor_impulse_at_location": Method(add_actor_impulse_at_location, VOID_RESULT),
    "add_actor_force": Method(
        _setter("add_force", "add_actor_force", shapes.vector_in), VOID_RESULT
    ),
    "add_actor_force_at_location": Method(add_actor_force_at_location, VOID_RESULT),
    "add_actor_angular_impulse": Method(
        _setter("add_angular_impulse", "add_actor_angular_impulse", shapes.vector_in), VOID_RESULT
    ),
    "add_actor_torque": Method(
        _setter("add_torque", "add_actor_torque", shapes.vector_in), VOID_RESULT
    ),
    "set_actor_simulate_physics": Method(
        _setter("set_simulate_physics", "set_actor_simulate_physics", shapes.boolean), VOID_RESULT
    ),
    "set_actor_enable_gravity": Method(
        _setter("set_enable_gravity", "set_actor_enable_gravity", shapes.boolean), VOID_RESULT
    ),
    "set_actor_collisions": Method(set_actor_collisions, VOID_RESULT),
    "apply_control_to_vehicle": Method(apply_control_to_vehicle, VOID_RESULT),
    "apply_ackermann_control_to_vehicle": Method(apply_ackermann_control_to_vehicle, VOID_RESULT),
    "get_physics_control": Method(get_physics_control),
    "apply_physics_control": Method(apply_physics_control, VOID_RESULT),
    "get_vehicle_light_state": Method(get_vehicle_light_state),
    "set_vehicle_light_state": Method(set_vehicle_light_state, VOID_RESULT),
    "open_vehicle_door": Method(open_vehicle_door, VOID_RESULT),
    "close_vehicle_door": Method(close_vehicle_door, VOID_RESULT),
    "get_wheel_steer_angle": Method(get_wheel_steer_angle),
    "set_actor_autopilot": Method(set_actor_autopilot, VOID_RESULT),
    "get_telemetry_data": Method(get_telemetry_data),
    "show_vehicle_debug_telemetry": Method(show_vehicle_debug_telemetry, VOID_RESULT),
    "apply_control_to_walker": Method(apply_control_to_walker, VOID_RESULT),
    "get_bones_transform": Method(get_bones_transform),
    "set_bones_transform": Method(set_bones_transform, VOID_RESULT),
    "blend_pose": Method(blend_pose, VOID_RESULT),
    "get_pose_from_animation": Method(get_pose_from_animation, VOID_RESULT),
    "set_traffic_light_state": Method(set_traffic_light_state, VOID_RESULT),
    "set_traffic_light_green_time": Method(
        _setter("set_green_time", "set_traffic_light_green_time", shapes.number, TrafficLight),
        VOID_RESULT,
    ),
    "set_traffic_light_yellow_time": Method(
        _setter("set_yellow_time", "set_traffic_light_yellow_time", shapes.number, TrafficLight),
        VOID_RESULT,
    ),
    "set_traffic_light_red_time": Method(
        _setter("set_red_time", "set_traffic_light_red_time", shapes.number, TrafficLight),
        VOID_RESULT,
    ),
    "freeze_traffic_light": Method(freeze_traffic_light, VOID_RESULT),
    "reset_traffic_light_group": Method(reset_traffic_light_group, VOID_RESULT),
    "reset_all_traffic_lights": Method(reset_all_traffic_lights, VOID_RESULT),
    "freeze_all_traffic_lights": Method(freeze_all_traffic_lights, VOID_RESULT),
    "get_group_traffic_lights": Method(get_group_traffic_lights),
    "get_light_boxes": Method(get_light_boxes),
}
