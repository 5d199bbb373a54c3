"""Leaderboard 1.0's scenarios (Scenario1-Scenario10) placed along a route from the
public annotations file, as the 1.0 leaderboard placed them.

The 1.0 leaderboard matched every annotated trigger of the route's town against the
dense route (1 m, with a road option per point): a trigger counts when some route
point lies within 2 m (3-D) and 10 degrees (yaw, modulo 360) of it. Triggers within
2 m (xy) and 10 degrees of an earlier one share its slot. Per slot the highest
scenario number is taken; if its positions (trigger and other actors) come within 2 m
of a scenario already taken, the others of the slot are drawn with
`numpy.random.RandomState(0)` until one fits or none is left. Scenario4, 7, 8 and 9
depend on the route's next turn after the trigger (left or right for 4, straight for
7, left for 8, right for 9) and are dropped when it does not fit.

The kept scenarios are returned in the route file's scenario form (name, type,
trigger) under the Leaderboard 2.0 type that plays the same situation. Scenario5,
Scenario6 and Scenario10 (other leading vehicle, maneuver in the opposite direction,
unsignalised crossing traffic) are played by the background traffic in the 2.0
scenario set and take no scenario of their own, as the leaderboard's route converter
does; they still occupy their slot while sampling.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scenarios.errors import ScenarioError

__all__ = [
    "LEADERBOARD2_TYPE",
    "Annotation",
    "place_scenarios",
    "read_annotations",
]

TRIGGER_DISTANCE = 2.0  # m
TRIGGER_ANGLE = 10.0  # degrees
MAX_ANNOTATIONS_BYTES = 64 * 1024 * 1024

# The 2.0 type that plays each 1.0 scenario; None: left to the background traffic.
LEADERBOARD2_TYPE: dict[str, str | None] = {
    "Scenario1": "ControlLoss",
    "Scenario2": "HardBreakRoute",
    "Scenario3": "DynamicObjectCrossing",
    "Scenario4": "VehicleTurningRoute",
    "Scenario5": None,
    "Scenario6": None,
    "Scenario7": "OppositeVehicleRunningRedLight",
    "Scenario8": "SignalizedJunctionLeftTurn",
    "Scenario9": "SignalizedJunctionRightTurn",
    "Scenario10": None,
}

# The turn after the trigger that keeps a route-dependent scenario.
_TURNS_KEPT = {
    "Scenario4": ("LEFT", "RIGHT"),
    "Scenario7": ("STRAIGHT",),
    "Scenario8": ("LEFT",),
    "Scenario9": ("RIGHT",),
}
_NOT_A_TURN = ("LANEFOLLOW", "CHANGELANELEFT", "CHANGELANERIGHT")


@dataclass(frozen=True)
class Pose:
    """A position of the annotations file (metres, yaw in degrees)."""

    x: float
    y: float
    z: float
    yaw: float


@dataclass(frozen=True)
class Annotation:
    """One annotated event: a scenario number, its trigger and its other actors' poses."""

    scenario: str
    trigger: Pose
    others: tuple[Pose, ...]


def read_annotations(path: str | Path) -> dict[str, list[Annotation]]:
    """Town name -> its annotated events, in the file's order. Errors name the file and
    the place (town, scenario, event index) and what was expected."""
    path = Path(path)
    if not path.is_file():
        raise ScenarioError(f"{path}: not a regular file (expected the scenarios JSON)")
    if path.stat().st_size > MAX_ANNOTATIONS_BYTES:
        raise ScenarioError(f"{path}: larger than {MAX_ANNOTATIONS_BYTES} bytes")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ScenarioError(f"{path}: not a JSON document ({exc})") from None
    towns = document.get("available_scenarios") if isinstance(document, dict) else None
    if not isinstance(towns, list):
        raise ScenarioError(f"{path}: expected an object with an 'available_scenarios' list")
    out: dict[str, list[Annotation]] = {}
    for group in towns:
        if not isinstance(group, dict):
            raise ScenarioError(f"{path}: 'available_scenarios' holds a non-object entry")
        for town, scenarios in group.items():
            out[town] = _town_annotations(path, town, scenarios)
    return out


def _town_annotations(path: Path, town: str, scenarios: Any) -> list[Annotation]:
    if not isinstance(scenarios, list):
        raise ScenarioError(f"{path}: town {town}: expected a list of scenarios")
    events: list[Annotation] = []
    for scenario in scenarios:
        if not isinstance(scenario, dict) or "scenario_type" not in scenario:
            break  # the leaderboard stops reading a town at an entry without a type
        name = scenario["scenario_type"]
        if name not in LEADERBOARD2_TYPE:
            known = ", ".join(LEADERBOARD2_TYPE)
            raise ScenarioError(
                f"{path}: town {town}: unknown scenario_type {name!r} (expected one of {known})"
            )
        configurations = scenario.get("available_event_configurations", [])
        if not isinstance(configurations, list):
            raise ScenarioError(f"{path}: town {town}, {name}: expected a list of events")
        for index, event in enumerate(configurations):
            where = f"{path}: town {town}, {name}, event {index}"
            if not isinstance(event, dict) or "transform" not in event:
                raise ScenarioError(f"{where}: expected an object with a 'transform'")
            others = event.get("other_actors") or {}
            if not isinstance(others, dict):
                raise ScenarioError(f"{where}: 'other_actors' must be an object")
            poses = []
            for side in ("left", "front", "right"):  # the leaderboard's comparison order
                for actor in others.get(side, []):
                    poses.append(_pose(actor, f"{where}, other_actors.{side}"))
            events.append(Annotation(name, _pose(event["transform"], where), tuple(poses)))
    return events


def _pose(node: Any, where: str) -> Pose:
    if not isinstance(node, dict):
        raise ScenarioError(f"{where}: expected an object with x, y, z, yaw")
    values = []
    for key in ("x", "y", "z", "yaw"):
        try:
            value = float(node[key])
        except KeyError:
            raise ScenarioError(f"{where}: missing '{key}'") from None
        except (TypeError, ValueError):
            raise ScenarioError(f"{where}: '{key}' is not a number: {node[key]!r}") from None
        if not math.isfinite(value):
            raise ScenarioError(f"{where}: '{key}' is not finite: {node[key]!r}")
        values.append(value)
    return Pose(*values)


def _yaw_close(a: float, b: float) -> bool:
    gap = (a - b) % 360.0
    return gap < TRIGGER_ANGLE or gap > 360.0 - TRIGGER_ANGLE


def _match_position(trigger: Pose, route: Sequence[tuple[Any, Any]]) -> int | None:
    """Index of the first route point within 2 m (3-D) and 10 degrees of the trigger."""
    for index, (transform, _option) in enumerate(route):
        loc = transform.location
        dx, dy, dz = trigger.x - loc.x, trigger.y - loc.y, trigger.z - loc.z
        if math.sqrt(dx * dx + dy * dy + dz * dz) < TRIGGER_DISTANCE and _yaw_close(
            trigger.yaw, transform.rotation.yaw
        ):
            return index
    return None


def _fits_route(scenario: str, start: int, route: Sequence[tuple[Any, Any]]) -> bool:
    kept = _TURNS_KEPT.get(scenario)
    if kept is None:
        return True
    for _transform, option in route[start:]:
        if option.name not in _NOT_A_TURN:
            return option.name in kept
    return False


def _slot_of(trigger: Pose, slots: list[Pose]) -> int | None:
    for index, existing in enumerate(slots):
        dx, dy = existing.x - trigger.x, existing.y - trigger.y
        if math.sqrt(dx * dx + dy * dy) < TRIGGER_DISTANCE and _yaw_close(
            existing.yaw, trigger.yaw
        ):
            return index
    return None


def _overlaps(a: Annotation, b: Annotation) -> bool:
    """Any of a's positions within 2 m (3-D) of any of b's (yaw not compared: the
    leaderboard's comparison subtracts a position's yaw from itself)."""
    for p in (a.trigger, *a.others):
        for q in (b.trigger, *b.others):
            dx, dy, dz = p.x - q.x, p.y - q.y, p.z - q.z
            if math.sqrt(dx * dx + dy * dy + dz * dz) < TRIGGER_DISTANCE:
                return True
    return False


def _number(scenario: str) -> int:
    return int(scenario.removeprefix("Scenario"))


def _sample(slots: list[list[Annotation]]) -> list[Annotation]:
    rng = np.random.RandomState(0)  # the 1.0 leaderboard's fixed sampling seed
    taken: list[Annotation] = []
    for candidates in slots:
        candidates = list(candidates)
        choice: Annotation | None = None
        for candidate in candidates:  # the highest number, the last of equals
            if choice is None or _number(candidate.scenario) >= _number(choice.scenario):
                choice = candidate
        candidates.remove(choice)
        while any(_overlaps(choice, other) for other in taken):
            if not candidates:
                choice = None
                break
            choice = candidates.pop(int(rng.choice(len(candidates))))
        if choice is not None:
            taken.append(choice)
    return taken


def place_scenarios(
    town: str,
    route: Sequence[tuple[Any, Any]],
    annotations: dict[str, list[Annotation]],
) -> list[dict[str, Any]]:
    """The scenarios the 1.0 leaderboard ran on this dense route (pairs of a transform
    and a road option), as route-file scenario entries {name, type, trigger}."""
    slot_triggers: list[Pose] = []
    slots: list[list[Annotation]] = []
    for event in annotations.get(town, []):
        start = _match_position(event.trigger, route)
        if start is None or not _fits_route(event.scenario, start, route):
            continue
        slot = _slot_of(event.trigger, slot_triggers)
        if slot is None:
            slot_triggers.append(event.trigger)
            slots.append([])
            slot = len(slots) - 1
        slots[slot].append(event)
    out: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for event in _sample(slots):
        kind = LEADERBOARD2_TYPE[event.scenario]
        if kind is None:
            continue
        counts[kind] = counts.get(kind, 0) + 1
        t = event.trigger
        out.append(
            {
                "name": f"{kind}_{counts[kind]}",
                "type": kind,
                "trigger": {"x": t.x, "y": t.y, "z": t.z, "yaw": t.yaw},
            }
        )
    return out
