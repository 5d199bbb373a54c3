"""The debug drawings of a recorded run, beside its log: `<log>.debug.jsonl`.

CARLA's log has no packet for `world.debug` drawings, so lockstep keeps them in a sidecar
file, one JSON object a line, for `lockstep render` to draw. The Recorder adds a
`SidecarWriter` to the world's `debug.listeners` while it records to a file; the file is
made at the first drawing, so a run that draws nothing has no sidecar (and the sidecar of
an earlier log of the same name is removed when the recording starts).

Each line holds the drawing in log terms: `frame`, the first log frame that shows it (the
frame recorded after the drawing call), and when it stops showing, from CARLA's life
time: `last_frame` (a life time below 0: the next frame only) or `until` (a life time
above 0: the last log elapsed time, s, that shows it); both null for a life time of 0
(for good). Then `kind` (point, line, arrow, box, string), `points` ([[x, y, z]], m,
CARLA's frame), `color` [r, g, b, a], `thickness` (m; a point's size), `life_time`,
`text`, `arrow_size`, `extent` and `rotation` ([pitch, yaw, roll], degrees) for boxes,
and `hud`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recorder.errors import RecorderError

__all__ = ["SIDECAR_SUFFIX", "SidecarDrawing", "SidecarWriter", "read_sidecar", "sidecar_path"]

SIDECAR_SUFFIX = ".debug.jsonl"
KINDS = ("point", "line", "arrow", "box", "string")


def sidecar_path(log: str | Path) -> Path:
    """Where the drawings of the log at `log` are kept: the log's name + `.debug.jsonl`."""
    log = Path(log)
    return log.with_name(log.name + SIDECAR_SUFFIX)


class SidecarWriter:
    """A `world.debug` listener that writes each drawing when its frame is recorded."""

    def __init__(self, log: str | Path) -> None:
        self.path = sidecar_path(log)
        self.pending: list[Any] = []  # drawings not yet written
        self._file: Any = None
        # an earlier run's drawings belong to the log this recording overwrites
        self.path.unlink(missing_ok=True)

    def __call__(self, shape: Any) -> None:
        self.pending.append(shape)

    def frame_recorded(self, log_frame: int, log_elapsed: float, world: Any) -> None:
        """Writes the drawings made since the last frame, now that `log_frame` shows them."""
        if not self.pending:
            return
        stamp = world.clock()  # the drawings' times are on lockstep's clock
        frame_shift = log_frame - int(stamp.frame)
        time_shift = log_elapsed - float(stamp.elapsed_seconds)
        lines = []
        for shape in self.pending:
            if not shape.alive_at(int(stamp.frame), float(stamp.elapsed_seconds)):
                continue
            lines.append(json.dumps(_line(shape, log_frame, frame_shift, time_shift)) + "\n")
        self.pending = []
        if not lines:
            return
        if self._file is None:
            try:
                self._file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115
            except OSError as exc:
                raise RecorderError(
                    f"{self.path}: cannot write the debug drawings: {exc}"
                ) from None
        self._file.writelines(lines)
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _line(shape: Any, log_frame: int, frame_shift: int, time_shift: float) -> dict:
    life = float(shape.life_time)
    out: dict[str, Any] = {
        "frame": log_frame,
        "last_frame": shape.frame + 1 + frame_shift if life < 0.0 else None,
        "until": shape.elapsed + life + time_shift if life > 0.0 else None,
        "kind": KINDS[int(shape.kind)],
        "points": [[p.x, p.y, p.z] for p in shape.points],
        "color": list(shape.color),
        "thickness": shape.thickness,
        "life_time": life,
        "hud": bool(shape.hud),
    }
    if shape.text:
        out["text"] = shape.text
    if shape.arrow_size:
        out["arrow_size"] = shape.arrow_size
    if shape.box_extent is not None:
        e = shape.box_extent
        out["extent"] = [e.x, e.y, e.z]
    if shape.rotation is not None:
        r = shape.rotation
        out["rotation"] = [r.pitch, r.yaw, r.roll]
    return out


@dataclass(frozen=True, slots=True)
class SidecarDrawing:
    """One drawing read back from a sidecar (see the module for the fields)."""

    frame: int
    last_frame: int | None
    until: float | None
    kind: str
    points: tuple[tuple[float, float, float], ...]
    color: tuple[int, int, int, int]
    thickness: float
    text: str = ""
    arrow_size: float = 0.0
    extent: tuple[float, float, float] | None = None
    yaw: float = 0.0

    def shown(self, frame: int, elapsed: float) -> bool:
        """Whether the drawing shows on log frame `frame` at log time `elapsed`."""
        if frame < self.frame:
            return False
        if self.last_frame is not None and frame > self.last_frame:
            return False
        return self.until is None or elapsed <= self.until + 1e-9


def read_sidecar(path: str | Path) -> list[SidecarDrawing]:
    """The drawings of a sidecar file; RecorderError naming the file and line when one is bad."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecorderError(f"{path}: cannot read the debug drawings: {exc}") from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(_drawing(json.loads(line)))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise RecorderError(
                f"{path}:{number}: expected a drawing (frame, kind, points, color), "
                f"found {line[:60]!r}: {exc}"
            ) from None
    return out


def _drawing(d: dict) -> SidecarDrawing:
    kind = d["kind"]
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    points = tuple((float(p[0]), float(p[1]), float(p[2])) for p in d["points"])
    if not points or (kind in ("line", "arrow") and len(points) < 2):
        raise ValueError(f"a {kind} needs {'2 points' if kind in ('line', 'arrow') else 'a point'}")
    color = tuple(int(c) for c in d["color"])
    if len(color) != 4:
        raise ValueError("color needs 4 numbers")
    extent = d.get("extent")
    rotation = d.get("rotation")
    return SidecarDrawing(
        frame=int(d["frame"]),
        last_frame=None if d.get("last_frame") is None else int(d["last_frame"]),
        until=None if d.get("until") is None else float(d["until"]),
        kind=kind,
        points=points,
        color=color,  # type: ignore[arg-type]
        thickness=float(d.get("thickness", 0.1)),
        text=str(d.get("text", "")),
        arrow_size=float(d.get("arrow_size", 0.0)),
        extent=None if extent is None else (float(extent[0]), float(extent[1]), float(extent[2])),
        yaw=0.0 if rotation is None else float(rotation[1]),
    )
