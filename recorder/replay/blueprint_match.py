"""The blueprint of lockstep's catalogue a logged blueprint replays as.

A log names CARLA's blueprints, and CARLA's versions renamed some (vehicle.lincoln.mkz2017
became vehicle.lincoln.mkz_2017) or have props lockstep lacks (static.prop.mesh). A
known id is used as it is. An unknown one takes the nearest blueprint of the same base
type: the same first part (vehicle, walker, static, sensor, ...), for vehicles the same
base_type attribute when the log gives one (or two wheels for a two-wheeler), then the
id most like it (difflib's ratio), ties to the smaller id. No blueprint of the base type:
None, the actor is not replayed.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

_TWO_WHEELERS = ("motorcycle", "bicycle")


def _attribute(blueprint: object, name: str) -> str | None:
    has = getattr(blueprint, "has_attribute", None)
    if has is None or not has(name):
        return None
    return str(blueprint.get_attribute(name).value)  # type: ignore[attr-defined]


def nearest_blueprint(
    blueprint_id: str, attributes: Mapping[str, str], catalogue: Iterable[object]
) -> str | None:
    """The id in `catalogue` (blueprints with `.id`) that `blueprint_id` replays as."""
    blueprints = {bp.id: bp for bp in catalogue}  # type: ignore[attr-defined]
    if blueprint_id in blueprints:
        return blueprint_id
    head = blueprint_id.split(".", 1)[0].lower()
    candidates = sorted(i for i in blueprints if i.split(".", 1)[0].lower() == head)
    if not candidates:
        return None
    if head == "vehicle":
        wanted = attributes.get("base_type", "").lower()
        if not wanted and attributes.get("number_of_wheels") == "2":
            same = [
                i for i in candidates if _attribute(blueprints[i], "base_type") in _TWO_WHEELERS
            ]
        else:
            same = [
                i for i in candidates if wanted and _attribute(blueprints[i], "base_type") == wanted
            ]
        if not same and not wanted:
            same = [i for i in candidates if _attribute(blueprints[i], "base_type") == "car"]
        candidates = same or candidates
    name = blueprint_id.lower()
    # max keeps the first of equal ratios: candidates are sorted, so the smaller id wins
    return max(candidates, key=lambda i: difflib.SequenceMatcher(None, name, i.lower()).ratio())
