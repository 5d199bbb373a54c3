"""`lockstep check RUN_DIR`: re-simulate each route of a run and compare the logs.

Each route repetition listed in the manifest runs again from the manifest's
resolved config, by default with the logged agent feeding the ego the controls
recorded in the old log (so an agent that is not deterministic, on a GPU say,
need not be), for as many ticks as the old run took; `agent=True` runs the real
agent instead. The new log is compared with the old byte for byte except the
header's date and PlatformTime packets (runner.log_compare).
"""

from __future__ import annotations

import dataclasses
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from runner.config import config_from_manifest
from runner.errors import CheckError
from runner.execution.manifest import read_manifest
from runner.log_compare import Divergence, compare_logs
from runner.route import run_route

__all__ = ["RouteCheck", "check_run"]

LOGGED_AGENT = "runner.agents.logged"


@dataclass(frozen=True)
class RouteCheck:
    route_id: str
    divergence: Divergence | None

    def __str__(self) -> str:
        return f"{self.route_id}: {'identical' if self.divergence is None else self.divergence}"


def check_run(run_dir: str | Path, agent: bool = False) -> list[RouteCheck]:
    """Re-simulates every recorded route repetition of `run_dir`; one RouteCheck each."""
    run_dir = Path(run_dir).resolve()  # the logged agent's spec names the log from scratch
    manifest = read_manifest(run_dir)
    config = config_from_manifest(manifest, str(run_dir / "manifest.yaml"))
    by_id = {r.id: r for r in config.routes}
    out = []
    with tempfile.TemporaryDirectory(prefix="lockstep-check-") as scratch:
        for route_id, meta in manifest["routes"].items():
            old_log = run_dir / meta["log"]
            if not old_log.is_file():
                raise CheckError(f"{run_dir}: {route_id}: log {meta['log']} is missing")
            route = by_id.get(str(meta["route"]))
            if route is None:
                raise CheckError(f"{run_dir}: {route_id}: route {meta['route']} not in the config")
            new_log = Path(scratch) / meta["log"]
            loop_ticks = int(meta["loop_ticks"])
            crashed = meta["failure"] == "agent_runtime"
            rerun = config
            if not agent:
                spec = Path(scratch) / f"{route_id}.agent.yaml"
                replay = {"log": str(old_log), "sensors": meta["sensors"]}
                if crashed:
                    replay["crash_at"] = loop_ticks  # the old agent raised in that step
                spec.write_text(yaml.safe_dump(replay), encoding="utf-8")
                rerun = dataclasses.replace(
                    config, agent_entry=LOGGED_AGENT, agent_config=str(spec)
                )
            run_route(
                rerun,
                route,
                int(meta["repetition"]),
                new_log,
                max_ticks=None if crashed else loop_ticks,
            )
            out.append(RouteCheck(route_id, compare_logs(old_log, new_log)))
    return out
