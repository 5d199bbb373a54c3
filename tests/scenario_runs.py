"""Runs one short route with scenarios under the autopilot agent, tracing every actor each
tick, for the scenario suites (each checks what defines its scenario happened, and that
two runs give the same log bytes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from runner_helpers import write_config

from runner.config import load_config
from runner.route import RouteResult, run_route
from scenarios.tasks import tick


@dataclass
class Sample:
    """One actor at one tick."""

    id: int
    type_id: str
    role: str
    x: float
    y: float
    speed: float


@dataclass
class Trace:
    frames: list[int] = field(default_factory=list)
    ego: list[Sample] = field(default_factory=list)
    others: list[dict[int, Sample]] = field(default_factory=list)
    lights: list[dict[int, str]] = field(default_factory=list)

    def of(self, actor_id: int) -> list[Sample | None]:
        return [o.get(actor_id) for o in self.others]


def _sample(actor) -> Sample:
    loc = actor.get_location()
    role = actor.attributes.get("role_name", "")
    return Sample(actor.id, actor.type_id, role, loc.x, loc.y, actor.get_velocity().length())


def run_scenario_route(
    folder: Path,
    name: str,
    waypoints: list,
    scenarios: list[dict],
    *,
    map_path: str | None = None,
    route_seconds: float = 40.0,
    vehicles: int = 0,
) -> tuple[RouteResult, Trace, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    overrides = {
        "traffic": {"vehicles": vehicles},
        "routes": [{"id": 0, "waypoints": waypoints, "scenarios": scenarios}],
        "limits": {"route_seconds": route_seconds},
    }
    if map_path is not None:
        overrides["map"] = map_path
    config = load_config(write_config(folder, name, **overrides))
    trace = Trace()

    def observe(loop, world, ego) -> None:
        def watch() -> None:
            while True:
                trace.frames.append(world.get_snapshot().timestamp.frame)
                trace.ego.append(_sample(ego))
                actors = [a for a in world.get_actors() if a.id != ego.id]
                trace.others.append(
                    {
                        a.id: _sample(a)
                        for a in actors
                        if a.type_id.startswith(("vehicle.", "walker.", "static."))
                    }
                )
                trace.lights.append(
                    {
                        light.id: str(light.get_state())
                        for light in world.get_actors().filter("traffic.traffic_light")
                    }
                )
                if tick().stopping:
                    return

        loop.start(watch, name="trace")

    log = folder / f"{name}.log"
    outcome = run_route(config, config.routes[0], 0, log, setup_tasks=observe)
    return outcome, trace, log
