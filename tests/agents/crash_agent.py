"""A test agent: drives gently and, on routes that start west of x = 100 m, raises in its step
at world frame 50 (after 50 ticks)."""

from __future__ import annotations

from runner.agents.base import AutonomousAgent
from world.actors.controls import VehicleControl

CRASH_FRAME = 50


def get_entry_point() -> str:
    return "CrashAgent"


class CrashAgent(AutonomousAgent):
    def sensors(self) -> list[dict]:
        return [{"type": "sensor.speedometer", "id": "speed"}]

    def run_step(self, input_data: dict, timestamp: float) -> VehicleControl:
        frame = self.world.get_snapshot().timestamp.frame
        start = self._global_plan_world_coord[0][0].location
        if frame == CRASH_FRAME and start.x < 100.0:
            raise RuntimeError(f"agent fell over at frame {frame}")
        return VehicleControl(throttle=0.4)
