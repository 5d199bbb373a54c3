"""The recorder's and replayer's calls, on lockstep's recorder and replayer (through the
in-process `carla.Client`, runner.carla.client). File names are the server's: a relative
name is taken from the server's working directory."""

from __future__ import annotations

from typing import Any

from runner.serve import shapes
from runner.serve.dispatch import VOID_RESULT, Method

__all__ = ["METHODS"]


def start_recorder(
    session: Any, name: Any, additional_data: Any = False, stop_replayer: Any = False
) -> str:
    filename = shapes.text(name, "start_recorder: name")
    extra = shapes.boolean(additional_data, "start_recorder: additional_data")
    session.world  # noqa: B018 - the episode the recording starts in
    return session.client.start_recorder(filename, extra)


def stop_recorder(session: Any) -> None:
    session.client.stop_recorder()


def show_recorder_file_info(session: Any, name: Any, show_all: Any = False) -> str:
    return session.client.show_recorder_file_info(
        shapes.text(name, "show_recorder_file_info: name"),
        shapes.boolean(show_all, "show_recorder_file_info: show_all"),
    )


def _category(value: Any, what: str) -> str:
    """A C char as CARLA's client sends it (a small integer), or a one-letter string."""
    if isinstance(value, str):
        return value[:1]
    return chr(shapes.integer(value, what, low=-128, high=256) & 0xFF)


def show_recorder_collisions(session: Any, name: Any, category1: Any, category2: Any) -> str:
    return session.client.show_recorder_collisions(
        shapes.text(name, "show_recorder_collisions: name"),
        _category(category1, "show_recorder_collisions: category1"),
        _category(category2, "show_recorder_collisions: category2"),
    )


def show_recorder_actors_blocked(session: Any, name: Any, min_time: Any, min_distance: Any) -> str:
    return session.client.show_recorder_actors_blocked(
        shapes.text(name, "show_recorder_actors_blocked: name"),
        shapes.number(min_time, "show_recorder_actors_blocked: min_time"),
        shapes.number(min_distance, "show_recorder_actors_blocked: min_distance"),
    )


def replay_file(
    session: Any,
    name: Any,
    start: Any,
    duration: Any,
    follow_id: Any,
    replay_sensors: Any = False,
    *_later: Any,
) -> str:
    """Replays a log into the current world from `start` for `duration` seconds; the world's
    steps advance it. (0.9.16's weather, offset and map-override arguments are taken and
    not used.)"""
    session.world  # noqa: B018 - the episode the replay starts in
    text = session.client.replay_file(
        shapes.text(name, "replay_file: name"),
        shapes.number(start, "replay_file: start"),
        shapes.number(duration, "replay_file: duration"),
        shapes.integer(follow_id, "replay_file: follow_id", high=1 << 32),
        shapes.boolean(replay_sensors, "replay_file: replay_sensors"),
    )
    session.world  # noqa: B018 - a replay that loaded another map starts a new episode
    return text


def set_replayer_time_factor(session: Any, time_factor: Any) -> None:
    session.client.set_replayer_time_factor(
        shapes.number(time_factor, "set_replayer_time_factor: time_factor")
    )


def set_replayer_ignore_hero(session: Any, ignore_hero: Any) -> None:
    session.client.set_replayer_ignore_hero(
        shapes.boolean(ignore_hero, "set_replayer_ignore_hero: ignore_hero")
    )


def set_replayer_ignore_spectator(session: Any, ignore_spectator: Any) -> None:
    session.client.set_replayer_ignore_spectator(
        shapes.boolean(ignore_spectator, "set_replayer_ignore_spectator: ignore_spectator")
    )


def stop_replayer(session: Any, keep_actors: Any = False) -> None:
    session.client.stop_replayer(shapes.boolean(keep_actors, "stop_replayer: keep_actors"))


METHODS: dict[str, Method] = {
    "start_recorder": Method(start_recorder),
    "stop_recorder": Method(stop_recorder, VOID_RESULT),
    "show_recorder_file_info": Method(show_recorder_file_info),
    "show_recorder_collisions": Method(show_recorder_collisions),
    "show_recorder_actors_blocked": Method(show_recorder_actors_blocked),
    "replay_file": Method(replay_file),
    "set_replayer_time_factor": Method(set_replayer_time_factor, VOID_RESULT),
    "set_replayer_ignore_hero": Method(set_replayer_ignore_hero, VOID_RESULT),
    "set_replayer_ignore_spectator": Method(set_replayer_ignore_spectator, VOID_RESULT),
    "stop_replayer": Method(stop_replayer, VOID_RESULT),
}
