"""`lockstep leaderboard`: lockstep's runner under the CARLA leaderboard evaluator's own
flags and the environment variables its run scripts set, so a team's run script works
with one line changed (`python3 ${LEADERBOARD_ROOT}/leaderboard/leaderboard_evaluator.py`
becomes `lockstep leaderboard`).

The flags are leaderboard_evaluator.py's (2.x, and 1.0's `--scenarios` and camel-case
traffic manager flags) with its defaults; a flag left out or given empty
(`--agent-config=${TEAM_CONFIG}` with TEAM_CONFIG unset) takes its run script's
variable: ROUTES, ROUTES_SUBSET, REPETITIONS, TEAM_AGENT, TEAM_CONFIG,
CHALLENGE_TRACK_CODENAME, CHECKPOINT_ENDPOINT, DEBUG_CHECKPOINT_ENDPOINT, RECORD_PATH,
RESUME, SCENARIOS, DEBUG_CHALLENGE. `--resume` reads as the evaluator's `type=bool`
does: any text but the empty one resumes.

The evaluation is an ordinary lockstep config, written to the run directory as
`leaderboard.yaml` (so `lockstep run` runs it again): the routes file with its
scenarios, the agent and its config, the track the agent must declare, 20 Hz, the traffic
manager's seed as the evaluation's seed, results.json at `--checkpoint`. The run
directory (logs, manifest) is `--record` when given, else the checkpoint's folder. A
route file's towns are read from `--maps` (or LOCKSTEP_MAPS), else from CARLA's own
install, `$CARLA_ROOT/CarlaUE4/Content/Carla/Maps/OpenDrive`. The CARLA server's flags
(`--host`, `--port`, `--timeout`, the traffic manager's port) are taken and unused:
there is no server. The exit status is `lockstep run`'s.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

__all__ = ["register"]

# flag destination -> the run scripts' variable for it
ENVIRONMENT = {
    "routes": "ROUTES",
    "routes_subset": "ROUTES_SUBSET",
    "repetitions": "REPETITIONS",
    "agent": "TEAM_AGENT",
    "agent_config": "TEAM_CONFIG",
    "track": "CHALLENGE_TRACK_CODENAME",
    "checkpoint": "CHECKPOINT_ENDPOINT",
    "debug_checkpoint": "DEBUG_CHECKPOINT_ENDPOINT",
    "record": "RECORD_PATH",
    "resume": "RESUME",
    "scenarios": "SCENARIOS",
    "debug": "DEBUG_CHALLENGE",
    "maps": "LOCKSTEP_MAPS",
}
# leaderboard_evaluator.py's defaults
DEFAULTS = {
    "routes_subset": "",
    "repetitions": "1",
    "agent_config": "",
    "track": "SENSORS",
    "checkpoint": "./simulation_results.json",
    "debug_checkpoint": "./live_results.txt",
    "record": "",
    "resume": "",
    "scenarios": "",
    "debug": "0",
    "maps": "",
}
CARLA_MAPS = Path("CarlaUE4") / "Content" / "Carla" / "Maps" / "OpenDrive"
TICK = 0.05  # the leaderboard's 20 Hz


def register(subparsers: argparse._SubParsersAction) -> None:
    lb = subparsers.add_parser(
        "leaderboard",
        help="run lockstep's runner with CARLA leaderboard_evaluator.py's flags and its "
        "run scripts' environment variables",
    )
    unused = "accepted as the evaluator's, unused (no CARLA server)"
    lb.add_argument("--host", help=unused)
    lb.add_argument("--port", help=unused)
    lb.add_argument("--traffic-manager-port", "--trafficManagerPort", help=unused)
    lb.add_argument(
        "--traffic-manager-seed",
        "--trafficManagerSeed",
        default="0",
        help="the evaluation's seed (default 0)",
    )
    lb.add_argument("--debug", help="taken as the evaluator's (DEBUG_CHALLENGE); unused")
    lb.add_argument(
        "--record",
        help="the run directory: logs, manifest (RECORD_PATH; default: the checkpoint's folder)",
    )
    lb.add_argument("--timeout", help=unused)
    lb.add_argument("--routes", help="the routes file (ROUTES)")
    lb.add_argument("--scenarios", help="Leaderboard 1.0's scenarios JSON (SCENARIOS)")
    lb.add_argument("--routes-subset", help='routes to run, e.g. "0-2,5" (ROUTES_SUBSET)')
    lb.add_argument("--repetitions", help="runs of each route (REPETITIONS; default 1)")
    lb.add_argument("-a", "--agent", help="the agent's .py file (TEAM_AGENT)")
    lb.add_argument("--agent-config", help="handed to the agent's setup (TEAM_CONFIG)")
    lb.add_argument(
        "--track",
        help="SENSORS, MAP (or their _QUALIFIER forms) the agent must declare "
        "(CHALLENGE_TRACK_CODENAME; default SENSORS)",
    )
    lb.add_argument("--resume", help="any text but the empty one resumes (RESUME)")
    lb.add_argument(
        "--checkpoint",
        help="results.json's path (CHECKPOINT_ENDPOINT; default ./simulation_results.json)",
    )
    lb.add_argument(
        "--debug-checkpoint",
        help="the score table, written when the evaluation ends "
        "(DEBUG_CHECKPOINT_ENDPOINT; default ./live_results.txt)",
    )
    lb.add_argument(
        "--maps",
        help="the folder of the route files' towns, <Town>.xodr (LOCKSTEP_MAPS; default "
        "$CARLA_ROOT/CarlaUE4/Content/Carla/Maps/OpenDrive)",
    )
    lb.add_argument("--workers", help="local worker processes, as lockstep run's")
    lb.set_defaults(func=_leaderboard)


def settings(args: argparse.Namespace, environ: dict[str, str]) -> dict[str, str]:
    """Each setting: the flag when given and not empty, else the run scripts' variable,
    else the evaluator's default."""
    out: dict[str, str] = {}
    for name, variable in ENVIRONMENT.items():
        value = getattr(args, name, None)
        if value in (None, ""):
            value = environ.get(variable, "")
        if value == "":
            value = DEFAULTS.get(name, "")
        out[name] = value
    out["seed"] = args.traffic_manager_seed or "0"
    return out


def _leaderboard(args: argparse.Namespace) -> int:
    from runner.commands.evaluate import (
        EXIT_BAD_INPUT,
        run_config,
        scheduler_for,
        score_table,
        validated_config,
    )
    from runner.errors import UsageError
    from runner.statistics import ResultsFile

    given = settings(args, dict(os.environ))
    for name, flag in (("routes", "--routes"), ("agent", "--agent")):
        if not given[name]:
            variable = ENVIRONMENT[name]
            raise UsageError(f"leaderboard: {flag} (or {variable}) is required")
    checkpoint = Path(given["checkpoint"]).resolve()
    run_dir = Path(given["record"]).resolve() if given["record"] else checkpoint.parent
    run_dir.mkdir(parents=True, exist_ok=True)
    config_path = run_dir / "leaderboard.yaml"
    config_path.write_text(_config_text(given, checkpoint, run_dir), encoding="utf-8")
    config = validated_config(config_path)
    if config is None:
        return EXIT_BAD_INPUT
    resume = given["resume"] != ""  # the evaluator's type=bool: any text but ""
    if given["resume"].strip().lower() in ("0", "false", "no"):
        print(
            f"lockstep: warning: --resume={given['resume']} resumes, as the evaluator's "
            "type=bool flag reads any text but the empty one",
            file=sys.stderr,
        )
    workers = argparse.Namespace(workers=_workers(args.workers), ray=None)
    again = shlex.join(["lockstep", *sys.argv[1:], "--resume=1"])
    status = run_config(config, run_dir, scheduler_for(workers), resume=resume, again=again)
    if given["debug_checkpoint"]:
        data = ResultsFile(checkpoint).load().get("_checkpoint", {})
        table = score_table(data.get("records", []), data.get("global_record"))
        Path(given["debug_checkpoint"]).write_text(table + "\n", encoding="utf-8")
    return status


def _workers(text: str | None) -> int | None:
    from runner.errors import UsageError

    if text is None:
        return None
    try:
        workers = int(text)
    except ValueError:
        workers = 0
    if workers < 1:
        raise UsageError(f"leaderboard: --workers: expected a whole number >= 1, got {text!r}")
    return workers


def _maps_folder(given: dict[str, str]) -> Path:
    from runner.errors import UsageError

    if given["maps"]:
        return Path(given["maps"]).resolve()
    carla_root = os.environ.get("CARLA_ROOT", "")
    if carla_root and (Path(carla_root) / CARLA_MAPS).is_dir():
        return (Path(carla_root) / CARLA_MAPS).resolve()
    raise UsageError(
        "leaderboard: the route file's towns need their OpenDRIVE maps: give --maps FOLDER "
        "(or LOCKSTEP_MAPS) holding <Town>.xodr, or set CARLA_ROOT to a CARLA install"
    )


def _config_text(given: dict[str, str], checkpoint: Path, run_dir: Path) -> str:
    """The evaluation as a lockstep config (YAML, paths absolute)."""
    import yaml

    from runner.errors import UsageError

    try:
        seed, repetitions = int(given["seed"]), int(given["repetitions"])
    except ValueError:
        raise UsageError(
            "leaderboard: --traffic-manager-seed and --repetitions take whole numbers "
            f"(found {given['seed']!r}, {given['repetitions']!r})"
        ) from None
    routes: dict = {"file": str(Path(given["routes"]).resolve())}
    if given["routes_subset"]:
        routes["subset"] = given["routes_subset"]
    if given["scenarios"]:
        routes["scenarios"] = str(Path(given["scenarios"]).resolve())
    agent: dict = {"entry": str(Path(given["agent"]).resolve()), "track": given["track"]}
    if given["agent_config"]:
        agent["config"] = str(Path(given["agent_config"]).resolve())
    config = {
        "name": "leaderboard",
        "seed": seed,
        "maps": str(_maps_folder(given)),
        "tick": TICK,
        "repetitions": repetitions,
        "agent": agent,
        "routes": routes,
        "output": str(run_dir),
        "results": str(checkpoint),
    }
    head = "# written by lockstep leaderboard from its flags; `lockstep run` runs it again\n"
    return head + yaml.safe_dump(config, sort_keys=False)
