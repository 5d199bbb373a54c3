"""What the exports (runner/view/mcap_export.py, rerun_export.py) write of a route, frame by
frame, in the right-handed frame the field's viewers use.

CARLA's frame is left-handed (x forward, y right, z up); Foxglove's and Rerun's are
right-handed (x forward, y left, z up). A pose goes over as CARLA's ROS bridge takes it:
(x, -y, z), and the rotation of roll, -pitch, -yaw (degrees) as the quaternion of
yaw about z, then pitch about y, then roll about x. Times are the log header's date plus
the frame's elapsed time, in nanoseconds.

A log alone is exported with what it holds; a log inside a run directory (its manifest
lists it) also with the route, its scenarios' triggers and the infractions of results.json.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from recorder.logfile.packet_ids import PacketId
from recorder.picture.frame_chunks import NO_SLOT
from runner.errors import ViewError
from runner.execution.manifest import MANIFEST
from runner.view.route_data import RouteView
from runner.view.sources import RouteSource, open_source
from world import elementary as el

LIGHT_STATES = ("Red", "Yellow", "Green", "Off", "Unknown")


@dataclass(frozen=True, slots=True)
class ExportFrame:
    """One frame: its index, log frame id and time (ns); the actors logged in it (table
    slots, positions (N, 3) m and rotations (N, 4) quaternions x, y, z, w, right-handed);
    the traffic lights' slots and states (CARLA's numbers)."""

    pos: int
    frame: int
    time_ns: int
    slots: np.ndarray
    position: np.ndarray
    rotation: np.ndarray
    light_slots: np.ndarray
    light_states: np.ndarray


@dataclass(frozen=True)
class ExportInfo:
    """What an export wrote: the file, its frames and actors."""

    path: Path
    frames: int
    actors: int


def route_for_log(log: Path, map_path: str | Path | None) -> RouteSource:
    """The route of `log`: from its run directory when the manifest beside it lists it,
    else the log alone (its map from `map_path` or found as `lockstep view` finds it)."""
    if (log.parent / MANIFEST).is_file():
        try:
            run = open_source(log.parent, 0, map_path)
        except ViewError:
            run = None
        for route in run.routes if run else []:
            if route.log.resolve() == log.resolve():
                return route
    return open_source(log, 0, map_path).routes[0]


def right_handed(location_cm: np.ndarray, rotation_deg: np.ndarray) -> tuple[np.ndarray, ...]:
    """Log positions (N, 3; cm) and rotations (N, 3; roll, pitch, yaw degrees) as right-handed
    positions (m) and quaternions (x, y, z, w), as the module says."""
    position = location_cm.astype(np.float64) / 100.0
    position[:, 1] = -position[:, 1]
    half = np.radians(rotation_deg.astype(np.float64)) / 2.0
    roll, pitch, yaw = half[:, 0], -half[:, 1], -half[:, 2]
    cr, sr = el.cos_v(roll), el.sin_v(roll)
    cp, sp = el.cos_v(pitch), el.sin_v(pitch)
    cy, sy = el.cos_v(yaw), el.sin_v(yaw)
    quaternion = np.stack(
        [
            sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
            cr * cp * cy + sr * sp * sy,
        ],
        axis=1,
    )
    return position, quaternion


def export_frames(view: RouteView) -> Iterator[ExportFrame]:
    """Every frame of the route's log, a chunk of frames read at a time."""
    chunks, index = view.chunks, view.chunks.index
    base = int(view.log.header.date) * 1_000_000_000
    drawn = np.array([a.place is None for a in chunks.actors] + [False], bool)
    step = 100
    for lo in range(0, len(index), step):
        hi = min(lo + step, len(index))
        poses, pose_frames = chunks.records(PacketId.Position, lo, hi)
        slots = chunks.slots(poses["id"])
        keep = drawn[np.where(slots == NO_SLOT, -1, slots)]
        poses, pose_frames, slots = poses[keep], pose_frames[keep], slots[keep]
        position, rotation = right_handed(poses["location"], poses["rotation"])
        states, state_frames = chunks.records(PacketId.State, lo, hi)
        state_slots = chunks.slots(states["id"])
        known = state_slots != NO_SLOT
        states, state_frames, state_slots = states[known], state_frames[known], state_slots[known]
        pose_at = np.searchsorted(pose_frames, np.arange(lo, hi + 1))
        state_at = np.searchsorted(state_frames, np.arange(lo, hi + 1))
        for k, pos in enumerate(range(lo, hi)):
            a, b = pose_at[k], pose_at[k + 1]
            c, d = state_at[k], state_at[k + 1]
            yield ExportFrame(
                pos,
                int(index.frame_id[pos]),
                base + round(float(index.elapsed[pos]) * 1e9),
                slots[a:b],
                position[a:b],
                rotation[a:b],
                state_slots[c:d],
                states["state"][c:d].astype(np.int64),
            )


def lane_triangles(poly: np.ndarray) -> np.ndarray:
    """The triangles (3 points each, flattened) of a lane polygon: n outer points, then n
    inner points back."""
    n = len(poly) // 2
    outer, inner = poly[:n], poly[n:][::-1]
    first = np.stack([outer[:-1], outer[1:], inner[:-1]], axis=1)
    second = np.stack([outer[1:], inner[1:], inner[:-1]], axis=1)
    return np.concatenate([first, second]).reshape(-1, 2)
