"""Light packets: CarlaRecorderLightVehicle (flags) and CarlaRecorderLightScene."""

from __future__ import annotations

from dataclasses import dataclass

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import FixedLayout, PacketCodec


@dataclass(slots=True)
class VehicleLightRecord:
    """A vehicle's light flags (VehicleLightState bits)."""

    id: int
    state: int


@dataclass(slots=True)
class SceneLightRecord:
    """A scene light's id (int32), intensity, colour (r, g, b, a), switch and group."""

    id: int
    intensity: float
    color: tuple[float, float, float, float]
    on: bool
    type: int


VEHICLE_LIGHT = FixedLayout(VehicleLightRecord, [("id", "I", 1), ("state", "I", 1)])
SCENE_LIGHT = FixedLayout(
    SceneLightRecord,
    [("id", "i", 1), ("intensity", "f", 1), ("color", "f", 4), ("on", "?", 1), ("type", "B", 1)],
)
VEHICLE_LIGHT_CODEC = PacketCodec.fixed(PacketId.VehicleLight, "vehicle_light", VEHICLE_LIGHT)
SCENE_LIGHT_CODEC = PacketCodec.fixed(PacketId.SceneLight, "scene_light", SCENE_LIGHT)
