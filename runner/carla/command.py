"""CARLA's `carla.command`: commands run in a batch by `Client.apply_batch(_sync)`.

Each command names its actor by id (an Actor is taken for its id, as CARLA does), given as
`actor` or `actor_id` (CARLA's two constructors). A `SpawnActor` may carry commands to run
on the new actor (`then`; CARLA's scripts write `FutureActor` for its id). `run_batch` runs
a batch in order against a world and answers one `Response` per command: the actor's id,
or CARLA's error text. As CARLA's server does, a spawn's follow-up commands all act on the
new actor, whatever id they were made with, and their failures are not the spawn's: its
response is the new id.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from world.errors import LockstepError

__all__ = [
    "ApplyAngularImpulse",
    "ApplyForce",
    "ApplyImpulse",
    "ApplyTargetAngularVelocity",
    "ApplyTargetVelocity",
    "ApplyTorque",
    "ApplyTransform",
    "ApplyVehicleAckermannControl",
    "ApplyVehicleControl",
    "ApplyVehiclePhysicsControl",
    "ApplyWalkerControl",
    "ApplyWalkerState",
    "DestroyActor",
    "FutureActor",
    "Response",
    "SetAutopilot",
    "SetEnableGravity",
    "SetSimulatePhysics",
    "SetVehicleLightState",
    "ShowDebugTelemetry",
    "SpawnActor",
    "run_batch",
]

_REQUIRED: Any = type("Required", (), {"__repr__": lambda self: "<required>"})()

FutureActor = 0  # CARLA's placeholder id: "the actor the enclosing SpawnActor made"


def _actor_id(actor: Any) -> int:
    return int(actor.id) if hasattr(actor, "id") else int(actor)


@dataclass(slots=True)
class Response:
    """One command's outcome (CARLA's command.Response): the actor's id, or an error."""

    actor_id: int = 0
    error: str = ""

    def has_error(self) -> bool:
        return bool(self.error)


class Command:
    """A command on one actor; subclasses say what `apply(actor)` does."""

    __slots__ = ("actor_id",)

    def __init__(self, actor: Any = None, *, actor_id: Any = None) -> None:
        if (actor is None) == (actor_id is None):
            raise TypeError(f"{type(self).__name__}: give the actor as `actor` or `actor_id`")
        self.actor_id = _actor_id(actor if actor_id is None else actor_id)

    def apply(self, actor: Any, world: Any) -> None:  # pragma: no cover - every subclass has one
        raise NotImplementedError

    def __repr__(self) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in _slots(type(self)))
        return f"{type(self).__name__}({values})"


def _slots(cls: type) -> list[str]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        names.extend(getattr(klass, "__slots__", ()))
    return names


def _command(
    name: str, field_name: str, method: str, doc: str, kind: str | None = None
) -> type[Command]:
    """A command that calls `actor.<method>(value)` with its one argument, made as
    `Name(actor, <field_name>)` or `Name(actor_id=..., <field_name>=...)`; with `kind`
    ("Vehicle", "Walker") it fails on an actor of another kind, as CARLA's server does."""
    parameter = inspect.Parameter
    signature = inspect.Signature(
        [
            parameter("self", parameter.POSITIONAL_OR_KEYWORD),
            parameter("actor", parameter.POSITIONAL_OR_KEYWORD, default=None),
            parameter(field_name, parameter.POSITIONAL_OR_KEYWORD, default=_REQUIRED),
            parameter("actor_id", parameter.KEYWORD_ONLY, default=None),
        ]
    )

    def init(self, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        values = {**{"actor": None, "actor_id": None}, **bound.arguments}
        if values.get(field_name, _REQUIRED) is _REQUIRED:
            raise TypeError(f"{name}: missing the argument {field_name!r}")
        Command.__init__(self, values["actor"], actor_id=values["actor_id"])
        setattr(self, field_name, values[field_name])

    init.__signature__ = signature  # type: ignore[attr-defined]

    def apply(self, actor: Any, world: Any) -> None:
        if kind is not None and type(actor).__name__ != kind:
            raise LockstepError(f"{name}: actor {actor.id} is not a {kind.lower()}")
        getattr(actor, method)(getattr(self, field_name))

    return type(
        name,
        (Command,),
        {"__slots__": (field_name,), "__init__": init, "apply": apply, "__doc__": doc},
    )


ApplyVehicleControl = _command(
    "ApplyVehicleControl",
    "control",
    "apply_control",
    "Vehicle.apply_control(control).",
    "Vehicle",
)
ApplyVehicleAckermannControl = _command(
    "ApplyVehicleAckermannControl",
    "control",
    "apply_ackermann_control",
    "Vehicle.apply_ackermann_control(control).",
    "Vehicle",
)
ApplyWalkerControl = _command(
    "ApplyWalkerControl", "control", "apply_control", "Walker.apply_control(control).", "Walker"
)
ApplyVehiclePhysicsControl = _command(
    "ApplyVehiclePhysicsControl",
    "physics_control",
    "apply_physics_control",
    "Vehicle.apply_physics_control(physics_control).",
    "Vehicle",
)
ApplyTransform = _command(
    "ApplyTransform", "transform", "set_transform", "Actor.set_transform(transform)."
)
ApplyTargetVelocity = _command(
    "ApplyTargetVelocity", "velocity", "set_target_velocity", "Actor.set_target_velocity."
)
ApplyTargetAngularVelocity = _command(
    "ApplyTargetAngularVelocity",
    "angular_velocity",
    "set_target_angular_velocity",
    "Actor.set_target_angular_velocity.",
)
ApplyImpulse = _command("ApplyImpulse", "impulse", "add_impulse", "Actor.add_impulse.")
ApplyForce = _command("ApplyForce", "force", "add_force", "Actor.add_force.")
ApplyAngularImpulse = _command(
    "ApplyAngularImpulse", "impulse", "add_angular_impulse", "Actor.add_angular_impulse."
)
ApplyTorque = _command("ApplyTorque", "torque", "add_torque", "Actor.add_torque.")
SetSimulatePhysics = _command(
    "SetSimulatePhysics", "enabled", "set_simulate_physics", "Actor.set_simulate_physics."
)
SetEnableGravity = _command(
    "SetEnableGravity", "enabled", "set_enable_gravity", "Actor.set_enable_gravity."
)
SetVehicleLightState = _command(
    "SetVehicleLightState",
    "light_state",
    "set_light_state",
    "Vehicle.set_light_state.",
    "Vehicle",
)


class DestroyActor(Command):
    """Actor.destroy(); the response carries the id whether or not it was still alive."""

    __slots__ = ()

    def apply(self, actor: Any, world: Any) -> None:
        actor.destroy()


class SetAutopilot(Command):
    """Vehicle.set_autopilot(enabled, tm_port): hands the vehicle to a traffic manager."""

    __slots__ = ("enabled", "tm_port")

    def __init__(
        self,
        actor: Any = None,
        enabled: bool = True,
        tm_port: int = 8000,
        *,
        actor_id: Any = None,
    ) -> None:
        super().__init__(actor, actor_id=actor_id)
        self.enabled, self.tm_port = bool(enabled), int(tm_port)

    def apply(self, actor: Any, world: Any) -> None:
        if type(actor).__name__ != "Vehicle":
            raise LockstepError(f"SetAutopilot: actor {actor.id} is not a vehicle")
        actor.set_autopilot(self.enabled, self.tm_port)


class ApplyWalkerState(Command):
    """Places a walker and sets its speed along its heading (CARLA's ApplyWalkerState)."""

    __slots__ = ("speed", "transform")

    def __init__(
        self,
        actor: Any = None,
        transform: Any = None,
        speed: float = 0.0,
        *,
        actor_id: Any = None,
    ) -> None:
        super().__init__(actor, actor_id=actor_id)
        self.transform, self.speed = transform, float(speed)

    def apply(self, actor: Any, world: Any) -> None:
        from world.actors.controls import WalkerControl

        actor.set_transform(self.transform)
        forward = self.transform.rotation.get_forward_vector()
        actor.apply_control(WalkerControl(direction=forward, speed=self.speed))


class ShowDebugTelemetry(Command):
    """CARLA draws a vehicle's telemetry on screen; lockstep has no screen: accepted, no-op."""

    __slots__ = ("enabled",)

    def __init__(self, actor: Any = None, enabled: bool = True, *, actor_id: Any = None) -> None:
        super().__init__(actor, actor_id=actor_id)
        self.enabled = bool(enabled)

    def apply(self, actor: Any, world: Any) -> None:
        return None


class SpawnActor:
    """World.try_spawn_actor(blueprint, transform, parent); `then(command)` adds a command run
    on the new actor. The parent is given as `parent` (an actor or id) or `parent_id`;
    `attachment_type` and `socket_name` are kept (lockstep attaches rigidly, no sockets)."""

    __slots__ = ("_then", "attachment_type", "blueprint", "parent", "socket_name", "transform")

    def __init__(
        self,
        blueprint: Any = None,
        transform: Any = None,
        parent: Any = None,
        attachment_type: Any = None,
        socket_name: str = "",
        *,
        parent_id: Any = None,
    ) -> None:
        self.blueprint, self.transform = blueprint, transform
        self.parent = parent if parent_id is None else parent_id
        self.attachment_type, self.socket_name = attachment_type, str(socket_name)
        self._then: list[Any] = []

    @property
    def parent_id(self) -> int:
        return 0 if self.parent is None else _actor_id(self.parent)

    def then(self, command: Any) -> SpawnActor:
        self._then.append(command)
        return self

    def __repr__(self) -> str:
        return f"SpawnActor(blueprint={self.blueprint!r}, transform={self.transform!r})"


def run_batch(world: Any, commands: Iterable[Any]) -> list[Response]:
    """Runs `commands` in order; one Response for each top-level command (a SpawnActor's
    `then` commands run on the new actor and answer nothing)."""
    return [_run(world, command) for command in commands]


def _run(world: Any, command: Any) -> Response:
    if isinstance(command, SpawnActor):
        return _spawn(world, command)
    if not isinstance(command, Command):
        return Response(0, f"not a command: {type(command).__name__}")
    return _apply(world, command, command.actor_id)


def _apply(world: Any, command: Command, actor_id: int) -> Response:
    actor = world.get_actor(actor_id)
    if actor is None:
        return Response(actor_id, f"unable to find actor {actor_id}")
    try:
        command.apply(actor, world)
    except LockstepError as exc:
        return Response(actor_id, str(exc))
    return Response(actor_id)


def _spawn(world: Any, command: SpawnActor) -> Response:
    parent = None
    if command.parent is not None:
        parent = world.get_actor(command.parent_id)
        if parent is None:
            return Response(0, f"unable to find parent actor {command.parent_id}")
    try:
        actor = world.try_spawn_actor(command.blueprint, command.transform, parent)
    except LockstepError as exc:
        return Response(0, str(exc))
    if actor is None:
        return Response(0, "Spawn failed because of collision at spawn position")
    for follow in command._then:
        if isinstance(follow, SpawnActor):
            _spawn(world, follow)
        elif isinstance(follow, Command):
            _apply(world, follow, actor.id)  # (its failure is not the spawn's)
    return Response(actor.id)
