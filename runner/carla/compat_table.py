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

__all__ = ["DIFFERENCES", "KNOWN_TO_RUN", "compat_rows", "render"]

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
    "Timestamp": "CARLA's numbers: delta_seconds is the step as a float32 (Unreal's tick "
    "delta), elapsed_seconds their sum",
    "TrafficManager.vehicle_lane_offset": "kept, not applied: the autopilot drives on the "
    "lane's centre line",
    "TrafficManager.global_lane_offset": "kept, not applied (as vehicle_lane_offset)",
    "World.get_lightmanager": "a LightManager with no lights: an OpenDRIVE map has none",
    "Client.start_recorder": 'a file that cannot be opened gives "" and a warning, as in CARLA',
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


# CARLA code run unchanged under `lockstep exec` (or `lockstep run`): what, how, the result.
# PythonAPI examples and CARLA's `agents` package are CARLA 0.9.16's; scenario_runner the 0.9.16
# release; the leaderboards as published (../shared/carla-code). "tests/..." marks a case a
# test runs; the others were run by hand.
KNOWN_TO_RUN: list[tuple[str, str, str]] = [
    (
        "PythonAPI/examples/generate_traffic.py",
        "`--frames 100 -n 20 -w 10`, synchronous and `--asynch`",
        "runs: 20 vehicles (town_small has 24 spawn points, none overlapping) and 10 "
        "walkers, cleaned up",
    ),
    (
        "PythonAPI/examples/dynamic_weather.py",
        "`--frames 200` (it loops until Ctrl+C)",
        "runs: the asynchronous `wait_for_tick` loop moves the sun and the storm",
    ),
    (
        "a script in the style of dynamic_weather.py",
        "tests/test_carla_async.py",
        "runs and stops; two runs give the same log",
    ),
    ("PythonAPI/examples/vehicle_gallery.py", "`--frames 200`", "runs (asynchronous)"),
    ("PythonAPI/examples/vehicle_physics.py", "`--frames 100`", "runs"),
    (
        "PythonAPI/examples/start_recording.py, start_replaying.py",
        "`--frames 200 -n 10 -f run.log` (it records until Ctrl+C), then `-f run.log`",
        "run: the log is written; the replay starts and prints CARLA's replay text",
    ),
    (
        "PythonAPI/examples/show_recorder_file_info.py, show_recorder_collisions.py, "
        "show_recorder_actors_blocked.py",
        "`-f run.log`",
        "run: CARLA's query texts",
    ),
    (
        "PythonAPI/examples/no_rendering_mode.py",
        "`--frames 60`, SDL_VIDEODRIVER=dummy",
        "runs: each frame its pygame clock waits for moves the asynchronous world a step",
    ),
    (
        "PythonAPI/examples/automatic_control.py",
        "`--frames 60`, with and without `--sync`, SDL_VIDEODRIVER=dummy",
        "runs (its camera renders; CARLA's agents package on PYTHONPATH)",
    ),
    (
        "PythonAPI/examples/tutorial.py",
        "as it is (asynchronous)",
        "runs: its time.sleep(5) moves the world 100 steps; 100 camera pictures written",
    ),
    (
        "PythonAPI/examples/synchronous_mode.py, sensor_synchronization.py, "
        "lidar_to_camera.py, visualize_multiple_sensors.py (`--sync`), bounding_boxes.py, "
        "draw_skeleton.py",
        "`--frames 40` (lidar_to_camera.py: `--frames 5`), SDL_VIDEODRIVER=dummy",
        "run: camera pictures written, the sensors' frames in step (lidar_to_camera.py's "
        "0.05 s step over its substep limit is CARLA's warning)",
    ),
    (
        "PythonAPI/examples/manual_control.py",
        "`--frames 60`, with and without `--sync`, SDL_VIDEODRIVER=dummy",
        "runs (asynchronous: its 60 fps pygame clock moves the world); the blueprint "
        "sensor.camera.cosmos_visualization exists, lockstep gives it no pictures",
    ),
    (
        "PythonAPI/examples/tutorial_gbuffer.py",
        "",
        "stops: Sensor.enable_gbuffers and listen_to_gbuffer are not in lockstep",
    ),
    (
        "scenario_runner.py --scenario FollowLeadingVehicle_1 --sync",
        "tests/test_carla_scenario_runner.py (the hero on lockstep's autopilot)",
        "its result table; two runs give the same log",
    ),
    (
        "scenario_runner.py --openscenario: FollowLeadingVehicle.xosc",
        "tests/test_carla_scenario_runner.py",
        "its result table; two runs give the same log",
    ),
    (
        "scenario_runner.py --openscenario: CatalogExample, CyclistCrossing, "
        "InitAddEntityAction, InitDeleteEntityAction, LaneChangeSimple, "
        "PedestrianCrossingFront, Slalom, StoryAddEntityAction, StoryDeleteEntityAction, "
        "VehicleLateralDistance",
        "tests/test_carla_scenario_runner.py (make test-slow)",
        "their result tables; two runs of each give the same log",
    ),
    (
        "scenario_runner.py --openscenario: IntersectionCollisionAvoidance, "
        "SyncArrivalIntersection",
        "",
        "scenario_runner 0.9.16 itself raises TypeError (len(None) in ChangeActorWaypoints) "
        "while building them",
    ),
    (
        "scenario_runner.py --openscenario: ChangingWeather, LaneOffsetActionExample, "
        "OscControllerExample",
        "",
        "not run to their end: they stop after 10^7 s of simulation (ChangingWeather) or "
        "20 km driven (ChangingWeather and OscControllerExample ran for minutes without error)",
    ),
    (
        "leaderboard 2.x leaderboard_evaluator.py, an agent without cameras",
        "tests/test_carla_leaderboard.py (a route of leaderboard 1.0's devtest data on Town01)",
        "evaluates the route with its own StatisticsManager and writes its results.json",
    ),
    (
        "an agent on leaderboard 2.x's AutonomousAgent reading CarlaDataProvider",
        "`lockstep run`, tests/test_carla_leaderboard.py",
        "runs: lockstep's shim steps aside, CarlaDataProvider is filled as the evaluator fills it",
    ),
    (
        "leaderboard 2.x npc_agent.py (CARLA's BasicAgent)",
        "tests/test_carla_basic_agent.py",
        "BasicAgent stops 8.2 m before the red light 15 m after the start of route 0 of "
        "leaderboard 1.0's devtest routes (Town01), which it used to run. "
        "misc.is_within_distance needs an angle above 0.0 between the ego's 2D forward vector "
        "and the light's trigger; the ego starts on the lane's centre line with its heading "
        "and BasicAgent steers it exactly 0, so with a body that never pitched on a flat town "
        "the cosine rounded to 1.0 (CARLA's float32 forward vector, 1 + 3.6e-9 long at this "
        "heading, would not have saved it either). What changed: vehicles pitch on their "
        "suspensions as CARLA's PhysX vehicles do (world.physics.body_pitch, "
        "docs/world-physics.md, Body pitch: nose up pulling away, down braking; CARLA's "
        "Town01 log has no moving frame of the Lincoln at pitch 0), so the ego's 2D forward "
        "vector is a little shorter than 1 and the angle above 0; nothing in the agent is "
        "special-cased",
    ),
    (
        "leaderboard 1.0 leaderboard_evaluator.py, an agent without cameras",
        "tests/test_carla_leaderboard.py (route 0 of its devtest data on Town01, the first four "
        "waypoints, with its public scenarios), with scenario_runner 0.9.10 "
        "($LOCKSTEP_SCENARIO_RUNNER_0910 or ../shared/carla-code/scenario_runner-0.9.10: "
        "skipped where absent) and stand-ins of CARLA 0.9.10's route planner and its DAO",
        "evaluates the route with its own StatisticsManager and writes its results.json "
        "(Completed, route 100 %, one collision with a scenario's vehicle); its "
        '`pkg_resources.get_distribution("carla")` finds 0.9.16. On scenario_runner '
        "0.9.16, which it was not written for, it stops in scenario_runner: it imports "
        "srunner.scenarios.junction_crossing_route and "
        "atomic_criteria.ActorSpeedAboveThresholdTest (both gone), calls "
        "CarlaDataProvider.set_ego_vehicle_route (gone), reads each criterion's "
        "list_traffic_events (now `events`) and each scenario's `scenario` attribute (gone "
        "from BasicScenario)",
    ),
]


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
    lines += [
        "",
        "## CARLA code known to run",
        "",
        "Run unchanged under `lockstep exec [--maps DIR] [--map TOWN|FILE.xodr] [--frames N]",
        "SCRIPT` (or `lockstep run`), with scenario_runner, the leaderboard and CARLA's `agents`",
        "package on PYTHONPATH (scenario_runner also wants SCENARIO_RUNNER_ROOT, as with CARLA).",
        "The examples need what they import (pygame, matplotlib, Pillow); those with a pygame",
        "window run with SDL_VIDEODRIVER=dummy.",
        "",
        "| what | how | result |",
        "|---|---|---|",
    ]
    lines += [f"| {what} | {how} | {result} |" for what, how, result in KNOWN_TO_RUN]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
