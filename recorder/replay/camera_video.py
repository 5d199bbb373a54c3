"""`render_camera`: a video of a recorded log through a camera, the ego view of any run.

The log is replayed into a World on its map (recorder.replay.replayer), one world tick per picture
(1 / fps seconds), and after each tick, once the replay has set the actors' poses, a camera
of the rendering sensors (world.sensors.cameras) takes the picture: on the hero (the actor
whose role_name is hero), on the actor of a log id, or at a fixed pose. On an actor the
camera rides a chase mount, CHASE metres behind and above it (or a mount given).

Formats, by the output's extension:
* ``.png``: an animated PNG (APNG), lossless, written with the standard library's zlib
  (every browser plays it; one picture is a plain PNG);
* ``.gif``: a GIF of 256 colours a picture, through Pillow (the ``pictures`` extra);
* a folder (no extension): one PNG per picture, frame_000000.png up, for ffmpeg or the like.
No MP4 or WebM: their encoders are not on the package index without a bundled ffmpeg binary.
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from recorder.errors import PictureError
from recorder.replay.replayer import Replayer
from world.actors.attachments import compose
from world.geometry import Location, Rotation, Transform
from world.sensors.cameras import (
    DepthCamera,
    InstanceSegmentationCamera,
    NormalsCamera,
    RGBCamera,
    SemanticSegmentationCamera,
)
from world.sensors.color_converter import grey_log_depth, palette_bgra
from world.sensors.picture_file import png_bytes, png_chunk
from world.settings import WorldSettings

__all__ = ["CHASE", "CameraOptions", "CameraVideo", "render_camera"]

CHASE = Transform(Location(-6.5, 0.0, 2.6), Rotation(pitch=-10.0))  # behind and above
CAMERAS = {
    "rgb": RGBCamera,
    "depth": DepthCamera,
    "semantic_segmentation": SemanticSegmentationCamera,
    "instance_segmentation": InstanceSegmentationCamera,
    "normals": NormalsCamera,
}


@dataclass(frozen=True, slots=True)
class CameraOptions:
    """Where the camera is, what it is, the pictures' size, fov and rate, and the stretch."""

    mount: str = "hero"  # "hero", a log id, or a fixed pose "x,y,z[,pitch,yaw,roll]"
    kind: str = "rgb"
    width: int = 640
    height: int = 360
    fov: float = 90.0
    fps: float = 10.0
    start: float = 0.0
    duration: float = 0.0
    offset: Transform | None = None  # the mount on an actor (CHASE when None)


@dataclass(slots=True)
class CameraVideo:
    """What was written: the path, the pictures and their replay times."""

    path: str
    pictures: int
    width: int
    height: int
    first_time: float
    last_time: float


def _fixed_pose(text: str) -> Transform | None:
    parts = text.split(",")
    if len(parts) not in (3, 6):
        return None
    try:
        values = [float(p) for p in parts]
    except ValueError:
        return None
    if not all(math.isfinite(v) for v in values):
        return None
    pitch, yaw, roll = values[3:] if len(values) == 6 else (0.0, 0.0, 0.0)
    return Transform(Location(*values[:3]), Rotation(pitch, yaw, roll))


def _mounted(actor: Any, offset: Transform) -> Transform:
    """The world transform of `offset` in `actor`'s frame."""
    t = actor.get_transform()
    o = offset
    pos, rot = compose(
        np.array([[t.location.x, t.location.y, t.location.z]]),
        np.array([[t.rotation.pitch, t.rotation.yaw, t.rotation.roll]]),
        np.array([[o.location.x, o.location.y, o.location.z]]),
        np.array([[o.rotation.pitch, o.rotation.yaw, o.rotation.roll]]),
    )
    return Transform(Location(*map(float, pos[0])), Rotation(*map(float, rot[0])))


class _Placement:
    """Where the camera is at each picture."""

    def __init__(self, options: CameraOptions, replayer: Replayer, world: Any) -> None:
        self._fixed = _fixed_pose(options.mount)
        self._offset = options.offset or CHASE
        self._world = world
        self._actor_id: int | None = None
        if self._fixed is not None:
            return
        if options.mount == "hero":
            heroes = sorted(w for w, hero in replayer.is_hero.items() if hero)
            if not heroes:
                raise PictureError(
                    "render --camera hero: the log has no hero (no actor with role_name hero); "
                    "name an actor's log id or a pose x,y,z[,pitch,yaw,roll]"
                )
            self._actor_id = heroes[0]
            return
        try:
            log_id = int(options.mount)
        except ValueError:
            raise PictureError(
                f"render --camera: {options.mount!r} is neither hero, a log id nor a pose "
                "x,y,z[,pitch,yaw,roll]"
            ) from None
        world_id = replayer.mapped_ids.get(log_id, 0)
        if not world_id:
            raise PictureError(f"render --camera {log_id}: no actor of that id at the start")
        self._actor_id = world_id

    def transform(self) -> Transform | None:
        """The camera's pose now, or None when its actor is gone."""
        if self._fixed is not None:
            return self._fixed
        actor = self._world.get_actor(self._actor_id)
        return None if actor is None else _mounted(actor, self._offset)


def _rgb_of(kind: str, bgra: np.ndarray) -> np.ndarray:
    """(H, W, 3) RGB of a camera's picture, made viewable as CARLA's converters make it."""
    if kind == "depth":
        grey = grey_log_depth(bgra)
        return np.repeat(grey[..., None], 3, -1)
    if kind == "semantic_segmentation":
        bgra = palette_bgra(bgra)
    return np.ascontiguousarray(bgra[..., 2::-1])


class _Writer:
    """The pictures to an animated PNG, a GIF or a folder of PNGs (see the module)."""

    def __init__(self, output: Path, fps: float) -> None:
        self.output = output
        self.delay = (round(1000.0 / fps), 1000)
        suffix = output.suffix.lower()
        if suffix not in ("", ".png", ".gif"):
            raise PictureError(
                f"render --camera: {output.name}: the video is .png (animated PNG), .gif, or "
                "a folder of PNG pictures (no extension)"
            )
        self.kind = {"": "folder", ".png": "apng", ".gif": "gif"}[suffix]
        if self.kind == "gif":
            try:
                from PIL import Image as PillowImage
            except ImportError:
                raise PictureError(
                    "render --camera: a .gif needs Pillow (pip install 'lockstep[pictures]'); "
                    ".png needs nothing"
                ) from None
            self._pillow = PillowImage
        self._frames: list[Any] = []
        if self.kind == "folder":
            output.mkdir(parents=True, exist_ok=True)

    def add(self, rgb: np.ndarray) -> None:
        if self.kind == "folder":
            path = self.output / f"frame_{len(self._frames):06d}.png"
            path.write_bytes(png_bytes(rgb_with_alpha(rgb)))
            self._frames.append(path)
        elif self.kind == "gif":
            picture = self._pillow.fromarray(rgb)
            self._frames.append(picture.quantize(256, dither=self._pillow.Dither.NONE))
        else:
            self._frames.append((rgb.shape[1], rgb.shape[0], _deflate(rgb)))

    def close(self) -> None:
        if not self._frames or self.kind == "folder":
            return
        self.output.parent.mkdir(parents=True, exist_ok=True)
        if self.kind == "gif":
            first, *rest = self._frames
            first.save(self.output, save_all=True, append_images=rest, loop=0,
                       duration=self.delay[0])  # fmt: skip
            return
        self.output.write_bytes(_apng(self._frames, self.delay))


def rgb_with_alpha(rgb: np.ndarray) -> np.ndarray:
    out = np.full((*rgb.shape[:2], 4), 255, np.uint8)
    out[..., :3] = rgb
    return out


def _deflate(rgb: np.ndarray) -> bytes:
    rows = np.zeros((rgb.shape[0], rgb.shape[1] * 3 + 1), np.uint8)  # filter byte 0 a row
    rows[:, 1:] = rgb.reshape(rgb.shape[0], -1)
    return zlib.compress(rows.tobytes(), 6)


def _apng(frames: list[tuple[int, int, bytes]], delay: tuple[int, int]) -> bytes:
    """An animated PNG of RGB frames (width, height, deflated rows) `delay` (num, den) s
    apart, looping for ever; the first frame is also the still picture."""
    width, height, _ = frames[0]
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    out = [b"\x89PNG\r\n\x1a\n", png_chunk(b"IHDR", header)]
    if len(frames) > 1:
        out.append(png_chunk(b"acTL", struct.pack(">II", len(frames), 0)))
    sequence = 0
    for k, (_w, _h, data) in enumerate(frames):
        if len(frames) > 1:
            control = struct.pack(">IIIIIHHBB", sequence, width, height, 0, 0, *delay, 0, 0)
            out.append(png_chunk(b"fcTL", control))
            sequence += 1
        if k == 0:
            out.append(png_chunk(b"IDAT", data))
        else:
            out.append(png_chunk(b"fdAT", struct.pack(">I", sequence) + data))
            sequence += 1
    out.append(png_chunk(b"IEND", b""))
    return b"".join(out)


def render_camera(log: Path, world: Any, output: str | Path, options: CameraOptions) -> CameraVideo:
    """Replays `log` into `world` (a new World on the log's map) and writes the camera's
    video to `output` (see the module)."""
    if options.kind not in CAMERAS:
        raise PictureError(
            f"render --camera-type {options.kind!r}: expected one of {', '.join(CAMERAS)}"
        )
    if not (options.fps > 0.0 and math.isfinite(options.fps)):
        raise PictureError(f"render --fps {options.fps}: expected a rate above 0")
    world.apply_settings(
        WorldSettings(synchronous_mode=True, fixed_delta_seconds=1.0 / options.fps)
    )
    attributes = {
        "image_size_x": str(options.width),
        "image_size_y": str(options.height),
        "fov": str(options.fov),
    }
    camera = CAMERAS[options.kind](None, attributes)
    writer = _Writer(Path(output), options.fps)
    replayer = Replayer()
    replayer.replay_file(world, log, options.start, options.duration)
    if not replayer.is_enabled():
        raise PictureError(f"render --camera: {log}: nothing to replay")
    placement = _Placement(options, replayer, world)
    times: list[float] = []
    while True:
        transform = placement.transform()
        if transform is None:
            break  # the camera's actor left the log
        bgra = camera.picture(world.frame_scene(), transform, world.get_weather())
        writer.add(_rgb_of(options.kind, bgra))
        times.append(replayer.current_time)
        if not replayer.is_enabled() or replayer.current_time >= replayer.time_to_stop:
            break
        replayer.step(world)
    writer.close()
    return CameraVideo(str(output), len(times), options.width, options.height, times[0], times[-1])
