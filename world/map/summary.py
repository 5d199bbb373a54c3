"""A short account of an OpenDRIVE map: roads, lanes, junctions, signals, driving length, bounds.

`summarize(odr)` counts from the parsed document and samples every road's outermost lane
borders (1 m apart and at both ends) for the bounds, which are given in CARLA's frame
(x_carla = x, y_carla = -y_odr). Driving-lane length is measured along each lane section of
the reference line, as CARLA measures a lane's length.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from world.map.opendrive import OpenDrive, Road
from world.map.opendrive.evaluation import RoadEvaluator

SIGNAL_NAMES = {
    "1000001": "traffic light",
    "206": "stop",
    "205": "yield",
    "274": "speed limit",
}
SAMPLE_STEP = 1.0


@dataclass(frozen=True)
class MapSummary:
    """What `lockstep map info` prints."""

    name: str
    roads: int
    junction_roads: int
    junctions: int
    controllers: int
    lanes_by_type: dict[str, int]
    signals_by_type: dict[str, int]
    signal_references: int
    crosswalks: int
    driving_length: float
    bounds: tuple[float, float, float, float]  # x_min, x_max, y_min, y_max (CARLA frame)


def summarize(odr: OpenDrive) -> MapSummary:
    """Counts and measures one parsed map."""
    lanes: Counter[str] = Counter()
    signals: Counter[str] = Counter()
    driving = 0.0
    references = crosswalks = 0
    x_lo = y_lo = math.inf
    x_hi = y_hi = -math.inf
    for road in odr.roads.values():
        for index, section in enumerate(road.lane_sections):
            end = (
                road.length
                if index == len(road.lane_sections) - 1
                else road.lane_sections[index + 1].s
            )
            for lane in section.lanes.values():
                if lane.id == 0:
                    continue
                lanes[lane.type] += 1
                if lane.type == "driving":
                    driving += end - section.s
        signals.update(signal.type for signal in road.signals)
        references += len(road.signal_references)
        crosswalks += sum(1 for obj in road.objects if obj.type == "crosswalk")
        xs, ys = _outline(road)
        x_lo, x_hi = min(x_lo, float(xs.min())), max(x_hi, float(xs.max()))
        y_lo, y_hi = min(y_lo, float(ys.min())), max(y_hi, float(ys.max()))
    return MapSummary(
        name=odr.header.name,
        roads=len(odr.roads),
        junction_roads=sum(1 for road in odr.roads.values() if road.junction != "-1"),
        junctions=len(odr.junctions),
        controllers=len(odr.controllers),
        lanes_by_type=dict(sorted(lanes.items())),
        signals_by_type=dict(sorted(signals.items())),
        signal_references=references,
        crosswalks=crosswalks,
        driving_length=driving,
        bounds=(x_lo, x_hi, -y_hi, -y_lo) if x_lo <= x_hi else (0.0, 0.0, 0.0, 0.0),
    )


def _outline(road: Road) -> tuple[np.ndarray, np.ndarray]:
    """x, y (OpenDRIVE frame) of the reference line and of the outermost lane borders on both
    sides, sampled along the road."""
    evaluator = RoadEvaluator(road)
    count = max(1, math.ceil(road.length / SAMPLE_STEP))
    # (count - 1) * SAMPLE_STEP < length, so every sample lies on the road.
    s = np.append(np.arange(count) * SAMPLE_STEP, road.length)
    points = [evaluator.surface_point(s, np.zeros_like(s))]
    sections = evaluator.section_index(s)
    for k in np.unique(sections):
        sk = s[sections == k]
        borders = evaluator.lane_borders(int(k), sk)
        points.append(evaluator.surface_point(sk, borders.min(axis=1)))
        points.append(evaluator.surface_point(sk, borders.max(axis=1)))
    stacked = np.concatenate([p.reshape(-1, 3) for p in points])
    return stacked[:, 0], stacked[:, 1]


def format_summary(summary: MapSummary, source: str) -> str:
    """The summary as the lines `lockstep map info` prints."""
    lane_text = ", ".join(f"{kind} {n}" for kind, n in summary.lanes_by_type.items()) or "none"
    signal_text = (
        ", ".join(
            f"{SIGNAL_NAMES.get(kind, 'type ' + kind)} {n}"
            for kind, n in summary.signals_by_type.items()
        )
        or "none"
    )
    x_min, x_max, y_min, y_max = summary.bounds
    return "\n".join(
        [
            f"map: {summary.name or '(unnamed)'} ({source})",
            f"roads: {summary.roads} ({summary.junction_roads} in junctions)",
            f"lanes: {sum(summary.lanes_by_type.values())} ({lane_text})",
            f"junctions: {summary.junctions} (controllers: {summary.controllers})",
            f"signals: {sum(summary.signals_by_type.values())} ({signal_text})",
            f"signal references: {summary.signal_references}",
            f"crosswalks: {summary.crosswalks}",
            f"driving lanes length: {summary.driving_length:.2f} m",
            f"bounds (CARLA frame): x {x_min:.2f} .. {x_max:.2f}, y {y_min:.2f} .. {y_max:.2f}",
        ]
    )
