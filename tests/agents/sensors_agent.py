"""A SENSORS-track test agent in the leaderboard's form: two cameras, a LiDAR, a radar, GNSS,
IMU and a speedometer, and a control that reads them: it brakes when its radar sees
something ahead closer than 8 m or its front camera's centre is darker than a threshold
(so the run depends on the pictures' and the radar's bytes), else drives on."""

from __future__ import annotations

from runner.agents.base import AutonomousAgent, Track
from world.actors.controls import VehicleControl


def get_entry_point() -> str:
    return "SensorsAgent"


def _mount(x: float, z: float, pitch: float = 0.0, yaw: float = 0.0) -> dict:
    return {"x": x, "y": 0.0, "z": z, "roll": 0.0, "pitch": pitch, "yaw": yaw}


def _camera(tag: str, yaw: float) -> dict:
    size = {"width": 96, "height": 64, "fov": 100}
    return {"type": "sensor.camera.rgb", "id": tag, **_mount(1.3, 2.3, yaw=yaw), **size}


class SensorsAgent(AutonomousAgent):
    def setup(self, path_to_conf_file) -> None:
        self.track = Track.SENSORS

    def sensors(self) -> list[dict]:
        radar_fov = {"horizontal_fov": 35, "vertical_fov": 20}
        return [
            _camera("front", 0.0),
            _camera("left", -60.0),
            {"type": "sensor.lidar.ray_cast", "id": "lidar", **_mount(1.3, 2.5, yaw=-90.0)},
            {"type": "sensor.other.radar", "id": "radar", **_mount(2.8, 1.0, 5.0), **radar_fov},
            {"type": "sensor.other.gnss", "id": "gps", "x": 0.0, "y": 0.0, "z": 0.0},
            {"type": "sensor.other.imu", "id": "imu", **_mount(0.0, 0.0)},
            {"type": "sensor.speedometer", "id": "speed", "reading_frequency": 20},
        ]

    def run_step(self, input_data: dict, timestamp: float) -> VehicleControl:
        front = input_data["front"][1]
        radar = input_data["radar"][1]
        centre = float(front[28:36, 44:52, :3].mean())
        close = bool(len(radar) and (radar[:, 0] < 8.0).any())
        if close or centre < 20.0:
            return VehicleControl(throttle=0.0, steer=0.0, brake=1.0)
        speed = input_data["speed"][1]["speed"]
        return VehicleControl(throttle=0.5 if speed < 6.0 else 0.0, steer=0.0, brake=0.0)
