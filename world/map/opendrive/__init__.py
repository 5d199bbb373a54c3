"""OpenDRIVE maps: the document model, its reader and writer, and vectorised geometry.

`load_opendrive(path)` / `parse_opendrive(text)` give an `OpenDrive` of plain
dataclasses (world.map.opendrive.model), and `write_opendrive(doc)` writes one back as
text that reads as the same document (world.map.opendrive.writer); `RoadEvaluator(road)`
evaluates one road's geometry on numpy arrays (world.map.opendrive.evaluation), in
OpenDRIVE's right-handed frame. docs/opendrive.md describes them.
"""

from world.map.opendrive.errors import OpenDriveError
from world.map.opendrive.evaluation import LaneSample, RoadEvaluator, SurfaceFrame, road_evaluators
from world.map.opendrive.model import *  # noqa: F403
from world.map.opendrive.model import __all__ as _model_names
from world.map.opendrive.parser import load_opendrive, parse_opendrive
from world.map.opendrive.placement import outline_points, road_pose, signal_pose
from world.map.opendrive.writer import write_opendrive

__all__ = [
    *_model_names,
    "LaneSample",
    "OpenDriveError",
    "RoadEvaluator",
    "SurfaceFrame",
    "load_opendrive",
    "outline_points",
    "parse_opendrive",
    "road_evaluators",
    "road_pose",
    "signal_pose",
    "write_opendrive",
]
