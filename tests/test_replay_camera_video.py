"""`render --camera`: a recorded log replayed and filmed by a camera on the hero.

A hero drives along +x past a wall beside the road; the log is replayed into a fresh world of
the same scene and filmed from behind the hero: the animated PNG holds one picture per
replay tick, and the hero fills the same pixels of every picture (the camera rides it).
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

from recorder import Recorder
from recorder.errors import PictureError
from recorder.replay.camera_video import CameraOptions, render_camera
from tests.sensor_scenes import ground, scene_world, wall
from world import Location, Rotation, Transform


def _record(path) -> int:
    world = scene_world(ground(0.0), wall(40.0))
    bp = world.get_blueprint_library().find("vehicle.lincoln.mkz_2020")
    bp.set_attribute("role_name", "hero")
    hero = world.spawn_actor(bp, Transform(Location(0.0, 0.0, 0.0), Rotation()))
    hero.set_simulate_physics(False)
    recorder = Recorder()
    recorder.start(world, path, "flat", False)
    for tick in range(1, 11):
        hero.set_location(Location(0.5 * tick, 0.0, 0.0))
        world.tick()
        recorder.record(world)
    recorder.stop()
    return hero.id


def _apng_frames(data: bytes) -> list[tuple[bytes, bytes]]:
    """(chunk kind, payload) of every chunk of a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, payload = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + payload)
        chunks.append((kind, payload))
        at += 12 + length
    return chunks


def test_the_hero_is_filmed_from_behind(tmp_path):
    log = tmp_path / "run.log"
    _record(log)
    out = tmp_path / "hero.png"
    options = CameraOptions(mount="hero", kind="semantic_segmentation", width=48, height=27,
                            fps=20.0)  # fmt: skip
    video = render_camera(log, scene_world(ground(0.0), wall(40.0)), out, options)
    chunks = _apng_frames(out.read_bytes())
    kinds = [kind for kind, _ in chunks]
    frames, plays = struct.unpack(">II", dict(chunks)[b"acTL"])
    assert frames == video.pictures == kinds.count(b"fcTL") and plays == 0
    assert frames == 10  # 10 recorded frames: 0.45 s of replay at 20 Hz, and the start
    assert kinds.count(b"IDAT") == 1 and kinds.count(b"fdAT") == frames - 1
    assert struct.unpack(">II", dict(chunks)[b"IHDR"][:8]) == (48, 27)
    data = [payload for kind, payload in chunks if kind == b"IDAT"]
    data += [payload[4:] for kind, payload in chunks if kind == b"fdAT"]
    for deflated in data:
        rows = np.frombuffer(zlib.decompress(deflated), np.uint8).reshape(27, 1 + 48 * 3)
        picture = rows[:, 1:].reshape(27, 48, 3)
        # 2.6 m up and 6.5 m behind, looking 10 degrees down: the centre ray meets the roof
        # (1.49 m high) 6.3 m ahead, over the car (4.05 to 8.95 m ahead); the bottom row's
        # ray, 39.4 degrees down, meets the road 3.2 m ahead, before the car
        assert picture[13, 24].tolist() == [0, 0, 142]  # CityScapes' car
        assert picture[26, 24].tolist() == [128, 64, 128]  # CityScapes' road


def test_a_mount_that_is_not_there_is_a_clear_error(tmp_path):
    log = tmp_path / "run.log"
    _record(log)
    with pytest.raises(PictureError, match="neither hero, a log id nor a pose"):
        render_camera(log, scene_world(ground(0.0)), tmp_path / "x.png", CameraOptions("roof"))
    with pytest.raises(PictureError, match=r"\.png \(animated PNG\), \.gif"):
        render_camera(log, scene_world(ground(0.0)), tmp_path / "x.mp4", CameraOptions())
