"""The background's numbers: ScenarioRunner's BackgroundBehavior defaults (Leaderboard 2.0),
some of which scenarios change while they run (ChangeRoadBehavior, ChangeOppositeBehavior,
SetMaxSpeed)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Tuning"]


@dataclass
class Tuning:
    """Distances in m, speeds in m/s unless named otherwise."""

    road_front: int = 2  # vehicles ahead of the ego per lane
    road_back: int = 2  # vehicles behind it per lane
    road_spawn_dist: float = 15.0  # between road vehicles when they appear
    road_extra_space: float = 0.0  # added to the bubble's radius ahead
    radius_per_speed: float = 1.7  # m of radius per m/s of the ego
    junction_detection: float = 30.0  # m before a junction where its handling starts...
    detection_per_speed: float = 1.5  # ...plus this per m/s of the ego
    junction_source_dist: float = 40.0  # from an entry back to its source
    junction_min_source_dist: float = 15.0  # entries with less room get no source
    junction_spawn_dist: float = 15.0  # between vehicles of a source
    junction_max_actors: int = 6  # alive per source
    junction_source_chance: float = 0.8  # each source runs with this probability
    opposite_spawn_dist: float = 40.0  # between oncoming vehicles
    opposite_source_dist: float = 80.0  # from the ego to the oncoming sources
    max_speed: float = 0.0  # km/h cap on every background vehicle (0: none)
    lane_width_min: float = 2.25  # narrower lanes (starting, ending) get no vehicles
    safe_distance: float = 15.0  # from the ego: no vehicle appears nearer
