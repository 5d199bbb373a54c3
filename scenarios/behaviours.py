"""Behaviours: the building blocks of a scenario's sequential code, run inside its task.

Each is a plain function. Those that take time tick (through `step()`) until they are
done and return; predicates (`in_trigger_distance`, `in_time_to_arrival`, ...) return a
function for `wait_until`. Moving actors either go on the world's autopilot (the traffic
manager: `follow_lane`, `drive_to`, `change_lane`, `actor_flow`) or get direct velocity and
controls each tick, as ScenarioRunner's atomics do (`keep_velocity`, `stop_vehicle`,
`walk_to`). A route that stops raises `RouteStopping` out of every wait, so a scenario
never holds the loop's drain; the scenario's task catches it and cleans up. Randomness
only from a generator handed in (the scenario's own, `Scenario.rng`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from scenarios.errors import ScenarioError
from scenarios.tasks import TickInfo, tick
from world.actors.controls import VehicleControl, WalkerControl
from world.geometry import Location, Transform, Vector3D

__all__ = [
    "TM_PORT",
    "RouteStopping",
    "actor_flow",
    "change_lane",
    "destroy_actor",
    "drive_distance",
    "drive_to",
    "follow_lane",
    "freeze_traffic_light",
    "in_time_to_arrival",
    "in_trigger_distance",
    "is_in_front",
    "keep_velocity",
    "open_door",
    "speed_of",
    "step",
    "stop_vehicle",
    "wait",
    "wait_until",
    "wait_until_in_front",
    "walk_to",
]

TM_PORT = 8000  # the world's traffic manager, the background traffic's
_EPSILON = 1e-9


class RouteStopping(Exception):  # noqa: N818 - it is a signal, not an error
    """The route is stopping: the scenario's waits end and its task cleans up."""


def step() -> TickInfo:
    """One world tick; raises RouteStopping when the loop says the route is stopping."""
    info = tick()
    if info.stopping:
        raise RouteStopping
    return info


def wait(seconds: float) -> None:
    """Ticks until `seconds` of simulated time have passed."""
    passed = 0.0
    while passed + _EPSILON < seconds:
        passed += step().delta_seconds


def wait_until(predicate: Callable[[], bool], timeout: float | None = None) -> bool:
    """Ticks until `predicate()` (checked now, then after each tick); False past `timeout`."""
    passed = 0.0
    while not predicate():
        if timeout is not None and passed + _EPSILON >= timeout:
            return False
        passed += step().delta_seconds
    return True


# -- measurements and predicates ---------------------------------------------------------------


def speed_of(actor: Any) -> float:
    """m/s, the length of the actor's velocity."""
    return actor.get_velocity().length()


def in_trigger_distance(actor: Any, target: Location | Any, distance: float) -> Callable[[], bool]:
    """True once `actor` is within `distance` m of `target` (a Location or an actor)."""

    def check() -> bool:
        where = target if isinstance(target, Location) else target.get_location()
        return actor.get_location().distance(where) < distance

    return check


def in_time_to_arrival(
    actor: Any, target: Location | Any, seconds: float, minimum_speed: float = 0.1
) -> Callable[[], bool]:
    """True once `actor` at its current speed reaches `target` within `seconds`
    (ScenarioRunner's InTimeToArrivalToLocation; a stopped actor never arrives)."""

    def check() -> bool:
        where = target if isinstance(target, Location) else target.get_location()
        speed = speed_of(actor)
        if speed < minimum_speed:
            return False
        return actor.get_location().distance(where) / speed < seconds

    return check


def is_in_front(actor: Any, other: Any, margin: float = 0.0) -> bool:
    """True when `actor` is more than `margin` m ahead of `other` (an actor or a
    Transform) along other's heading."""
    transform = other if isinstance(other, Transform) else other.get_transform()
    offset = actor.get_location() - transform.location
    return offset.dot(transform.get_forward_vector()) > margin


def wait_until_in_front(actor: Any, other: Any, margin: float = 0.0, timeout=None) -> bool:
    """Ticks until `actor` is `margin` m ahead of `other` (False past `timeout`)."""
    return wait_until(lambda: is_in_front(actor, other, margin), timeout)


def drive_distance(actor: Any, distance: float, timeout: float | None = None) -> bool:
    """Ticks until `actor` has moved `distance` m (its path length, tick by tick)."""
    travelled = 0.0
    last = actor.get_location()

    def far_enough() -> bool:
        nonlocal travelled, last
        here = actor.get_location()
        travelled += here.distance(last)
        last = here
        return travelled >= distance

    return wait_until(far_enough, timeout)


# -- vehicles ----------------------------------------------------------------------------------


def _tm(actor: Any) -> Any:
    return actor.get_world().get_trafficmanager(TM_PORT)


def follow_lane(
    actor: Any,
    speed_kmh: float | None = None,
    *,
    ignore_vehicles: bool = False,
    ignore_lights: bool = False,
    lane_changes: bool = False,
) -> None:
    """Puts `actor` on the world's autopilot at `speed_kmh` (None: the manager's own
    target), lane changes off unless asked; returns at once (the autopilot drives on)."""
    tm = _tm(actor)
    actor.set_autopilot(True, TM_PORT)
    if speed_kmh is not None:
        tm.set_desired_speed(actor, speed_kmh)
    tm.auto_lane_change(actor, lane_changes)
    tm.ignore_vehicles_percentage(actor, 100.0 if ignore_vehicles else 0.0)
    tm.ignore_lights_percentage(actor, 100.0 if ignore_lights else 0.0)


def drive_to(
    actor: Any,
    target: Location,
    speed_kmh: float | None = None,
    *,
    reached: float = 2.0,
    timeout: float | None = None,
    path: list[Location] | None = None,
    **autopilot: bool,
) -> bool:
    """Drives `actor` on the autopilot through `path` to `target`; ticks until within
    `reached` m (False past `timeout`). The actor stays on the autopilot."""
    follow_lane(actor, speed_kmh, **autopilot)
    _tm(actor).set_path(actor, [*(path or []), target])
    return wait_until(in_trigger_distance(actor, target, reached), timeout)


def change_lane(actor: Any, direction: str) -> None:
    """The autopilot moves `actor` one lane "left" or "right" (of its driving direction)."""
    if direction not in ("left", "right"):
        raise ScenarioError(f"change_lane: direction must be 'left' or 'right', not {direction!r}")
    if not _tm(actor).has_vehicle(actor):
        follow_lane(actor)
    _tm(actor).force_lane_change(actor, direction == "right")


def keep_velocity(
    actor: Any,
    speed: float,
    *,
    duration: float | None = None,
    distance: float | None = None,
    until: Callable[[], bool] | None = None,
) -> None:
    """Holds `actor` at `speed` m/s along its heading (target velocity each tick, off the
    autopilot) for `duration` s, `distance` m or until `until()`, whichever comes first."""
    if duration is None and distance is None and until is None:
        raise ScenarioError("keep_velocity: give a duration, a distance or an until")
    if _is_vehicle(actor):
        actor.set_autopilot(False, TM_PORT)
    elapsed = travelled = 0.0
    last = actor.get_location()
    while True:
        forward = actor.get_transform().get_forward_vector()
        velocity = Vector3D(forward.x * speed, forward.y * speed, forward.z * speed)
        if _is_vehicle(actor):
            actor.set_target_velocity(velocity)
        else:
            actor.apply_control(WalkerControl(Vector3D(forward.x, forward.y, 0.0), speed))
        elapsed += step().delta_seconds
        here = actor.get_location()
        travelled += here.distance(last)
        last = here
        if duration is not None and elapsed + _EPSILON >= duration:
            return
        if distance is not None and travelled >= distance:
            return
        if until is not None and until():
            return


def stop_vehicle(actor: Any, brake: float = 1.0, *, wait_stopped: bool = False) -> None:
    """Takes `actor` off the autopilot and brakes it at `brake` (the control persists);
    with `wait_stopped`, ticks until it is below 0.1 m/s."""
    actor.set_autopilot(False, TM_PORT)
    actor.apply_control(VehicleControl(throttle=0.0, brake=float(brake)))
    if wait_stopped:
        wait_until(lambda: speed_of(actor) < 0.1)


def open_door(actor: Any, door: Any = None) -> None:
    """Opens a vehicle's door (default: all of them)."""
    from world.actors.vehicle_state import VehicleDoor

    actor.open_door(VehicleDoor.All if door is None else door)


def freeze_traffic_light(light: Any, state: Any) -> None:
    """Sets a traffic light to `state` and freezes it there."""
    light.set_state(state)
    light.freeze(True)


def destroy_actor(actor: Any) -> None:
    if actor is not None and actor.is_alive:
        actor.destroy()


def _is_vehicle(actor: Any) -> bool:
    return str(actor.type_id).startswith("vehicle.")


# -- walkers -----------------------------------------------------------------------------------


def walk_to(
    walker: Any, target: Location, speed: float, *, reached: float = 0.5, timeout=None
) -> bool:
    """Walks `walker` straight to `target` at `speed` m/s (a control each tick); stops it
    there. False past `timeout`."""

    def arrived() -> bool:
        here = walker.get_location()
        dx, dy = target.x - here.x, target.y - here.y
        norm = math.sqrt(dx * dx + dy * dy)
        if norm < reached:
            return True
        walker.apply_control(WalkerControl(Vector3D(dx / norm, dy / norm, 0.0), speed))
        return False

    done = wait_until(arrived, timeout)
    walker.apply_control(WalkerControl(Vector3D(1.0, 0.0, 0.0), 0.0))
    return done


# -- flows -------------------------------------------------------------------------------------


def actor_flow(
    world: Any,
    source: Transform,
    sink: Location,
    speed_kmh: float,
    interval: tuple[float, float],
    rng: np.random.Generator,
    *,
    blueprint: str = "vehicle.lincoln.mkz_2017",
    sink_distance: float = 2.0,
    spawned: list | None = None,
    until: Callable[[], bool] | None = None,
) -> None:
    """An endless flow (run it in its own task): a vehicle spawns at `source` whenever the
    last one is a distance drawn from `interval` (m, from `rng`) away, drives on the
    autopilot to `sink` at `speed_kmh` and is destroyed within `sink_distance` of it.
    Returns when the route stops, or once `until()` (its vehicles destroyed); `spawned`
    collects the live vehicles."""
    live: list = [] if spawned is None else spawned
    gap = float(rng.uniform(*interval))
    bp = world.get_blueprint_library().find(blueprint).copy()
    if bp.has_attribute("role_name"):
        bp.set_attribute("role_name", "scenario")
    try:
        while until is None or not until():
            for actor in list(live):
                if not actor.is_alive:
                    live.remove(actor)
                elif actor.get_location().distance(sink) < sink_distance:
                    actor.destroy()
                    live.remove(actor)
            last = live[-1] if live else None
            if last is None or last.get_location().distance(source.location) >= gap:
                actor = world.try_spawn_actor(bp, source)
                if actor is not None:
                    live.append(actor)
                    drive_path = [sink]
                    follow_lane(actor, speed_kmh, ignore_lights=True)
                    _tm(actor).set_path(actor, drive_path)
                    gap = float(rng.uniform(*interval))
            step()
    finally:
        for actor in live:
            destroy_actor(actor)
        live.clear()
