"""`lockstep render`: pictures of a recorded run, checked against the log's own poses.

A short run of the small town is recorded (an autopilot hero and two autopilot cars, a few
debug drawings); the pictures' hero pixels (the hero colour, used by nothing else) must sit
where the log's poses put the hero, through the transform the render reports
(u = (x - x0) * scale, v = (y - y0) * scale, recorder/picture/view.py), and the debug
drawings of the sidecar must show where and when they were drawn.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

PIL = pytest.importorskip("PIL", reason="the render tests need Pillow (the test extra has it)")
from PIL import Image, ImageSequence  # noqa: E402
from recorder_runs import record_town  # noqa: E402

from recorder import Recorder, open_log  # noqa: E402
from recorder.errors import RecorderError  # noqa: E402
from recorder.logfile.debug_sidecar import read_sidecar, sidecar_path  # noqa: E402
from recorder.logfile.packet_ids import PacketId  # noqa: E402
from recorder.picture import RenderOptions, render_log  # noqa: E402
from runner.cli import main  # noqa: E402
from world import Map, World, WorldSettings  # noqa: E402
from world.actors.blueprints import Color  # noqa: E402
from world.geometry import BoundingBox, Location, Rotation, Vector3D  # noqa: E402
from world.traffic.autopilot.manager import street_spawn_points  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
TOWN = REPO / "configs" / "maps" / "town_small.xodr"
HERO_RGB = (255, 0, 200)  # recorder/picture/palette.py: the hero's fill
TICKS = 200
DT = 0.05
LINE_TICK = 50  # the green line is drawn before this tick's world.tick()
FLASH_TICK = 120  # a one-frame red line


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> dict:
    """Records the run; returns the log, the hero's id and the green line's world ends."""
    folder = tmp_path_factory.mktemp("render")
    log = folder / "drive.log"
    world = World(Map.from_file(TOWN))
    world.apply_settings(WorldSettings(fixed_delta_seconds=DT))
    library = world.get_blueprint_library()
    spots = street_spawn_points(world.get_map())
    bp = library.find("vehicle.lincoln.mkz_2017")
    bp.set_attribute("role_name", "hero")
    hero = world.spawn_actor(bp, spots[0])
    hero.set_autopilot(True)
    for k in (5, 9):
        car = world.try_spawn_actor(library.find("vehicle.audi.a2"), spots[k])
        if car is not None:
            car.set_autopilot(True)
    recorder = Recorder()
    recorder.start(world, log, "town_small", True, date=0)
    line = None
    for tick in range(1, TICKS + 1):
        if tick == LINE_TICK:
            at = hero.get_location()
            line = ((at.x - 12.0, at.y - 9.0), (at.x + 12.0, at.y - 9.0))
            world.debug.draw_line(
                Location(*line[0], 0.0), Location(*line[1], 0.0), thickness=0.4,
                color=Color(0, 255, 0), life_time=0.0,
            )  # fmt: skip
            world.debug.draw_arrow(at, Location(at.x, at.y + 5.0, at.z), life_time=2.0)
            world.debug.draw_point(at, size=0.5, life_time=1.0)
            world.debug.draw_string(at, "hello", life_time=1.0)
            box = BoundingBox(Location(at.x, at.y + 8.0, 0.0), Vector3D(2.0, 1.0, 1.0))
            world.debug.draw_box(box, Rotation(0.0, 30.0, 0.0), life_time=1.0)
        if tick == FLASH_TICK:
            world.debug.draw_line(Location(0, 0, 0), Location(1, 1, 0), color=Color(255, 0, 0))
        recorder.tick(world)
    recorder.stop()
    return {"log": log, "hero": hero.id, "line": line, "folder": folder}


def _render(run: dict, name: str, **options):
    return render_log(
        run["log"], Map.from_file(TOWN), run["folder"] / name, RenderOptions(**options)
    )


def _hero_centroid(picture: Image.Image) -> np.ndarray:
    rgb = np.asarray(picture.convert("RGB"))
    rows, cols = np.nonzero(np.all(rgb == HERO_RGB, axis=2))
    assert len(rows) > 20, "the hero is not in the picture"
    return np.array([cols.mean() + 0.5, rows.mean() + 0.5])  # pixel centres


def _expected_hero_pixel(run: dict, info, k: int) -> np.ndarray:
    """Where the log puts the hero's box centre in picture k, by the documented transform."""
    log = open_log(run["log"])
    track = log.trajectory(run["hero"])
    row = track[track["frame"] == info.pictures[k].frame][0]
    box = _hero_box(log, run["hero"])
    yaw = math.radians(float(row["yaw"]))
    cx = float(row["x"]) + math.cos(yaw) * box[0] - math.sin(yaw) * box[1]
    cy = float(row["y"]) + math.sin(yaw) * box[0] + math.cos(yaw) * box[1]
    p = info.pictures[k]
    return np.array([(cx - p.x0) * info.scale, (cy - p.y0) * info.scale])


def _hero_box(log, hero: int) -> tuple[float, float]:
    """The hero's logged box centre (m, actor frame) from its BoundingBox record."""
    for frame in log.frames[:3]:
        for r in frame.records(PacketId.BoundingBox):
            if r.id == hero:
                return r.origin[0] / 100.0, r.origin[1] / 100.0
    raise AssertionError("the hero has no BoundingBox record")


def test_gif_holds_the_pictures_fps_and_duration_say(run):
    info = _render(run, "part.gif", start=1.0, duration=5.0, fps=4.0)
    with Image.open(info.path) as gif:
        assert gif.n_frames == 21  # floor(5 s * 4 / s) + 1
    assert [p.time for p in info.pictures] == pytest.approx([1.0 + k / 4.0 for k in range(21)])
    frames = open_log(run["log"]).frames
    for p in info.pictures:  # each shows the last frame starting at or before its time (1 us)
        frame = next(f for f in frames if f.id == p.frame)
        assert frame.elapsed <= p.time + 1e-6 < frame.elapsed + DT
    assert info.pictures[0].frame == 21  # 1.0 s is frame 21's start (frame 1 starts at 0)


def test_whole_log_at_the_default_fps(run):
    info = _render(run, "all.gif")
    # 200 frames of 0.05 s: the last starts at 9.95 s; pictures at 0, 0.1, ..., 9.9 s
    assert len(info.pictures) == 100
    assert info.pictures[0].frame == 1 and info.pictures[-1].frame == 199
    with Image.open(info.path) as gif:
        assert gif.n_frames == 100


def test_hero_pixels_follow_the_logged_poses(run):
    info = _render(run, "hero.gif", start=0.0, duration=9.0, fps=2.0)
    with Image.open(info.path) as gif:
        pictures = [frame.copy() for frame in ImageSequence.Iterator(gif)]
    assert len(pictures) == 19
    seen = [_hero_centroid(p) for p in pictures]
    for k, centroid in enumerate(seen):
        assert np.abs(centroid - _expected_hero_pixel(run, info, k)).max() < 1.5, k
    assert np.linalg.norm(seen[-1] - seen[0]) > 20.0  # the hero drove across the picture


def test_follow_keeps_the_hero_in_the_middle(run):
    info = _render(run, "follow.png", start=6.0, follow=run["hero"], size=400, span=50.0)
    assert (info.width, info.height) == (400, 400) and info.scale == pytest.approx(8.0)
    with Image.open(info.path) as png:
        centroid = _hero_centroid(png)
    assert np.abs(centroid - _expected_hero_pixel(run, info, 0)).max() < 1.5
    # the view's centre is the hero's logged position (to the pixel the window snaps to)
    track = open_log(run["log"]).trajectory(run["hero"])
    row = track[track["frame"] == info.pictures[0].frame][0]
    p = info.pictures[0]
    centre = np.array([p.x0 + 25.0, p.y0 + 25.0])
    assert np.abs(centre - [row["x"], row["y"]]).max() <= 0.5 / info.scale + 1e-9


def test_png_without_start_shows_the_last_frame(run):
    info = _render(run, "last.png")
    assert len(info.pictures) == 1
    assert info.pictures[0].frame == open_log(run["log"]).frames[-1].id == TICKS
    with Image.open(info.path) as png:
        assert png.format == "PNG"
        assert np.abs(_hero_centroid(png) - _expected_hero_pixel(run, info, 0)).max() < 1.5


def test_sidecar_holds_the_drawings_in_log_frames(run):
    lines = [json.loads(t) for t in sidecar_path(run["log"]).read_text().splitlines()]
    assert [d["kind"] for d in lines] == ["line", "arrow", "point", "string", "box", "line"]
    line, arrow, point, text, box, flash = lines
    # drawn before tick 50's world.tick(): first shown in the 50th recorded frame
    assert line["frame"] == LINE_TICK and line["last_frame"] is None and line["until"] is None
    assert line["color"] == [0, 255, 0, 255] and line["thickness"] == 0.4
    # life 2 s, drawn 0.05 s before the frame shows it: until 1.95 s after that frame
    elapsed = (LINE_TICK - 1) * DT
    assert arrow["until"] == pytest.approx(elapsed + 2.0 - DT)
    assert point["thickness"] == 0.5 and point["until"] == pytest.approx(elapsed + 1.0 - DT)
    assert text["text"] == "hello" and box["rotation"][1] == 30.0 and box["extent"][0] == 2.0
    # life -1: the next frame only
    assert flash["frame"] == flash["last_frame"] == FLASH_TICK
    drawings = read_sidecar(sidecar_path(run["log"]))
    assert drawings[-1].shown(FLASH_TICK, (FLASH_TICK - 1) * DT)
    assert not drawings[-1].shown(FLASH_TICK + 1, FLASH_TICK * DT)


def test_a_drawn_line_appears_where_and_when_it_was_drawn(run):
    (x1, y1), (x2, y2) = run["line"]
    points = [(x1 + f * (x2 - x1), y1 + f * (y2 - y1)) for f in (0.1, 0.3, 0.5, 0.7, 0.9)]

    def green_at(start: float) -> list[bool]:
        info = _render(run, f"line{start}.png", start=start, follow=run["hero"], span=80.0)
        assert info.drawings == 6
        rgb = np.asarray(Image.open(info.path).convert("RGB"))
        p = info.pictures[0]
        out = []
        for x, y in points:
            u, v = int((x - p.x0) * info.scale), int((y - p.y0) * info.scale)
            out.append(tuple(rgb[v, u]) == (0, 255, 0))
        return out

    assert sum(green_at(LINE_TICK * DT + 0.5)) >= 4  # an actor may cover one point
    assert not any(green_at(1.0))  # before it was drawn


def test_a_run_without_drawings_has_no_sidecar(tmp_path):
    world = World(Map.from_file(TOWN))
    world.apply_settings(WorldSettings(fixed_delta_seconds=DT))
    sidecar_path(tmp_path / "quiet.log").write_text("an earlier run's drawings\n")
    recorder = Recorder()
    recorder.start(world, tmp_path / "quiet.log", "town_small", date=0)
    recorder.tick(world)
    recorder.stop()
    assert not sidecar_path(tmp_path / "quiet.log").exists()
    assert world.debug.listeners == []


def test_a_bad_sidecar_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "x.log.debug.jsonl"
    path.write_text('{"frame": 1, "kind": "line", "points": [[0,0,0]], "color": [1,2,3,4]}\n')
    with pytest.raises(RecorderError, match=r"x\.log\.debug\.jsonl:1: expected a drawing"):
        read_sidecar(path)


def _cli(capsys, *args: str) -> tuple[int, str]:
    rc = main(["render", *args])
    err = capsys.readouterr().err
    return rc, err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-s", "30"], r"-s 30: .*drive\.log runs from 0 s to 9\.95 s \(200 frames\)"),
        (["-s", "-11"], r"-s -11: .* runs from 0 s to 9\.95 s"),
        (["-d", "-1"], r"-d must be >= 0 s"),
        (["--fps", "0"], r"--fps must be > 0 and at most 50"),
        (["--fps", "60"], r"--fps must be > 0 and at most 50 .*found 60"),
        (["--follow", "999"], r"--follow 999: no vehicle, walker or prop of that id"),
        (["--size", "4"], r"--size must be at least 16 pixels"),
    ],
)
def test_bad_times_and_options_exit_2_with_one_line(run, capsys, extra, message):
    out = str(run["folder"] / "bad.gif")
    rc, err = _cli(capsys, str(run["log"]), "--map", str(TOWN), "-o", out, *extra)
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("lockstep: error: ")
    assert re.search(message, err), err


def test_bad_files_exit_2_with_one_line(run, capsys, tmp_path):
    out = str(tmp_path / "x.gif")
    rc, err = _cli(capsys, str(tmp_path / "none.log"), "--map", str(TOWN), "-o", out)
    assert rc == 2 and "no log at" in err and err.count("\n") == 1
    junk = tmp_path / "junk.log"
    junk.write_bytes(b"not a log at all")
    rc, err = _cli(capsys, str(junk), "--map", str(TOWN), "-o", out)
    assert rc == 2 and "junk.log" in err and err.count("\n") == 1
    bad_map = tmp_path / "broken" / TOWN.name  # the run's town by name, broken inside
    bad_map.parent.mkdir()
    bad_map.write_text("<OpenDRIVE><road")
    rc, err = _cli(capsys, str(run["log"]), "--map", str(bad_map), "-o", out)
    assert rc == 2 and f"broken/{TOWN.name}" in err and err.count("\n") == 1
    rc, err = _cli(capsys, str(run["log"]), "--map", str(TOWN), "-o", str(tmp_path / "x.jpg"))
    assert rc == 2 and "must end in .gif or .png" in err
    rc, err = _cli(capsys, str(run["log"]), "--map", str(TOWN), "-o", "/nonexistent/dir/x.gif")
    assert rc == 2 and "no folder /nonexistent/dir" in err


def test_without_pillow_the_error_says_how_to_get_it(run, capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    rc, err = _cli(capsys, str(run["log"]), "--map", str(TOWN), "-o", str(tmp_path / "x.png"))
    assert rc == 2 and "pip install 'lockstep[pictures]'" in err and err.count("\n") == 1


def test_cli_prints_what_it_wrote(run, capsys, tmp_path):
    out = tmp_path / "cli.gif"
    rc = main(["render", str(run["log"]), "--map", str(TOWN), "-o", str(out), "-d", "1"])
    assert rc == 0
    text = capsys.readouterr().out
    assert text.startswith(f"wrote {out}: 11 picture(s) of ") and "6 debug drawings" in text


COLLISION_RGB = (255, 60, 0)  # recorder/picture/palette.py: the collision ring
LIGHT_RGB = {0: (235, 30, 30), 1: (245, 210, 0), 2: (30, 210, 60)}  # red, yellow, green


@pytest.fixture(scope="module")
def crash(tmp_path_factory) -> dict:
    """tests/recorder_runs.py's town run: its hero hits a car from frame 13 (0.6 s) to frame
    30 (1.45 s), when its collision sensor is destroyed."""
    folder = tmp_path_factory.mktemp("crash")
    town = record_town(folder / "crash.log", 60)
    return {"log": folder / "crash.log", "hero": town.hero, "victim": town.victim,
            "folder": folder}  # fmt: skip


def _pixels_of(path: Path, rgb: tuple[int, int, int]) -> np.ndarray:
    picture = np.asarray(Image.open(path).convert("RGB"))
    rows, cols = np.nonzero(np.all(picture == rgb, axis=2))
    return np.stack([cols + 0.5, rows + 0.5], axis=1)


def test_collisions_are_ringed_between_the_two_actors_for_a_second(crash):
    log = open_log(crash["log"])
    hits = [f.id for f in log.frames if f.records(PacketId.Collision)]
    assert hits[0] == 13 and hits[-1] == 30
    before = _render(crash, "before.png", start=0.55)  # frame 12
    assert not len(_pixels_of(before.path, COLLISION_RGB))
    during = _render(crash, "during.png", start=1.0)  # frame 21
    ring = _pixels_of(during.path, COLLISION_RGB)
    assert len(ring) > 20
    p = during.pictures[0]
    both = [log.trajectory(crash[k]) for k in ("hero", "victim")]
    mid = np.mean([[t[t["frame"] == p.frame][0][c] for c in ("x", "y")] for t in both], axis=0)
    expected = (mid - [p.x0, p.y0]) * during.scale
    assert np.abs(ring.mean(axis=0) - expected).max() < 1.5
    still = _render(crash, "still.png", start=2.4)  # 0.95 s after the last collision frame
    assert len(_pixels_of(still.path, COLLISION_RGB))
    after = _render(crash, "after.png", start=2.5)  # 1.05 s after it
    assert not len(_pixels_of(after.path, COLLISION_RGB))


def test_traffic_lights_show_their_logged_state(crash):
    log = open_log(crash["log"])
    places = {}
    for r in log.frames[0].records(PacketId.EventAdd):
        if r.type == 3:  # CARLA's actor type of a traffic light
            places[r.id] = (r.location[0] / 100.0, r.location[1] / 100.0)
    assert len(places) >= 4
    seen = set()
    for start in (0.0, 1.5, 2.9):
        info = _render(crash, f"lights{start}.png", start=start)
        p = info.pictures[0]
        frame = next(f for f in log.frames if f.id == p.frame)
        states = {r.id: r.state for r in frame.records(PacketId.State)}
        picture = np.asarray(Image.open(info.path).convert("RGB"))
        checked = matched = 0
        for light, (x, y) in places.items():
            u, v = int((x - p.x0) * info.scale), int((y - p.y0) * info.scale)
            if not (0 <= u < info.width and 0 <= v < info.height) or states[light] not in LIGHT_RGB:
                continue
            checked += 1
            matched += tuple(picture[v, u]) == LIGHT_RGB[states[light]]
            seen.add(states[light])
        assert checked >= 4 and matched >= checked - 1  # an actor may stand on one light
    assert {0, 2} <= seen  # both red and green lights were checked


def test_a_log_cut_inside_a_frame_is_drawn_to_its_last_whole_frame(run, capsys, tmp_path):
    cut = tmp_path / "cut.log"
    data = run["log"].read_bytes()
    cut.write_bytes(data[: len(data) - 100])  # a run that died in its last frame
    out = tmp_path / "cut.png"
    rc = main(["render", str(cut), "--map", str(TOWN), "-o", str(out)])
    captured = capsys.readouterr()
    assert rc == 0
    assert captured.err.startswith("lockstep: warning: ") and captured.err.count("\n") == 1
    assert f"drawn up to its last complete frame, {TICKS - 1}" in captured.err
    assert f"(frames {TICKS - 1} to {TICKS - 1})" in captured.out


def test_the_gif_stream_reads_back_picture_for_picture(tmp_path):
    from recorder.picture.gif_stream import GifStream
    from recorder.picture.palette import palette_bytes

    rng = np.random.default_rng(3)
    base = rng.integers(0, 200, (30, 40), dtype=np.uint8)
    second = base.copy()
    second[5:9, 10:30] = 7  # a changed box
    third = second.copy()  # the same again: still a frame of its own
    fourth = second.copy()
    fourth[0, 0], fourth[29, 39] = 1, 2  # changes at two far corners
    pictures = [base, second, third, fourth]
    stream = GifStream(tmp_path / "s.gif", 40, 30, palette_bytes(), 50)
    for pixels in pictures:
        picture = Image.fromarray(pixels, mode="P")
        picture.putpalette(palette_bytes())
        stream.add(picture)
    stream.close()
    colours = np.array(palette_bytes(), dtype=np.uint8).reshape(256, 3)
    with Image.open(tmp_path / "s.gif") as gif:
        assert gif.n_frames == 4 and gif.info["loop"] == 0
        for k, frame in enumerate(ImageSequence.Iterator(gif)):
            assert frame.info["duration"] == 50
            assert np.array_equal(np.asarray(frame.convert("RGB")), colours[pictures[k]]), k
