"""One route as the page reads it: its description (JSON), its frames' times and its frame
chunks (binary, recorder/picture/frame_chunks.py), its camera images.

The description names the log's actors and traffic lights (the chunks' slots), the hero,
the route's polyline (the planner's dense route through the route's key points, as the run
drove it) and its kept scenarios' triggers, the infraction marks
(runner/view/infraction_marks.py), the log's collisions, the camera images beside the log
and, for two runs side by side, the paired route and the first divergence of the two logs
(`lockstep check`'s: runner/log_compare.py).

Camera images: a folder `<log file name>.images/` beside the log, one sub-folder per camera
(its name is the camera's), in it one PNG per picture named by the log frame id it shows
(`123.png` or `000123.png`); the page shows, beside the map, each camera's last picture at
or before the frame on screen.
"""

from __future__ import annotations

import warnings
from functools import cached_property
from pathlib import Path

import numpy as np

from recorder.errors import LogFormatError, NotARecorderError, TruncatedLogWarning
from recorder.logfile.access import RecordedLog, packed_records
from recorder.logfile.packet_ids import PacketId
from recorder.picture.frame_chunks import CHUNK_FRAMES, FrameChunks
from recorder.picture.sections import pack_sections
from runner.errors import ViewError
from runner.view.infraction_marks import HeroTrack, Mark, log_marks, record_marks
from runner.view.sources import RouteSource

IMAGES_SUFFIX = ".images"


class RouteView:
    """The page's data of one route (made on first use, kept for the next requests)."""

    def __init__(self, source: RouteSource):
        self.source = source
        self.log, self.warning = open_route_log(source.log)
        self.chunks = FrameChunks(self.log)
        self._chunk_cache: dict[int, bytes] = {}

    @cached_property
    def hero(self) -> int | None:
        """The hero's slot in the actor table (None: the log has no hero)."""
        for slot, actor in enumerate(self.chunks.actors):
            if actor.hero:
                return slot
        return None

    def meta(self) -> dict:
        """The route's description for the page (see the module)."""
        actors = self.chunks.actors
        index = self.chunks.index
        source = self.source
        hero_id = actors[self.hero].id if self.hero is not None else None
        out = {
            "key": source.key,
            "name": source.name,
            "log": str(source.log),
            "map_file": source.map_path.name,
            "frames": len(index),
            "chunk": CHUNK_FRAMES,
            "chunks": len(self.chunks),
            "actors": [a.as_json() for a in actors],
            "hero": self.hero,
            "route": self.route_points(),
            "triggers": self.triggers(),
            "marks": [m.as_json() for m in self.marks(hero_id)],
            "collisions": self.collisions(),
            "cameras": self.cameras(),
            "pair": source.pair.key if source.pair is not None else None,
            "warning": self.warning,
        }
        if source.record is not None:
            out["record"] = source.record
        return out

    def times(self) -> bytes:
        return pack_sections(self.chunks.times())

    def chunk(self, k: int) -> bytes:
        if k not in self._chunk_cache:
            self._chunk_cache[k] = pack_sections(self.chunks.chunk(k))
        return self._chunk_cache[k]

    # -- the route ---------------------------------------------------------------------------

    @cached_property
    def _plan(self) -> list | None:
        spec = self.source.spec
        if spec is None:
            return None
        from runner import map_store
        from runner.planner import interpolate_trajectory
        from world.geometry import Location

        town, planner = map_store.map_and_planner(spec.map_path)
        points = [Location(*p) for p in spec.definition.points]
        return interpolate_trajectory(town, points, planner=planner)

    def route_points(self) -> list[list[float]] | None:
        """The dense route's points (x, y, m), or None for a lone log."""
        plan = self._plan
        if plan is None:
            return None
        return [[round(tf.location.x, 3), round(tf.location.y, 3)] for tf, _ in plan]

    def triggers(self) -> list[dict]:
        """The kept scenarios' names, types and trigger places (x, y m, yaw degrees)."""
        plan = self._plan
        if not plan:
            return []
        from runner.route_scenarios import kept_scenarios

        out = []
        for planned in kept_scenarios(self.source.config, self.source.spec, plan):
            where = planned.trigger
            out.append({
                "name": planned.name,
                "type": planned.cls.type_name,
                "x": round(where.location.x, 3),
                "y": round(where.location.y, 3),
                "yaw": round(where.rotation.yaw, 2),
            })  # fmt: skip
        return out

    # -- marks ------------------------------------------------------------------------------

    def marks(self, hero_id: int | None) -> list[Mark]:
        last = len(self.chunks.index) - 1
        collisions = (self.chunks.scenes.collision_frame, self.chunks.scenes.collision_ids)
        record = self.source.record
        if record is None:
            names = {a.id: a.blueprint for a in self.chunks.actors}
            return log_marks(collisions, hero_id, names)
        infractions = record.get("infractions") or {}
        hero = self.hero_track(hero_id) if hero_id is not None else None
        return record_marks(infractions, hero, collisions, hero_id, last)

    def hero_track(self, hero_id: int) -> HeroTrack:
        """The hero's logged positions (from every Position packet, numpy at once)."""
        reader = self.log.reader
        table, index = reader.packet_table, reader.frame_index
        rows = np.flatnonzero(table.id == int(PacketId.Position))
        records, counts = packed_records(reader, int(PacketId.Position), rows)
        frames = np.repeat(np.searchsorted(index.offset, table.offset[rows], "right") - 1, counts)
        mine = (records["id"] == hero_id) & (frames >= 0)
        xy = records["location"][mine, :2].astype(np.float64) / 100.0
        return HeroTrack(frames[mine].astype(np.int64), xy)

    def collisions(self) -> list[dict]:
        scenes = self.chunks.scenes
        return [
            {"pos": int(p), "ids": [int(a), int(b)]}
            for p, (a, b) in zip(scenes.collision_frame.tolist(), scenes.collision_ids.tolist(),
                                 strict=True)
        ]  # fmt: skip

    # -- cameras ----------------------------------------------------------------------------

    @cached_property
    def _images(self) -> dict[str, dict[int, Path]]:
        folder = images_folder(self.source.log)
        out: dict[str, dict[int, Path]] = {}
        if not folder.is_dir():
            return out
        for camera in sorted(p for p in folder.iterdir() if p.is_dir()):
            pictures = {}
            for picture in camera.glob("*.png"):
                if picture.stem.isdigit():
                    pictures[int(picture.stem)] = picture
            if pictures:
                out[camera.name] = dict(sorted(pictures.items()))
        return out

    def cameras(self) -> dict[str, list[int]]:
        """Each camera's picture frames (log frame ids, ascending)."""
        return {name: list(pictures) for name, pictures in self._images.items()}

    def image(self, camera: str, frame: int) -> Path:
        try:
            return self._images[camera][frame]
        except KeyError:
            raise ViewError(
                f"{self.source.log}: no picture of camera {camera!r} at frame {frame}"
            ) from None


def images_folder(log: Path) -> Path:
    """The folder of a log's camera images (see the module)."""
    return log.with_name(log.name + IMAGES_SUFFIX)


def open_route_log(path: Path) -> tuple[RecordedLog, str | None]:
    """The log, indexed, and None; a log cut inside a frame (a run that died) is read up to
    its last complete frame, with a TruncatedLogWarning whose text comes back too."""
    try:
        log = RecordedLog(path)
        log.reader.frame_index  # noqa: B018  (indexing checks every packet's size)
        return log, None
    except NotARecorderError as exc:
        raise ViewError(str(exc)) from None
    except LogFormatError as exc:
        lenient = RecordedLog(path, lenient=True)
        if len(lenient.reader.frame_index) == 0:
            raise ViewError(str(exc)) from None
        last = int(lenient.reader.frame_index.frame_id[-1])
        message = f"{exc}; shown up to its last complete frame, {last}"
        warnings.warn(TruncatedLogWarning(message), stacklevel=2)
        return lenient, message
