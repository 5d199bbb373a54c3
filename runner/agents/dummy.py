"""The dummy agent: stands still (no throttle, no steer, full brake), with no sensors."""

from __future__ import annotations

from runner.agents.base import AutonomousAgent
from world.actors.controls import VehicleControl


def get_entry_point() -> str:
    return "DummyAgent"


class DummyAgent(AutonomousAgent):
    """Holds the car where it was spawned."""

    def run_step(self, input_data: dict, timestamp: float) -> VehicleControl:
        return VehicleControl(throttle=0.0, steer=0.0, brake=1.0)
