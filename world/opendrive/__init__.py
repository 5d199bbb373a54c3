"""OpenDRIVE maps: the document model, its reader, and vectorised geometry evaluation."""

from world.opendrive.errors import OpenDriveError
from world.opendrive.model import *  # noqa: F403
from world.opendrive.model import __all__ as _model_names
from world.opendrive.parser import load_opendrive, parse_opendrive

__all__ = [*_model_names, "OpenDriveError", "load_opendrive", "parse_opendrive"]
