"""Where the page puts an infraction on the timeline (runner/view/infraction_marks.py), with
a hero track and Collision records laid out by hand."""

from __future__ import annotations

import numpy as np

from runner.view.infraction_marks import HeroTrack, log_marks, record_marks

HERO, OTHER = 36, 42
NOT_AN_ACTOR = 0xFFFFFFFF


def _track() -> HeroTrack:
    """The hero drives east along y = 1.75 at 0.5 m a frame from x = 10 (frames 0-39),
    turns round and drives back west (frames 40-79): it passes x = 15 at frames 10 and 69."""
    x = np.concatenate([10.0 + 0.5 * np.arange(40), 29.5 - 0.5 * np.arange(40)])
    return HeroTrack(np.arange(80), np.stack([x, np.full(80, 1.75)], axis=1))


def _collision(place: str) -> str:
    return f"Agent collided against object with type=vehicle.audi.a2 and id={OTHER} at {place}"


def _none() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(0, np.int64), np.zeros((0, 2), np.int64)


def test_a_text_with_a_place_goes_where_the_hero_first_was() -> None:
    text = _collision("(x=15.0, y=1.75, z=0.0)")
    (mark,) = record_marks({"collisions_vehicle": [text]}, _track(), _none(), HERO, 79)
    assert (mark.pos, mark.place) == (10, (15.0, 1.75))


def test_a_logged_collision_with_that_actor_picks_among_those_frames() -> None:
    # the log's collision sensor heard the hero hit 42 at frame 69 (on the way back)
    collisions = (np.array([69, 70]), np.array([[HERO, OTHER], [HERO, OTHER]]))
    text = _collision("(x=15.0, y=1.75, z=0.0)")
    (mark,) = record_marks({"collisions_vehicle": [text]}, _track(), collisions, HERO, 79)
    assert mark.pos == 69


def test_a_blockage_goes_where_the_hero_last_was_and_a_text_without_a_place_at_the_end() -> None:
    # the hero stands at x = 29.5 for frames 39 and 40: a blockage is reported when it ends
    blocked = "Agent got blocked at (x=29.5, y=1.75, z=0.0)"
    lanes = "Agent went outside its route lanes for about 2.4 meters (3% of the completed route)"
    marks = record_marks(
        {"vehicle_blocked": [blocked], "outside_route_lanes": [lanes]}, _track(), _none(), HERO, 79
    )
    assert [(m.kind, m.pos, m.place) for m in marks] == [
        ("vehicle_blocked", 40, (29.5, 1.75)),
        ("outside_route_lanes", 79, None),
    ]


def test_a_lone_logs_collisions_are_marked_once_a_contact() -> None:
    # the hero touches 42 for frames 5-7, then again at 20; 42 touches a wall at 30
    where = np.array([5, 6, 7, 20, 30])
    pairs = np.array([[HERO, OTHER]] * 4 + [[OTHER, NOT_AN_ACTOR]])
    names = {HERO: "vehicle.lincoln.mkz_2017", OTHER: "vehicle.audi.a2"}
    marks = log_marks((where, pairs), HERO, names)
    assert [m.pos for m in marks] == [5, 20]
    assert marks[0].text == "collision of 36 (vehicle.lincoln.mkz_2017) with 42 (vehicle.audi.a2)"
    assert [m.pos for m in log_marks((where, pairs), None, names)] == [5, 20, 30]
