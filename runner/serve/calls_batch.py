"""`apply_batch`: CARLA's commands read off the wire and run by lockstep's own batch
(runner.carla.command.run_batch), one CommandResponse each, bare (no Response around the
list: the one exception to CARLA's wrapping).

A Command is `[[index, payload]]`, the index naming its kind in CARLA 0.9.16's variant
order (COMMAND_KINDS). A command that cannot be read answers its own error and the others
run. `SetAutopilot` is the client's business: CARLA's client registers the vehicles with
its traffic manager when it sends the batch (`apply_batch_sync`), so the server takes the
command and does nothing, as lockstep's manager would otherwise drive the same cars.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runner.carla import command as commands
from runner.serve import shapes
from runner.serve.calls_actors import _blueprint, walker_state
from runner.serve.dispatch import BARE, Method
from runner.serve.errors import CallError
from world import TrafficLightState, VehicleLightState

__all__ = ["COMMAND_KINDS", "METHODS", "apply_batch"]

COMMAND_KINDS = (
    "SpawnActor",
    "DestroyActor",
    "ApplyVehicleControl",
    "ApplyVehicleAckermannControl",
    "ApplyWalkerControl",
    "ApplyVehiclePhysicsControl",
    "ApplyTransform",
    "ApplyWalkerState",
    "ApplyTargetVelocity",
    "ApplyTargetAngularVelocity",
    "ApplyImpulse",
    "ApplyForce",
    "ApplyAngularImpulse",
    "ApplyTorque",
    "SetSimulatePhysics",
    "SetEnableGravity",
    "SetAutopilot",
    "ShowDebugTelemetry",
    "SetVehicleLightState",
    "ApplyLocation",
    "ConsoleCommand",
    "SetTrafficLightState",
)


class _Unreadable(commands.Command):
    """A spawn's follow-up that could not be read: it answers its reason when run."""

    __slots__ = ("reason",)

    def __init__(self, actor: int, reason: str) -> None:
        super().__init__(actor)
        self.reason = reason

    def apply(self, actor: Any, world: Any) -> None:
        raise CallError(self.reason)


class _ClientsAutopilot(commands.Command):
    """SetAutopilot as CARLA's server gets it: the client's traffic manager drives."""

    __slots__ = ()

    def apply(self, actor: Any, world: Any) -> None:
        return None


class _ApplyLocation(commands.Command):
    __slots__ = ("location",)

    def __init__(self, actor: int, location: Any) -> None:
        super().__init__(actor)
        self.location = location

    def apply(self, actor: Any, world: Any) -> None:
        actor.set_location(self.location)


class _WalkerState(commands.Command):
    __slots__ = ("speed", "transform")

    def __init__(self, actor: int, transform: Any, speed: float) -> None:
        super().__init__(actor)
        self.transform, self.speed = transform, speed

    def apply(self, actor: Any, world: Any) -> None:
        walker_state(actor, self.transform, self.speed)


class _TrafficLightState(commands.Command):
    __slots__ = ("state",)

    def __init__(self, actor: int, state: TrafficLightState) -> None:
        super().__init__(actor)
        self.state = state

    def apply(self, actor: Any, world: Any) -> None:
        actor.set_state(self.state)


def _actor_id(payload: list, kind: str) -> int:
    return shapes.integer(payload[0] if payload else None, f"{kind}: actor", high=1 << 32)


def _vector(cls: type) -> Callable[[list, str], Any]:
    def read(payload: list, kind: str) -> Any:
        return cls(_actor_id(payload, kind), shapes.vector_in(_arg(payload, 1), kind))

    return read


def _flag(cls: type) -> Callable[[list, str], Any]:
    def read(payload: list, kind: str) -> Any:
        return cls(_actor_id(payload, kind), shapes.boolean(_arg(payload, 1), kind))

    return read


def _arg(payload: list, i: int) -> Any:
    return payload[i] if len(payload) > i else None


def _light_state(payload: list, kind: str) -> Any:
    flags = shapes.integer(_arg(payload, 1), f"{kind}: flags", high=1 << 32)
    return commands.SetVehicleLightState(_actor_id(payload, kind), VehicleLightState(flags))


def _traffic_light_state(payload: list, kind: str) -> Any:
    state = shapes.integer(_arg(payload, 1), f"{kind}: state", high=len(TrafficLightState))
    return _TrafficLightState(_actor_id(payload, kind), TrafficLightState(state))


_READERS: dict[str, Callable[[list, str], Any]] = {
    "DestroyActor": lambda p, k: commands.DestroyActor(_actor_id(p, k)),
    "ApplyVehicleControl": lambda p, k: commands.ApplyVehicleControl(
        _actor_id(p, k), shapes.vehicle_control_in(_arg(p, 1), k)
    ),
    "ApplyVehicleAckermannControl": lambda p, k: commands.ApplyVehicleAckermannControl(
        _actor_id(p, k), shapes.ackermann_control_in(_arg(p, 1), k)
    ),
    "ApplyWalkerControl": lambda p, k: commands.ApplyWalkerControl(
        _actor_id(p, k), shapes.walker_control_in(_arg(p, 1), k)
    ),
    "ApplyVehiclePhysicsControl": lambda p, k: commands.ApplyVehiclePhysicsControl(
        _actor_id(p, k), shapes.physics_control_in(_arg(p, 1))
    ),
    "ApplyTransform": lambda p, k: commands.ApplyTransform(
        _actor_id(p, k), shapes.transform_in(_arg(p, 1), k)
    ),
    "ApplyWalkerState": lambda p, k: _WalkerState(
        _actor_id(p, k), shapes.transform_in(_arg(p, 1), k), shapes.number(_arg(p, 2), k)
    ),
    "ApplyTargetVelocity": _vector(commands.ApplyTargetVelocity),
    "ApplyTargetAngularVelocity": _vector(commands.ApplyTargetAngularVelocity),
    "ApplyImpulse": _vector(commands.ApplyImpulse),
    "ApplyForce": _vector(commands.ApplyForce),
    "ApplyAngularImpulse": _vector(commands.ApplyAngularImpulse),
    "ApplyTorque": _vector(commands.ApplyTorque),
    "SetSimulatePhysics": _flag(commands.SetSimulatePhysics),
    "SetEnableGravity": _flag(commands.SetEnableGravity),
    "SetAutopilot": lambda p, k: _ClientsAutopilot(_actor_id(p, k)),
    "ShowDebugTelemetry": _flag(commands.ShowDebugTelemetry),
    "SetVehicleLightState": _light_state,
    "ApplyLocation": lambda p, k: _ApplyLocation(
        _actor_id(p, k), shapes.location_in(_arg(p, 1), k)
    ),
    "SetTrafficLightState": _traffic_light_state,
}


def _command(session: Any, value: Any, nested: bool = False) -> Any:
    """A wire Command as lockstep's batch command, or the reason it cannot be read (a
    follow-up of a spawn that cannot be read answers its reason when it runs)."""
    try:
        if not isinstance(value, list) or len(value) != 1 or not isinstance(value[0], list):
            raise CallError("a command must be [[kind, payload]]")
        kind_index, payload = (value[0] + [None, None])[:2]
        kind_index = shapes.integer(kind_index, "command kind", high=len(COMMAND_KINDS))
        kind = COMMAND_KINDS[kind_index]
        if not isinstance(payload, list):
            raise CallError(f"{kind}: the payload must be an array")
        if kind == "SpawnActor":
            if nested:
                raise CallError("SpawnActor: a spawn cannot follow another spawn")
            return _spawn(session, payload)
        if kind == "ConsoleCommand":
            raise CallError("ConsoleCommand: lockstep has no console")
        return _READERS[kind](payload, kind)
    except CallError as exc:
        return _Unreadable(commands.FutureActor, str(exc)) if nested else str(exc)


def _spawn(session: Any, payload: list) -> commands.SpawnActor:
    """[description, transform, optional parent, attachment type, socket, do_after]."""
    description, transform, parent, _attachment, _socket, after = (payload + [None] * 6)[:6]
    blueprint = _blueprint(session, description)
    where = shapes.transform_in(transform, "SpawnActor: transform")
    parent_id = None
    if isinstance(parent, list) and parent and parent[0] is True:
        parent_id = shapes.integer(_arg(parent, 1), "SpawnActor: parent", high=1 << 32)
    spawn = commands.SpawnActor(blueprint, where, parent_id)
    for follow in after or []:
        spawn.then(_command(session, follow, nested=True))
    return spawn


def _response(response: commands.Response) -> list:
    """CommandResponse: Response<ActorId>."""
    if response.has_error():
        return [[0, [response.error]]]
    return [[1, response.actor_id]]


def apply_batch(session: Any, batch: Any, do_tick_cue: Any = False) -> list:
    """Runs the commands in order and answers a CommandResponse each; ticks after them when
    asked and the world is synchronous (CARLA's tick_cue)."""
    if not isinstance(batch, list):
        raise CallError("apply_batch: expected an array of commands")
    tick = shapes.boolean(do_tick_cue, "apply_batch: do_tick_cue")
    world = session.world
    responses: list[commands.Response] = []
    for value in batch:
        command = _command(session, value)
        if isinstance(command, str):
            responses.append(commands.Response(0, command))
        else:
            responses.extend(commands.run_batch(world, [command]))
    if tick and session.synchronous:
        session.tick()
    return [_response(r) for r in responses]


METHODS: dict[str, Method] = {"apply_batch": Method(apply_batch, BARE)}
