"""A test agent that never brakes: a fixed throttle (0.6, or the number its config file
holds), straight ahead, so it runs into what is in front of it and a run has infractions."""

from __future__ import annotations

from pathlib import Path

from runner.agents.base import AutonomousAgent
from world.actors.controls import VehicleControl


def get_entry_point() -> str:
    return "RushAgent"


class RushAgent(AutonomousAgent):
    def setup(self, path_to_conf_file) -> None:
        self.throttle = float(Path(path_to_conf_file).read_text()) if path_to_conf_file else 0.6

    def sensors(self) -> list[dict]:
        return [{"type": "sensor.speedometer", "id": "speed", "reading_frequency": 20}]

    def run_step(self, input_data: dict, timestamp: float) -> VehicleControl:
        return VehicleControl(throttle=self.throttle, steer=0.0, brake=0.0)
