"""Writes docs/carla-compat.md: CARLA 0.9.16's API against lockstep's `carla` namespace.

`python -m runner.carla.compat_table > docs/carla-compat.md` (a test checks the file equals
this output). Each CARLA class and member (runner.carla.reference) is *implemented*,
*differs* (implemented, with the difference noted in DIFFERENCES) or *missing* (reading it
raises NotInLockstepError). Presence is read from the namespace itself: a class's members on
the class, those set per instance on an instance made from a small world.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from runner.carla.missing import MissingMember, is_missing
from runner.carla.reference import CARLA_API, COMMAND_API, ENUMS, UNDESCRIBED

__all__ = ["DIFFERENCES", "compat_rows", "render"]

DIFFERENCES: dict[str, str] = {
    "Client": "in-process: no server; host, port (beyond naming the simulation), timeout and "
    "worker threads have no effect",
    "Client.load_world": "maps by name from --maps folders, $LOCKSTEP_MAPS and lockstep's "
    "towns; map layers are accepted and ignored; a new world starts with a fixed step of "
    "0.05 s",
    "Client.generate_opendrive_world": "the generation parameters are accepted, unused",
    "Client.apply_batch_sync": "commands run in order in-process; `do_tick` ticks after them",
    "Client.replay_file": "`replay_weather`, `offset` and `map_override` are accepted and "
    "change nothing (the world keeps its map and weather; no camera to place)",
    "World.apply_settings": "asynchronous mode has no clock: the world advances when the client "
    "waits for it (wait_for_tick) or ticks; `fixed_delta_seconds` None steps a fixed 0.05 s",
    "World.wait_for_tick": "asynchronous: advances the world one step and returns its snapshot; "
    "synchronous: the last tick's snapshot (no other client ticks)",
    "World.cast_ray": "meets the road surfaces and vehicles' and walkers' boxes (no meshes)",
    "World.project_point": "as cast_ray",
    "World.ground_projection": "as cast_ray",
    "World.get_level_bbs": "the traffic lights' and signs' boxes; lockstep has no level meshes",
    "World.get_environment_objects": "the traffic lights and signs; no level meshes",
    "World.debug": "drawings are kept as data for pictures of a run, not shown",
    "DebugHelper": "drawings are kept with their life times (world.debug)",
    "Actor.get_transform": "yaw in (-180, 180], as CARLA; other angles as stored",
    "Location": "float64 components (CARLA's are float32)",
    "Vector3D": "float64 components (CARLA's are float32)",
    "TrafficManager": "deterministic per seed; hybrid physics accepted, no effect",
    "Map.get_waypoint": "the nearest lane by 3D distance to lane segments, as CARLA's R-tree",
    "RssSensor": "needs the `rss` extra: Intel's ad-rss 5.0 wheels, whose types name their "
    "fields in snake_case (CARLA's RSS build bundles ad-rss 4.4: camelCase, RssMode); the "
    "route's random picks draw from the sensor's own seeded generator",
    "RssEgoDynamicsOnRoute": "ad-rss 5.0's types; the two wall-clock fields stay 0.0",
    "RssActorConstellationResult": "rss_calculation_mode takes ad-rss 5.0's "
    "RssConstellationCreationMode, restrict_speed_limit_mode its RssRestrictSpeedLimitMode",
    "Image.save_to_disk": "PNG by the standard library; .jpg/.jpeg/.tiff through Pillow (the "
    "`pictures` extra)",
}


def _examples() -> dict[str, object]:
    """An instance of each class whose members are set per instance."""
    from runner.carla.client import Client, configure

    configure()
    client = Client()
    world = client.get_world()
    world.tick()
    snapshot = world.get_snapshot()
    found = {
        "World": world,
        "WorldSnapshot": snapshot,
        "Timestamp": snapshot.timestamp,
        "WorldSettings": world.get_settings(),
        "Map": world.get_map(),
        "WeatherParameters": world.get_weather(),
        "TrafficManager": client.get_trafficmanager(),
    }
    configure()
    return found


def _present(cls: type, example: object | None, member: str) -> bool:
    if example is not None:
        try:
            getattr(example, member)
        except AttributeError:
            return False
        except Exception:
            return True
        return True
    return not is_missing(cls, member)


def compat_rows() -> Iterator[tuple[str, str, str]]:
    """(CARLA name, status, note) for every class, enum, member and command."""
    import runner.carla as namespace
    from runner.carla import command

    examples = _examples()
    for class_name, members in sorted(CARLA_API.items()):
        cls = namespace.__dict__.get(class_name)
        if not isinstance(cls, type):
            yield class_name, "missing", ""
            continue
        yield class_name, _status(class_name), DIFFERENCES.get(class_name, "")
        for member in members:
            name = f"{class_name}.{member}"
            attr = cls.__dict__.get(member)
            example = examples.get(class_name)
            # (an instance's own attribute wins over the class's MissingMember placeholder)
            present = _present(cls, example, member) and (
                example is not None or not isinstance(attr, MissingMember)
            )
            status = _status(name) if present else "missing"
            yield name, status, DIFFERENCES.get(name, "") if present else ""
    for class_name, members in sorted(UNDESCRIBED.items()):
        cls = (command if class_name in COMMAND_API else namespace).__dict__.get(class_name)
        for member in members:
            present = isinstance(cls, type) and _present(cls, examples.get(class_name), member)
            yield (
                f"{class_name}.{member} (bound, not documented)",
                ("implemented" if present else "missing"),
                "",
            )
    for enum_name in sorted(ENUMS):
        present = isinstance(namespace.__dict__.get(enum_name), type)
        yield enum_name, "implemented" if present else "missing", ""
    for command_name in sorted(COMMAND_API):
        present = command_name in command.__dict__
        yield f"command.{command_name}", "implemented" if present else "missing", ""


def _status(name: str) -> str:
    return "differs" if name in DIFFERENCES else "implemented"


def render() -> str:
    """The page's Markdown."""
    rows = list(compat_rows())
    counts = {s: sum(1 for _n, st, _t in rows if st == s) for s in ("implemented", "differs")}
    missing = sum(1 for _n, st, _t in rows if st == "missing")
    lines = [
        "# CARLA 0.9.16's Python API in lockstep",
        "",
        "Generated by `python -m runner.carla.compat_table` from lockstep's `carla`",
        "namespace (runner.carla), measured against the names of CARLA 0.9.16's API",
        "(runner/carla/reference.py). *differs*: implemented, with the difference noted;",
        "*missing*: reading it raises `carla.NotInLockstepError`, an AttributeError that names it.",
        "Names marked *bound, not documented* are in CARLA's bindings but not its API description:",
        "the deprecated names CARLA keeps (as `WorldSnapshot.frame_count`) and a few others.",
        "Every implemented call takes CARLA's parameters by CARLA's keyword names",
        "(runner.carla.reference.SIGNATURES; tests/test_carla_signatures.py).",
        "",
        f"{counts['implemented']} implemented, {counts['differs']} differing, {missing} missing.",
        "",
        "| CARLA name | status | difference |",
        "|---|---|---|",
    ]
    lines += [f"| `{name}` | {status} | {note} |" for name, status, note in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
