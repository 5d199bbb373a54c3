"""Reading actor flows out of a scenario run's trace (tests/scenario_runs.py): each
scenario vehicle's samples, and the checks every flow test makes."""

from __future__ import annotations

TICK = 0.05


def scenario_samples(trace) -> dict[int, list[tuple[int, float, float, float]]]:
    """Each scenario-owned vehicle's (tick, x, y, speed) samples, by actor id."""
    seen: dict[int, list[tuple[int, float, float, float]]] = {}
    for k, frame in enumerate(trace.others):
        for s in frame.values():
            if s.role == "scenario":
                seen.setdefault(s.id, []).append((k, s.x, s.y, s.speed))
    return seen


def spawned_at(samples: dict, x: float, y: float, after: int = -1) -> list[int]:
    """The vehicles (id order) whose first sample is within 1 m of (x, y), after tick
    `after`."""
    return sorted(
        i
        for i, s in samples.items()
        if s[0][0] > after and abs(s[0][1] - x) < 1.0 and abs(s[0][2] - y) < 1.0
    )


def gaps_at_spawn(trace, vehicles: list[int], samples: dict, x: float, y: float) -> list[float]:
    """For each vehicle spawned at the source (x, y): how far the nearest other vehicle of
    the same lane (within 1 m of y) was from the source the tick before."""
    gaps = []
    for vehicle in vehicles:
        tick = samples[vehicle][0][0]
        before = [
            abs(o.x - x)
            for o in trace.others[tick - 1].values()
            if o.role == "scenario" and abs(o.y - y) < 1.0
        ]
        gaps.append(min(before) if before else float("inf"))
    return gaps
