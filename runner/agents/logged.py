"""The logged agent: replays the ego's controls from a CARLA log (what `lockstep check` feeds).

Its config is the log file, or a YAML `{log: PATH, sensors: [...], crash_at: N}`
naming the sensors to attach (so the re-run has the same actors) and the step
where the logged run's agent raised (so the re-run stops the same way). The ego is
the actor whose role_name is "hero". The log's k-th frame is the k-th world
tick after the recorder started, so at world frame f (before the tick to
f + 1) the agent returns the AnimVehicle control of the log's frame f - start:
the control the physics used in that tick. A frame without one keeps the last.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from recorder import PacketId
from recorder.logfile.reader import LogReader
from runner.agents.base import AutonomousAgent
from runner.errors import AgentError
from world.actors.controls import VehicleControl

__all__ = ["LoggedAgent", "get_entry_point", "logged_controls"]


def get_entry_point() -> str:
    return "LoggedAgent"


def logged_controls(path: str | Path, role_name: str = "hero") -> list[VehicleControl | None]:
    """Per log frame, the control recorded for the actor named `role_name` (None: none)."""
    reader = LogReader(path)
    hero = None
    out: list[VehicleControl | None] = []
    for packet in reader.packets():
        kind = reader.kind(packet.id)
        if kind == PacketId.FrameStart:
            out.append(None)
        elif kind == PacketId.EventAdd and hero is None:
            for record in reader.records(packet):
                names = {a.id: a.value for a in record.attributes}
                if names.get("role_name") == role_name and record.blueprint.startswith("vehicle"):
                    hero = record.id
                    break
        elif kind == PacketId.AnimVehicle and hero is not None and out:
            for record in reader.records(packet):
                if record.id == hero:
                    out[-1] = VehicleControl(
                        throttle=record.throttle,
                        steer=record.steering,
                        brake=record.brake,
                        hand_brake=bool(record.handbrake),
                        reverse=record.gear < 0,
                    )
    if hero is None:
        raise AgentError(f"{path}: no vehicle with role_name {role_name!r} in this log")
    return out


class LoggedAgent(AutonomousAgent):
    """Replays a log's ego controls, frame by frame."""

    # the log holds the controls the ego got, after any scenario's control filters (a
    # ControlLoss's noise): the re-run applies them as they are
    replays_applied_controls = True

    def setup(self, path_to_conf_file: str | None) -> None:
        if path_to_conf_file is None:
            raise AgentError("logged agent: agent.config must name the log to replay")
        path = Path(path_to_conf_file)
        self._sensors: list[dict] = []
        self._crash_at: int | None = None
        if path.suffix in (".yaml", ".yml"):
            spec = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            path = path.parent / spec["log"]
            self._sensors = list(spec.get("sensors", []))
            self._crash_at = spec.get("crash_at")
        self._controls = logged_controls(path)
        self._last = VehicleControl()
        self.start_frame = 0

    def sensors(self) -> list[dict]:
        return self._sensors

    def run_step(self, input_data: dict, timestamp: float) -> VehicleControl:
        index = self.world.get_snapshot().timestamp.frame - self.start_frame
        if self._crash_at is not None and index >= self._crash_at:
            raise AgentError(f"the logged run's agent crashed at this step ({index})")
        if 0 <= index < len(self._controls) and self._controls[index] is not None:
            self._last = self._controls[index]
        return self._last
