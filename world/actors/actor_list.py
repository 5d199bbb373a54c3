"""ActorList: the actors `World.get_actors()` returns, in id order (CARLA's carla.ActorList)."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from world.handles import Actor

__all__ = ["ActorList"]


class ActorList:
    """A list of actor handles sorted by id; `filter` keeps those whose type_id matches."""

    def __init__(self, actors: Sequence[Actor]) -> None:
        self._actors = sorted(actors, key=lambda a: a.id)

    def filter(self, wildcard_pattern: str) -> ActorList:
        """The actors whose type_id matches the shell wildcard (fnmatch, case-sensitive)."""
        return ActorList(
            [a for a in self._actors if fnmatch.fnmatchcase(a.type_id, wildcard_pattern)]
        )

    def find(self, actor_id: int) -> Actor | None:
        for actor in self._actors:
            if actor.id == actor_id:
                return actor
        return None

    def __len__(self) -> int:
        return len(self._actors)

    def __iter__(self) -> Iterator[Actor]:
        return iter(self._actors)

    def __getitem__(self, index: int) -> Actor:
        return self._actors[index]

    def __repr__(self) -> str:
        return f"ActorList({self._actors!r})"
