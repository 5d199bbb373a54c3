"""`render_log`: a recorded run drawn from above, as a PNG (one frame) or a GIF (a stretch).

Times follow the replayer's flags: `start` is seconds from the log's start (negative: from
its end) and `duration` seconds (0: to the end; a stretch past the end stops at the end).
A GIF holds floor(duration * fps) + 1 pictures, at times start + k / fps, each showing
the last log frame that starts at or before its time; a PNG shows the frame at `start`, or
the log's last frame when no start is given.

Without `follow` the view is fixed: it fits every drawn actor's positions over the
pictures' frames (or the whole map when no actor is drawn), plus MARGIN metres, and
LEAST_SPAN metres each way at least. With
`follow` it is `span` metres square, centred on that actor in every picture. Either way
the map is drawn once into a base picture at the view's scale and each picture is a copy
(or a window) of it with the moving things drawn on top. `RenderInfo` gives the scale and
each picture's top-left world point, so a world point maps to a pixel as
recorder/picture/view.py says: u = (x - x0) * scale, v = (y - y0) * scale.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from recorder.errors import LogFormatError, NotARecorderError, PictureError, TruncatedLogWarning
from recorder.logfile.access import RecordedLog
from recorder.logfile.debug_sidecar import read_sidecar, sidecar_path
from recorder.picture.frame_drawing import FrameDrawer
from recorder.picture.gif_stream import GifStream
from recorder.picture.log_scenes import LogScenes, Scene
from recorder.picture.map_layer import draw_map, map_layer
from recorder.picture.palette import palette_bytes
from recorder.picture.view import View, fit_view

MARGIN = 10.0  # metres around the actors of a fixed view
LEAST_SPAN = 60.0  # metres a fixed view shows at least each way (one car standing still)
_FORMATS = (".gif", ".png")
# A GIF's delay is in hundredths of a second and viewers stretch delays below 0.02 s; the
# printed time (to 0.01 s) then differs between pictures, so Pillow never merges two
# pictures into one (it merges identical neighbours), and a GIF holds what the rule says.
MAX_FPS = 50.0


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """What to draw: times (s), pictures per second, the actor to follow, picture size
    (pixels of the longer side) and the followed view's side (m)."""

    start: float | None = None
    duration: float = 0.0
    fps: float = 10.0
    follow: int | None = None
    size: int = 640
    span: float = 80.0


@dataclass(frozen=True, slots=True)
class PictureInfo:
    """One picture: its time (s), the log frame shown, that frame's elapsed time (s), and
    the world point (m) at the picture's top-left corner."""

    time: float
    frame: int
    elapsed: float
    x0: float
    y0: float


@dataclass
class RenderInfo:
    """What was written: the file, pixels per metre, picture size, the pictures' times."""

    path: Path
    scale: float
    width: int
    height: int
    fps: float
    pictures: list[PictureInfo] = field(default_factory=list)
    drawings: int = 0


def render_log(log_path: str | Path, town, out: str | Path, options: RenderOptions) -> RenderInfo:
    """Draws the log at `log_path` on `town` (a world.map.map.Map) into `out` (.gif, .png)."""
    image_module, draw_module, font = _pillow()
    out = Path(out)
    if out.suffix.lower() not in _FORMATS:
        raise PictureError(f"{out}: the picture must end in .gif or .png, found {out.suffix!r}")
    if not out.parent.is_dir():
        raise PictureError(f"{out}: no folder {out.parent} to write the picture in")
    scenes = LogScenes(_open_log(log_path))
    if len(scenes) == 0:
        raise PictureError(f"{log_path}: the log has no frame to draw")
    if options.follow is not None and options.follow not in scenes.looks:
        raise PictureError(
            f"--follow {options.follow}: no vehicle, walker or prop of that id in {log_path}"
        )
    times = picture_times(scenes, options, gif=out.suffix.lower() == ".gif", log=str(log_path))
    positions = [scenes.position_at(t) for t in times]
    decoded: dict[int, Scene] = {}
    for pos in positions:
        if pos not in decoded:
            decoded[pos] = scenes.scene(pos)
    layer = map_layer(town)
    base_view, width, height, first_centre = _base_view(scenes, positions, decoded, layer, options)
    base = image_module.new("P", (base_view.width, base_view.height), 0)
    base.putpalette(palette_bytes())
    draw_map(draw_module.Draw(base), layer, base_view)
    sidecar = sidecar_path(log_path)
    drawings = read_sidecar(sidecar) if sidecar.is_file() else []
    drawer = FrameDrawer(scenes, drawings, font)
    info = RenderInfo(out, base_view.scale, width, height, options.fps, [], len(drawings))
    windows = _Windows(base, base_view, options, width, height, first_centre)
    gif = None
    if out.suffix.lower() == ".gif":
        gif = GifStream(out, width, height, palette_bytes(), round(1000.0 / options.fps))
    try:
        for t, pos in zip(times, positions, strict=True):
            scene = decoded[pos]
            picture, view = windows.next(scene)
            drawer.draw(draw_module.Draw(picture), view, scene, t)
            info.pictures.append(PictureInfo(t, scene.frame, scene.elapsed, view.x0, view.y0))
            if gif is not None:
                gif.add(picture)  # written now: memory for two pictures, however many
            else:
                picture.save(out)
    except BaseException:
        if gif is not None:  # no half-written GIF left behind
            gif.close()
            out.unlink(missing_ok=True)
        raise
    if gif is not None:
        gif.close()
    return info


def _base_view(scenes: LogScenes, positions, decoded, layer, options: RenderOptions):
    """The base picture's view, the pictures' width and height, and the followed actor's
    first place (None for a fixed view), as the module says."""
    side = max(16, int(options.size))
    if options.follow is None:
        bounds = _actor_bounds(scenes, decoded.values()) or layer.bounds() or (-50, -50, 50, 50)
        view = fit_view(bounds, side, MARGIN, LEAST_SPAN)
        return view, view.width, view.height, None
    if not options.span > 0.0:
        raise PictureError(f"--span must be > 0 m, found {options.span}")
    scale = side / options.span
    track = _track(scenes, positions, decoded, options.follow)
    half = options.span / 2.0 + 1.0  # the windows stay inside the base picture
    x_lo, y_lo = track.min(axis=0) - half
    x_hi, y_hi = track.max(axis=0) + half
    size = (math.ceil((x_hi - x_lo) * scale), math.ceil((y_hi - y_lo) * scale))
    return View(float(x_lo), float(y_lo), scale, *size), side, side, track[0].tolist()


class _Windows:
    """Each picture's copy of the base picture: all of it for a fixed view, else the window
    of the picture's size centred on the followed actor (where it last was, when a frame
    does not hold it)."""

    def __init__(self, base, view: View, options: RenderOptions, width: int, height: int,
                 centre) -> None:  # fmt: skip
        self.base, self.view, self.options = base, view, options
        self.width, self.height = width, height
        self.centre = centre

    def next(self, scene: Scene):
        """The picture to draw `scene` on, and its view."""
        if self.options.follow is None:
            return self.base.copy(), self.view
        self.centre = _centre_of(scene, self.options.follow, self.centre)
        v = self.view
        half = self.options.span / 2.0
        u0 = round((self.centre[0] - half - v.x0) * v.scale)
        v0 = round((self.centre[1] - half - v.y0) * v.scale)
        picture = self.base.crop((u0, v0, u0 + self.width, v0 + self.height))
        return picture, View(v.x0 + u0 / v.scale, v.y0 + v0 / v.scale, v.scale, self.width,
                             self.height)  # fmt: skip


def _open_log(log_path: str | Path) -> RecordedLog:
    """The log, indexed; a log cut inside a frame (a run that died) or corrupt after some
    whole frames is drawn up to its last complete frame, with a TruncatedLogWarning."""
    log = RecordedLog(log_path)
    try:
        log.reader.frame_index  # noqa: B018  (indexing checks every packet's size)
        return log
    except NotARecorderError:
        raise
    except LogFormatError as exc:
        lenient = RecordedLog(log_path, lenient=True)
        if len(lenient.reader.frame_index) == 0:
            raise
        last = int(lenient.reader.frame_index.frame_id[-1])
        warnings.warn(
            TruncatedLogWarning(f"{exc}; drawn up to its last complete frame, {last}"),
            stacklevel=3,
        )
        return lenient


def picture_times(scenes: LogScenes, options: RenderOptions, *, gif: bool, log: str) -> list[float]:
    """The pictures' times (s) for the options (see the module), PictureError when the
    start, duration or fps do not fit the log."""
    elapsed = scenes.index.elapsed
    first, last = float(elapsed[0]), float(elapsed[-1])
    if not 0.0 < options.fps <= MAX_FPS:  # also refuses nan
        raise PictureError(
            f"--fps must be > 0 and at most {MAX_FPS:g} (a GIF counts its delays in "
            f"hundredths of a second), found {options.fps:g}"
        )
    if not math.isfinite(options.duration) or options.duration < 0.0:
        raise PictureError(f"-d must be >= 0 s (0: to the end), found {options.duration}")
    if options.start is None:
        start = first if gif else last
    elif not math.isfinite(options.start):
        raise PictureError(f"-s must be a number of seconds, found {options.start}")
    else:
        start = last + options.start if options.start < 0.0 else first + options.start
    if start > last + 1e-9 or start < first - 1e-9:
        raise PictureError(
            f"-s {options.start:g}: {log} runs from {first:g} s to {last:g} s "
            f"({len(scenes)} frames)"
        )
    if not gif:
        return [start]
    end = last if options.duration == 0.0 else min(last, start + options.duration)
    count = math.floor((end - start) * options.fps + 1e-9) + 1
    return [start + k / options.fps for k in range(count)]


def _actor_bounds(scenes: LogScenes, decoded) -> tuple[float, float, float, float] | None:
    """x_lo, y_lo, x_hi, y_hi of the drawn actors' positions in the decoded frames."""
    known = np.array(sorted(scenes.looks), dtype=np.int64)
    points = [s.xy[np.isin(s.ids, known)] for s in decoded]
    points = [p for p in points if len(p)]
    if not points:
        return None
    pts = np.concatenate(points)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def _track(scenes, positions, decoded, actor: int) -> np.ndarray:
    rows = [decoded[p].xy[decoded[p].ids == actor] for p in positions]
    rows = [r for r in rows if len(r)]
    if not rows:
        raise PictureError(f"--follow {actor}: the actor has no position in the frames drawn")
    return np.concatenate(rows)


def _centre_of(scene: Scene, actor: int, previous):
    hit = np.flatnonzero(scene.ids == actor)
    if len(hit):
        return scene.xy[hit[0]].tolist()
    if previous is not None:
        return previous
    return [0.0, 0.0]


def _pillow():
    """Pillow's Image and ImageDraw modules and its bitmap font (drawn several times faster
    than the FreeType default), or a PictureError saying how to get Pillow."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise PictureError(
            "pictures need Pillow, which is not installed: pip install 'lockstep[pictures]'"
        ) from None
    bitmap = getattr(ImageFont, "load_default_imagefont", None)  # Pillow >= 10.1
    return Image, ImageDraw, bitmap() if bitmap is not None else None
