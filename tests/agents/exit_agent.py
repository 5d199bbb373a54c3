"""A test agent whose process dies: on routes that start west of x = 100 m it calls
os._exit(3) at world frame 20, like a segfault, leaving no Python exception behind. Its
config file says "always", or "once": then it dies only if `<config>.died` does not exist
yet, and creates it first, so a retried task runs through."""

from __future__ import annotations

import os
from pathlib import Path

from runner.agents.base import AutonomousAgent
from world.actors.controls import VehicleControl

EXIT_FRAME = 20


def get_entry_point() -> str:
    return "ExitAgent"


class ExitAgent(AutonomousAgent):
    def setup(self, path_to_conf_file: str) -> None:
        self.mode = Path(path_to_conf_file).read_text(encoding="utf-8").strip()
        self.marker = Path(path_to_conf_file + ".died")

    def sensors(self) -> list[dict]:
        return [{"type": "sensor.speedometer", "id": "speed"}]

    def run_step(self, input_data: dict, timestamp: float) -> VehicleControl:
        frame = self.world.get_snapshot().timestamp.frame
        start = self._global_plan_world_coord[0][0].location
        dies = self.mode == "always" or not self.marker.exists()
        if frame == EXIT_FRAME and start.x < 100.0 and dies:
            self.marker.touch()
            os._exit(3)
        return VehicleControl(throttle=0.4)
