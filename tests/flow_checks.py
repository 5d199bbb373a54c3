"""Checks of an oncoming flow (the two-ways scenarios' OppositeActorFlow) from a trace:
its cars keep to the oncoming lane, drive towards the ego, the first appears `delay` s
after a given tick, and each next one when the last is `gap` m from the source."""

from __future__ import annotations

import pytest

TICK = 0.05


def check_oncoming_flow(
    trace, lane_y: float, start_tick: int, delay: float, gap: float | None
) -> list[int]:
    """Asserts the flow's facts (with `gap` None: one car is enough, its gap not checked);
    returns the flow's actor ids in spawn order."""
    ids = sorted(
        {s.id for o in trace.others for s in o.values() if s.role == "scenario" and s.y < 0.0}
    )
    assert len(ids) >= (1 if gap is None else 2)
    first_seen = []
    for actor_id in ids:
        track = [(i, s) for i, s in enumerate(trace.of(actor_id)) if s is not None]
        first_seen.append(track[0])
        assert all(s.y == pytest.approx(lane_y, abs=0.3) for _, s in track)  # oncoming lane
        if len(track) > 20:  # spawned a second or more before the end
            assert track[-1][1].x < track[0][1].x - 1.0  # driving towards the ego (-x)
    assert (first_seen[0][0] - start_tick) * TICK == pytest.approx(delay, abs=0.2)
    if gap is None:
        return ids
    source_x = first_seen[0][1].x
    leader = trace.others[first_seen[1][0] - 1][ids[0]]
    assert source_x - leader.x == pytest.approx(gap, abs=1.0)
    return ids
