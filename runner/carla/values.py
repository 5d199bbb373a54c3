"""CARLA value types that only the client side of lockstep's `carla` namespace needs."""

from __future__ import annotations

from dataclasses import dataclass

from world.enums import CarlaFlag

__all__ = ["FloatColor", "MapLayer", "OpendriveGenerationParameters"]


class MapLayer(CarlaFlag):
    """CARLA's map layers (load_world's `map_layers`); lockstep's maps have no layers to
    load or unload, so the value is accepted and changes nothing."""

    NONE = 0
    Buildings = 0x1
    Decals = 0x2
    Foliage = 0x4
    Ground = 0x8
    ParkedVehicles = 0x10
    Particles = 0x20
    Props = 0x40
    StreetLights = 0x80
    Walls = 0x100
    All = 0xFFFF


@dataclass(slots=True)
class FloatColor:
    """A colour with float channels in [0, 1] (CARLA's carla.FloatColor)."""

    r: float = 0.0
    g: float = 0.0
    b: float = 0.0
    a: float = 1.0


@dataclass(slots=True)
class OpendriveGenerationParameters:
    """The mesh parameters of generate_opendrive_world, with CARLA's defaults; lockstep
    builds no mesh, so they are kept and not used."""

    vertex_distance: float = 2.0
    max_road_length: float = 50.0
    wall_height: float = 1.0
    additional_width: float = 0.6
    smooth_junctions: bool = True
    enable_mesh_visibility: bool = True
    enable_pedestrian_navigation: bool = True
