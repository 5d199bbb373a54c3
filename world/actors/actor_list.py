"""ActorList: the actors `World.get_actors()` returns (CARLA's carla.ActorList), in the order
it was given: id order for every actor, the order of the ids asked for a list of ids."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from world.handles import Actor

__all__ = ["ActorList"]


class ActorList:
    """A list of actor handles in the order given; `filter` keeps those whose type_id matches,
    in that order."""

    def __init__(self, actors: Sequence[Actor]) -> None:
        self._actors = list(actors)

    def filter(self, wildcard_pattern: str) -> ActorList:
        """The actors whose type_id matches the shell wildcard (fnmatch, case-sensitive)."""
        return ActorList(
            [a for a in self._actors if fnmatch.fnmatchcase(a.type_id, wildcard_pattern)]
        )

    def find(self, id: int) -> Actor | None:
        actor_id = int(id)
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
