"""Enum bases whose `str()` is the bare member name, as CARLA's client code compares names."""

from __future__ import annotations

import enum


class CarlaEnum(enum.IntEnum):
    """An integer enum printed as its bare name: `str(LaneChange.Both) == "Both"`."""

    def __str__(self) -> str:
        return str(self.name)


class CarlaFlag(enum.IntFlag):
    """An integer bit-flag enum printed as its bare name (`A|B` for a combination)."""

    def __str__(self) -> str:
        return str(self.name) if self.name is not None else str(int(self))
